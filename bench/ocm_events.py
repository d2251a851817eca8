"""The churn experiment on an Open Cluster Management hub: solve, apply the plan, change one thing
on the hub, solve again. The same shape as :mod:`bench.events` (KubeFleet):

    state = advance(objects, outcome)                 # the hub after the first plan was applied
    changed = apply_event("cluster-removed", state, seed=0)
    after = schedule(changed, ...)                    # same mode as the first solve
    moved, forced = churn(outcome.result, after.result, after.batch)

`churn` counts the (placement, cluster) decisions selected before the event and not after it (a
placement's cluster set changed); `forced` is how many of those no scheduler could have kept, a
lower bound worked out from the state after the event alone (never from either answer):

- the ManagedCluster was removed (or is terminating), or the placement is gone, disabled or now
  misconfigured (upstream writes it no decisions);
- the cluster no longer passes the placement's filters: outside its eligible cluster sets, no
  predicate matches, or a taint it does not tolerate (NoSelectIfNew does not apply to a cluster the
  placement holds; tolerationSeconds are judged at the batch's `now`);
- the placement holds more keepable clusters than numberOfClusters: the surplus has to go.

OCM keeps nothing by policy: every sync re-runs filter, score and sort over every decision, and
Steady only prices holding a cluster (+100 x its weight). So moves beyond the forced ones are
expected, in both modes: a Balance score or an AddOnPlacementScore that changed can outweigh
Steady. They are counted, not hidden. Re-solving the applied plan with no event at all
(:func:`resync_churn`) shows how much of it is the re-evaluation itself.

Events (all deterministic, seeded):

- ``cluster-removed``: the ManagedCluster named in the most PlacementDecisions is deleted (with its
  AddOnPlacementScores, which live in its namespace);
- ``label-changed``: that cluster's ``region`` label (and ``zone``, to one of the new region's)
  changes to another region, so region predicates and the region-based cluster sets see it anew;
- ``score-updated``: the ``resource-usage-score`` AddOnPlacementScore (cpuAvailable,
  memAvailable) of a quarter of the clusters that have one is redrawn;
- ``policy-changed``: ~10% of the placements get an edited spec: numberOfClusters raised or
  lowered by one where it is set, otherwise the first predicate narrowed (``tier NotIn [bronze]``
  added to its label selector, or a predicate ``environment NotIn [dev]`` where there is none),
  with a new generation.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from adapters.ocm import names as n
from bench import events as fleet_events
from model import Batch, Result, SelectionMode
from solver.checker import passes

__all__ = [
    "EVENTS",
    "OCM_EVENTS",
    "advance",
    "apply_event",
    "busiest_cluster",
    "churn",
    "forced_pairs",
    "selected_pairs",
]

# The same event names as KubeFleet's, so that the suite's churn columns serve both systems.
EVENTS = fleet_events.EVENTS

REGION, ZONE = "region", "zone"
RESOURCE_SCORE = "resource-usage-score"
RESOURCE_ITEMS = ("cpuAvailable", "memAvailable")
SCORE_UPDATED_SHARE = 0.25
POLICY_CHANGED_SHARE = 0.10
NARROWING = {"key": "tier", "operator": "NotIn", "values": ["bronze"]}
NEW_PREDICATE = {
    "requiredClusterSelector": {
        "labelSelector": {
            "matchExpressions": [{"key": "environment", "operator": "NotIn", "values": ["dev"]}]
        }
    }
}

Objects = list[dict[str, Any]]
_key = fleet_events._key  # (kind, namespace, name)


# ============================================================================== applying a plan


def advance(objects: Iterable[dict[str, Any]], outcome: Any) -> Objects:
    """The hub's state after `outcome` (an adapters.run.pipeline.Outcome, or anything with `apply` and
    `delete`) was applied to `objects`: the emitted PlacementDecisions replace (or add to) the
    ones of the same namespace and name, the ones listed for deletion go, and each Placement takes
    the emitted status (the emitted object carries its spec unchanged). As the API server does, a
    replaced object keeps the old one's server fields (uid, generation, ...)."""
    return fleet_events.advance(objects, outcome)


# ==================================================================================== the events


