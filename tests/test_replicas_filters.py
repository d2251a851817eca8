"""Which clusters a request with replicas may use, and why the others are left out: upstream's
filter plugins in one fixed order (solver.replicas.order.FILTERS), their exemptions for clusters
the request already holds, the locality score and the canonical order."""

from __future__ import annotations

from model import ClusterTerm, Division, Failure, FilterKind, GroupSpread, LabelSelector, Taint, Toleration
from model.selectors import TolerationOperator
from tests.fixtures.replicas import answer, cluster, request, room, solve_batch, split

TAINT = Taint("k", "v", "NoSchedule")
APPS = "apps/v1/Deployment"  # a trait the adapter spells for an API a cluster serves


def reasons(got) -> list[tuple[str, str, str]]:
    return [(u.cluster, u.kind.value, u.detail) for u in got.unselected]


def test_no_fit_reports_every_cluster_with_its_first_failing_filter():
    """Upstream's FitError counts each cluster's reason: the clusters come with the first filter
    of the fixed order they fail (a cluster failing several is reported once)."""
    clusters = [
        room("a", 5, leaving=True),
        room("b", 5),  # lacks the API, tainted, and outside the term
        room("c", 5, traits=[APPS], taints=[TAINT]),
        room("d", 5, traits=[APPS]),
        room("e", 5, traits=[APPS], labels={"env": "prod"}),
        room("f", 5, traits=[APPS], labels={"env": "prod"}, region="r1"),
    ]
    prod = ClusterTerm(labels=LabelSelector((("env", "prod"),)))
    r = request(
        "w",
        3,
        needs=APPS,
        required=[prod],
        groups=[GroupSpread("region", 1, 1, selects=False)],
        evicted=["f"],
    )
    got = answer(solve_batch(clusters, r, explain_limit=1))
    assert got.failure is Failure.NO_FIT and got.selected == () and not got.satisfied
    assert reasons(got) == [
        ("a", "ineligible", "leaving"),
        ("b", "missing", APPS),
        ("c", "taint", ""),
        ("d", "affinity", ""),
        ("e", "spread", "region"),
        ("f", "evicted", ""),
    ]  # every cluster, past the explain limit
    assert got.unselected[2].taint.key == "k"


def test_held_clusters_are_exempt_from_the_api_and_taint_filters():
    """APIEnablement and TaintToleration let a cluster the request holds pass; ClusterAffinity and
    eviction do not."""
    clusters = [room("a", 5, taints=[TAINT]), room("b", 5, traits=[APPS])]
    got = answer(solve_batch(clusters, request("w", 4, needs=APPS, current=[("a", 2)])))
    assert dict(split(got)) == {"a": 3, "b": 1}  # 2 held, and the 2 more split evenly by room
    got = answer(solve_batch(clusters, request("w", 4, needs=APPS, current=[("a", 2)], evicted=["a"])))
    assert split(got) == [("b", 4)] and got.released == ("a",)


def test_tolerated_taints_pass():
    toleration = Toleration("k", TolerationOperator.EXISTS, effect="NoSchedule")
    got = answer(solve_batch([room("a", 5, taints=[TAINT])], request("w", 2, tolerations=[toleration])))
    assert split(got) == [("a", 2)]


def test_locality_ranks_held_clusters_first():
    """ClusterLocality scores 100 where the request holds the cluster, which the canonical order
    ranks before room: an Aggregated request growing from nothing held picks the roomiest, one
    holding a cluster keeps filling it."""
    clusters = [room("a", 4), room("b", 10)]
    assert split(answer(solve_batch(clusters, request("w", 4, Division.AGGREGATED)))) == [("b", 4)]
    got = answer(solve_batch(clusters, request("w", 6, Division.AGGREGATED, current=[("a", 2)])))
    assert split(got) == [("a", 6)]


def test_cluster_spread_picks_in_canonical_order():
    """Overflow order, then score, then available replicas (room plus held), then name."""
    clusters = [room("a", 5), room("b", 5), room("c", 9), room("d", 1)]
    spread = [GroupSpread("", 1, 2)]
    got = answer(solve_batch(clusters, request("w", 2, Division.DUPLICATED, groups=spread)))
    assert split(got) == [("c", 2), ("a", 2)]
    got = answer(
        solve_batch(clusters, request("w", 2, Division.DUPLICATED, groups=spread, current=[("d", 2)]))
    )
    assert split(got) == [("d", 2), ("c", 2)]


def test_every_gets_every_selected_cluster_without_a_number():
    """A request with no replicas to count goes to every cluster that passes, with no number and
    whatever their room (upstream's non-workloads)."""
    clusters = [room("a", 0), room("b", 3, taints=[TAINT]), cluster("c", reports=False)]
    got = answer(solve_batch(clusters, request("w", 0, Division.EVERY, demand={}, unlimited=True)))
    assert split(got) == [("a", None), ("c", None)]
    assert reasons(got) == [("b", "taint", "")]


def test_selection_failure_leaves_the_assignment_as_it_was():
    """A spread that cannot be met is upstream's scheduler error: its message, and spec.clusters
    unchanged (the current assignment, kept)."""
    clusters = [room("a", 5), room("b", 5)]
    got = answer(solve_batch(clusters, request("w", 4, groups=[GroupSpread("", 3, 3)], current=[("a", 4)])))
    assert got.failure is Failure.SELECTION and not got.satisfied
    assert got.failure_detail == (
        "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups"
    )
    assert split(got) == [("a", 4)] and got.selected[0].kept and got.released == ()


def test_answer_explains_the_others_within_the_limit():
    clusters = [room("a", 5, taints=[TAINT]), room("b", 5), room("c", 5), room("d", 5)]
    got = answer(solve_batch(clusters, request("w", 5, Division.AGGREGATED), explain_limit=2))
    assert split(got) == [("b", 5)]
    assert [(u.cluster, u.kind) for u in got.unselected] == [
        ("a", FilterKind.TAINT),
        ("c", FilterKind.NOT_PICKED),
    ]


def test_kept_and_released():
    got = answer(solve_batch([room("a", 5), room("b", 5)], request("w", 6, current=[("a", 3), ("c", 1)])))
    assert split(got) == [("a", 5), ("b", 1)]  # 3 more split 2:1 by room, the smaller name first
    assert got.released == ("c",)
    assert not any(c.kept for c in got.selected if c.cluster == "b")
