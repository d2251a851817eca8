"""Why each cluster was or was not chosen for one request: the solver's side of `explain`.

Given a batch, the result solved for it and a request's key, `explain` re-evaluates that one
request against the cluster table (the same filters and scores the solve used, one preference at a
time) and reads the answer back from the result. Per cluster it gives: every filter it fails (the
first is the one reported), each preference's score, the spread score, whether it was chosen, its
rank among the candidates, what kept it out (a filter, the cut below the last chosen cluster and
the score gap, a spread constraint, the batch's joint answer) and the smallest change that would
let it in where one can be named (taints to tolerate, label changes that make one required term
match, score points, a larger max skew, a pool to draw from).

Balance couples the requests of a batch, so it is judged as the mode judged it: in optimal mode on
the batch's final decisions; in greedy mode as the request saw them when its turn came (the
requests before it with their new answer, those after it with what they held).

Nothing here changes what the solver decides, and nothing here knows an upstream word: adapters
word the records (adapters/explain.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from model import (
    Batch,
    Cluster,
    ClusterTerm,
    FilterKind,
    LabelOperator,
    LabelSelector,
    PlacementRequest,
    PropertyRequirement,
    Result,
    SelectionMode,
    Taint,
    first_untolerated,
)
from solver.admits import refusals
from solver.balance import balance_scores
from solver.prepare import HELD, HELD_SCORE, PASS, Prepared, centered_scores, prepare
from solver.spread import SpreadState
from solver.table import ClusterTable, is_static, rule_masks

__all__ = [
    "Verdict",
    "PreferenceScore",
    "LabelChange",
    "TermFix",
    "SpreadBlock",
    "ClusterExplanation",
    "Explanation",
    "explain",
    "selector_changes",
]


class Verdict(StrEnum):
    CHOSEN = "chosen"  # a new pick (or an older decision chosen again)
    KEPT = "kept"  # a current decision, kept as it was (not re-evaluated)
    RELEASED = "released"  # a current decision given up (the request shrank)
    FILTERED = "filtered"  # failed a filter: `filters` says which
    OUT_OF_SCOPE = "out-of-scope"  # outside every pool the request may draw from
    BELOW_CUT = "below-cut"  # passed, ranked below the last chosen cluster
    SPREAD = "spread"  # passed, a spread constraint kept it out (`spread_block`)
    JOINT = "joint"  # ranks above the last chosen, left out by the joint optimum (spread, balance)
    FULL = "full"  # nothing was scheduled: the request already holds enough
    NOT_LISTED = "not-listed"  # a request for named clusters that does not name it
    NO_ROOM = "no-room"  # a tenancy candidate whose slots were taken (`tenants` of `limit`)
    EXCLUSIVE = "exclusive"  # the request takes a new cluster of its own: no existing one serves


@dataclass(frozen=True, slots=True)
class PreferenceScore:
    """One preference's contribution to a cluster's score. `score` is the preference's own score
    before its weight where it has one (external scores, held, centered sorters, balance); None
    where the preference scores in weighted units only (labels, interpolated sorters)."""

    index: int  # in request.preferences
    weight: int
    score: int | None
    points: int


@dataclass(frozen=True, slots=True)
class LabelChange:
    """Set `key` to `value` (`any_value`: any value not in `excluded`), or remove it."""

    key: str
    value: str | None
    remove: bool = False
    any_value: bool = False
    excluded: tuple[str, ...] = ()
    was: str | None = None


@dataclass(frozen=True, slots=True)
class TermFix:
    """What makes required term `term` match: label (and claim) changes, and the requirements no
    label change can meet (properties, traits)."""

    term: int
    labels: tuple[LabelChange, ...] = ()
    claims: tuple[LabelChange, ...] = ()
    properties: tuple[PropertyRequirement, ...] = ()
    traits: tuple[str, ...] = ()

    @property
    def by_labels(self) -> bool:
        """Label and claim changes alone make the term match."""
        return not self.properties and not self.traits


@dataclass(frozen=True, slots=True)
class SpreadBlock:
    """The spread constraint that kept a cluster out: the skew taking it would create (as the
    upstream skew rule computes it) against the constraint's max skew."""

    constraint: int  # in request.spread
    domain: str | None
    skew: int
    max_skew: int
    hard: bool


