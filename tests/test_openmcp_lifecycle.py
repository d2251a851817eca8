"""openMCP over several runs and over a whole batch: solve, apply what is written (as the API
server would), change the hub, solve again; the batches where the joint answer beats upstream's
queue; the same bytes every time; the library, the demo and the generator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.openmcp.naming import generated_name
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.openmcp import (
    DELETE_LABEL,
    MODES,
    NOW,
    NOW_TIME,
    RANDOMIZE,
    REQUEST_FINALIZER,
    TEST_01,
    Written,
    at,
    cluster,
    config,
    fin,
    purpose,
    request,
    solve_cli,
    stale,
    write_yaml,
)
from tests.fixtures.pipeline import applied
from tests.fixtures.pipeline import written as written_bytes

CONFIG = config(p=purpose(count=2, namespace="pool"), mcp=purpose("Exclusive", namespace="mcp"))


def step(tmp_path, hub, cfg, mode) -> tuple[Written, list[dict]]:
    written = Written.solve(tmp_path, hub, cfg, mode)
    return written, applied(hub, written.apply, written.delete)


def deleting(hub: list[dict], key: str) -> list[dict]:
    """The hub with the request `namespace/name` marked for deletion (kubectl delete)."""
    namespace, name = key.split("/")
    out = []
    for obj in hub:
        m = obj["metadata"]
        if obj["kind"] == "ClusterRequest" and (m["namespace"], m["name"]) == (namespace, name):
            obj = {**obj, "metadata": {**m, "deletionTimestamp": NOW}}
        out.append(obj)
    return out


def kinds(hub: list[dict]) -> list[str]:
    return sorted(f"{o['kind']}/{o['metadata']['namespace']}/{o['metadata']['name']}" for o in hub)


# ---------------------------------------------------------------------------------------- lifecycle


@pytest.mark.parametrize("mode", MODES)
def test_solve_apply_delete_solve(tmp_path, mode) -> None:
    shared = "pool/" + generated_name("p-", "foo", "a")
    exclusive = "mcp/" + generated_name("mcp-", "foo", "c")
    hub = [
        request("foo", "a", "p", at_minute=0),
        request("foo", "b", "p", at_minute=1),
        request("foo", "c", "mcp", at_minute=2),
    ]

    written, hub = step(tmp_path, hub, CONFIG, mode)
    assert written.assignments() == {"foo/a": shared, "foo/b": shared, "foo/c": exclusive}
    # A second run over the applied output changes nothing.
    again = Written.solve(tmp_path, hub, CONFIG, mode)
    assert again.plan["summary"]["changed"] == 0 and again.delete == []
    assert again.plan["summary"]["unchanged"] == 5

    # The exclusive request goes: its cluster, labelled "true" and left empty, goes with it.
    written, hub = step(tmp_path, deleting(hub, "foo/c"), CONFIG, mode)
    assert written.deleted() == [exclusive]
    assert written.requests()["foo/c"]["metadata"]["finalizers"] == []
    assert kinds(hub) == sorted([f"Cluster/{shared}", "ClusterRequest/foo/a", "ClusterRequest/foo/b"])

    # One of the two sharing requests goes: the cluster stays for the other.
    written, hub = step(tmp_path, deleting(hub, "foo/a"), CONFIG, mode)
    assert written.deleted() == [] and written.finalizers(shared) == [fin("foo", "b")]
    # A new request takes the freed slot rather than a new cluster.
    hub.append(request("foo", "d", "p", at_minute=30))
    written, hub = step(tmp_path, hub, CONFIG, mode)
    assert written.granted("foo/d") == shared and written.new_clusters(hub) == []

    # Both go: the cluster is deleted.
    written, hub = step(tmp_path, deleting(deleting(hub, "foo/b"), "foo/d"), CONFIG, mode)
    assert written.deleted() == [shared]
    assert hub == []


@pytest.mark.parametrize("mode", MODES)
def test_a_cluster_kept_without_requests_is_reused(tmp_path, mode) -> None:
    cfg = config(p=purpose(count=2, namespace="pool", labels={DELETE_LABEL: "false"}))
    written, hub = step(tmp_path, [request("foo", "a", "p")], cfg, mode)
    (made,) = written.new_clusters([])
    written, hub = step(tmp_path, deleting(hub, "foo/a"), cfg, mode)
    assert written.deleted() == [] and written.finalizers(made) == []
    written, hub = step(tmp_path, [*hub, request("bar", "z", "p")], cfg, mode)
    assert written.granted("bar/z") == made


@pytest.mark.parametrize("mode", MODES)
def test_a_lost_cluster_comes_back_and_settles(tmp_path, mode) -> None:
    written, hub = step(tmp_path, [request("foo", "shared", "shared-twice")], TEST_01, mode)
    name = "shared-twice/shared-twice-urf5rng2"
    assert written.granted("foo/shared") == name
    hub = [o for o in hub if o["kind"] != "Cluster"]  # someone deleted it by hand
    written, hub = step(tmp_path, hub, TEST_01, mode)
    assert written.new_clusters([]) == [name] and written.finalizers(name) == [fin("foo", "shared")]
    assert Written.solve(tmp_path, hub, TEST_01, mode).plan["summary"]["changed"] == 0


# ------------------------------------------------------------------------------ joint against queue


def _overlap_hub() -> list[dict]:
    """shared-1 serves platform and workload (two slots); workload-1 has one slot left."""
    return [
        cluster("platform", "shared-1", "platform", "workload"),
        cluster("workload", "workload-1", "workload", finalizers=[stale("1")]),
        request("team-b", "web", "workload", at_minute=0),
        request("team-b", "ops", "platform", at_minute=1),
        request("team-c", "ops", "platform", at_minute=2),
    ]


OVERLAP = config(
    workload=purpose(count=2, namespace="workload"),
    platform=purpose(count=2, namespace="platform"),
)


def test_optimal_creates_fewer_clusters_than_the_queue(tmp_path) -> None:
    hub = _overlap_hub()
    greedy = Written.solve(tmp_path, hub, OVERLAP, "greedy")
    # Upstream's queue: web goes to the emptiest cluster, shared-1, and leaves the second
    # platform request no room: a new cluster.
    made = "platform/" + generated_name("platform-", "team-c", "ops")
    assert greedy.assignments() == {
        "team-b/web": "platform/shared-1",
        "team-b/ops": "platform/shared-1",
        "team-c/ops": made,
    }
    assert greedy.new_clusters(hub) == [made]
    optimal = Written.solve(tmp_path, hub, OVERLAP, "optimal")
    assert optimal.assignments() == {
        "team-b/web": "workload/workload-1",
        "team-b/ops": "platform/shared-1",
        "team-c/ops": "platform/shared-1",
    }
    assert optimal.new_clusters(hub) == []
    assert optimal.finalizers("workload/workload-1") == [stale("1"), fin("team-b", "web")]


def test_optimal_balances_better_than_the_queue(tmp_path) -> None:
    # c1 lists p and q, c2 only p. The queue sends the p request to c1 (a tie, c1 first), so the
    # q request must share c1: 2 and 0. Jointly: 1 and 1.
    cfg = config(p=purpose(count=5), q=purpose(count=5))
    hub = [
        cluster("ns", "c1", "p", "q"),
        cluster("ns", "c2", "p"),
        request("foo", "p1", "p", at_minute=0),
        request("foo", "q1", "q", at_minute=1),
    ]
    greedy = Written.solve(tmp_path, hub, cfg, "greedy")
    assert greedy.assignments() == {"foo/p1": "ns/c1", "foo/q1": "ns/c1"}
    optimal = Written.solve(tmp_path, hub, cfg, "optimal")
    assert optimal.assignments() == {"foo/p1": "ns/c2", "foo/q1": "ns/c1"}


@pytest.mark.parametrize("mode", MODES)
def test_exclusive_requests_cannot_do_better(tmp_path, mode) -> None:
    # Every Exclusive request needs a cluster of its own: both modes create one each.
    hub = [request("foo", f"r{i}", "exclusive", at_minute=i) for i in range(3)]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert len(written.new_clusters([])) == 3


# ------------------------------------------------------------------------------------ determinism


@pytest.mark.parametrize("mode", MODES)
def test_same_bytes_twice(tmp_path, mode) -> None:
    hub = [
        *_overlap_hub(),
        request("x", "m", "mcp"),
        request("x", "r", "platform", labels={RANDOMIZE: "true"}),
    ]
    cfg = config(
        workload=purpose(count=2, namespace="workload"),
        platform=purpose(count=2, namespace="platform"),
        mcp=purpose("Exclusive"),
    )
    first = solve_cli(tmp_path, hub, "--mode", mode, config=cfg)
    second = solve_cli(tmp_path, hub, "--mode", mode, config=cfg)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout


_SOLVE = """
import sys
from click.testing import CliRunner
from adapters.cli.main import main
hub, config, now, mode = sys.argv[1:5]
result = CliRunner().invoke(main, ["solve", "-f", hub, "--config", config, "--now", now, "--mode", mode])
assert result.exit_code == 0, result.output
sys.stdout.write(result.stdout)
"""


def test_same_bytes_across_processes(tmp_path) -> None:
    hub = write_yaml(tmp_path / "hub.yaml", _overlap_hub())
    cfg = write_yaml(tmp_path / "config.yaml", [OVERLAP])
    root = str(Path(__file__).resolve().parent.parent)
    outputs = []
    for seed in ("1", "2"):
        for mode in MODES:
            done = subprocess.run(
                [sys.executable, "-c", _SOLVE, hub, cfg, NOW, mode],
                cwd=root,
                env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root},
                capture_output=True,
                check=True,
                timeout=120,
            )
            outputs.append(done.stdout)
    assert outputs[0] == outputs[2] and outputs[1] == outputs[3]


# ------------------------------------------------------------------------ library, mixed, generator


@pytest.mark.parametrize("mode", MODES)
def test_library_matches_the_command_line(tmp_path, mode) -> None:
    hub = _overlap_hub()
    outcome = schedule(hub, now=NOW_TIME, options=SolveOptions(mode=mode), config=OVERLAP)
    written = Written.solve(tmp_path, hub, OVERLAP, mode)
    assert json.loads(json.dumps(outcome.apply)) == written.apply
    assert outcome.summary["systems"] == {"openmcp": {"requests": 3, "clusters": 2, "unsatisfied": 0}}
    assert written_bytes(outcome) == written_bytes(
        schedule(hub, now=NOW_TIME, options=SolveOptions(mode=mode), config=OVERLAP)
    )


def test_openmcp_beside_another_system(tmp_path) -> None:
    from tests.fixtures.ocm import hub as ocm_hub
    from tests.fixtures.ocm import managed_cluster, placement

    objects = [*ocm_hub(managed_cluster("c1"), managed_cluster("c2")), placement("web", n=1), *_overlap_hub()]
    result = solve_cli(tmp_path, objects, "-o", "plan", config=OVERLAP)
    assert result.exit_code == 0, result.output
    systems = json.loads(result.stdout)["summary"]["systems"]
    assert set(systems) == {"ocm", "openmcp"} and systems["openmcp"]["requests"] == 3


def test_table_shows_created_clusters_and_both_modes(tmp_path) -> None:
    result = solve_cli(tmp_path, _overlap_hub(), "-o", "table", config=OVERLAP)
    assert result.exit_code == 0, result.output
    assert "openmcp  team-b/web  workload/workload-1  new" in result.stdout
    assert "openmcp: optimal creates 0 new clusters, greedy 1" in result.stdout
    greedy = solve_cli(tmp_path, _overlap_hub(), "-o", "table", "--mode", "greedy", config=OVERLAP)
    made = "platform/" + generated_name("platform-", "team-c", "ops")
    assert f"team-c/ops  {made}  created" in greedy.stdout


def test_demo() -> None:
    optimal = CliRunner().invoke(main, ["demo", "--system", "openmcp"])
    assert optimal.exit_code == 0, optimal.output
    assert "openmcp: optimal creates 1 new cluster, greedy 2" in optimal.stdout
    assert "7 placements, 5 clusters" in optimal.stdout
    plan = CliRunner().invoke(main, ["demo", "--system", "openmcp", "--mode", "greedy", "-o", "plan"])
    document = json.loads(plan.stdout)
    assert [f"{r['namespace']}/{r['name']}" for r in document["delete"]] == ["mcp-clusters/mcp-old"]
    assert document["summary"]["status"] == "GREEDY"


def test_generated_hub_with_its_config(tmp_path) -> None:
    config_path = tmp_path / "config.yaml"
    generated = CliRunner().invoke(
        main,
        [
            "generate",
            "--system",
            "openmcp",
            "--clusters",
            "30",
            "--placements",
            "40",
            "--now",
            NOW,
            "--config-out",
            str(config_path),
        ],
    )
    assert generated.exit_code == 0, generated.output
    cfg = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    assert set(cfg) == {"scheduler"}
    hub = tmp_path / "hub.yaml"
    hub.write_text(generated.stdout, encoding="utf-8")
    created = {}
    for mode in MODES:
        result = CliRunner().invoke(
            main,
            [
                "solve",
                "-f",
                str(hub),
                "--config",
                str(config_path),
                "--now",
                NOW,
                "--mode",
                mode,
                "-o",
                "plan",
            ],
        )
        assert result.exit_code == 0, result.output
        plan = json.loads(result.stdout)
        assert plan["summary"]["systems"]["openmcp"]["requests"] > 0
        created[mode] = sum(1 for o in plan["apply"] if o["kind"] == "Cluster" and "uid" not in o["metadata"])
    assert created["optimal"] <= created["greedy"]
    refused = CliRunner().invoke(
        main,
        [
            "generate",
            "--system",
            "ocm",
            "--clusters",
            "1",
            "--placements",
            "1",
            "--config-out",
            str(config_path),
        ],
    )
    assert refused.exit_code == 2 and "--config-out" in refused.stderr


def test_created_request_order_is_kept_with_equal_times(tmp_path) -> None:
    # Several requests created at once: upstream's informer lists them by namespace/name.
    hub = [
        request("b", "x", "shared-twice"),
        request("a", "y", "shared-twice"),
        request("a", "z", "shared-twice"),
    ]
    for r in hub:
        r["metadata"]["creationTimestamp"] = at(0)
    written = Written.solve(tmp_path, hub, TEST_01, "greedy")
    first = "shared-twice/" + generated_name("shared-twice-", "a", "y")
    assert written.granted("a/y") == written.granted("a/z") == first
    assert REQUEST_FINALIZER in written.requests()["b/x"]["metadata"]["finalizers"]


def test_explain_reads_the_config(tmp_path) -> None:
    hub = write_yaml(tmp_path / "hub.yaml", _overlap_hub())
    cfg = write_yaml(tmp_path / "config.yaml", [OVERLAP])
    result = CliRunner().invoke(main, ["explain", "-f", hub, "--config", cfg, "--now", NOW, "cr/team-b/web"])
    assert result.exit_code == 0, result.output
    assert "workload/workload-1" in result.stdout and "tenancyCount 2" in result.stdout
    bad = write_yaml(tmp_path / "bad.yaml", [{"scheduler": {"scope": "Global"}}])
    refused = CliRunner().invoke(main, ["explain", "-f", hub, "--config", bad, "--now", NOW, "cr/team-b/web"])
    assert refused.exit_code == 2 and "scheduler.scope" in refused.stderr
