"""Bad input, round three: what the fuzz over whole hubs left apart from the API server (what it
accepts) and from upstream's controllers (what they write).

- a null item of a list whose items are objects is refused, naming `path[i]` (the API server
  prunes a null field and a null map value, but refuses such an item); a core object's list
  (a Namespace's conditions) is decoded as Go decodes it, the null item a zero value;
- a null value of a label selector's matchLabels is pruned (the key is absent); a null label value
  in metadata is "" (ObjectMeta is decoded through encoding/json), and so is one in the openMCP
  config (sigs.k8s.io/yaml into Go structs);
- openMCP: a status requires observedGeneration and phase, a status.cluster its name and
  namespace; a request without a generation is written observedGeneration 0; a reference with an
  empty name or namespace leaves the request Pending, as upstream's failing lookups do;
- FleetScheduler's events pass the registry's checks (served version, name, metadata, kind), and
  an event either scheduler refuses changes nothing;
- kcp: an APIBinding, Location or Placement without a spec is taken (the CRDs require none);
  OCM: an unknown prioritizer mode is upstream's Misconfigured, not bad input.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.errors import InputError
from adapters.kube.fields import INT32, Fields
from adapters.kube.manifests import Manifest
from adapters.live.hub import Applied, HubScheduler
from adapters.live.incremental import ClusterAdded, ClusterChanged, FleetScheduler, PlacementChanged
from adapters.registry import reads
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures import kcp, ocm, openmcp
from tests.fixtures.common import NOW_TIME
from tests.fixtures.fleet import binding, crp, member_cluster, pick_all, pick_n, term
from tests.fixtures.hubs import valid_hub as hub_named

# ----------------------------------------------------------------------------------------- helpers


def _solve(tmp_path: Path, objects: Sequence[dict[str, Any]], config: dict[str, Any] | None = None):
    """`solve` on the objects (a JSON List on standard input), greedy: (exit, stdout, stderr)."""
    args = ["solve", "-f", "-", "--now", "2026-11-21T12:00:00Z", "--mode", "greedy", "-o", "json"]
    if config is not None:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        args += ["--config", str(path)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)})
    result = CliRunner().invoke(main, args, input=text)
    return result.exit_code, result.stdout, result.stderr


def _refusal(objects: Sequence[dict[str, Any]], config: dict[str, Any] | None = None) -> str:
    """The InputError the library raises for the objects."""
    with pytest.raises(InputError) as raised:
        schedule(copy.deepcopy(list(objects)), now=NOW_TIME, config=config)
    return str(raised.value)


def _kinds(objects: Sequence[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


# ----------------------------------------------------------------- 1. null items in lists of objects

_AFFINITY = "spec.policy.affinity.clusterAffinity"
_TERMS = f"{_AFFINITY}.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms"
_PREFERRED = f"{_AFFINITY}.preferredDuringSchedulingIgnoredDuringExecution"

# (hub, kind, the list): every loop over a list of objects the loaders read, in an object of that
# kind of the hub (the first holding the list, else the first whose lists along the path exist,
# the list made).
NULL_ITEMS = [
    ("fleet", "MemberCluster", "spec.taints"),
    ("fleet", "MemberCluster", "status.agentStatus"),
    ("fleet", "MemberCluster", "status.agentStatus[0].conditions"),
    ("fleet", "MemberCluster", "status.conditions"),
    ("fleet", "ClusterResourcePlacement", "spec.resourceSelectors"),
    ("fleet", "ClusterResourcePlacement", _TERMS),
    ("fleet", "ClusterResourcePlacement", f"{_TERMS}[0].labelSelector.matchExpressions"),
    ("fleet", "ClusterResourcePlacement", f"{_TERMS}[0].propertySelector.matchExpressions"),
    ("fleet", "ClusterResourcePlacement", _PREFERRED),
    ("fleet", "ClusterResourcePlacement", "spec.policy.topologySpreadConstraints"),
    ("fleet", "ClusterResourcePlacement", "spec.policy.tolerations"),
    ("fleet", "ClusterResourcePlacement", "status.placementStatuses"),
    ("fleet", "ClusterSchedulingPolicySnapshot", "spec.policy.topologySpreadConstraints"),
    ("fleet", "ClusterSchedulingPolicySnapshot", "spec.policy.tolerations"),
    ("fleet", "ClusterSchedulingPolicySnapshot", "status.targetClusters"),
    ("fleet", "ClusterSchedulingPolicySnapshot", "status.conditions"),
    ("fleet", "ClusterResourceBinding", "status.conditions"),
    ("ocm", "ManagedCluster", "spec.taints"),
    ("ocm", "ManagedCluster", "status.conditions"),
    ("ocm", "ManagedCluster", "status.clusterClaims"),
    ("ocm", "ManagedCluster", "status.managedNamespaces"),
    ("ocm", "ManagedClusterSet", "status.conditions"),
    ("ocm", "ManagedClusterSet", "spec.clusterSelector.labelSelector.matchExpressions"),
    ("ocm", "ManagedClusterSetBinding", "status.conditions"),
    ("ocm", "Placement", "spec.predicates"),
    ("ocm", "Placement", "spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions"),
    ("ocm", "Placement", "spec.predicates[0].requiredClusterSelector.claimSelector.matchExpressions"),
    ("ocm", "Placement", "spec.tolerations"),
    ("ocm", "Placement", "spec.prioritizerPolicy.configurations"),
    ("ocm", "Placement", "spec.spreadPolicy.spreadConstraints"),
    ("ocm", "Placement", "spec.decisionStrategy.groupStrategy.decisionGroups"),
    ("ocm", "Placement", "status.decisionGroups"),
    ("ocm", "Placement", "status.conditions"),
    ("ocm", "AddOnPlacementScore", "status.scores"),
    ("ocm", "AddOnPlacementScore", "status.conditions"),
    ("ocm", "PlacementDecision", "status.decisions"),
    ("openmcp", "Cluster", "status.conditions"),
    ("openmcp", "ClusterRequest", "status.conditions"),
    ("kcp-v0.5", "APIBinding", "spec.permissionClaims"),
    ("kcp-v0.5", "APIBinding", "status.conditions"),
    ("kcp-v0.5", "WorkloadCluster", "status.conditions"),
    ("kcp-v0.5", "WorkloadCluster", "status.virtualWorkspaces"),
    ("kcp-v0.5", "Location", "spec.availableSelectorLabels"),
    ("kcp-v0.5", "Location", "spec.instanceSelector.matchExpressions"),
    ("kcp-v0.8", "SyncTarget", "spec.supportedAPIExports"),
    ("kcp-v0.8", "SyncTarget", "status.syncedResources"),
    ("kcp-v0.8", "SyncTarget", "status.conditions"),
    ("kcp-v0.8", "Placement", "spec.locationSelectors"),
    ("kcp-v0.8", "Placement", "spec.locationSelectors[0].matchExpressions"),
    ("kcp-v0.8", "Placement", "spec.namespaceSelector.matchExpressions"),
    ("kcp-v0.8", "Placement", "status.conditions"),
    ("kcp-v0.8", "Location", "spec.availableSelectorLabels"),
    ("kcp-v0.8", "APIBinding", "status.conditions"),
    *(
        ("karmada", kind, path)
        for kind in ("ResourceBinding", "ClusterResourceBinding")
        for path in (
            "spec.clusters",
            "spec.gracefulEvictionTasks",
            "spec.components",
            "spec.placement.clusterAffinities",
            "spec.placement.clusterTolerations",
            "spec.placement.spreadConstraints",
            "status.conditions",
        )
    ),
]


def _keys(path: str) -> list[str | int]:
    return [int(k) if k.isdigit() else k for k in re.split(r"\.|\[|\]\.?", path) if k]


def _reaches(obj: dict[str, Any], path: str) -> bool:
    """Whether every list along `path` (before its last key) holds the item the path names."""
    node: Any = obj
    for key in _keys(path)[:-1]:
        if isinstance(key, int):
            if not isinstance(node, list) or len(node) <= key:
                return False
            node = node[key]
        elif isinstance(node, dict):
            node = node.get(key, {})
        else:
            return False
    return isinstance(node, dict)


def _holds_list(obj: dict[str, Any], path: str) -> bool:
    return _reaches(obj, path) and isinstance(_at(obj, path), list)


def _at(obj: dict[str, Any], path: str) -> Any:
    node: Any = obj
    for key in _keys(path):
        node = node[key] if isinstance(key, int) else node.get(key, {})
    return node


def _append_null(obj: dict[str, Any], path: str) -> int:
    """A null item appended to the list at `path` (made where absent); its index."""
    node: Any = obj
    *parents, last = _keys(path)
    for key in parents:
        node = node[key] if isinstance(key, int) else node.setdefault(key, {})
    items = node.get(last)
    node[last] = [*(items if isinstance(items, list) else []), None]
    return len(node[last]) - 1


@pytest.mark.parametrize(("hub_name", "kind", "path"), NULL_ITEMS, ids=lambda v: str(v))
def test_a_null_item_of_a_list_of_objects_is_refused_naming_it(tmp_path, hub_name, kind, path) -> None:
    hub = hub_named(hub_name)
    objects = copy.deepcopy(list(hub.objects))
    reached = [o for o in objects if o["kind"] == kind and _reaches(o, path)]
    target = next((o for o in reached if _holds_list(o, path)), reached[0])
    index = _append_null(target, path)
    code, stdout, stderr = _solve(tmp_path, objects, hub.config)
    assert (code, stdout) == (2, ""), stderr
    assert stderr.endswith(f": {path}[{index}]: expected an object, got null\n"), stderr
    assert target["metadata"]["name"] in stderr


def test_a_null_condition_of_a_core_namespace_is_a_zero_value(tmp_path) -> None:
    # The API server decodes a core object as encoding/json does: a null item of its list is the
    # zero value (an empty NamespaceCondition), not an error.
    hub = hub_named("kcp-v0.8")
    objects = copy.deepcopy(list(hub.objects))
    _append_null(_kinds(objects, "Namespace")[0], "status.conditions")
    assert _solve(tmp_path, objects)[0] == 0


def test_fields_walk_a_list_of_objects_with_each_path() -> None:
    f = Fields(Manifest({"kind": "Thing", "metadata": {"name": "t"}}, "<test>", 1))
    walked = list(f.objects([{"a": 1}, {}], "spec.items"))
    assert walked == [("spec.items[0]", {"a": 1}), ("spec.items[1]", {})]
    assert list(f.objects(None, "spec.items")) == []
    with pytest.raises(InputError, match=r"spec\.items\[1\]: expected an object, got null"):
        list(f.objects([{}, None], "spec.items"))
    with pytest.raises(InputError, match=r"spec\.items\[0\]: expected an object, got an integer"):
        list(f.objects([1], "spec.items"))


# ------------------------------------------------------------------------ 2. null map values


def test_a_null_match_label_of_a_fleet_placement_is_pruned() -> None:
    # On main the policy's hash wrote a null as a string and crashed.
    clusters = [member_cluster("c1", {"env": "prod"}), member_cluster("c2")]
    pruned = crp("app", pick_all(required=[{"labelSelector": {"matchLabels": {"env": None}}}]))
    absent = crp("app", pick_all(required=[{"labelSelector": {}}]))
    chosen = []
    for placement in (pruned, absent):
        outcome = schedule([*clusters, placement], now=NOW_TIME)
        chosen.append(sorted(c.cluster for r in outcome.result.requests for c in r.selected))
        snapshots = _kinds(outcome.apply, "ClusterSchedulingPolicySnapshot")
        chosen.append(snapshots[0]["spec"]["policyHash"])
    assert chosen[0] == chosen[2] == ["c1", "c2"]
    assert chosen[1] == chosen[3]  # the same policy as the API server stores it: the same hash


def test_a_null_match_label_of_an_ocm_placement_is_pruned() -> None:
    objects = ocm.hub(ocm.managed_cluster("a", {"env": "prod"}), ocm.managed_cluster("b"))
    selector = {"matchLabels": {"env": None}}
    objects.append(ocm.placement("p", predicates=[{"requiredClusterSelector": {"labelSelector": selector}}]))
    outcome = schedule(objects, now=ocm.NOW_TIME)
    assert sorted(c.cluster for r in outcome.result.requests for c in r.selected) == ["a", "b"]


def test_a_null_label_value_in_metadata_is_an_empty_value() -> None:
    # ObjectMeta is decoded through encoding/json: a null label value is "", the label is there.
    objects = ocm.hub(ocm.managed_cluster("a", {"env": None}), ocm.managed_cluster("b"))
    selector = {"matchLabels": {"env": ""}}
    objects.append(ocm.placement("p", predicates=[{"requiredClusterSelector": {"labelSelector": selector}}]))
    outcome = schedule(objects, now=ocm.NOW_TIME)
    assert [c.cluster for r in outcome.result.requests for c in r.selected] == ["a"]


def _kcp_v08(*placements: dict[str, Any], location_selector: dict[str, Any] | None = None) -> list[dict]:
    location = kcp.location("east", generation="v0.8", selector=location_selector)
    return [
        kcp.binding_v08(),
        location,
        kcp.sync_target("c1", "east"),
        kcp.namespace_v08("ns"),
        *placements,
    ]


def _kcp_placement(outcome: Any) -> dict[str, Any]:
    return next(o for o in outcome.apply if o["kind"] == "Placement")


def test_a_null_match_label_of_a_kcp_location_selector_is_pruned() -> None:
    objects = _kcp_v08(kcp.placement("p", locations=[{"matchLabels": {"zone": None}}]))
    outcome = schedule(objects, now=kcp.NOW_TIME)
    assert _kcp_placement(outcome)["status"]["selectedLocation"]["locationName"] == "east"


def test_a_null_match_label_of_a_kcp_instance_selector_is_pruned() -> None:
    selector = {"matchLabels": {"location": None}}
    objects = _kcp_v08(kcp.placement("p"), location_selector=selector)
    outcome = schedule(objects, now=kcp.NOW_TIME)
    assert kcp.SYNCTARGET in _kcp_placement(outcome)["metadata"].get("annotations", {})


def test_a_null_match_label_of_the_openmcp_config_is_an_empty_value() -> None:
    # The config is decoded into Go structs (sigs.k8s.io/yaml): a null value is "", not pruned,
    # so the selector asks for `pool: ""`, which the template's labels (none) do not match.
    config = openmcp.config(p=openmcp.purpose(selector={"matchLabels": {"pool": None}}))
    message = _refusal([openmcp.request("foo", "a", "p")], config)
    assert message.endswith("labels do not match specified local cluster selector")


# ------------------------------------------------------------------------------------- 3. openMCP


def test_a_request_without_a_generation_is_written_observed_generation_zero() -> None:
    request = openmcp.request("foo", "a", "p")
    del request["metadata"]["generation"]
    config = openmcp.config(p=openmcp.purpose())
    outcome = schedule([openmcp.cluster("ns", "c", "p"), request], now=openmcp.NOW_TIME, config=config)
    written = next(o for o in outcome.apply if o["kind"] == "ClusterRequest")
    assert written["status"]["observedGeneration"] == 0


@pytest.mark.parametrize("missing", ["observedGeneration", "phase"])
@pytest.mark.parametrize("kind", ["Cluster", "ClusterRequest"])
def test_a_status_needs_its_observed_generation_and_phase(kind, missing) -> None:
    objects = [openmcp.cluster("ns", "c", "p"), openmcp.request("foo", "a", "p")]
    target = _kinds(objects, kind)[0]
    target["status"] = {"observedGeneration": 1, "phase": "Pending"}
    del target["status"][missing]
    config = openmcp.config(p=openmcp.purpose())
    assert _refusal(objects, config).endswith(f": status.{missing}: required")
    target["status"] = {}  # an empty status is a status too
    assert _refusal(objects, config).endswith(": status.observedGeneration: required")


def test_a_cluster_reference_needs_its_namespace() -> None:
    request = openmcp.request("foo", "a", "p", granted=("ns", "c"))
    del request["status"]["cluster"]["namespace"]
    objects = [openmcp.cluster("ns", "c", "p", finalizers=[openmcp.fin("foo", "a")]), request]
    message = _refusal(objects, openmcp.config(p=openmcp.purpose()))
    assert message == "ClusterRequest/foo/a: status.cluster.namespace: required"


@pytest.mark.parametrize("reference", [("ns", ""), ("", "c")], ids=["no-name", "no-namespace"])
def test_a_reference_upstream_cannot_look_up_leaves_the_request_pending(reference) -> None:
    # client-go refuses a Get with an empty name; the API server a namespaced Get without a
    # namespace: every reconcile fails, and the request is written Pending, its reference kept.
    request = openmcp.request("foo", "a", "p", granted=reference)
    cluster = openmcp.cluster("ns", "c", "p", finalizers=[openmcp.fin("foo", "a")])
    config = openmcp.config(p=openmcp.purpose())
    outcome = schedule([cluster, request], now=openmcp.NOW_TIME, config=config)
    written = next(o for o in outcome.apply if o["kind"] == "ClusterRequest")
    expected = {"name": reference[1], "namespace": reference[0]}
    assert written["status"] == {"observedGeneration": 1, "phase": "Pending", "cluster": expected}
    assert openmcp.REQUEST_FINALIZER in written["metadata"]["finalizers"]
    assert outcome.result.requests == ()  # not solved: no cluster is taken or made for it
    assert not _kinds(outcome.apply, "Cluster")


def test_a_request_without_a_uid_is_refused_with_the_reason() -> None:
    request = openmcp.request("foo", "a", "p")
    del request["metadata"]["uid"]
    message = _refusal([request], openmcp.config(p=openmcp.purpose()))
    assert message.startswith("ClusterRequest/foo/a: metadata.uid: required: the API server gives every")


# ------------------------------------------------------------------------------- 4. FleetScheduler


def _scheduler() -> FleetScheduler:
    objects = [member_cluster("c1", {"env": "prod"}), crp("app", pick_n(1, required=[term({"env": "prod"})]))]
    return FleetScheduler(objects, now=NOW_TIME)


def _refused_and_unchanged(event: Any, field: str) -> None:
    scheduler = _scheduler()
    before = copy.deepcopy(scheduler.objects())
    with pytest.raises(InputError) as raised:
        scheduler.handle(event, now=NOW_TIME)
    assert raised.value.field == field, str(raised.value)
    assert scheduler.objects() == before  # a refused event changes nothing


def test_an_event_of_an_unserved_version_is_refused() -> None:
    cluster = member_cluster("c2") | {"apiVersion": "cluster.kubernetes-fleet.io/v1alpha9"}
    _refused_and_unchanged(ClusterAdded(cluster), "apiVersion")
    placement = crp("web", pick_all()) | {"apiVersion": "placement.kubernetes-fleet.io/v2"}
    _refused_and_unchanged(PlacementChanged(placement), "apiVersion")


def test_an_event_of_a_name_the_api_server_refuses_is_refused() -> None:
    _refused_and_unchanged(ClusterAdded(member_cluster("Not_A_Name")), "metadata.name")
    _refused_and_unchanged(PlacementChanged(crp("web.", pick_all())), "metadata.name")


def test_an_event_of_bad_metadata_is_refused() -> None:
    _refused_and_unchanged(ClusterChanged(member_cluster("c1", {"bad key": "x"})), "metadata.labels")
    placement = crp("app", pick_all())
    placement["metadata"]["generation"] = -1
    _refused_and_unchanged(PlacementChanged(placement), "metadata.generation")
    placement = crp("app", pick_all())
    placement["metadata"]["finalizers"] = ["not a finalizer"]
    _refused_and_unchanged(PlacementChanged(placement), "metadata.finalizers[0]")


def test_an_event_of_another_kind_is_refused() -> None:
    _refused_and_unchanged(ClusterAdded(crp("web", pick_all())), "")
    _refused_and_unchanged(PlacementChanged(member_cluster("c2")), "")


def test_an_event_whose_fields_are_refused_changes_nothing() -> None:
    # Refused by the adapter (the solve's load, the cluster's load), after the object was stored.
    _refused_and_unchanged(
        PlacementChanged(crp("app", {"placementType": "PickSome"})), "spec.policy.placementType"
    )
    cluster = member_cluster("c1", taints=[{"key": "k", "effect": "NoExecute"}])
    _refused_and_unchanged(ClusterChanged(cluster), "spec.taints[0].effect")


def test_the_first_objects_are_checked_as_any_input() -> None:
    cluster = member_cluster("c1") | {"apiVersion": "cluster.kubernetes-fleet.io/v1alpha9"}
    with pytest.raises(InputError, match="apiVersion"):
        FleetScheduler([cluster], now=NOW_TIME)
    with pytest.raises(InputError, match="metadata.name"):
        FleetScheduler([member_cluster("Not_A_Name")], now=NOW_TIME)


@pytest.mark.parametrize(
    "bad",
    [
        member_cluster("c2") | {"apiVersion": "cluster.kubernetes-fleet.io/v1alpha9"},
        member_cluster("Not_A_Name"),
        member_cluster("c2", {"bad key": "x"}),
        crp("web", {"placementType": "PickSome"}),
    ],
    ids=["unserved", "name", "labels", "field"],
)
def test_a_hub_event_refused_changes_nothing(bad) -> None:
    # The hub wrote the object before its solve refused it, and every later event failed on it.
    objects = [member_cluster("c1"), crp("app", pick_all())]
    hub, untouched = HubScheduler(objects, now=NOW_TIME), HubScheduler(objects, now=NOW_TIME)
    with pytest.raises(InputError):
        hub.handle(Applied(bad), now=NOW_TIME)
    assert hub.objects() == untouched.objects()
    later = hub.handle(Applied(member_cluster("c3")), now=NOW_TIME)
    assert later == dataclasses.replace(
        untouched.handle(Applied(member_cluster("c3")), now=NOW_TIME), seconds=later.seconds
    )


# ---------------------------------------------------------------------- 5. what the CRDs allow


def test_an_unknown_prioritizer_mode_is_misconfigured_as_upstream_says() -> None:
    objects = ocm.hub(ocm.managed_cluster("a"))
    objects.append(ocm.placement("p", n=1, mode="Fancy"))
    for mode in ("greedy", "optimal"):
        outcome = schedule(objects, now=ocm.NOW_TIME, options=SolveOptions(mode=mode))
        written = next(o for o in outcome.apply if o["kind"] == "Placement")
        condition = next(c for c in written["status"]["conditions"] if c["type"] == "PlacementMisconfigured")
        message = ":incorrect prioritizer policy mode: Fancy"  # no plugin: "<plugin>:<message>"
        assert (condition["status"], condition["message"]) == ("True", message)
        assert written["status"]["numberOfSelectedClusters"] == 0


def test_a_negative_number_of_clusters_stays_refused() -> None:
    # The CRD takes it, but upstream's selectClusters panics slicing with it: no output stands for it.
    objects = [*ocm.hub(ocm.managed_cluster("a")), ocm.placement("p", n=-1)]
    assert _refusal(objects).endswith("spec.numberOfClusters: must be between 0 and 2147483647, got -1")


@pytest.mark.parametrize("kind", ["APIBinding", "Location"])
def test_a_kcp_object_without_a_spec_is_taken(kind) -> None:
    objects = _kcp_v08(kcp.placement("p"))
    extra = kcp.binding_v08(name="other") if kind == "APIBinding" else kcp.location("west", generation="v0.8")
    extra["spec"] = None  # pruned by the API server: no spec at all
    with_it = schedule([*objects, extra], now=kcp.NOW_TIME)
    without = schedule(objects, now=kcp.NOW_TIME)
    assert with_it.apply == without.apply  # a binding to no export, a location of no cluster


def test_a_kcp_placement_without_a_spec_finds_no_location() -> None:
    placement = kcp.placement("p")
    del placement["spec"]
    outcome = schedule(_kcp_v08(placement), now=kcp.NOW_TIME)
    written = _kcp_placement(outcome)
    assert written["status"]["phase"] == "Pending"
    ready = next(c for c in written["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "LocationNoMatch")


# ------------------------------------------------------------------------------- around the above


def test_a_binding_score_past_int32_is_refused_whatever_the_state() -> None:
    # The CRD's int32: an Unscheduled binding's score, which the scheduler does not read, too.
    old = binding("app", "c1", state="Unscheduled", score=(INT32 + 1, 0))
    objects = [member_cluster("c1"), crp("app", pick_all()), old]
    field, message = _refusal(objects).split(": ")[1:]
    assert (field, message) == (
        "spec.clusterDecision.clusterScore.affinityScore",
        f"must be between {-INT32 - 1} and {INT32}, got {INT32 + 1}",
    )


def test_every_read_kind_of_the_hubs_is_covered() -> None:
    # Each hub's kinds that a system reads and that hold a list of objects have a case above.
    covered = {(hub_name, kind) for hub_name, kind, _ in NULL_ITEMS}
    # A core Namespace (kcp) and a Karmada Cluster (its aggregated API server) are decoded as Go's
    # encoding/json decodes them: a null item is the zero value (test_a_null_condition_of_a_core_
    # namespace_is_a_zero_value here, test_karmada_bad_input's test_a_cluster_status_is_only_decoded).
    decoded = {(hub, "Namespace") for hub in ("kcp-v0.5", "kcp-v0.8")} | {("karmada", "Cluster")}
    for hub_name in ("fleet", "ocm", "openmcp", "kcp-v0.5", "kcp-v0.8", "karmada"):
        for obj in hub_named(hub_name).objects:
            if (hub_name, obj["kind"]) in decoded:
                continue
            if reads(obj["kind"], obj["apiVersion"]) and _lists(obj):
                assert (hub_name, obj["kind"]) in covered, (hub_name, obj["kind"])


def _lists(value: Any) -> bool:
    """Whether `value` holds a list of objects anywhere."""
    if isinstance(value, dict):
        return any(_lists(v) for v in value.values())
    if isinstance(value, list):
        return any(isinstance(v, dict) for v in value) or any(_lists(v) for v in value)
    return False


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_policy_snapshot_with_a_null_generation_reads_as_one_without(tmp_path, mode) -> None:
    # ObjectMeta reads a null generation as none: the latest snapshot's status is judged as if the
    # field were absent (it compared None with an int: a TypeError traceback, found by the fuzz).
    hub = hub_named("fleet")
    nulled, absent = copy.deepcopy(list(hub.objects)), copy.deepcopy(list(hub.objects))
    for objects, value in ((nulled, None), (absent, ...)):
        for obj in objects:
            if obj["kind"] == "ClusterSchedulingPolicySnapshot":
                obj["metadata"].pop("generation", None)
                if value is None:
                    obj["metadata"]["generation"] = None
    args = ["solve", "-f", "-", "--now", "2026-11-21T12:00:00Z", "--mode", mode, "-o", "json"]
    ran = [
        CliRunner().invoke(
            main, args, input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
        )
        for objects in (nulled, absent)
    ]
    assert [r.exit_code for r in ran] == [0, 0], ran[0].output
    assert ran[0].stdout == ran[1].stdout
