"""The hand-out of a pool's new clusters (solver.tenancy.hand_out._NewClusters) against the rule it
keeps, written plainly: each request, smallest limits first, joins the new cluster holding the
fewest requests (the earliest opened on a tie) whose requests, with it, can be admitted one at a
time in the earliest-deadline order. The clusters are kept by kind so that a request looks at
every kind once instead of at every cluster (the 10,000 x 50,000 openMCP hub's hand-out took 7 s
of CPU cluster by cluster)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from solver.tenancy.hand_out import _NewClusters

LIMITS = st.sampled_from([0, 1, 2, 3, 5, 10])


def _plain(openers: list[int], joiners: list[int]) -> list[str | None]:
    """Every cluster looked at for every request: the rule as first written."""
    clusters = [(f"new-{i}", [limit]) for i, limit in enumerate(openers)]
    out: list[str | None] = []
    for limit in joiners:
        fitting = [(len(held), i) for i, (_, held) in enumerate(clusters) if _admits(held, limit)]
        if not fitting:
            out.append(None)
            continue
        _, i = min(fitting)
        clusters[i][1].append(limit)
        out.append(clusters[i][0])
    return out


def _admits(held: list[int], limit: int) -> bool:
    ordered = sorted([*held, limit], key=lambda v: v or 1 << 62)
    return all(v == 0 or at + 1 <= v for at, v in enumerate(ordered))


@given(st.lists(LIMITS, min_size=1, max_size=8), st.lists(LIMITS, max_size=40))
def test_new_clusters_are_joined_as_the_plain_rule_joins_them(openers, joiners) -> None:
    joiners = sorted(joiners, key=lambda v: v or 1 << 62)  # the hand-out's order
    clusters = _NewClusters()
    for i, limit in enumerate(openers):
        clusters.open(f"new-{i}", limit)
    got = []
    for limit in joiners:
        got.append(clusters.join(limit))
        if got[-1] is None:
            break
    assert got == _plain(openers, joiners)[: len(got)]


def test_a_full_cluster_admits_no_request_of_its_limit_but_one_without() -> None:
    clusters = _NewClusters()
    clusters.open("a", 2)
    assert clusters.join(2) == "a"
    assert clusters.join(2) is None
    assert clusters.join(0) == "a"
