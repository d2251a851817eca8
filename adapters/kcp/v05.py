"""v0.5: kcp's namespace scheduler and its placement annotation, as one batch.

Per namespace, as upstream's scheduler reconciles it (semantics reference, section 2.3):

1. a namespace labelled `experimental.workloads.kcp.dev/scheduling-disabled: "true"` is left
   alone (NamespaceScheduled=False, SchedulingDisabled);
2. its workspace's workload binding (world.workload_binding) names the negotiation workspace;
   without one the placement and negotiation annotations are taken off;
3. the negotiation workspace's Locations (a workspace without Locations stands for one Location
   `default` over all its clusters);
4. the entries of its annotation (another negotiation workspace's are dropped): Pending stays
   while its cluster is admissible in that location (not evicting, in the location), else it is
   dropped; Bound stays while admissible, else becomes Removing while the cluster exists (dropped
   when it is gone); Removing stays while the cluster exists; Unbound is dropped;
5. locations with a Pending or Bound entry are active; an existing location with only Removing
   entries is to be rescheduled;
6. nothing to reschedule and something active: done. Each location to reschedule gets a new
   cluster of its own (location stickiness). Nothing active and nothing to reschedule: a new
   location, drawn as upstream draws it: the locations in a random permutation, the last one with
   a schedulable cluster wins, except that a cluster just set to Removing and schedulable in a
   location is revived there (Bound again, its Removing entry dropped) and stops the search.
   Clusters already in the annotation are never picked anew.

The cluster picks are the solver's: one request per unit, keyed `<workspace>/<namespace>@<location>`
(a stable key: the same namespace in the same location keeps it run after run). A unit holding
a cluster (a Pending or Bound entry it keeps, a revival) asks to keep it; a unit to reschedule
holds the cluster it just set to Removing, which no longer passes its filters, so the solver
gives it up (a forced move) and picks another. A second kept entry in one location (rare) is not
a unit: it counts as load on its cluster.

Written back (emit): every namespace under placement (a workload binding, or the annotations),
with its annotation (the JSON map; the text as read when the map did not change, as upstream
patches only a change), the negotiation-workspace annotation with every change, and the
NamespaceScheduled condition: True with entries, False/Unschedulable for an empty map,
False/PlacementInvalid when the annotation is not a JSON object (it is then left as it is), and
False/SchedulingDisabled. Malformed entries (a key not `<ws>+<location>+<cluster>`, an unknown
state, a value not a string) are kept as they are, named in the condition's message (reason
PlacementInvalid, status as the other entries give it), and otherwise ignored: their clusters may
be picked, as upstream's scheduler, which drops them, may pick them; a new entry then replaces one
of the same key (`<ws>+<location>+<cluster>` with an unknown state), which is no longer named.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.emitted import Emitted
from adapters.kcp import names as n
from adapters.kcp.annotation import Entry, Parsed, entry_key, format_placement, parse_placement
from adapters.kcp.load import World, rfc3339, seeded
from adapters.kcp.names import State
from adapters.kcp.objects import ClusterObject, NamespaceObject
from adapters.kcp.status import set_condition
from model import (
    ClusterTerm,
    ExistingDecision,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    Packing,
    PlacementRequest,
    RequestResult,
    Result,
    SelectionMode,
    Tenancy,
)

__all__ = ["Plan", "NamespacePlan", "Unit", "emit", "plan"]

# What a namespace under placement is, for the scheduler.
UNBOUND = "unbound"  # no workload binding: its annotations come off
DISABLED = "disabled"
INVALID = "invalid"  # its annotation is not a JSON object
SCHEDULED = "scheduled"

KEPT = "kept"  # holds a cluster it keeps
RESCHEDULE = "reschedule"  # its location lost its cluster: a new one in the same location
NEW = "new"  # a namespace without an active location: a new location and cluster
REVIVE = "revive"  # a cluster just set to Removing, Bound again under this location


@dataclass(slots=True)
class Unit:
    """One request: a namespace in one location."""

    location: str  # the location's name (in the negotiation workspace)
    kind: str  # KEPT, RESCHEDULE, NEW or REVIVE
    held: ClusterObject | None = None  # the cluster it holds (kept, given up, or revived)
    excluded: tuple[str, ...] = ()  # neutral names of the clusters already in the annotation
    key: str = ""  # its request's key (set with the request)


@dataclass(slots=True)
class NamespacePlan:
    namespace: NamespaceObject
    status: str  # UNBOUND, DISABLED, INVALID or SCHEDULED
    parsed: Parsed
    negotiation: str = ""
    states: dict[str, State] = field(default_factory=dict)  # after the entry rules (step 4)
    removed: dict[str, list[str]] = field(default_factory=dict)  # cluster -> entries just set Removing
    units: list[Unit] = field(default_factory=list)
    unplaced: bool = False  # a new location was needed and none has a schedulable cluster


@dataclass(slots=True)
class Plan:
    namespaces: list[NamespacePlan]
    requests: list[PlacementRequest]
    load: dict[str, int]  # neutral cluster -> entries outside the batch's units


def plan(world: World) -> Plan:
    namespaces: list[NamespacePlan] = []
    load: dict[str, int] = defaultdict(int)
    candidates = _Candidates(world)
    for ns in world.namespaces:
        p = _namespace(world, ns, load, candidates)
        if p is not None:
            namespaces.append(p)
    units = [(p, u) for p in namespaces for u in p.units]
    ordered = sorted(units, key=lambda pu: (pu[0].namespace.created, pu[0].namespace.key, pu[1].location))
    requests = []
    for order, (p, u) in enumerate(ordered):
        request = _request(p, u, order)
        u.key = request.key  # the answer is found by the request's own key, whatever it is
        requests.append(request)
    return Plan(namespaces, sorted(requests, key=lambda r: r.key), dict(load))


class _Candidates:
    """The schedulable clusters of each location, computed once: (workspace, location) -> names."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.cache: dict[tuple[str, str], tuple[str, ...]] = {}

    def __call__(self, workspace: str, location: str) -> tuple[str, ...]:
        got = self.cache.get((workspace, location))
        if got is None:
            world = self.world
            got = self.cache[(workspace, location)] = tuple(
                c.neutral for c in world.members.get((workspace, location), ()) if world.schedulable(c)
            )
        return got


