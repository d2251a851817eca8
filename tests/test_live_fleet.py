"""Fleet in the long-lived scheduler (adapters/fleet/reach.py): every batch it takes is the full
load's restricted to the placements woken (Fleet's placements share nothing but the clusters,
which the model keeps read as the full load reads them, their eligibility judged at the event's
time), and nothing moves that an event does not force (the soak checks the rest)."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import datetime
from functools import partial

import pytest

from adapters.fleet.load import load
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from bench.hub_soak import _full_solve
from solver import SolveOptions
from tests.fixtures.live import pool_given, spy_on_events


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_every_batch_taken_is_the_full_loads_for_the_placements_woken(mode) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("fleet", 20, 30, seed=6, now=now), now=now, options=SolveOptions(mode=mode))
    spy, at = spy_on_events(hub, "fleet", "fleet", 6, 80, now)
    assert len(spy.taken) > 15
    for taken, objects in spy.taken:
        keys = {r.key for r in taken.batch.requests}
        full, _ = load(from_objects(objects, "<hub>"), now=taken.batch.now, seed=0)
        expected = replace(full, requests=tuple(r for r in full.requests if r.key in keys))
        assert _timeless(taken.batch) == _timeless(expected)


def _timeless(batch):
    """The batch with every cluster's ineligible reason left out: its text says how long ago the
    cluster turned so, as of when it was read (the model reads a cluster again when it changes,
    or when its eligibility would)."""
    return replace(batch, clusters=tuple(replace(c, ineligible_reason="") for c in batch.clusters))


def test_a_refused_placement_leaves_the_model_as_it_was() -> None:
    """A placement the adapter refuses (an InputError) changes nothing: not the hub, and not
    Fleet's model, which would otherwise refuse every later event that wakes it (it kept the
    refused object on a first cut of this model)."""
    from adapters.errors import InputError
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), crp("web", pick_all())], now=NOW_TIME)
    refused = crp("web", {"placementType": "PickSome"})
    with pytest.raises(InputError, match="placementType"):
        hub.handle(Applied(refused), now=NOW_TIME)
    delta = hub.handle(Applied(member_cluster("b")), now=NOW_TIME)  # wakes the PickAll placement
    assert delta.requests == ("web",)
    assert hub.resolve(now=NOW_TIME).apply == []


# -- spread domains: which cluster events wake a placement not fully scheduled -----------------


def _spread_hub(mode: str, *others: dict) -> HubScheduler:
    """A PickN of 2 spread over regions (DoNotSchedule, max skew 1) that only clusters labelled
    app=yes pass: east holds a and a2, north only clusters it does not pass (n, and `others`).
    It picks a2 (the larger name) and is stuck: a second pick in east would make the skew 2."""
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_n, spread, term

    clusters = [
        member_cluster("a", {"region": "east", "app": "yes"}),
        member_cluster("a2", {"region": "east", "app": "yes"}),
        member_cluster("n", {"region": "north"}),
        *others,
    ]
    policy = pick_n(2, required=[term({"app": "yes"})], spread_by=[spread("region")])
    hub = HubScheduler([*clusters, crp("p", policy)], now=NOW_TIME, options=SolveOptions(mode=mode))
    assert _held(hub) == {"a2"}
    return hub


def _held(hub: HubScheduler) -> set[str]:
    return {
        b["spec"]["targetCluster"]
        for b in hub.objects("ClusterResourceBinding")
        if b["spec"]["state"] in ("Scheduled", "Bound")
    }


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_cluster_joining_a_domain_that_exists_wakes_no_spread_placement_it_fails(mode) -> None:
    """A cluster the placement does not pass joining a domain that exists leaves every domain and
    its count as they were (the first rule woke the placement on any cluster carrying the key)."""
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, member_cluster

    hub = _spread_hub(mode)
    delta = hub.handle(Applied(member_cluster("m", {"region": "north"})), now=NOW_TIME)
    assert delta.requests == ()
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_the_last_cluster_of_a_domain_leaving_wakes_the_spread_placement(mode) -> None:
    """North's only cluster, which the placement does not pass, goes: the empty domain no longer
    holds the minimum down, and a can be picked (a rule waking only on clusters the placement
    passes or holds would miss it)."""
    from adapters.live.hub import Deleted
    from tests.fixtures.fleet import NOW_TIME

    hub = _spread_hub(mode)
    delta = hub.handle(Deleted("MemberCluster", "n"), now=NOW_TIME)
    assert delta.requests == ("p",)
    assert _held(hub) == {"a", "a2"}
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_cluster_leaving_a_domain_that_stays_wakes_no_spread_placement_it_fails(mode) -> None:
    from adapters.live.hub import Deleted
    from tests.fixtures.fleet import NOW_TIME, member_cluster

    hub = _spread_hub(mode, member_cluster("n2", {"region": "north"}))
    delta = hub.handle(Deleted("MemberCluster", "n"), now=NOW_TIME)
    assert delta.requests == ()
    assert _held(hub) == {"a2"}
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_held_cluster_moving_between_domains_that_stay_wakes_the_spread_placement(mode) -> None:
    """a2, held, moves from east to north: both domains stay, but the counts moved (east 0, north
    1), so a is now the unique minimum and is picked (a rule waking only where a domain appears
    or goes would miss it)."""
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, member_cluster

    hub = _spread_hub(mode)
    moved = hub.handle(Applied(member_cluster("a2", {"region": "north", "app": "yes"})), now=NOW_TIME)
    assert moved.requests == ("p",)
    assert _held(hub) == {"a", "a2"}
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_cluster_it_fails_moving_between_domains_that_stay_wakes_no_spread_placement(mode) -> None:
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, member_cluster

    hub = _spread_hub(mode, member_cluster("n2", {"region": "north"}))
    delta = hub.handle(Applied(member_cluster("n", {"region": "east"})), now=NOW_TIME)
    assert delta.requests == ()
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_cluster_it_fails_making_a_new_domain_wakes_no_spread_placement(mode) -> None:
    """An empty domain appearing can only hold the minimum down: no cluster the placement may
    pick gets a smaller skew, so nothing it could not pick becomes pickable."""
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, member_cluster

    hub = _spread_hub(mode)
    delta = hub.handle(Applied(member_cluster("m", {"region": "south"})), now=NOW_TIME)
    assert delta.requests == ()
    assert _full_solve(hub, "fleet", NOW_TIME) == []  # on what decides placement


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_after_every_event_a_full_solve_moves_nothing(mode) -> None:
    """The wake rules miss nothing: after each of the soak's events on a small hub (its PickN
    placements spread over regions and zones, many not fully scheduled), a full solve of the state
    writes nothing that decides placement (what it may write is bench.hub_soak's check (a))."""
    from adapters.generate.hubs import generate as generate_hub
    from bench.hub_soak import STEPS, _World

    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate_hub("fleet", 40, 30, seed=4, now=now)
    hub = HubScheduler(objects, now=now, options=SolveOptions(mode=mode))
    world = _World("fleet", hub, 4)
    woken = 0
    for _ in range(30):
        now += STEPS["fleet"]
        kind, event, _ = world.next(now)
        woken += len(hub.handle(event, now=now).requests)
        assert _full_solve(hub, "fleet", now) == [], kind
    assert woken > 20


# -- the bindings a wake re-reads -------------------------------------------------------------


def test_a_placement_woken_again_judges_only_the_objects_changed_since(monkeypatch) -> None:
    """The bindings and snapshot a load judged are not judged again at the placement's next wake
    (they were, every time: most of a woken PickAll's load); the objects written since are."""
    import adapters.fleet.load as fleet_load
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    clusters = [member_cluster(f"m{i}") for i in range(6)]
    hub = HubScheduler([*clusters, crp("web", pick_all())], now=NOW_TIME)
    judged: list[str] = []
    check = fleet_load.schema.check

    def counted(f, obj, kind, **kw):
        if kind in ("ClusterResourceBinding", "ClusterSchedulingPolicySnapshot"):
            judged.append(obj["metadata"]["name"])
        return check(f, obj, kind, **kw)

    monkeypatch.setattr(fleet_load.schema, "check", counted)
    hub.handle(Applied(member_cluster("m6")), now=NOW_TIME)  # wakes web
    # Its 6 bindings and snapshot were judged by the model's first load; the first solve's writes,
    # heard afterwards, are those same objects (they were judged again here, every one: 44,000
    # bindings on the bench's hub).
    assert judged == []
    hub.handle(Applied(member_cluster("m7")), now=NOW_TIME)
    # what the last solve wrote: m6's binding, the snapshot's status
    assert sorted(judged) == ["web-0", next(n for n in _binding_names(hub) if "-m6-" in n)]
    assert hub.resolve(now=NOW_TIME).apply == []


def _binding_names(hub: HubScheduler) -> list[str]:
    return [b["metadata"]["name"] for b in hub.objects("ClusterResourceBinding")]


def test_a_binding_replaced_after_its_placement_was_judged_is_judged_again() -> None:
    """A user's write replacing a binding judged before is judged at its placement's next wake:
    a field the CRD refuses refuses that event."""
    from adapters.errors import InputError
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), crp("web", pick_all())], now=NOW_TIME)
    hub.handle(Applied(member_cluster("b")), now=NOW_TIME)  # wakes web: its bindings judged
    bad = copy.deepcopy(
        next(b for b in hub.objects("ClusterResourceBinding") if b["spec"]["targetCluster"] == "a")
    )
    bad["spec"]["clusterDecision"]["clusterScore"] = {"affinityScore": "high"}
    hub.handle(Applied(bad), now=NOW_TIME)  # wakes nothing
    with pytest.raises(InputError, match="affinityScore"):
        hub.handle(Applied(member_cluster("c")), now=NOW_TIME)


