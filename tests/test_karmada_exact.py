"""Greedy's corners of upstream (karmada-io/karmada v1.19) that the first round left: each case a
whole hub through `placement-solver solve --mode greedy`, citing the upstream code path.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.karmada import DUPLICATED, binding, cluster, divided, solve, written

KEY = "ResourceBinding/default/rb"


def _run(tmp_path, objects) -> dict[str, Any]:
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    return written(result.stdout)[KEY]


def _placed(obj: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c.get("replicas") for c in obj["spec"].get("clusters") or []}


def _condition(obj: dict[str, Any]) -> tuple[str, str]:
    (scheduled,) = [c for c in obj["status"]["conditions"] if c["type"] == "Scheduled"]
    return scheduled["reason"], scheduled["message"]


# ------------------------- a non-workload under a Divided placement (spreadconstraint package)


@pytest.mark.parametrize(
    ("scheduling", "message"),
    [
        # needReplicas -1 (shouldIgnoreAvailableResource): Clusters[:0], then AssignReplicas
        (DUPLICATED, "failed to assign replicas: no clusters available to schedule"),
        # needReplicas = spec.replicas (0): selectClustersByAvailableResource returns the empty
        # slice, which selectBestClustersByCluster reports
        (divided("Aggregated"), "failed to select clusters: no enough resource when selecting 0 clusters"),
    ],
)
def test_non_workload_with_cluster_max_groups_zero(tmp_path, scheduling, message):
    placement = {
        "replicaScheduling": scheduling,
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1}],
    }
    rb = binding(placement=placement, replicas=0)
    got = _run(tmp_path, [cluster("a"), cluster("b"), rb])
    assert _condition(got) == ("SchedulerError", message)


@pytest.mark.parametrize(("scheduling", "want"), [(DUPLICATED, "a1"), (divided("Aggregated"), "b1")])
def test_non_workload_region_group_score_follows_the_placement(tmp_path, scheduling, want):
    # calcGroupScore: Duplicated scores a region 1000 per cluster with room for spec.replicas (0:
    # every one) plus their mean locality score: r1 (3 clusters) 3000 beats r2 (b1, held) 1100.
    # Divided aims at ceil(0 / minGroups) = 0 replicas: the first cluster covers it, so a region
    # scores its first cluster's locality score: r2 100 beats r1 0.
    placement = {
        "replicaScheduling": scheduling,
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
        ],
    }
    clusters = [cluster(name, region="r1") for name in ("a1", "a2", "a3")] + [cluster("b1", region="r2")]
    rb = binding(placement=placement, replicas=0, clusters=["b1"])
    assert _placed(_run(tmp_path, [*clusters, rb])) == {want: None}
