"""Which clusters a request's replicas may go to, and in what order upstream considers them.

The filters, in ONE fixed order (upstream runs its filter plugins in Go map order, so the reason
it reports for a cluster failing several is random; we report the first of this order, which is
upstream's registry order, pkg/scheduler/framework/plugins/registry.go):

1. INELIGIBLE: the cluster is leaving (or not eligible): skipped before any filter, as upstream
   skips a cluster being deleted (it is counted among all clusters, with no reason);
2. MISSING: it lacks the trait the request `needs` (detail: the trait), unless the request
   already holds it;
3. TAINT: a taint its tolerations leave untolerated (Unselected.taint), a held cluster exempt
   from `new_only` taints;
4. AFFINITY: it matches none of the `required` terms, or (with tiers) neither the observed tier's
   term nor, for a request with replicas to fit (not `unlimited`), one of its overflow terms;
5. SPREAD: it lacks the claim of a group spread (detail: the claim; "" groups every cluster
   alone and filters nothing), the spreads judged in their order;
6. EVICTED: the request is being moved off it.

A cluster the request holds is one of `existing` or of `Replicas.current` (what it was
assigned last). Every mask is a numpy array over the batch's clusters, cached per distinct
argument, so that a batch of thousands of requests costs a few vector operations each.

The canonical order (spreadconstraint sortClusters): overflow order ascending (0 for the tier's
own term, i for its i-th overflow term, 1000 for none), locality score descending (100 on a
cluster the request holds), available replicas (estimate + held) descending, name ascending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from model import Cluster, ClusterTerm, FilterKind, PlacementRequest, Taint, Toleration, first_untolerated

__all__ = ["FILTERS", "HELD_SCORE", "NO_OVERFLOW", "Filters", "Judgement", "canonical", "packed_order"]

FILTERS = (
    FilterKind.INELIGIBLE,
    FilterKind.MISSING,
    FilterKind.TAINT,
    FilterKind.AFFINITY,
    FilterKind.SPREAD,
    FilterKind.EVICTED,
)
HELD_SCORE = 100  # the locality score of a cluster the request holds (every other scores 0)
NO_OVERFLOW = 1000  # the overflow order of a cluster no term of the tier matches


@dataclass(frozen=True, slots=True)
class Judgement:
    """A request's filters judged under a tier: `passing` per cluster, and (failing) the rows
    failing them with the first filter each fails. Made of the verdicts of every request alike in
    its filters (shared, read-only) and the few clusters the request holds, judged again."""

    passing: np.ndarray
    shared_failing: np.ndarray  # rows, ascending (the held ones judged again in `held`)
    shared_first: np.ndarray  # per such row, the index in FILTERS of the first filter it fails
    held: Mapping[int, int | None]  # per held row, the first filter it fails (None: it passes)

    def failing(self, limit: int | None) -> tuple[list[int], list[int]]:
        """The failing rows in name order, at most `limit` (None: all), and the index in FILTERS
        of the first filter each fails."""
        rows, first = self.shared_failing, self.shared_first
        if limit is not None:
            rows, first = rows[: limit + len(self.held)], first[: limit + len(self.held)]
        pairs = [
            (row, k) for row, k in zip(rows.tolist(), first.tolist(), strict=True) if row not in self.held
        ]
        if self.held:
            pairs = sorted(pairs + [(row, k) for row, k in self.held.items() if k is not None])
        pairs = pairs[:limit]
        return [row for row, _ in pairs], [k for _, k in pairs]


_MISSING, _TAINT = FILTERS.index(FilterKind.MISSING), FILTERS.index(FilterKind.TAINT)


class Filters:
    """The filters' masks over the batch's clusters, cached per distinct trait, term, claim and
    tolerations."""

    def __init__(self, clusters: Sequence[Cluster], now: datetime | None) -> None:
        self.clusters = clusters
        self.now = now
        self.index = {c.name: i for i, c in enumerate(clusters)}
        self.eligible = np.array([c.eligible and not c.leaving for c in clusters], dtype=bool)
        self.tainted = [i for i, c in enumerate(clusters) if c.taints]
        self._traits: dict[str, np.ndarray] = {}
        self._trait_rows: dict[str, list[int]] | None = None
        self._terms: dict[ClusterTerm, np.ndarray] = {}
        self._claims: dict[str, np.ndarray] = {}
        self._tolerated: dict[tuple[Toleration, ...], np.ndarray] = {}
        self._judged: dict[tuple, tuple[list[tuple[FilterKind, np.ndarray]], Judgement]] = {}

    def trait(self, trait: str) -> np.ndarray:
        if self._trait_rows is None:  # every trait's rows, in one pass over the clusters
            rows: dict[str, list[int]] = {}
            for i, c in enumerate(self.clusters):
                for t in c.traits:
                    rows.setdefault(t, []).append(i)
            self._trait_rows = rows
        got = self._traits.get(trait)
        if got is None:
            got = self._traits[trait] = np.zeros(len(self.clusters), dtype=bool)
            got[self._trait_rows.get(trait, [])] = True
        return got

    def term(self, term: ClusterTerm) -> np.ndarray:
        got = self._terms.get(term)
        if got is None:
            if term.labels is None and not term.properties and term.claims is None:
                got = np.ones(len(self.clusters), dtype=bool)  # traits alone (the adapter decided them)
                for trait in term.traits:
                    got &= self.trait(trait)
            else:
                got = np.array(
                    [term.matches(c.labels, c.properties, c.claims, c.traits) for c in self.clusters],
                    dtype=bool,
                )
            self._terms[term] = got
        return got

    def any_term(self, terms: Sequence[ClusterTerm]) -> np.ndarray:
        out = np.zeros(len(self.clusters), dtype=bool)
        for term in terms:
            out |= self.term(term)
        return out

    def claim(self, claim: str) -> np.ndarray:
        got = self._claims.get(claim)
        if got is None:
            got = self._claims[claim] = np.array([claim in c.claims for c in self.clusters], dtype=bool)
        return got

    def tolerated(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """Whether each cluster's taints are all tolerated, for a request that does not hold it."""
        got = self._tolerated.get(tolerations)
        if got is None:
            got = np.ones(len(self.clusters), dtype=bool)
            for i in self.tainted:
                got[i] = self.untolerated(i, tolerations, held=False) is None
            self._tolerated[tolerations] = got
        return got

    def untolerated(self, row: int, tolerations: tuple[Toleration, ...], *, held: bool) -> Taint | None:
        return first_untolerated(self.clusters[row].taints, tolerations, self.now, held=held)

    def verdicts(
        self, request: PlacementRequest, tier: int, held: Sequence[int]
    ) -> list[tuple[FilterKind, np.ndarray]]:
        """Each filter's verdict on every cluster (True: it passes), in FILTERS order, for the
        request under its tier `tier`; `held`: the rows it holds."""
        replicas = request.replicas
        n = len(self.clusters)
        every = np.ones(n, dtype=bool)
        needs = self.trait(replicas.needs).copy() if replicas.needs else every
        tolerated = self.tolerated(request.tolerations)
        if held:
            tolerated = tolerated.copy()
            for row in held:
                needs[row] = True
                tolerated[row] = self.untolerated(row, request.tolerations, held=True) is None
        affinity = self.any_term(request.required) if request.required else every
        if replicas.tiers:
            chosen = replicas.tiers[tier]
            terms = (chosen.term,) if replicas.unlimited else (chosen.term, *chosen.overflow)
            affinity = affinity & self.any_term(terms)
        spread = every
        for group in replicas.groups:
            if group.claim:
                spread = spread & self.claim(group.claim)
        evicted = every
        if replicas.evicted:
            evicted = every.copy()
            for name in replicas.evicted:
                row = self.index.get(name)
                if row is not None:
                    evicted[row] = False
        masks = (self.eligible, needs, tolerated, affinity, spread, evicted)
        return list(zip(FILTERS, masks, strict=True))

    def judge(self, request: PlacementRequest, tier: int, held: Sequence[int]) -> Judgement:
        """The request's filters judged under its tier `tier`; `held`: the rows it holds. The
        verdicts depend on the request's filters alone but at the clusters it holds (what it
        needs and untolerated new-only taints are not asked there): made once per distinct
        filters, the held clusters judged again."""
        replicas = request.replicas
        terms = None
        if replicas.tiers:
            chosen = replicas.tiers[tier]
            terms = (chosen.term,) if replicas.unlimited else (chosen.term, *chosen.overflow)
        key = (
            replicas.needs,
            request.tolerations,
            request.required,
            terms,
            tuple(g.claim for g in replicas.groups if g.claim),
            replicas.evicted,
        )
        got = self._judged.get(key)
        if got is None:
            verdicts = self.verdicts(request, tier, ())
            passing = np.logical_and.reduce([mask for _, mask in verdicts])
            passing.setflags(write=False)
            failing = np.flatnonzero(~passing)
            first = (
                np.argmin(np.array([mask[failing] for _, mask in verdicts]), axis=0)
                if len(failing)
                else failing
            )
            got = self._judged[key] = (verdicts, Judgement(passing, failing, first, {}))
        verdicts, shared = got
        if not held:
            return shared
        passing = shared.passing.copy()
        again: dict[int, int | None] = {}
        for row in held:
            flags = [bool(mask[row]) for _, mask in verdicts]
            flags[_MISSING] = True
            flags[_TAINT] = self.untolerated(row, request.tolerations, held=True) is None
            passing[row] = all(flags)
            again[row] = None if passing[row] else flags.index(False)
        return Judgement(passing, shared.shared_failing, shared.shared_first, again)

    def overflow_order(self, request: PlacementRequest, tier: int, rows: np.ndarray) -> np.ndarray:
        """Each row's overflow order under the tier (0 without tiers)."""
        replicas = request.replicas
        order = np.zeros(len(rows), dtype=np.int64)
        if not replicas.tiers:
            return order
        chosen = replicas.tiers[tier]
        order[:] = NO_OVERFLOW
        for i, term in reversed(list(enumerate((chosen.term, *chosen.overflow)))):
            order[self.term(term)[rows]] = i  # the first term that matches wins
        return order


