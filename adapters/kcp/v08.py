"""v0.8: kcp's Placement API, its three controllers run to rest in one pass (semantics reference,
section 2.4).

- Controller A (scheduling/placement) chooses a Placement's Location: the Locations of its
  locationWorkspace (default: its own) whose spec.resource equals its locationResource and whose
  labels match one of its locationSelectors are valid. A Bound placement keeps its selection
  (Ready=False/LocationInvalid when it is no longer valid, else True); an Unbound one keeps a
  still-valid selection; otherwise one valid Location is drawn uniformly at random (phase Unbound,
  Ready=True), or, with none, phase Pending, no selection and Ready=False/LocationNoMatch. Then
  the phase: Pending without a selection, else Bound when a namespace of its workspace carries the
  `scheduling.kcp.dev/placement` annotation and matches its namespaceSelector, else Unbound (a
  namespaceSelector upstream cannot build fails that step: the phase stays as it was).
  Every status change is an event upstream, so A and C's bind step run until nothing changes: a
  Bound placement whose location stopped matching unmarks the namespaces only it selected, turns
  Unbound for want of them and, Unbound with an invalid selection, draws a location again. Its
  Ready condition is written in every round as kcp sets conditions (status.py), so a False on
  the way moves its lastTransitionTime.
- Controller C's bind step marks a namespace (`scheduling.kcp.dev/placement: ""`) while a valid
  placement of its workspace (not Pending, Ready not False) selects it by namespaceSelector (nil
  selects none), and takes the mark off when none does.
- Controller B (workload/placement) chooses the SyncTarget within the selected Location, into
  the annotation `internal.workload.kcp.dev/synctarget` (the SyncTargetKey): this is the solver's
  request, one per placement with a selection, keyed `<workspace>/<name>`, whose demand is the
  number of namespaces it syncs (at least 1). Valid targets are the Location's ready,
  schedulable, non-evicting SyncTargets; the current one stays while it is valid (a forced move
  otherwise), and the annotation comes off when no target is valid. A Location whose
  instanceSelector upstream cannot build makes Controller B fail: no request, the annotation
  stays as it is (and what it holds counts as load).
- Controller C's scheduling step, judged at `now`: the keys the valid placements of a marked
  namespace now hold are scheduled; a `state.workload.kcp.dev/<key>` label no longer scheduled
  gets `deletion.internal.workload.kcp.dev/<key>: <now>`; a label whose deletion annotation is
  more than 5 s old loses both (a time Go's time.Parse cannot read is its zero time: at once); a
  scheduled key with neither gets the label `Sync` (a key inside its grace period is added back
  by a later run, as upstream's next reconcile does). Then its status step: NamespaceScheduled
  False "No available placements" without the mark, False "No available sync targets" without
  a synced key, else True (namespace_reconcile_status.go).

Controller C reconciles every namespace of every workspace but kube-system, kube-public and
kube-node-lease, which its event filter leaves out unless a Placement of their workspace
enqueues them. Written back: every namespace it reconciles and every Placement (annotation and
status: phase, selectedLocation, the Ready condition), unchanged ones included. LocationNotFound
(upstream: listing the Locations failed) never happens in a snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from adapters.contract import Emitted
from adapters.kcp import names as n
from adapters.kcp.objects import ClusterObject, LocationObject, NamespaceObject, PlacementObject, selects
from adapters.kcp.status import namespace_object, set_condition, with_metadata
from adapters.kcp.world import World, parse_rfc3339, seeded
from adapters.kube.fields import time_text
from model import (
    ClusterTerm,
    ExistingDecision,
    LabelSelector,
    Packing,
    PlacementRequest,
    Result,
    SelectionMode,
    Tenancy,
)

__all__ = ["NamespaceState", "Plan", "PlacementPlan", "emit", "plan"]

_GRACE = timedelta(seconds=n.REMOVING_GRACE_SECONDS)
_ROUNDS = 10
_Status = tuple[str, tuple[str, str] | None, list[Any]]  # phase, selectedLocation, conditions
# Controller A's Ready messages (pkg/reconciler/scheduling/placement/placement_reconcile_scheduling.go).
_INVALID = "Selected location is invalid for current placement"
_NO_MATCH = "No valid location is found"


@dataclass(slots=True)
class PlacementPlan:
    placement: PlacementObject
    phase: str
    selected: tuple[str, str] | None  # (path, locationName)
    ready: tuple[str, str, str]  # the Ready condition: status, reason, message
    valid_locations: tuple[str, ...]
    conditions: list[Any] = field(default_factory=list)  # its status.conditions as written
    location: LocationObject | None = None  # the selected Location, when it exists
    key: str | None = None  # its request's key, when it asks for a SyncTarget
    held: ClusterObject | None = None  # the SyncTarget its annotation names
    lost: str = ""  # an annotation naming no SyncTarget of the input
    failed: str = ""  # why Controller B fails on it (its annotation then stays as it is)
    namespaces: list[str] = field(default_factory=list)  # the namespaces it syncs (workspace/name)

    @property
    def valid(self) -> bool:
        """Controller C counts it: not Pending, Ready not False."""
        return self.phase != n.PHASE_PENDING and self.ready[0] != "False"


@dataclass(slots=True)
class NamespaceState:
    namespace: NamespaceObject
    marked: bool  # carries the placement annotation after the bind step
    placements: list[PlacementPlan]  # the valid placements that select it


@dataclass(slots=True)
class Plan:
    placements: list[PlacementPlan]
    namespaces: list[NamespaceState]
    requests: list[PlacementRequest]
    load: dict[str, int]


def plan(world: World) -> Plan:
    spaces = {p.workspace for p in world.placements}
    owned = [ns for ns in world.namespaces if ns.name not in n.NAMESPACE_BLOCKLIST or ns.workspace in spaces]
    selection = _Selection(world, owned)
    current = {p.key: (p.phase, p.selected, list(p.conditions)) for p in world.placements}
    last: _Rounded | None = None
    for _ in range(_ROUNDS):  # every status change is an event upstream: to rest
        placements, namespaces = _round(world, owned, selection, current, last)
        after = {pp.placement.key: (pp.phase, pp.selected, pp.conditions) for pp in placements}
        if after == current:
            break
        # A round reads each workspace's placements and namespaces alone: a workspace whose
        # placements' status this round left as it found them comes out of the next as it is.
        changed = {p.workspace for p in world.placements if after[p.key] != current[p.key]}
        last = _Rounded(placements, namespaces, changed)
        current = after
    else:
        raise AssertionError("kcp's placement controllers did not come to rest")

    by_key = world.keys if world.keys is not None else {c.key: c for c in world.clusters.values()}
    asking = []
    load: dict[str, int] = defaultdict(int)
    for pp in placements:
        if pp.phase == n.PHASE_PENDING or pp.selected is None:
            continue
        pp.location = world.location(*pp.selected)
        target = pp.placement.target
        pp.held = by_key.get(target) if target else None
        pp.lost = target if target and pp.held is None else ""
        if pp.location is not None and pp.location.selector_error:
            # LocationSyncTargets cannot build the instanceSelector: Controller B returns the
            # error and patches nothing. What it holds stays, and counts as load.
            pp.failed = f"Location {pp.location.name}'s instanceSelector: {pp.location.selector_error}"
            if pp.held is not None:
                load[pp.held.neutral] += max(1, len(pp.namespaces))
            continue
        asking.append(pp)
    ordered = sorted(asking, key=lambda pp: (pp.placement.created, pp.placement.key))
    requests = []
    for order, pp in enumerate(ordered):
        assert pp.selected is not None
        path, name = pp.selected
        request = PlacementRequest(
            name=pp.placement.name,
            namespace=pp.placement.workspace,
            mode=SelectionMode.N,
            count=1,
            required=(ClusterTerm(traits=(n.LOCATION_TRAIT.format(path, name),)),),
            existing=(ExistingDecision(pp.held.neutral),) if pp.held is not None else (),
            tenancy=Tenancy(
                order=order,
                packing=Packing.RANDOM,
                movable=True,
                demand=max(1, len(pp.namespaces)),
                balance=True,
            ),
        )
        pp.key = request.key  # the answer is found by the request's own key, whatever it is
        requests.append(request)
    return Plan(placements, namespaces, sorted(requests, key=lambda r: r.key), dict(load))


class _Selection:
    """What every round asks of the placements and is the same in each, so judged once: their
    valid Locations, and which namespaces of their workspace their namespaceSelectors select,
    each distinct selector once per distinct value of the labels it reads (a hub's 11,000
    placements have a handful of selectors)."""

    def __init__(self, world: World, owned: list[NamespaceObject]) -> None:
        placements = world.placements
        self.valid = [_valid_locations(world, p) for p in placements]  # Controller A's, per placement
        matches = _Matches()
        # workspace -> {selector's number: the indices of its placements there}
        alike: dict[str, dict[int, list[int]]] = defaultdict(dict)
        for i, p in enumerate(placements):
            alike[p.workspace].setdefault(matches.number(p.namespace_selector), []).append(i)
        self.of_namespace: list[list[int]] = []  # per owned namespace: its placements, in order
        self.of_placement: list[list[int]] = [[] for _ in placements]  # per placement: its namespaces
        for at, ns in enumerate(owned):
            chosen = [
                i
                for number, indices in alike.get(ns.workspace, {}).items()
                if matches(number, ns.labels)
                for i in indices
            ]
            chosen.sort()
            self.of_namespace.append(chosen)
            for i in chosen:
                self.of_placement[i].append(at)


class _Matches:
    """selects(selector, labels) of numbered selectors, remembered per selector and the values of
    the keys it reads."""

    def __init__(self) -> None:
        self.numbers: dict[LabelSelector | None, int] = {}
        self.selectors: list[tuple[LabelSelector | None, tuple[str, ...]]] = []  # and the keys it reads
        self.known: dict[tuple[int, tuple[str | None, ...]], bool] = {}

    def number(self, selector: LabelSelector | None) -> int:
        got = self.numbers.get(selector)
        if got is None:
            keys = () if selector is None else tuple(sorted({r.key for r in selector.requirements()}))
            got = self.numbers[selector] = len(self.selectors)
            self.selectors.append((selector, keys))
        return got

    def __call__(self, number: int, labels: Mapping[str, str]) -> bool:
        selector, keys = self.selectors[number]
        seen = (number, tuple(labels.get(key) for key in keys))
        got = self.known.get(seen)
        if got is None:
            got = self.known[seen] = selects(selector, labels)
        return got


@dataclass(slots=True)
class _Rounded:
    """A round's answer, and the workspaces whose placements' status it changed."""

    placements: list[PlacementPlan]
    namespaces: list[NamespaceState]
    changed: set[str]


def _round(
    world: World,
    owned: list[NamespaceObject],
    selection: _Selection,
    current: Mapping[str, _Status],
    last: _Rounded | None,
) -> tuple[list[PlacementPlan], list[NamespaceState]]:
    """One pass of Controller A's scheduling step, C's bind step and A's namespace step, from the
    placements' current status (its Ready condition written as each pass writes it); the last
    round's answer stands for the workspaces it did not change."""
    now = time_text(world.now)
    placements = []
    for i, (p, valid) in enumerate(zip(world.placements, selection.valid, strict=True)):
        if last is not None and p.workspace not in last.changed:
            placements.append(last.placements[i])
            continue
        phase, selected, conditions = current[p.key]
        pp = _controller_a(world, p, valid, phase, selected)
        pp.conditions = set_condition(conditions, n.READY, pp.ready, now, severity="Error")
        placements.append(pp)
    namespaces = []
    for at, (ns, chosen) in enumerate(zip(owned, selection.of_namespace, strict=True)):
        if last is not None and ns.workspace not in last.changed:
            namespaces.append(last.namespaces[at])
            continue
        valid = [placements[i] for i in chosen if placements[i].valid]
        namespaces.append(NamespaceState(ns, bool(valid), valid))
        for pp in valid:
            pp.namespaces.append(ns.key)
    for pp, selected in zip(placements, selection.of_placement, strict=True):
        if last is not None and pp.placement.workspace not in last.changed:
            continue
        if pp.phase == n.PHASE_PENDING or pp.selected is None:
            pp.phase = n.PHASE_PENDING
            continue
        if pp.placement.namespace_selector_error:
            continue  # A's namespace step fails building it: the phase stays as A's scheduling step left it
        bound = any(namespaces[at].marked for at in selected)
        pp.phase = n.PHASE_BOUND if bound else n.PHASE_UNBOUND
    return placements, namespaces


