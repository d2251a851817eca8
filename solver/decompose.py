"""Split a batch into independent parts.

Two requests are coupled when an answer to one can change what is best or allowed for the other.
In this model that happens only through shared finite resources of a cluster; requests that share
none are solved apart, each in its own small model, and the parts' optima add up to the batch's.
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.prepare import Prepared

__all__ = ["components"]


def components(prepared: Sequence[Prepared], shared: dict[int, set[int]] | None = None) -> list[list[int]]:
    """Groups of request indices that must be solved together, each sorted, in a stable order.

    `shared` maps a request index to the cluster rows whose limited resources it would draw on.
    """
    if not shared:  # nothing shared: every request is its own part (and networkx need not load)
        return [[i] for i in range(len(prepared))]
    import networkx as nx  # on first use: its import costs a tenth of a second of every command

    graph = nx.Graph()
    graph.add_nodes_from(range(len(prepared)))
    for i, rows in (shared or {}).items():
        graph.add_edges_from((i, ("cluster", row)) for row in rows)
    groups = [sorted(n for n in part if isinstance(n, int)) for part in nx.connected_components(graph)]
    return sorted((g for g in groups if g), key=lambda g: g[0])
