"""openMCP in the long-lived scheduler (adapters/openmcp/reach.py): an event takes up exactly the
ClusterRequests upstream's event filter passes to its reconcile, each decided against the hub as
it stands (the batch is the full load's, every other request's hold counted as load), and nothing
else moves."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from unittest.mock import ANY

import pytest

from adapters.errors import InputError
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live.hub import Applied, Deleted, HubScheduler
from adapters.openmcp.generate import generate_config
from adapters.openmcp.load import load
from adapters.run.changes import object_key
from bench.hub_soak import _World
from solver import SolveOptions
from tests.fixtures import openmcp as mcp
from tests.fixtures.live import Spy, same_as_held_fixed

NOW = mcp.NOW_TIME
LATER = NOW + timedelta(minutes=1)
CONFIG = mcp.config(
    web=mcp.purpose(count=2, namespace="ns", generate_name="web-"),
    db=mcp.purpose("Exclusive", namespace="ns", labels={mcp.DELETE_LABEL: "true"}, generate_name="db-"),
)


def _hub(*objects: dict[str, Any]) -> tuple[HubScheduler, Spy]:
    hub = HubScheduler(list(objects), now=NOW, config=CONFIG, verify=True)
    return hub, Spy(hub, "openmcp")


def test_a_cluster_event_takes_up_nothing() -> None:
    hub, spy = _hub(mcp.cluster("ns", "c1", "web"), mcp.request("ns", "r1", "web", at_minute=1))
    relabelled = mcp.cluster("ns", "c1", "web", labels={"a": "b"}, finalizers=[mcp.fin("ns", "r1")])
    for event in (
        Applied(mcp.cluster("ns", "c2", "web")),
        Applied(relabelled),
        Deleted("Cluster", "c2", "ns"),
        Deleted("Cluster", "c1", "ns"),  # its finalizer keeps it: marked only
    ):
        delta = hub.handle(event, now=LATER)
        assert delta.apply == [] and delta.delete == []
    assert spy.requests() == []


def test_a_label_change_alone_takes_up_nothing_the_operation_annotation_does() -> None:
    hub, spy = _hub(mcp.cluster("ns", "c1", "web"), mcp.request("ns", "r1", "web", at_minute=1))
    r1 = copy.deepcopy(hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "r1")))
    r1["metadata"]["labels"] = {"team": "a"}
    assert hub.handle(Applied(r1), now=LATER).apply == []
    assert spy.requests() == []
    r1["metadata"]["annotations"] = {mcp.OPERATION: "reconcile"}
    delta = hub.handle(Applied(r1), now=LATER)
    assert spy.requests() == [["ns/r1"]]
    # the reconcile takes the annotation off (an update of the annotation it heard): no more
    (written,) = delta.apply
    assert mcp.OPERATION not in (written["metadata"].get("annotations") or {})
    # ignore, then the ignore taken off: the second is reconciled
    r1 = copy.deepcopy(hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "r1")))
    r1["metadata"]["annotations"] = {mcp.OPERATION: "ignore"}
    hub.handle(Applied(r1), now=LATER)
    assert spy.requests() == []
    del r1["metadata"]["annotations"]
    hub.handle(Applied(r1), now=LATER)
    assert spy.requests() == [["ns/r1"]]


def test_a_request_created_is_taken_up_alone_against_the_others_as_they_stand() -> None:
    hub, spy = _hub(mcp.cluster("ns", "c1", "web"), mcp.cluster("ns", "c2", "web"))
    for i in range(1, 5):
        hub.handle(Applied(mcp.request("ns", f"r{i}", "web", at_minute=i)), now=LATER)
    assert spy.requests() == [["ns/r1"], ["ns/r2"], ["ns/r3"], ["ns/r4"]]
    # Balanced: the fewest tenants, the first in list order on ties; tenancyCount 2
    on = Counter(o["status"]["cluster"]["name"] for o in hub.objects() if o["kind"] == "ClusterRequest")
    assert on == {"c1": 2, "c2": 2}


def test_a_conflicted_request_is_retried_with_every_event_until_it_is_placed() -> None:
    # r1 owns the cluster web-<hash of ns/r2>, the name r2 would make: r2 waits (ClusterConflict)
    taken = "web-" + _hash_name("ns", "r2")
    hub, spy = _hub(
        mcp.cluster("ns", taken, "db", finalizers=[mcp.fin("ns", "r1")]),
        mcp.request("ns", "r1", "db", at_minute=1, granted=("ns", taken)),
        mcp.request("ns", "r2", "web", at_minute=2),
    )
    r2 = hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "r2"))
    assert r2["status"]["phase"] == "Pending"
    hub.handle(Applied(mcp.cluster("ns", "other", "db")), now=LATER)
    assert spy.requests() == [["ns/r2"]]
    hub.handle(Deleted("ClusterRequest", "r1", "ns"), now=LATER + timedelta(seconds=1))
    # r1's reconcile lets its cluster go; r2's retry, after it, takes the name over
    assert spy.requests() == [["ns/r2"]]
    r2 = hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "r2"))
    assert r2["status"]["phase"] == "Granted"
    hub.handle(Applied(mcp.cluster("ns", "more", "db")), now=LATER + timedelta(seconds=2))
    assert spy.requests() == []
    assert hub.resolve(now=LATER).apply == []


def _hash_name(namespace: str, name: str) -> str:
    from adapters.openmcp.naming import generated_name

    return generated_name("", namespace, name)


def test_a_refused_request_changes_nothing() -> None:
    hub, spy = _hub(mcp.cluster("ns", "c1", "web"))
    bad = mcp.request("ns", "r1", "web")
    bad["spec"]["purpose"] = ""
    before = hub.objects()
    with pytest.raises(InputError, match="spec.purpose"):
        hub.handle(Applied(bad), now=LATER)
    assert hub.objects() == before and spy.requests() == []
    hub.handle(Applied(mcp.request("ns", "r1", "web")), now=LATER)
    assert spy.requests() == [["ns/r1"]]


def _model(hub: HubScheduler, same: Any = id) -> dict[str, Any]:
    """What openMCP's model holds, by value (the objects it keeps by identity; `same=None`: by
    value, to compare two hubs)."""
    live = hub._live["openmcp"]
    same = same or (lambda obj: obj)
    return {
        "clusters": {
            key: (same(c.manifest.obj), replace(c, manifest=None)) for key, c in live.clusters.items()
        },
        "requests": {
            key: (same(r.manifest.obj), replace(r, manifest=None)) for key, r in live.requests.items()
        },
        "pool": live.pool.clusters(),
        "carrying": {uid: set(keys) for uid, keys in live._carrying.items() if keys},
        "uids": +live._uids,
        "retry": set(live._retry),
        "retried_at": live._retried_at,
    }


def _broken(obj: dict[str, Any]) -> dict[str, Any]:
    """The object with a spec the reading refuses."""
    return {**copy.deepcopy(obj), "spec": "broken"}


def test_an_event_refused_leaves_the_model_as_it_was() -> None:
    """reach.py: an event is refused only by the reading of its changed objects, before the model
    changes (nothing an event wakes is refused after). r2 waits on a name r1's cluster holds and is
    retried once a moment: a broken Cluster refused at LATER leaves the model as it was (its
    retry not spent), and the next event at LATER retries r2, as a twin that never saw it does."""
    taken = "web-" + _hash_name("ns", "r2")
    objects = [
        mcp.cluster("ns", taken, "db", finalizers=[mcp.fin("ns", "r1")]),
        mcp.request("ns", "r1", "db", at_minute=1, granted=("ns", taken)),
        mcp.request("ns", "r2", "web", at_minute=2),
    ]
    (hub, spy), (twin, _) = _hub(*objects), _hub(*objects)
    before = _model(hub)
    for bad in (mcp.cluster("ns", "other", "db"), mcp.request("ns", "r3", "web")):
        with pytest.raises(InputError, match="spec"):
            hub.handle(Applied(_broken(bad)), now=LATER)
        assert _model(hub) == before
    event = Applied(mcp.cluster("ns", "other", "db"))
    assert hub.handle(event, now=LATER) == replace(twin.handle(event, now=LATER), seconds=ANY)
    assert spy.requests() == [["ns/r2"]]
    assert _model(hub, None) == _model(twin, None)


def test_any_event_refused_leaves_the_model_as_a_twins_that_never_saw_it() -> None:
    """Events of a generated hub, each first refused (its object broken), then taken."""
    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("openmcp", 14, 40, seed=3, now=now)
    config = generate_config(14, 40, seed=3)
    hub, twin = (HubScheduler(objects, now=now, config=config) for _ in range(2))
    world = _World("openmcp", twin, 5)
    refused = 0
    for _ in range(60):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        if isinstance(event, Applied):
            before = _model(hub)
            with pytest.raises(InputError, match="spec"):
                hub.handle(Applied(_broken(event.obj)), now=now)
            assert _model(hub) == before
            refused += 1
        twin.handle(event, now=now)
        hub.handle(event, now=now)
        assert _model(hub, None) == _model(twin, None)
    assert refused > 30


# ----------------------------------------------------------------- the batch is the full load's


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_every_batch_taken_is_the_full_loads_with_the_rest_held(mode) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("openmcp", 14, 40, seed=3, now=now)
    config = generate_config(14, 40, seed=3)
    hub = HubScheduler(objects, now=now, config=config, options=SolveOptions(mode=mode), verify=True)
    spy = Spy(hub, "openmcp")
    world = _World("openmcp", hub, 5)
    at = now
    for i in range(120):
        at += timedelta(seconds=15)
        _, event, _ = world.next(at)
        if i % 4 == 0:  # a granted request reconciled on demand: it holds its cluster
            granted = [o for o in world.of("ClusterRequest") if (o.get("status") or {}).get("cluster")]
            event = Applied(copy.deepcopy(world.pick(granted)))
            event.obj["metadata"]["annotations"] = {mcp.OPERATION: "reconcile"}
        hub.handle(event, now=at)
    assert len(spy.taken) > 15
    for taken, objects in spy.taken:
        full, _ = load(from_objects(objects, "<hub>"), now=taken.batch.now, seed=0, config=config)
        same_as_held_fixed(taken.batch, full)
    # A full solve reconciles every request (a restart): beyond what the events left it may only
    # copy an Exclusive cluster's propagated metadata again, which a user changed (the soak
    # relabels clusters) and upstream copies only when the request is next reconciled.
    for obj in hub.resolve(now=at).apply:
        assert obj["kind"] == "Cluster" and obj["spec"]["tenancy"] == "Exclusive"
        assert _unpropagated(obj) == _unpropagated(hub.get(object_key(obj)))
    for request in hub.objects("ClusterRequest"):  # each reconciled: nothing is left to copy
        if (request.get("status") or {}).get("cluster") and not request["metadata"].get("deletionTimestamp"):
            hub.handle(Applied(_reconcile(request)), now=at)
    assert hub.resolve(now=at).apply == []


def _reconcile(request: dict[str, Any]) -> dict[str, Any]:
    """The request with the operation annotation asking upstream for a reconcile."""
    out = copy.deepcopy(request)
    metadata = out["metadata"]
    metadata["annotations"] = {**(metadata.get("annotations") or {}), mcp.OPERATION: "reconcile"}
    return out


def _unpropagated(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without its labels and annotations copied from its request."""
    metadata = dict(obj["metadata"])
    for key in ("labels", "annotations"):
        metadata[key] = {
            k: v for k, v in (metadata.get(key) or {}).items() if not k.startswith(mcp.PROPAGATED)
        }
    return {**obj, "metadata": metadata}


