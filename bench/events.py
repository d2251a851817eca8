"""The churn experiment: solve, apply the plan, change one thing on the hub, solve again.

    state = advance(objects, outcome)                 # the hub after the first plan was applied
    changed = apply_event("cluster-removed", state, seed=0)
    after = schedule(changed, ...)                    # same mode as the first solve
    moved, forced = churn(outcome.result, after.result, after.batch)

`churn` counts the (placement, cluster) pairs selected before the event and not after it (a
workload moved off a cluster); `forced` is how many of those no scheduler could have kept, a lower
bound worked out from the state after the event alone (never from either answer):

- the cluster was removed, or is leaving;
- the pair is a decision of an older policy (after `policy-changed`) on a cluster that no longer
  passes the placement's filters (ineligible, required affinity, untolerated taint, or for
  PickFixed not among the names);
- a PickN placement holds more keepable clusters than it may select (more than N, or more than its
  current decisions): the surplus has to go.

A hard topology spread constraint can make a further drop unavoidable; that is not counted, so
`forced` is a lower bound and `churn - forced` an upper bound on the avoidable moves.

Events (all deterministic, seeded):

- ``cluster-removed``: the member cluster holding the most active bindings is deleted;
- ``label-changed``: that cluster's ``region`` label changes to another region;
- ``score-updated``: the per-cpu-core-cost property (a sorter's input) of a quarter of the
  clusters is redrawn;
- ``policy-changed``: ~10% of the placements that have topology spread or preferences get an
  edited policy (a preference weight moved by 10, or a spread constraint's maxSkew raised by one),
  with a new generation, so their scheduler writes a new policy snapshot and every binding they
  hold becomes obsolete and is re-evaluated.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from adapters.fleet import names as n
from model import Batch, Cluster, PlacementRequest, Result, SelectionMode
from solver.checker import passes

__all__ = [
    "EVENTS",
    "FLEET_EVENTS",
    "advance",
    "apply_event",
    "busiest_cluster",
    "churn",
    "forced_pairs",
    "selected_pairs",
]

EVENTS = ("cluster-removed", "label-changed", "score-updated", "policy-changed")

CPU_COST = "kubernetes.azure.com/per-cpu-core-cost"
SCORE_UPDATED_SHARE = 0.25
POLICY_CHANGED_SHARE = 0.10
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_SERVER_FIELDS = ("uid", "creationTimestamp", "generation", "resourceVersion")
_ACTIVE = (n.SCHEDULED, n.BOUND)

Objects = list[dict[str, Any]]


# ============================================================================== applying a plan


def _key(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    metadata = obj.get("metadata") or {}
    return obj["kind"], metadata.get("namespace") or "", metadata["name"]


def advance(objects: Iterable[dict[str, Any]], outcome: Any) -> Objects:
    """The hub's state after `outcome` (an adapters.run.pipeline.Outcome, or anything with `apply` and
    `delete`) was applied to `objects`: applied objects replace (or add to) the ones of the same
    kind and name, deleted references go, and an object that is being deleted and has no
    finalizer left is gone. As the API server does, an applied object keeps the old one's server
    fields (uid, generation, ...) and, when it carries no status, the old status."""
    state: dict[tuple[str, str, str], dict[str, Any]] = {_key(o): o for o in objects}
    for ref in outcome.delete:
        state.pop((ref["kind"], ref.get("namespace") or "", ref["name"]), None)
    for applied in outcome.apply:
        key = _key(applied)
        obj = copy.deepcopy(applied)
        metadata = obj["metadata"]
        if metadata.get("deletionTimestamp") and not metadata.get("finalizers"):
            state.pop(key, None)
            continue
        old = state.get(key)
        if old is not None:
            old_metadata = old.get("metadata") or {}
            for name in _SERVER_FIELDS:
                if name in old_metadata and name not in metadata:
                    metadata[name] = copy.deepcopy(old_metadata[name])
            if "status" not in obj and "status" in old:
                obj["status"] = copy.deepcopy(old["status"])
        state[key] = obj
    return list(state.values())


# ==================================================================================== the events


def busiest_cluster(objects: Sequence[Mapping[str, Any]]) -> str | None:
    """The member cluster holding the most active (Scheduled or Bound) bindings; ties go to the
    smaller name. None when no cluster holds any."""
    members = {o["metadata"]["name"] for o in objects if o["kind"] == n.MEMBER_CLUSTER}
    counts: Counter[str] = Counter()
    for o in objects:
        if o["kind"] != n.BINDING or (o.get("metadata") or {}).get("deletionTimestamp"):
            continue
        spec = o.get("spec") or {}
        if spec.get("state") in _ACTIVE and spec.get("targetCluster") in members:
            counts[spec["targetCluster"]] += 1
    if not counts:
        return None
    return min(counts, key=lambda name: (-counts[name], name))


def _replace(
    objects: Sequence[dict[str, Any]], changed: Mapping[tuple[str, str, str], dict[str, Any] | None]
):
    """A copy of the list with the objects in `changed` replaced (None: removed)."""
    out = []
    for o in objects:
        key = _key(o)
        if key in changed:
            if changed[key] is not None:
                out.append(changed[key])
        else:
            out.append(o)
    return out


def _members(objects: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((o for o in objects if o["kind"] == n.MEMBER_CLUSTER), key=lambda o: o["metadata"]["name"])


def _cluster_removed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    if target is None:
        return list(objects)
    return _replace(objects, {(n.MEMBER_CLUSTER, "", target): None})


def _label_changed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    if target is None:
        return list(objects)
    members = {o["metadata"]["name"]: o for o in _members(objects)}
    obj = copy.deepcopy(members[target])
    labels = obj["metadata"].setdefault("labels", {})
    regions = sorted({(m["metadata"].get("labels") or {}).get("region", "") for m in members.values()} - {""})
    others = [r for r in regions if r != labels.get("region")] or ["relabelled"]
    labels["region"] = others[int(rng.integers(len(others)))]
    return _replace(objects, {_key(obj): obj})


def _score_updated(objects: Objects, rng: np.random.Generator) -> Objects:
    members = _members(objects)
    if not members:
        return list(objects)
    count = max(1, round(SCORE_UPDATED_SHARE * len(members)))
    chosen = np.sort(rng.choice(len(members), size=count, replace=False))
    costs = rng.integers(20, 121, size=count)
    changed = {}
    for i, cost in zip(chosen.tolist(), costs.tolist(), strict=True):
        obj = copy.deepcopy(members[i])
        properties = obj.setdefault("status", {}).setdefault("properties", {})
        entry = dict(properties.get(CPU_COST) or {})
        entry["value"] = f"0.{cost:03d}"  # 0.020 .. 0.120 per core-hour, as the generator draws
        properties[CPU_COST] = entry
        changed[_key(obj)] = obj
    return _replace(objects, changed)


def _bump_weight(weight: int) -> int:
    """Move a preference weight by 10 within upstream's [-100, 100], never to 0."""
    step = 10 if weight >= 0 else -10
    moved = weight + step
    if abs(moved) > 100:
        moved = weight - step
    return moved if moved != 0 else weight + step