# -- the bindings a wake writes back ----------------------------------------------------------


def test_a_binding_left_as_it_is_is_handed_back_stored_and_not_compared(monkeypatch) -> None:
    """A woken placement's bindings it leaves as they are are handed back as the stored objects,
    which the hub skips by identity: no copy made, none compared with the stored one (each was,
    every wake: most of a woken PickAll's emit and apply)."""
    import adapters.live.hub as live_hub
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([*(member_cluster(f"m{i}") for i in range(6)), crp("web", pick_all())], now=NOW_TIME)
    before = {b["metadata"]["name"]: b for b in hub.objects("ClusterResourceBinding")}
    compared: list[str] = []
    served = live_hub.served

    def spied(obj, stored):
        compared.append(obj["metadata"]["name"])
        return served(obj, stored)

    monkeypatch.setattr(live_hub, "served", spied)
    delta = hub.handle(Applied(member_cluster("m6")), now=NOW_TIME)
    assert delta.requests == ("web",)
    assert not set(compared) & before.keys()
    after = {b["metadata"]["name"]: b for b in hub.objects("ClusterResourceBinding")}
    assert all(after[name] is b for name, b in before.items())
    assert len(after) == 7
    assert hub.resolve(now=NOW_TIME).apply == []


def test_a_binding_replaced_by_another_object_of_its_name_is_the_one_handed_back() -> None:
    """A user's write replacing a binding (an annotation added: the scheduler leaves it be) is
    what the next wake hands back: the new object, not the one read before (written back, it
    would take the annotation off)."""
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), member_cluster("b"), crp("web", pick_all())], now=NOW_TIME)
    hub.handle(Applied(member_cluster("c")), now=NOW_TIME)  # wakes web: its bindings read
    mine = copy.deepcopy(
        next(b for b in hub.objects("ClusterResourceBinding") if b["spec"]["targetCluster"] == "a")
    )
    mine["metadata"]["annotations"] = {"example.com/note": "mine"}
    assert hub.handle(Applied(mine), now=NOW_TIME).requests == ()  # wakes nothing
    delta = hub.handle(Applied(member_cluster("d")), now=NOW_TIME)  # wakes web again
    assert delta.requests == ("web",)
    written = [b["spec"]["targetCluster"] for b in delta.apply if b["kind"] == "ClusterResourceBinding"]
    assert written == ["d"]
    held = next(b for b in hub.objects("ClusterResourceBinding") if b["spec"]["targetCluster"] == "a")
    assert held["metadata"]["annotations"] == {"example.com/note": "mine"}
    assert hub.resolve(now=NOW_TIME).apply == []