@dataclass(frozen=True, slots=True)
class ClusterExplanation:
    cluster: str
    verdict: Verdict
    filters: tuple[FilterKind, ...] = ()  # every filter it fails, in plugin order (first: reported)
    detail: str = ""  # why it is ineligible
    taints: tuple[Taint, ...] = ()  # every taint no toleration tolerates
    parts: tuple[PreferenceScore, ...] = ()
    score: int | None = None  # the preference total the solve ranked it by (None: not scored)
    spread: int | None = None  # the topology spread score (None: not scored)
    rank: int | None = None  # 1-based among the candidates, best first
    held: bool = False  # the request held it before this solve
    obsolete: bool = False  # held under an older policy (wins ties where the request prefers that)
    released: bool = False  # held before, given up now
    last_chosen: str | None = None  # the lowest-ranked new pick, for a cluster below the cut
    gap: int | None = None  # score points more it needs to rank above last_chosen
    term_fix: TermFix | None = None  # for a cluster failing the required terms
    spread_block: SpreadBlock | None = None
    traits: tuple[str, ...] = ()  # for a cluster out of scope: the traits it has
    # Tenancy: the cluster's tenants when the request's turn came (greedy) or in the joint answer
    # without the request (optimal), and the request's limit (0: none).
    tenants: int | None = None
    limit: int | None = None

    @property
    def chosen(self) -> bool:
        return self.verdict in (Verdict.CHOSEN, Verdict.KEPT)


@dataclass(frozen=True, slots=True)
class Explanation:
    request: PlacementRequest
    mode: str  # the solve mode: optimal or greedy
    chosen: tuple[str, ...]  # in decision order, kept first
    released: tuple[str, ...]
    satisfied: bool
    scheduled: bool
    missing: tuple[str, ...]  # named clusters that do not exist
    clusters: tuple[ClusterExplanation, ...]  # by name


def explain(batch: Batch, result: Result, key: str) -> Explanation:
    """Explain request `key` of `batch` as `result` answered it. KeyError for an unknown key."""
    position = {r.key: i for i, r in enumerate(batch.requests)}[key]
    request = batch.requests[position]
    got = result.by_request()[key]
    if request.tenancy is not None:
        return _explain_tenancy(batch, result, request)
    alone = Batch(
        batch.clusters, (request,), now=batch.now, seed=batch.seed, explain_limit=0, loads=batch.loads
    )
    table = ClusterTable(alone)
    (p,) = prepare(alone, table)
    rows = {c.cluster: table.index[c.cluster] for c in got.selected if c.cluster in table.index}
    kept_rows = {table.index[c.cluster] for c in got.selected if c.kept and c.cluster in table.index}
    picks = [rows[c.cluster] for c in got.selected if not c.kept and c.cluster in table.index]
    chosen_rows = set(rows.values())
    released = set(got.released)
    held = {d.cluster for d in request.existing}

    parts, total = _scores(batch, result, position, p, table, result.stats.mode)
    filters = _filters(request, table, held)
    ranking = _Ranking(p, table, request, got, picks, kept_rows, total, result.stats.mode)
    named = set(request.cluster_names)

    out = []
    for row, cluster in enumerate(batch.clusters):
        failed = filters[row]
        record = dict(
            cluster=cluster.name,
            filters=failed,
            detail=cluster.ineligible_reason if FilterKind.INELIGIBLE in failed else "",
            taints=_untolerated(cluster, request, batch, cluster.name in held)
            if FilterKind.TAINT in failed
            else (),
            parts=tuple(
                PreferenceScore(i, w, None if s is None else int(s[row]), int(pts[row]))
                for i, w, s, pts in parts
            ),
            score=int(total[row]) if request.mode is SelectionMode.N or parts else None,
            held=cluster.name in held,
            obsolete=bool(p.obsolete[row]),
            released=cluster.name in released,
            term_fix=_term_fix(request.required, cluster) if FilterKind.AFFINITY in failed else None,
            traits=tuple(sorted(cluster.traits)) if FilterKind.SCOPE in failed else (),
        )
        if row in kept_rows:
            verdict = Verdict.KEPT
        elif row in chosen_rows:
            verdict = Verdict.CHOSEN
        elif request.mode is SelectionMode.FIXED:
            verdict = Verdict.FILTERED if cluster.name in named else Verdict.NOT_LISTED
        elif row in p.kept:
            verdict = Verdict.RELEASED
        elif failed:
            verdict = Verdict.OUT_OF_SCOPE if failed[0] is FilterKind.SCOPE else Verdict.FILTERED
        elif request.mode is SelectionMode.N and not got.scheduled:
            verdict = Verdict.FULL
        else:
            verdict = ranking.verdict(row, record)
        record["rank"] = ranking.ranks.get(row)
        if row in ranking.spread_scores:
            record["spread"] = ranking.spread_scores[row]
        out.append(ClusterExplanation(verdict=verdict, **record))
    missing = tuple(n for n in dict.fromkeys(request.cluster_names) if n not in table.index)
    return Explanation(
        request=request,
        mode=result.stats.mode,
        chosen=tuple(c.cluster for c in got.selected),
        released=tuple(got.released),
        satisfied=got.satisfied,
        scheduled=got.scheduled,
        missing=missing,
        clusters=tuple(out),
    )