@dataclass(frozen=True, slots=True)
class _Valid:
    """The Locations valid for a placement: by name in the workspace's order, as a set, sorted."""

    names: tuple[str, ...]
    named: frozenset[str]
    ordered: tuple[str, ...]


def _valid_locations(world: World, p: PlacementObject) -> _Valid:
    """Controller A's valid Locations of a placement; placements mostly share their selectors:
    judged once per set."""
    asked = ("valid-locations", p.location_workspace, p.location_resource, p.location_selectors)
    valid = world.memo.get(asked)
    if valid is None:
        names = tuple(
            location.name
            for location in world.locations.get(p.location_workspace, ())
            if location.resource == p.location_resource
            and any(s.matches(location.labels) for s in p.location_selectors)
        )
        valid = world.memo[asked] = _Valid(names, frozenset(names), tuple(sorted(names)))
    return valid


def _controller_a(
    world: World, p: PlacementObject, valid_locations: _Valid, phase: str, selected: tuple[str, str] | None
) -> PlacementPlan:
    valid = valid_locations.names
    still = (
        selected is not None and selected[0] == p.location_workspace and selected[1] in valid_locations.named
    )
    if phase == n.PHASE_BOUND:  # without a selection too: its namespace step makes it Pending
        if still:
            return PlacementPlan(p, n.PHASE_BOUND, selected, ("True", "", ""), valid)
        return PlacementPlan(p, n.PHASE_BOUND, selected, ("False", n.LOCATION_INVALID, _INVALID), valid)
    if phase == n.PHASE_UNBOUND and still:
        return PlacementPlan(p, n.PHASE_UNBOUND, selected, ("True", "", ""), valid)
    if not valid:
        return PlacementPlan(p, n.PHASE_PENDING, None, ("False", n.LOCATION_NO_MATCH, _NO_MATCH), valid)
    pick = seeded(world.seed, p.workspace, p.name).choice(valid_locations.ordered)
    return PlacementPlan(p, n.PHASE_UNBOUND, (p.location_workspace, pick), ("True", "", ""), valid)


