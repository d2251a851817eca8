"""adapters.live.hub.HubScheduler serving Karmada with upstream's triggers (pkg/scheduler/event_handler.go
at v1.19, semantics section 2.1): an event re-schedules only the bindings upstream's event handlers
enqueue, each through the decision tree against the hub as it stands, and leaves every other
binding as it is, even where a full run would now decide otherwise (`HubScheduler.resolve` shows
it). The expectations are what upstream's scheduler writes after the same event.

The hub: three clusters (m1 and m2 labelled env=prod, m3 env=dev) and five bindings, each
scheduled by the first solve at NOW; the events come at LATER, so a binding re-scheduled by one
carries lastScheduledTime LATER:
- dup: Duplicated, affinity env=prod; web: dynamic weights over env=prod, 1 cpu a replica;
- any: Duplicated without affinity (every cluster event enqueues it);
- dev: Duplicated on clusterNames [m3];
- tiers: Duplicated with clusterAffinities a (clusterNames [m1]) then b (clusterNames [m3]).
"""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from typing import Any

import pytest

from adapters.errors import InputError
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.live.hub import Applied, Deleted, Delta, HubScheduler
from adapters.registry import facet, system
from adapters.run.changes import SERVER_FIELDS, object_key
from solver import SolveOptions
from tests.fixtures import karmada as k

NOW = k.NOW_TIME
LATER = NOW + timedelta(minutes=1)
FIRST, NEXT = time_text(NOW), time_text(LATER)
ROOM = {"cpu": "8", "pods": "110"}
BINDINGS = ("any", "dev", "dup", "tiers", "web")

Obj = dict[str, Any]


def _prod() -> dict[str, Any]:
    return {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}


def _cluster(name: str, env: str, **extra: Any) -> Obj:
    out = k.cluster(name, {"env": env}, allocatable=ROOM, **extra)
    out["metadata"]["generation"] = 1  # as the API server keeps it
    return out


def _objects() -> list[Obj]:
    duplicated = {"replicaScheduling": k.DUPLICATED}
    terms = [{"affinityName": "a", "clusterNames": ["m1"]}, {"affinityName": "b", "clusterNames": ["m3"]}]
    return [
        _cluster("m1", "prod"),
        _cluster("m2", "prod"),
        _cluster("m3", "dev"),
        k.binding("dup", placement={**_prod(), **duplicated}, replicas=2),
        k.binding(
            "web",
            placement={**_prod(), "replicaScheduling": k.divided(dynamic="AvailableReplicas")},
            replicas=4,
            requests={"cpu": "1"},
        ),
        k.binding("any", placement=duplicated, replicas=1),
        k.binding("dev", placement={"clusterAffinity": {"clusterNames": ["m3"]}, **duplicated}, replicas=1),
        k.binding("tiers", placement={"clusterAffinities": terms, **duplicated}, replicas=1),
    ]


@pytest.fixture(params=["greedy", "optimal"])
def hub(request) -> HubScheduler:
    return HubScheduler(_objects(), now=NOW, options=SolveOptions(mode=request.param), verify=True)


# ------------------------------------------------------------------------------------------ helpers


def _key(kind: str, name: str) -> tuple[str, str, str, str, str]:
    if kind == "Cluster":
        return ("cluster.karmada.io", "Cluster", "", "", name)
    return ("work.karmada.io", kind, "", k.NS, name)


def _get(hub: HubScheduler, kind: str, name: str) -> Obj:
    obj = hub.get(_key(kind, name))
    assert obj is not None
    return copy.deepcopy(obj)


def _binding(hub: HubScheduler, name: str) -> Obj:
    return _get(hub, "ResourceBinding", name)


def _placed(hub: HubScheduler) -> dict[str, tuple[tuple[tuple[str, int], ...], str]]:
    """binding -> (spec.clusters as (name, replicas), status.lastScheduledTime)."""
    out = {}
    for name in BINDINGS:
        b = _binding(hub, name)
        clusters = tuple((c["name"], c.get("replicas", 0)) for c in b["spec"].get("clusters", ()))
        out[name] = (clusters, b["status"]["lastScheduledTime"])
    return out


def _settled(hub: HubScheduler, *names: str) -> bool:
    """Whether the bindings' observed generation is their generation."""
    return all(
        (b := _binding(hub, name))["status"]["schedulerObservedGeneration"] == b["metadata"]["generation"]
        for name in names
    )


def _bare(obj: Obj) -> Obj:
    metadata = {k: v for k, v in obj["metadata"].items() if k not in SERVER_FIELDS}
    return {**obj, "metadata": metadata}


