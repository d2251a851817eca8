"""The hand-out: a joint answer's counts given to the requests themselves, in queue order (the
request-order tie-break).

Its own step because the model decides how many of a class go where, not which request: each
request keeps greedy's seeded pick where its class has allotment left there (so among equal
answers the result stays near greedy's, and RANDOM's draw is still the seeded one), else takes
what its packing rule picks among the clusters with allotment left; the rest fill new clusters of
their pool. A hand-out that cannot place every request returns None and greedy stands.
"""

from __future__ import annotations

import heapq
import random
from bisect import bisect_left, insort
from collections import defaultdict

from model import Packing
from solver.tenancy.joint import Joint
from solver.tenancy.problem import Placement, Problem, fits, new_name


def hand_out(
    problem: Problem,
    part: list[int],
    allot: dict[tuple[int, int], int],
    greedy: Placement,
    seed: int,
) -> Placement:
    """The counts, handed to the part's requests in queue order: each takes greedy's cluster when
    its class has allotment left there, else the one its packing rule picks among those with
    allotment left; the rest fill new clusters of their pool in turn."""
    out = Placement()
    ours = set(part)
    # The live counts of the clusters allotted to the part (those alone are read): not of the whole
    # fleet once per part (10,000 clusters x 500 parts).
    count = {problem.names[row]: problem.base[row] for (k, row), n in allot.items() if n > 0 and k in ours}
    left: dict[int, _Allotted] = {}
    for (k, row), n in sorted(allot.items()):
        if n > 0 and k in ours:
            left.setdefault(k, _Allotted(problem.classes[k].packing, count)).add(problem.names[row], n)
    rng = random.Random(seed)
    filling: dict[str, tuple[str, int]] = {}  # pool -> the open new cluster and its count
    positions = sorted(p for k in part for p in problem.classes[k].requests)
    spilled = []
    for position in positions:
        k = problem.class_of[position]
        cls = problem.classes[k]
        allotted = left.get(k)
        name = None
        if allotted is not None:
            wanted = greedy.existing.get(position)
            name = allotted.take(problem.names[wanted] if wanted is not None else None, rng)
        if name is not None:
            out.existing[position] = problem.index[name]
            count[name] += cls.demand
        elif cls.pool is not None:
            spilled.append(position)
    for position in spilled:
        cls = problem.classes[problem.class_of[position]]
        assert cls.pool is not None
        current = filling.get(cls.pool)
        if not cls.exclusive and current is not None and fits(cls, current[1]):
            out.created[position] = current[0]
            filling[cls.pool] = (current[0], current[1] + cls.demand)
            continue
        new = new_name(problem.request(position))
        out.created[position] = new
        out.opened.add(new)
        if not cls.exclusive:
            filling[cls.pool] = (new, cls.demand)
    return out


def hand_out_pools(
    problem: Problem, part: list[int], joint: Joint, greedy: Placement, seed: int
) -> Placement | None:
    """As hand_out, where requests may join other pools' new clusters: the existing clusters'
    counts as there; then per pool, CP-SAT's number of clusters, each opened by a request of the
    pool, and the other requests, smallest limits first, each on the emptiest of them that admits
    it (the earliest opened on a tie). None if some request fits nowhere (greedy stands)."""
    assert joint.pools is not None and joint.opened is not None
    base = hand_out(problem, part, joint.allot, greedy, seed)
    spilled = sorted(p for k in part for p in problem.classes[k].requests if p not in base.existing)
    out = Placement(existing=dict(base.existing))
    by_class: dict[int, list[int]] = defaultdict(list)
    for position in spilled:
        by_class[problem.class_of[position]].append(position)
    going: dict[str, list[int]] = defaultdict(list)
    for k, positions in by_class.items():
        cls = problem.classes[k]
        if cls.exclusive:
            for position in positions:
                new = new_name(problem.request(position))
                out.created[position] = new
                out.opened.add(new)
            continue
        queue = list(positions)
        for pool in cls.pools:
            count = joint.pools.get((k, pool), 0)
            going[pool] += queue[:count]
            queue = queue[count:]
    for pool in sorted(going):
        members = going[pool]
        own = sorted(p for p in members if problem.classes[problem.class_of[p]].pool == pool)
        openers = own[: joint.opened.get(pool, 0)]
        if not openers and members:
            return None
        clusters = _NewClusters()
        for position in openers:
            new = new_name(problem.request(position))
            out.created[position] = new
            out.opened.add(new)
            clusters.open(new, problem.classes[problem.class_of[position]].limit)
        opening = set(openers)
        rest = sorted(
            (p for p in members if p not in opening),
            key=lambda p: (problem.classes[problem.class_of[p]].limit or 1 << 62, p),
        )
        for position in rest:
            name = clusters.join(problem.classes[problem.class_of[position]].limit)
            if name is None:
                return None
            out.created[position] = name
    return out


