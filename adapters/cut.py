"""What an adapter's cut returns (adapters.systems.System.cut): an input in independent parts."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.manifests import Manifest

__all__ = ["Cut"]


@dataclass(frozen=True, slots=True)
class Cut:
    """What every part reads, and each part's own objects, in the parts' output order."""

    shared: list[Manifest]
    own: list[list[Manifest]]

    def part(self, index: int) -> list[Manifest]:
        """The objects the part reads."""
        return [*self.shared, *self.own[index]]
