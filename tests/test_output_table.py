"""`solve -o table` for people: every unsatisfied placement listed with its reason, those the solver
never saw included (openMCP requests of no purpose, kcp namespaces without a location), and counts
in good English."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from adapters.cli.difference import differences, render_differences
from adapters.cli.main import main
from adapters.run.pipeline import Outcome, SystemOutcome
from model import Choice, RequestResult, Result, SolveStats, Tenancy
from tests.fixtures import fleet as fl
from tests.fixtures import kcp
from tests.fixtures import openmcp as om
from tests.fixtures.builders import batch, cluster, pick_n


def _table(tmp_path: Path, objects: list[dict], *args: str) -> list[str]:
    path = om.write_yaml(tmp_path / "hub.yaml", objects)
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", om.NOW, "-o", "table", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def _footer(lines: list[str]) -> list[str]:
    """The counts line and the unsatisfied placements under it."""
    start = next(i for i, line in enumerate(lines) if " unsatisfied" in line)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return lines[start:end]


def test_openmcp_requests_the_solver_never_saw_are_listed(tmp_path) -> None:
    config = om.write_yaml(tmp_path / "config.yaml", [om.config(shared=om.purpose(count=1, namespace="c"))])
    objects = [
        om.cluster("c", "one", "shared"),
        om.request("a", "r1", "shared", granted=("c", "one")),
        om.request("a", "r3", "unknown", at_minute=2),  # no purposeMappings entry: never scheduled
    ]
    lines = _table(tmp_path, objects, "--config", config)
    assert _footer(lines) == [
        "2 placements, 1 cluster; mode optimal, status OPTIMAL; 1 unsatisfied:",
        "  a/r3: phase Pending",
    ]


def test_kcp_units_without_a_cluster_are_listed_with_upstreams_words(tmp_path) -> None:
    v05 = [
        *kcp.compute_v05(kcp.cluster("w1", "east", unschedulable=True), locations=["east"]),
        kcp.namespace("ns1"),
    ]
    assert _footer(_table(tmp_path, v05)) == [
        "1 placement, 1 cluster; mode optimal, status OPTIMAL; 1 unsatisfied:",
        "  root:org:team/ns1: NamespaceScheduled False, Unschedulable: No workload clusters available under "
        "given placement constraints",
    ]
    v08 = [
        *kcp.compute_v08(kcp.sync_target("s1", "east", ready=False), locations=["east"]),
        kcp.namespace("ns1"),
        kcp.placement("p1"),
        kcp.placement("p2", locations=[{"matchLabels": {"x": "y"}}]),
    ]
    lines = _table(tmp_path, v08)
    assert _footer(lines) == [
        "2 placements, 1 cluster; mode optimal, status OPTIMAL; 2 unsatisfied:",
        "  root:org:team/p1: no cluster chosen: 1 cluster ineligible (not Ready)",  # kcp writes no reason
        "  root:org:team/p2: Ready False, LocationNoMatch: No valid location is found",
    ]


def test_several_systems_name_the_system_of_each_unsatisfied_placement(tmp_path) -> None:
    objects = [
        *kcp.compute_v05(kcp.cluster("w1", "east", unschedulable=True), locations=["east"]),
        kcp.namespace("ns1"),
        fl.member_cluster("m1"),
        fl.crp("f", fl.pick_fixed("gone")),
    ]
    footer = _footer(_table(tmp_path, objects))
    assert footer[1:] == [
        "  fleet f: Scheduled False, SchedulingPolicyUnfulfilled: could not find all clusters needed as "
        "specified by the scheduling policy, found 0 cluster(s) instead",
        "  kcp root:org:team/ns1: NamespaceScheduled False, Unschedulable: No workload clusters available "
        "under given placement constraints",
    ]


def test_counts_are_singular_for_one() -> None:
    """`1 tenants`, `1 clusters where greedy found 2`: the plural only where it belongs."""
    clusters = (cluster("a"), cluster("b"))
    request = pick_n(1, "r", tenancy=Tenancy(order=0, limit=2))
    tenancy_batch = batch(clusters, request)
    mine = RequestResult("r", (Choice("a"),))
    theirs = RequestResult("r", (Choice("b"),))

    def outcome(got: RequestResult, mode: str) -> Outcome:
        part = SystemOutcome("kcp", tenancy_batch, Result((got,), SolveStats(mode, "OPTIMAL")))
        return Outcome([], [], (part,), {})

    (found,) = differences(outcome(mine, "optimal"), outcome(theirs, "greedy"))
    assert found.gains == (
        "a ends with 1 tenant (greedy's b: 1); the busiest cluster holds 1 (greedy 1); "
        "no new clusters in either mode",
    )
    assert render_differences([found]).startswith(
        "Where optimal chose differently from greedy (1 placement):"
    )
    plain = batch(clusters, pick_n(2, "r"))
    one = RequestResult("r", (Choice("a"),), released=("b",), satisfied=False)
    none = RequestResult("r", (), satisfied=False)
    parts = [
        SystemOutcome("fleet", plain, Result((got,), SolveStats(m, "OPTIMAL")))
        for got, m in ((one, "o"), (none, "g"))
    ]
    (found,) = differences(*(Outcome([], [], (p,), {}) for p in parts))
    assert found.gains == ("1 cluster where greedy found 0", "releases 1 existing decision (greedy 0)")
