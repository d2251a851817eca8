"""The soak test of the long-lived scheduler: a KubeFleet hub driven through thousands of random
events by `adapters.live.incremental.FleetScheduler`, checked every hundred events.

    report = run_soak(events=10_000, clusters=2_000, placements=400, seed=0)
    python -m bench.soak --events 10000 --clusters 2000 --placements 400 --seed 0

The event stream is drawn with a seeded numpy generator, so a run is reproducible:

- ``heartbeat`` (ClusterChanged): a member agent reports in; the clock moves. Every live agent is
  heard well within upstream's 5-minute timeout (the one heard longest ago is heard next; the
  heartbeats in between change nothing a scheduler reads and are not sent). Now and then an
  agent's Healthy condition flips, and an agent that went silent is heard again.
- ``cluster-changed`` (ClusterChanged): a label (region and zone, environment, team, tier), a
  NoSchedule taint, or a property (per-core cost, node count) changes.
- ``cluster-joined`` (ClusterAdded): a new cluster, or one that left before joins again.
- ``cluster-leaving`` (ClusterChanged with a deletionTimestamp), ``cluster-removed``
  (ClusterRemoved, a leaving cluster first).
- ``placement-created``, ``placement-changed`` (PlacementChanged: numberOfClusters up or down, a
  preference weight, a spread constraint's maxSkew, the required affinity, PickFixed's names),
  ``placement-removed`` (PlacementRemoved).

Besides the events, agents go silent without a word (no event: the cluster turns ineligible when
its heartbeat times out, which upstream's watcher ignores). Placements are drawn from the hub
generator (adapters.fleet.generate): PickAll, PickN with and without topology spread, PickFixed.

Checked after every `check_every` events:

1. state: the scheduler's selections equal a full solve (adapters.run.pipeline.schedule) of
   `scheduler.objects()` at the same time, and so do the bindings it holds (cluster and state);
   and the checkpoint's own event, applied to the hub as it was before it and solved from scratch,
   gives the same selections as the scheduler's answer to it (a full solve of the state after can
   not see a wrong new pick, which is sticky once made);
2. churn: no (placement, cluster) pair the scheduler held was dropped beyond what the event
   forced: its cluster was removed or is leaving, its placement's policy changed (a new policy
   snapshot re-evaluates every binding), or its placement was scaled down (at most the surplus);
3. memory: RSS (after a full garbage collection) and the hub's object count are sampled; after a
   warm-up (the first tenth of the run), RSS may not grow by more than `MEMORY_GROWTH_LIMIT`.
"""

from __future__ import annotations

import argparse
import copy
import gc
import heapq
import json
import os
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from adapters.fleet import api as fleet
from adapters.fleet import names as n
from adapters.fleet.generate import generate_fleet
from adapters.fleet.policy import normalized_policy
from adapters.generate.common import DEFAULT_NOW, TEAMS, TIERS
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.live.incremental import (
    ClusterAdded,
    ClusterChanged,
    ClusterRemoved,
    FleetScheduler,
    PlacementChanged,
    PlacementRemoved,
)
from adapters.run.pipeline import schedule
from model import SelectionMode, first_untolerated
from solver import SolveOptions

__all__ = ["KINDS", "MEMORY_GROWTH_LIMIT", "SoakFailure", "SoakReport", "render", "run_soak"]

# The event mix: kind -> share of the events (heartbeats also keep every live agent heard).
MIX: dict[str, float] = {
    "heartbeat": 0.50,
    "cluster-changed": 0.10,
    "cluster-joined": 0.04,
    "cluster-leaving": 0.02,
    "cluster-removed": 0.04,
    "placement-created": 0.08,
    "placement-changed": 0.14,
    "placement-removed": 0.08,
}
KINDS = tuple(MIX)
HEARTBEAT_TIMEOUT = timedelta(minutes=n.HEARTBEAT_TIMEOUT_MINUTES)
HEARD_WITHIN = 240.0  # seconds: every live agent is heard at least this often
SILENCED_PER_EVENT = 0.01  # chance, per event, that some live agent goes silent
HEALTH_FLIP_SHARE = 0.05  # of heartbeats: the Healthy condition changes
RECOVERY_SHARE = 0.10  # of heartbeats, while some agent is silent: that agent is heard again
REJOIN_SHARE = 0.30  # of cluster-joined, while some cluster left: it joins again
MEMORY_GROWTH_LIMIT = 0.10
_CPU_COST = "kubernetes.azure.com/per-cpu-core-cost"
_NODE_COUNT = "kubernetes-fleet.io/node-count"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