def canonical(overflow: np.ndarray, score: np.ndarray, available: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The permutation that puts candidates in upstream's order (rows are in name order)."""
    if len(rows) > 1 and bool((rows[1:] > rows[:-1]).all()):  # ascending: the position orders ties
        got = packed_order([(overflow, False), (score, True), (available, True)])
        if got is not None:
            return got
    return np.lexsort((rows, -available, -score, overflow))


_PACKED_BITS = 63


def packed_order(keys: list[tuple[np.ndarray, bool]]) -> np.ndarray | None:
    """The positions sorted by the keys (the first decides, each ascending or `descending`),
    ties by position: the keys and the position packed into one int64 per entry and sorted as
    values (a fraction of a lexsort's time over a thousand entries); None where they do not fit
    63 bits."""
    n = len(keys[0][0])
    if not n:
        return np.zeros(0, dtype=np.int64)
    packed = np.arange(n, dtype=np.int64)
    shift = n.bit_length()
    for values, descending in reversed(keys):
        low, high = int(values.min()), int(values.max())
        width = (high - low).bit_length()
        if shift + width > _PACKED_BITS:
            return None
        if width:
            packed |= ((high - values) if descending else (values - low)) << shift
            shift += width
    return np.sort(packed) & ((1 << n.bit_length()) - 1)
