"""Couplings: what makes one request's answer depend on another's, and the one shape each takes.

Most requests are independent: each is filtered, scored and answered alone (a closed form or a
small search). A few things couple them, and they are named (DESIGN.md): tenancy slots
(solver.tenancy: a cluster's slots and a pool's new clusters), Balance (solver.balance: a score
read off the other requests' decisions) and, to come, Karmada's capacity (replicas against each
cluster's free capacity). Each is a `Coupling`, so that a new one plugs in beside them with its
own module instead of becoming another engine: it says what its units draw on, and
solver.decompose finds the independent parts of every coupling in one place; it answers as
upstream does, once; it answers each part jointly in optimal mode, never worse; and it measures
an answer on its levels, with the bound it proved.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from model import LevelStats
from solver.decompose import components

__all__ = ["Coupling", "Levels", "decide", "zero_levels"]

Answer = TypeVar("Answer")


@dataclass(frozen=True, slots=True)
class Levels:
    """A part's objective levels for one answer, most important first, all minimised (they add up
    over parts), and the lower bound proven on them (None: nothing proven; a None level: that
    level unproven, as every level after one the answer does not hold at its proven optimum)."""

    values: tuple[int, ...]
    bound: tuple[int | None, ...] | None

    @property
    def proven(self) -> bool:
        """Every level at its proven optimum."""
        return self.bound is not None and self.bound == self.values

    def stats(self, names: Sequence[str]) -> tuple[LevelStats, ...]:
        bound = self.bound or (None,) * len(self.values)
        return tuple(
            LevelStats.of(name, value, least)
            for name, value, least in zip(names, self.values, bound, strict=True)
        )


class Coupling(Protocol[Answer]):
    """A finite resource several requests draw on. The coupling decides units: a request, or a
    class of interchangeable requests (tenancy's: the same candidates, limit, packing and pool),
    so that its draws and its models are the size of the classes, not of the requests
    (semantics/cp-sat-notes.md, 4.2: aggregate identical placements into counts).

    Written with Karmada's capacity in mind, the third coupling: each binding asks for replicas,
    each replica a demand vector (cpu, memory, pods, ...), against each cluster's free-capacity
    vector, and several bindings compete for it. Its units are classes of bindings with equal
    demand, placement and division rule; it draws on the clusters it may use; greedy divides
    binding by binding in upstream's order against what is left; jointly it is integer replicas
    per (class, cluster) within every resource of every cluster.
    """

    def draws(self) -> Sequence[Collection[Hashable]]:
        """Per unit, the shared resources it draws on, as keys the coupling names; units sharing
        no key, directly or through others, are independent parts (solver.decompose). Tenancy:
        ("cluster", row) for each candidate's slots, ("pool", name) for each pool whose new
        clusters it may open or join. Balance: one key for every request with a choice, since
        each Balance score reads the fleet's busiest count, which any pick may move. Capacity:
        ("capacity", row) for each cluster that could take one of its replicas (a cluster's
        resources are taken together, so one key per cluster, not per resource)."""
        ...

    def greedy(self) -> Answer:
        """Upstream's answer for every unit, computed once over all of them, not per part:
        upstream's order (a queue, the batch order) and its seeded draws run across parts. It is
        the `--mode greedy` answer, and what the joint answer is measured against and hinted
        with. Capacity: bindings in upstream's order, each divided as its rule says against the
        free capacity left, which then shrinks."""
        ...

    def joint(self, part: list[int], greedy: Answer) -> Answer:
        """The part's answer in optimal mode: never worse than `greedy` on the part's levels
        (greedy's own where nothing better is found, or time runs out), and kept near it (less
        churn) where levels tie. Small by construction: counts per (unit, cluster) over the
        candidates that can matter, hinted with greedy, bounded in deterministic time. Capacity:
        sum over units of demand x replicas within each resource of each cluster, a plain linear
        row per (cluster, resource), the primer's cheapest kind of constraint."""
        ...

    def levels(self, part: list[int], answer: Answer) -> Levels:
        """The part's levels for the answer and the bound proven on them. Tenancy: requests
        left unplaced, new clusters, the packing's aim; Balance: the objective's levels as
        shortfalls (solver.objective.LEVEL_NAMES), summed over the coupled requests. Capacity:
        requests left unscheduled per priority, replicas moved, then the division rule's aim
        (the earliest tier, fewest clusters, the split upstream computes)."""
        ...


def decide(coupling: Coupling[Answer], optimal: bool) -> list[tuple[list[int], Answer]]:
    """Each independent part of the coupling with its answer: upstream's for every part (asked
    once), then in optimal mode the part's joint answer."""
    greedy = coupling.greedy()
    parts = components(coupling.draws())
    return [(part, coupling.joint(part, greedy) if optimal else greedy) for part in parts]


def zero_levels(names: Sequence[str], *, proven: bool) -> tuple[LevelStats, ...]:
    """Every level at 0 before any part is added (proven so in optimal mode: with no part there
    is nothing to prove), so that a solve reports all its levels, in order, even with no part."""
    return tuple(LevelStats.of(name, 0, 0 if proven else None) for name in names)
