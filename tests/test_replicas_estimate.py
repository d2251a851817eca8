"""The general estimator, transcribed from upstream's own tests (karmada-io/karmada
pkg/estimator/client/general_test.go); quantities in the estimator's units (cpu in millicores,
memory in bytes, pods)."""

from __future__ import annotations

import numpy as np
import pytest

from model import Capacity, Division, NodeClass, Replicas
from model.types import INT32_MAX
from solver.replicas.estimate import Estimator, available_replicas, node_bound
from tests.fixtures.replicas import cluster

GI = 2**30
CPU_GRADES = [
    NodeClass(1, {"cpu": 0, "pods": 110}),
    NodeClass(1, {"cpu": 1000, "pods": 110}),
    NodeClass(1, {"cpu": 2000, "pods": 110}),
]
CPU_MEMORY_GRADES = [
    NodeClass(1, {"cpu": 0, "memory": 0, "pods": 110}),
    NodeClass(1, {"cpu": 1000, "memory": GI, "pods": 110}),
    NodeClass(1, {"cpu": 2000, "memory": 2 * GI, "pods": 110}),
]


@pytest.mark.parametrize(
    ("grades", "demand", "expected"),
    [
        (CPU_GRADES, {"cpu": 1500}, 1),
        (CPU_GRADES, {"cpu": 3000}, 0),
        (CPU_MEMORY_GRADES, {"cpu": 1000, "memory": 3 * GI // 2}, 1),
        (CPU_MEMORY_GRADES, {"cpu": 1000, "memory": 5 * GI // 2}, 0),
    ],
    ids=[
        "Partially compliant grades",
        "No compliant grades",
        "Multi resource request",
        "request exceeds highest grade",
    ],
)
def test_maximum_replicas_based_on_resource_models(grades, demand, expected):
    """TestGetMaximumReplicasBasedOnResourceModels (each replica also takes one of a node's 110 pods)."""
    key = tuple(sorted({**demand, "pods": 1}.items()))
    assert node_bound(Capacity({}, tuple(grades)), key) == expected


def estimate(c, demand) -> int:
    return int(Estimator([c]).of(demand)[0])


POD = {"pods": 1}
REQUEST = {"cpu": 500, "memory": GI, "pods": 1}


@pytest.mark.parametrize(
    ("made", "demand", "expected"),
    [
        (cluster("c", reports=False), POD, 0),
        (cluster("c", {"pods": 0}), POD, 0),
        (cluster("c", {"pods": 10}), POD, 10),
        (cluster("c", {"pods": 80, "cpu": 3000, "memory": 6 * GI}), REQUEST, 6),
    ],
    ids=["nil resource summary", "no allowed pods", "nil replica requirements", "basic resource estimation"],
)
def test_max_available_replicas_general(made, demand, expected):
    """TestMaxAvailableReplicasGeneral (free = allocatable - allocated - allocating)."""
    assert estimate(made, demand) == expected


def test_max_available_replicas_with_resource_models():
    """TestMaxAvailableReplicasGeneralWithResourceModels, without assumed workloads: three nodes of
    1 cpu hold two replicas of 500m each; beside the nodes only the pod count bounds."""
    nodes = [NodeClass(0, {"cpu": 0, "pods": 110}), NodeClass(3, {"cpu": 1000, "pods": 110})]
    made = cluster("c", {"pods": 100, "cpu": 3000}, nodes=nodes, free_with_nodes=frozenset({"pods"}))
    assert estimate(made, {"cpu": 500, "pods": 1}) == 6


def test_free_amounts_beside_nodes():
    """Where the nodes leave the free amounts in force (free_with_nodes None), both bound; where
    only the pods are, a free cpu amount lower than the nodes' does not."""
    nodes = [NodeClass(3, {"cpu": 1000, "pods": 110})]
    assert estimate(cluster("c", {"pods": 100, "cpu": 1000}, nodes=nodes), {"cpu": 500, "pods": 1}) == 2
    only_pods = cluster("c", {"pods": 100, "cpu": 1000}, nodes=nodes, free_with_nodes=frozenset({"pods"}))
    assert estimate(only_pods, {"cpu": 500, "pods": 1}) == 6
    assert (
        estimate(
            cluster("c", {"pods": 4, "cpu": 9000}, nodes=nodes, free_with_nodes=frozenset({"pods"})),
            {"cpu": 500, "pods": 1},
        )
        == 4
    )


@pytest.mark.parametrize(
    ("free", "expected"),
    [({"pods": 50}, 50), ({"cpu": 5}, 0), ({"pods": -10}, 0)],
    ids=["normal case", "no allocatable pods", "over allocation"],
)
def test_allowed_pod_number(free, expected):
    """TestGetAllowedPodNumber (100 - 40 - 10; none; 100 - 90 - 20)."""
    assert estimate(cluster("c", free), POD) == expected


@pytest.mark.parametrize(
    ("free", "expected"),
    [({"cpu": 3000, "memory": 6 * GI}, 6), ({"cpu": 3000, "memory": GI // 2}, 0)],
    ids=["sufficient resources", "insufficient memory"],
)
def test_maximum_replicas_based_on_cluster_summary(free, expected):
    """TestGetMaximumReplicasBasedOnClusterSummary."""
    assert estimate(cluster("c", free), {"cpu": 500, "memory": GI}) == expected


def test_a_resource_no_cluster_reports_leaves_no_room():
    assert estimate(cluster("c", {"pods": 10}), {"pods": 1, "nvidia.com/gpu": 1}) == 0


def test_nothing_bounds_the_count_when_nothing_is_asked():
    """Upstream starts every estimate at MaxInt32 and replaces what no estimator lowered with the
    count; a request with nothing to fit (unlimited: a non-workload) keeps MaxInt32 everywhere,
    returned before that replacement."""
    clusters = [cluster("a", {"pods": 3}), cluster("b", reports=False)]
    estimator = Estimator(clusters)
    assert estimator.of({}).tolist() == [INT32_MAX, 0]
    assert available_replicas(estimator, Replicas(7, demand={})).tolist() == [7, 0]
    unlimited = Replicas(0, Division.EVERY, unlimited=True)
    assert available_replicas(estimator, unlimited).tolist() == [INT32_MAX, INT32_MAX]


def test_vectorised_matches_one_at_a_time():
    rng = np.random.default_rng(7)
    clusters = [
        cluster(
            f"c{i}",
            {
                "cpu": int(rng.integers(-500, 8000)),
                "memory": int(rng.integers(0, 16)) * GI,
                "pods": int(rng.integers(-3, 40)),
            },
        )
        for i in range(60)
    ]
    together = Estimator(clusters).of(REQUEST).tolist()
    assert together == [estimate(c, REQUEST) for c in clusters]
    assert together == [
        0
        if min(c.capacity.free[r] for r in REQUEST) <= 0
        else min(c.capacity.free[r] // a for r, a in REQUEST.items())
        for c in clusters
    ]
