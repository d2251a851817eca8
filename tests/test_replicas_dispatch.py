"""solver.solve sends the requests that divide replicas to solver.replicas, beside the others,
in both modes, one result per request in batch order."""

from __future__ import annotations

from model import Batch, Division, PlacementRequest, SelectionMode
from solver import SolveOptions, check, solve
from tests.fixtures.replicas import request, room


def test_replicas_beside_scored_requests_in_both_modes():
    clusters = (room("a", 5), room("b", 5))
    scored = PlacementRequest("plain", mode=SelectionMode.N, count=1)
    batch = Batch(clusters, (request("w", 4), scored, request("x", 2, order=1)))
    for mode in ("greedy", "optimal"):
        result = solve(batch, SolveOptions(mode=mode))
        assert [r.request for r in result.requests] == ["w", "plain", "x"]
        assert check(batch, result) == []
        assert [c.replicas for c in result.requests[0].selected] == [2, 2]
        assert [c.replicas for c in result.requests[1].selected] == [None]
        assert result.stats.status == ("GREEDY" if mode == "greedy" else "OPTIMAL")  # the joint proves it


def test_greedy_over_commits_as_upstream():
    """Every request sees every cluster's capacity as given: two requests that each fit the one
    cluster both go there (karmada#6783)."""
    aggregated = Division.AGGREGATED
    batch = Batch(
        (room("a", 5), room("b", 1)), (request("w", 5, aggregated), request("x", 5, aggregated, order=1))
    )
    result = solve(batch, SolveOptions(mode="greedy"))
    assert [[(c.cluster, c.replicas) for c in r.selected] for r in result.requests] == [
        [("a", 5)],
        [("a", 5)],
    ]
    assert result.stats.status == "GREEDY"
