"""kcp load and emit as units: the batch a hub makes (cluster names, traits, eligibility, taints,
requests and their keys, holds, exclusions, order, demand, load), the generation an input is read
as, and emit from results built by hand."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from adapters.errors import InputError
from adapters.kcp.annotation import parse_placement
from adapters.kcp.api import emit, load, sync_target_key
from adapters.kcp.names import Generation
from adapters.kcp.world import seeded
from adapters.kube.manifests import from_objects
from model import Choice, LabelOperator, Packing, RequestResult, Result, SolveStats, Taint
from tests.fixtures.kcp import (
    COMPUTE,
    DISABLED,
    NOW_TIME,
    PLACEMENT,
    STATE,
    SYNCTARGET,
    TEAM,
    ago,
    binding,
    binding_v08,
    cluster,
    compute_v05,
    compute_v08,
    key,
    location,
    namespace,
    namespace_v08,
    placement,
    sync_target,
)


def loaded(objects, seed: int = 0):
    return load(from_objects(objects, "<test>"), now=NOW_TIME, seed=seed)


def result(*answers: RequestResult) -> Result:
    return Result(tuple(answers), SolveStats(mode="greedy", status="GREEDY"))


def c(name: str) -> str:
    return f"{COMPUTE}/{name}"


# ------------------------------------------------------------------------------------------ clusters


def test_v05_clusters_traits_taints_and_eligibility() -> None:
    hub = [
        *compute_v05(
            cluster("b", "us", ready=False),
            cluster("a", "us", unschedulable=True),
            cluster("c", "eu", evict_after=ago(seconds=1)),
            cluster("d", "eu", deleting=True),
            locations=["eu", "us"],
        ),
        location("all", selector={}),
        location(
            "none", selector={"matchExpressions": [{"key": "location", "operator": "In", "values": []}]}
        ),
    ]  # "none": a selector upstream cannot build selects nothing
    batch, _ = loaded(hub)
    clusters = {x.name: x for x in batch.clusters}
    assert [x.name for x in batch.clusters] == [c("a"), c("b"), c("c"), c("d")]
    assert clusters[c("a")].traits == {
        f"location:{COMPUTE}+us",
        f"location:{COMPUTE}+all",
        f"workspace:{COMPUTE}",
    }
    assert clusters[c("a")].taints == (Taint("kcp/unschedulable", new_only=True),)
    assert clusters[c("b")].taints == (Taint("kcp/not-ready", new_only=True),)
    assert clusters[c("a")].eligible and clusters[c("b")].eligible
    assert not clusters[c("c")].eligible and clusters[c("c")].ineligible_reason.startswith("evicting since")
    # a deletionTimestamp counts for nothing upstream (FilterReady, FilterNonEvicting)
    assert clusters[c("d")].eligible and clusters[c("d")].taints == ()
    assert clusters[c("a")].claims == {"kcp/cluster": c("a")}


def test_v08_unready_and_cordoned_targets_are_ineligible() -> None:
    hub = compute_v08(
        sync_target("a", "us", ready=False), sync_target("b", "us", unschedulable=True), locations=["us"]
    )
    batch, _ = loaded(hub)
    assert [(x.eligible, x.ineligible_reason, x.taints) for x in batch.clusters] == [
        (False, "not Ready", ()),
        (False, "unschedulable (spec.unschedulable)", ()),
    ]


@pytest.mark.parametrize("absent", ["missing", "null"])
def test_an_absent_instance_selector_is_the_crds_default_and_selects_every_cluster(absent) -> None:
    # config/crds/scheduling.kcp.dev_locations.yaml-patch: instanceSelector defaults to {} (v0.5, v0.8).
    hub = [*compute_v08(sync_target("a", "us"), sync_target("b", "eu")), location("all", generation="v0.8")]
    if absent == "missing":
        del hub[-1]["spec"]["instanceSelector"]
    else:
        hub[-1]["spec"]["instanceSelector"] = None
    batch, _ = loaded(hub)
    assert all(f"location:{COMPUTE}+all" in x.traits for x in batch.clusters)


def test_a_workspace_without_locations_has_the_default_location_in_v05_only() -> None:
    batch, _ = loaded(compute_v05(cluster("a")))
    assert f"location:{COMPUTE}+default" in batch.clusters[0].traits
    batch, _ = loaded(compute_v08(sync_target("a")))
    assert batch.clusters[0].traits == {f"workspace:{COMPUTE}"}


# ---------------------------------------------------------------------------------------- generation


@pytest.mark.parametrize(
    ("objects", "generation"),
    [
        ([cluster("a")], Generation.V05),
        ([sync_target("a")], Generation.V08),
        ([placement("p")], Generation.V08),
        ([location("us")], Generation.V05),
        ([location("us", generation="v0.8")], Generation.V08),
        ([binding(), namespace("n", placement={})], Generation.V05),
        ([binding_v08(), namespace_v08("n")], Generation.V08),
    ],
)
def test_the_generation_of_an_input(objects, generation) -> None:
    _, context = loaded(objects)
    assert context.world.generation is generation


def test_a_workspace_named_twice_differently_is_refused() -> None:
    ns = namespace("n", annotations={"kcp.io/cluster": "root:org:else"})
    named = "metadata.annotations[kcp.io/cluster]: names workspace 'root:org:else', but metadata.clusterName"
    with pytest.raises(InputError, match=re.escape(f"Namespace n (<test>: document 2): {named}")):
        loaded([binding(), ns])


def test_the_placement_annotation_is_read_as_go_unmarshals_it() -> None:
    # encoding/json into map[string]PlacementState: a repeated key keeps its last value, but a type
    # error on any repetition fails the whole map; null is a nil map, a null state "".
    assert parse_placement('{"a+b+c": 1, "a+b+c": "Bound"}').invalid
    parsed = parse_placement('{"a++c": "Bound", "x": null, "a+b+c": "Odd", "a+b+c+d": "Bound"}')
    assert list(parsed.entries) == ["a++c"]  # ParsePlacementString: three parts, empty ones too
    assert parsed.states == {"a++c": "Bound", "x": "", "a+b+c": "Odd", "a+b+c+d": "Bound"}
    assert parse_placement("null").as_read is None and parse_placement(None).as_read is None
    assert parse_placement("[]").invalid and parse_placement("{").as_read == {}


# ------------------------------------------------------------------------------------------ requests


def test_v05_requests_keys_holds_order_and_tenancy() -> None:
    hub = [
        *compute_v05(
            cluster("a", "us", evict_after=ago(seconds=1)),
            cluster("b", "us"),
            cluster("d", "us"),
            cluster("e", "eu"),
            locations=["eu", "us"],
        ),
        namespace("late", placement={key(COMPUTE, "eu", "e"): "Bound"}, created=5),
        namespace(
            "early",
            placement={key(COMPUTE, "us", "a"): "Bound", key(COMPUTE, "us", "b"): "Removing"},
            created=1,
        ),
    ]
    batch, _ = loaded(hub)
    requests = {r.key: r for r in batch.requests}
    assert list(requests) == [f"{TEAM}/early@us", f"{TEAM}/late@eu"]
    moved, kept = requests[f"{TEAM}/early@us"], requests[f"{TEAM}/late@eu"]
    assert [(d.cluster, d.current) for d in moved.existing] == [(c("a"), False)]  # given up for good
    assert [(d.cluster, d.current) for d in kept.existing] == [(c("e"), True)]
    assert moved.required[0].traits == (f"location:{COMPUTE}+us",)
    (keep_off,) = moved.required[0].claims.match_expressions
    assert (keep_off.key, keep_off.operator, keep_off.values) == (
        "kcp/cluster",
        LabelOperator.NOT_IN,
        (c("a"), c("b")),  # never the cluster just removed, nor one the annotation names
    )
    assert kept.required[0].claims is None
    for r in (moved, kept):
        t = r.tenancy
        assert (t.packing, t.movable, t.balance, t.demand, t.limit, t.pool) == (
            Packing.RANDOM,
            True,
            True,
            1,
            0,
            None,
        )
    assert (moved.tenancy.order, kept.tenancy.order) == (0, 1)  # creation time first


def test_v05_entries_outside_the_units_are_load() -> None:
    hub = [
        *compute_v05(cluster("a", "us"), cluster("b", "us"), locations=["us"]),
        namespace("two", placement={key(COMPUTE, "us", "a"): "Bound", key(COMPUTE, "us", "b"): "Pending"}),
        namespace("frozen", labels={DISABLED: "true"}, placement={key(COMPUTE, "us", "b"): "Bound"}),
    ]
    batch, _ = loaded(hub)
    assert [r.key for r in batch.requests] == [f"{TEAM}/two@us"]
    assert {x.name: x.load for x in batch.clusters} == {c("a"): 0, c("b"): 2}


def test_v05_no_location_with_a_schedulable_cluster_makes_no_request() -> None:
    batch, context = loaded([*compute_v05(cluster("a", "us", ready=False), locations=["us"]), namespace("n")])
    assert batch.requests == ()
    assert context.plan.namespaces[0].unplaced


def test_v08_requests_demand_holds_and_lost_targets() -> None:
    hub = [
        *compute_v08(sync_target("a", "us"), locations=["us"]),
        *(namespace_v08(f"web{i}", labels={"app": "web"}) for i in range(3)),
        placement(
            "web",
            namespaces={"matchLabels": {"app": "web"}},
            phase="Bound",
            selected="us",
            target=sync_target_key(COMPUTE, "a"),
        ),
        placement("none", namespaces={"matchLabels": {"app": "none"}}, created=1),
        placement("lost", phase="Bound", selected="us", target="gone", created=2),
    ]
    batch, context = loaded(hub)
    requests = {r.key: r for r in batch.requests}
    assert requests[f"{TEAM}/web"].tenancy.demand == 3
    assert requests[f"{TEAM}/none"].tenancy.demand == 1
    assert [d.cluster for d in requests[f"{TEAM}/web"].existing] == [c("a")]
    assert requests[f"{TEAM}/lost"].existing == ()
    (lost,) = [pp for pp in context.plan.placements if pp.placement.name == "lost"]
    assert lost.lost == "gone"


def test_the_adapters_draws_are_reproducible() -> None:
    assert seeded(7, "ws", "ns").random() == seeded(7, "ws", "ns").random()
    assert seeded(7, "ws", "ns").random() != seeded(8, "ws", "ns").random()
    # str seeds hash the same in every process (not Python's randomized hash).
    code = "from adapters.kcp.world import seeded; print(repr(seeded(0, 'ws', 'ns').random()))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert float(other.stdout) == seeded(0, "ws", "ns").random()


# ---------------------------------------------------------------------------------------------- emit


def test_v05_emit_from_a_result_built_by_hand() -> None:
    hub = [
        *compute_v05(
            cluster("a", "us", evict_after=ago(seconds=1)),
            cluster("b", "us"),
            cluster("d", "us"),
            locations=["us"],
        ),
        namespace("n", placement={key(COMPUTE, "us", "a"): "Bound"}),
    ]
    _, context = loaded(hub)
    unit = f"{TEAM}/n@us"
    out = emit(context, result(RequestResult(unit, (Choice(c("d")),), released=(c("a"),))))
    (ns,) = out.apply
    assert json.loads(ns["metadata"]["annotations"][PLACEMENT]) == {
        key(COMPUTE, "us", "a"): "Removing",
        key(COMPUTE, "us", "d"): "Pending",
    }
    assert out.placements == (f"{TEAM}/n",) and out.unsatisfied == ()
    out = emit(context, result(RequestResult(unit, (), released=(c("a"),), satisfied=False)))
    assert json.loads(out.apply[0]["metadata"]["annotations"][PLACEMENT]) == {
        key(COMPUTE, "us", "a"): "Removing"
    }
    assert out.unsatisfied == (f"{TEAM}/n",)
    with pytest.raises(ValueError, match="no answer"):
        emit(context, result())


def test_v08_emit_from_a_result_built_by_hand() -> None:
    hub = [
        *compute_v08(sync_target("a", "us"), sync_target("b", "us"), locations=["us"]),
        namespace_v08("n"),
        placement("p"),
    ]
    _, context = loaded(hub)
    out = emit(context, result(RequestResult(f"{TEAM}/p", (Choice(c("b")),))))
    ns, p = out.apply
    marker = {"kcp.dev/cluster": TEAM}  # the workspace's marker, kept as read
    assert ns["metadata"]["labels"] == {STATE + sync_target_key(COMPUTE, "b"): "Sync"}
    assert ns["metadata"]["annotations"] == {**marker, PLACEMENT: ""}
    assert p["metadata"]["annotations"] == {**marker, SYNCTARGET: sync_target_key(COMPUTE, "b")}
    assert p["status"]["phase"] == "Bound"
    out = emit(context, result(RequestResult(f"{TEAM}/p", (), satisfied=False)))
    ns, p = out.apply
    assert "labels" not in ns["metadata"] and p["metadata"]["annotations"] == marker
    assert out.unsatisfied == (f"{TEAM}/p",)