def test_a_stored_object_is_handed_back_only_where_writing_its_clean_copy_leaves_it() -> None:
    """snapshots.as_stored: the object itself exactly where the clean copy written over it (the
    server's metadata kept: served) is equal to it; a status, which the copy leaves out, is not."""
    from adapters.fleet.snapshots import as_stored, clean_or_same
    from adapters.run.changes import SERVER_FIELDS, served

    metadata = {"name": "web-a-1", "labels": {"kubernetes-fleet.io/parent-CRP": "web"}}
    metadata |= {f: 1 if f == "generation" else f"x-{f}" for f in SERVER_FIELDS}
    stored = {"kind": "ClusterResourceBinding", "metadata": metadata, "spec": {"state": "Bound"}}
    assert as_stored(stored) is stored
    assert served(clean_or_same(stored), stored) == stored
    with_status = {**stored, "status": {"conditions": []}}
    assert as_stored(with_status) is not with_status
    assert served(clean_or_same(with_status), with_status) != with_status
    assert as_stored(with_status) == clean_or_same(with_status)


def test_a_binding_replaced_by_another_object_of_its_name_is_read_again() -> None:
    """What a load read of a binding is kept for its object alone: a user's write replacing it
    (its state set to Unscheduled) is read at the placement's next wake, which restores it (a
    reading kept by name would take it for the Scheduled binding read before, and keep it)."""
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), member_cluster("b"), crp("web", pick_all())], now=NOW_TIME)
    hub.handle(Applied(member_cluster("c")), now=NOW_TIME)  # wakes web: its bindings read
    mine = copy.deepcopy(
        next(b for b in hub.objects("ClusterResourceBinding") if b["spec"]["targetCluster"] == "a")
    )
    mine["spec"]["state"] = "Unscheduled"
    assert hub.handle(Applied(mine), now=NOW_TIME).requests == ()  # wakes nothing
    delta = hub.handle(Applied(member_cluster("d")), now=NOW_TIME)  # wakes web again
    written = {b["spec"]["targetCluster"]: b for b in delta.apply if b["kind"] == "ClusterResourceBinding"}
    assert sorted(written) == ["a", "d"]
    assert written["a"]["spec"]["state"] == "Scheduled"
    assert hub.resolve(now=NOW_TIME).apply == []