class SoakFailure(AssertionError):
    """A check failed; the message says which, at which event, and the report so far is attached."""

    def __init__(self, message: str, report: SoakReport) -> None:
        super().__init__(message)
        self.report = report


@dataclass(slots=True)
class SoakReport:
    events: int
    clusters: int
    placements: int
    seed: int
    mode: str
    first_solve_s: float = 0.0
    wall_s: float = 0.0
    simulated_s: float = 0.0
    kinds: dict[str, dict[str, float]] = field(default_factory=dict)  # per kind: count, latency ms
    checks: dict[str, int] = field(default_factory=dict)  # check -> times passed
    churn: dict[str, int] = field(default_factory=dict)
    world: dict[str, int] = field(default_factory=dict)  # silenced agents, timeouts, ...
    hub_start: dict[str, int] = field(default_factory=dict)
    hub_end: dict[str, int] = field(default_factory=dict)
    memory: list[dict[str, float]] = field(default_factory=list)  # one sample per checkpoint
    memory_growth: float = 0.0  # after the warm-up, of RSS
    check_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# ========================================================================================= world


def _agent_condition(kind: str, stamp: str) -> dict[str, Any]:
    """A member agent's condition, as the CRD requires one (a reason, a message)."""
    return {
        "type": kind,
        "status": "True",
        "lastTransitionTime": stamp,
        "reason": f"InternalMemberCluster{kind}",
        "message": "",
    }


def _stamp(t: datetime) -> str:
    return time_text(t)


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _agent(member: dict[str, Any]) -> dict[str, Any] | None:
    for agent in (member.get("status") or {}).get("agentStatus") or []:
        if agent.get("type") == n.MEMBER_AGENT:
            return agent
    return None


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value)