def _edit_policy(policy: dict[str, Any]) -> bool:
    """Edit a policy in place: the first preference's weight, else the first spread constraint's
    maxSkew. False when there is nothing to edit."""
    preferred = ((policy.get("affinity") or {}).get("clusterAffinity") or {}).get(_PREFERRED) or []
    if preferred:
        preferred[0]["weight"] = _bump_weight(int(preferred[0].get("weight", 0)))
        return True
    spread = policy.get("topologySpreadConstraints") or []
    if spread:
        spread[0]["maxSkew"] = int(spread[0].get("maxSkew", 1)) + 1
        return True
    return False


def _editable(obj: Mapping[str, Any]) -> bool:
    policy = (obj.get("spec") or {}).get("policy") or {}
    preferred = ((policy.get("affinity") or {}).get("clusterAffinity") or {}).get(_PREFERRED)
    return bool(preferred or policy.get("topologySpreadConstraints"))


def _policy_changed(objects: Objects, rng: np.random.Generator) -> Objects:
    candidates = sorted(
        (o for o in objects if o["kind"] == n.PLACEMENT and _editable(o)), key=lambda o: o["metadata"]["name"]
    )
    if not candidates:
        return list(objects)
    count = max(1, round(POLICY_CHANGED_SHARE * len(candidates)))
    changed = {}
    for i in np.sort(rng.choice(len(candidates), size=count, replace=False)).tolist():
        obj = copy.deepcopy(candidates[i])
        if _edit_policy(obj["spec"]["policy"]):
            obj["metadata"]["generation"] = int(obj["metadata"].get("generation", 1)) + 1
            changed[_key(obj)] = obj
    return _replace(objects, changed)


