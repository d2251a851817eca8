"""Go's sort.Sort (solver.replicas.gosort) and where upstream's answer depends on it.

No Go toolchain is at hand, so the orders Go leaves were derived by hand, tracing Go's pdqsort
(src/sort/zsortinterface.go, Go 1.22+) step by step on small inputs: the traces are written out
beside each case. Beyond them, invariants: up to 12 entries Go's sort is insertion sort (stable);
any input comes out sorted, as a permutation of itself, the same every time; without ties it is
the one sorted order. The hubs put 13 and 15 clusters through `solve --mode greedy` where the
AGGREGATED prefix keeps the cluster Go's order puts first (pkg/scheduler/core/division_algorithm.go
dynamicScaleUp / dynamicScaleDown: sort.Sort(TargetClustersList)).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.replicas.gosort import go_sort, pdqsort
from tests.fixtures.karmada import binding, cluster, divided, solve, written


def _names(entries):
    return [name for name, _ in entries]


def test_thirteen_entries_with_a_larger_last_one_as_go_leaves_them():
    # Less: value descending. 12 x 1, then 2. Trace: choosePivot(0, 13) samples 3, 6, 9 (all
    # equal: no swap, increasing hint, pivot 6); partialInsertionSort stops at index 12 and gives
    # up (13 < 50); partition swaps 0 <-> 6, then 1 <-> 12 (the 2 found by j), j runs down to 1,
    # the pivot goes back to 1: [t12, t6, t2..t5, t0, t7..t11, t1]; left side 1 entry, right 11
    # (insertion sort, all equal: unchanged).
    entries = [(f"t{i}", 1) for i in range(12)] + [("t12", 2)]
    got = go_sort(entries, key=lambda e: -e[1])
    assert _names(got) == ["t12", "t6", "t2", "t3", "t4", "t5", "t0", "t7", "t8", "t9", "t10", "t11", "t1"]


def test_fifteen_entries_take_the_equal_partition_path():
    # Less: value ascending. 14 x 1, then 0. The first partition as above: [t14, t6, t2..t5, t0,
    # t7..t13, t1], mid 1, balanced (1 >= 15 / 8). The right side [2, 15) has 13 entries: pivot
    # 8 (samples 5, 8, 11 equal), not already partitioned, and data[1] (t6) is not less than the
    # pivot: partitionEqual swaps 2 <-> 8 and finds every entry equal: done.
    entries = [(f"t{i}", 1) for i in range(14)] + [("t14", 0)]
    got = go_sort(entries, key=lambda e: e[1])
    assert _names(got) == [
        "t14", "t6", "t8", "t3", "t4", "t5", "t0", "t7", "t2", "t9", "t10", "t11", "t12", "t13", "t1",
    ]  # fmt: skip


def test_equal_entries_already_in_order_stay_put():
    # Every value equal: the pivot sample swaps nothing and partialInsertionSort finds it sorted.
    entries = [(f"t{i}", 5) for i in range(40)]
    assert go_sort(entries, key=lambda e: -e[1]) == entries


@given(st.lists(st.integers(0, 3), min_size=13, max_size=200).map(sorted))
def test_input_in_order_stays_as_it_is(values):
    data = list(enumerate(values))
    pdqsort(data, lambda a, b: a[1] < b[1])  # Go's steps, not go_sort's shortcut
    assert data == list(enumerate(values))


@given(st.lists(st.integers(0, 3), max_size=12))
def test_up_to_twelve_entries_it_is_stable(values):
    entries = list(enumerate(values))
    assert go_sort(entries, key=lambda e: -e[1]) == sorted(entries, key=lambda e: -e[1])


@given(st.lists(st.integers(0, 4), min_size=13, max_size=300))
def test_longer_input_comes_out_sorted_the_same_every_time(values):
    entries = list(enumerate(values))
    got = go_sort(entries, key=lambda e: e[1])
    assert sorted(got) == entries
    assert [v for _, v in got] == sorted(values)
    assert go_sort(entries, key=lambda e: e[1]) == got


@pytest.mark.parametrize("n", [13, 50, 64, 200, 1000])
def test_adversarial_shapes_sort(n):
    # Descending, organ pipe and sawtooth inputs reach the reversal, breakPatterns and heapsort.
    rng = random.Random(n)
    shapes = [
        list(range(n, 0, -1)),
        list(range(n // 2)) + list(range(n - n // 2, 0, -1)),
        [i % 7 for i in range(n)],
        [rng.randrange(3) for _ in range(n)],
    ]
    for values in shapes:
        data = list(values)
        pdqsort(data, lambda a, b: a < b)
        assert data == sorted(values)


def test_distinct_keys_give_the_one_sorted_order():
    values = random.Random(7).sample(range(1000), 300)
    assert go_sort(values, key=lambda v: -v) == sorted(values, reverse=True)


# ----------------------------------------------------------------------------- through the CLI


def _placed(obj: dict[str, Any]) -> dict[str, int]:
    return {c["name"]: c["replicas"] for c in obj["spec"].get("clusters") or []}


def _run(tmp_path, objects) -> dict[str, Any]:
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    return written(result.stdout)["ResourceBinding/default/rb"]


def test_aggregated_scale_up_over_thirteen_clusters_takes_the_first_of_gos_order(tmp_path):
    # 12 held clusters (1 replica each, room for 1 more) and c12 (room for 2), in canonical order
    # (held first, by name). Scaling up by 1: sort.Sort by room descending leaves [c12, c06, c02,
    # ..] (the first trace above); resortAvailableClusters puts the used ones first, keeping that
    # order: c06 leads and its prefix covers the 1 replica. A stable sort would give it to c00.
    clusters = [cluster(f"c{i:02}", allocatable={"pods": "1"}) for i in range(12)]
    clusters.append(cluster("c12", allocatable={"pods": "2"}))
    rb = binding(
        placement={"replicaScheduling": divided("Aggregated")},
        replicas=13,
        clusters=[(f"c{i:02}", 1) for i in range(12)],
    )
    got = _placed(_run(tmp_path, [*clusters, rb]))
    assert got == {f"c{i:02}": 2 if i == 6 else 1 for i in range(12)}


def test_aggregated_scale_down_over_thirteen_entries_keeps_gos_prefix(tmp_path):
    # Scale down sorts spec.clusters by replicas descending: 12 x 1 then c12 x 2 as written, so
    # Go leaves [c12, c06, ..]; the prefix covering 3 replicas is c12 and c06 (a stable sort: c00).
    clusters = [cluster(f"c{i:02}", allocatable={"pods": "9"}) for i in range(13)]
    rb = binding(
        placement={"replicaScheduling": divided("Aggregated")},
        replicas=3,
        clusters=[(f"c{i:02}", 1) for i in range(12)] + [("c12", 2)],
    )
    assert _placed(_run(tmp_path, [*clusters, rb])) == {"c12": 2, "c06": 1}
