"""The synthetic Karmada hub (adapters/karmada/generate.py): deterministic, every object one the API
server, Karmada's webhooks and our loader accept, and the mix its docstring states (division kinds
exactly; the load, 75% of the fleet's free cpu, within a stated tolerance; every shape of placement
and earlier state present). Its bytes are pinned in tests/test_generate_golden.py with every other
generator's; the bundled demo is checked for the over-commit it is made to show."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters import registry
from adapters.generate.hubs import generate
from adapters.karmada import names as n
from adapters.karmada.generate import KIND_SHARES, KINDS, LOAD, generate_karmada
from adapters.kube.manifests import from_objects, parse_text
from adapters.run.pipeline import schedule, schedule_manifests
from bench.karmada_hub import overcommit
from model import parse_quantity
from solver import SolveOptions

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
DEMO = Path(__file__).parent.parent / "adapters" / "examples" / "karmada-demo.yaml"
LOAD_TOLERANCE = 0.03  # the cpu asked over the free cpu, on hubs of a few hundred bindings and more
REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")  # gracefulEvictionTasks[].reason
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def hub(clusters: int, bindings: int, seed: int = 0) -> list[dict]:
    return generate_karmada(clusters, bindings, seed=seed, now=NOW)


def clusters_of(objects):
    return [o for o in objects if o["kind"] == n.CLUSTER]


def bindings_of(objects):
    return [o for o in objects if o["kind"] in n.BINDINGS]


def units(quantity: str, *, cpu: bool = False) -> int:
    nanos = parse_quantity(str(quantity)).nanos
    return nanos // 10**6 if cpu else -(-nanos // 10**9)


def kind_of(binding) -> str:
    """The binding's division kind, read from its own fields."""
    spec = binding["spec"]
    if not spec.get("replicas") and not spec.get("components"):
        return "NonWorkload"
    scheduling = spec["placement"].get("replicaScheduling")
    if scheduling is None or scheduling["replicaSchedulingType"] == "Duplicated":
        return "Duplicated"
    if scheduling["replicaDivisionPreference"] == "Aggregated":
        return "Aggregated"
    dynamic = (scheduling.get("weightPreference") or {}).get("dynamicWeight")
    return "DynamicWeight" if dynamic else "StaticWeight"


def load_ratio(objects, resource: str = "cpu") -> float:
    """What the bindings ask for beyond what they hold (a Duplicated one on every cluster it names),
    over the free room of the clusters open to a binding that tolerates nothing."""
    is_cpu = resource == "cpu"
    free = 0
    for c in clusters_of(objects):
        summary = c["status"].get("resourceSummary")
        if summary is None or c["spec"].get("taints") or "deletionTimestamp" in c["metadata"]:
            continue
        free += sum(
            sign * units(summary[part][resource], cpu=is_cpu)
            for sign, part in ((1, "allocatable"), (-1, "allocated"), (-1, "allocating"))
        )
    asked = 0
    for b in bindings_of(objects):
        spec = b["spec"]
        if (spec.get("suspension") or {}).get("scheduling"):
            continue
        if spec.get("components"):  # new: a whole set of components
            asked += sum(
                c["replicas"] * units(c["replicaRequirements"]["resourceRequest"][resource], cpu=is_cpu)
                for c in spec["components"]
            )
            continue
        replicas = spec.get("replicas", 0)
        if not replicas:
            continue
        held = {c["name"]: c.get("replicas", 0) for c in spec.get("clusters", ())}
        if kind_of(b) == "Duplicated":
            names = spec["placement"]["clusterAffinity"]["clusterNames"]
            new = sum(max(replicas - held.get(name, 0), 0) for name in names)
        else:
            new = max(replicas - sum(held.values()), 0)
        asked += new * units(spec["replicaRequirements"]["resourceRequest"][resource], cpu=is_cpu)
    return asked / free


# ------------------------------------------------------------------------------------ determinism


def test_the_same_arguments_give_the_same_objects_and_the_seed_changes_them():
    assert hub(60, 80, seed=3) == hub(60, 80, seed=3)
    assert hub(60, 80, seed=3) != hub(60, 80, seed=4)
    assert hub(60, 80, seed=3) != generate_karmada(60, 80, seed=3, now=datetime(2026, 11, 22, tzinfo=UTC))


def test_clusters_do_not_depend_on_the_number_of_bindings():
    assert clusters_of(hub(40, 5, seed=2)) == clusters_of(hub(40, 120, seed=2))


def test_the_registry_generates_it_by_name():
    assert generate("karmada", 30, 20, seed=1, now=NOW) == hub(30, 20, seed=1)


# --------------------------------------------------------------------------------------- validity