def _handle(hub: HubScheduler, event: Any, now=LATER) -> Delta:
    """The event handled, with the delta checked to hold only changes and every change: each
    object it writes differs from the hub before, and every binding the event did not name is
    as it was unless the delta writes it."""
    before = {object_key(o): _bare(o) for o in hub.objects()}
    delta = hub.handle(event, now=now)
    written = {object_key(o) for o in delta.apply}
    assert len(written) == len(delta.apply)
    for obj in delta.apply:
        assert _bare(obj) != before.get(object_key(obj))
    named = object_key(event.obj) if isinstance(event, Applied) else _key(event.kind, event.name)
    for key, obj in before.items():
        if key[1] != "Cluster" and key != named and key not in written:
            assert hub.get(key) is not None and _bare(hub.get(key)) == obj
    assert delta.delete == []
    return delta


def _names(delta: Delta) -> list[str]:
    return sorted(o["metadata"]["name"] for o in delta.apply)


def _relabelled(hub: HubScheduler, name: str, env: str) -> Obj:
    obj = _get(hub, "Cluster", name)
    obj["metadata"]["labels"] = {"env": env}
    return obj


def _lagging(hub: HubScheduler, name: str) -> Obj:
    """The binding with its observed generation set back: a status-only update."""
    obj = _binding(hub, name)
    obj["status"]["schedulerObservedGeneration"] = obj["metadata"]["generation"] - 1
    return obj


# ------------------------------------------------------------------------------------- the facet


def test_karmada_names_its_model_and_the_hub_asks_the_registry_for_it() -> None:
    objects = _objects()
    live = facet("karmada", system("karmada").reach)(from_objects(objects, "<test>"), now=NOW, seed=0)
    # a cluster's resourceSummary changing enqueues nothing: nothing to solve
    busy = copy.deepcopy(objects[0])
    busy["status"]["resourceSummary"]["allocated"] = {"cpu": "7"}
    assert live.take([(objects[0], busy)], NOW) is None
    # a binding created: that binding, against every cluster
    taken = live.take([(None, objects[4])], NOW)
    assert [r.name for r in taken.batch.requests] == ["web"]
    assert [c.name for c in taken.batch.clusters] == ["m1", "m2", "m3"]


# -------------------------------------------------------------------------------- the first solve


def test_the_first_solve_schedules_every_binding_and_settles_on_its_own_patch(hub) -> None:
    # Upstream patches spec.clusters (the generation goes to 2) and records the generation it
    # read (1); its own patch is an update of the generation, which enqueues the binding again:
    # the decision tree then records generation 2 (Duplicated: schedules again, to the same).
    assert _placed(hub) == {
        "any": ((("m1", 1), ("m2", 1), ("m3", 1)), FIRST),
        "dev": ((("m3", 1),), FIRST),
        "dup": ((("m1", 2), ("m2", 2)), FIRST),
        "tiers": ((("m1", 1),), FIRST),
        "web": ((("m1", 2), ("m2", 2)), FIRST),
    }
    assert _binding(hub, "web")["metadata"]["generation"] == 2
    assert _settled(hub, *BINDINGS)
    assert sorted(o["metadata"]["name"] for o in hub.initial.apply) == list(BINDINGS)


# ---------------------------------------------------------------------------------- cluster events


def _status_changes(hub: HubScheduler) -> dict[str, Obj]:
    summary, conditions, apis = (_get(hub, "Cluster", "m1") for _ in range(3))
    summary["status"]["resourceSummary"]["allocated"] = {"cpu": "7", "pods": "100"}
    conditions["status"]["conditions"] = [
        {
            "type": "Ready",
            "status": "False",
            "reason": "ClusterNotReachable",
            "message": "",
            "lastTransitionTime": NEXT,
        }
    ]
    apis["status"]["apiEnablements"] = []
    return {"resourceSummary": summary, "conditions": conditions, "apiEnablements": apis}


@pytest.mark.parametrize("field", ["resourceSummary", "conditions", "apiEnablements"])
def test_a_clusters_status_changing_reschedules_nothing(hub, field) -> None:
    before = _placed(hub)
    delta = _handle(hub, Applied(_status_changes(hub)[field]))
    assert (delta.apply, delta.delete) == ([], [])
    assert _placed(hub) == before
    # a full run would schedule the Duplicated bindings again: upstream waits for their events
    assert _names(hub.resolve(now=LATER)) == ["any", "dev", "dup", "tiers"]