def test_an_exclusive_clusters_propagated_label_comes_back_only_with_its_requests_reconcile() -> None:
    # upstream does not watch Clusters: a user's removal of a label the scheduler copied from the
    # request stands until the request is reconciled (controller.go handleCreateOrUpdate)
    team = mcp.PROPAGATED + "team"
    hub, spy = _hub(
        mcp.cluster(
            "ns", "c1", "db", tenancy="Exclusive", labels={team: "a"}, finalizers=[mcp.fin("ns", "r1")]
        ),
        mcp.request("ns", "r1", "db", at_minute=1, granted=("ns", "c1"), labels={team: "a"}),
    )
    key = ("clusters.openmcp.cloud", "Cluster", "", "ns", "c1")
    stripped = copy.deepcopy(hub.get(key))
    del stripped["metadata"]["labels"][team]
    assert hub.handle(Applied(stripped), now=LATER).apply == []
    assert spy.requests() == [] and team not in hub.get(key)["metadata"]["labels"]
    (restored,) = hub.resolve(now=LATER).apply  # a restart reconciles r1
    assert restored["metadata"]["labels"][team] == "a"
    r1 = hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "ns", "r1"))
    hub.handle(Applied(_reconcile(r1)), now=LATER)
    assert spy.requests() == [["ns/r1"]] and hub.get(key)["metadata"]["labels"][team] == "a"
    assert hub.resolve(now=LATER).apply == []