def _explain_tenancy(batch: Batch, result: Result, request: PlacementRequest) -> Explanation:
    """A tenancy request: per cluster, the filter it fails, or whether a slot was left for the
    request, and for a candidate with room that was not taken, what the packing rule preferred
    (greedy: ranked by tenants when its turn came, or name; optimal: the joint answer)."""
    got = result.by_request()[request.key]
    tenancy = request.tenancy
    mode = result.stats.mode
    chosen = {c.cluster for c in got.selected}
    granted = any(c.kept for c in got.selected)  # holds, kept: nothing was decided
    by_key = result.by_request()
    # Tenants per cluster as the request found them: granted requests and outside load always; the
    # batch's other new placements, greedy: those before it in the queue; optimal: all of them.
    tenants = dict(zip((c.name for c in batch.clusters), batch.cluster_loads(), strict=True))
    turn = (tenancy.order, request.key)
    for other in batch.requests:
        if other.tenancy is None or other.key == request.key:
            continue
        answer = by_key.get(other.key)
        if answer is None or not answer.selected:
            continue
        name = answer.selected[0].cluster
        if name not in tenants:
            continue
        before = (other.tenancy.order, other.key) < turn
        if answer.selected[0].kept or mode != "greedy" or before:
            tenants[name] += other.tenancy.demand
    holds = {d.cluster for d in request.existing}
    filters = [refusals(request, c, batch.now, held=c.name in holds) for c in batch.clusters]
    candidates = [
        c.name
        for c, failed in zip(batch.clusters, filters, strict=True)
        if not failed and not tenancy.exclusive and not granted and _has_room(tenancy.limit, tenants[c.name])
    ]
    rank = _tenancy_ranks(tenancy.packing, candidates, tenants)
    pick = next((c.cluster for c in got.selected if not c.kept), None)
    out = []
    for cluster, failed in zip(batch.clusters, filters, strict=True):
        name = cluster.name
        if name in chosen:
            verdict = Verdict.KEPT if granted else Verdict.CHOSEN
        elif name in got.released:
            verdict = Verdict.RELEASED  # a hold no longer valid, given up (a forced move)
        elif granted:
            verdict = Verdict.FULL  # granted: never moves, nothing was scheduled
        elif failed:
            verdict = Verdict.FILTERED
        elif tenancy.exclusive:
            verdict = Verdict.EXCLUSIVE
        elif not _has_room(tenancy.limit, tenants[name]):
            verdict = Verdict.NO_ROOM
        elif mode == "greedy":
            verdict = Verdict.BELOW_CUT
        else:
            verdict = Verdict.JOINT
        out.append(
            ClusterExplanation(
                cluster=name,
                verdict=verdict,
                filters=failed,
                detail=cluster.ineligible_reason if FilterKind.INELIGIBLE in failed else "",
                taints=_untolerated(cluster, request, batch, name in holds)
                if FilterKind.TAINT in failed
                else (),
                held=name in holds,
                rank=rank.get(name),
                last_chosen=pick if verdict in (Verdict.BELOW_CUT, Verdict.JOINT) else None,
                gap=(tenants[name] - tenants[pick])
                if verdict is Verdict.BELOW_CUT and pick in tenants and tenancy.packing.value == "fewest"
                else None,
                term_fix=_term_fix(request.required, cluster) if FilterKind.AFFINITY in failed else None,
                traits=tuple(sorted(cluster.traits)) if FilterKind.SCOPE in failed else (),
                tenants=tenants[name],
                limit=tenancy.limit,
            )
        )
    return Explanation(
        request=request,
        mode=mode,
        chosen=tuple(c.cluster for c in got.selected),
        released=(),
        satisfied=got.satisfied,
        scheduled=got.scheduled,
        missing=(),
        clusters=tuple(out),
    )


