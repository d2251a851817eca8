"""`-o table` for Karmada: the replicas each cluster runs (no score columns, which mean nothing
there), each failed binding's failure in upstream's word, and, beside greedy, what optimal gained
in capacity: the clusters greedy over-commits and the replicas that cannot run there."""

from __future__ import annotations

from click.testing import CliRunner

from adapters.cli.main import main
from tests.fixtures.common import NOW
from tests.fixtures.karmada import binding, cluster, divided, solve_cli
from tests.fixtures.openmcp import write_yaml

FREE = {"cpu": "4", "memory": "16Gi", "pods": "110"}
AGGREGATED = {"replicaScheduling": divided("Aggregated")}
DYNAMIC = {"replicaScheduling": divided(dynamic="AvailableReplicas")}


def _table(tmp_path, objects, mode: str = "optimal") -> list[str]:
    result = solve_cli(tmp_path, objects, "--mode", mode, "-o", "table")
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def _rows(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines[: lines.index("")]]


def _demo(*args: str) -> list[str]:
    result = CliRunner().invoke(main, ["demo", "--system", "karmada", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_the_table_shows_replicas_per_cluster_and_no_scores() -> None:
    """It showed SCORE and SPREAD (upstream's locality score, meaningless here) and no replicas."""
    rows = _rows(_demo())
    assert rows[0] == ["PLACEMENT", "CLUSTER", "DECISION", "REPLICAS"]
    assert ["media/frontend-deployment", "media-2", "new", "6"] in rows
    assert ["platform/api-deployment", "us-big", "kept", "6"] in rows
    # A binding divided over every cluster (a non-workload) runs no replicas.
    assert ["shop-namespace", "eu-a", "new", "-"] in rows


def test_failed_bindings_name_upstreams_failure(tmp_path) -> None:
    spread = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3}], **DYNAMIC}
    objects = [
        cluster("m1", allocatable=FREE),
        cluster("m2", allocatable=FREE, taints=[{"key": "k", "effect": "NoSchedule"}]),
        binding("short", placement=DYNAMIC, replicas=9, requests={"cpu": "1"}, clusters=[("m1", 1)]),
        binding("nofit", placement={"clusterAffinity": {"clusterNames": ["m2"]}, **DYNAMIC}, replicas=1),
        binding("spread", placement=spread, replicas=2, requests={"cpu": "1"}),
    ]
    for mode in ("greedy", "optimal"):
        lines = _table(tmp_path, objects, mode)
        rows = _rows(lines)
        assert ["default/short", "m1", "kept", "1"] in rows  # upstream leaves the assignment as it was
        assert ["default/short", "-", "Unschedulable", "-"] in rows
        assert ["default/nofit", "-", "NoClusterFit", "-"] in rows
        assert ["default/spread", "-", "SchedulerError", "-"] in rows
        assert "3 placements, 2 clusters" in lines[len(rows) + 1]
        assert "  default/short: Scheduled False, Unschedulable: failed to assign replicas" in "\n".join(lines)


def test_beside_another_system_the_scores_are_dashes_and_replicas_a_column(tmp_path) -> None:
    from tests.fixtures import fleet as fl

    objects = [
        fl.member_cluster("m1"),
        fl.crp("web", policy={"placementType": "PickAll"}),
        cluster("k1", allocatable=FREE),
        binding("rb", placement=DYNAMIC, replicas=2, requests={"cpu": "1"}),
    ]
    path = write_yaml(tmp_path / "hub.yaml", objects)
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW, "-o", "table", "--mode", "greedy"])
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout.splitlines())
    assert rows[0] == ["SYSTEM", "PLACEMENT", "CLUSTER", "DECISION", "SCORE", "SPREAD", "REPLICAS"]
    assert rows[1][:4] == ["fleet", "web", "m1", "new"] and rows[1][-1] == "-"
    assert rows[2] == ["karmada", "default/rb", "k1", "new", "-", "-", "2"]
