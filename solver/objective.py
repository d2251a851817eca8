"""The objective both modes are measured by, per request, lexicographic in this order:

1. clusters: how many clusters the request holds (never fewer than greedy finds);
2. spread: minus the spread penalty, every constraint's final skew plus 1000 per unit a soft
   constraint exceeds its max skew (the price upstream's score puts on it);
3. affinity: the summed preferred-affinity score of the new picks;
4. obsolete: how many picks keep a cluster that holds a decision of an older policy (less churn);
5. name: the summed name rank of the picks, so that among equals larger names win, upstream's tie-break.

Each level is shifted to [0, span] and the levels are combined exactly, with Python integers, so a
higher level always outweighs everything below it. The spans depend only on the request and the
fleet, never on the answer, so the two modes are compared on one scale.

The statistics report each level apart (LEVEL_NAMES), minimised like every other coupling's: what
the request falls short of the level's span by, and the least shortfall the combined bound proves.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from model import LevelStats, SelectionMode
from solver.prepare import Prepared, Ranking, affinity_extremes
from solver.spread import SOFT_VIOLATION, SpreadState
from solver.table import ClusterTable

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "BALANCE_RANGE",
    "LevelSums",
    "Scale",
    "scale_of",
    "evaluate",
    "combine",
    "affinity_weight",
]

BALANCE_RANGE = 100  # balance scores lie in [-100, 100]

LEVELS = ("clusters", "spread", "affinity", "obsolete", "name")
# The levels as the statistics name them, each what falls short of its span: clusters fewer than
# the request could hold, the spread penalty, the preferred score below the best its picks could
# have, picks that do not keep a cluster holding an older decision, the name ranks below the top.
LEVEL_NAMES = (
    "clusters-short",
    "spread-penalty",
    "affinity-forgone",
    "obsolete-not-kept",
    "name-rank-forgone",
)


@dataclass(frozen=True, slots=True)
class Scale:
    """How each level is shifted and how wide it is, for one request."""

    picks: int  # the most new picks the request can make
    spans: tuple[int, ...]  # per level: shifted values lie in [0, span]
    offsets: tuple[int, ...]  # per level: added to the raw value (new picks, -penalty, sums)


def scale_of(p: Prepared, table: ClusterTable) -> Scale:
    ranking = p.ranking
    if p.base is not None and ranking is not None and ranking.serves(p):
        # The shared candidates less the held ones: no array of the request's own.
        count = len(p.base) - len(p.held_out)
        lowest, highest = _held_out_extremes(p, ranking)
    else:
        candidates = p.candidates
        count = len(candidates)
        lowest, highest = affinity_extremes(p.affinity, candidates)
    if p.request.mode is SelectionMode.N:
        picks = min(max(0, p.request.count - p.present), count)
    elif p.request.mode is SelectionMode.FIXED:
        picks = len(p.request.cluster_names)
    else:
        picks = count
    # Balance scores depend on the other requests' answers: widen by their whole range, so the
    # scale stays the same whatever the batch decides (call this on the request without them).
    swing = BALANCE_RANGE * sum(abs(pref.weight) for pref in p.request.preferences if pref.balance)
    low, high = min(lowest, 0) - swing, max(highest, 0) + swing
    most = p.present + picks
    spread_ceiling = sum((1 + (0 if s.hard else SOFT_VIOLATION)) * most for s in p.request.spread)
    spans = (p.present + picks, spread_ceiling, picks * (high - low), picks, picks * table.size)
    return Scale(picks, spans, (p.present, spread_ceiling, -picks * low, 0, 0))


def _held_out_extremes(p: Prepared, ranking: Ranking) -> tuple[int, int]:
    """The candidates' lowest and highest affinity, for candidates that are shared rows less a
    few held ones: found once for the shared rows, else read off their ends in pick order (best
    first, so by affinity), past the held rows."""
    low, high, lows, highs = ranking.extreme_counts(p.base)
    if not p.held_out:
        return low, high
    if len(p.held_out) == len(p.base):
        return 0, 0
    held = p.affinity[p.held_out].tolist()
    if held.count(low) < lows and held.count(high) < highs:
        return low, high  # a candidate still has each
    ordered = ranking.ordered(p.base)
    held, reach = set(p.held_out), len(p.held_out) + 1
    best = [row for row in ordered[:reach].tolist() if row not in held]
    if not best:
        return 0, 0
    worst = [row for row in ordered[-reach:].tolist() if row not in held]
    return int(p.affinity[worst[-1]]), int(p.affinity[best[0]])


def evaluate(
    p: Prepared,
    table: ClusterTable,
    scale: Scale,
    kept: list[int],
    picks: list[int],
    state: SpreadState | None = None,
) -> tuple[int, ...]:
    """The shifted level values of an answer; `state`, where given, holds the kept rows and the
    picks (and is only read)."""
    if p.request.spread:
        penalty = (state or SpreadState(table, p.request.spread, [*kept, *picks])).penalty()
    else:
        penalty = 0
    raw = (len(picks) + len(kept) - p.present, -penalty, *_sums(p, table, picks))
    return tuple(r + o for r, o in zip(raw, scale.offsets, strict=True))


def _sums(p: Prepared, table: ClusterTable, picks: list[int]) -> tuple[int, int, int]:
    """The picks' summed affinity, obsolete holdings and name rank: gathered for many picks (once
    for a list of picks shared by requests scored alike), read one by one for a few (numpy's cost
    per call outweighs a handful of reads)."""
    if len(picks) > 8:
        # The arrays are held weakly: a request scored for one answer alone (Balance's) is not
        # kept alive by the sums of its picks.
        shared = table.derived(("objective", "sums"), dict)
        known = shared.get(id(picks))
        arrays = (p.affinity, p.sticky, p.rank)
        if (
            known is None
            or known[0] is not picks
            or any(ref() is not a for ref, a in zip(known[1], arrays, strict=True))
        ):
            rows = np.asarray(picks, dtype=np.int64)
            sums = int(p.affinity[rows].sum()), int(p.sticky[rows].sum()), int(p.rank[rows].sum())
            known = shared[id(picks)] = (picks, tuple(map(weakref.ref, arrays)), sums)
        return known[2]
    affinity, sticky, rank = p.affinity, p.sticky, p.rank
    return (
        sum(int(affinity[r]) for r in picks),
        sum(int(sticky[r]) for r in picks),
        sum(int(rank[r]) for r in picks),
    )


def combine(values: tuple[int, ...], spans: tuple[int, ...]) -> int:
    """Levels into one integer, each outweighing all below it."""
    total = values[0]
    for value, span in zip(values[1:], spans[1:], strict=True):
        total = total * (span + 1) + value
    return total


def affinity_weight(spans: tuple[int, ...]) -> int:
    """What one unit of the affinity level is worth in the combined objective."""
    weight = 1
    for span in spans[LEVELS.index("affinity") + 1 :]:
        weight *= span + 1
    return weight


def bound_shortfalls(values: tuple[int, ...], bound: int, spans: tuple[int, ...]) -> tuple[int | None, ...]:
    """The least shortfall per level that a combined bound (at least the answer's) proves. The
    combined value is a number whose digits are the levels (each in [0, span]), so the bound's
    leading digit bounds the first level, and each next digit bounds its level where the answer
    holds every level before it at the bound's digit (then so does the optimum); past the first
    level the answer does not hold there, nothing is proven (None)."""
    digits = []
    for span in reversed(spans[1:]):
        bound, digit = divmod(bound, span + 1)
        digits.append(digit)
    digits.append(bound)
    digits.reverse()
    out: list[int | None] = []
    held = True
    for value, digit, span in zip(values, digits, spans, strict=True):
        out.append(max(0, span - digit) if held else None)
        held = held and value == digit
    return tuple(out)


@dataclass(slots=True)
class LevelSums:
    """Requests' levels (LEVEL_NAMES) summed, with the bounds proven on them (None once any
    request's is not). Each request's values and spans are kept and summed once at the end (a
    column sum in C, not a Python loop per request: 50,000 requests would take 0.2 s)."""

    answers: list[tuple[int, ...]] = field(default_factory=list)
    spans: list[tuple[int, ...]] = field(default_factory=list)
    # Per level, the bounds less the shortfalls, summed: 0 while every bound is its answer.
    slack: list[int | None] = field(default_factory=lambda: [0] * len(LEVELS))

    def add(
        self, values: tuple[int, ...], spans: tuple[int, ...], least: tuple[int | None, ...] | None
    ) -> None:
        """One request's level values and spans, and the shortfalls its bound proves (None: its
        bound is its value, every level proven as it is)."""
        self.answers.append(values)
        self.spans.append(spans)
        if least is not None:
            for i, (bound, value, span) in enumerate(zip(least, values, spans, strict=True)):
                known = self.slack[i]
                self.slack[i] = None if known is None or bound is None else known + bound - (span - value)

    def levels(self) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
        """The summed shortfalls and the bounds proven on them."""
        if not self.answers:
            short: tuple[int, ...] = (0,) * len(LEVELS)
        else:
            columns = zip(zip(*self.spans, strict=True), zip(*self.answers, strict=True), strict=True)
            short = tuple(sum(spans) - sum(values) for spans, values in columns)
        return short, tuple(None if d is None else v + d for v, d in zip(short, self.slack, strict=True))

    def stats(self, proven: bool) -> tuple[LevelStats, ...]:
        """Each level; with no bound unless `proven` (greedy mode proves nothing)."""
        values, bounds = self.levels()
        return tuple(
            LevelStats.of(name, value, least if proven else None)
            for name, value, least in zip(LEVEL_NAMES, values, bounds, strict=True)
        )