@pytest.mark.parametrize(
    ("clusters", "bindings", "seed"),
    [(0, 0, 0), (0, 12, 1), (1, 1, 2), (2, 40, 3), (5, 0, 4), (20, 10, 0), (150, 400, 5), (400, 150, 6)],
)
def test_every_object_passes_the_loader_and_schedules(clusters, bindings, seed):
    objects = hub(clusters, bindings, seed)
    manifests = from_objects(objects, "<generated>")
    routed = registry.owned_by(manifests)  # served versions, names, metadata as the API server checks
    assert sum(len(m) for m in routed.values()) == len(objects)
    batch, _ = registry.adapter("karmada").load(manifests, now=NOW, seed=0)
    assert len(batch.clusters) == clusters
    outcome = schedule(objects, now=NOW, options=SolveOptions(mode="greedy"))
    assert outcome.summary["status"] in ("GREEDY", "NO_INPUT")


def test_clusters_are_what_the_cluster_api_validation_accepts():
    """pkg/apis/cluster/validation: a name of at most 48 characters (a DNS label), syncMode Push or
    Pull, zone and zones never together, taints NoSchedule or NoExecute unique by key and effect,
    resource models by ascending grade with the same resources, contiguous, from 0 to MaxInt64."""
    for c in clusters_of(hub(300, 0, seed=7)):
        name, spec = c["metadata"]["name"], c["spec"]
        assert len(name) <= 48 and DNS_LABEL.match(name)
        assert spec["syncMode"] in ("Push", "Pull")
        assert not ("zone" in spec and "zones" in spec)
        taints = spec.get("taints", [])
        assert all(t["effect"] in ("NoSchedule", "NoExecute") for t in taints)
        assert len({(t["key"], t["effect"]) for t in taints}) == len(taints)
        models = spec.get("resourceModels")
        if models:
            assert [m["grade"] for m in models] == sorted({m["grade"] for m in models})
            for k, model in enumerate(models):
                assert [r["name"] for r in model["ranges"]] == [r["name"] for r in models[0]["ranges"]]
                for j, r in enumerate(model["ranges"]):
                    assert parse_quantity(r["max"]).nanos > parse_quantity(r["min"]).nanos
                    assert r["min"] == ("0" if k == 0 else models[k - 1]["ranges"][j]["max"])
            assert all(r["max"] == "9223372036854775807" for r in models[-1]["ranges"])
            summary = c["status"].get("resourceSummary")
            if summary is not None:
                assert [m["grade"] for m in summary["allocatableModelings"]] == [m["grade"] for m in models]


def test_bindings_hold_the_crd_and_webhook_rules():
    """The CRD's required fields and eviction reason pattern, and the webhook's placement rules
    (a cluster constraint beside any spread field, maxGroups >= minGroups, no clusterAffinity beside
    clusterAffinities, overflow tiers only with dynamic divisions, static weights >= 1)."""
    for b in bindings_of(hub(200, 600, seed=8)):
        spec = b["spec"]
        assert {"apiVersion", "kind", "name", "uid"} <= set(spec["resource"])
        placement = spec["placement"]
        assert json.loads(b["metadata"].get("annotations", {}).get(n.APPLIED_PLACEMENT, "{}")) is not None
        assert not ("clusterAffinity" in placement and "clusterAffinities" in placement)
        spread = placement.get("spreadConstraints", [])
        if spread:
            assert "cluster" in [s["spreadByField"] for s in spread]
        for s in spread:
            assert s["minGroups"] >= 1 and (s.get("maxGroups", 0) == 0 or s["maxGroups"] >= s["minGroups"])
        if any("overflowAffinities" in t for t in placement.get("clusterAffinities", ())):
            assert kind_of(b) in ("DynamicWeight", "Aggregated")
        weights = ((placement.get("replicaScheduling") or {}).get("weightPreference") or {}).get(
            "staticWeightList"
        )
        assert all(w["weight"] >= 1 for w in weights or ())
        for task in spec.get("gracefulEvictionTasks", ()):
            assert REASON.match(task["reason"]) and len(task["reason"]) <= 32 and task["producer"]
        assert all(
            t.get("operator", "Equal") in ("Exists", "Equal") for t in placement.get("clusterTolerations", ())
        )


# --------------------------------------------------------------------------------------- the mix


@pytest.mark.parametrize(("clusters", "bindings"), [(300, 1000), (1000, 3000)])
def test_division_kinds_are_the_stated_shares_exactly(clusters, bindings):
    counts = Counter(kind_of(b) for b in bindings_of(hub(clusters, bindings, seed=1)))
    want = {kind: round(share * bindings) for kind, share in zip(KINDS, KIND_SHARES, strict=True)}
    want["DynamicWeight"] = bindings - sum(v for k, v in want.items() if k != "DynamicWeight")
    assert counts == want


