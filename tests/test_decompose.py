"""solver.decompose: the independent parts of what a coupling decides, from what each unit draws on."""

from __future__ import annotations

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from solver.decompose import components

draws = st.lists(st.lists(st.integers(0, 12), max_size=4), max_size=30)


@given(draws)
def test_parts_are_the_connected_components_of_units_and_resources(shared) -> None:
    graph = nx.Graph()
    graph.add_nodes_from(range(len(shared)))
    for unit, keys in enumerate(shared):
        graph.add_edges_from((unit, ("resource", key)) for key in keys)
    expected = sorted(
        (sorted(n for n in part if isinstance(n, int)) for part in nx.connected_components(graph)),
        key=lambda part: part[0] if part else -1,
    )
    assert components(shared) == [part for part in expected if part]


def test_a_unit_drawing_on_nothing_is_a_part_of_its_own() -> None:
    assert components([(), ("a",), (), ("a",)]) == [[0], [1, 3], [2]]