def _namespace(
    world: World, ns: NamespaceObject, load: dict[str, int], candidates: _Candidates
) -> NamespacePlan | None:
    binding = world.workload_binding(ns.workspace)
    annotated = n.PLACEMENT_ANNOTATION in ns.annotations or n.NEGOTIATION_ANNOTATION in ns.annotations
    if binding is None and not annotated:
        return None  # not under placement: not ours to write
    parsed = parse_placement(ns.annotations.get(n.PLACEMENT_ANNOTATION))
    if ns.labels.get(n.SCHEDULING_DISABLED) == "true":
        p = NamespacePlan(ns, DISABLED, parsed)
        for entry, state in parsed.entries.values():  # frozen where they are
            c = world.in_workspace.get(entry.workspace, {}).get(entry.cluster)
            if c is not None and state in (State.PENDING, State.BOUND):
                load[c.neutral] += 1
        return p
    if binding is None:
        return NamespacePlan(ns, UNBOUND, parsed)
    if parsed.invalid:
        return NamespacePlan(ns, INVALID, parsed, binding.export_workspace)
    p = NamespacePlan(ns, SCHEDULED, parsed, binding.export_workspace)
    _schedule(world, p, load, candidates)
    return p


def _location_names(world: World, negotiation: str) -> list[str]:
    return [loc.name for loc in world.locations.get(negotiation, ())] or [n.DEFAULT_LOCATION]


