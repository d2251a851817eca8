"""What an adapter's emit returns: the objects to apply and the references of those to delete."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Emitted"]


@dataclass(frozen=True, slots=True)
class Emitted:
    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    # Where the system's own status says more than the neutral result: every placement written
    # (some never reach the solver, e.g. misconfigured ones) and those its status calls unsatisfied.
    placements: tuple[str, ...] | None = None
    unsatisfied: tuple[str, ...] | None = None
