"""Where a kcp object lives: every generation's workspace marker read (kcp v0.8's `kcp.dev/cluster`
annotation, later kcp's `kcp.io/cluster`, earlier `metadata.clusterName`), one reading everywhere
(load, plans, the actors, explain, simulate), and what is bad input: markers that disagree, a
workspace that is no logical cluster name, an object that names none. Errors name the object
with its workspace."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from adapters.errors import InputError
from adapters.kcp.actors import identity
from adapters.kcp.api import load, sync_target_key
from adapters.kcp.simulate import run_simulation
from adapters.kcp.workspace import workspace_of
from adapters.kube.manifests import from_objects
from adapters.run.changes import object_key
from solver import SolveOptions
from tests.fixtures.kcp import (
    COMPUTE,
    NOW_TIME,
    PLACEMENT,
    TEAM,
    Written,
    binding,
    cluster,
    location,
    namespace,
    placement,
    solve_cli,
    sync_target,
)

MARKERS = ("kcp.dev/cluster", "kcp.io/cluster", "clusterName")


def marked(obj: dict[str, Any], *markers: str, workspace: str | None = None) -> dict[str, Any]:
    """The object with its workspace (or `workspace`) named by each of `markers` and no other."""
    out = copy.deepcopy(obj)
    metadata = out["metadata"]
    name = workspace if workspace is not None else workspace_of(out)
    metadata.pop("clusterName", None)
    annotations = {k: v for k, v in (metadata.pop("annotations", None) or {}).items() if k not in MARKERS}
    for marker in markers:
        if marker == "clusterName":
            metadata["clusterName"] = name
        else:
            annotations[marker] = name
    if annotations:
        metadata["annotations"] = annotations
    return out


def unmarked(obj: dict[str, Any]) -> dict[str, Any]:
    return marked(obj)


def v08_hub(**placement_args: Any) -> list[dict[str, Any]]:
    targets = [sync_target(f"s{i}", "us") for i in range(1, 6)]
    return [
        binding(generation="v0.8"),
        location("us", generation="v0.8"),
        *targets,
        namespace("app", generation="v0.8"),
        placement("default", **placement_args),
    ]


def loaded(objects: list[dict[str, Any]]):
    return load(from_objects(objects, "<test>"), now=NOW_TIME, seed=0)


# --------------------------------------------------------------------------------- every marker


@pytest.mark.parametrize("marker", MARKERS)
def test_each_generations_marker_names_the_workspace(marker) -> None:
    held = sync_target_key(COMPUTE, "s4")
    hub = [marked(o, marker) for o in v08_hub(phase="Bound", selected="us", target=held)]
    batch, context = loaded(hub)
    assert [c.name for c in batch.clusters] == [f"{COMPUTE}/s{i}" for i in range(1, 6)]
    (request,) = batch.requests
    assert request.key == f"{TEAM}/default"
    # The SyncTargetKey hashes the target's workspace: the annotation names the one it holds.
    (pp,) = context.plan.placements
    assert pp.held is not None and pp.held.name == "s4"
    assert [d.cluster for d in request.existing] == [f"{COMPUTE}/s4"]


def test_same_named_placements_of_v08_workspaces_are_not_duplicates(tmp_path) -> None:
    teams = [f"root:org:team{i}" for i in range(3)]
    hub = [
        *(o for o in v08_hub() if o["kind"] not in ("Namespace", "Placement", "APIBinding")),
        *(binding(team, generation="v0.8") for team in teams),
        *(namespace("default", workspace=team, generation="v0.8") for team in teams),
        *(placement("default", workspace=team) for team in teams),
    ]
    written = Written.solve(tmp_path, hub, "optimal")
    for team in teams:
        assert written.status("default", team)["phase"] == "Bound"
        assert written.annotation("default", team) == ""


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_selected_location_of_another_workspace_is_redrawn_not_a_traceback(tmp_path, mode) -> None:
    """A Bound Placement of a v0.8 hub whose selectedLocation.path names another workspace than its
    locationWorkspace (its own): LocationInvalid, the namespace unbinds, it turns Unbound and draws
    its own workspace's Location again. This input ended in `ValueError: the result has no answer
    for Placement '/default'` when the kcp.dev/cluster marker was not read."""
    hub = [
        binding(generation="v0.8"),
        location("us", workspace=TEAM, generation="v0.8"),
        sync_target("s1", "us", workspace=TEAM),
        namespace("app", generation="v0.8", annotations={PLACEMENT: ""}),
        placement("default", location_workspace=None, phase="Bound", selected="us"),
    ]
    hub[-1]["status"]["selectedLocation"]["path"] = "root:org:other"
    written = Written.solve(tmp_path, hub, mode)
    status = written.status("default")
    assert status["phase"] == "Bound"
    assert status["selectedLocation"] == {"path": TEAM, "locationName": "us"}
    assert written.target("default") == sync_target_key(TEAM, "s1")


# ----------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("clusterName", "kcp.dev/cluster"),
        ("kcp.dev/cluster", "kcp.io/cluster"),
        ("clusterName", "kcp.io/cluster"),
    ],
)
def test_markers_that_disagree_exit_2_and_markers_that_agree_are_one(tmp_path, first, second) -> None:
    *rest, ns, p = v08_hub()
    both = marked(ns, first, second)
    assert solve_cli(tmp_path, [*rest, both, p]).exit_code == 0
    if second == "clusterName":
        both["metadata"]["clusterName"] = "root:org:else"
    else:
        both["metadata"]["annotations"][second] = "root:org:else"
    result = solve_cli(tmp_path, [*rest, both, p])
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "Namespace app (" in result.stderr and "root:org:else" in result.stderr and TEAM in result.stderr


@pytest.mark.parametrize("kind", ["APIBinding", "Location", "SyncTarget", "Namespace", "Placement"])
def test_an_object_naming_no_workspace_exits_2(tmp_path, kind) -> None:
    hub = [unmarked(o) if o["kind"] == kind else o for o in v08_hub()]
    result = solve_cli(tmp_path, hub)
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert f"{kind} " in result.stderr and "hub.yaml: document" in result.stderr
    assert "metadata.annotations[kcp.dev/cluster]: names no logical workspace" in result.stderr


def test_a_v05_object_naming_no_workspace_exits_2(tmp_path) -> None:
    result = solve_cli(tmp_path, [binding(), location("us"), unmarked(cluster("c1", "us")), namespace("n")])
    assert result.exit_code == 2 and "WorkloadCluster c1 (" in result.stderr


@pytest.mark.parametrize(
    "workspace",
    ["a", "Root:org", "root:org/team", "root::team", "root:org:team-", "*", "root:9lives", "root+org"],
)
def test_a_workspace_that_is_no_logical_cluster_name_exits_2(tmp_path, workspace) -> None:
    hub = v08_hub()
    hub[-2]["metadata"]["annotations"]["kcp.dev/cluster"] = workspace
    result = solve_cli(tmp_path, hub)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "is not a logical cluster name" in result.stderr and repr(workspace) in result.stderr


@pytest.mark.parametrize("workspace", ["ab", "root", "root:org:team-2", "w1:a-b"])
def test_logical_cluster_names_at_the_edge_are_read(workspace) -> None:
    hub = v08_hub()
    hub[-2]["metadata"]["annotations"]["kcp.dev/cluster"] = workspace
    _, context = loaded(hub)
    assert [ns.workspace for ns in context.world.namespaces] == [workspace]


def test_a_marker_that_is_not_a_string_exits_2() -> None:
    hub = v08_hub()
    hub[-2]["metadata"]["annotations"]["kcp.dev/cluster"] = 7
    with pytest.raises(InputError, match=r"metadata.annotations\[kcp.dev/cluster\]: expected a string"):
        loaded(hub)


def test_simulate_refuses_workload_objects_naming_no_workspace() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "app"}}
    with pytest.raises(InputError, match="ConfigMap app/cfg .*names no logical workspace"):
        run_simulation(from_objects([*v08_hub(), config_map], "<test>"), now=NOW_TIME, options=SolveOptions())


# ------------------------------------------------------------------------------ one reading


@pytest.mark.parametrize("marker", MARKERS)
def test_plans_actors_and_the_loader_read_one_workspace(marker) -> None:
    ns = marked(namespace("app", generation="v0.8"), marker)
    assert workspace_of(ns) == TEAM
    assert object_key(ns)[2] == identity(ns)[0] == TEAM
    _, context = loaded([*(marked(o, marker) for o in v08_hub()[:-2]), ns])
    assert context.world.namespaces[0].workspace == TEAM


def test_an_error_names_the_placement_of_its_workspace_among_many(tmp_path) -> None:
    teams = [f"root:org:team{i:02d}" for i in range(40)]
    hub = [
        *(o for o in v08_hub() if o["kind"] not in ("Namespace", "Placement", "APIBinding")),
        *(placement("default", workspace=team) for team in teams),
    ]
    hub[-7]["spec"]["locationWorkspace"] = "compute"
    result = solve_cli(tmp_path, hub)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: Placement root:org:team33|default: spec.locationWorkspace: 'compute' is not an absolute"
    ), result.stderr