def decision_counts(objects: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How many PlacementDecision entries name each cluster."""
    counts: Counter[str] = Counter()
    for o in objects:
        if o["kind"] != n.DECISION:
            continue
        for d in (o.get("status") or {}).get("decisions") or ():
            counts[d.get("clusterName", "")] += 1
    return counts


def busiest_cluster(objects: Sequence[Mapping[str, Any]]) -> str | None:
    """The ManagedCluster named in the most PlacementDecisions; ties go to the smaller name. None
    when no existing cluster holds any decision."""
    clusters = {o["metadata"]["name"] for o in objects if o["kind"] == n.MANAGED_CLUSTER}
    counts = {name: k for name, k in decision_counts(objects).items() if name in clusters and k}
    if not counts:
        return None
    return min(counts, key=lambda name: (-counts[name], name))


def _replace(
    objects: Sequence[dict[str, Any]], changed: Mapping[tuple[str, str, str], dict[str, Any] | None]
):
    return fleet_events._replace(objects, changed)


def _of_kind(objects: Sequence[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return sorted(
        (o for o in objects if o["kind"] == kind),
        key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]),
    )


def _cluster_removed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    if target is None:
        return list(objects)
    gone: dict[tuple[str, str, str], dict[str, Any] | None] = {(n.MANAGED_CLUSTER, "", target): None}
    for o in objects:
        if o["kind"] == n.SCORE and o["metadata"].get("namespace") == target:
            gone[_key(o)] = None
    return _replace(objects, gone)


def _label_changed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    if target is None:
        return list(objects)
    clusters = _of_kind(objects, n.MANAGED_CLUSTER)
    zones: dict[str, set[str]] = {}
    for c in clusters:
        labels = c["metadata"].get("labels") or {}
        if labels.get(REGION):
            zones.setdefault(labels[REGION], set()).update([labels[ZONE]] if labels.get(ZONE) else [])
    obj = copy.deepcopy(next(c for c in clusters if c["metadata"]["name"] == target))
    labels = obj["metadata"].setdefault("labels", {})
    others = sorted(r for r in zones if r != labels.get(REGION)) or ["relabelled"]
    region = others[int(rng.integers(len(others)))]
    labels[REGION] = region
    choices = sorted(zones.get(region, ()))
    if choices:
        labels[ZONE] = choices[int(rng.integers(len(choices)))]
    else:
        labels.pop(ZONE, None)
    return _replace(objects, {_key(obj): obj})


def _score_updated(objects: Objects, rng: np.random.Generator) -> Objects:
    scores = [o for o in _of_kind(objects, n.SCORE) if o["metadata"]["name"] == RESOURCE_SCORE]
    if not scores:
        return list(objects)
    count = max(1, round(SCORE_UPDATED_SHARE * len(scores)))
    chosen = np.sort(rng.choice(len(scores), size=count, replace=False))
    values = rng.integers(-100, 101, size=(count, len(RESOURCE_ITEMS)))
    changed = {}
    for i, drawn in zip(chosen.tolist(), values.tolist(), strict=True):
        obj = copy.deepcopy(scores[i])
        new = dict(zip(RESOURCE_ITEMS, drawn, strict=True))
        items = obj.setdefault("status", {}).setdefault("scores", [])
        for item in items:
            if item.get("name") in new:
                item["value"] = new[item["name"]]
        changed[_key(obj)] = obj
    return _replace(objects, changed)


def _edit_spec(spec: dict[str, Any], rng: np.random.Generator) -> None:
    """numberOfClusters one up or down (never below 1) where set; otherwise the first predicate
    narrowed, or a narrowing predicate added where there is none."""
    count = spec.get("numberOfClusters")
    if count is not None:
        spec["numberOfClusters"] = count + 1 if count <= 1 or rng.random() < 0.5 else count - 1
        return
    predicates = spec.get("predicates") or []
    if not predicates:
        spec["predicates"] = [copy.deepcopy(NEW_PREDICATE)]
        return
    selector = predicates[0].setdefault("requiredClusterSelector", {})
    labels = selector.setdefault("labelSelector", {})
    labels.setdefault("matchExpressions", []).append(copy.deepcopy(NARROWING))


def _policy_changed(objects: Objects, rng: np.random.Generator) -> Objects:
    placements = _of_kind(objects, n.PLACEMENT)
    if not placements:
        return list(objects)
    count = max(1, round(POLICY_CHANGED_SHARE * len(placements)))
    changed = {}
    for i in np.sort(rng.choice(len(placements), size=count, replace=False)).tolist():
        obj = copy.deepcopy(placements[i])
        _edit_spec(obj.setdefault("spec", {}), rng)
        obj["metadata"]["generation"] = int(obj["metadata"].get("generation", 1)) + 1
        changed[_key(obj)] = obj
    return _replace(objects, changed)


OCM_EVENTS: dict[str, Callable[[Objects, np.random.Generator], Objects]] = {
    "cluster-removed": _cluster_removed,
    "label-changed": _label_changed,
    "score-updated": _score_updated,
    "policy-changed": _policy_changed,
}


apply_event = fleet_events.event_applier(OCM_EVENTS, 11)


# ========================================================================================= churn


def selected_pairs(result: Result) -> set[tuple[str, str]]:
    """Every (placement, cluster) decision a result selects."""
    return fleet_events.selected_pairs(result)


def forced_pairs(before: set[tuple[str, str]], batch: Batch) -> int:
    """How many of the `before` decisions cannot survive in `batch` (the state after the event),
    whatever the scheduler does; see the module docstring."""
    clusters = {c.name: c for c in batch.clusters}
    requests = {r.key: r for r in batch.requests}
    held: dict[str, list[str]] = {}
    for placement, cluster in sorted(before):
        held.setdefault(placement, []).append(cluster)
    forced = 0
    for placement, names in held.items():
        request = requests.get(placement)
        if request is None:  # gone, disabled or misconfigured: no decisions
            forced += len(names)
            continue
        holding = {d.cluster for d in request.existing}
        keepable = 0
        for name in names:
            cluster = clusters.get(name)
            if (
                cluster is not None
                and not cluster.leaving
                and passes(request, cluster, batch.now, held=name in holding)
            ):
                keepable += 1
            else:
                forced += 1
        if request.mode is SelectionMode.N:
            forced += max(0, keepable - request.count)
    return forced


def churn(before: Result, after: Result, batch_after: Batch) -> tuple[int, int]:
    """(decisions selected in `before` and not in `after`, how many of those were forced)."""
    old = selected_pairs(before)
    moved = len(old - selected_pairs(after))
    return moved, forced_pairs(old, batch_after)