# ------------------------------------------------------------------------------------------- emit


def emit(world: World, plan: Plan, result: Result, part: tuple[float, float] = (0.0, 1.0)) -> Emitted:
    """The Namespaces, then the Placements; of them only the run from fraction `part[0]` to
    `part[1]` made (adapters.contract.System.emit_part): each is written from the Placements'
    targets alone, which every part works out whole, as the rest of what is emitted."""
    by_request = result.by_request()
    target: dict[str, str] = {}  # placement key -> the SyncTargetKey it holds after Controller B
    for pp in plan.placements:
        if pp.failed and pp.placement.target:
            target[pp.placement.key] = pp.placement.target  # Controller B failed: as it was
        if pp.key is None:
            continue
        got = by_request.get(pp.key)
        if got is None:
            raise ValueError(f"the result has no answer for Placement {pp.key!r}")
        if got.selected:
            target[pp.placement.key] = world.clusters[got.selected[0].cluster].key
    now = time_text(world.now)
    namespaces, placements = len(plan.namespaces), len(plan.placements)
    start, stop = (int(fraction * (namespaces + placements)) for fraction in part)
    apply = [_namespace(world, state, target, now) for state in plan.namespaces[start:stop]]
    apply += [
        _placement(pp, target.get(pp.placement.key, ""))
        for pp in plan.placements[max(0, start - namespaces) : max(0, stop - namespaces)]
    ]
    unsatisfied = tuple(
        pp.placement.key for pp in plan.placements if pp.placement.key not in target or pp.ready[0] == "False"
    )
    return Emitted(apply, [], tuple(pp.placement.key for pp in plan.placements), unsatisfied)


