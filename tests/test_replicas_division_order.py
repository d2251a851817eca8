"""The division's write order and Go's sort order where the division works over arrays (a
thousand candidates make no list): the entries by name whatever the candidates' order, and
AGGREGATED's covering prefix as Go's pdqsort leaves equal rooms where the prefix ends among
them; a steady request that keeps more than its count beside a negative entry."""

from __future__ import annotations

from model import Batch, Division, FilterKind, GroupSpread
from solver import SolveOptions, check, solve
from solver.replicas.gosort import go_sort
from tests.fixtures.replicas import answer, cluster, labelled, names_term, request, room, solve_batch, split


def test_static_weights_by_name_when_the_candidates_are_ordered_by_room():
    """The candidates come by room (m3, m2, m1); Webster's entries are written by name."""
    clusters = [labelled(name, free={"pods": free}) for name, free in (("m1", 1), ("m2", 2), ("m3", 3))]
    rules = [(names_term("m1"), 1), (names_term("m2"), 2), (names_term("m3"), 3)]
    got = answer(solve_batch(clusters, request("w", 6, Division.WEIGHTED, weights=rules)))
    assert split(got) == [("m1", 1), ("m2", 2), ("m3", 3)]


def test_aggregated_prefix_among_equal_rooms_is_go_sorts():
    """The request holds z-held (first among the candidates, with less room than the 20 others of
    room 5 each): the room sorted by count is out of order and full of ties, so Go's pdqsort
    decides which two of the equal clusters complete the covering prefix after z-held (used
    first), and they are not the first two by name."""
    others = [f"c{i:02d}" for i in range(20)]
    rooms = [("z-held", 2)] + [(name, 5) for name in others]
    by_count = go_sort(rooms, keys=[-n for _, n in rooms])
    first_two = [name for name, _ in by_count if name != "z-held"][:2]
    assert first_two != others[:2]  # the case tells Go's order from a stable one
    clusters = [room(name, free) for name, free in rooms]
    got = answer(solve_batch(clusters, request("w", 13, Division.AGGREGATED, current=[("z-held", 1)])))
    assert got.failure is None
    assert split(got) == [(first_two[0], 5), (first_two[1], 5), ("z-held", 3)]


def test_steady_request_holding_more_than_its_count_beside_a_negative_entry():
    """Found by test_replicas_properties: the current assignment m3: 4, m4: -2 sums to 2 below the
    count 3 (upstream scales up), yet the request keeps 4 where it holds any; the joint solve took
    it for one that adds replicas and refused its own option (a ValueError from both modes)."""
    clusters = [cluster(name, reports=False) for name in ("m3", "m4")]
    spread = GroupSpread("", 1, 1)
    wanted = request("w", 3, Division.AVAILABLE, groups=[spread], current=[("m3", 4), ("m4", -2)])
    for options in (SolveOptions(mode="greedy"), SolveOptions(mode="optimal")):
        batch = Batch(tuple(clusters), (wanted,))
        result = solve(batch, options)
        assert check(batch, result) == []
        assert split(answer(result)) == [("m3", 3)]


def test_alike_filters_judged_once_keep_each_request_s_held_clusters():
    """Two requests with the same filters (needing the trait "api", which m1 lacks): the one that
    holds m1 keeps it among its candidates, the other sees m1 filtered out as MISSING (the
    shared verdicts never carry one request's held clusters into another's)."""
    clusters = [room("m0", 5, traits=["api"]), room("m1", 5)]
    holds = request("a", 2, current=[("m1", 1)], needs="api", order=0)
    free = request("b", 2, needs="api", order=1)
    result = solve_batch(clusters, holds, free)
    assert {name for name, _ in split(answer(result, "a"))} >= {"m1"}
    assert [name for name, _ in split(answer(result, "b"))] == ["m0"]
    left_out = {u.cluster: u.kind for u in answer(result, "b").unselected}
    assert left_out == {"m1": FilterKind.MISSING}
