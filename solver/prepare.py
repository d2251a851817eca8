"""Filter and score every request against the cluster table, before any search.

This is the framework's Filter and Score stages for all requests at once. The rules and their order
are solver.admits': the first a cluster fails is the reason it is reported with (scope, never
reported; required affinity; eligibility; taints), then whether the request already holds the
cluster under its current policy.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import compress, count, islice, repeat
from operator import attrgetter, is_not

import numpy as np

from model import (
    Batch,
    Cluster,
    ExistingDecision,
    FilterKind,
    PlacementRequest,
    SelectionMode,
    TieBreak,
    Toleration,
)
from solver.admits import first_refusal, untolerated
from solver.table import ClusterTable, rule_masks

__all__ = [
    "Prepared",
    "Ranking",
    "affinity_extremes",
    "first_rows",
    "pick_key",
    "prepare",
    "PASS",
    "AFFINITY",
    "INELIGIBLE",
    "TAINT",
    "HELD",
    "OUT_OF_SCOPE",
]

# Per-cluster filter outcome codes, in plugin order (OUT_OF_SCOPE is never reported).
PASS, AFFINITY, INELIGIBLE, TAINT, HELD, OUT_OF_SCOPE = 0, 1, 2, 3, 4, 5

# The code of each admission rule's reason (solver.admits).
_CODE = {
    FilterKind.SCOPE: OUT_OF_SCOPE,
    FilterKind.AFFINITY: AFFINITY,
    FilterKind.INELIGIBLE: INELIGIBLE,
    FilterKind.TAINT: TAINT,
}

HELD_SCORE = 100  # what a `held` preference gives per unit of weight


def pick_key(affinity: np.ndarray, sticky: np.ndarray, rank: np.ndarray, size: int) -> np.ndarray:
    """One integer per row ordering rows as upstream picks them: affinity, then held, then name;
    exact in int64 for any realistic score (and unique per row, as the name rank is)."""
    return (affinity.astype(np.int64, copy=False) * 2 + sticky) * max(size, 1) + rank


@dataclass(eq=False, slots=True)
class Ranking:
    """Every cluster best first in pick order, for the requests that score alike (the same
    affinity and tie-break, nothing sticky): sorted once, when first asked, for all of them."""

    affinity: np.ndarray
    sticky: np.ndarray
    rank: np.ndarray
    _order: np.ndarray | None = None
    # Per shared set of candidates (by identity, kept alive here): their lowest and highest affinity.
    _extremes: dict[int, tuple[np.ndarray, int, int, int, int]] = field(default_factory=dict)
    # Per shared set of candidates (likewise): those rows in pick order.
    _ordered: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def serves(self, p: Prepared) -> bool:
        """Whether it orders this request (whose arrays a solve may have replaced since)."""
        return p.affinity is self.affinity and p.sticky is self.sticky and p.rank is self.rank

    @property
    def order(self) -> np.ndarray:
        if self._order is None:
            key = pick_key(self.affinity, self.sticky, self.rank, len(self.rank))
            self._order = _read_only(np.argsort(-key))  # keys are unique: any sort gives this order
        return self._order

    def extreme_counts(self, rows: np.ndarray) -> tuple[int, int, int, int]:
        """The lowest and highest affinity over rows that many requests share (a filter
        verdict's passing rows; (0, 0) for none), and how many of the rows have each."""
        known = self._extremes.get(id(rows))
        if known is None:
            low, high = affinity_extremes(self.affinity, rows)
            scores = self.affinity[rows]
            known = (rows, low, high, int((scores == low).sum()), int((scores == high).sum()))
            self._extremes[id(rows)] = known
        return known[1:]

    def ordered(self, rows: np.ndarray) -> np.ndarray:
        """Rows that many requests share (a filter verdict's passing rows) in pick order, found
        once for all of them; read-only."""
        known = self._ordered.get(id(rows))
        if known is None:
            order = self.order
            member = np.zeros(len(order), dtype=bool)
            member[rows] = True
            known = self._ordered[id(rows)] = (rows, _read_only(order[member[order]]))
        return known[1]


def affinity_extremes(affinity: np.ndarray, rows: np.ndarray) -> tuple[int, int]:
    """The lowest and highest affinity over the rows; (0, 0) for none."""
    if not len(rows):
        return 0, 0
    scores = affinity[rows]
    return int(scores.min()), int(scores.max())


@dataclass(slots=True)
class Prepared:
    """One request, filtered and scored against the whole fleet."""

    request: PlacementRequest
    outcome: np.ndarray  # int8 per cluster: PASS or the first failing filter
    affinity: np.ndarray  # int64 per cluster: preferred-affinity score (0 where not scored)
    obsolete: np.ndarray  # bool per cluster: holds a decision of an older policy
    rank: np.ndarray  # int64 per cluster: the name tie-break, higher wins
    sticky: np.ndarray  # bool per cluster: an older decision that wins ties (less churn)
    kept: dict[int, ExistingDecision] = field(default_factory=dict)  # current decisions in force, by row
    released: list[str] = field(default_factory=list)  # decisions that lapse whatever is chosen
    # The first rows a filter rejects, as many as a report can show: all of them would cost
    # placements x clusters memory on a large fleet.
    filtered: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    # The rows of `outcome` that PASS, when they are the same for every request with the same
    # filters (shared, read-only); None when the request's holdings changed them.
    passing: np.ndarray | None = None
    # The index of the batch's first request with an equal signature (the same answer): signatures
    # are deep tuples, costly to hash again and again.
    twin: int | None = None
    ranking: Ranking | None = None  # the shared pick order, where it serves (Ranking.serves)
    # The candidates as shared rows (a verdict's `passing`) less the few the request holds
    # (`held_out`, sorted), where they are that; None where holdings add candidates.
    base: np.ndarray | None = None
    held_out: list[int] = field(default_factory=list)
    # The rows of the clusters its existing decisions name (sorted, each once), and the names of
    # those not in the table (sorted): found once here for the Balance coupling (solver.balance
    # `holdings`), which reads them several times per solve; None where prepare found none.
    held: np.ndarray | None = None
    elsewhere: tuple[str, ...] = ()

    @property
    def candidates(self) -> np.ndarray:
        """Rows that pass every filter. Shared by the requests with equal filters, else computed
        when asked: kept for every request, these arrays would cost placements x clusters memory
        (measured: +290 MiB at 10,000 x 5,000)."""
        if self.passing is not None:
            return self.passing
        return np.flatnonzero(self.outcome == PASS)

    @property
    def present(self) -> int:
        return len(self.kept)

    def scored_as(self, affinity: np.ndarray) -> Prepared:
        """This request with other scores (every other field shared): dataclasses.replace, spelt
        out (the Balance search asks it thousands of times, and replace costs eight times as much)."""
        return Prepared(
            self.request,
            self.outcome,
            affinity,
            self.obsolete,
            self.rank,
            self.sticky,
            self.kept,
            self.released,
            self.filtered,
            self.passing,
            self.twin,
            self.ranking,
            self.base,
            self.held_out,
            self.held,
            self.elsewhere,
        )


def first_rows(mask: np.ndarray, limit: int) -> np.ndarray:
    """The first `limit` true rows, reading only as far as needed: usually a few dozen rows."""
    start, chunk = 0, max(64, 4 * limit)
    found: list[np.ndarray] = []
    count = 0
    while start < len(mask) and count < limit:
        rows = np.flatnonzero(mask[start : start + chunk]) + start
        found.append(rows)
        count += len(rows)
        start += chunk
        chunk *= 4
    return np.concatenate(found)[:limit] if found else np.empty(0, np.int64)


class _Verdict:
    """One set of filters judged on every cluster, before any request's holdings: shared by the
    requests with those filters (a large batch has thousands of requests but few filter sets),
    read-only. Its passing and reported rows are made when first read: a verdict kept with a
    long-lived scheduler's rows is moved through every patch since it was kept (_kept_verdict's
    replay), and only the last one's are read."""

    __slots__ = ("outcome", "_limit", "_passing", "_filtered")

    def __init__(self, outcome: np.ndarray, limit: int) -> None:
        self.outcome = outcome
        self._limit = limit
        self._passing: np.ndarray | None = None
        self._filtered: np.ndarray | None = None

    @property
    def passing(self) -> np.ndarray:
        if self._passing is None:
            self._passing = _read_only(np.flatnonzero(self.outcome == PASS))
        return self._passing

    @property
    def filtered(self) -> np.ndarray:
        if self._filtered is None:
            self._filtered = _read_only(_reported(self.outcome, self._limit))
        return self._filtered


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def prepare(batch: Batch, table: ClusterTable) -> list[Prepared]:
    requests = batch.requests
    required, scored, scopes = table.batch_masks(
        (r.required for r in requests if r.mode is not SelectionMode.FIXED),
        (r.preferences for r in requests if r.mode is SelectionMode.N),
        (r.scope for r in requests if r.scope is not None),
    )
    zeros = _read_only(np.zeros(table.size, dtype=np.int64))
    nowhere = _read_only(np.zeros(table.size, dtype=bool))
    reverse_rank = _read_only(table.rank[::-1].copy())
    verdicts: dict[tuple, _Verdict] = {}
    suffixes: dict[tuple[int, ...], tuple[list[np.ndarray], np.ndarray]] = {}  # _outcome's
    rankings: dict[tuple[int, int], Ranking] = {}  # by the identity of the shared affinity and rank
    extremes: dict[int, tuple[np.ndarray, int]] = {}  # _relative_scores'
    out: list[Prepared] = []
    first: dict[tuple, list[int]] = {}
    for i, request in enumerate(requests):
        twin = _twin(requests, i, first)
        if twin != i:  # identical policy and state: share the (read-only) arrays
            out.append(replace(out[twin], request=request))
            continue
        key = _filters(request)
        verdict = verdicts.get(key)
        if verdict is None:
            verdict = verdicts[key] = _kept_verdict(
                request, key, table, required, scopes, batch.explain_limit, suffixes
            )
        affinity = (
            scored.get(request.preferences, zeros) if request.mode is not SelectionMode.FIXED else zeros
        )
        rank = table.rank if request.tie_break is TieBreak.LARGER_NAME else reverse_rank
        prepared = Prepared(
            request,
            verdict.outcome,
            affinity,
            nowhere,
            rank,
            nowhere,
            filtered=verdict.filtered,
            passing=verdict.passing,
            twin=i,
            base=verdict.passing,
        )
        prepared.ranking = rankings.get((id(affinity), id(rank)))
        if prepared.ranking is None:
            prepared.ranking = rankings[(id(affinity), id(rank))] = Ranking(affinity, nowhere, rank)
        if request.existing:
            _classify_existing(prepared, table, batch.explain_limit)
        if request.prefer_held:
            prepared.sticky = prepared.obsolete
        if request.mode is SelectionMode.N:  # the other modes take every valid cluster: no scores
            prepared.affinity = _relative_scores(prepared, table, extremes)
        out.append(prepared)
    return out


_CLUSTER = attrgetter("cluster")
_CURRENT = attrgetter("current")
_EXISTING = 7  # where PlacementRequest.signature() holds the existing decisions


def _twin(requests: tuple[PlacementRequest, ...], i: int, first: dict[tuple, list[int]]) -> int:
    """The index of the first request with a signature equal to request i's. Existing decisions
    are hashed by their number and their first and last clusters' names alone (hashing thousands
    of decisions field by field costs more than the rest of prepare's loop, and every name of a
    live scheduler's few requests holding thousands each, which are never twins, was most of
    this): requests whose decisions agree in those are then compared in full."""
    request = requests[i]
    signature = request.signature()
    existing = request.existing
    if not existing or signature[_EXISTING] is not existing:
        key = signature
    else:
        ends = (len(existing), existing[0].cluster, existing[-1].cluster)
        key = (*signature[:_EXISTING], ends, *signature[_EXISTING + 1 :])
    alike = first.setdefault(key, [])
    for j in alike:
        if requests[j].existing == existing:
            return j
    alike.append(i)
    return i


def _filters(request: PlacementRequest) -> tuple:
    """What the filters' verdict depends on besides the clusters (and the request's holdings)."""
    if request.mode is SelectionMode.FIXED:
        return (SelectionMode.FIXED,)
    return (request.tolerations, request.required, request.scope)


def _verdict(
    request: PlacementRequest,
    table: ClusterTable,
    required: dict[tuple, np.ndarray],
    scopes: dict[tuple, np.ndarray],
    limit: int,
    suffixes: dict[tuple[int, ...], tuple[list[np.ndarray], np.ndarray]],
) -> _Verdict:
    if request.mode is SelectionMode.FIXED:  # named clusters are judged by solve_fixed
        outcome = np.zeros(table.size, dtype=np.int8)
    else:
        outcome = _outcome(rule_masks(request, table, required, scopes), suffixes)
    return _verdict_of(outcome, limit)


def _verdict_of(outcome: np.ndarray, limit: int) -> _Verdict:
    """A verdict of its outcome codes: those passing, and the `limit` reported (made when read)."""
    return _Verdict(_read_only(outcome), limit)


def _kept_verdict(
    request: PlacementRequest,
    key: tuple,
    table: ClusterTable,
    required: dict[tuple, np.ndarray],
    scopes: dict[tuple, np.ndarray],
    limit: int,
    suffixes: dict[tuple[int, ...], tuple[list[np.ndarray], np.ndarray]],
) -> _Verdict:
    """_verdict, kept with a long-lived scheduler's table rows for the batches after (a cluster
    event's runs pass and final batch, and the events after, judge the same few dozen filter sets
    of the same clusters): a verdict reads each row's cluster alone (scope, required terms,
    eligibility, taints; never the load). When the rows are patched it moves with them: the kept
    rows' codes gathered, the rows made again judged by the scalar rules (solver.admits); the
    very verdict where no row moved and no code changed.

    A toleration that holds for a while (seconds) makes the verdict a function of the batch's
    time too. What is kept is then the verdict of the same tolerations held forever (`_forever`:
    at any time, so kept as any other), and the batch's verdict is made from it: the taint rule
    comes last, and a toleration holding now holds forever, so a row fails by another rule, or by
    its taints, at the batch's time exactly where it does so with the tolerations held forever,
    and a row those pass fails by its taints where the taint verdict at the batch's time
    (ClusterTable.tolerated) refuses it."""
    if request.mode is SelectionMode.FIXED:
        return _verdict(request, table, required, scopes, limit, suffixes)
    timed = any(t.seconds is not None for t in request.tolerations)
    tolerations = _forever(request.tolerations) if timed else request.tolerations
    kept_key = ("verdict", (tolerations, *key[1:]) if timed else key, limit)

    def replay(verdict: _Verdict, kept: np.ndarray | None, remade: list) -> _Verdict:
        outcome = verdict.outcome if kept is None else verdict.outcome[kept]
        if remade:
            rows = [i for i, _ in remade]
            codes = [_code(request, cluster, tolerations if timed else None) for _, cluster in remade]
            if kept is None and outcome[rows].tolist() == codes:
                return verdict
            outcome = outcome.copy() if kept is None else outcome
            outcome[rows] = codes
        return _verdict_of(outcome, limit)

    verdict = table.kept(kept_key, replay)
    if verdict is None:
        rules = rule_masks(request, table, required, scopes, tolerations)
        verdict = _verdict_of(_outcome(rules, suffixes), limit)
        table.keep(kept_key, verdict)
    if not timed:
        return verdict
    # At the batch's time: kept for that time alone, while the rows do not move (the very verdict).
    at_key = ("verdict at", kept_key)
    found = table.kept(at_key, _moved, table.now)
    if found is not None and found[0] is verdict:
        return found[1]
    outcome = verdict.outcome.copy()
    np.putmask(outcome, (verdict.outcome == PASS) & ~table.tolerated(request.tolerations), TAINT)
    at = _verdict_of(outcome, limit)
    table.keep(at_key, (verdict, at), table.now)
    return at


def _moved(*_: object) -> None:
    """A value that no patch of the rows keeps (made again after any)."""
    return None


def _forever(tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    """The tolerations, each held forever (without seconds)."""
    return tuple(t if t.seconds is None else replace(t, seconds=None) for t in tolerations)


def _code(request: PlacementRequest, cluster, forever: tuple[Toleration, ...] | None = None) -> int:
    """One cluster's filter code (_outcome's): the first rule it fails by the scalar rules
    (solver.admits' `first_refusal`, judged only as far as it), with the request's tolerations
    held forever where `forever` gives them so (the taint rule is the last: a row the request's
    own fail by taints alone passes where those pass)."""
    first = first_refusal(request, cluster, None)
    if first is None:
        return PASS
    code = _CODE[first]
    if code == TAINT and forever is not None and untolerated(cluster, forever, None) is None:
        return PASS
    return code


def _outcome(
    rules: list[tuple[FilterKind, np.ndarray]],
    suffixes: dict[tuple[int, ...], tuple[list[np.ndarray], np.ndarray]],
) -> np.ndarray:
    """Per cluster, the code of the first rule it fails (PASS where none). Later rules only apply
    where earlier ones passed, so they are assigned in reverse plugin order; the last rules'
    masks (eligibility, one toleration set's taints) are shared by most verdicts, so the outcome
    of those is made once per set of masks (`suffixes`, by their identities: each entry keeps its
    masks alive) and copied."""
    shared = rules[-_SHARED_RULES:]
    key = tuple(id(passing) for _, passing in shared)
    known = suffixes.get(key)
    if known is None:
        base = np.zeros(len(shared[-1][1]), dtype=np.int8)
        for kind, passing in reversed(shared):
            np.putmask(base, ~passing, _CODE[kind])
        known = suffixes[key] = ([passing for _, passing in shared], base)
    outcome = known[1].copy()
    for kind, passing in reversed(rules[:-_SHARED_RULES]):
        np.putmask(outcome, ~passing, _CODE[kind])
    return outcome


_SHARED_RULES = 2  # solver.table.rule_masks ends with eligibility and taints, every request's


def _reported(outcome: np.ndarray, limit: int) -> np.ndarray:
    """The first `limit` rows a reported filter rejects (held and out-of-scope rows are not)."""
    return first_rows((outcome.view(np.uint8) - np.uint8(AFFINITY)) <= TAINT - AFFINITY, limit)


def _relative_scores(
    p: Prepared, table: ClusterTable, extremes: dict[int, tuple[np.ndarray, int]]
) -> np.ndarray:
    """The static scores plus the parts relative to this request: holding a cluster, and
    properties centered over the request's own candidates. Balance is added by the solve, since
    it depends on the other requests' answers. `extremes`: the largest magnitude of each shared
    static score array (by identity; each entry keeps its array alive), for _compact."""
    relative = [pref for pref in p.request.preferences if pref.weight and (pref.held or _centered(pref))]
    if not relative:
        return p.affinity
    static = p.affinity
    known = extremes.get(id(static))
    if known is None:
        known = extremes[id(static)] = (static, _magnitude(static))
    # What the relative parts can add to a score at most: each held decision its weight x 100 (on
    # its own row), a centered property its weight x 100.
    most = known[1] + sum(
        abs(pref.weight) * HELD_SCORE * (len(p.request.existing) if pref.held else 1) for pref in relative
    )
    # Made in int32 at once where `most` is below _COMPACT (what _compact would give): every sum
    # on the way is a sum of some of the parts `most` bounds, so it fits as well.
    narrow = len(static) and most < _COMPACT
    affinity = static.astype(np.int32) if narrow else static.copy()
    feasible = None
    existing = p.request.existing
    # The rows its decisions name, each once where no two name the same cluster (_classify_existing's).
    once = p.held is not None and len(p.held) + len(p.elsewhere) == len(existing)
    for pref in relative:
        if pref.held and once:
            affinity[p.held] += pref.weight * HELD_SCORE
        elif pref.held:
            for decision in existing:
                row = table.index.get(decision.cluster)
                if row is not None:
                    affinity[row] += pref.weight * HELD_SCORE
        else:
            if feasible is None:
                feasible = _feasible_rows(p)
            name = pref.sorter.name  # read once per table: thousands of requests center the same few
            values = table.derived(("prepare", "float values", name), partial(table.float_values, name))
            known = table.derived(("prepare", "float present", name), partial(_present, values))
            _add_centered(affinity, pref.weight, values, feasible, pref.sorter.ascending, known)
    return affinity if narrow else _compact(affinity, most)


def _feasible_rows(p: Prepared) -> np.ndarray:
    """The rows where the request's outcome is PASS or HELD (what `centered_scores` centers
    over), sorted: its candidates and the rows it holds that pass (HELD is set on those alone,
    _classify_existing's), found without a pass over the fleet. Where the rows it holds that pass
    are the shared rows' it holds alone (`held_out`: none passes by a held cluster's taint alone),
    these are the shared rows (`base`, its candidates with `held_out`) themselves: read-only,
    the same array for the requests of one verdict and the batches after (_add_centered's)."""
    if p.held is None or not len(p.held):
        return p.candidates
    held = p.held[p.outcome[p.held] == HELD]
    if p.base is not None and len(held) == len(p.held_out):
        return p.base
    candidates = p.candidates
    return np.union1d(candidates, held) if len(held) else candidates


def _add_centered(
    affinity: np.ndarray,
    weight: int,
    values: np.ndarray,
    feasible: np.ndarray,
    ascending: bool,
    present: np.ndarray,
) -> None:
    """`affinity += weight * centered_scores(values, feasible mask, ascending, present)`, on the
    feasible rows alone (`feasible`: their rows; centered_scores gives 0 on every other): the same
    values in the same float64 steps, element by element, and the same extremes (a request's
    candidates are about a tenth of the fleet). The centered scores of read-only values over
    read-only rows (a shared verdict's, _feasible_rows') are kept by their identities
    (`_CENTERED`) for every request and batch after that asks them again."""
    shared = not feasible.flags.writeable and not values.flags.writeable
    key = (id(feasible), id(values), ascending)
    known = _CENTERED.get(key) if shared else None
    if known is None:
        known = (feasible, values, *_centered_part(values, feasible, ascending, present))
        if shared:
            while len(_CENTERED) >= _CENTERED_UP_TO:
                del _CENTERED[next(iter(_CENTERED))]  # the first kept
            _CENTERED[key] = known
    member, scores = known[2:]
    if not len(member):
        return
    affinity[member] += weight * 100 if scores is None else weight * scores


def _centered_part(
    values: np.ndarray, feasible: np.ndarray, ascending: bool, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The feasible rows with the property, and their centered scores (int64; None where all are
    100, the values all equal)."""
    member = feasible[present[feasible]]
    if not len(member):
        return member, None
    own = values[member]
    low, high = own.min(), own.max()
    if high == low:
        return member, None
    ratio = (own - low) / (high - low)
    if ascending:
        ratio = 1.0 - ratio
    return member, _read_only(np.trunc(((ratio - 0.5) * 2.0) * 100.0).astype(np.int64))


# _add_centered's centered scores by the identities of the rows and values they are of (each
# entry keeps both alive): a verdict's rows and a property's values last while the rows do, and a
# live scheduler's batches center the same few (the first of them kept dropped past the bound).
_CENTERED: dict[tuple[int, int, bool], tuple] = {}
_CENTERED_UP_TO = 128


def _present(values: np.ndarray) -> np.ndarray:
    """Where a property's values are present (not NaN): once per table, for every request centering it."""
    return _read_only(~np.isnan(values))


# Below this, scores are kept as int32: a request's relative scores are its own copy (thousands of
# them in a large batch, half the memory so), with room for what Balance adds (at most 1,000).
_COMPACT = 2**30


def _magnitude(scores: np.ndarray) -> int:
    """The largest absolute score (0 for none)."""
    return max(-int(scores.min()), int(scores.max())) if len(scores) else 0


def _compact(scores: np.ndarray, most: int) -> np.ndarray:
    """The scores as int32 where every magnitude is below _COMPACT; `most`, at least the largest
    magnitude, spares the scan where it is already below."""
    if len(scores) and (most < _COMPACT or _magnitude(scores) < _COMPACT):
        return scores.astype(np.int32)
    return scores


def _centered(pref) -> bool:
    return pref.sorter is not None and pref.sorter.centered


def centered_scores(
    values: np.ndarray, feasible: np.ndarray, ascending: bool = False, present: np.ndarray | None = None
) -> np.ndarray:
    """trunc(((v - min) / (max - min) - 0.5) * 2 * 100) over the feasible clusters that have the
    property, in float64 in exactly that order (so 0.6 gives 19, as upstream); 100 each when all
    are equal; 0 for the others. Ascending flips the ratio (smaller values score higher).
    `present`: where the values are not NaN, if known."""
    out = np.zeros(len(values), dtype=np.int64)
    member = feasible & (~np.isnan(values) if present is None else present)
    if not member.any():
        return out
    present = values[member]
    low, high = present.min(), present.max()
    if high == low:
        out[member] = 100
        return out
    ratio = (present - low) / (high - low)
    if ascending:
        ratio = 1.0 - ratio
    out[member] = np.trunc(((ratio - 0.5) * 2.0) * 100.0).astype(np.int64)
    return out


def _classify_existing(prepared: Prepared, table: ClusterTable, limit: int) -> None:
    """Sort existing decisions into kept, obsolete (re-evaluated) and lapsed (cluster gone or
    leaving); the request's own copy of the filters' verdict then differs where it holds: a held
    cluster passes taints that keep out only newcomers (where every other filter passes). The
    rows they name, and the names not in the table, are kept for the Balance coupling.

    Where no two of many decisions name the same cluster (each row then read and set once,
    whatever the order), the rows are classified as arrays (`_classify_rows`); else one by one, in
    name order (below _ROWS_FROM decisions the arrays' fixed costs are more than the loop's)."""
    existing = prepared.request.existing
    if len(existing) >= _ROWS_FROM:
        # A request's decisions as the adapters give them: in name order, each cluster once, every
        # one in the table (all 101 of 3,100 requests holding 48 or more over the live bench
        # stream, ~3,150 each). Their rows then rise (a row is its name's rank in the batch's
        # sorted clusters), and they are classified as they come, neither sorted nor set apart.
        # Their rows carried from an earlier batch where it can (`_kept_rows`), else read off the
        # names; either is each decision's row.
        rows = _kept_rows(table, prepared.request)
        names = None
        if rows is None:
            names = list(map(_CLUSTER, existing))
            rows = _rows_of(table, names)
        if rows[0] >= 0 and bool((rows[1:] > rows[:-1]).all()):
            if table.patched:  # a long-lived scheduler's batch: batches of these rows follow
                _keep_rows(table, prepared.request, rows)
            _classify_rows(prepared, table, limit, existing, names, rows)
            return
    decisions = sorted(existing, key=_CLUSTER)
    if len(decisions) >= _ROWS_FROM:
        names = list(map(_CLUSTER, decisions))
        if len(set(names)) == len(names):
            _classify_rows(prepared, table, limit, decisions, names, _rows_of(table, names))
            return
    _classify_each(prepared, table, limit, decisions)


def _rows_of(table: ClusterTable, names: list[str]) -> np.ndarray:
    """Each name's row in the table, -1 where it has none."""
    return np.fromiter(map(table.index.get, names, repeat(-1)), dtype=np.int64, count=len(names))


def _kept_rows(table: ClusterTable, request: PlacementRequest) -> np.ndarray | None:
    """Each of the request's decisions' row, as `_rows_of` reads it off their names, where an
    earlier batch of these rows' lineage kept the rows of its decisions then (`_keep_rows`) and
    its decisions now are those with a few put in or taken off (`_rows_across`); None where none
    is kept or more moved. A long-lived scheduler's PickAll holding thousands is solved where a
    cluster's verdict moved for it (a join's batch holds several) and holds that cluster more
    or less after: its thousands of names were read and looked up again at each batch (~0.5 ms
    a PickAll of 4,000). Kept per row (each row's decision then, -1 where none), moved with the
    rows as the table's kept values are (ClusterTable.kept)."""
    kept = table.kept(("held rows", request.key), _held_moved, held=True)
    if kept is None:
        return None
    old, at = kept
    rows = np.flatnonzero(at >= 0)
    before = np.full(len(old), -1, dtype=np.int64)  # -1: its cluster has no row now
    before[at[rows]] = rows
    existing = request.existing
    return before if existing is old else _rows_across(old, existing, before, table.index)


def _rows_across(
    old: tuple[ExistingDecision, ...],
    new: tuple[ExistingDecision, ...],
    before: np.ndarray,
    index: dict[str, int],
) -> np.ndarray | None:
    """The rows of `new`'s decisions, where `before` holds those of `old`'s: the runs of the very
    objects both hold, in the same order, take their rows from `before` (the same cluster), a
    decision of `new` alone its cluster's row from `index` (-1 where none), one of `old` alone
    none. Each of `new`'s is read once, in order, so the answer is `_rows_of`'s over its names
    whatever the order; name order (both sorted, as the adapters give them) only keeps the runs
    long. None past _ACROSS_UP_TO decisions put in, taken off or replaced."""
    parts: list[np.ndarray | list[int]] = []
    i = j = 0
    size, length = len(old), len(new)
    moves = 0
    while True:
        run = next(compress(count(), map(is_not, islice(old, i, None), islice(new, j, None))), None)
        if run is None:
            run = min(size - i, length - j)
        if run:
            parts.append(before[i : i + run])
            i, j = i + run, j + run
        if j == length:
            break
        moves += 1
        if moves > _ACROSS_UP_TO:
            return None
        if i < size and new[j].cluster == old[i].cluster:  # the same cluster, another decision
            parts.append(before[i : i + 1])
            i, j = i + 1, j + 1
        elif i < size and old[i].cluster < new[j].cluster:  # taken off
            i += 1
        else:  # put in
            parts.append([index.get(new[j].cluster, -1)])
            j += 1
    return np.concatenate(parts).astype(np.int64, copy=False) if parts else np.empty(0, dtype=np.int64)


# Decisions put in, taken off or replaced across which `_rows_across` carries a request's rows
# (a PickAll's answer moves by the clusters whose verdict moved: one a cluster event).
_ACROSS_UP_TO = 16


def _keep_rows(table: ClusterTable, request: PlacementRequest, rows: np.ndarray) -> None:
    """Keep with the table's rows where each of the request's decisions (each found, in rising
    rows) lies, for the batches after (`_kept_rows`)."""
    at = np.full(table.size, -1, dtype=np.int32)
    at[rows] = np.arange(len(rows), dtype=np.int32)
    at.flags.writeable = False
    table.keep(("held rows", request.key), (request.existing, at), held=True)


def _held_moved(
    value: tuple[tuple[ExistingDecision, ...], np.ndarray],
    kept: np.ndarray | None,
    remade: list[tuple[int, Cluster]],
) -> tuple[tuple[ExistingDecision, ...], np.ndarray]:
    """`_keep_rows`' value moved with the rows (ClusterTable.kept's replay: `kept`, each row's row
    before, None where every row stays; `remade`, the rows made again, which may name another
    cluster): a kept row holds the decision it held, a row made again the decision naming its
    cluster (found by bisection: the decisions are in name order), or none."""
    existing, at = value
    at = at[kept] if kept is not None else at.copy()
    for row, cluster in remade:
        i = bisect_left(existing, cluster.name, key=_CLUSTER)
        at[row] = i if i < len(existing) and existing[i].cluster == cluster.name else -1
    at.flags.writeable = False
    return existing, at


# The decisions from which `_classify_rows` takes a request's holdings (measured on 10,000
# clusters: the arrays cost ~20 us, the loop ~0.4 us a decision; equal near 30 to 60).
_ROWS_FROM = 48


def _classify_rows(
    prepared: Prepared,
    table: ClusterTable,
    limit: int,
    decisions: Sequence[ExistingDecision],
    names: list[str] | None,
    rows: np.ndarray,
) -> None:
    """_classify_each's answer for decisions naming distinct clusters (sorted by name), as array
    steps: a row's taint is judged before its holding (as the loop does), and no row is reached
    twice, so the steps' order over rows changes nothing; the kept decisions and the released
    names go in name order, as the loop puts them."""
    request = prepared.request
    verdict = prepared.outcome
    outcome = verdict.copy()
    count = len(decisions)
    found = rows >= 0
    present = rows[found]
    untainted = False
    for row in present[outcome[present] == TAINT].tolist():
        if table.tolerated_held(row, request.tolerations):
            outcome[row] = PASS
            untainted = True
    changed = untainted
    leaving = np.zeros(count, dtype=bool)
    leaving[found] = table.leaving[present]
    current = np.fromiter(map(_CURRENT, decisions), dtype=bool, count=count)
    staying = found & ~leaving
    keep = staying & current
    kept = rows[keep]
    prepared.kept.update(zip(kept.tolist(), compress(decisions, keep.tolist()), strict=True))
    passing = kept[outcome[kept] == PASS]  # a held cluster failing a filter is still reported as filtered
    held_out: list[int] = []
    if len(passing):
        outcome[passing] = HELD
        changed = True
        held_out = sorted(passing[verdict[passing] == PASS].tolist())
    gone = ~staying
    if gone.any():
        prepared.released.extend(compress(names or map(_CLUSTER, decisions), gone.tolist()))
    prepared.held = _read_only(np.sort(present))
    # (none where every decision has a row: a PickAll's thousands not read for none)
    prepared.elsewhere = (
        () if len(present) == count else tuple(compress(names or map(_CLUSTER, decisions), (~found).tolist()))
    )
    obsolete = rows[staying & ~current]
    if len(obsolete):
        prepared.obsolete = np.zeros(table.size, dtype=bool)
        prepared.obsolete[obsolete] = True
    if changed:
        prepared.outcome, prepared.passing = outcome, None
        prepared.held_out = held_out
        if untainted and int((outcome == PASS).sum()) != len(prepared.base) - len(held_out):
            prepared.base = None  # a held cluster past a taint, not current: a candidate the verdict has not
    if untainted:
        prepared.filtered = _reported(outcome, limit)


def _classify_each(
    prepared: Prepared, table: ClusterTable, limit: int, decisions: list[ExistingDecision]
) -> None:
    """_classify_existing's steps decision by decision, in name order (where two decisions name
    the same cluster, the second reads what the first set)."""
    request = prepared.request
    verdict = prepared.outcome
    outcome = verdict.copy()
    untainted = changed = False
    held_out = []
    held, elsewhere = [], []
    obsolete = None
    for decision in decisions:
        row = table.index.get(decision.cluster)
        if row is None:
            prepared.released.append(decision.cluster)
            elsewhere.append(decision.cluster)
            continue
        held.append(row)
        if outcome[row] == TAINT and table.tolerated_held(row, request.tolerations):
            outcome[row] = PASS
            untainted = changed = True
        if table.leaving[row]:
            prepared.released.append(decision.cluster)
        elif decision.current:
            prepared.kept[row] = decision
            if outcome[row] == PASS:  # a held cluster failing a filter is still reported as filtered
                outcome[row] = HELD
                changed = True
                if verdict[row] == PASS:
                    held_out.append(row)
        else:
            if obsolete is None:
                obsolete = np.zeros(table.size, dtype=bool)
            obsolete[row] = True
    prepared.held = _read_only(np.asarray(sorted(set(held)), dtype=np.int64))
    prepared.elsewhere = tuple(elsewhere)
    if obsolete is not None:
        prepared.obsolete = obsolete
    if changed:
        prepared.outcome, prepared.passing = outcome, None
        prepared.held_out = sorted(held_out)
        if untainted and int((outcome == PASS).sum()) != len(prepared.base) - len(held_out):
            prepared.base = None  # a held cluster past a taint, not current: a candidate the verdict has not
    if untainted:
        prepared.filtered = _reported(outcome, limit)
