"""Go's sort.Sort (and sort.Slice): the permutation it leaves, for the same input and Less.

Upstream sorts the clusters it divides over with sort.Sort (pkg/scheduler/core/division_algorithm.go:
TargetClustersList by replicas descending, in scale up, scale down and fresh mode). Go's sort is
not stable: from Go 1.19 it is pattern-defeating quicksort (src/sort/zsortinterface.go pdqsort;
upstream builds with Go 1.26), and which of several equal entries comes first decides, for
AGGREGATED, which clusters its covering prefix keeps. Reproduced step for step from Go's algorithm
(the same comparisons in the same order, the same swaps):

- up to 12 entries: insertion sort (stable);
- beyond: pick a pivot (the middle entry; median of three at 8+, of three medians at 50+), note
  whether the sample looked increasing (no swap) or decreasing (every compare swapped: the range is
  reversed); when the last partition was balanced and already partitioned and the sample
  increasing, try to finish with at most 5 adjacent swaps (only on 50+ entries; fewer: give up at
  the first disorder); an entry before the range not less than the pivot means the range holds
  many equal entries: put those equal to the pivot first and go on past them; else partition
  (Hoare style, the pivot parked at the front), recurse into the smaller side and loop on the
  larger; a side shorter than an eighth of the range makes the next round scatter 3 entries by a
  xorshift seeded with the length (and spend one of the bits.Len(n) bad choices allowed, after
  which heapsort finishes the range).

When no two entries compare equal every sort gives the same order, so `go_sort` uses Python's
own there (and up to 12 entries, where Go's is stable too); input already in order stays as it is
(the pivot sample swaps nothing, and the partial insertion sort finds no disorder); Go's steps run
only for longer input with ties, out of order.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["go_sort", "pdqsort"]

T = TypeVar("T")

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_MAX_STEPS = 5  # adjacent disorders the partial insertion sort mends at most
_SHORTEST_SHIFTING = 50
_MASK64 = (1 << 64) - 1
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


def go_sort(
    items: Sequence[T], key: Callable[[T], int] | None = None, *, keys: list[int] | None = None
) -> list[T]:
    """The items as Go's sort.Sort leaves them, Less(i, j) being key(i) < key(j) (or the keys
    given, one per item: a caller with many items spares the calls)."""
    if keys is None:
        keys = [key(x) for x in items]
    if all(map(operator.le, keys, keys[1:])):  # Go finds no disorder
        return list(items)
    if len(items) <= _MAX_INSERTION or len(set(keys)) == len(keys):
        return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]
    order = list(range(len(items)))
    pdqsort(order, lambda i, j: keys[i] < keys[j])
    return [items[i] for i in order]


def pdqsort(data: list[T], less: Callable[[T, T], bool]) -> None:
    """Sort `data` in place exactly as Go's sort.Sort does (Sort: limit bits.Len(n))."""
    if len(data) > 1:
        _Sorter(data, less).pdqsort(0, len(data), len(data).bit_length())


class _Sorter:
    """Go's sort.Interface over a list: Less and Swap by index."""

    def __init__(self, data: list, less: Callable) -> None:
        self.d = data
        self.less_values = less

    def less(self, i: int, j: int) -> bool:
        return self.less_values(self.d[i], self.d[j])

    def swap(self, i: int, j: int) -> None:
        d = self.d
        d[i], d[j] = d[j], d[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        hi = b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, a)
        for i in range(hi - 1, -1, -1):
            self.swap(a, a + i)
            self.sift_down(0, i, a)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        balanced = partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:  # too many bad pivots
                self.heap_sort(a, b)
                return
            if not balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if balanced and partitioned and hint == _INCREASING and self.partial_insertion_sort(a, b):
                return
            if a > 0 and not self.less(a - 1, pivot):  # many entries equal to the pivot
                a = self.partition_equal(a, b, pivot)
                continue
            mid, partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """Entries less than the pivot before it, the others after; whether nothing moved."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        """Entries equal to the pivot first (none is less), then the greater: where those start."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        """Whether the range is sorted after mending at most a few adjacent disorders."""
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:  # shift the smaller one left (Go walks down to index 1, not to a)
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:  # shift the greater one right
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        state = length
        modulus = 1 << length.bit_length()
        middle = a + (length // 4) * 2
        for idx in range(middle - 1, middle + 2):
            state ^= (state << 13) & _MASK64
            state ^= state >> 7
            state ^= (state << 17) & _MASK64
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        n = b - a
        swaps = [0]
        i, j, k = a + n // 4, a + n // 4 * 2, a + n // 4 * 3
        if n >= 8:
            if n >= _SHORTEST_NINTHER:
                i, j, k = (self.median(x - 1, x, x + 1, swaps) for x in (i, j, k))
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        return j, _DECREASING if swaps[0] == _MAX_SWAPS else _UNKNOWN

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
