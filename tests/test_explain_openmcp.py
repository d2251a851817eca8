"""`explain` for openMCP ClusterRequests, on the bundled demo hub, through the library and the
command line: candidate rules, full clusters, Exclusive, granted requests, both modes."""

from __future__ import annotations

import copy
from importlib import resources

import yaml

from adapters.cli.explain import explain_document, parse_target, render
from adapters.kube.manifests import parse_text
from solver import SolveOptions
from tests.fixtures.common import NOW_TIME as NOW

EXAMPLES = resources.files("adapters.examples")
HUB = parse_text(EXAMPLES.joinpath("openmcp-demo.yaml").read_text(encoding="utf-8"), "openmcp-demo.yaml")
CONFIG = yaml.safe_load(EXAMPLES.joinpath("openmcp-demo-config.yaml").read_text(encoding="utf-8"))


def doc(target: str, mode: str, **kw):
    return explain_document(HUB, target, now=NOW, options=SolveOptions(mode=mode), config=CONFIG, **kw)


def by_cluster(d):
    return {r["cluster"]: r for r in d["clusters"]}


def test_kinds_spelled_as_upstream():
    for text in (
        "ClusterRequest/team-c/ops",
        "cr/team-c/ops",
        "creq/team-c/ops",
        "clusterrequests/team-c/ops",
    ):
        assert parse_target(text).kind == "ClusterRequest"


def test_greedy_found_the_shared_cluster_full_and_created_one():
    d = doc("cr/team-c/ops", "greedy")
    assert d["request"]["creates"] == {"namespace": "platform-clusters", "name": "platform-qe2puqkg"}
    shared = by_cluster(d)["platform-clusters/shared-1"]
    assert shared["result"] == "full" and shared["requests"] == 2
    assert shared["wouldLetIn"] == ["tenancyCount 3 for purpose 'platform', or fewer requests on it"]
    other = by_cluster(d)["workload-clusters/workload-1"]
    assert other["result"] == "not a candidate"
    assert other["wouldLetIn"] == ["add 'platform' to spec.purposes"]


def test_optimal_joins_the_shared_cluster():
    d = doc("cr/team-c/ops", "optimal")
    assert d["request"]["cluster"] == {"namespace": "platform-clusters", "name": "shared-1"}
    assert by_cluster(d)["platform-clusters/shared-1"]["result"] == "chosen"
    assert "creates" not in d["request"]
    table = render(d, "table")
    assert table.startswith("ClusterRequest team-c/ops (purpose platform)\n")


def test_exclusive_and_granted():
    d = doc("cr/team-c/mcp", "optimal")
    assert by_cluster(d)["mcp-clusters/mcp-old"]["result"] == "exclusive"
    granted = doc("cr/team-a/app", "optimal")
    assert granted["request"]["granted"] is True
    records = by_cluster(granted)
    assert records["workload-clusters/workload-1"]["result"] == "granted"
    assert all("rank" not in r for r in records.values())


def test_one_cluster_and_yaml():
    d = doc("cr/team-c/ops", "greedy", cluster="platform-clusters/shared-1")
    assert [r["cluster"] for r in d["clusters"]] == ["platform-clusters/shared-1"]
    assert yaml.safe_load(render(d, "yaml"))["system"] == "openmcp"


def test_a_cluster_full_with_one_request_says_one_request():
    config = copy.deepcopy(CONFIG)
    config["scheduler"]["purposeMappings"]["workload"]["tenancyCount"] = 1
    d = explain_document(HUB, "cr/team-b/web", now=NOW, options=SolveOptions(mode="greedy"), config=config)
    assert by_cluster(d)["workload-clusters/workload-1"]["result"] == "full"
    assert "1 request of tenancyCount 1 (request finalizers)" in render(d, "table")