class _Hub:
    """The hub as the world has it, and the event stream that changes it."""

    def __init__(self, clusters: int, placements: int, seed: int, now: datetime) -> None:
        self.rng = np.random.default_rng([seed, 2026])
        self.now = now
        objects = generate_fleet(clusters, placements, seed=seed, now=now)
        self.objects = objects
        self.members = {o["metadata"]["name"]: o for o in objects if o["kind"] == n.MEMBER_CLUSTER}
        self.placements = {o["metadata"]["name"]: o for o in objects if o["kind"] == n.PLACEMENT}
        # New placements come from a second hub of the same generator (fresh names on use).
        pool = generate_fleet(max(clusters, 50), max(3 * placements, 50), seed=seed + 7919, now=now)
        self.pool = [o for o in pool if o["kind"] == n.PLACEMENT]
        self.templates = [copy.deepcopy(o) for o in pool if o["kind"] == n.MEMBER_CLUSTER]
        # Required affinities to change to, per placement type: a PickAll one matches at most the
        # generator's PICK_ALL_LIMIT clusters, a PickN one may match most of the fleet.
        self.required_pool: dict[str, list[dict[str, Any]]] = {"PickAll": [], "PickN": []}
        for o in self.pool:
            policy = o["spec"]["policy"]
            terms = ((policy.get("affinity") or {}).get("clusterAffinity") or {}).get(_REQUIRED)
            if terms and policy["placementType"] in self.required_pool:
                self.required_pool[policy["placementType"]].append(terms)
        self.created = 0
        self.joined = 0
        self.left: list[str] = []  # removed clusters that may join again
        # Who is heard: live agents in a heap by when they were last heard; silent ones apart.
        self.heard: dict[str, datetime] = {}
        self.silent: set[str] = set()
        self.queue: list[tuple[datetime, str]] = []
        for name, member in sorted(self.members.items()):
            agent = _agent(member)
            last = _parse(agent["lastReceivedHeartbeat"]) if agent else None
            if last is None or now - last > HEARTBEAT_TIMEOUT:
                self.silent.add(name)  # the generator's stale clusters stay silent until heard again
            else:
                self._heard(name, last)
        self.counts: Counter[str] = Counter()
        self.replaced: dict[str, Any] | None = None  # the placement a placement-changed replaced
        self.silenced: dict[str, datetime] = {}  # agents silenced during the run: when last heard

    # -- clock and heartbeats -------------------------------------------------------------------

    def _heard(self, name: str, at: datetime) -> None:
        self.heard[name] = at
        heapq.heappush(self.queue, (at, name))

    def _oldest_live(self) -> tuple[datetime, str] | None:
        while self.queue:
            at, name = self.queue[0]
            if self.heard.get(name) == at and name in self.members:
                return at, name
            heapq.heappop(self.queue)
        return None

    def advance(self) -> None:
        """Move the clock by one event's share of the heartbeat load, and maybe silence an agent."""
        live = max(1, len(self.heard))
        mean = HEARD_WITHIN * MIX["heartbeat"] / live
        self.now += timedelta(seconds=float(self.rng.exponential(mean)))
        if self.rng.random() < SILENCED_PER_EVENT and self.heard:
            names = sorted(self.heard)
            name = names[int(self.rng.integers(len(names)))]
            self.silenced[name] = self.heard.pop(name)
            self.silent.add(name)
            self.counts["agents silenced"] += 1

    def overdue(self) -> bool:
        oldest = self._oldest_live()
        return oldest is not None and (self.now - oldest[0]).total_seconds() > HEARD_WITHIN

    # -- events ---------------------------------------------------------------------------------

    def _pick(self, names: Sequence[str]) -> str:
        return names[int(self.rng.integers(len(names)))]

    def _changed_member(self, name: str) -> dict[str, Any]:
        obj = copy.deepcopy(self.members[name])
        self.members[name] = obj
        return obj

    def heartbeat(self) -> Any:
        if self.silent and self.rng.random() < RECOVERY_SHARE:
            name = self._pick(sorted(self.silent))
            self.silent.discard(name)
            self.counts["agents heard again"] += 1
        else:
            oldest = self._oldest_live()
            if oldest is None:
                return None
            name = oldest[1]
        obj = self._changed_member(name)
        stamp = _stamp(self.now)
        status = obj.setdefault("status", {})
        agent = _agent(obj)
        if agent is None:
            agent = {"type": n.MEMBER_AGENT, "conditions": []}
            status.setdefault("agentStatus", []).append(agent)
        agent["lastReceivedHeartbeat"] = stamp
        for prop in (status.get("properties") or {}).values():
            prop["observationTime"] = stamp
        if status.get("resourceUsage"):
            status["resourceUsage"]["observationTime"] = stamp
        conditions = agent.setdefault("conditions", [])
        if not any(c.get("type") == "Joined" for c in conditions):
            conditions.append(_agent_condition("Joined", stamp))
        healthy = next((c for c in conditions if c.get("type") == "Healthy"), None)
        if healthy is None:
            conditions.append(_agent_condition("Healthy", stamp))
        elif self.rng.random() < HEALTH_FLIP_SHARE:
            healthy["status"] = "False" if healthy.get("status") == "True" else "True"
            healthy["lastTransitionTime"] = stamp
            self.counts["health flips"] += 1
        self._heard(name, _parse(stamp))
        return ClusterChanged(obj)

    def cluster_changed(self) -> Any:
        name = self._pick(sorted(self.members))
        obj = self._changed_member(name)
        labels = obj["metadata"].setdefault("labels", {})
        what = int(self.rng.integers(6))
        if what == 0:  # moved to another region and zone, as another cluster has them
            other = self.members[self._pick(sorted(self.members))]["metadata"].get("labels") or {}
            for key in ("region", "zone"):
                if key in other:
                    labels[key] = other[key]
        elif what == 1:
            labels["team"] = self._pick(TEAMS)
        elif what == 2:
            labels["tier"] = self._pick(TIERS)
        elif what == 3:
            labels["environment"] = self._pick(("production", "staging", "dev"))
        elif what == 4:  # a taint added, or the taints removed
            spec = obj.setdefault("spec", {})
            if spec.get("taints"):
                spec.pop("taints")
            else:
                key = self._pick(("maintenance", "gpu", "dedicated"))
                spec["taints"] = [{"key": key, "value": "true", "effect": "NoSchedule"}]
        else:
            properties = obj.setdefault("status", {}).setdefault("properties", {})
            if self.rng.random() < 0.5:
                value = f"0.{int(self.rng.integers(20, 121)):03d}"
                properties[_CPU_COST] = {"value": value, "observationTime": _stamp(self.now)}
            else:
                value = str(int(self.rng.integers(1, 40)))
                properties[_NODE_COUNT] = {"value": value, "observationTime": _stamp(self.now)}
        return ClusterChanged(obj)

    def cluster_joined(self) -> Any:
        if self.left and self.rng.random() < REJOIN_SHARE:
            name = self.left.pop(int(self.rng.integers(len(self.left))))
            obj = copy.deepcopy(self.templates[int(self.rng.integers(len(self.templates)))])
            obj["metadata"]["name"] = name
        else:
            obj = copy.deepcopy(self.templates[int(self.rng.integers(len(self.templates)))])
            region = (obj["metadata"].get("labels") or {}).get("region", "joined")
            self.joined += 1
            obj["metadata"]["name"] = f"member-{region}-j{self.joined:05d}"
            name = obj["metadata"]["name"]
        obj["metadata"].pop("deletionTimestamp", None)
        stamp = _stamp(self.now)
        obj.setdefault("status", {})["agentStatus"] = [
            {
                "type": n.MEMBER_AGENT,
                "lastReceivedHeartbeat": stamp,
                "conditions": [_agent_condition("Joined", stamp), _agent_condition("Healthy", stamp)],
            }
        ]
        self.members[name] = obj
        self.silent.discard(name)
        self._heard(name, _parse(stamp))
        return ClusterAdded(obj)

    def cluster_leaving(self) -> Any:
        staying = sorted(k for k, m in self.members.items() if "deletionTimestamp" not in m["metadata"])
        if not staying:
            return None
        obj = self._changed_member(self._pick(staying))
        obj["metadata"]["deletionTimestamp"] = _stamp(self.now)
        return ClusterChanged(obj)

    def cluster_removed(self) -> Any:
        if not self.members:
            return None
        leaving = sorted(k for k, m in self.members.items() if "deletionTimestamp" in m["metadata"])
        name = leaving[0] if leaving else self._pick(sorted(self.members))
        del self.members[name]
        self.heard.pop(name, None)
        self.silent.discard(name)
        self.left.append(name)
        return ClusterRemoved(name)

    def placement_created(self) -> Any:
        obj = copy.deepcopy(self.pool[self.created % len(self.pool)])
        self.created += 1
        workload = obj["metadata"]["name"].rsplit("-", 1)[0]
        name = f"{workload}-c{self.created:05d}"
        obj["metadata"] = {"name": name, "generation": 1, "uid": f"soak-{self.created:08d}"}
        policy = obj["spec"]["policy"]
        if policy["placementType"] == "PickFixed":
            policy["clusterNames"] = self._fixed_names(len(policy["clusterNames"]))
        self.placements[name] = obj
        return PlacementChanged(obj)

    def _fixed_names(self, count: int) -> list[str]:
        names = sorted(self.members)
        chosen = self.rng.choice(len(names), size=min(count, len(names)), replace=False)
        out = sorted(names[int(i)] for i in chosen)
        if self.rng.random() < 0.15:
            out.append(f"member-nowhere-{int(self.rng.integers(100000)):05d}")
        return out

    def placement_changed(self) -> Any:
        if not self.placements:
            return None
        name = self._pick(sorted(self.placements))
        self.replaced = self.placements[name]
        obj = copy.deepcopy(self.replaced)
        policy = obj["spec"].setdefault("policy", {"placementType": "PickAll"})
        kind = policy.get("placementType", "PickAll")
        what = int(self.rng.integers(4))
        if kind == "PickFixed":
            names = list(policy.get("clusterNames") or [])
            if names and self.rng.random() < 0.5:
                names.pop(int(self.rng.integers(len(names))))
            else:
                names = sorted({*names, self._pick(sorted(self.members))})
            policy["clusterNames"] = names
        elif kind == "PickN" and what <= 1:  # scaled up or down: the same snapshot
            count = int(policy.get("numberOfClusters", 0))
            step = int(self.rng.integers(1, 4))
            policy["numberOfClusters"] = max(0, count + (step if what == 0 else -step))
        elif (
            kind == "PickN"
            and what == 2
            and (policy.get("topologySpreadConstraints") or self._preferred(policy))
        ):
            preferred = self._preferred(policy)
            if preferred:
                weight = int(preferred[0].get("weight", 0))
                preferred[0]["weight"] = weight - 10 if weight > 0 else weight + 10
                if preferred[0]["weight"] == 0:
                    preferred[0]["weight"] = 10
            else:
                spread = policy["topologySpreadConstraints"][0]
                spread["maxSkew"] = int(spread.get("maxSkew", 1)) % 3 + 1
        else:  # another required affinity
            affinity = policy.setdefault("affinity", {}).setdefault("clusterAffinity", {})
            pool = self.required_pool[kind] or self.required_pool["PickN"]
            affinity[_REQUIRED] = copy.deepcopy(pool[int(self.rng.integers(len(pool)))])
        obj["metadata"]["generation"] = int(obj["metadata"].get("generation", 1)) + 1
        self.placements[name] = obj
        return PlacementChanged(obj)

    @staticmethod
    def _preferred(policy: dict[str, Any]) -> list[dict[str, Any]]:
        return ((policy.get("affinity") or {}).get("clusterAffinity") or {}).get(_PREFERRED) or []

    def placement_removed(self) -> Any:
        if not self.placements:
            return None
        name = self._pick(sorted(self.placements))
        del self.placements[name]
        return PlacementRemoved(name)

    def draw(self) -> tuple[str, Any]:
        """The next event: (kind, event); the event is None when its kind has nothing to act on."""
        self.replaced = None
        if self.overdue():
            kind = "heartbeat"
        else:
            kind = KINDS[int(self.rng.choice(len(KINDS), p=list(MIX.values())))]
        return kind, getattr(self, kind.replace("-", "_"))()


