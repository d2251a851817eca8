"""adapters.live.hub.HubScheduler on small OCM, openMCP and kcp hubs: the first solve is the pipeline's,
an event writes only what it changes, the kept state is a fixed point of a full solve, the API
server's part (finalizers, deletion, generateName) is played, and the same events give the same
deltas."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from typing import Any

import pytest

from adapters.live.hub import Applied, Deleted, HubScheduler
from adapters.run.changes import object_key
from adapters.run.pipeline import schedule
from tests.fixtures import kcp, ocm
from tests.fixtures import openmcp as mcp

NOW = ocm.NOW_TIME  # the same instant in every fixture module
LATER = NOW + timedelta(minutes=1)


def _kinds(objects: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted(
        (o["kind"], o["metadata"].get("name") or o["metadata"].get("generateName", "")) for o in objects
    )


def _fixed_point(hub: HubScheduler, now=LATER) -> None:
    again = hub.resolve(now=now)
    assert (again.apply, again.delete) == ([], [])


# -------------------------------------------------------------------------------------------- OCM


def ocm_hub() -> list[dict[str, Any]]:
    clusters = [ocm.managed_cluster(f"c{i}", {"zone": "a" if i < 3 else "b"}) for i in range(1, 5)]
    return [*ocm.hub(*clusters), ocm.placement("p", n=2), ocm.placement("all")]


def ocm_chosen(hub: HubScheduler, name: str = "p") -> list[str]:
    return sorted(
        d["clusterName"]
        for o in hub.objects()
        if o["kind"] == "PlacementDecision" and o["metadata"]["labels"][ocm.PLACEMENT_LABEL] == name
        for d in o["status"]["decisions"]
    )


def test_ocm_first_solve_is_the_pipelines_and_a_fixed_point() -> None:
    objects = ocm_hub()
    hub = HubScheduler(copy.deepcopy(objects), now=NOW, verify=True)
    full = schedule(copy.deepcopy(objects), now=NOW)
    assert (hub.outcome["ocm"].apply, hub.outcome["ocm"].delete) == (full.apply, full.delete)
    assert list(hub.outcome) == ["ocm"]
    assert ocm_chosen(hub) == ["c1", "c2"]
    assert ocm_chosen(hub, "all") == ["c1", "c2", "c3", "c4"]
    # decisions created by the scheduler got a uid from the server
    assert all(o["metadata"].get("uid") for o in hub.objects() if o["kind"] == "PlacementDecision")
    _fixed_point(hub, NOW)


def test_ocm_a_cluster_removed_writes_only_the_decisions_and_statuses_it_changes() -> None:
    hub = HubScheduler(ocm_hub(), now=NOW, verify=True)
    delta = hub.handle(Deleted("ManagedCluster", "c4", api_version=ocm.V1), now=LATER)
    assert delta.systems == ("ocm",)
    # only the PickAll placement held c4: its decision and its status change, nothing of "p"
    assert _kinds(delta.apply) == [("Placement", "all"), ("PlacementDecision", "all-decision-1")]
    assert delta.delete == []
    assert ocm_chosen(hub, "all") == ["c1", "c2", "c3"]
    assert ocm_chosen(hub) == ["c1", "c2"]
    _fixed_point(hub)
    # a cluster the placements do not hold, heard again: nothing to write
    c3 = ocm.managed_cluster("c3", {"zone": "b"}, available="True", available_since=ocm.ago(-1))
    delta = hub.handle(Applied(c3), now=LATER)
    assert (delta.apply, delta.delete) == ([], [])


def test_ocm_a_placement_deleted_takes_its_decisions_along() -> None:
    hub = HubScheduler(ocm_hub(), now=NOW, verify=True)
    delta = hub.handle(Deleted("Placement", "all", ocm.NS), now=LATER)
    assert (delta.apply, delta.delete) == ([], [])
    # the garbage collector removed the decisions owned by the placement
    assert ocm_chosen(hub, "all") == []
    assert ocm_chosen(hub) == ["c1", "c2"]
    _fixed_point(hub)


# ---------------------------------------------------------------------------------------- openMCP

CONFIG = mcp.config(
    web=mcp.purpose(count=2, namespace="ns", generate_name="web-"),
    db=mcp.purpose("Exclusive", namespace="ns", labels={mcp.DELETE_LABEL: "true"}, generate_name="db-"),
)


def mcp_hub() -> list[dict[str, Any]]:
    return [mcp.cluster("ns", "c1", "web"), mcp.request("ns", "r1", "web", at_minute=1)]


def granted(hub: HubScheduler, name: str) -> str | None:
    obj = hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", name))
    ref = ((obj or {}).get("status") or {}).get("cluster")
    return None if ref is None else ref["name"]


def mcp_clusters(hub: HubScheduler) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in hub.objects() if o["kind"] == "Cluster"}


def test_openmcp_first_solve_is_the_pipelines_and_a_fixed_point() -> None:
    hub = HubScheduler(mcp_hub(), now=NOW, config=CONFIG, verify=True)
    full = schedule(mcp_hub(), now=NOW, config=CONFIG)
    assert (hub.outcome["openmcp"].apply, hub.outcome["openmcp"].delete) == (full.apply, full.delete)
    assert granted(hub, "r1") == "c1"
    assert mcp_clusters(hub)["c1"]["metadata"]["finalizers"] == [mcp.fin("ns", "r1")]
    _fixed_point(hub, NOW)


def test_openmcp_a_request_created_writes_it_and_its_cluster_only() -> None:
    hub = HubScheduler(mcp_hub(), now=NOW, config=CONFIG, verify=True)
    r2 = mcp.request("ns", "r2", "web", at_minute=2)
    delta = hub.handle(Applied(r2), now=LATER)
    assert _kinds(delta.apply) == [("Cluster", "c1"), ("ClusterRequest", "r2")]
    assert granted(hub, "r2") == "c1" and granted(hub, "r1") == "c1"
    # the third web request finds c1 full (tenancyCount 2): a new cluster
    delta = hub.handle(Applied(mcp.request("ns", "r3", "web", at_minute=3)), now=LATER)
    (new,) = [name for name in mcp_clusters(hub) if name != "c1"]
    assert _kinds(delta.apply) == [("Cluster", new), ("ClusterRequest", "r3")]
    assert new.startswith("web-")
    assert mcp_clusters(hub)[new]["metadata"]["uid"]  # given by the server
    assert granted(hub, "r3") == new
    _fixed_point(hub)


def test_openmcp_a_deleted_request_frees_its_cluster_and_the_cluster_goes() -> None:
    hub = HubScheduler(mcp_hub(), now=NOW, config=CONFIG, verify=True)
    hub.handle(Applied(mcp.request("ns", "d1", "db", at_minute=2)), now=LATER)
    (db,) = [name for name in mcp_clusters(hub) if name.startswith("db-")]
    assert granted(hub, "d1") == db
    assert mcp_clusters(hub)[db]["metadata"]["labels"][mcp.DELETE_LABEL] == "true"
    assert mcp_clusters(hub)[db]["metadata"]["finalizers"] == [mcp.fin("ns", "d1")]
    # the user deletes the request: its finalizer holds it, the scheduler lets it go, the cluster
    # it held is left without requests and is deleted (over the next events at the latest)
    delta = hub.handle(Deleted("ClusterRequest", "d1", "ns"), now=LATER)
    for _ in range(3):
        if db not in mcp_clusters(hub):
            break
        delta = hub.handle(Applied(mcp.cluster("ns", "c1", "web")), now=LATER)
    assert hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "d1")) is None
    assert db not in mcp_clusters(hub)
    assert any(ref["name"] == db for ref in delta.delete) or db not in mcp_clusters(hub)
    assert granted(hub, "r1") == "c1"
    _fixed_point(hub)


def test_openmcp_a_user_deleting_a_cluster_with_finalizers_only_marks_it() -> None:
    hub = HubScheduler(mcp_hub(), now=NOW, config=CONFIG, verify=True)
    hub.handle(Deleted("Cluster", "c1", "ns"), now=LATER)
    assert mcp_clusters(hub)["c1"]["metadata"]["deletionTimestamp"] == LATER.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert granted(hub, "r1") == "c1"  # a granted request keeps its cluster
    _fixed_point(hub)


# -------------------------------------------------------------------------------------------- kcp


def kcp_v05() -> list[dict[str, Any]]:
    clusters = [kcp.cluster(f"c{i}", "us") for i in range(1, 4)]
    spaces = [kcp.namespace(f"n{i}", created=i) for i in range(6)]
    return [*kcp.compute_v05(*clusters, locations=["us"]), *spaces]


def kcp_v08() -> list[dict[str, Any]]:
    clusters = [kcp.sync_target(f"s{i}", "us") for i in range(1, 4)]
    spaces = [kcp.namespace(f"n{i}", created=i) for i in range(6)]
    placements = [kcp.placement("p", created=0)]
    return [*kcp.compute_v08(*clusters, locations=["us"]), *placements, *spaces]


def on_clusters(hub: HubScheduler) -> dict[str, list[str]]:
    """namespace -> the clusters it is on (v0.5 Pending/Bound entries, v0.8 state labels)."""
    from bench.kcp_hub import placed

    return {ns: sorted(c for _, c in on) for (_, ns), on in sorted(placed(hub.objects()).items())}


@pytest.mark.parametrize("build", [kcp_v05, kcp_v08], ids=["v0.5", "v0.8"])
def test_kcp_first_solve_is_the_pipelines_and_a_fixed_point(build) -> None:
    hub = HubScheduler(build(), now=NOW, verify=True)
    full = schedule(build(), now=NOW)
    assert (hub.outcome["kcp"].apply, hub.outcome["kcp"].delete) == (full.apply, full.delete)
    assert len(on_clusters(hub)) == 6
    _fixed_point(hub, NOW)


@pytest.mark.parametrize(
    ("build", "kind"), [(kcp_v05, "WorkloadCluster"), (kcp_v08, "SyncTarget")], ids=["v0.5", "v0.8"]
)
def test_kcp_an_evicting_cluster_moves_only_its_namespaces(build, kind) -> None:
    hub = HubScheduler(build(), now=NOW, verify=True)
    before = on_clusters(hub)
    name = max(
        sorted({c for on in before.values() for c in on}),
        key=lambda c: sum(c in on for on in before.values()),
    )
    held = sorted(ns for ns, on in before.items() if name in on)
    assert held
    evicting = kcp.cluster(name, "us", kind=kind, evict_after=kcp.ago(seconds=60))
    delta = hub.handle(Applied(evicting), now=LATER)
    assert delta.systems == ("kcp",)
    after = on_clusters(hub)
    moved = sorted(ns for ns in before if before[ns] != after.get(ns))
    assert moved == held
    assert all(name not in after[ns] for ns in held)
    # the delta holds the namespaces that moved (v0.8: and the placement's status, if it changed)
    assert sorted(o["metadata"]["name"] for o in delta.apply if o["kind"] == "Namespace") == held
    _fixed_point(hub)


def test_kcp_a_namespace_wakes_kcp_only_while_kcp_has_objects() -> None:
    hub = HubScheduler([kcp.namespace("lonely")], now=NOW)
    assert hub.outcome == {} and hub.initial.apply == []
    delta = hub.handle(Applied(kcp.namespace("other")), now=NOW)
    assert delta.systems == () and delta.apply == []
    hub = HubScheduler(kcp_v05(), now=NOW)
    delta = hub.handle(Applied(kcp.namespace("n9", created=9)), now=LATER)
    assert delta.systems == ("kcp",)
    assert [o["metadata"]["name"] for o in delta.apply] == ["n9"]


# ---------------------------------------------------------------------------------- all systems


def _events() -> list[Any]:
    return [
        Deleted("ManagedCluster", "c1", api_version=ocm.V1),
        Applied(mcp.request("ns", "r2", "web", at_minute=2)),
        Applied(mcp.request("ns", "r3", "web", at_minute=3)),
        Applied(kcp.cluster("c2", "us", evict_after=kcp.ago(seconds=60))),
        Deleted("ClusterRequest", "r1", "ns"),
        Applied(ocm.placement("q", n=1)),
    ]


def _run() -> list[str]:
    hub = HubScheduler([*ocm_hub(), *mcp_hub(), *kcp_v05()], now=NOW, config=CONFIG, verify=True)
    assert list(hub.outcome) == ["ocm", "openmcp", "kcp"]
    out = [json.dumps([hub.initial.apply, hub.initial.delete], sort_keys=True)]
    for event in _events():
        delta = hub.handle(event, now=LATER)
        assert len(delta.systems) == 1
        out.append(json.dumps([delta.apply, delta.delete], sort_keys=True))
    _fixed_point(hub)
    return out


def test_one_hub_of_three_systems_gives_the_same_deltas_for_the_same_events() -> None:
    assert _run() == _run()


def test_a_generate_name_object_gets_a_deterministic_name_and_uid() -> None:
    def run() -> list[dict[str, Any]]:
        hub = HubScheduler([], now=NOW)
        for _ in range(2):
            hub.handle(
                Applied({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"generateName": "t-"}})
            )
        return hub.objects()

    first = run()
    assert [len(o["metadata"]["name"]) for o in first] == [len("t-") + 5] * 2
    assert len({o["metadata"]["uid"] for o in first}) == 2
    assert first == run()


def test_deleting_an_unknown_kind_of_two_groups_needs_the_api_version() -> None:
    a = {"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"}}
    b = {"apiVersion": "y.io/v1", "kind": "Thing", "metadata": {"name": "t"}}
    hub = HubScheduler([a, b], now=NOW)
    with pytest.raises(ValueError, match="several API groups"):
        hub.handle(Deleted("Thing", "t"), now=NOW)
    hub.handle(Deleted("Thing", "t", api_version="x.io/v1"), now=NOW)
    assert [object_key(o) for o in hub.objects()] == [("y.io", "Thing", "", "", "t")]


def test_the_first_solve_leaves_nothing_to_undo() -> None:
    # The store's journal held the whole hub as it stood before the first solve's writes (a
    # second copy, let go of only at the first event): the first solve is for good.
    hub = HubScheduler(mcp_hub(), now=NOW, config=CONFIG)
    assert hub.initial.apply  # it wrote
    solved = copy.deepcopy(hub.objects())
    hub._store.undo()
    assert hub.objects() == solved


def test_a_replaced_object_keeps_its_indexes_and_an_events_writes_share_the_time(monkeypatch) -> None:
    """The store replacing an object under its key moves only what differs: its name's and its
    owners' index entries are the same sets (its owners read again only where its
    ownerReferences differ), its key goes last in its kind's order, as an unindex and index left
    them; every index is what a store made of the same objects holds. The writes of one `now`
    make its text once."""
    from adapters.live import store as store_module

    def cm(name: str, owner: str | None, data: str) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name, "namespace": "ns"}
        if owner is not None:
            meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": owner}]
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"v": data}}

    store = store_module.Store([cm("a", None, "0"), cm("b", "a", "0"), cm("c", "a", "0")])
    texts = []
    monkeypatch.setattr(store_module, "time_text", lambda moment: texts.append(moment) or "T")
    named, owned = store._named[("ConfigMap", "ns", "b")], store._dependents[("", "ConfigMap", "a")]
    store.write(cm("b", "a", "1"), NOW)  # the same owner
    assert (
        store._named[("ConfigMap", "ns", "b")] is named and store._dependents[("", "ConfigMap", "a")] is owned
    )
    store.write(cm("c", "b", "1"), NOW)  # another owner
    store.write(cm("d", None, "1"), NOW)  # new
    assert texts == [NOW]
    store.write(cm("a", None, "2"), LATER)
    assert texts == [NOW, LATER]
    assert [o["metadata"]["name"] for o in store.of_kind("ConfigMap")] == ["b", "c", "d", "a"]
    fresh = store_module.Store(store.values())
    assert store._dependents == fresh._dependents and store._named == fresh._named
    assert store._types == fresh._types and set(store._ids) == {id(o) for o in store.values()}
    assert dict(store._dependents) == {
        ("", "ConfigMap", "a"): {object_key(cm("b", "a", "0"))},
        ("", "ConfigMap", "b"): {object_key(cm("c", "b", "0"))},
    }