# A limit of 0 (none) sorts after every other: the earliest-deadline order's key.
def _deadline(limit: int) -> int:
    return limit or 1 << 62


class _NewClusters:
    """A pool's new clusters as the hand-out fills them, each request joining the one holding the
    fewest (the earliest opened on a tie) among those that admit it. Clusters are kept by the
    limits they hold (a sorted tuple of (limit, requests)): two holding the same limits admit the
    same requests, so each request looks at every kind of cluster once, not at every cluster, and
    the earliest opened of a kind is the top of its heap."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.of_kind: dict[tuple[tuple[int, int], ...], list[int]] = {}  # kind -> heap of cluster numbers

    def open(self, name: str, limit: int) -> None:
        self.names.append(name)
        heapq.heappush(self.of_kind.setdefault(((limit, 1),), []), len(self.names) - 1)

    def join(self, limit: int) -> str | None:
        """The cluster the request of this limit joins, None if none admits it."""
        best: tuple[tuple[int, int], tuple] | None = None
        for kind, heap in self.of_kind.items():
            grown = _with(kind, limit)
            if _admits_in_order(grown):
                key = (sum(n for _, n in kind), heap[0])
                if best is None or key < best[0]:
                    best = (key, kind)
        if best is None:
            return None
        kind = best[1]
        heap = self.of_kind[kind]
        number = heapq.heappop(heap)
        if not heap:
            del self.of_kind[kind]
        heapq.heappush(self.of_kind.setdefault(_with(kind, limit), []), number)
        return self.names[number]


def _with(kind: tuple[tuple[int, int], ...], limit: int) -> tuple[tuple[int, int], ...]:
    """The kind holding one more request of this limit."""
    counts = dict(kind)
    counts[limit] = counts.get(limit, 0) + 1
    return tuple(sorted(counts.items(), key=lambda item: _deadline(item[0])))


def _admits_in_order(kind: tuple[tuple[int, int], ...]) -> bool:
    """Whether a cluster can hold requests of these limits in the earliest-deadline order
    (smallest limits first, unlimited last; one slot each): the last of each limit L is at most
    the L-th."""
    held = 0
    for limit, n in kind:
        held += n
        if limit and held > limit:
            return False
    return True


class _Allotted:
    """One class's allotment left per cluster, picked by its packing rule on live counts."""

    def __init__(self, packing: Packing, count: dict[str, int]) -> None:
        self.packing = packing
        self.count = count
        self.left: dict[str, int] = {}
        self.names: list[str] = []  # with allotment left, sorted
        self.heap: list[tuple[int, str]] = []

    def add(self, name: str, n: int) -> None:
        self.left[name] = n
        insort(self.names, name)
        heapq.heappush(self.heap, (self.count[name], name))

    def take(self, wanted: str | None, rng: random.Random) -> str | None:
        if wanted is None or self.left.get(wanted, 0) <= 0:
            wanted = self._pick(rng)
        if wanted is None:
            return None
        self.left[wanted] -= 1
        if self.left[wanted] == 0:
            del self.names[bisect_left(self.names, wanted)]
        return wanted

    def _pick(self, rng: random.Random) -> str | None:
        if not self.names:
            return None
        if self.packing is Packing.FEWEST:
            while self.heap:
                count, name = self.heap[0]
                if self.left.get(name, 0) <= 0:
                    heapq.heappop(self.heap)
                elif self.count[name] != count:
                    heapq.heapreplace(self.heap, (self.count[name], name))
                else:
                    return name
            return None
        if self.packing is Packing.RANDOM and len(self.names) > 1:
            return self.names[rng.randrange(len(self.names))]
        return self.names[0]