@pytest.mark.parametrize(("clusters", "bindings", "seed"), [(200, 500, 0), (300, 1000, 1), (1000, 3000, 2)])
def test_the_bindings_ask_for_three_quarters_of_the_free_cpu_and_less_of_the_rest(clusters, bindings, seed):
    objects = hub(clusters, bindings, seed)
    cpu = load_ratio(objects, "cpu")
    assert abs(cpu - LOAD) <= LOAD_TOLERANCE
    assert load_ratio(objects, "memory") < cpu - 0.15  # cpu binds most
    pods = sum(b["spec"].get("replicas", 0) for b in bindings_of(objects))
    free_pods = sum(
        units(s["allocatable"]["pods"]) - units(s["allocated"]["pods"]) - units(s["allocating"]["pods"])
        for c in clusters_of(objects)
        if (s := c["status"].get("resourceSummary"))
    )
    assert pods < free_pods / 2


def test_every_shape_of_placement_and_earlier_state_is_present():
    objects = hub(300, 1500, seed=3)
    bindings = bindings_of(objects)
    placements = [b["spec"]["placement"] for b in bindings]
    spreads = Counter(tuple(s["spreadByField"] for s in p.get("spreadConstraints", ())) for p in placements)
    assert {("cluster",), ("region", "cluster"), ("zone", "cluster")} <= set(spreads)
    terms = [t for p in placements for t in p.get("clusterAffinities", ())]
    assert terms and any("overflowAffinities" in t for t in terms)
    affinities = [p["clusterAffinity"] for p in placements if "clusterAffinity" in p]
    assert {"labelSelector", "fieldSelector", "clusterNames"} <= {k for a in affinities for k in a}
    assert any("clusterTolerations" in p for p in placements)
    assert any(b["kind"] == n.CRB for b in bindings)
    assert any(n.CPP_ID_LABEL in b["metadata"]["labels"] and b["kind"] == n.RB for b in bindings)
    specs = [b["spec"] for b in bindings]
    assert any(s.get("gracefulEvictionTasks") for s in specs)
    assert any(s.get("schedulePriority") for s in specs) and any(s.get("suspension") for s in specs)
    rescheduled = [b for b in bindings if "rescheduleTriggeredAt" in b["spec"]]
    assert rescheduled and all(
        b["spec"]["rescheduleTriggeredAt"] > b["status"]["lastScheduledTime"] for b in rescheduled
    )
    held = [b for b in bindings if b["spec"].get("clusters")]
    sums = Counter(
        (sum(c.get("replicas", 0) for c in b["spec"]["clusters"]) > b["spec"]["replicas"]) - (
            sum(c.get("replicas", 0) for c in b["spec"]["clusters"]) < b["spec"]["replicas"])
        for b in held
        if kind_of(b) in ("DynamicWeight", "Aggregated")
    )  # fmt: skip
    assert sums[0] and sums[1] and sums[-1]  # unchanged, scaled down, scaled up (or failed over)
    assert any(b["status"].get("schedulerObservingAffinityName") for b in held)
    edited = [
        b
        for b in held
        if json.loads(b["metadata"]["annotations"][n.APPLIED_PLACEMENT]) != b["spec"]["placement"]
    ]
    assert edited
    clusters = clusters_of(objects)
    taints = {t["key"] for c in clusters for t in c["spec"].get("taints", ())}
    assert {"cluster.karmada.io/not-ready", "cluster.karmada.io/unreachable"} <= taints
    assert any("resourceModels" in c["spec"] for c in clusters)
    assert any("resourceSummary" not in c["status"] for c in clusters)
    assert any("deletionTimestamp" in c["metadata"] for c in clusters)
    assert any(len(c["spec"].get("zones", ())) == 2 for c in clusters)
    components = [b for b in bindings if "components" in b["spec"]]
    assert components and all(
        "replicas" not in b["spec"] and len(b["spec"]["components"]) == 2 and kind_of(b) == "Aggregated"
        for b in components
    )


# ------------------------------------------------------------------------------------------- demo


def test_the_demo_is_the_over_commit_users_report():
    """Greedy (upstream) over-commits eu-b by 5 (karmada#6518), media-1 by 3 (#6783) and small-1 by 9
    (#1385); the file says so, and the loader takes it."""
    outcome = schedule_manifests(
        parse_text(DEMO.read_text(encoding="utf-8"), str(DEMO)), now=NOW, options=SolveOptions(mode="greedy")
    )
    assert len(outcome.batch.clusters) == 12 and len(outcome.batch.requests) == 41
    assert overcommit(outcome.batch, outcome.result) == (3, 17)
    placed = {r.request: {c.cluster: c.replicas for c in r.selected} for r in outcome.result.requests}
    assert {placed[f"shop/shop-app-{k:02d}-deployment"]["eu-b"] for k in range(1, 16)} == {1}
    assert placed["media/frontend-deployment"] == {"media-1": 6}
    assert placed["media/backend-deployment"] == {"media-1": 5}
    assert all(placed[f"default/svc-{k:02d}-deployment"] == {"small-1": 1} for k in range(1, 21))