def _schedule(world: World, p: NamespacePlan, load: dict[str, int], candidates: _Candidates) -> None:
    ws = p.negotiation
    clusters = world.in_workspace.get(ws, {})
    locations = _location_names(world, ws)
    existing = set(locations)

    def here(c: ClusterObject | None, location: str) -> bool:
        return (
            c is not None
            and location in existing
            and world.in_location(c, ws, location)
            and world.admissible(c)
        )

    # Step 4: the entry rules.
    entries: dict[str, Entry] = {}
    for key, (entry, state) in p.parsed.entries.items():
        if entry.workspace != ws:
            continue
        c = clusters.get(entry.cluster)
        if state is State.UNBOUND:
            continue
        if state is State.PENDING:
            if not here(c, entry.location):
                continue
        elif state is State.BOUND:
            if not here(c, entry.location):
                if c is None:
                    continue
                state = State.REMOVING
                p.removed.setdefault(entry.cluster, []).append(key)
        elif c is None:  # Removing: while the cluster exists
            continue
        p.states[key] = state
        entries[key] = entry

    # Step 5: active locations and locations to reschedule.
    active: dict[str, list[str]] = defaultdict(list)
    removing: set[str] = set()
    for key, state in p.states.items():
        location = entries[key].location
        if state in (State.PENDING, State.BOUND):
            active[location].append(key)
        elif location in existing:
            removing.add(location)
    reschedule = sorted(removing - active.keys())
    taken = tuple(sorted({clusters[e.cluster].neutral for e in entries.values()}))

    for location in sorted(active):
        first, *others = sorted(active[location])
        p.units.append(Unit(location, KEPT, clusters[entries[first].cluster]))
        for key in others:
            load[clusters[entries[key].cluster].neutral] += 1

    # Step 6: scheduling.
    def revival(location: str) -> ClusterObject | None:
        for name in sorted(p.removed):
            c = clusters[name]
            if world.schedulable(c) and world.in_location(c, ws, location):
                return c
        return None

    if reschedule:
        for location in reschedule:
            revived = revival(location)
            if revived is not None:
                p.units.append(Unit(location, REVIVE, revived))
                continue
            given_up = sorted(
                entries[k].cluster
                for k in p.states
                if entries[k].location == location and entries[k].cluster in p.removed
            )
            held = clusters[given_up[0]] if given_up else None
            p.units.append(Unit(location, RESCHEDULE, held, taken))
    elif not active:
        rng = seeded(world.seed, ws, p.namespace.key)
        order = list(locations)
        rng.shuffle(order)
        chosen: Unit | None = None
        if p.removed:
            for location in order:
                revived = revival(location)
                if revived is not None:
                    chosen = Unit(location, REVIVE, revived)
                    break
                if any(name not in taken for name in candidates(ws, location)):
                    chosen = Unit(location, NEW, None, taken)  # the last one wins
        else:  # nothing to revive: the last location of the permutation that can take it wins
            for location in reversed(order):
                if any(name not in taken for name in candidates(ws, location)):
                    chosen = Unit(location, NEW, None, taken)
                    break
        if chosen is None:
            p.unplaced = True
        else:
            p.units.append(chosen)


def _request(p: NamespacePlan, u: Unit, order: int) -> PlacementRequest:
    term = ClusterTerm(traits=(n.LOCATION_TRAIT.format(p.negotiation, u.location),))
    if u.excluded and u.kind in (NEW, RESCHEDULE):
        keep_off = LabelRequirement(n.NAME_CLAIM, LabelOperator.NOT_IN, u.excluded)
        term = ClusterTerm(claims=LabelSelector(match_expressions=(keep_off,)), traits=term.traits)
    return PlacementRequest(
        name=f"{p.namespace.name}@{u.location}",
        namespace=p.namespace.workspace,
        mode=SelectionMode.N,
        count=1,
        required=(term,),
        # A location to reschedule gives its cluster up for good ("never the cluster just
        # removed"): a hold no longer current, released whatever the cluster's state.
        existing=(ExistingDecision(u.held.neutral, current=u.kind != RESCHEDULE),)
        if u.held is not None
        else (),
        tenancy=Tenancy(order=order, packing=Packing.RANDOM, movable=True, demand=1, balance=True),
    )


