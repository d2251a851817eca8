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

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from model import Cluster, ClusterTerm, FilterKind, PlacementRequest, Taint, Toleration, first_untolerated
from solver.replicas.kept import kept_rows

__all__ = ["FILTERS", "HELD_SCORE", "NO_OVERFLOW", "Filters", "canonical", "packed_order"]

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
class _Shared:
    """The verdicts of every request alike in its filters (under a tier), as bits: the passing
    clusters, each filter's verdict, and the first failing rows (in name order, at most _KEPT)
    with the first filter each fails. A few kilobytes: thousands are kept."""

    passing: np.ndarray  # np.packbits of the passing mask
    verdicts: np.ndarray  # np.packbits of each filter's mask, in FILTERS order (a row each)
    failing: list[int]
    first: list[int]
    more: bool  # more rows fail than `failing` lists


_KEPT = 64
_TRAITS_ALONE = 8  # traits read one by one before every cluster's are indexed at once (Filters.trait)
_MISSING, _TAINT = FILTERS.index(FilterKind.MISSING), FILTERS.index(FilterKind.TAINT)


class Filters:
    """The filters' masks over the batch's clusters, cached per distinct trait, term, claim and
    tolerations; where the clusters are kept between batches (solver.replicas.kept), the masks
    that read a cluster alone are the kept ones."""

    def __init__(self, clusters: Sequence[Cluster], now: datetime | None) -> None:
        self.clusters = clusters
        self.now = now
        self.kept = kept_rows(clusters)
        if self.kept is not None:
            rows = self.kept.rows
            self.index = rows.index
            self.eligible = rows.mask(("eligible",), _eligible)
            self.tainted = rows.tainted
        else:
            self.index = {c.name: i for i, c in enumerate(clusters)}
            self.eligible = np.array([_eligible(c) for c in clusters], dtype=bool)
            self.tainted = [i for i, c in enumerate(clusters) if c.taints]
        self._traits: dict[str, np.ndarray] = {}
        self._trait_rows: dict[str, list[int]] | None = None
        self._terms: dict[ClusterTerm, np.ndarray] = {}
        self._claims: dict[str, np.ndarray] = {}
        self._tolerated: dict[tuple[Toleration, ...], np.ndarray] = {}
        self._shared: dict[tuple, _Shared] = {}

    def trait(self, trait: str) -> np.ndarray:
        got = self._traits.get(trait)
        if got is not None:
            return got
        if self.kept is not None:  # the rows' models have it, or the batch adds it
            base, added = self.kept.rows, self.kept.added.get(trait)
            if base.has(trait):
                got = base.mask(("trait", trait), lambda c: trait in c.traits)
                got = got if added is None else got | added
            else:
                got = added if added is not None else np.zeros(len(base), dtype=bool)
        elif self._trait_rows is None and len(self._traits) < _TRAITS_ALONE:
            # A few traits (a live event's batch): each read off the clusters on its own, not every
            # trait of every cluster indexed (bench karmada-1k-10k, a binding created: the index
            # was 1.07 of the event's 3.6 profiled s).
            n = len(self.clusters)
            got = np.fromiter((trait in c.traits for c in self.clusters), dtype=bool, count=n)
        else:
            if self._trait_rows is None:  # every trait's rows, in one pass over the clusters
                rows: dict[str, list[int]] = {}
                for i, c in enumerate(self.clusters):
                    for t in c.traits:
                        rows.setdefault(t, []).append(i)
                self._trait_rows = rows
            got = np.zeros(len(self.clusters), dtype=bool)
            got[self._trait_rows.get(trait, [])] = True
        self._traits[trait] = got
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
            if self.kept is not None:
                got = self.kept.rows.mask(("claim", claim), lambda c: claim in c.claims)
            else:
                got = np.array([claim in c.claims for c in self.clusters], dtype=bool)
            self._claims[claim] = got
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

    def passing(self, request: PlacementRequest, tier: int, held: Sequence[int]) -> np.ndarray:
        """Whether each cluster passes the request's filters under its tier `tier` (`held`: the
        rows it holds): the verdicts shared by the requests alike in their filters, the held
        rows judged again."""
        shared = self._alike(request, tier)
        passing = np.unpackbits(shared.passing, count=len(self.clusters)).view(bool)
        for row in held:
            passing[row] = self._held(request, tier, row, shared) is None
        return passing

    def failing(
        self, request: PlacementRequest, tier: int, held: Sequence[int], limit: int | None
    ) -> tuple[list[int], list[int]]:
        """The rows failing the request's filters under its tier, in name order, at most `limit`
        (None: all), and the first filter each fails (its index in FILTERS)."""
        shared = self._alike(request, tier)
        if limit is None or (shared.more and limit + len(held) > len(shared.failing)):
            verdicts = self.verdicts(request, tier, held)
            rows = np.flatnonzero(~np.logical_and.reduce([mask for _, mask in verdicts]))[:limit]
            first = np.argmin(np.array([mask[rows] for _, mask in verdicts]), axis=0) if len(rows) else rows
            return rows.tolist(), first.tolist()
        pairs = [(row, k) for row, k in zip(shared.failing, shared.first, strict=True) if row not in held]
        for row in held:
            k = self._held(request, tier, row, shared)
            if k is not None:
                pairs.append((row, k))
        pairs = sorted(pairs)[:limit]
        return [row for row, _ in pairs], [k for _, k in pairs]

    def _alike(self, request: PlacementRequest, tier: int) -> _Shared:
        """The verdicts of the request's filters but at the clusters it holds (what it needs and
        untolerated new-only taints are not asked there), made once per distinct filters."""
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
        got = self._shared.get(key)
        if got is None:
            masks = np.array([mask for _, mask in self.verdicts(request, tier, ())], dtype=bool)
            passing = masks.all(axis=0)
            failing = np.flatnonzero(~passing)
            few = failing[:_KEPT]
            first = np.argmin(masks[:, few], axis=0) if len(few) else few
            got = self._shared[key] = _Shared(
                np.packbits(passing),
                np.packbits(masks, axis=1),
                few.tolist(),
                first.tolist(),
                len(failing) > _KEPT,
            )
        return got

    def _held(self, request: PlacementRequest, tier: int, row: int, shared: _Shared) -> int | None:
        """The first filter a row the request holds fails (its index in FILTERS; None: it passes):
        the shared verdicts there, but for what it needs and new-only taints."""
        byte, bit = divmod(row, 8)
        flags = [bool((shared.verdicts[k, byte] >> (7 - bit)) & 1) for k in range(len(FILTERS))]
        flags[_MISSING] = True
        flags[_TAINT] = self.untolerated(row, request.tolerations, held=True) is None
        return None if all(flags) else flags.index(False)

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


def _eligible(c: Cluster) -> bool:
    return c.eligible and not c.leaving


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