def _has_room(limit: int, tenants: int) -> bool:
    return limit == 0 or tenants < limit


def _tenancy_ranks(packing, candidates: list[str], tenants: Mapping[str, int]) -> dict[str, int]:
    """1-based ranks of the candidates with room as the packing rule orders them (Random: by name,
    the draw being uniform)."""
    order = (
        sorted(candidates, key=lambda n: (tenants[n], n)) if packing.value == "fewest" else sorted(candidates)
    )
    return {name: i + 1 for i, name in enumerate(order)}


# -- scores ---------------------------------------------------------------------------------------


def _scores(
    batch: Batch, result: Result, position: int, p: Prepared, table: ClusterTable, mode: str
) -> tuple[list[tuple[int, int, np.ndarray | None, np.ndarray]], np.ndarray]:
    """Each preference's (index, weight, own score, points) per cluster, and the total the solve
    ranked by (its affinity level with balance added)."""
    request = p.request
    if request.mode is SelectionMode.FIXED or not request.preferences:
        return [], np.zeros(table.size, dtype=np.int64)
    feasible = (p.outcome == PASS) | (p.outcome == HELD)
    parts: list[tuple[int, int, np.ndarray | None, np.ndarray]] = []
    balance_points = np.zeros(table.size, dtype=np.int64)
    for i, pref in enumerate(request.preferences):
        if pref.external is not None:
            own = np.fromiter(
                (c.scores.get(pref.external, 0) for c in batch.clusters), dtype=np.int64, count=table.size
            )
        elif pref.held:
            own = np.zeros(table.size, dtype=np.int64)
            for d in request.existing:
                if d.cluster in table.index:
                    own[table.index[d.cluster]] = HELD_SCORE
        elif pref.balance:
            own = _balance(batch, result, position, table, mode)
        elif pref.sorter is not None and pref.sorter.centered:
            values = table.float_values(pref.sorter.name)
            own = centered_scores(values, feasible, pref.sorter.ascending)
        else:  # labels and interpolated sorters: scored in weighted units
            assert is_static(pref)
            points = table.affinity_scores([(pref,)]).get((pref,), np.zeros(table.size, dtype=np.int64))
            parts.append((i, pref.weight, None, points if pref.weight else points * 0))
            continue
        points = pref.weight * own
        if pref.balance:
            balance_points += points
        parts.append((i, pref.weight, own, points))
    if request.mode is SelectionMode.N:  # exactly what the solve ranked by
        total = p.affinity + balance_points
    else:  # not ranked (every cluster passing is taken): the plain sum, for information
        total = sum((pts for _, _, _, pts in parts), np.zeros(table.size, dtype=np.int64))
    return parts, total


def _balance(batch: Batch, result: Result, position: int, table: ClusterTable, mode: str) -> np.ndarray:
    """The balance score per cluster as the mode judged it for request `position`: the decisions
    of every other request (and the outside load) against the busiest count over the fleet."""
    answered = result.by_request()
    others = table.load.copy()
    for j, other in enumerate(batch.requests):
        if j == position:
            continue
        if mode == "greedy" and j > position:  # not yet decided when this one was: what it held
            names = {d.cluster for d in other.existing}
        else:
            names = {c.cluster for c in answered[other.key].selected}
        for name in names:
            row = table.index.get(name)
            if row is not None:
                others[row] += 1
    return balance_scores(others, int(others.max()) if len(others) else 0)