def _namespace(world: World, state: NamespaceState, target: Mapping[str, str], now: str) -> dict[str, Any]:
    ns = state.namespace
    labelled: dict[str, str | None] = {}  # the bind and scheduling steps' changes, in their order
    noted: dict[str, str | None] = {}  # (None: removed)
    if state.marked != (n.PLACEMENT_ANNOTATION in ns.annotations):
        noted[n.PLACEMENT_ANNOTATION] = "" if state.marked else None
    scheduled = set()
    if state.marked:
        scheduled = {target[pp.placement.key] for pp in state.placements if pp.placement.key in target}
    removing: dict[str, datetime | None] = {}
    synced = []
    for key in sorted(_suffixes(ns.labels, n.STATE_LABEL)):
        stamp = ns.annotations.get(n.DELETION_ANNOTATION + key)
        if stamp is None:
            synced.append(key)
        else:
            removing[key] = parse_rfc3339(stamp)
    for key in synced:
        if key not in scheduled:
            noted[n.DELETION_ANNOTATION + key] = now
    for key, since in removing.items():
        if since is None or world.now - since > _GRACE:  # unreadable: Go's zero time, long past
            labelled[n.STATE_LABEL + key] = None
            noted[n.DELETION_ANNOTATION + key] = None
    for key in sorted(scheduled - set(synced) - removing.keys()):
        labelled[n.STATE_LABEL + key] = n.SYNC
    labels, annotations = _changed(ns.labels, labelled), _changed(ns.annotations, noted)
    if labels is None and annotations is None:  # as read: marked as it was, `synced` still synced
        condition = _scheduled(state.marked, bool(synced))
    else:
        condition = scheduled_condition(
            ns.labels if labels is None else labels, ns.annotations if annotations is None else annotations
        )
    return namespace_object(ns.manifest.obj, labels, annotations, condition, now)


