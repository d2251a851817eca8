"""Classes of interchangeable units, and the hand-out of a class's counts to its requests.

Requests with the same count, demand, division, options (candidates, held replicas, greedy's split,
caps, groups) and priority are interchangeable: the model decides per class how many are
scheduled under each option and how many replicas they place on each cluster together, never one
request at a time (semantics/cp-sat-notes.md, 4.2). A class with group constraints is the
exception: whether a request meets its groups depends on its own split, so each of its requests is
a class of one.

The hand-out gives a class's totals back to its requests, the earliest in queue order first
(greedy's order breaks ties). It loses nothing the model counted: dealt round-robin, each of s
requests gets the floor or the ceiling of a cluster's total over s, so it sits on the same side of
any integer per-request reference as the total does of s times it (the held replicas, greedy's
split, the caps): its added replicas, moves and distance add up to the class's. AGGREGATED
requests are packed instead (each takes consecutive replicas, so it spans few clusters), and
dealt round-robin only where packing would break a cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from model import Division
from solver.replicas.capacity_units import Answer, CapacityProblem, Placed, Unit, queue

__all__ = ["ReplicaClass", "build_classes", "hand_out"]


@dataclass(slots=True)
class ReplicaClass:
    index: int
    members: list[int]  # unit indices, queue order
    unit: Unit  # its first member: the others differ only in their queue position

    @property
    def size(self) -> int:
        return len(self.members)


def build_classes(problem: CapacityProblem, part: Sequence[int]) -> list[ReplicaClass]:
    """The part's schedulable units (not fixed, some option) in classes, by first member's queue
    position."""
    classes: list[ReplicaClass] = []
    by_key: dict[tuple, ReplicaClass] = {}
    for u in queue(problem, part):
        unit = problem.units[u]
        if not unit.options:
            continue
        alone = any(option.groups for option in unit.options)
        key = (
            None
            if alone
            else (unit.count, unit.demand, unit.division, unit.options, unit.fresh, unit.priority)
        )
        cls = by_key.get(key) if key is not None else None
        if cls is None:
            cls = ReplicaClass(len(classes), [], unit)
            classes.append(cls)
            if key is not None:
                by_key[key] = cls
        cls.members.append(u)
    return classes


def hand_out(
    problem: CapacityProblem,
    classes: Sequence[ReplicaClass],
    totals: dict[tuple[int, int], tuple[int, dict[int, int]]],
    answer: Answer,
) -> Answer:
    """The answer with each class's members placed: `totals[(class, option)]` is how many are
    scheduled under the option and their replicas per cluster together. Members past the
    scheduled ones are unscheduled."""
    out = list(answer)
    for cls in classes:
        members = iter(cls.members)
        for o in range(len(cls.unit.options)):
            scheduled, y = totals.get((cls.index, o), (0, {}))
            if not scheduled:
                continue
            for split in _split(cls.unit, o, scheduled, y):
                out[next(members)] = Placed(o, tuple(sorted((row, n) for row, n in split.items() if n)))
        for u in members:
            out[u] = None
    return out


def _split(unit: Unit, o: int, scheduled: int, y: dict[int, int]) -> list[dict[int, int]]:
    """Totals per cluster split among `scheduled` requests of `unit.count` replicas each."""
    option = unit.options[o]
    held = dict(option.held)
    if unit.fresh:
        base: dict[int, int] = {}
        extra = dict(y)
    else:  # steady: each keeps what it holds where the class places replicas; what it adds is split
        # (a class of one with a spread may give a held cluster up: capacity_model)
        base = {row: n for row, n in held.items() if y.get(row, 0)}
        extra = {row: n - scheduled * held.get(row, 0) for row, n in y.items()}
    each = unit.count - sum(base.values())
    if unit.division is Division.AGGREGATED:
        packed = [_plus(base, split) for split in _pack(extra, scheduled, each, held)]
        if _within_caps(unit, o, packed) and _adds_no_more(packed, y, held, scheduled):
            return packed
    return [_plus(base, split) for split in _deal(extra, scheduled, each)]


def _deal(extra: dict[int, int], scheduled: int, each: int) -> list[dict[int, int]]:
    """Round-robin: the replicas in row order, the i-th to request i mod scheduled."""
    out: list[dict[int, int]] = [{} for _ in range(scheduled)]
    at = 0
    for row in sorted(extra):
        n = extra[row]
        if n <= 0:
            continue
        whole, rest = divmod(n, scheduled)
        for k in range(scheduled):
            share = whole + (1 if (k - at) % scheduled < rest else 0)
            if share:
                out[k][row] = out[k].get(row, 0) + share
        at = (at + rest) % scheduled
    assert all(sum(split.values()) == each for split in out)
    return out


def _pack(extra: dict[int, int], scheduled: int, each: int, held: dict[int, int]) -> list[dict[int, int]]:
    """Consecutive replicas per request: clusters held first, then by total, largest first."""
    if each == 0:
        return [{} for _ in range(scheduled)]
    order = sorted(
        (row for row in extra if extra[row] > 0), key=lambda row: (row not in held, -extra[row], row)
    )
    out: list[dict[int, int]] = [{} for _ in range(scheduled)]
    k, room = 0, each
    for row in order:
        n = extra[row]
        while n:
            take = min(n, room)
            out[k][row] = out[k].get(row, 0) + take
            n -= take
            room -= take
            if room == 0 and k + 1 < scheduled:
                k, room = k + 1, each
    return out


def _within_caps(unit: Unit, o: int, splits: list[dict[int, int]]) -> bool:
    option = unit.options[o]
    if option.most is None:
        return True
    cap = dict(zip(option.candidates, option.most, strict=True))
    held = dict(option.held)
    return all(n - held.get(row, 0) <= cap[row] for split in splits for row, n in split.items())


def _adds_no_more(
    splits: list[dict[int, int]], y: dict[int, int], held: dict[int, int], scheduled: int
) -> bool:
    """Whether the requests add on each cluster no more than their totals do (afresh, packing
    may put one request above what it holds where the class as a whole stays below)."""
    adds: dict[int, int] = {}
    for split in splits:
        for row, n in split.items():
            adds[row] = adds.get(row, 0) + max(0, n - held.get(row, 0))
    return all(n <= max(0, y.get(row, 0) - scheduled * held.get(row, 0)) for row, n in adds.items())


def _plus(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out = dict(a)
    for row, n in b.items():
        out[row] = out.get(row, 0) + n
    return out
