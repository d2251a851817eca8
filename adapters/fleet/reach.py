"""Fleet's scheduler for the long-lived scheduler (adapters.live.hub, through the System record's
`reach`): the model kept between events, and which placements an event can change.

Which placements upstream's scheduler re-runs follows its watchers (pkg/scheduler/watchers, and
semantics section 2.1): a ClusterResourcePlacement created, with a new spec (its generation) or
being deleted runs its own cycle; a MemberCluster event re-runs every PickAll placement and every
placement not yet fully scheduled, and a cluster that is removed or leaving also those holding a
binding on it. Bindings are sticky, so the previous answer stays wherever the policy lets it:
of those, only the placements the cluster touches can change (it held their binding, now passes
their filters at the event's time, is named by them, or changed their spread picture: see
_Domains.changed); the others would write what they hold. A placement being deleted is cleaned up
as upstream's scheduler and placement controller clean up behind their finalizers (the adapter's
load and emit); nothing else is solved. The scheduler's own writes (bindings, policy snapshots, a
placement's status or finalizer) wake nothing.

Time alone changes one thing: a cluster whose heartbeat (or a spell of ill health) gets older than
upstream's timeout turns ineligible with no event at all. Upstream's watcher ignores that
transition, so it wakes nothing here either; but every later solve judges the cluster at its own
`now`, as upstream's next cycle would (an ineligible cluster's reason, which says how long ago it
turned so, is worded as of when it was last read).

The placements woken are loaded as load.py loads a hub (with the clusters kept here, read once and
again only when their object changes, and each placement's bindings and snapshots kept grouped
as heard: load.Owned, whose objects are judged and read once while they are stored), solved alone
(greedy: upstream's cycle; optimal: re-optimised), and their answers kept for the next event's
wake rule. Nothing moves that the event does not force, and a full solve of the hub moves nothing.
Every change of the model goes through its journal, so that an event the hub refuses after the
model took it in (the load or the emit of what it woke refused it) leaves the model as it was.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from adapters.contract import Change, Taken
from adapters.fleet import api as fleet
from adapters.fleet import names as n
from adapters.fleet.clusters import load_cluster
from adapters.fleet.load import Owned
from adapters.kube.fields import Fields, parse_time
from adapters.kube.manifests import Manifest
from adapters.live.kept import ClusterPool, Journal, Timers, generation_changed, manifest
from model import Choice, Cluster, PlacementRequest, RequestResult, Result, SelectionMode
from solver.admits import admits

__all__ = ["FleetLive", "live"]

Obj = Mapping[str, Any]
_TICK = timedelta(microseconds=1)


def live(
    manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None
) -> FleetLive:
    return FleetLive(manifests, now=now, seed=seed, result=result)


class FleetLive:
    def __init__(
        self, manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None
    ) -> None:
        self.seed = seed
        # Every change of the model goes through the journal (or notes its undoing there), which
        # the hub marks at each event: an event it refuses after the model took it in is undone.
        self.journal = Journal()
        self.members: dict[str, Obj] = {}
        self.pool = ClusterPool(journal=self.journal)
        self.domains = _Domains()  # every label's values over the kept clusters (spread domains)
        # When an eligible cluster turns ineligible unheard.
        self.timers: Timers[str] = Timers(journal=self.journal)
        self.placements: dict[str, Obj] = {}
        # Each placement's bindings and snapshots, grouped as heard; what a load judged and read
        # of each object kept with it while it is stored (load.Owned).
        self.owned: dict[str, Owned] = {}
        for m in manifests:
            if m.kind == n.MEMBER_CLUSTER:
                self._put_member(m.name, m.obj, load_cluster(m, now), now)
            elif m.kind == n.PLACEMENT:
                self.placements[m.name] = m.obj
        for m in manifests:
            if m.kind in (n.BINDING, n.POLICY_SNAPSHOT):
                self._own(m.obj)
        # Each placement's request and answer, as its last cycle left them (the wake rule's):
        # the first solve's answers, its requests as they now stand.
        self.requests: dict[str, PlacementRequest] = {}
        self.results: dict[str, RequestResult] = {}
        # What the wake rule asks of the answers: each cluster's holders, and the placements
        # upstream re-runs on any cluster event (PickAll, or not fully scheduled).
        self.holders: dict[str, set[str]] = defaultdict(set)
        self.unsettled: set[str] = set()
        self._load(sorted(self.placements), now)
        for key, answer in (result.by_request() if result is not None else {}).items():
            self._answer(key, answer)
        for key in sorted(self.requests.keys() - self.results.keys()):  # made without a first solve
            self._answer(key, _held(self.requests[key]))

    # -- what changes reach ---------------------------------------------------------------------

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        read: list[tuple[str, Obj | None, Obj | None, Cluster | None]] = []
        for before, after in changes:  # read first: a refusal keeps nothing
            obj = after if after is not None else before
            assert obj is not None
            cluster = None
            if obj["kind"] == n.MEMBER_CLUSTER and after is not None:
                cluster = load_cluster(manifest(after), now)
            elif obj["kind"] == n.PLACEMENT and after is not None:  # refused as load refuses it
                fleet.load([manifest(after)], now=now, seed=self.seed, clusters=())
            read.append((obj["kind"], before, after, cluster))
        self._expire(now)
        woken: set[str] = set()
        for kind, before, after, cluster in read:
            obj = after if after is not None else before
            assert obj is not None
            name = obj["metadata"]["name"]
            if kind == n.MEMBER_CLUSTER:
                woken |= self._cluster_changed(name, after, cluster, now)
            elif kind == n.PLACEMENT:
                woken |= self._placement_changed(name, before, after)
            elif kind in (n.BINDING, n.POLICY_SNAPSHOT):
                if before is not None:
                    self._disown(before)
                if after is not None:
                    self._own(after)
        woken &= self.placements.keys()
        if not woken:
            return None
        batch, context = self._load(sorted(woken), now)
        return Taken(batch, context, self._answered)

    def _placement_changed(self, name: str, before: Obj | None, after: Obj | None) -> set[str]:
        """Its own cycle: created, a new spec, or its deletion begun (its clean-up)."""
        j = self.journal
        if after is None:
            j.pop(self.placements, name)
            j.pop(self.owned, name)
            j.pop(self.requests, name)
            self._answer(name, None)
            return set()
        j.set(self.placements, name, after)
        if before is None or generation_changed(before, after):
            return {name}
        deleting = [(o.get("metadata") or {}).get("deletionTimestamp") is not None for o in (before, after)]
        return {name} if deleting == [False, True] else set()

    def _cluster_changed(
        self, name: str, obj: Obj | None, cluster: Cluster | None, now: datetime
    ) -> set[str]:
        before = self.pool.get(name)
        if obj is None or cluster is None:
            self.journal.pop(self.members, name)
            self.pool.drop(name)
            self._moved(before, None)
            self.timers.at(None, name)
            return self._woken(name, now, gone=True, before=before)
        self._put_member(name, obj, cluster, now)
        return self._woken(name, now, gone=cluster.leaving, before=before, after=cluster)

    def _woken(
        self,
        cluster: str,
        now: datetime,
        *,
        gone: bool,
        before: Cluster | None = None,
        after: Cluster | None = None,
    ) -> set[str]:
        """Placements whose answer the event can change: of those upstream would re-run (PickAll,
        not fully scheduled, holders of a cluster that went away), the ones the cluster touches:
        it held their binding, now passes their filters (solver.admits, at the event's time), is
        named by them, or changed their spread picture (a count, or a domain gone)."""
        holders = self.holders.get(cluster, set())
        woken = set(holders) if gone else set()
        for name in self.unsettled:
            request = self.requests[name]
            holds = name in holders
            if request.mode is SelectionMode.FIXED:
                if cluster in request.cluster_names:
                    woken.add(name)
            else:
                now_passes = not gone and not holds and after is not None and admits(request, after, now)
                spread = request.spread and self.domains.changed(request, before, after, holds=holds)
                if now_passes or spread:
                    woken.add(name)
        return woken

    def _answered(self, result: Result) -> None:
        """The woken placements' answers, for the next event's wake rule."""
        for key, answer in result.by_request().items():
            self._answer(key, answer)

    def _answer(self, name: str, answer: RequestResult | None) -> None:
        """A placement's answer kept (None: it went), and the wake rule's indexes with it (only
        the clusters it no longer holds or newly holds: a woken PickAll holds hundreds)."""
        j = self.journal
        old = j.pop(self.results, name)
        was = {choice.cluster for choice in old.selected} if old is not None else set()
        now = {choice.cluster for choice in answer.selected} if answer is not None else set()
        for cluster in was - now:
            held = self.holders[cluster]
            j.discard(held, name)
            if not held:
                j.pop(self.holders, cluster)
        for cluster in now - was:
            held = self.holders.get(cluster)
            if held is None:
                held = set()
                j.set(self.holders, cluster, held)
            j.add(held, name)
        j.discard(self.unsettled, name)
        if answer is None:
            return
        j.set(self.results, name, answer)
        if not answer.satisfied or self.requests[name].mode is SelectionMode.ALL:
            j.add(self.unsettled, name)

    # -- the model ------------------------------------------------------------------------------

    def _put_member(self, name: str, obj: Obj, cluster: Cluster, now: datetime) -> None:
        self.journal.set(self.members, name, obj)
        self._moved(self.pool.get(name), cluster)
        self.pool.put(cluster)
        until = _eligible_until(manifest(obj)) if cluster.eligible else None
        # Judged again the first moment after it: an eligible cluster is judged so at `now`.
        self.timers.at(until + _TICK if until is not None and until >= now else None, name)

    def _expire(self, now: datetime) -> None:
        """Judge again, at `now`, the clusters whose heartbeat or health has timed out since they
        were last read. Upstream ignores an eligible->ineligible transition: nothing is woken."""
        for name in self.timers.due(now):
            if name in self.members:
                m = manifest(self.members[name])
                self._put_member(name, self.members[name], load_cluster(m, now), now)

    def _moved(self, before: Cluster | None, after: Cluster | None) -> None:
        self.domains.moved(before, after)
        if self.journal.recording:
            self.journal.note(partial(self.domains.moved, after, before))

    def _own(self, obj: Obj) -> None:
        parent = _parent(obj)
        if parent is not None:
            group = self.owned.get(parent)
            if group is None:
                group = Owned()
                self.journal.set(self.owned, parent, group)
            old = group.put(manifest(obj))
            if self.journal.recording:
                kind, name = obj["kind"], obj["metadata"]["name"]
                self.journal.note(partial(group.pop, kind, name) if old is None else partial(group.put, old))

    def _disown(self, obj: Obj) -> None:
        parent = _parent(obj)
        group = self.owned.get(parent) if parent is not None else None
        if group is not None:
            old = group.pop(obj["kind"], obj["metadata"]["name"])
            if old is not None and self.journal.recording:
                self.journal.note(partial(group.put, old))

    def _load(self, names: list[str], now: datetime) -> tuple[Any, Any]:
        """The placements and what they own, loaded as load.py loads a hub, over the kept clusters
        (the owned objects as grouped when heard: only those changed since a placement's last
        load judged and read); their requests kept for the wake rule."""
        batch, context = fleet.load(
            [manifest(self.placements[name]) for name in names],
            now=now,
            seed=self.seed,
            clusters=self.pool.clusters(),
            present=self.pool.staying(),
            owned=self.owned,
            stored=True,
        )
        for r in batch.requests:
            self.journal.set(self.requests, r.key, r)
        return batch, context


def _parent(obj: Obj) -> str | None:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(n.PARENT_LABEL)


def _held(request: PlacementRequest) -> RequestResult:
    """A placement's answer as its objects hold it after a cycle: the clusters of its current
    bindings; fully scheduled when it holds its N (PickN) or every named cluster (PickFixed)."""
    held = tuple(d.cluster for d in request.existing if d.current)
    satisfied = True
    if request.mode is SelectionMode.N:
        satisfied = len(held) >= request.count
    elif request.mode is SelectionMode.FIXED:
        satisfied = set(request.cluster_names) <= set(held)
    return RequestResult(request.key, tuple(Choice(c) for c in held), satisfied=satisfied)


def _eligible_until(m: Manifest) -> datetime | None:
    """When an eligible cluster turns ineligible if its object does not change: its member
    agent's last heartbeat, or the start of an unhealthy spell, older than upstream's timeout
    (adapters.fleet.clusters.eligibility judges it; this only says when to ask again)."""
    f = Fields(m)
    status = m.obj.get("status") or {}
    for agent in status.get("agentStatus") or []:
        if agent.get("type") != n.MEMBER_AGENT:
            continue
        heartbeat = parse_time(f, agent.get("lastReceivedHeartbeat"), "lastReceivedHeartbeat")
        until = heartbeat + timedelta(minutes=n.HEARTBEAT_TIMEOUT_MINUTES)
        for condition in agent.get("conditions") or []:
            if condition.get("type") == "Healthy":
                if condition.get("status") != "True":
                    since = parse_time(f, condition.get("lastTransitionTime"), "lastTransitionTime")
                    until = min(until, since + timedelta(minutes=n.HEALTH_TIMEOUT_MINUTES))
                break
        return until
    return None


class _Domains:
    """How many kept clusters carry each value of each label: a spread constraint's domains are
    the values of its topology key over every cluster carrying it, eligible or not, leaving or
    not (solver/spread.py; upstream's PreFilter counts every MemberCluster in its cache)."""

    def __init__(self) -> None:
        self._count: dict[str, Counter[str]] = defaultdict(Counter)

    def moved(self, before: Cluster | None, after: Cluster | None) -> None:
        """A cluster replaced (`before` -> `after`; None: none)."""
        old = before.labels if before is not None else {}
        new = after.labels if after is not None else {}
        for key, value in old.items():
            if new.get(key) != value:
                values = self._count[key]
                values[value] -= 1
                if not values[value]:
                    del values[value]
        for key, value in new.items():
            if old.get(key) != value:
                self._count[key][value] += 1

    def changed(
        self, request: PlacementRequest, before: Cluster | None, after: Cluster | None, *, holds: bool
    ) -> bool:
        """Whether a cluster's change (already counted) can let the request, not fully
        scheduled, pick more: it moved out of or into a domain of one of its spread constraints
        and either holds the request (a domain's count moved) or was the last cluster of the
        domain it left (a domain went: its count no longer holds the minimum down).

        Exact, for a cluster the request does not hold (the cluster itself is judged by the
        filters): moving between domains that stay leaves every domain and its count (the
        request's current bindings in it) as they were, so every other cluster's skew and spread
        score. A domain that appears is empty: the smallest count can only fall, and one more
        cluster in any domain leaves a skew (upstream's skew change is the skew after that pick)
        at least as large as before, so no cluster, and no set of clusters (optimal mode), that
        broke a DoNotSchedule constraint keeps to it now; ScheduleAnyway filters nothing, so a
        request not fully scheduled without a spread violation has no candidate left."""
        for constraint in request.spread:
            key = constraint.topology_key
            old = before.labels.get(key) if before is not None else None
            new = after.labels.get(key) if after is not None else None
            if old == new:
                continue
            if holds or (old is not None and not self._count.get(key, Counter())[old]):
                return True
        return False