# -- filters --------------------------------------------------------------------------------------


def _filters(request: PlacementRequest, table: ClusterTable, held: set[str]) -> list[tuple[FilterKind, ...]]:
    """Every admission rule each cluster fails, in plugin order (solver.admits); a request of named
    clusters is told apart by its verdict (not listed), so only eligibility is listed for it."""
    if request.mode is SelectionMode.FIXED:
        return [
            tuple(k for k in refusals(request, table.cluster(r), table.now) if k is not FilterKind.NOT_LISTED)
            for r in range(table.size)
        ]
    masks = rule_masks(request, table)
    kind, tolerated = masks[-1]
    tolerated = tolerated.copy()
    for name in held:
        row = table.index.get(name)
        if row is not None and not tolerated[row]:
            tolerated[row] = table.tolerated_held(row, request.tolerations)
    masks[-1] = (kind, tolerated)
    return [tuple(kind for kind, mask in masks if not mask[r]) for r in range(table.size)]


def _untolerated(cluster: Cluster, request: PlacementRequest, batch: Batch, held: bool) -> tuple[Taint, ...]:
    return tuple(
        t
        for t in cluster.taints
        if first_untolerated((t,), request.tolerations, batch.now, held=held) is not None
    )


def _term_fix(terms: tuple[ClusterTerm, ...], cluster: Cluster) -> TermFix | None:
    """The term needing the fewest changes: label and claim changes alone where possible, then the
    fewest changes, then the first term. None when no term can match."""
    best: tuple[tuple, TermFix] | None = None
    for i, term in enumerate(terms):
        labels = selector_changes(term.labels, cluster.labels)
        claims = selector_changes(term.claims, cluster.claims)
        if labels is None or claims is None:
            continue  # contradictory requirements: no cluster matches it
        fix = TermFix(
            i,
            labels,
            claims,
            tuple(r for r in term.properties if not r.matches(cluster.properties)),
            tuple(t for t in term.traits if t not in cluster.traits),
        )
        key = (not fix.by_labels, len(labels) + len(claims) + len(fix.properties) + len(fix.traits), i)
        if best is None or key < best[0]:
            best = (key, fix)
    return None if best is None else best[1]


def selector_changes(
    selector: LabelSelector | None, current: Mapping[str, str]
) -> tuple[LabelChange, ...] | None:
    """The fewest changes (one per key at most) that make `selector` match `current`; None when
    its requirements contradict each other."""
    if selector is None:
        return ()
    by_key: dict[str, list] = {}
    for r in selector.requirements():
        by_key.setdefault(r.key, []).append(r)
    changes = []
    for key, requirements in by_key.items():
        have = current.get(key)
        state = {} if have is None else {key: have}
        if all(r.matches(state) for r in requirements):
            continue
        allowed: set[str] | None = None
        forbidden: set[str] = set()
        present = absent = False
        for r in requirements:
            if r.operator is LabelOperator.IN:
                allowed = set(r.values) if allowed is None else allowed & set(r.values)
                present = True
            elif r.operator is LabelOperator.NOT_IN:
                forbidden |= set(r.values)
            elif r.operator is LabelOperator.EXISTS:
                present = True
            else:
                absent = True
        if present and absent:
            return None
        if not present:
            changes.append(LabelChange(key, None, remove=True, was=have))
            continue
        if allowed is None:
            changes.append(
                LabelChange(key, None, any_value=True, excluded=tuple(sorted(forbidden)), was=have)
            )
            continue
        values = sorted(allowed - forbidden)
        if not values:
            return None
        changes.append(LabelChange(key, values[0], was=have))
    return tuple(changes)


# -- ranking --------------------------------------------------------------------------------------


