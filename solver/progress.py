"""Progress of a solve, for a caller that wants to show it (the command line, on a terminal)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Progress", "Report"]


@dataclass(frozen=True, slots=True)
class Progress:
    phase: str  # "filtered", "deciding", "balance", "done"
    done: int  # requests decided so far (balance: the search sweep)
    total: int  # requests in the batch (balance: the most sweeps)
    elapsed: float  # wall seconds since the solve began
    objective: int | None = None  # the objective so far, where one is known
    bound: int | None = None  # the proven bound, once known
    time_limited: bool = False


Report = Callable[[Progress], None]
