"""What a system's adapter gives back to the rest of the program: what its emit returns
(Emitted) and what its cut returns (Cut). The record that carries a system's every facet is
adapters.registry.System."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.kube.manifests import Manifest

__all__ = ["Cut", "Emitted"]


@dataclass(frozen=True, slots=True)
class Emitted:
    """The objects to apply and the references of those to delete."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    # Where the system's own status says more than the neutral result: every placement written
    # (some never reach the solver, e.g. misconfigured ones) and those its status calls unsatisfied.
    placements: tuple[str, ...] | None = None
    unsatisfied: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Cut:
    """An input in independent parts: what every part reads, and each part's own objects, in the
    parts' output order."""

    shared: list[Manifest]
    own: list[list[Manifest]]

    def part(self, index: int) -> list[Manifest]:
        """The objects the part reads."""
        return [*self.shared, *self.own[index]]