def test_a_placement_woken_again_reads_only_the_bindings_changed_since(monkeypatch) -> None:
    """The bindings a load read are not read again at the placement's next wake (each was, every
    wake); those written since are."""
    import adapters.fleet.load as fleet_load
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([*(member_cluster(f"m{i}") for i in range(6)), crp("web", pick_all())], now=NOW_TIME)
    read: list[str] = []
    reading = fleet_load._read_binding

    def counted(obj):
        read.append(obj["spec"]["targetCluster"])
        return reading(obj)

    monkeypatch.setattr(fleet_load, "_read_binding", counted)
    hub.handle(Applied(member_cluster("m6")), now=NOW_TIME)  # wakes web: its 6 bindings read before
    assert read == []
    hub.handle(Applied(member_cluster("m7")), now=NOW_TIME)
    assert read == ["m6"]  # written by the last solve
    assert hub.resolve(now=NOW_TIME).apply == []


def test_the_bindings_deleted_since_a_placement_was_loaded_are_not_handed_back() -> None:
    """A placement being deleted has its bindings and snapshot deleted by the schedulers' clean-up
    (the placement controller's finalizer keeps it); a cluster it held leaving wakes it again, and
    its load reads none of the deleted objects (a model keeping a placement's bindings as last
    read, changed only where objects were written since, would write them all back)."""
    from adapters.live.hub import Applied, Deleted
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    placement = crp("web", pick_all(), finalizers=["kubernetes-fleet.io/crp-cleanup"])
    hub = HubScheduler([member_cluster("a"), member_cluster("b"), placement], now=NOW_TIME)
    hub.handle(Applied(member_cluster("c")), now=NOW_TIME)  # wakes web: its bindings read
    cleaned = hub.handle(Deleted("ClusterResourcePlacement", "web"), now=NOW_TIME)
    assert cleaned.requests == () and len(cleaned.delete) == 4  # three bindings, one snapshot
    assert hub.objects("ClusterResourceBinding") == []
    delta = hub.handle(Deleted("MemberCluster", "a"), now=NOW_TIME)
    assert [o["kind"] for o in delta.apply] == []
    assert hub.objects("ClusterResourceBinding") == []
    assert hub.resolve(now=NOW_TIME).apply == []


# -- an event refused ------------------------------------------------------------------------


