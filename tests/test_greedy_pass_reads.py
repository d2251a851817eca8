"""What a greedy answer of a Balance-scored request reads (the OCM scheduler's greedy pass, one
request at a time on scores of its own): the obsolete decisions among the rows it holds, not the
fleet's."""

from __future__ import annotations

import numpy as np

from solver.greedy import solve_greedy
from solver.stickiness import released_obsolete
from tests.fixtures.builders import batch, cluster, held, pick_n, prepared


def test_a_top_n_releases_its_obsolete_decisions_as_released_obsolete_does() -> None:
    """Held: two current decisions (kept) and three obsolete ones, one of them on a cluster that
    left the table, one picked again: the answer releases the others as released_obsolete reads
    them over the fleet. Fails where `_marked` takes every held row (`return held.tolist()`)."""
    clusters = [cluster(f"c{i}") for i in range(8)]
    existing = [held("c1"), held("c2"), held("c3", current=False), held("c5", current=False)]
    existing.append(held("gone", current=False))
    b = batch(clusters, pick_n(4, existing=existing, prefer_held=True))
    table, (p,) = prepared(b)
    p = p.scored_as(np.arange(8, dtype=np.int64) % 3)  # its own scores, as Balance's
    answer = solve_greedy(p, table, 0)
    assert answer.released == released_obsolete(p, table, answer.picks)
    assert table.index["c3"] in answer.picks or table.index["c5"] in answer.picks
    assert len(answer.released) == 2  # one obsolete decision not picked again, and the gone one
