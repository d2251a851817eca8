"""kcp's other actors as pure transition functions (adapters.kcp.actors), both generations: each
edge of the namespace controller, the resource controller and the syncer, the 5 s grace of v0.8,
coordination finalizers holding a removal back, purity and determinism, and the invariant that no
workload object loses its state label before its downstream removal is signalled (a property over
random schedules of the scheduler's writes)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.kcp.actors import (
    ACTORS,
    REMOVING_GRACE,
    V05,
    V08,
    Transition,
    describe,
    diff_objects,
    label_losses,
    namespace_controller_v05,
    namespace_controller_v08,
    resource_controller,
    syncer,
)
from adapters.kcp.annotation import format_placement
from adapters.kcp.names import Generation
from adapters.kcp.workspace import mark

T0 = datetime(2026, 11, 21, 12, tzinfo=UTC)
WS = "root:org:team"
COMPUTE = "root:compute"
PLACEMENT = "scheduling.kcp.dev/placement"
SYNCTARGET = "internal.workload.kcp.dev/synctarget"
V05_GEN, V08_GEN = "v0.5", "v0.8"


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def loc(cluster: str, location: str = "us-east") -> str:
    return f"{COMPUTE}+{location}+{cluster}"


def _meta(name, ws, gen, annotations, namespace=None):
    """Metadata marked with the workspace as kcp of generation `gen` marks it (v0.5:
    metadata.clusterName; v0.8: the annotation kcp.dev/cluster)."""
    meta = {
        "name": name,
        **({"namespace": namespace} if namespace else {}),
        "annotations": dict(annotations or {}),
    }
    return mark(meta, ws, Generation(gen))


def namespace(
    name="app", *, entries=None, labels=None, annotations=None, finalizers=None, ws=WS, gen=V05_GEN
):
    meta = _meta(name, ws, gen, annotations)
    if entries is not None:
        meta["annotations"][PLACEMENT] = format_placement(entries)
    if labels:
        meta["labels"] = dict(labels)
    if finalizers:
        meta["finalizers"] = list(finalizers)
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def workload(kind="ConfigMap", name="cfg", ns="app", *, labels=None, annotations=None, ws=WS, gen=V05_GEN):
    api = "apps/v1" if kind == "Deployment" else "v1"
    meta = _meta(name, ws, gen, annotations, namespace=ns)
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": api, "kind": kind, "metadata": meta}


def placement(name="default", *, phase="Bound", target=None, selector=None, ready="True", ws=WS):
    meta = _meta(name, ws, V08_GEN, None)
    if target is not None:
        meta["annotations"][SYNCTARGET] = target
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": ready}]}
    spec = {"locationSelectors": [{}], "locationWorkspace": COMPUTE}
    if selector is not None:
        spec["namespaceSelector"] = selector
    return {
        "apiVersion": "scheduling.kcp.dev/v1alpha1",
        "kind": "Placement",
        "metadata": meta,
        "spec": spec,
        "status": status,
    }


def find(objects, kind, name):
    (obj,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return obj


def labels(obj):
    return obj["metadata"].get("labels", {})


def annotations(obj):
    return obj["metadata"].get("annotations", {})


def entries(obj):
    return json.loads(annotations(obj)[PLACEMENT])


def finalizers(obj):
    return obj["metadata"].get("finalizers", [])


def run_actors(objects, generation, now, *, passes=20):
    """The actors of a generation over and over (no scheduler), 5 s apart, until nothing changes
    and none waits; the invariant checked after every pass. Returns the objects, the transitions
    and the passes made."""
    log = []
    for count in range(1, passes + 1):
        changed = waiting = False
        for _, actor in ACTORS[generation]:
            acted = actor(objects, now)
            assert label_losses(objects, acted.objects, generation=generation) == []
            changed |= bool(acted.transitions)
            waiting |= acted.wake is not None
            log += acted.transitions
            objects = acted.objects
        if not changed and not waiting:
            return objects, log, count
        now += timedelta(seconds=5)
    raise AssertionError("the actors did not settle")


# ========================================================================================= v0.5


def v05_hub(state="Pending", *, extra_labels=None, coordination=None, **ns):
    ann = {V05.finalizers + "c1": coordination} if coordination else None
    return [
        namespace(entries={loc("c1"): state}, labels=extra_labels, **ns),
        workload("ConfigMap", "cfg", annotations=ann),
        workload("Deployment", "web"),
        workload("ConfigMap", "other", ns="elsewhere"),  # no Namespace object: not a workload of ours
    ]


def test_v05_pending_gets_the_sync_label_then_bound_once_the_syncer_adopted_it():
    objects = v05_hub()
    first = namespace_controller_v05(objects, T0)
    ns = find(first.objects, "Namespace", "app")
    assert labels(ns) == {V05.state + "c1": "Sync"}
    assert entries(ns) == {loc("c1"): "Pending"}  # not adopted yet
    copied = resource_controller(first.objects, T0, generation="v0.5")
    for name in ("cfg", "web"):
        kind = "Deployment" if name == "web" else "ConfigMap"
        assert labels(find(copied.objects, kind, name)) == {V05.state + "c1": "Sync"}
    assert "labels" not in find(copied.objects, "ConfigMap", "other")["metadata"]
    adopted = syncer(copied.objects, T0, generation="v0.5")
    assert finalizers(find(adopted.objects, "ConfigMap", "cfg")) == [V05.syncer + "c1"]
    assert finalizers(find(adopted.objects, "Namespace", "app")) == [V05.syncer + "c1"]
    bound = namespace_controller_v05(adopted.objects, T0)
    assert entries(find(bound.objects, "Namespace", "app")) == {loc("c1"): "Bound"}
    assert bound.transitions == [
        Transition(
            "namespace-controller", f"Namespace {WS}|app", f"placement {loc('c1')}", "Pending", "Bound"
        )
    ]


def test_v05_removing_waits_for_the_syncer_then_unbound():
    objects, _, _ = run_actors(v05_hub("Bound"), "v0.5", T0)
    removing = copy.deepcopy(objects)
    ns = find(removing, "Namespace", "app")
    ns["metadata"]["annotations"][PLACEMENT] = format_placement({loc("c1"): "Removing"})
    later = T0 + timedelta(minutes=1)
    after = namespace_controller_v05(removing, later)
    ns = find(after.objects, "Namespace", "app")
    assert annotations(ns)[V05.deletion + "c1"] == stamp(later)
    assert labels(ns) == {V05.state + "c1": "Sync"}  # still synced: the syncer has not removed it
    assert entries(ns) == {loc("c1"): "Removing"}
    objects, log, _ = run_actors(after.objects, "v0.5", later)
    ns = find(objects, "Namespace", "app")
    assert entries(ns) == {loc("c1"): "Unbound"}
    assert "labels" not in ns["metadata"] and "finalizers" not in ns["metadata"]
    assert V05.deletion + "c1" not in annotations(ns)
    for kind, name in (("ConfigMap", "cfg"), ("Deployment", "web")):
        obj = find(objects, kind, name)
        assert "labels" not in obj["metadata"] and "finalizers" not in obj["metadata"]
        assert V05.deletion + "c1" not in annotations(obj)
    # Order: every object's label went before the namespace's, which went before Unbound.
    order = [(t.actor, t.object, t.detail, t.after) for t in log]
    ns_label = order.index(("syncer", f"Namespace {WS}|app", f"label {V05.state}c1", "-"))
    for name in ("ConfigMap app/cfg", "Deployment app/web"):
        kind, key = name.split(" ")
        assert order.index(("syncer", f"{kind} {WS}|{key}", f"label {V05.state}c1", "-")) < ns_label
    unbound = order.index(
        ("namespace-controller", f"Namespace {WS}|app", f"placement {loc('c1')}", "Unbound")
    )
    assert ns_label < unbound


def test_v05_coordination_finalizers_hold_the_removal_back():
    objects, _, _ = run_actors(v05_hub("Bound", coordination="ingress.example.com/drain"), "v0.5", T0)
    ns = find(objects, "Namespace", "app")
    ns["metadata"]["annotations"][PLACEMENT] = format_placement({loc("c1"): "Removing"})
    objects, _, _ = run_actors(objects, "v0.5", T0)
    held = find(objects, "ConfigMap", "cfg")
    assert labels(held) == {V05.state + "c1": "Sync"}
    assert annotations(held)[V05.deletion + "c1"] == stamp(T0)
    assert finalizers(held) == [V05.syncer + "c1"]
    assert "labels" not in find(objects, "Deployment", "web")["metadata"]  # not held: removed
    ns = find(objects, "Namespace", "app")
    assert labels(ns) == {V05.state + "c1": "Sync"}  # the namespace waits for its contents
    assert entries(ns) == {loc("c1"): "Removing"}
    # The coordination controller lets go ("", or only commas and blanks, is empty).
    find(objects, "ConfigMap", "cfg")["metadata"]["annotations"][V05.finalizers + "c1"] = " , "
    objects, _, _ = run_actors(objects, "v0.5", T0)
    assert entries(find(objects, "Namespace", "app")) == {loc("c1"): "Unbound"}
    assert "labels" not in find(objects, "ConfigMap", "cfg")["metadata"]


def test_v05_unbound_loses_a_stray_label_and_deletion_annotation():
    ns = namespace(
        entries={loc("c1"): "Unbound"},
        labels={V05.state + "c1": "Sync"},
        annotations={V05.deletion + "c1": stamp(T0)},
    )
    acted = namespace_controller_v05([ns], T0)
    out = acted.objects[0]
    assert "labels" not in out["metadata"]
    assert V05.deletion + "c1" not in annotations(out)
    assert entries(out) == {loc("c1"): "Unbound"}  # the scheduler drops the entry


def test_v05_a_label_no_entry_names_is_taken_down_like_removing():
    objects = v05_hub("Pending")
    objects, _, _ = run_actors(objects, "v0.5", T0)
    ns = find(objects, "Namespace", "app")
    ns["metadata"]["annotations"][PLACEMENT] = format_placement({loc("c2"): "Pending"})  # c1 dropped
    objects, _, _ = run_actors(objects, "v0.5", T0)
    ns = find(objects, "Namespace", "app")
    assert labels(ns) == {V05.state + "c2": "Sync"}
    assert entries(ns) == {loc("c2"): "Bound"}
    assert set(annotations(ns)) == {PLACEMENT}  # v0.5 marks the workspace in metadata.clusterName
    assert labels(find(objects, "ConfigMap", "cfg")) == {V05.state + "c2": "Sync"}
    assert finalizers(find(objects, "ConfigMap", "cfg")) == [V05.syncer + "c2"]


def test_v05_revival_calls_the_removal_off():
    objects, _, _ = run_actors(v05_hub("Bound", coordination="hold"), "v0.5", T0)
    ns = find(objects, "Namespace", "app")
    ns["metadata"]["annotations"][PLACEMENT] = format_placement({loc("c1"): "Removing"})
    objects, _, _ = run_actors(objects, "v0.5", T0)
    assert V05.deletion + "c1" in annotations(find(objects, "Deployment", "web"))
    assert "labels" not in find(objects, "Deployment", "web")["metadata"]
    # The scheduler revives c1 under another location that selects it too.
    ns = find(objects, "Namespace", "app")
    ns["metadata"]["annotations"][PLACEMENT] = format_placement({loc("c1", "eu"): "Bound"})
    objects, _, _ = run_actors(objects, "v0.5", T0)
    for kind, name in (("ConfigMap", "cfg"), ("Deployment", "web"), ("Namespace", "app")):
        obj = find(objects, kind, name)
        assert labels(obj) == {V05.state + "c1": "Sync"}, name
        assert V05.deletion + "c1" not in annotations(obj), name
        assert finalizers(obj) == [V05.syncer + "c1"], name


def test_v05_several_clusters_at_once_and_a_malformed_entry_is_ignored():
    ns = namespace(entries={loc("c1"): "Bound", loc("c2", "eu"): "Pending", "broken": "Bound"})
    acted = namespace_controller_v05([ns], T0)
    assert labels(acted.objects[0]) == {V05.state + "c1": "Sync", V05.state + "c2": "Sync"}


def test_v05_an_unreadable_annotation_is_left_alone():
    ns = namespace(annotations={PLACEMENT: "{not json"}, labels={V05.state + "c1": "Sync"})
    listed = namespace(name="list", annotations={PLACEMENT: '["Bound"]'})
    objects = [ns, listed]
    for _, actor in ACTORS["v0.5"][:1]:
        acted = actor(objects, T0)
        assert acted.objects == objects and acted.transitions == []


def test_actors_are_pure_and_deterministic():
    objects = v05_hub("Removing", extra_labels={V05.state + "c1": "Sync"})
    frozen = copy.deepcopy(objects)
    for generation in ("v0.5", "v0.8"):
        for _, actor in ACTORS[generation]:
            first, second = actor(objects, T0), actor(objects, T0)
            assert objects == frozen
            assert first == second
    acted = namespace_controller_v05(objects, T0)
    assert acted.objects[1] is objects[1]  # unchanged objects are passed through, not copied


def test_transitions_name_actor_object_and_facet():
    before = workload(labels={V05.state + "c1": "Sync"})
    after = copy.deepcopy(before)
    after["metadata"]["labels"] = {V05.state + "c2": "Sync"}
    after["metadata"]["finalizers"] = [V05.syncer + "c2"]
    assert describe(before) == f"ConfigMap {WS}|app/cfg"
    assert diff_objects("x", before, after) == [
        Transition("x", f"ConfigMap {WS}|app/cfg", f"finalizer {V05.syncer}c2", "-", "present"),
        Transition("x", f"ConfigMap {WS}|app/cfg", f"label {V05.state}c1", "Sync", "-"),
        Transition("x", f"ConfigMap {WS}|app/cfg", f"label {V05.state}c2", "-", "Sync"),
    ]
    assert diff_objects("x", None, before)[0].after == "created"
    assert diff_objects("x", before, None)[0].after == "deleted"


def test_label_losses_names_a_premature_removal():
    before = [workload(labels={V05.state + "c1": "Sync"})]
    after = [workload()]
    assert label_losses(before, after, generation="v0.5") == [
        f"ConfigMap {WS}|app/cfg: {V05.state}c1 removed without a deletion annotation"
    ]
    held = [
        workload(
            labels={V05.state + "c1": "Sync"},
            annotations={V05.deletion + "c1": stamp(T0), V05.finalizers + "c1": "x"},
        )
    ]
    assert "coordination finalizers" in label_losses(held, after, generation="v0.5")[0]
    signalled = [workload(labels={V05.state + "c1": "Sync"}, annotations={V05.deletion + "c1": stamp(T0)})]
    assert label_losses(signalled, after, generation="v0.5") == []


# ========================================================================================= v0.8


K1, K2 = "aQtdeEWVcqU7h7AKnYMm3KRQ96U4oU2W04yeOa", "aPkhvUbGK0xoZIjMnM2pA0AuV1g7i4tBwxu5m4"


def v08_hub(target=K1, **kw):
    return [
        placement(target=target, selector={"matchLabels": {"team": "a"}}, **kw),
        namespace(labels={"team": "a"}, gen=V08_GEN),
        workload("ConfigMap", "cfg", gen=V08_GEN),
        workload("Deployment", "web", gen=V08_GEN),
        namespace(name="other", labels={"team": "b"}, gen=V08_GEN),
    ]


def test_v08_bind_and_sync_in_one_merge():
    acted = namespace_controller_v08(v08_hub(), T0)
    ns = find(acted.objects, "Namespace", "app")
    assert annotations(ns)[PLACEMENT] == ""
    assert labels(ns) == {"team": "a", V08.state + K1: "Sync"}
    assert PLACEMENT not in annotations(find(acted.objects, "Namespace", "other"))
    objects, _, _ = run_actors(acted.objects, "v0.8", T0)
    for kind, name in (("ConfigMap", "cfg"), ("Deployment", "web")):
        obj = find(objects, kind, name)
        assert labels(obj) == {V08.state + K1: "Sync"}
        assert finalizers(obj) == [V08.syncer + K1]
    assert "finalizers" not in find(objects, "Namespace", "app")["metadata"]  # v0.8: objects only


def unscheduled(acted):
    """The transitions but the NamespaceScheduled conditions, which must be False (no mark)."""
    conditions = [t for t in acted.transitions if t.detail == "condition NamespaceScheduled"]
    assert all(t.after == "False (Unschedulable)" for t in conditions)
    return [t for t in acted.transitions if t not in conditions]


def test_v08_invalid_placements_select_nothing():
    for kw in ({"phase": "Pending"}, {"ready": "False"}):
        acted = namespace_controller_v08(v08_hub(**kw), T0)
        assert unscheduled(acted) == []
    nil_selector = [placement(target=K1), namespace(labels={"team": "a"}, gen=V08_GEN)]
    assert unscheduled(namespace_controller_v08(nil_selector, T0)) == []
    everything = [placement(target=K1, selector={}), namespace(labels={"team": "a"}, gen=V08_GEN)]
    assert labels(namespace_controller_v08(everything, T0).objects[1])[V08.state + K1] == "Sync"
    # A namespace that no valid placement selects any more loses the marker, then its labels.
    objects, _, _ = run_actors(namespace_controller_v08(v08_hub(), T0).objects, "v0.8", T0)
    find(objects, "Placement", "default")["status"]["conditions"][0]["status"] = "False"
    acted = namespace_controller_v08(objects, T0)
    ns = find(acted.objects, "Namespace", "app")
    assert PLACEMENT not in annotations(ns)
    assert annotations(ns)[V08.deletion + K1] == stamp(T0)


def test_v08_a_move_keeps_the_old_label_through_the_grace_period():
    objects, _, _ = run_actors(v08_hub(), "v0.8", T0)
    find(objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET] = K2  # Controller B moved it
    acted = namespace_controller_v08(objects, T0)
    ns = find(acted.objects, "Namespace", "app")
    assert labels(ns) == {"team": "a", V08.state + K1: "Sync", V08.state + K2: "Sync"}
    assert annotations(ns)[V08.deletion + K1] == stamp(T0)
    assert acted.wake is None  # the deletion annotation was only just set
    again = namespace_controller_v08(acted.objects, T0 + REMOVING_GRACE)
    assert again.transitions == [] and again.wake == T0 + REMOVING_GRACE  # not more than 5 s yet
    done = namespace_controller_v08(acted.objects, T0 + REMOVING_GRACE + timedelta(seconds=1))
    ns = find(done.objects, "Namespace", "app")
    assert labels(ns) == {"team": "a", V08.state + K2: "Sync"}
    assert V08.deletion + K1 not in annotations(ns)
    assert done.wake is None


def test_v08_objects_are_removed_by_the_syncer_only_after_the_signal():
    objects, _, _ = run_actors(v08_hub(), "v0.8", T0)
    cfg = find(objects, "ConfigMap", "cfg")
    cfg["metadata"]["annotations"][V08.finalizers + K1] = "ingress.example.com/drain"
    find(objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET] = K2
    objects, log, passes = run_actors(objects, "v0.8", T0)
    assert passes >= 3  # the grace period had to pass
    ns = find(objects, "Namespace", "app")
    assert labels(ns) == {"team": "a", V08.state + K2: "Sync"}
    web = find(objects, "Deployment", "web")
    assert labels(web) == {V08.state + K2: "Sync"} and finalizers(web) == [V08.syncer + K2]
    held = find(objects, "ConfigMap", "cfg")
    assert labels(held) == {V08.state + K1: "Sync", V08.state + K2: "Sync"}
    assert V08.deletion + K1 in annotations(held)
    removed = [t for t in log if t.object.endswith("app/web") and t.detail == f"label {V08.state}{K1}"]
    assert [(t.actor, t.before, t.after) for t in removed] == [("syncer", "Sync", "-")]


def test_v08_a_removing_key_is_not_revived_inside_the_grace_window():
    objects, _, _ = run_actors(v08_hub(), "v0.8", T0)
    find(objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET] = K2
    objects = namespace_controller_v08(objects, T0).objects
    find(objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET] = K1  # back again
    inside = namespace_controller_v08(objects, T0 + timedelta(seconds=3))
    ns = find(inside.objects, "Namespace", "app")
    assert V08.deletion + K1 in annotations(ns)  # still removing
    assert annotations(ns)[V08.deletion + K2] == stamp(T0 + timedelta(seconds=3))
    objects, _, _ = run_actors(inside.objects, "v0.8", T0 + timedelta(seconds=3))
    ns = find(objects, "Namespace", "app")
    assert labels(ns) == {"team": "a", V08.state + K1: "Sync"}  # re-added on a later pass
    assert set(annotations(ns)) == {"kcp.dev/cluster", PLACEMENT}


def test_v08_several_placements_give_one_label_per_target():
    objects = [
        placement("a", target=K1, selector={}),
        placement("b", target=K2, selector={}),
        placement("c", target=K1, selector={}),
        placement("elsewhere", target="zzz", selector={}, ws="root:org:other"),
        namespace(gen=V08_GEN),
    ]
    acted = namespace_controller_v08(objects, T0)
    assert labels(acted.objects[-1]) == {V08.state + K1: "Sync", V08.state + K2: "Sync"}


def test_v08_an_unreadable_deletion_time_is_gos_zero_time_and_removes_at_once():
    for text in ("yesterday", "2026-11-21T11:59:59"):  # no offset: time.Parse fails too
        ns = namespace(labels={V08.state + K1: "Sync"}, annotations={V08.deletion + K1: text}, gen=V08_GEN)
        acted = namespace_controller_v08([ns], T0)
        assert labels(acted.objects[0]) == {}
        assert V08.deletion + K1 not in annotations(acted.objects[0])
        assert acted.wake is None


def test_v08_the_status_step_sets_namespace_scheduled_and_skips_blocklisted_namespaces():
    objects = [*v08_hub(), namespace("kube-system", ws="root:org:lone", gen=V08_GEN)]
    acted = namespace_controller_v08(objects, T0)
    conditions = {
        describe(o): o["status"]["conditions"]
        for o in acted.objects
        if o["kind"] == "Namespace" and "status" in o
    }
    assert conditions == {
        f"Namespace {WS}|app": [
            {"type": "NamespaceScheduled", "status": "True", "lastTransitionTime": stamp(T0)}
        ],
        f"Namespace {WS}|other": [
            {
                "type": "NamespaceScheduled",
                "status": "False",
                "lastTransitionTime": stamp(T0),
                "reason": "Unschedulable",
                "message": "No available placements",
            }
        ],
    }
    assert namespace_controller_v08(acted.objects, T0).transitions == []


# ============================================================================ the invariant, randomly

STATES = ("Pending", "Bound", "Removing", "Unbound", None)


@settings(max_examples=60, deadline=None)
@given(
    schedule=st.lists(st.tuples(st.sampled_from(STATES), st.sampled_from(STATES)), min_size=1, max_size=6),
    holds=st.lists(st.booleans(), min_size=3, max_size=3),
    passes=st.integers(min_value=0, max_value=3),
)
def test_v05_no_workload_object_loses_its_label_before_the_signal(schedule, holds, passes):
    """The scheduler writes arbitrary states for c1 and c2 between a few actor passes; coordination
    finalizers come and go. No pass of any actor removes a label prematurely."""
    objects = v05_hub("Pending")
    objects.append(workload("Secret", "token"))
    now = T0
    for c1, c2 in schedule:
        ns = find(objects, "Namespace", "app")
        ns["metadata"]["annotations"][PLACEMENT] = format_placement(
            {k: v for k, v in ((loc("c1"), c1), (loc("c2", "eu"), c2)) if v is not None}
        )
        for hold, name in zip(holds, ("cfg", "web", "token"), strict=True):
            obj = [o for o in objects if o["metadata"]["name"] == name][0]
            obj["metadata"]["annotations"][V05.finalizers + "c1"] = "hold" if hold else ""
        for _ in range(passes):
            for _, actor in ACTORS["v0.5"]:
                acted = actor(objects, now)
                assert label_losses(objects, acted.objects, generation="v0.5") == []
                objects = copy.deepcopy(acted.objects)
            now += timedelta(seconds=5)


@settings(max_examples=60, deadline=None)
@given(
    targets=st.lists(st.sampled_from((K1, K2, None)), min_size=1, max_size=6),
    hold=st.booleans(),
    passes=st.integers(min_value=0, max_value=3),
)
def test_v08_no_workload_object_loses_its_label_before_the_signal(targets, hold, passes):
    objects = v08_hub()
    if hold:
        find(objects, "ConfigMap", "cfg")["metadata"]["annotations"][V08.finalizers + K1] = "hold"
    now = T0
    for target in targets:
        p = find(objects, "Placement", "default")
        if target is None:
            p["metadata"]["annotations"].pop(SYNCTARGET, None)
        else:
            p["metadata"]["annotations"][SYNCTARGET] = target
        for _ in range(passes):
            for _, actor in ACTORS["v0.8"]:
                acted = actor(objects, now)
                assert label_losses(objects, acted.objects, generation="v0.8") == []
                objects = copy.deepcopy(acted.objects)
            now += timedelta(seconds=5)