# ========================================================================================= checks


def _full_selection(
    objects: list[dict[str, Any]], now: datetime, options: SolveOptions
) -> dict[str, list[str]]:
    outcome = schedule(objects, now=now, options=options)
    return {r.request: sorted(c.cluster for c in r.selected) for r in outcome.result.requests}


def _bindings(objects: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """(placement, cluster, state) of every binding not being deleted."""
    return {
        (o["metadata"]["labels"][n.PARENT_LABEL], o["spec"]["targetCluster"], o["spec"]["state"])
        for o in objects
        if o["kind"] == n.BINDING and not o["metadata"].get("deletionTimestamp")
    }


def _full_bindings(objects: list[dict[str, Any]], now: datetime, options: SolveOptions):
    outcome = schedule(objects, now=now, options=options)
    selected = {r.request: sorted(c.cluster for c in r.selected) for r in outcome.result.requests}
    written = {(o["kind"], o["metadata"]["name"]): o for o in outcome.apply}
    kept = [o for o in objects if (o["kind"], o["metadata"]["name"]) not in written]
    return selected, _bindings([*kept, *written.values()])


def _applied(objects: list[dict[str, Any]], event: Any) -> list[dict[str, Any]]:
    """The hub `objects` with `event` applied as the API server would have it."""
    if isinstance(event, PlacementRemoved):
        return [
            o
            for o in objects
            if not (o["kind"] == n.PLACEMENT and o["metadata"]["name"] == event.name)
            and (o.get("metadata", {}).get("labels") or {}).get(n.PARENT_LABEL) != event.name
        ]
    if isinstance(event, ClusterRemoved):
        return [
            o for o in objects if not (o["kind"] == n.MEMBER_CLUSTER and o["metadata"]["name"] == event.name)
        ]
    kind = n.PLACEMENT if isinstance(event, PlacementChanged) else n.MEMBER_CLUSTER
    name = event.obj["metadata"]["name"]
    out = [o for o in objects if not (o["kind"] == kind and o["metadata"]["name"] == name)]
    return [*out, event.obj]


def _new_filters(crp: dict[str, Any], members: dict[str, dict[str, Any]], now: datetime):
    """Whether a cluster passes the filters of the placement's new policy (as bench.events judges
    a forced drop: eligible and not leaving, required affinity, tolerations; PickFixed's names)."""

    def passes(cluster: str) -> bool:
        member = members.get(cluster)
        if member is None:
            return False
        batch, _ = fleet.load(from_objects([crp, member], "<soak>"), now=now)
        request, c = batch.requests[0], batch.clusters[0]
        if not c.eligible or c.leaving:
            return False
        if request.mode is SelectionMode.FIXED:
            return c.name in request.cluster_names
        if request.required and not any(t.matches(c.labels, c.properties) for t in request.required):
            return False
        return first_untolerated(c.taints, request.tolerations) is None

    return passes


def _hub_counts(objects: list[dict[str, Any]]) -> dict[str, int]:
    counts = Counter(o["kind"] for o in objects)
    counts["Unscheduled bindings"] = sum(
        1 for o in objects if o["kind"] == n.BINDING and o["spec"].get("state") == n.UNSCHEDULED
    )
    return dict(sorted(counts.items()))


class _Churn:
    """Which dropped (placement, cluster) pairs an event licenses (see the module docstring)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.replaced: dict[str, Any] | None = None  # the placement a placement-changed replaced
        self.silenced: dict[str, datetime] = {}  # agents silenced during the run: when last heard
        self.beyond: list[str] = []

    def account(
        self,
        index: int,
        kind: str,
        event: Any,
        before: dict[str, list[str]],
        after: dict[str, list[str]],
        old_policy: dict[str, Any] | None,
        gone: str | None,
        passes: Any = None,
    ) -> int:
        beyond_before = len(self.beyond)
        changed = surplus_of = None
        if isinstance(event, PlacementChanged) and old_policy is not None:
            name = event.obj["metadata"]["name"]
            new_policy = event.obj["spec"].get("policy")
            if normalized_policy(old_policy) != normalized_policy(new_policy):
                changed = name
            else:
                surplus_of = (
                    name,
                    len(before.get(name, [])) - int((new_policy or {}).get("numberOfClusters", 0)),
                )
        for placement, held in before.items():
            lost = sorted(set(held) - set(after.get(placement, ())))
            if not lost:
                continue
            if isinstance(event, PlacementRemoved) and placement == event.name:
                self.counts["dropped with their placement"] += len(lost)
                continue
            surplus = surplus_of[1] if surplus_of and surplus_of[0] == placement else 0
            for cluster in lost:
                if cluster == gone:
                    self.counts["forced: cluster removed or leaving"] += 1
                elif placement == changed:
                    if passes is not None and not passes(cluster):
                        self.counts["policy changed: cluster fails the new filters"] += 1
                    else:
                        self.counts["policy changed: not picked again"] += 1
                elif surplus > 0:
                    surplus -= 1
                    self.counts["forced: scaled down"] += 1
                else:
                    self.beyond.append(f"event {index} ({kind}): {placement} dropped {cluster}")
        self.counts["beyond forced"] = len(self.beyond)
        return len(self.beyond) - beyond_before


# ========================================================================================= driver


def run_soak(
    events: int,
    clusters: int,
    placements: int,
    seed: int,
    *,
    mode: str = "optimal",
    check_every: int = 100,
    trace_memory: bool = False,
    fail_fast: bool = True,
    progress: Any = None,
) -> SoakReport:
    """Drive a FleetScheduler on a generated hub through `events` seeded events, checking state,
    churn and memory every `check_every` events. Raises SoakFailure (with the report so far) on
    the first failed check when `fail_fast`; otherwise lists failures in the report."""
    start = datetime.fromisoformat(DEFAULT_NOW)
    options = SolveOptions(mode=mode)
    report = SoakReport(events, clusters, placements, seed, mode)
    hub = _Hub(clusters, placements, seed, start)
    if trace_memory:
        tracemalloc.start()
    began = time.perf_counter()
    scheduler = FleetScheduler(hub.objects, now=hub.now, options=options)
    report.first_solve_s = time.perf_counter() - began
    del hub.objects
    report.hub_start = _hub_counts(scheduler.objects())
    latencies: dict[str, list[float]] = {k: [] for k in KINDS}
    solved: dict[str, list[int]] = {k: [] for k in KINDS}
    checks: Counter[str] = Counter()
    churn = _Churn()
    warm_up = max(check_every, events // 10)
    warm_rss: float | None = None

    def fail(message: str) -> None:
        report.failures.append(message)
        if fail_fast:
            _finish()
            raise SoakFailure(message, report)

    def _finish() -> None:
        report.wall_s = time.perf_counter() - began
        report.simulated_s = (hub.now - start).total_seconds()
        report.kinds = {
            k: {
                "count": len(v),
                "mean_ms": round(statistics.fmean(v) * 1000, 2) if v else 0.0,
                "median_ms": round(statistics.median(v) * 1000, 2) if v else 0.0,
                "max_ms": round(max(v) * 1000, 2) if v else 0.0,
                "mean_placements_solved": round(statistics.fmean(solved[k]), 2) if v else 0.0,
            }
            for k, v in latencies.items()
        }
        report.checks = dict(checks)
        report.churn = dict(churn.counts)
        report.world = dict(hub.counts)
        report.world["agents timed out (ineligible, no event)"] = sum(
            1 for name, last in hub.silenced.items() if hub.now - last > HEARTBEAT_TIMEOUT
        )

    for index in range(1, events + 1):
        hub.advance()
        checkpoint = index % check_every == 0 or index == events
        while True:
            kind, event = hub.draw()
            if event is not None:
                break
        before = scheduler.selected()
        old_policy = None
        gone = None
        if isinstance(event, PlacementChanged) and hub.replaced is not None:
            old_policy = hub.replaced["spec"].get("policy") or {"placementType": "PickAll"}
        elif isinstance(event, ClusterRemoved):
            gone = event.name
        elif isinstance(event, ClusterChanged) and "deletionTimestamp" in event.obj["metadata"]:
            gone = event.obj["metadata"]["name"]
        shadow = _applied(scheduler.objects(), event) if checkpoint else None
        delta = scheduler.handle(event, now=hub.now)
        latencies[kind].append(delta.seconds)
        solved[kind].append(len(delta.placements))
        after = scheduler.selected()
        passes = _new_filters(event.obj, hub.members, hub.now) if old_policy is not None else None
        if churn.account(index, kind, event, before, after, old_policy, gone, passes):
            fail(churn.beyond[-1])
        else:
            checks["churn"] += 1
        if not checkpoint:
            continue

        checked = time.perf_counter()
        # 1. the state equals a full solve of the same objects, and the event a full solve of it
        objects = scheduler.objects()
        full, full_bindings = _full_bindings(objects, hub.now, options)
        if full != after:
            differ = sorted(p for p in full.keys() | after.keys() if full.get(p) != after.get(p))
            fail(
                f"event {index}: selections differ from a full solve for {len(differ)} placements: "
                f"{differ[:5]}"
            )
        else:
            checks["state = full solve"] += 1
        mine = _bindings(objects)
        if full_bindings != mine:
            extra = sorted(full_bindings ^ mine)[:5]
            fail(f"event {index}: bindings differ from a full solve's: {extra}")
        else:
            checks["bindings = full solve"] += 1
        if shadow is not None:
            if _full_selection(shadow, hub.now, options) != after:
                fail(f"event {index} ({kind}): a full solve of the hub with the event applied differs")
            else:
                checks["event = full solve"] += 1
        del objects, full, full_bindings, mine, shadow
        report.check_s += time.perf_counter() - checked

        # 3. memory
        gc.collect()
        sample = {"event": index, "rss_mib": round(_rss_mib(), 1), "hub_objects": len(scheduler.objects())}
        if trace_memory:
            sample["traced_mib"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 2)
        report.memory.append(sample)
        if index >= warm_up:
            basis = "traced_mib" if trace_memory else "rss_mib"
            if warm_rss is None:
                warm_rss = sample[basis]
            report.memory_growth = max(report.memory_growth, sample[basis] / warm_rss - 1.0)
        if progress is not None:
            progress(index, report, sample)

    report.hub_end = _hub_counts(scheduler.objects())
    _finish()
    if trace_memory:
        tracemalloc.stop()
    if report.memory_growth > MEMORY_GROWTH_LIMIT:
        fail(f"memory grew by {report.memory_growth:.1%} after the warm-up (limit {MEMORY_GROWTH_LIMIT:.0%})")
    else:
        checks["memory flat"] += 1
        report.checks = dict(checks)
    return report


# ========================================================================================= output


def render(report: SoakReport) -> str:
    lines = [
        f"# Soak: {report.events:,} events on {report.clusters:,} clusters x {report.placements:,} "
        f"placements, seed {report.seed}, {report.mode} mode",
        "",
        f"First solve {report.first_solve_s:.2f} s; run {report.wall_s:.1f} s wall (checks "
        f"{report.check_s:.1f} s); {report.simulated_s / 60:.1f} simulated minutes.",
        "",
        "| event | count | mean ms | median ms | worst ms | placements solved (mean) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, row in report.kinds.items():
        lines.append(
            f"| {kind} | {row['count']} | {row['mean_ms']} | {row['median_ms']} | {row['max_ms']} "
            f"| {row['mean_placements_solved']} |"
        )
    lines += ["", "Checks passed: " + ", ".join(f"{k} {v}" for k, v in report.checks.items())]
    lines += ["Churn: " + ", ".join(f"{k} {v}" for k, v in report.churn.items())]
    lines += ["World: " + ", ".join(f"{k} {v}" for k, v in report.world.items())]
    lines += [f"Hub at start: {report.hub_start}", f"Hub at end: {report.hub_end}"]
    if report.memory:
        first, last = report.memory[0], report.memory[-1]
        peak = max(s["rss_mib"] for s in report.memory)
        lines.append(
            f"Memory: RSS {first['rss_mib']} MiB at event {first['event']}, {last['rss_mib']} MiB at "
            f"event {last['event']} (peak {peak}); growth after the warm-up {report.memory_growth:.1%}"
        )
        if "traced_mib" in first:
            lines.append(f"Traced (tracemalloc): {first['traced_mib']} MiB -> {last['traced_mib']} MiB")
    if report.failures:
        lines += ["", "FAILURES:", *report.failures]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--clusters", type=int, default=2_000)
    parser.add_argument("--placements", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("optimal", "greedy"), default="optimal")
    parser.add_argument("--check-every", type=int, default=100)
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slower)")
    parser.add_argument("--keep-going", action="store_true", help="record failed checks instead of stopping")
    parser.add_argument("--json", help="also write the report as JSON to this file")
    args = parser.parse_args(argv)

    def progress(index: int, report: SoakReport, sample: dict[str, float]) -> None:
        print(f"[{index}] {sample} failures {len(report.failures)}", file=sys.stderr, flush=True)

    try:
        report = run_soak(
            args.events,
            args.clusters,
            args.placements,
            args.seed,
            mode=args.mode,
            check_every=args.check_every,
            trace_memory=args.tracemalloc,
            fail_fast=not args.keep_going,
            progress=progress,
        )
    except SoakFailure as failure:
        report = failure.report
    sys.stdout.write(render(report))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report.as_dict(), f, indent=1)
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
