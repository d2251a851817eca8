"""Greedy: upstream's queue, one request at a time in its order, each taking the cluster its packing
rule picks among those with room (existing and opened this run), a new cluster of its pool when
none has room.

Its own module because it is two things at once: the `--mode greedy` answer, and the start every
optimal stage measures itself against (an answer is taken only where it is strictly better) and
hints from. The rooms are kept incrementally (a sorted list and, for FEWEST, a lazy heap per
class), since counts only grow along the queue: a full cluster is dropped for good.
"""

from __future__ import annotations

import heapq
import random
from bisect import bisect_left, insort
from collections import defaultdict

from model import Packing
from solver.tenancy.problem import Placement, Problem, RequestClass, fits, new_name


class _Rooms:
    """The clusters with room for each class as the queue runs, existing and created alike, kept
    in name order; a cluster is full for a class at the class's limit (counts only grow)."""

    def __init__(self, problem: Problem, seed: int) -> None:
        self.p = problem
        self.rng = random.Random(seed)
        self.count: dict[str, int] = {name: problem.base[i] for i, name in enumerate(problem.names)}
        self.room: list[list[str]] = []  # per class, names with room, sorted
        self.heaps: list[list[tuple[int, str]]] = []  # FEWEST classes: (count, name), lazy
        self.members: dict[str, list[int]] = defaultdict(list)  # cluster -> classes seeing it
        self.pool_classes: dict[str, list[int]] = defaultdict(list)
        for cls in problem.classes:
            names = [problem.names[row] for row in cls.candidates]
            names = [n for n in names if fits(cls, self.count[n])]
            self.room.append(names)
            self.heaps.append([(self.count[n], n) for n in names] if cls.packing is Packing.FEWEST else [])
            heapq.heapify(self.heaps[-1])
            for n in names:
                self.members[n].append(cls.index)
            for pool in cls.pools:
                self.pool_classes[pool].append(cls.index)

    def pick(self, cls: RequestClass) -> str | None:
        """The cluster the class's packing rule takes now, among those with room."""
        names = self.room[cls.index]
        if not names:
            return None
        if cls.packing is Packing.FEWEST:
            heap = self.heaps[cls.index]
            while heap:
                count, name = heap[0]
                now = self.count[name]
                if not fits(cls, now):
                    heapq.heappop(heap)  # full for this class, for good: counts only grow
                elif now == count:
                    return name
                else:
                    heapq.heapreplace(heap, (now, name))
            return None
        if cls.packing is Packing.RANDOM and len(names) > 1:
            return names[self.rng.randrange(len(names))]
        return names[0]

    def take(self, name: str, demand: int) -> None:
        self.count[name] += demand
        count = self.count[name]
        for k in self.members[name]:
            cls = self.p.classes[k]
            if not fits(cls, count):
                names = self.room[k]
                at = bisect_left(names, name)
                if at < len(names) and names[at] == name:
                    del names[at]

    def open(self, name: str, cls: RequestClass) -> None:
        """A new cluster, holding one request: every class of the pool may join it."""
        self.count[name] = self.count.get(name, 0) + cls.demand
        if cls.exclusive or cls.pool is None:
            return
        for k in self.pool_classes[cls.pool]:
            other = self.p.classes[k]
            if not fits(other, self.count[name]):
                continue
            insort(self.room[k], name)
            self.members[name].append(k)
            if other.packing is Packing.FEWEST:
                heapq.heappush(self.heaps[k], (self.count[name], name))


def run_queue(problem: Problem, seed: int) -> Placement:
    """Upstream's queue, one request at a time."""
    rooms = _Rooms(problem, seed)
    out = Placement()
    for position in range(len(problem.pending)):
        cls = problem.classes[problem.class_of[position]]
        name = rooms.pick(cls)
        if name is not None:
            _record(problem, out, position, name)
            rooms.take(name, cls.demand)
        elif cls.pool is not None:
            name = new_name(problem.request(position))
            out.created[position] = name
            out.opened.add(name)
            rooms.open(name, cls)
    return out


def _record(problem: Problem, out: Placement, position: int, name: str) -> None:
    row = problem.index.get(name)
    if row is not None and name not in out.opened:
        out.existing[position] = row
    else:
        out.created[position] = name


def greedy_is_optimal(problem: Problem, part: list[int], greedy: Placement) -> bool:
    """On one class of one-slot requests, greedy's queue is the optimum when its packing rule is
    the aim: it fills every slot before creating, a new cluster before the next, and Balanced's
    fewest-first is water filling. Unless a new cluster it opened has room left while requests
    sit on existing clusters: moving those there lowers the aim (only existing clusters count)
    for the same clusters created."""
    if len(part) > 1:
        return False
    cls = problem.classes[part[0]]
    rule = {Packing.FEWEST: "squares", Packing.FIRST: "rank", Packing.RANDOM: "none"}[cls.packing]
    return cls.demand == 1 and cls.aim == rule and (cls.aim == "none" or not _room_left_new(cls, greedy))


def _room_left_new(cls: RequestClass, greedy: Placement) -> bool:
    """Whether a new cluster greedy opened for the class has room left while some of its
    requests sit on existing clusters."""
    held: dict[str, int] = defaultdict(int)
    for position in cls.requests:
        if position in greedy.created:
            held[greedy.created[position]] += 1
    if not held or not any(position in greedy.existing for position in cls.requests):
        return False
    return cls.limit == 0 or any(count < cls.limit for count in held.values())