def test_an_event_refused_by_the_load_of_what_it_wakes_leaves_the_model_as_it_was() -> None:
    """A cluster joining wakes a placement whose binding a user broke (a write that woke nothing):
    its load refuses the event, and the hub stays as it was, the model too. Once the binding is
    mended, the next wake does not place the placement on the cluster that never joined (the
    model had kept it: the load failed after the event had been taken in)."""
    from adapters.errors import InputError
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), member_cluster("b"), crp("web", pick_all())], now=NOW_TIME)
    good = next(b for b in hub.objects("ClusterResourceBinding") if b["spec"]["targetCluster"] == "a")
    bad = copy.deepcopy(good)
    bad["spec"]["clusterDecision"]["clusterScore"] = {"affinityScore": "high"}
    assert hub.handle(Applied(bad), now=NOW_TIME).requests == ()  # wakes nothing
    before = _model(hub)
    with pytest.raises(InputError, match="affinityScore"):
        hub.handle(Applied(member_cluster("c")), now=NOW_TIME)
    assert _model(hub) == before
    assert hub.handle(Applied(copy.deepcopy(good)), now=NOW_TIME).requests == ()  # mended
    delta = hub.handle(Applied(member_cluster("d")), now=NOW_TIME)
    assert delta.requests == ("web",)
    assert _held(hub) == {"a", "b", "d"}
    assert hub.resolve(now=NOW_TIME).apply == []


def test_an_event_refused_by_the_emit_of_what_it_wakes_leaves_the_model_as_it_was() -> None:
    """A cluster whose name makes no binding name (a DNS subdomain, not a label) joining wakes a
    PickAll placement, whose emit refuses the event after the model took it in and kept the
    answer. The model is as before: the next join is placed as if the refused one never came (it
    was refused in turn, naming the cluster the hub never stored)."""
    from adapters.errors import InputError
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), member_cluster("b"), crp("web", pick_all())], now=NOW_TIME)
    before = _model(hub)
    with pytest.raises(InputError, match="binding name"):
        hub.handle(Applied(member_cluster("c.d")), now=NOW_TIME)
    assert _model(hub) == before
    delta = hub.handle(Applied(member_cluster("e")), now=NOW_TIME)
    assert delta.requests == ("web",)
    assert _held(hub) == {"a", "b", "e"}
    assert hub.resolve(now=NOW_TIME).apply == []


def _model(hub: HubScheduler) -> dict:
    """What Fleet's model holds, by value (its objects by identity)."""
    live = hub._live["fleet"]
    return {
        "members": {name: id(obj) for name, obj in live.members.items()},
        "pool": live.pool.clusters(),
        "domains": {key: dict(values) for key, values in live.domains._count.items() if values},
        "timers": dict(live.timers._when),
        "placements": {name: id(obj) for name, obj in live.placements.items()},
        "owned": {p: sorted((m.obj["kind"], id(m.obj)) for m in g.objects()) for p, g in live.owned.items()},
        "requests": dict(live.requests),
        "results": dict(live.results),
        "holders": {cluster: set(names) for cluster, names in live.holders.items()},
        "unsettled": set(live.unsettled),
    }


def test_a_journal_puts_the_pool_the_timers_and_the_mappings_back() -> None:
    """adapters.live.kept.Journal: every change since the mark undone, the last first, whatever
    the pool's and the timers' own undoing notes meanwhile; what comes due afterwards is what
    came due before."""
    from datetime import timedelta
    from types import SimpleNamespace

    from adapters.live.kept import ClusterPool, Journal, Timers
    from model import Cluster
    from tests.fixtures.fleet import NOW_TIME

    journal = Journal()
    pool = ClusterPool([Cluster("a"), Cluster("b", leaving=True)], journal=journal)
    timers: Timers[str] = Timers(journal=journal)
    timers.at(NOW_TIME, "a")
    timers.at(NOW_TIME + timedelta(seconds=5), "b")
    mapping, items = {"x": 1}, {"y"}
    holder = SimpleNamespace(seq=1)
    journal.mark()
    before = (pool.clusters(), set(pool.staying()), dict(timers._when), dict(mapping), set(items))
    pool.put(Cluster("a", leaving=True))
    pool.drop("b")
    pool.put(Cluster("c"))
    assert timers.due(NOW_TIME + timedelta(seconds=1)) == ["a"]
    timers.at(None, "b")
    timers.at(NOW_TIME, "c")
    journal.set(mapping, "x", 2)
    journal.set(mapping, "z", 3)
    journal.pop(mapping, "x")
    journal.discard(items, "y")
    journal.add(items, "w")
    journal.assign(holder, "seq", 2)
    journal.assign(holder, "seq", 3)
    journal.undo()
    assert (pool.clusters(), set(pool.staying()), dict(timers._when), dict(mapping), set(items)) == before
    assert holder.seq == 1
    assert timers.due(NOW_TIME + timedelta(seconds=10)) == ["a", "b"]
    journal.mark()
    journal.undo()  # nothing since the mark
    assert timers.due(NOW_TIME + timedelta(seconds=10)) == []


