"""Webster (Sainte-Laguë) apportionment, as upstream divides replicas (pkg/util/helper/webstermethod.go
AllocateWebsterSeats, binding.go tieBreakerByUID).

Seats go one at a time to the party of the highest priority votes / (2 * seats + 1); among equal
priorities the party with fewer seats, then the smaller name (TieBreak.SMALLER_NAME) or the larger
(LARGER_NAME). Parties are the voted ones and those holding initial seats (0 votes unless voted).
The answer lists every party, names ascending.

Priorities are compared as upstream computes them, in float64 (a Python float is the same IEEE
double, and the quotient of two integers is rounded the same way): equal rationals give equal
floats, and where two distinct rationals round to one float (votes past 2^26 or so) upstream's
tie-break applies, and so does ours.

Many seats are not handed out one by one: every party first gets the seats it is sure to win
(those of priority at least V / (2h - n - 2), of which fewer than h exist, V the votes, h the
seats, n the voted parties: floor((v (2h - n - 2) + V) / 2V) each), and a heap hands out the
rest, fewer than n / 2 + 2, among the parties that can still win one (the first that many in
the heap's order: numpy finds them over thousands of parties). The answer is the same as one seat
at a time, since the sure seats are among the h greatest priorities in upstream's order.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

import numpy as np

from model import TieBreak

__all__ = ["apportion", "webster", "prefers_smaller_name", "fnv1a32"]


def fnv1a32(text: str) -> int:
    """The 32-bit FNV-1a hash of the text's UTF-8 bytes (Go's hash/fnv New32a)."""
    h = 0x811C9DC5
    for byte in text.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def prefers_smaller_name(uid: str) -> TieBreak:
    """Upstream's tie-break for a workload uid: names ascending when the uid is empty or its hash
    even, descending when odd. (For adapters: the model carries the TieBreak itself.)"""
    return TieBreak.SMALLER_NAME if not uid or fnv1a32(uid) % 2 == 0 else TieBreak.LARGER_NAME


def webster(
    seats: int,
    votes: Sequence[tuple[str, int]],
    tie_break: TieBreak,
    initial: Mapping[str, int] | None = None,
) -> list[tuple[str, int]]:
    """Every party with its seats, names ascending."""
    held = dict(initial or {})
    vote = dict.fromkeys(held, 0)
    for name, v in votes:
        vote[name] = v
    names = sorted(vote)
    if not names:
        return []
    have = np.array([held.get(name, 0) for name in names], dtype=np.int64) if held else None
    counts = np.array([vote[name] for name in names], dtype=np.int64)
    return list(zip(names, apportion(seats, counts, tie_break, have).tolist(), strict=True))


def apportion(
    seats: int, votes: np.ndarray, tie_break: TieBreak, initial: np.ndarray | None = None
) -> np.ndarray:
    """Each party's seats, the parties being the positions of `votes` (int64) in name order:
    `webster` over arrays, for callers that hold their parties as arrays (a division over a
    thousand candidates builds no list of them). `initial`: the seats held (None: none, and the
    sure seats are handed out first)."""
    have = np.zeros(len(votes), dtype=np.int64) if initial is None else initial.astype(np.int64)
    if not len(votes):
        return have
    left = max(seats, 0)  # upstream's loop hands out seats while more than 0 remain
    if initial is None:
        left -= _sure_seats(seats, votes, have)
    sign = 1 if tie_break is TieBreak.SMALLER_NAME else -1
    heap = [
        (_priority(v, s), s, sign * k, k)
        for k, v, s in zip(*_contenders(votes, have, left, sign), strict=True)
    ]
    heapq.heapify(heap)
    for _ in range(left):
        _, s, key, k = heap[0]
        s += 1
        heapq.heapreplace(heap, (_priority(int(votes[k]), s), s, key, k))
    for _, s, _, k in heap:
        have[k] = s
    return have


def _priority(votes: int, seats: int) -> float:
    """Minus the priority, in float64 as upstream computes it (each integer made a double first)."""
    return -(float(votes) / float(2 * seats + 1))


def _contenders(votes: np.ndarray, have: np.ndarray, left: int, sign: int) -> tuple[list[int], ...]:
    """The parties that can win one of the next `left` seats (their positions, votes and seats,
    positions ascending): the `left` first in the order of the heap (a party past them is
    preceded by one of them until it wins, and each win only moves the winner back). All of them
    where there are few."""
    n = len(votes)
    if n <= 2 * left + 16:
        first = np.arange(n)
    else:
        rank = sign * np.arange(n)
        first = np.sort(np.lexsort((rank, have, -(votes / (2 * have + 1).astype(np.float64))))[:left])
    return first.tolist(), votes[first].tolist(), have[first].tolist()


def _sure_seats(seats: int, votes: np.ndarray, have: np.ndarray) -> int:
    """Give each party the seats it wins whatever the order (see the module note); how many."""
    voted = votes > 0
    count = int(voted.sum())
    total = int(votes[voted].sum())
    span = 2 * seats - count - 2
    if total == 0 or span <= 0:
        return 0
    v = votes[voted]
    if int(v.max()) * span + total < 2**62:  # exact in int64
        sure = (v * span + total) // (2 * total)
    else:
        sure = np.array([(x * span + total) // (2 * total) for x in v.tolist()], dtype=np.int64)
    have[voted] = sure
    return int(sure.sum())