class _Ranking:
    """The candidates of a request of N clusters in the order the mode ranked them, with their
    spread scores, and what kept each one left out."""

    def __init__(
        self,
        p: Prepared,
        table: ClusterTable,
        request: PlacementRequest,
        got,
        picks: list[int],
        kept: set[int],
        total: np.ndarray,
        mode: str,
    ) -> None:
        self.p, self.table, self.request, self.total = p, table, request, total
        self.ranks: dict[int, int] = {}
        self.spread_scores: dict[int, int] = {}
        self.violated: dict[int, int] = {}
        self.blocks: dict[int, SpreadBlock] = {}
        self.sticky = p.sticky
        self.last: int | None = None
        if request.mode is not SelectionMode.N or not got.scheduled:
            return
        candidates = [int(r) for r in p.candidates]
        chosen = set(picks)
        rest = np.asarray([r for r in candidates if r not in chosen], dtype=np.int64)
        picked_spread = {
            self.table.index[c.cluster]: c.score.spread
            for c in got.selected
            if not c.kept and c.score is not None and c.cluster in self.table.index
        }
        if request.spread:
            want = request.count - p.present
            if mode == "greedy" and picks and len(picks) == want:
                base = [*kept, *picks[:-1]]  # the last cycle: it chose the last pick among the rest
            else:
                base = [*kept, *picks]  # as a next cycle would see the final answer
            if mode == "greedy" and len(picks) > 1:
                self.sticky = np.zeros(table.size, dtype=bool)  # released after the first cycle
            state = SpreadState(table, request.spread, base)
            topo, violated = state.score(rest)
            for row, t, v in zip(rest.tolist(), topo.tolist(), violated.tolist(), strict=True):
                self.spread_scores[row] = int(t)
                if v >= 0:
                    self.violated[row] = int(v)
            self._blocks(table, request, base, rest)
            self.spread_scores.update({r: picked_spread.get(r, 0) for r in picks})
        order = sorted(
            [r for r in candidates if r not in self.violated],
            key=lambda r: self._key(r),
            reverse=True,
        )
        self.ranks = {r: i + 1 for i, r in enumerate(order)}
        if picks:
            self.last = min(picks, key=self._key)

    def _key(self, row: int) -> tuple[int, int, int, int]:
        return (
            self.spread_scores.get(row, 0),
            int(self.total[row]),
            int(self.sticky[row]),
            int(self.p.rank[row]),
        )

    def _blocks(
        self, table: ClusterTable, request: PlacementRequest, base: list[int], rest: np.ndarray
    ) -> None:
        """Per left-out row: the constraint that bound it (the hard one it violates, else the one
        it strains most), with the skew one more cluster there makes by the upstream skew rule."""
        best: dict[int, tuple[tuple[bool, bool, int], SpreadBlock]] = {}
        for k, constraint in enumerate(request.spread):
            # As a hard constraint, the score of a row is minus its skew change.
            state = SpreadState(table, (replace(constraint, hard=True),), base)
            (dimension,) = state.dimensions
            if not dimension.domains:
                continue
            skew = int(dimension.counts.max() - dimension.counts.min())
            score, _ = state.score(rest)
            for row, s in zip(rest.tolist(), score.tolist(), strict=True):
                code = int(dimension.codes[row])
                if code < 0 or (row in self.violated and self.violated[row] != k):
                    continue
                after = skew - int(s)
                priority = (self.violated.get(row) == k, after > constraint.max_skew, -int(s))
                if not (priority[0] or priority[1] or priority[2] > 0):
                    continue
                if row not in best or priority > best[row][0]:
                    block = SpreadBlock(
                        k, dimension.domains[code], after, constraint.max_skew, constraint.hard
                    )
                    best[row] = (priority, block)
        self.blocks = {row: block for row, (_, block) in best.items()}

    def verdict(self, row: int, record: dict) -> Verdict:
        if row in self.violated:
            record["spread_block"] = self.blocks.get(row)
            return Verdict.SPREAD
        if self.last is None:
            return Verdict.BELOW_CUT
        record["last_chosen"] = self.table.names[self.last]
        mine, last = self._key(row), self._key(self.last)
        if mine > last:
            return Verdict.JOINT
        if mine[0] < last[0]:  # the spread score ranks first: no preference points can make up for it
            record["spread_block"] = self.blocks.get(row)
            return Verdict.SPREAD
        ties_mine = (mine[2], mine[3]) > (last[2], last[3])
        record["gap"] = last[1] - mine[1] + (0 if ties_mine else 1)
        return Verdict.BELOW_CUT