FLEET_EVENTS: dict[str, Callable[[Objects, np.random.Generator], Objects]] = {
    "cluster-removed": _cluster_removed,
    "label-changed": _label_changed,
    "score-updated": _score_updated,
    "policy-changed": _policy_changed,
}


def event_applier(
    events: Mapping[str, Callable[[Objects, np.random.Generator], Objects]], salt: int
) -> Callable[..., Objects]:
    """`apply_event(event, objects, *, seed=0)` for one system's events: a copy of the hub with
    the event applied (`objects` is not modified), drawn from a generator seeded per event."""

    def apply_event(event: str, objects: Sequence[dict[str, Any]], *, seed: int = 0) -> Objects:
        make = events.get(event)
        if make is None:
            raise ValueError(f"unknown event {event!r}; expected one of {', '.join(EVENTS)}")
        return make(list(objects), np.random.default_rng([seed, salt, EVENTS.index(event)]))

    return apply_event


apply_event = event_applier(FLEET_EVENTS, 7)


# ========================================================================================= churn


def selected_pairs(result: Result) -> set[tuple[str, str]]:
    """Every (placement, cluster) pair a result selects."""
    return {(r.request, c.cluster) for r in result.requests for c in r.selected}


def _passes(request: PlacementRequest, cluster: Cluster) -> bool:
    """Whether a cluster may take a new (or re-evaluated) decision of the request."""
    if not cluster.eligible or cluster.leaving:
        return False
    if request.mode is SelectionMode.FIXED:
        return cluster.name in request.cluster_names
    return passes(request, cluster, None, held=False)


def forced_pairs(before: set[tuple[str, str]], batch: Batch) -> int:
    """How many of the `before` pairs cannot survive in `batch` (the state after the event),
    whatever the scheduler does; see the module docstring."""
    clusters = {c.name: c for c in batch.clusters}
    requests = {r.key: r for r in batch.requests}
    held: dict[str, list[str]] = {}
    for placement, cluster in sorted(before):
        held.setdefault(placement, []).append(cluster)
    forced = 0
    for placement, names in held.items():
        request = requests.get(placement)
        if request is None:
            forced += len(names)
            continue
        existing = {d.cluster: d for d in request.existing}
        live_current = {
            d.cluster
            for d in request.existing
            if d.current and d.cluster in clusters and not clusters[d.cluster].leaving
        }
        keepable = 0
        for name in names:
            cluster = clusters.get(name)
            decision = existing.get(name)
            if cluster is None or cluster.leaving or decision is None:
                forced += 1
            elif name in live_current or _passes(request, cluster):
                keepable += 1
            else:
                forced += 1
        if request.mode is SelectionMode.N:
            forced += max(0, keepable - max(request.count, len(live_current)))
    return forced


def churn(before: Result, after: Result, batch_after: Batch) -> tuple[int, int]:
    """(pairs selected in `before` and not in `after`, how many of those were forced)."""
    old = selected_pairs(before)
    moved = len(old - selected_pairs(after))
    return moved, forced_pairs(old, batch_after)
