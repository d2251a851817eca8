"""model.Result -> the Fleet objects the scheduler writes: bindings and policy snapshot status."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import UTC
from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

from adapters.contract import Emitted
from adapters.errors import InputError
from adapters.fleet import names as n
from adapters.fleet.load import DeletingPlacement, FleetContext, PlacementContext
from adapters.fleet.snapshots import as_stored, clean, clean_or_same, scheduled_condition, written_status
from adapters.kube.codec import Template
from adapters.kube.manifests import object_reference
from model import Choice, FilterKind, RequestResult, Result, Unselected

__all__ = ["Emitted", "emit", "binding_name"]

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SEGMENT = (63 - 10) // 2  # two dashes and an 8-character suffix leave this much per name


def binding_name(crp: str, cluster: str, seed: int, taken: set[str]) -> str:
    """`<crp prefix>-<cluster prefix>-<8 hex>`, upstream's scheme; the suffix is derived from the
    names and the seed instead of a random UUID, so the same input gives the same name."""
    attempt = 0
    while True:
        digest = hashlib.sha256(f"{crp}\x00{cluster}\x00{seed}\x00{attempt}".encode()).hexdigest()[:8]
        name = f"{crp[:_SEGMENT]}-{cluster[: _SEGMENT + 1]}-{digest}"
        if name not in taken:
            break
        attempt += 1
    # At most 63 characters by construction; a DNS-1123 label when both prefixes are made of its
    # characters and the first begins with a letter or digit (the suffix is hex).
    if not (_label_start(crp[:_SEGMENT]) and _label_part(cluster[: _SEGMENT + 1])):
        crp_is_bad = not _DNS_LABEL.fullmatch(f"{crp[:_SEGMENT]}-x")  # blame the name that breaks it
        raise InputError(
            f"cannot form a binding name from placement {crp!r} and cluster {cluster!r}: not a DNS-1123 label",  # noqa: E501
            where=f"{n.PLACEMENT}/{crp}" if crp_is_bad else f"{n.MEMBER_CLUSTER}/{cluster}",
            field="metadata.name",
        )
    return name


_LABEL_PART = re.compile(r"[-a-z0-9]*")


@lru_cache(maxsize=1 << 16)
def _label_start(part: str) -> bool:
    return part[:1].isalnum() and part[:1].isascii() and _label_part(part)


@lru_cache(maxsize=1 << 16)
def _label_part(part: str) -> bool:
    return _LABEL_PART.fullmatch(part) is not None


def _decision(choice: Choice) -> dict[str, Any]:
    score = choice.score
    if score is None:
        return _fixed_decision(choice.cluster)
    return _scored_decision(choice.cluster, score.affinity, score.spread)


# Decisions are cached like status entries (_unselected): a cluster picked by many placements with
# the same scores gets one dict, shared by their bindings and statuses and never mutated, which
# the YAML writer then renders once.
@lru_cache(maxsize=1 << 17)
def _fixed_decision(cluster: str) -> dict[str, Any]:
    return {"clusterName": cluster, "selected": True, "reason": n.PICKED_FIXED.format(cluster=cluster)}


@lru_cache(maxsize=1 << 17)
def _scored_decision(cluster: str, affinity: int, spread: int) -> dict[str, Any]:
    return {
        "clusterName": cluster,
        "selected": True,
        "clusterScore": {"affinityScore": affinity, "priorityScore": spread},
        "reason": n.PICKED_SCORED.format(cluster=cluster, affinity=affinity, spread=spread),
    }


@lru_cache(maxsize=65536)
def _unselected(entry: Unselected, fixed: bool) -> dict[str, Any]:
    """The status entry of an unselected cluster. Cached: many placements report the same
    clusters for the same reasons; entries are shared, never mutated."""
    out: dict[str, Any] = {"clusterName": entry.cluster, "selected": False}
    if entry.kind is FilterKind.NOT_PICKED:
        score = entry.score
        out["clusterScore"] = {"affinityScore": score.affinity, "priorityScore": score.spread}
        out["reason"] = n.NOT_PICKED.format(
            cluster=entry.cluster, affinity=score.affinity, spread=score.spread
        )
        return out
    if entry.kind is FilterKind.NOT_FOUND:
        out["reason"] = n.FIXED_NOT_FOUND.format(cluster=entry.cluster)
        return out
    if fixed:
        out["reason"] = n.FIXED_INVALID.format(cluster=entry.cluster, reason=entry.detail)
        return out
    if entry.kind is FilterKind.AFFINITY:
        reason = n.AFFINITY_MISMATCH
    elif entry.kind is FilterKind.INELIGIBLE:
        reason = entry.detail
    elif entry.kind is FilterKind.TAINT:
        taint = entry.taint
        reason = n.TAINT_NOT_TOLERATED.format(key=taint.key, value=taint.value, effect=taint.effect)
    else:
        reason = n.SPREAD_VIOLATED.format(key=entry.detail, skew=entry.skew)
    out["reason"] = f"{n.UNSCHEDULABLE}, {reason}"
    return out


def emit(context: FleetContext, result: Result) -> Emitted:
    apply: list[dict[str, Any]] = []
    delete: list[dict[str, str]] = []
    by_request = result.by_request()
    taken = {
        b["metadata"]["name"]
        for p in context.placements.values()
        for group in (p.active.values(), p.unscheduled.values(), p.deleting)
        for b in group
    }
    taken.update(b["metadata"]["name"] for p in context.deleting.values() for b in p.bindings)
    for name in sorted(context.placements.keys() | context.deleting.keys()):
        if name in context.deleting:
            _cleaned_up(context.deleting[name], apply, delete, _unchanged(context))
            continue
        placement = context.placements[name]
        got = by_request.get(name)
        if got is None:
            raise ValueError(f"the result has no answer for placement {name!r}")
        bindings, status = _placement(placement, got, context, taken)
        delete += [object_reference(s) for s in placement.deleted_snapshots]
        apply += placement.older_snapshots
        snapshot = dict(placement.snapshot)  # only its status is set here
        if status is not None:
            snapshot["status"] = status
        elif not placement.snapshot_is_new and placement.previous_status is not None:
            snapshot["status"] = placement.previous_status
        apply.append(snapshot)
        # scheduleOnce: the scheduler's finalizer, added once a latest snapshot exists, before the cycle
        apply.append(_finalized(placement.crp.obj, add=True))
        apply += sorted(bindings, key=lambda b: b["metadata"]["name"])
    return Emitted(apply, delete)


def _unchanged(context: FleetContext) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What is written for an object read and left as it is: the stored object itself where the
    objects read are stored ones (a long-lived scheduler's, which skips it by identity)."""
    return as_stored if context.stored else clean_or_same