def test_a_relabelled_cluster_enqueues_the_bindings_matching_it_old_or_new_and_those_without_affinity(
    hub,
) -> None:
    # web and dev lag (a status-only update: enqueues nothing), to show which the event enqueues
    for name in ("web", "dev"):
        assert _names(_handle(hub, Applied(_lagging(hub, name)))) == []
    delta = _handle(hub, Applied(_relabelled(hub, "m1", "staging")))
    # enqueued: dup and web (env=prod matched the old m1), any (no affinity), tiers (its observed
    # term a names m1); dev's clusterNames [m3] matches neither the old m1 nor the new
    assert _names(delta) == ["any", "dup", "tiers", "web"]
    assert _placed(hub) == {
        "any": ((("m1", 1), ("m2", 1), ("m3", 1)), NEXT),
        "dev": ((("m3", 1),), FIRST),
        "dup": ((("m2", 2),), NEXT),  # Duplicated: scheduled again, m1 no longer matches
        "tiers": ((("m1", 1),), NEXT),
        # Divided, its replicas and placement as applied: the tree says nothing (upstream's TODO
        # "reschedule binding on cluster change other than cluster deletion"): only the generation
        "web": ((("m1", 2), ("m2", 2)), FIRST),
    }
    assert _settled(hub, "any", "dup", "tiers", "web")
    assert not _settled(hub, "dev")


def test_a_cluster_matching_a_term_enqueues_by_the_observed_term_only(hub) -> None:
    # m3 relabelled: dev (clusterNames [m3]) and any; tiers observes term a (m1), not b (m3)
    delta = _handle(hub, Applied(_relabelled(hub, "m3", "qa")))
    assert _names(delta) == ["any", "dev"]
    # m2 relabelled: tiers, its observed generation lagging, is enqueued whatever its terms
    _handle(hub, Applied(_lagging(hub, "tiers")))
    delta = _handle(hub, Applied(_relabelled(hub, "m2", "qa")), now=LATER + timedelta(minutes=1))
    assert _names(delta) == ["any", "dup", "tiers"]
    assert _placed(hub)["dup"] == ((("m1", 2),), time_text(LATER + timedelta(minutes=1)))
    assert _placed(hub)["web"][1] == FIRST  # enqueued, nothing to do, nothing to write


def test_a_clusters_spec_changed_enqueues_as_a_relabel_does(hub) -> None:
    tainted = _get(hub, "Cluster", "m3")
    tainted["spec"]["taints"] = [{"key": "maintenance", "effect": "NoSchedule"}]
    delta = _handle(hub, Applied(tainted))
    assert _get(hub, "Cluster", "m3")["metadata"]["generation"] == 2
    assert _names(delta) == ["any", "dev"]
    # both stay on m3: the taint spares the bindings already there (TaintToleration)
    assert _placed(hub)["dev"] == ((("m3", 1),), NEXT)
    assert _placed(hub)["any"] == ((("m1", 1), ("m2", 1), ("m3", 1)), NEXT)


def test_a_hand_written_cluster_without_a_generation_counts_its_spec() -> None:
    objects = _objects()
    del objects[2]["metadata"]["generation"]
    hub = HubScheduler(objects, now=NOW)
    tainted = _get(hub, "Cluster", "m3")
    tainted["spec"]["taints"] = [{"key": "maintenance", "effect": "NoSchedule"}]
    assert _names(_handle(hub, Applied(tainted))) == ["any", "dev"]


def test_a_clusters_deletion_starting_enqueues_the_bindings_matching_it(hub) -> None:
    m2 = _get(hub, "Cluster", "m2")
    m2["metadata"]["finalizers"] = ["karmada.io/cluster-controller"]
    assert _names(_handle(hub, Applied(m2))) == []  # metadata only
    delta = _handle(hub, Deleted("Cluster", "m2", api_version=k.CLUSTER_API))
    assert _get(hub, "Cluster", "m2")["metadata"]["deletionTimestamp"] == NEXT
    # the new object alone is matched: dup and web (env=prod), any; not dev nor tiers
    assert _names(delta) == ["any", "dup", "web"]
    placed = _placed(hub)
    assert placed["web"] == ((("m1", 4),), NEXT)  # a target being deleted: scheduled again
    assert placed["dup"] == ((("m1", 2),), NEXT)
    assert placed["any"] == ((("m1", 1), ("m3", 1)), NEXT)
    assert placed["dev"][1] == placed["tiers"][1] == FIRST
    # its finalizer removed, the cluster goes: a deletion enqueues nothing
    gone = _get(hub, "Cluster", "m2")
    gone["metadata"]["finalizers"] = []
    assert _names(_handle(hub, Applied(gone))) == []
    assert hub.get(_key("Cluster", "m2")) is None


