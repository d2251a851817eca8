"""v1 objects are read like v1beta1 ones; objects of other API groups are not Fleet's and are ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.fixtures.fleet import binding, crp, member_cluster, pick_n, run_solve


def _fleet() -> list[dict]:
    return [
        member_cluster("c1", labels={"env": "prod"}),
        member_cluster("c2", labels={"env": "prod"}),
        member_cluster("c3", labels={"env": "dev"}),
        crp("web", pick_n(2)),
        binding("web", "c1", state="Bound"),
    ]


def _as_v1(objects: list[dict]) -> list[dict]:
    return [{**o, "apiVersion": o["apiVersion"].rsplit("/", 1)[0] + "/v1"} for o in objects]


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_v1_input_gives_the_same_decisions_as_v1beta1(tmp_path: Path, mode: str) -> None:
    beta = list(yaml.safe_load_all(run_solve(tmp_path / "beta", _fleet(), mode)))
    v1 = list(yaml.safe_load_all(run_solve(tmp_path / "v1", _as_v1(_fleet()), mode)))
    assert [o["kind"] for o in v1] == [o["kind"] for o in beta]
    picked = sorted(o["spec"]["targetCluster"] for o in v1 if o["kind"] == "ClusterResourceBinding")
    assert picked == ["c1", "c3"]  # c1 kept; the larger name wins the tie
    # The kept binding keeps its own version; new objects are written as v1beta1.
    kept = next(o for o in v1 if o["kind"] == "ClusterResourceBinding" and o["spec"]["targetCluster"] == "c1")
    assert kept["apiVersion"].endswith("/v1")
    # the new snapshot's owner is named as the placement controller's Go type names it: v1beta1
    (made,) = [o for o in v1 if o["kind"] == "ClusterSchedulingPolicySnapshot"]
    assert made["metadata"]["ownerReferences"][0]["apiVersion"] == "placement.kubernetes-fleet.io/v1beta1"
    for a, b in zip(v1, beta, strict=True):
        assert a["spec"] == b["spec"]


def test_objects_of_another_group_are_ignored(tmp_path: Path) -> None:
    foreign = {**member_cluster("c9"), "apiVersion": "example.com/v1"}
    out = list(yaml.safe_load_all(run_solve(tmp_path, [*_fleet(), foreign], "greedy")))
    picked = sorted(o["spec"]["targetCluster"] for o in out if o["kind"] == "ClusterResourceBinding")
    assert "c9" not in picked and len(picked) == 2
