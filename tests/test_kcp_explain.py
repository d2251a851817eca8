"""`explain` for kcp: Namespaces of both generations and v0.8 Placements, through the library and
the command line; the bare `placement` kind shared with OCM."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from adapters.cli.explain import explain_document, parse_target, render
from adapters.cli.main import main
from adapters.errors import InputError
from adapters.kcp.api import sync_target_key
from adapters.kube.manifests import from_objects
from solver import SolveOptions
from tests.fixtures.kcp import (
    COMPUTE,
    NOW,
    NOW_TIME,
    TEAM,
    ago,
    cluster,
    compute_v05,
    compute_v08,
    key,
    location,
    namespace,
    placement,
    sync_target,
    write_yaml,
)

EVICTED = ago(seconds=60)


def doc(objects, target: str, mode: str = "optimal", **kw):
    manifests = from_objects(objects, "<test>")
    return explain_document(manifests, target, now=NOW_TIME, options=SolveOptions(mode=mode), **kw)


def by_cluster(d) -> dict[str, dict]:
    return {r["cluster"]: r for r in d["clusters"]}


V05 = [
    *compute_v05(
        cluster("c1", "us", evict_after=EVICTED),
        cluster("c2", "us"),
        cluster("c3", "us", ready=False),
        cluster("c4", "eu"),
        locations=["eu", "us"],
    ),
    namespace("default", placement={key(COMPUTE, "us", "c1"): "Bound"}),
]


def test_kinds_spelled_as_kubectl_does() -> None:
    assert parse_target("ns/default").system == "kcp"
    assert parse_target("namespaces/root:org:team/default").namespace == TEAM
    assert parse_target("placements.scheduling.kcp.dev/root:org:team/p").system == "kcp"
    assert parse_target("placement.cluster.open-cluster-management.io/ns1/p").system == "ocm"


@pytest.mark.parametrize("target", ["ns/default", f"namespace/{TEAM}/default"])
def test_a_v05_eviction_unit_by_unit(target) -> None:
    d = doc(V05, target)
    assert d["generation"] == "v0.5"
    assert d["namespace"] == {
        "workspace": TEAM,
        "name": "default",
        "status": "scheduled",
        "negotiationWorkspace": COMPUTE,
    }
    assert d["placement"]["after"] == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Pending",
    }
    (unit,) = d["units"]
    assert unit["location"] == "us" and unit["released"] == [f"{COMPUTE}/c1"]
    records = by_cluster(d)
    assert records[f"{COMPUTE}/c1"]["result"] == "given up"
    assert records[f"{COMPUTE}/c1"]["why"][0] == "evicting since 2026-11-21T11:59:00Z"
    assert records[f"{COMPUTE}/c2"]["result"] == "chosen"
    assert records[f"{COMPUTE}/c3"]["why"] == ["not Ready: takes no new namespace (keeps those it holds)"]
    assert records[f"{COMPUTE}/c4"]["why"] == [
        "not in location us of root:org:compute (its instanceSelector does not select it)"
    ]
    text = render(d, "table")
    assert text.startswith(f"Namespace {TEAM}|default (v0.5): scheduled\n")
    assert "its cluster is replaced in the same location" in text


def test_the_draw_and_the_levelled_answer_are_named() -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "us"), locations=["us"]),
        namespace("a"),
        namespace("b", created=1),
    ]
    greedy = {r["result"] for r in doc(hub, "ns/b", "greedy")["clusters"]}
    assert greedy <= {"chosen", "not drawn"}
    optimal = doc(hub, "ns/b", "optimal")
    words = [r.get("why", []) for r in optimal["clusters"] if r["result"] == "not chosen"]
    assert all("optimal levelled the location's loads" in w[0] for w in words)


def test_a_namespace_not_under_placement() -> None:
    hub = [*V05, namespace("elsewhere", workspace="root:org:other")]
    d = doc(hub, "ns/elsewhere")
    assert d["namespace"]["status"].startswith("not under placement")
    assert d["clusters"] == []


def test_a_namespace_upstream_writes_nothing_for_says_why() -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), locations=["us"]),
        namespace("again", placement={key(COMPUTE, "us", "c1"): "Removing"}),
    ]
    d = doc(hub, "ns/again")
    assert d["namespace"]["status"] == "crashed"
    assert "upstream's draw panics" in d["namespace"]["why"]
    assert "upstream's draw panics" in render(d, "table")


V08 = [
    *compute_v08(sync_target("c1", "us"), sync_target("c2", "us", ready=False), locations=["us"]),
    namespace("default", generation="v0.8"),
    placement("web", phase="Bound", selected="us", target=sync_target_key(COMPUTE, "c2"), ready="True"),
]


@pytest.mark.parametrize("target", ["placement/web", f"placements.scheduling.kcp.dev/{TEAM}/web"])
def test_a_v08_placement_moved_off_an_unready_target(target) -> None:
    d = doc(V08, target)
    p = d["placement"]
    assert (p["phase"], p["cluster"], p["released"]) == ("Bound", f"{COMPUTE}/c1", [f"{COMPUTE}/c2"])
    assert p["syncTarget"] == sync_target_key(COMPUTE, "c1")
    assert p["namespaces"] == [f"{TEAM}/default"]
    assert by_cluster(d)[f"{COMPUTE}/c2"]["why"] == [
        "not Ready",
        "a forced move: the placement no longer holds there",
    ]
    assert render(d, "table").startswith(f"Placement {TEAM}|web (v0.8): phase Bound\n")


def test_a_placement_whose_location_selector_cannot_be_built_says_controller_b_fails() -> None:
    hub = [o for o in V08 if o["kind"] != "Location"]
    broken = location(
        "us", selector={"matchExpressions": [{"key": "x", "operator": "Near"}]}, generation="v0.8"
    )
    p = doc([*hub, broken], "placement/web")["placement"]
    assert p["syncTarget"] == sync_target_key(COMPUTE, "c2")  # as it was
    assert p["why"].startswith("Controller B fails (Location us's instanceSelector: ")
    assert p["why"].endswith("): the SyncTarget annotation stays as it is")


def test_a_v08_namespace_lists_its_placements() -> None:
    d = doc(V08, "ns/default", cluster=f"{COMPUTE}/c1")
    assert d["placements"] == [{"name": "web", "cluster": f"{COMPUTE}/c1"}]
    assert d["namespace"]["labels"] == {"state.workload.kcp.dev/" + sync_target_key(COMPUTE, "c1"): "Sync"}
    assert [r["cluster"] for r in d["clusters"]] == [f"{COMPUTE}/c1"]


def test_a_placement_both_systems_have_must_be_named_by_group(tmp_path) -> None:
    from tests.fixtures.ocm import hub, managed_cluster
    from tests.fixtures.ocm import placement as ocm_placement

    ocm = [*hub(managed_cluster("m1")), ocm_placement("web", n=1)]
    with pytest.raises(InputError, match="both OCM and kcp have a Placement"):
        doc([*V08, *ocm], "placement/web")
    assert doc([*V08, *ocm], "placement.scheduling.kcp.dev/web")["system"] == "kcp"
    assert doc([*V08, *ocm], "placement.cluster.open-cluster-management.io/web")["system"] == "ocm"
    # Where only one has it, the bare word finds it.
    ocm_only = [*V08[:-1], *ocm]
    assert doc(ocm_only, "placement/web")["system"] == "ocm"
    path = write_yaml(tmp_path / "both.yaml", [*V08, *ocm])
    result = CliRunner().invoke(main, ["explain", "-f", path, "placement/web", "--now", NOW])
    assert result.exit_code == 2 and "placement.scheduling.kcp.dev" in result.stderr


def test_explain_on_the_command_line(tmp_path) -> None:
    path = write_yaml(tmp_path / "hub.yaml", V05)
    result = CliRunner().invoke(main, ["explain", "-f", path, "ns/default", "--now", NOW, "-o", "yaml"])
    assert result.exit_code == 0, result.output
    assert "negotiationWorkspace: root:org:compute" in result.stdout
    missing = CliRunner().invoke(main, ["explain", "-f", path, "ns/nothing", "--now", NOW])
    assert missing.exit_code == 2 and "Namespace nothing is not in the input" in missing.stderr
