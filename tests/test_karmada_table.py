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


FLEET_ROWS = (
    "PLACEMENT     CLUSTER             DECISION  AFFINITY  SPREAD\n"
    "batch-jobs    eks-useast1-prod-1  new       40        0\n"
    "batch-jobs    aks-westeu-prod-1   new       18        0\n"
    "checkout      eks-useast1-prod-1  new       40        1\n"
    "checkout      gke-europe-prod-1   new       29        1\n"
    "checkout      aks-eastus-prod-1   new       34        -1\n"
    "checkout      aks-westus-prod-1   new       32        -1\n"
    "ml-training   aks-westeu-prod-1   new       0         1\n"
    "ml-training   aks-eastus-prod-1   new       0         1\n"
    "monitoring    aks-eastus-prod-1   new       0         0\n"
    "monitoring    aks-eastus-prod-2   new       0         0\n"
    "monitoring    aks-westeu-prod-1   new       0         0\n"
    "monitoring    aks-westus-prod-1   new       0         0\n"
    "monitoring    eks-useast1-prod-1  new       0         0\n"
    "monitoring    gke-europe-prod-1   new       0         0\n"
    "payments      aks-eastus-prod-1   new       -         -\n"
    "web-frontend  aks-eastus-prod-1   kept      0         -1\n"
    "web-frontend  gke-europe-prod-1   new       0         0\n"
    "web-frontend  eks-useast1-prod-1  new       0         0\n"
    "web-frontend  gke-europe-old-1    released  -         -\n"
)


def test_other_systems_tables_are_as_they_were() -> None:
    """The Fleet demo's rows byte for byte (the README shows only its table's end), and no
    REPLICAS column where no system divides replicas."""
    fleet = CliRunner().invoke(main, ["demo", "--system", "fleet"]).stdout
    assert fleet.startswith(FLEET_ROWS + "\n6 placements, 12 clusters;")
    for name in ("ocm", "openmcp", "kcp"):
        head = CliRunner().invoke(main, ["demo", "--system", name]).stdout.splitlines()[0]
        assert head.split() == ["SYSTEM", "PLACEMENT", "CLUSTER", "DECISION", "SCORE", "SPREAD"], name


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
        assert "  default/short: Scheduled False, Unschedulable: failed to assign replicas" in "\n".join(
            lines
        )


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


# ------------------------------------------------------------------------------ what optimal gained


def test_the_demo_tells_the_clusters_greedy_over_commits() -> None:
    """Every binding optimal moved was said to be "as good on every level; the tie goes the upstream
    way", when greedy over-commits small-1, eu-b and media-1 and optimal keeps every cluster within
    its free capacity (karmada#6518, #6783, #1385)."""
    text = "\n".join(_demo())
    assert (
        "greedy over-commits 3 clusters; 17 replicas cannot run; optimal: none\n"
        "  eu-b: cpu 15 asked, 10 free; 5 replicas cannot run\n"
        "  media-1: cpu 11 asked, 8 free; 3 replicas cannot run\n"
        "  small-1: cpu 2 asked, 1100m free, memory 1280Mi asked, 1Gi free; 9 replicas cannot run\n"
        "\n"
        "Where optimal chose differently from greedy (15 placements):\n"
    ) in text
    assert (
        "  media/frontend-deployment: greedy [media-1: 6] -> optimal [media-2: 6]\n"
        "    3 of its 6 replicas cannot run on greedy's media-1 (over-committed in cpu)\n"
        "    optimal: every replica fits its clusters' free capacity\n"
    ) in text
    assert (
        "  shop/shop-app-11-deployment: greedy [eu-b: 1] -> optimal [eu-c: 1]\n"
        "    its replica cannot run on greedy's eu-b (over-committed in cpu)\n"
    ) in text
    assert "as good on every level" not in text
    assert "greedy over-commits" not in "\n".join(_demo("--mode", "greedy"))


