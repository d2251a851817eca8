"""The joint model counts clusters alike for levels 1 and 2 (the same tenants, the same rooms for
the same classes) as one cell (solver.tenancy.joint._cells): the 10,000 x 50,000 openMCP hub's
6,344 candidate clusters are 32 cells, and CP-SAT's model of 11,776 counts has 69. A cell's
counts spread back over its clusters within every cluster's limits (_Cells.spread), which is
what makes the cell's m-fold limits exact."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from model import Batch, Cluster, ClusterTerm, Packing, PlacementRequest, SelectionMode, Tenancy
from solver import SolveOptions, check, solve
from solver.tenancy.flow import arcs_of
from solver.tenancy.joint import _cell_arcs, _cells
from solver.tenancy.problem import Problem


def _request(name: str, order: int, purpose: str, limit: int) -> PlacementRequest:
    return PlacementRequest(
        name,
        "ns",
        mode=SelectionMode.N,
        count=1,
        required=(ClusterTerm(traits=(f"purpose:{purpose}",)),),
        tenancy=Tenancy(
            order=order, limit=limit, packing=Packing.FEWEST, pool=purpose, new_cluster=f"ns/{name}"
        ),
    )


def _batch(loads: list[int], requests: list[tuple[str, int]]) -> Batch:
    clusters = [
        Cluster(f"ns/c{i:02}", traits=frozenset({"purpose:a", "purpose:b"}), load=load)
        for i, load in enumerate(loads)
    ]
    reqs = [_request(f"r{i:02}", i, purpose, limit) for i, (purpose, limit) in enumerate(requests)]
    return Batch(tuple(clusters), tuple(sorted(reqs, key=lambda r: r.key)))


@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=8),
    st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([2, 3, 4])), min_size=1, max_size=30),
    st.data(),
)
def test_a_cells_counts_spread_over_its_clusters_within_their_limits(loads, requests, data) -> None:
    requests = [(purpose, {"a": 3, "b": 4}[purpose]) for purpose, _ in requests]  # one limit a purpose
    b = _batch(loads, requests)
    problem = Problem(b, b.requests)
    classes = list(problem.classes)
    arcs = arcs_of(problem, classes)
    cells = _cells(problem, arcs, alike=True)
    # Counts within each cell's m-fold tiers (drawn smallest limits first), spread within each cluster's.
    counts = {}
    rooms = _cell_arcs(arcs, cells)
    for k, cell in sorted(rooms, key=lambda key: (key[1], classes[key[0]].limit, key[0])):
        room = rooms[(k, cell)]
        m, base = len(cells[cell]), problem.base[cell]
        limit = classes[k].limit
        within = sum(n for (j, c), n in counts.items() if c == cell and classes[j].limit <= limit)
        most = min(room, m * (limit - base) - within, len(classes[k].requests))
        counts[(k, cell)] = data.draw(st.integers(0, max(0, most)))
    spread = cells.spread({key: n for key, n in counts.items() if n}, problem)
    for cell, rows in cells.items():
        for k in {k for k, c in counts if c == cell}:
            assert sum(spread.get((k, row), 0) for row in rows) == counts[(k, cell)]
    for row in cells.first:
        for limit in {cls.limit for cls in classes}:
            held = sum(n for (k, r), n in spread.items() if r == row and classes[k].limit <= limit)
            assert problem.base[row] + held <= limit


def test_alike_clusters_are_one_cell_and_the_answer_is_checked() -> None:
    b = _batch([0, 0, 0, 1, 1, 2], [("a", 3)] * 12 + [("b", 4)] * 9)
    problem = Problem(b, b.requests)
    arcs = arcs_of(problem, list(problem.classes))
    assert sorted(len(rows) for rows in _cells(problem, arcs, alike=True).values()) == [1, 2, 3]
    result = solve(b, SolveOptions(mode="optimal"))
    assert check(b, result) == []
    assert result.stats.objective >= solve(b, SolveOptions(mode="greedy")).stats.objective
