"""kcp in the long-lived scheduler (adapters/kcp/reach.py): an event takes up only the user
workspaces whose answer it can change, each planned as the full load plans it and decided against
every other workspace's holds as they stand; time alone (an eviction reached, a grace period
over) takes up what upstream's requeues would."""

from __future__ import annotations

import copy
from collections import Counter
from datetime import datetime, timedelta

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kcp.load import load
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.live.hub import Applied, Deleted, HubScheduler
from bench.kcp_hub import placed
from solver import SolveOptions
from tests.fixtures import kcp
from tests.fixtures.live import Spy, same_as_held_fixed, spy_on_events

NOW = kcp.NOW_TIME
OTHER = "root:org:other"


def _v08(*, targets: int = 3) -> list[dict]:
    clusters = [kcp.sync_target(f"s{i}", "us") for i in range(1, targets + 1)]
    team = [kcp.namespace_v08(f"n{i}", created=i) for i in range(4)]
    other = [kcp.namespace_v08(f"m{i}", workspace=OTHER, created=i) for i in range(2)]
    placements = [kcp.placement("p", created=0), kcp.placement("q", workspace=OTHER, created=0)]
    return [*kcp.compute_v08(*clusters, locations=["us"]), kcp.binding_v08(OTHER), *placements, *team, *other]


def _on(hub: HubScheduler) -> dict[str, list[str]]:
    return {f"{ws}/{ns}": sorted(c for _, c in on) for (ws, ns), on in sorted(placed(hub.objects()).items())}


def _workspaces(spy: Spy) -> set[str]:
    """The workspaces taken up since the last call (over every round: the event's, and the
    scheduler's own writes heard again)."""
    return {key.split("/")[0] for keys in spy.requests() for key in keys}


def test_a_namespace_takes_up_its_workspace_only() -> None:
    hub = HubScheduler(_v08(), now=NOW, verify=True)
    spy = Spy(hub, "kcp")
    hub.handle(Applied(kcp.namespace_v08("n9", created=9)), now=NOW + timedelta(minutes=1))
    assert _workspaces(spy) == {kcp.TEAM}
    assert "root:org:team/n9" in _on(hub)


def test_a_cluster_takes_up_the_workspaces_holding_it_and_those_waiting_on_its_location() -> None:
    hub = HubScheduler(_v08(targets=2), now=NOW, verify=True)
    spy = Spy(hub, "kcp")
    held = {c for on in _on(hub).values() for c in on}
    idle = sorted({"s1", "s2"} - {c.split("/")[-1] for c in held})
    # a target no placement holds, relabelled within the location: nothing can change
    if idle:
        relabelled = kcp.sync_target(idle[0], "us", labels={"tier": "gold"})
        hub.handle(Applied(relabelled), now=NOW + timedelta(minutes=1))
        assert _workspaces(spy) == set()
    # a new target in the location: no placement waits for one, nothing to take up
    hub.handle(Applied(kcp.sync_target("s3", "us")), now=NOW + timedelta(minutes=2))
    assert _workspaces(spy) == set()
    # every target not ready: the holders are taken up, and then wait on the location
    for name in ("s1", "s2", "s3"):
        hub.handle(Applied(kcp.sync_target(name, "us", ready=False)), now=NOW + timedelta(minutes=3))
    spy.requests()
    hub.handle(Applied(kcp.sync_target("s4", "us")), now=NOW + timedelta(minutes=4))
    assert _workspaces(spy) == {OTHER, kcp.TEAM}
    assert hub.resolve(now=NOW + timedelta(minutes=4)).apply == []


def test_an_eviction_reached_by_time_alone_moves_its_holders_at_the_next_event() -> None:
    hub = HubScheduler(_v08(), now=NOW, verify=True)
    before = _on(hub)
    name = Counter(c for on in before.values() for c in on).most_common(1)[0][0].split("/")[-1]
    later = NOW + timedelta(minutes=1)
    hub.handle(Applied(kcp.sync_target(name, "us", evict_after=time_text(later))), now=NOW)
    assert _on(hub) == before  # not yet
    delta = hub.handle(Applied(kcp.namespace_v08("n9", created=9)), now=later)
    after = _on(hub)
    assert all(name not in " ".join(on) for ns, on in after.items() if ns in before)
    assert {o["metadata"]["name"] for o in delta.apply if o["kind"] == "Namespace"} >= {"n0", "n1"}
    # the namespaces moved carry their old target's deletion annotation until its grace ends
    # (Controller C requeues them for then): the next event takes them up and drops it
    end = later + timedelta(seconds=10)
    hub.handle(Deleted("Namespace", "n9", api_version="v1", workspace=kcp.TEAM), now=end)
    assert hub.resolve(now=end).apply == []


def test_a_workspace_whose_last_object_goes_holds_nothing() -> None:
    hub = HubScheduler(_v08(), now=NOW, verify=True)
    live = hub._live["kcp"]
    assert live.footprint.get(OTHER)
    at = NOW + timedelta(minutes=1)
    for name in ("m0", "m1"):
        hub.handle(Deleted("Namespace", name, api_version="v1", workspace=OTHER), now=at)
    hub.handle(Deleted("Placement", "q", api_version="scheduling.kcp.dev/v1alpha1", workspace=OTHER), now=at)
    hub.handle(
        Deleted("APIBinding", "kubernetes", api_version="apis.kcp.dev/v1alpha1", workspace=OTHER), now=at
    )
    assert OTHER not in live.footprint
    assert sum(live.total.values()) == sum(sum(f.values()) for f in live.footprint.values())