def test_a_timer_set_again_at_its_moment_pushes_no_second_entry() -> None:
    """adapters.live.kept.Timers.at: a key set again at the moment it has already (a Placement's
    toleration timer armed again at each of its answers) keeps its one heap entry and notes no
    undoing; what comes due, in which order, and the journal's undo are as with an entry each."""
    from datetime import timedelta

    from adapters.live.kept import Journal, Timers
    from tests.fixtures.fleet import NOW_TIME

    journal = Journal()
    timers: Timers[str] = Timers(journal=journal)
    early, late = NOW_TIME, NOW_TIME + timedelta(seconds=5)
    for _ in range(3):
        timers.at(late, "a")
        timers.at(early, "b")
    assert len(timers._heap) == 2
    journal.mark()
    timers.at(late, "a")
    timers.at(early, "a")  # moved: pushed
    timers.at(late, "a")  # back: pushed again (its first entry may be passed by meanwhile)
    assert len(timers._heap) == 4
    journal.undo()
    assert timers._when == {"a": late, "b": early}
    assert timers.due(late) == ["b", "a"] and timers.due(late) == []


def test_a_placement_woken_again_makes_again_only_what_changed_since(monkeypatch) -> None:
    """Each binding's existing decision and, where a cycle keeps it, what emit writes of it, are
    made once per binding object (kept with the load's reading of it): a second wake makes them
    for the binding written since alone (they were made for every binding, every wake)."""
    import adapters.fleet.emit as fleet_emit
    import adapters.fleet.load as fleet_load
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([*(member_cluster(f"m{i}") for i in range(6)), crp("web", pick_all())], now=NOW_TIME)
    decided: list[str] = []
    kept: list[str] = []
    decision, held = fleet_load.ExistingDecision, fleet_emit._Held

    def counted_decision(*args, **kwargs):
        decided.append(kwargs["cluster"] if "cluster" in kwargs else args[0])
        return decision(*args, **kwargs)

    def counted_held(*args):
        kept.append(args[2])
        return held(*args)

    monkeypatch.setattr(fleet_load, "ExistingDecision", counted_decision)
    monkeypatch.setattr(fleet_emit, "_Held", counted_held)
    hub.handle(Applied(member_cluster("m6")), now=NOW_TIME)  # wakes web: its 6 bindings kept
    assert sorted(decided) == [] and sorted(kept) == [f"m{i}" for i in range(6)] + ["m6"]
    decided.clear()
    kept.clear()
    hub.handle(Applied(member_cluster("m7")), now=NOW_TIME)
    assert decided == ["m6"]  # written by the last solve
    assert sorted(kept) == ["m6", "m7"]  # m6 kept now, m7 made
    assert hub.resolve(now=NOW_TIME).apply == []


def test_a_pools_load_copies_are_given_again_for_the_same_cluster_and_load() -> None:
    """ClusterPool.clusters gives a load copy made before (one of the last two of that very
    cluster) where the load is the same, else a new one: every tuple equals the one made with
    fresh copies, after loads, puts, reloads and an undo alike."""
    from adapters.live.kept import ClusterPool, Journal, with_load
    from model import Cluster

    journal = Journal()
    pool = ClusterPool([Cluster(f"c{i}", {"tier": str(i)}, load=i) for i in range(4)], journal=journal)

    given = partial(pool_given, pool)

    first = given({"c0": 2, "c1": -1})
    second = given({"c0": 2, "c1": 1})
    assert second[0] is first[0] and second[1] is not first[1]
    third = given({"c1": -1, "c2": 0})
    assert third[1] is first[1]  # the copy before the last: kept too
    assert third[2] is pool["c2"]  # no load moved: the cluster itself
    assert given({"c1": 3})[1] is not first[1]  # a third load of c1: a new copy
    pool.reload([with_load(pool["c0"], 5)])
    reloaded = given({"c0": 2})
    assert reloaded[0] is not first[0] and reloaded[0].load == 7
    journal.mark()
    pool.put(Cluster("c0", {"tier": "x"}, load=5))
    put = given({"c0": 2})
    assert put[0] is not reloaded[0] and put[0].labels == {"tier": "x"}
    journal.undo()
    assert given({"c0": 2})[0] is reloaded[0]  # the cluster put back: its copy given again