def _cleaned_up(
    p: DeletingPlacement,
    apply: list[dict[str, Any]],
    delete: list[dict[str, str]],
    unchanged: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    """What upstream writes for a placement being deleted. The placement controller, holding its
    finalizer, deletes the policy snapshots (controller.go handleDelete; it removes its finalizer
    only once the resource snapshots, which are not read here, are gone too). The scheduler,
    holding its finalizer, takes its binding finalizer off every binding of the placement and
    deletes those not being deleted yet, whatever their state, then takes its own finalizer off
    the placement (scheduler.go cleanUpAllBindingsFor). Without their finalizers they write nothing."""
    finalizers = p.crp.obj["metadata"].get("finalizers") or ()
    if n.PLACEMENT_CLEANUP_FINALIZER in finalizers:
        delete += [object_reference(s) for s in p.snapshots]
    else:
        apply += [clean(s, keep_status=True) for s in p.snapshots]
    if n.SCHEDULER_CLEANUP_FINALIZER not in finalizers:
        apply += [unchanged(b) for b in p.bindings]
        apply.append(_finalized(p.crp.obj, add=False))
        return
    for b in p.bindings:
        apply.append(_without(clean(b), n.SCHEDULER_FINALIZER))
        if b["metadata"].get("deletionTimestamp") is None:
            delete.append(object_reference(b))
    apply.append(_finalized(p.crp.obj, add=False))


def _finalized(crp: dict[str, Any], *, add: bool) -> dict[str, Any]:
    """The placement as read (its status too: the scheduler writes none of it) with the
    scheduler's finalizer added (controllerutil.AddFinalizer: appended when missing) or removed."""
    out = clean(crp, keep_status=True)
    if add:
        finalizers = out["metadata"].get("finalizers") or []
        if n.SCHEDULER_CLEANUP_FINALIZER not in finalizers:
            out["metadata"]["finalizers"] = [*finalizers, n.SCHEDULER_CLEANUP_FINALIZER]
        return out
    return _without(out, n.SCHEDULER_CLEANUP_FINALIZER)


def _without(obj: dict[str, Any], finalizer: str) -> dict[str, Any]:
    """`obj` (a copy made to be changed) without `finalizer` (controllerutil.RemoveFinalizer: every
    occurrence); no finalizers left is none at all, as the API server stores it."""
    finalizers = [x for x in obj["metadata"].get("finalizers") or () if x != finalizer]
    if finalizers:
        obj["metadata"]["finalizers"] = finalizers
    else:
        obj["metadata"].pop("finalizers", None)
    return obj


class _Held(NamedTuple):
    """A binding the status may list: its name, state, target and decision, and how the run left
    it: kept (current, as it was), made, patched (obsolete, picked again) or restored (from
    Unscheduled, picked again). A named tuple: made for every binding of a large hub, where a
    frozen dataclass takes three times as long to make; told apart by identity (_listed)."""

    name: str
    state: str
    cluster: str
    decision: dict[str, Any]
    how: str
    score: Any = None  # the stored clusterScore of a kept binding (a scale-down's order)


def _placement(p: PlacementContext, got: RequestResult, context: FleetContext, taken: set[str]):
    snapshot_name = p.snapshot["metadata"]["name"]
    placement_name = p.name
    fixed = p.mode == "PickFixed"
    bindings: list[dict[str, Any]] = []
    held: list[_Held] = []
    restored: set[str] = set()
    unchanged = _unchanged(context)

    def kept(obj: dict[str, Any]) -> tuple[dict[str, Any], _Held]:
        """A binding kept: written back as it is (never mutated below), and its status entry."""
        binding = unchanged(obj)
        spec = binding["spec"]
        decision = spec.get("clusterDecision") or {}
        score = decision.get("clusterScore")
        return binding, _Held(
            binding["metadata"]["name"], spec["state"], spec["targetCluster"], decision, "kept", score
        )

    for choice in got.selected:
        if choice.kept:
            binding, entry = p.kept(choice.cluster, kept)  # made once per binding object (live)
            bindings.append(binding)
            held.append(entry)
            continue
        decision = _decision(choice)
        if choice.cluster in p.active:  # an obsolete binding, re-picked: state kept
            binding = clean(p.active[choice.cluster])
            if choice.restored:  # marked Unscheduled by an earlier cycle, then restored
                state = binding["spec"].get("state", n.SCHEDULED)
                binding["metadata"]["annotations"] = {n.PREVIOUS_STATE_ANNOTATION: state}
            how = "patched"
        elif choice.cluster in p.unscheduled:  # restored to the state it had
            binding = clean(p.unscheduled[choice.cluster])
            # the state the annotation names, whatever it is (crossReferencePickedClustersAndDeDupBindings);
            # the annotation stays: the merge patch is made after it is taken off both sides
            previous = (binding["metadata"].get("annotations") or {}).get(n.PREVIOUS_STATE_ANNOTATION)
            binding["spec"]["state"] = n.SCHEDULED if previous is None else previous
            restored.add(choice.cluster)
            how = "restored"
        else:  # made whole: never changed after (its rendering is fixed when it is made)
            binding = _new_binding(placement_name, snapshot_name, choice, decision, context.seed, taken)
            bindings.append(binding)
            held.append(_Held(binding["metadata"]["name"], n.SCHEDULED, choice.cluster, decision, "made"))
            continue
        binding["spec"]["schedulingPolicySnapshotName"] = snapshot_name
        binding["spec"]["clusterDecision"] = decision
        bindings.append(binding)
        held.append(
            _Held(binding["metadata"]["name"], binding["spec"]["state"], choice.cluster, decision, how)
        )

    for cluster in got.released:
        active = p.active.get(cluster)
        if active is None:
            continue
        binding = clean(active)
        binding["metadata"]["annotations"] = {
            n.PREVIOUS_STATE_ANNOTATION: binding["spec"].get("state", n.SCHEDULED)
        }
        binding["spec"]["state"] = n.UNSCHEDULED
        bindings.append(binding)
    bindings += [unchanged(b) for cluster, b in sorted(p.unscheduled.items()) if cluster not in restored]
    bindings += [unchanged(b) for b in p.passed_by]
    bindings += [_without(clean(b), n.SCHEDULER_FINALIZER) for b in p.deleting]

    if fixed and not (p.crp.obj.get("spec", {}).get("policy") or {}).get("clusterNames"):
        return bindings, None  # upstream writes no status for an empty list of names
    selected = _listed(p, got, held)
    unselected = [_unselected(u, fixed) for u in got.unselected]
    found = len(got.selected)
    if fixed:
        # Upstream builds PickFixed decisions from the names, not the bindings: the valid names in
        # clusterNames order, then the invalid ones, then those not found. A kept binding on a name
        # that is no longer valid is listed once, as invalid.
        names = dict.fromkeys(p.crp.obj["spec"]["policy"]["clusterNames"])
        skipped = {u.cluster for u in got.unselected}
        selected = [_decision(Choice(c)) for c in names if c not in skipped]
        ordered = sorted(got.unselected, key=lambda u: u.kind is FilterKind.NOT_FOUND)
        unselected = [_unselected(u, fixed) for u in ordered]
        found = len(selected)
    decisions = (selected + unselected)[: n.MAX_DECISIONS]
    status = written_status(
        p.previous_status,
        p.generation,
        decisions,
        scheduled_condition(got.satisfied, found, p.snapshot_generation),
        context.now.astimezone(UTC),
        refresh=not (got.scheduled or got.released),
    )
    return bindings, status


def _listed(p: PlacementContext, got: RequestResult, held: list[_Held]) -> list[dict[str, Any]]:
    """The selected entries of the status, in the order the last cycle lists its bindings
    (framework.go updatePolicySnapshotStatusFromBindings): a cycle that picks lists the bindings
    it made (in pick order), those it patched (obsolete ones, then restored ones, by binding name,
    as listed from the API server), then the scheduled and the bound ones it found (by name); a
    scale-down lists the scheduled then the bound ones left, in the order it trimmed them where it
    trimmed some; a cycle needing no pick lists the bound then the scheduled ones. Under topology
    spread a cycle picks one cluster: the status is the last cycle's, which made the last pick if
    it was the last one needed (else none), the earlier picks being bindings it found."""
    if not got.scheduled:
        by_name = sorted(held, key=_NAME)
        if not any(cluster not in p.dangling for cluster in got.released):  # no pick needed
            return [h.decision for h in by_name if h.state == n.BOUND] + [
                h.decision for h in by_name if h.state == n.SCHEDULED
            ]
        return _scaled_down(p, got, by_name)
    picks = [h for h in held if h.how != "kept"]
    if p.mode == "PickAll":
        picks.sort(key=_CLUSTER)
    last: list[_Held] = picks
    if p.mode == "PickN" and _spread(p):
        desired = (p.count or 0) - (len(held) - len(picks))
        last = picks[-1:] if len(picks) == desired else []
    found: list[_Held] = []  # none where the last cycle lists every held binding (a new placement's)
    if len(last) < len(held):
        in_last = {id(h) for h in last}  # by identity: comparing held bindings field by field is quadratic
        found = [h for h in sorted(held, key=_NAME) if id(h) not in in_last]
    patched = sorted((h for h in last if h.how == "patched"), key=_NAME)
    patched += sorted((h for h in last if h.how == "restored"), key=_NAME)
    return (
        [h.decision for h in last if h.how == "made"]
        + [h.decision for h in patched]
        + [h.decision for h in found if h.state == n.SCHEDULED]
        + [h.decision for h in found if h.state == n.BOUND]
    )


_NAME, _CLUSTER = attrgetter("name"), attrgetter("cluster")


def _spread(p: PlacementContext) -> bool:
    """Whether the policy has topology spread constraints: a batch of one cluster per cycle."""
    return bool((p.crp.obj.get("spec", {}).get("policy") or {}).get("topologySpreadConstraints"))


def _scaled_down(p: PlacementContext, got: RequestResult, by_name: list[_Held]) -> list[dict[str, Any]]:
    """framework.go downscale: the scheduled ones left, then the bound ones left; a group it
    trimmed some of (not all) is left in its trimming order (sortByClusterScoreAndName: a binding
    without a score first, then by topology spread and affinity score, then by target name)."""
    trimmed = {n.SCHEDULED: 0, n.BOUND: 0}
    for cluster in got.released:
        binding = p.active.get(cluster)
        if binding is not None and cluster not in p.dangling:
            spec = binding["spec"]
            if spec.get("schedulingPolicySnapshotName") == p.snapshot["metadata"]["name"]:
                trimmed[spec["state"]] = trimmed.get(spec["state"], 0) + 1
    out: list[dict[str, Any]] = []
    for state in (n.SCHEDULED, n.BOUND):
        group = [h for h in by_name if h.state == state]
        if trimmed[state]:
            group.sort(key=_trim_order)
        out += [h.decision for h in group]
    return out


def _trim_order(h: _Held) -> tuple[Any, ...]:
    score = h.score if isinstance(h.score, dict) else None
    if score is None:
        return (False, 0, 0, h.cluster)
    return (True, score.get("priorityScore", 0), score.get("affinityScore", 0), h.cluster)


def _new_binding(
    placement: str, snapshot: str, choice: Choice, decision: dict[str, Any], seed: int, taken: set[str]
) -> dict[str, Any]:
    name = binding_name(placement, choice.cluster, seed, taken)
    taken.add(name)
    return _NEW_BINDING.fill(name, placement, snapshot, choice.cluster, decision)


def _binding(name: str, placement: str, snapshot: str, cluster: str, decision: Any) -> dict[str, Any]:
    return {
        "apiVersion": n.API_VERSION,
        "kind": n.BINDING,
        "metadata": {
            "name": name,
            "labels": _parent_labels(placement),
            "finalizers": _FINALIZERS,
        },
        "spec": {
            "state": n.SCHEDULED,
            "resourceSnapshotName": "",
            "schedulingPolicySnapshotName": snapshot,
            "targetCluster": cluster,
            "clusterDecision": decision,
        },
    }


# A placement's new bindings share their labels, and every new binding its finalizers: emitted
# objects are never changed, and a hub of 10,000 x 50,000 makes a million new bindings (0.14 GB
# of these a part).
_FINALIZERS = [n.SCHEDULER_FINALIZER]


@lru_cache(maxsize=1 << 16)
def _parent_labels(placement: str) -> dict[str, str]:
    return {n.PARENT_LABEL: placement}


# A large hub's tens of thousands of new bindings differ in five values: the writer renders them
# from this template (codec.Template) instead of walking each.
_NEW_BINDING = Template(_binding)