@pytest.mark.parametrize("generation", ["v0.5", "v0.8"])
@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_every_batch_taken_is_the_full_loads_with_the_rest_held(generation, mode) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("kcp", 16, 40, seed=4, now=now, generation=generation)
    hub = HubScheduler(objects, now=now, options=SolveOptions(mode=mode), verify=True)
    spy, at = spy_on_events(hub, "kcp", f"kcp-{generation}", 6, 100, now)
    assert len(spy.taken) > 30
    for taken, objects in spy.taken:
        full, _ = load(from_objects(objects, "<hub>"), now=taken.batch.now, seed=0)
        same_as_held_fixed(taken.batch, full)
    assert hub.resolve(now=at).apply == []


def test_an_event_refused_while_the_model_is_made_again_leaves_the_model_as_it_was() -> None:
    """A hub of no cluster nor Placement: the generation is a guess (v0.8, from its Location's
    resource). A WorkloadCluster arriving proves it wrong, and the model is made again as v0.5,
    where that Location's resource is refused: the event is refused, and the model is as before,
    still v0.8. The next namespace is scheduled as a hub that never saw the refused event
    schedules it (the model had kept the other generation, and scheduled it as v0.5 does)."""
    from adapters.errors import InputError

    objects = [kcp.location("us", generation="v0.8"), kcp.binding_v08(), kcp.namespace_v08("n0")]
    hub = HubScheduler(objects, now=NOW, verify=True)
    never = HubScheduler(objects, now=NOW, verify=True)
    with pytest.raises(InputError, match="expected 'workloadclusters'"):
        hub.handle(Applied(kcp.cluster("w1", "us")), now=NOW)
    assert _model(hub) == _model(never)
    later = NOW + timedelta(minutes=1)
    event = Applied(kcp.namespace_v08("n1", created=1))
    assert hub.handle(event, now=later).apply == never.handle(event, now=later).apply
    assert hub.objects() == never.objects()
    assert _model(hub) == _model(never)
    assert hub.resolve(now=later).apply == []


def test_changes_taken_together_are_all_read_before_the_model_takes_any() -> None:
    """A target made unschedulable and a Placement refused (its CRD's enum), heard together (as
    the garbage collector's changes are): the refusal comes after the target was read, and the
    model is as it was (it keeps no journal: nothing it does after its reads can refuse)."""
    from adapters.errors import InputError
    from adapters.run.changes import object_key

    hub = HubScheduler(_v08(), now=NOW, verify=True)
    before = _model(hub)
    target = kcp.sync_target("s1", "us", unschedulable=True)
    bad = kcp.placement("p", created=0)
    bad["spec"]["locationResource"]["resource"] = "workloadclusters"
    stored = {kind: hub.get(object_key(obj)) for kind, obj in (("target", target), ("placement", bad))}
    assert all(stored.values())
    changes = [(stored["target"], target), (stored["placement"], bad)]
    with pytest.raises(InputError, match="expected 'synctargets'"):
        hub._live["kcp"].take(changes, NOW + timedelta(minutes=1))
    assert _model(hub) == before


def _model(hub: HubScheduler) -> dict:
    """What kcp's model holds, by value (the pool's clusters, the timers' moments)."""
    live = hub._live["kcp"]
    out = {name: copy.deepcopy(value) for name, value in vars(live).items() if name not in ("pool", "timers")}
    return {**out, "pool": live.pool.clusters(), "timers": dict(live.timers._when)}


_GUESSED_V08 = [kcp.binding_v08(), kcp.namespace_v08("n0")]
_LAST_V05_CLUSTER = [kcp.cluster("w1"), kcp.binding(ready=False), kcp.namespace("n0")]


@pytest.mark.parametrize(
    "objects, event, generation",
    [
        (_GUESSED_V08, Applied(kcp.location("us")), "v0.5"),
        (_GUESSED_V08, Applied(kcp.namespace_v08("n0", placement={})), "v0.5"),
        (_LAST_V05_CLUSTER, Deleted("WorkloadCluster", "w1", workspace=kcp.COMPUTE), "v0.8"),
    ],
    ids=["v0.5 location", "v0.5 placement annotation", "last v0.5 cluster"],
)
def test_a_change_after_which_a_full_load_guesses_the_other_generation_makes_the_model_again(
    objects, event, generation
) -> None:
    """A hub of no cluster nor Placement has its generation guessed (from its Locations'
    resources, then its namespaces' annotations; else v0.8): a Location of v0.5's resource or a
    namespace carrying v0.5's placement annotation turns a v0.8 guess, and the last v0.5 cluster
    going (its namespace never annotated: its APIBinding is not ready) leaves one of v0.8. The
    event is taken as a full load of the hub it leaves takes it (the Location was refused, judged
    by the old guess's enum; the annotation was taken as v0.8 takes it; the cluster's going
    scheduled as v0.5 does), and the model schedules the next namespace as a hub made of the
    objects it leaves does."""
    hub = HubScheduler(objects, now=NOW, verify=True)
    hub.handle(event, now=NOW)
    fresh = HubScheduler(hub.objects(), now=NOW, verify=True)
    assert fresh.initial.apply == []
    assert hub._live["kcp"].generation == fresh._live["kcp"].generation == generation
    later = NOW + timedelta(minutes=1)
    namespace = Applied(kcp.namespace_v08("n1", created=1))
    written = [hub.handle(namespace, now=later).apply, fresh.handle(namespace, now=later).apply]
    for apply in written:  # the uids the servers made differ (the hubs' histories do)
        for obj in apply:
            obj["metadata"].pop("uid", None)
    assert written[0] == written[1]
    assert hub.resolve(now=later).apply == []