def test_a_binding_optimal_leaves_unscheduled_is_said_so(tmp_path) -> None:
    """Greedy puts both bindings on m1 (6 cpu asked, 4 free); optimal schedules the one queued first
    (the higher priority) whole and leaves the other Unschedulable, as upstream would say."""
    only_m1 = {"clusterAffinity": {"clusterNames": ["m1"]}, **AGGREGATED}
    objects = [
        cluster("m1", allocatable=FREE),
        binding("a", placement=only_m1, replicas=3, requests={"cpu": "1"}),
        binding("b", placement=only_m1, replicas=3, requests={"cpu": "1"}, priority=5),
    ]
    lines = _table(tmp_path, objects)
    start = lines.index(
        "greedy over-commits 1 cluster; 2 replicas cannot run; optimal: none; "
        "1 placement unscheduled (greedy 0)"
    )
    assert lines[start + 1 :] == [
        "  m1: cpu 6 asked, 4 free; 2 replicas cannot run",
        "",
        "Where optimal chose differently from greedy (1 placement):",
        "  default/a: greedy [m1: 3] -> optimal []",
        "    2 of its 3 replicas cannot run on greedy's m1 (over-committed in cpu)",
        "    optimal leaves it Unschedulable: the others' replicas take the room it needs",
    ]
    assert ["default/a", "-", "Unschedulable", "-"] in _rows(lines)


def test_a_batch_where_neither_mode_over_commits_says_so(tmp_path) -> None:
    objects = [
        cluster("m1", allocatable=FREE),
        binding("a", placement=DYNAMIC, replicas=2, requests={"cpu": "1"}),
    ]
    lines = _table(tmp_path, objects)
    assert lines[-3:] == [
        "greedy over-commits no cluster; optimal: none",
        "",
        "Optimal chose as greedy did for every placement.",
    ]


def test_greedy_unschedulable_and_moved_replicas_are_told() -> None:
    """From the two results and the batch alone (adapters.cli.difference knows model.Replicas)."""
    from adapters.cli.difference import differences
    from adapters.run.pipeline import Outcome, SystemOutcome
    from model import Choice, Failure, RequestResult, Result, SolveStats
    from tests.fixtures.karmada import load

    rb = binding(
        "rb", placement=DYNAMIC, replicas=2, requests={"cpu": "1"}, clusters=[("m1", 2)], generation=2
    )
    batch, _ = load([cluster("m1", allocatable=FREE), cluster("m2", allocatable=FREE), rb])
    short = RequestResult(
        "default/rb", (Choice("m1", kept=True, replicas=2),), satisfied=False, failure=Failure.SHORT
    )
    moved = RequestResult("default/rb", (Choice("m2", replicas=2),), released=("m1",))

    def outcome(got: RequestResult, mode: str) -> Outcome:
        return Outcome(
            [], [], (SystemOutcome("karmada", batch, Result((got,), SolveStats(mode, "OPTIMAL"))),), {}
        )

    (found,) = differences(outcome(moved, "optimal"), outcome(short, "greedy"))
    assert (found.greedy, found.optimal) == (("m1: 2",), ("m2: 2",))
    assert found.gains == (
        "greedy leaves it Unschedulable; optimal schedules it",
        "optimal: every replica fits its clusters' free capacity",
        "moves 2 replicas off clusters it runs on (greedy 0)",
    )


def test_a_capacity_blind_division_over_commits_in_both_modes(tmp_path) -> None:
    """Duplicated is placed as the user asked, whatever the capacity: optimal is not said to be free
    of over-commit where it is not."""
    duplicated = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
    objects = [
        cluster("m1", allocatable=FREE),
        binding("a", placement=duplicated, replicas=6, requests={"cpu": "1"}),
    ]
    lines = _table(tmp_path, objects)
    assert lines[-4:-1] == [
        "greedy over-commits 1 cluster; 2 replicas cannot run; optimal: 1 cluster, 2 replicas "
        "(divisions that never read capacity: static weights, duplicated)",
        "  m1: cpu 6 asked, 4 free; 2 replicas cannot run",
        "",
    ]