# ------------------------------------------------------------------------------------------- emit


def emit(world: World, plan: Plan, result: Result) -> Emitted:
    by_request = result.by_request()
    apply = []
    unsatisfied = []
    now = rfc3339(world.now)
    for p in plan.namespaces:
        obj, ok = _write(world, p, by_request, now)
        apply.append(obj)
        if not ok:
            unsatisfied.append(p.namespace.key)
    return Emitted(apply, [], tuple(p.namespace.key for p in plan.namespaces), tuple(unsatisfied))


def _write(
    world: World, p: NamespacePlan, by_request: Mapping[str, RequestResult], now: str
) -> tuple[dict[str, Any], bool]:
    ns = p.namespace
    annotations = dict(ns.annotations)
    if p.status == UNBOUND:
        annotations.pop(n.PLACEMENT_ANNOTATION, None)
        annotations.pop(n.NEGOTIATION_ANNOTATION, None)
        return _namespace_object(ns, annotations, None, now), False
    if p.status == DISABLED:
        condition = ("False", n.SCHEDULING_DISABLED_REASON, "Scheduling is disabled for this namespace")
        return _namespace_object(ns, annotations, condition, now), False
    if p.status == INVALID:
        condition = ("False", n.PLACEMENT_INVALID, f"{n.PLACEMENT_ANNOTATION}: {p.parsed.invalid}")
        return _namespace_object(ns, annotations, condition, now), False

    states = dict(p.states)
    satisfied = not p.unplaced
    for u in p.units:
        got = by_request.get(u.key)
        if got is None:
            raise ValueError(f"the result has no answer for {u.key!r}")
        if not got.selected:
            satisfied = False
            continue
        choice = got.selected[0]
        cluster = choice.cluster.rpartition("/")[2]
        if u.kind == KEPT and choice.kept:
            continue
        key = entry_key(p.negotiation, u.location, cluster)
        if u.kind == REVIVE and choice.kept:
            for old in p.removed.get(cluster, ()):
                states.pop(old, None)
            states[key] = State.BOUND
        else:
            states[key] = State.PENDING
    before = {key: state for key, (_, state) in p.parsed.entries.items()}
    changed = not p.parsed.present or states != before
    if changed:
        annotations[n.PLACEMENT_ANNOTATION] = format_placement(states, p.parsed.malformed)
        annotations[n.NEGOTIATION_ANNOTATION] = p.negotiation
    condition = ("True", "", "") if states else ("False", n.UNSCHEDULABLE, n.UNSCHEDULABLE_MESSAGE)
    # A malformed entry whose key the scheduler has just written (an entry with an unknown state on
    # the cluster it picked) is replaced by it, as upstream's map is, and no longer reported.
    problems = p.parsed.described(superseded=states.keys())
    if problems:
        ignored = "ignored malformed entries: " + "; ".join(problems)
        condition = (condition[0], n.PLACEMENT_INVALID, "; ".join(x for x in (condition[2], ignored) if x))
    return _namespace_object(ns, annotations, condition, now), satisfied and bool(states)


def _namespace_object(
    ns: NamespaceObject,
    annotations: dict[str, str],
    condition: tuple[str, str, str] | None,
    now: str,
) -> dict[str, Any]:
    """The namespace with these annotations and its NamespaceScheduled condition (None: none)."""
    obj = ns.manifest.obj
    out = dict(obj)
    metadata = obj["metadata"]
    if annotations != (metadata.get("annotations") or {}):
        out["metadata"] = {**metadata, "annotations": annotations}
        if not annotations:
            del out["metadata"]["annotations"]
    status = obj.get("status") or {}
    conditions = set_condition(list(status.get("conditions") or []), n.NAMESPACE_SCHEDULED, condition, now)
    if conditions != list(status.get("conditions") or []):
        written = {**status, "conditions": conditions}
        if not conditions:
            del written["conditions"]
        out["status"] = written
    return out