def _changed(read: Mapping[str, str], changes: Mapping[str, str | None]) -> dict[str, str] | None:
    """`read` with the changes made (a None value removes its key); None when there are none."""
    if not changes:
        return None
    out = dict(read)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def scheduled_condition(labels: Mapping[str, str], annotations: Mapping[str, str]) -> tuple[str, str, str]:
    """The NamespaceScheduled condition Controller C's status reconciler sets, from the namespace
    as its bind and scheduling steps left it (namespace_reconcile_status.go)."""
    marked = n.PLACEMENT_ANNOTATION in annotations
    syncing = marked and any(
        n.DELETION_ANNOTATION + key not in annotations for key in _suffixes(labels, n.STATE_LABEL)
    )
    return _scheduled(marked, syncing)


def _scheduled(marked: bool, syncing: bool) -> tuple[str, str, str]:
    """NamespaceScheduled of a namespace marked or not, syncing to a target (a state label without
    a deletion annotation) or not."""
    if not marked:
        return "False", n.UNSCHEDULABLE, n.NO_PLACEMENTS_MESSAGE
    if not syncing:
        return "False", n.UNSCHEDULABLE, n.NO_SYNC_TARGETS_MESSAGE
    return "True", "", ""


def _suffixes(mapping: Mapping[str, str], prefix: str) -> set[str]:
    return {k[len(prefix) :] for k in mapping if k.startswith(prefix) and len(k) > len(prefix)}


def _placement(pp: PlacementPlan, target: str) -> dict[str, Any]:
    p = pp.placement
    obj = p.manifest.obj
    annotations = dict(p.annotations)
    if target:
        annotations[n.SYNC_TARGET_ANNOTATION] = target
    else:
        annotations.pop(n.SYNC_TARGET_ANNOTATION, None)
    out = with_metadata(obj, dict(p.labels), annotations)
    status = dict(obj.get("status") or {})
    written = dict(status)
    written["phase"] = pp.phase
    if pp.selected is None:
        written.pop("selectedLocation", None)
    else:
        selected = {"path": pp.selected[0], "locationName": pp.selected[1]}
        if dict(status.get("selectedLocation") or {}) != selected:
            written["selectedLocation"] = selected
    written["conditions"] = pp.conditions
    if written != status:
        out["status"] = written
    return out