def test_a_cluster_added_or_removed_reschedules_nothing(hub) -> None:
    delta = _handle(hub, Applied(_cluster("m4", "prod")))
    assert (delta.apply, delta.delete) == ([], [])
    # a full run would spread the Duplicated bindings over m4 too
    again = {o["metadata"]["name"]: o for o in hub.resolve(now=LATER).apply}
    assert {"name": "m4", "replicas": 2} in again["dup"]["spec"]["clusters"]
    assert _names(_handle(hub, Deleted("Cluster", "m3", api_version=k.CLUSTER_API))) == []
    assert _placed(hub)["dev"] == ((("m3", 1),), FIRST)  # upstream waits for dev's own event


# ---------------------------------------------------------------------------------- binding events


def test_a_binding_created_is_scheduled_alone(hub) -> None:
    new = k.binding("api", placement={"replicaScheduling": k.DUPLICATED}, replicas=1, created=k.at(5))
    delta = _handle(hub, Applied(new))
    assert _names(delta) == ["api"]
    api = _binding(hub, "api")
    assert [c["name"] for c in api["spec"]["clusters"]] == ["m1", "m2", "m3"]
    assert api["status"]["lastScheduledTime"] == NEXT
    assert _settled(hub, "api")


def test_a_binding_scaled_is_scheduled_alone(hub) -> None:
    web = _binding(hub, "web")
    web["spec"]["replicas"] = 6
    delta = _handle(hub, Applied(web))
    assert _names(delta) == ["web"]
    assert _placed(hub)["web"] == ((("m1", 3), ("m2", 3)), NEXT)
    assert _binding(hub, "web")["metadata"]["generation"] == 4  # the user's scale, then the patch
    assert _settled(hub, "web")
    assert all(_placed(hub)[name][1] == FIRST for name in ("any", "dev", "dup", "tiers"))


def test_a_binding_replaced_is_scheduled_alone(hub) -> None:
    dup = _binding(hub, "dup")
    dup["spec"]["placement"]["clusterAffinity"] = {"clusterNames": ["m2", "m3"]}
    delta = _handle(hub, Applied(dup))
    assert _names(delta) == ["dup"]
    assert _placed(hub)["dup"] == ((("m2", 2), ("m3", 2)), NEXT)


def test_a_bindings_status_only_update_enqueues_nothing(hub) -> None:
    web = _binding(hub, "web")
    web["status"]["conditions"][0]["message"] = "edited"
    web["spec"]["clusters"] = web["spec"]["clusters"]  # the same spec: the generation holds
    delta = _handle(hub, Applied(web))
    assert (delta.apply, delta.delete) == ([], [])
    assert _binding(hub, "web")["status"]["conditions"][0]["message"] == "edited"


def test_a_binding_newly_watched_is_an_add() -> None:
    # client-go's filtering handler turns an update that newly passes the filter into an add:
    # the binding is enqueued though its generation holds
    objects = _objects()
    objects[5]["metadata"]["labels"] = {}
    hub = HubScheduler(objects, now=NOW)
    assert "status" not in _binding(hub, "any")
    labelled = _binding(hub, "any")
    labelled["metadata"]["labels"] = {k.PP_ID: "0b4e-policy"}
    assert _names(_handle(hub, Applied(labelled))) == ["any"]
    assert _placed(hub)["any"] == ((("m1", 1), ("m2", 1), ("m3", 1)), NEXT)


def test_a_bindings_deletion_reschedules_nothing(hub) -> None:
    # web's cpu leaves its clusters, yet nothing is enqueued (the summary follows, status only)
    delta = _handle(hub, Deleted("ResourceBinding", "web", k.NS))
    assert (delta.apply, delta.delete) == ([], [])
    assert hub.get(_key("ResourceBinding", "web")) is None
    held = _binding(hub, "dup")
    held["metadata"]["finalizers"] = ["karmada.io/binding-controller"]
    _handle(hub, Applied(held))
    delta = _handle(hub, Deleted("ResourceBinding", "dup", k.NS))
    assert (delta.apply, delta.delete) == ([], [])
    assert _binding(hub, "dup")["metadata"]["deletionTimestamp"] == NEXT


# ------------------------------------------------------------------------ refusals and determinism