def test_a_pools_moved_clusters_are_found_near_their_positions_after_names_come_or_go() -> None:
    """After names come or go, ClusterPool.clusters finds the clusters a batch moves at their
    kept positions or one off them, checked, else by bisection, without making every name's
    position again (made again past `_SHIFTED_UP_TO` names come or gone or for a batch moving more
    than `_NEAR_UP_TO`): every tuple equals the one made with fresh copies, a name not held (gone,
    never put) moving nothing, at the ends and in the middle alike, through an undo too."""
    from adapters.live import kept
    from adapters.live.kept import ClusterPool, Journal
    from model import Cluster

    journal = Journal()
    pool = ClusterPool([Cluster(f"c{i:02d}", {}, load=i) for i in range(1, 30, 2)], journal=journal)

    given = partial(pool_given, pool)

    every = {f"c{i:02d}": i % 3 - 1 for i in range(32)}  # held or not, at the ends and between
    given(every)
    made = pool._position
    assert made is not None and pool._shifted == 0
    changes = [
        lambda: pool.drop("c01"),  # every other one off, one back
        lambda: pool.put(Cluster("c04", {}, load=4)),  # those after it back where they were
        lambda: pool.put(Cluster("c00", {}, load=0)),  # those after c04 one on
        lambda: pool.drop("c09"),  # c05 and c07 one on, those after c09 as they were
        journal.undo,  # the four undone: four more come or gone
    ]
    journal.mark()
    for change in changes:
        change()
        given(every)
        given({"c00": 3, "c05": -1, "c31": 2})
        assert pool._position is made and pool._shifted > 0  # found near, not made again
    assert pool._shifted == 8
    pool.put(Cluster("c02", {}, load=2))
    given({"c02": 1})
    assert pool._position is not made and pool._shifted == 0  # past `_SHIFTED_UP_TO`: made again
    made = pool._position
    pool.drop("c02")
    given({f"c{i:02d}": 1 for i in range(kept._NEAR_UP_TO + 1)})
    assert pool._position is not made and pool._shifted == 0  # a batch moving more: made again


def test_a_pools_labelled_clusters_are_judged_again_where_put_or_dropped() -> None:
    """ClusterPool.labelled keeps a test's clusters and judges again only those put or dropped
    since (a load moved alone, `reload`, shares the labels): after every change, undone ones
    too, it holds what judging every cluster gives, and a test it keeps is not asked of the
    clusters left as they were."""
    from adapters.live.kept import ClusterPool, Journal, with_load
    from model import Cluster

    journal = Journal()
    pool = ClusterPool([Cluster(f"c{i}", {"tier": "a" if i < 3 else "b"}) for i in range(6)], journal=journal)
    asked: list[str] = []

    def tier_a(c: Cluster) -> bool:
        asked.append(c.name)
        return c.labels.get("tier") == "a"

    def every() -> set[str]:
        return {c.name for c in pool.clusters() if c.labels.get("tier") == "a"}

    assert set(pool.labelled("a", tier_a)) == every() == {"c0", "c1", "c2"}
    asked.clear()
    pool.reload([with_load(pool["c0"], 4)])
    assert set(pool.labelled("a", tier_a)) == every() and asked == []
    journal.mark()
    pool.put(Cluster("c0", {"tier": "b"}))
    pool.put(Cluster("c4", {"tier": "a"}))
    pool.drop("c1")
    pool.put(Cluster("c9", {"tier": "a"}))
    assert set(pool.labelled("a", tier_a)) == every() == {"c2", "c4", "c9"}
    assert sorted(asked) == ["c0", "c4", "c9"]
    journal.undo()
    assert set(pool.labelled("a", tier_a)) == every() == {"c0", "c1", "c2"}