def _bad_summary(hub: HubScheduler) -> Obj:
    obj = _get(hub, "Cluster", "m1")
    obj["status"]["resourceSummary"]["allocated"] = {"cpu": "lots"}
    return obj


def _bad_status(hub: HubScheduler) -> Obj:
    obj = _binding(hub, "web")
    obj["status"]["schedulerObservedGeneration"] = "two"
    return obj


def _unserved(hub: HubScheduler) -> Obj:
    return {**_get(hub, "Cluster", "m1"), "apiVersion": "cluster.karmada.io/v1alpha9"}


@pytest.mark.parametrize("bad", [_bad_summary, _bad_status, _unserved], ids=["summary", "status", "version"])
def test_a_refused_event_changes_nothing_though_it_enqueues_nothing(bad) -> None:
    hub, untouched = HubScheduler(_objects(), now=NOW), HubScheduler(_objects(), now=NOW)
    with pytest.raises(InputError):
        hub.handle(Applied(bad(hub)), now=LATER)
    assert hub.objects() == untouched.objects()
    assert _model(hub) == _model(untouched)
    event = Applied(_relabelled(hub, "m1", "staging"))
    assert hub.handle(event, now=LATER).apply == untouched.handle(event, now=LATER).apply
    assert _model(hub) == _model(untouched)


def test_changes_taken_together_are_all_read_before_the_model_takes_any() -> None:
    """A cluster relabelled and a binding refused, heard together (as the garbage collector's
    changes are): the refusal comes after the cluster was read, and the model is as it was (it
    keeps no journal: nothing it does after its reads can refuse an event)."""
    hub = HubScheduler(_objects(), now=NOW)
    live, before = hub._live["karmada"], _model(hub)
    relabelled, bad = _relabelled(hub, "m1", "staging"), _bad_status(hub)
    changes = [(hub.get(object_key(relabelled)), relabelled), (hub.get(object_key(bad)), bad)]
    with pytest.raises(InputError, match="schedulerObservedGeneration"):
        live.take(changes, LATER)
    assert _model(hub) == before


def test_a_binding_woken_with_an_applied_placement_it_cannot_decode_refuses_nothing() -> None:
    """Every field the decision tree and the emit read is read (or refused) when the binding is
    stored; the applied-placement annotation, read only when a binding is woken, is read as
    upstream reads it, never refused: a user's status-only write breaking it wakes nothing, and
    the cluster event that wakes the binding later is taken (as Fleet's is not: its load reads
    what it wakes, and keeps a journal for it), the model the one the hub's objects make."""
    from adapters.karmada.reach import live

    hub = HubScheduler(_objects(), now=NOW, verify=True)
    broken = _binding(hub, "any")
    broken["metadata"]["annotations"]["policy.karmada.io/applied-placement"] = "{not json"
    assert _handle(hub, Applied(broken)).apply == []
    assert "any" in _names(_handle(hub, Applied(_relabelled(hub, "m3", "qa"))))
    assert _model(hub) == _model_of(live(from_objects(hub.objects(), "<hub>"), now=LATER, seed=0))


def _model(hub: HubScheduler) -> dict[str, Any]:
    return _model_of(hub._live["karmada"])


def _model_of(live: Any) -> dict[str, Any]:
    """What Karmada's model holds, by value (bindings by their objects)."""
    return {
        "clusters": dict(live.clusters),
        "models": list(live._rows.models),
        "deleting": set(live._deleting),
        "bindings": {key: b.manifest.obj for key, b in live.bindings.items()},
        "groups": {group: set(keys) for group, keys in live._groups.items()},
        "group_of": dict(live._group_of),
        "affinity": set(live._affinity),
    }


def _run() -> list[str]:
    hub = HubScheduler(_objects(), now=NOW, verify=True)
    out = [json.dumps(hub.initial.apply, sort_keys=True)]
    web = _binding(hub, "web")
    web["spec"]["replicas"] = 5
    events = [
        Applied(_relabelled(hub, "m1", "staging")),
        Applied(web),
        Applied(_status_changes(hub)["resourceSummary"]),
        Deleted("Cluster", "m2", api_version=k.CLUSTER_API),
        Applied(k.binding("api", placement={"replicaScheduling": k.DUPLICATED}, replicas=1)),
    ]
    for event in events:
        delta = hub.handle(event, now=LATER)
        out.append(json.dumps([delta.apply, delta.delete], sort_keys=True))
    return out


def test_the_same_events_give_the_same_deltas() -> None:
    assert _run() == _run()
