"""v0.5: kcp's namespace scheduler and its placement annotation, as one batch.

Per namespace, as upstream's placement reconciler and then its status reconciler run it (kcp
v0.5.0-alpha.1 pkg/reconciler/scheduling/placement: placement_controller.go,
placement_reconcile_scheduling.go, placement_reconcile_status.go; semantics reference 2.3):

0. kube-system, kube-public and kube-node-lease pass the controller's event filter only when an
   APIBinding of their workspace to the compute export (InitialBindingCompleted) or a Location or
   WorkloadCluster of the workspace their negotiation annotation names enqueues them; otherwise
   they are never reconciled (and not written);
1. a namespace is scheduled only in a logical cluster whose name begins with `root` (logicalcluster's
   HasPrefix, a plain string prefix: `rootbeer:x` passes, `org:ws` does not) and without the label
   `experimental.workloads.kcp.dev/scheduling-disabled: "true"`; the others are left to the status
   reconciler (OUTSIDE, DISABLED);
2. its workspace's workload binding (world.workload_binding) names the negotiation workspace.
   Without one (UNBOUND) upstream patches the placement annotation away with
   `{"metadata":{"annotations":{...:null}}}}`, one brace too many: the API server refuses it (fixed
   after alpha.1, kcp 0254f45), the reconcile stops on the error and nothing is written;
3. the negotiation workspace's Locations (a workspace without Locations stands for one Location
   `default` over all its clusters);
4. the entries of its annotation (annotation.py: an annotation that does not unmarshal counts as
   an empty map; another negotiation workspace's entries, keys not of three parts and unknown
   states are dropped): Pending stays while its cluster is admissible in that location (in the
   location, not evicting), else it is dropped; Bound stays while admissible, else becomes Removing
   while the cluster exists (dropped when it is gone); Removing stays while the cluster exists;
   Unbound is dropped;
5. locations with a Pending or Bound entry are active; an existing location with only Removing
   entries is to be rescheduled;
6. nothing to reschedule and something active: upstream returns before its patch, so nothing of
   steps 4 and 5 is written (a dropped or demoted entry stays as it was). Nothing active and
   nothing to reschedule: a new location, drawn as upstream draws it: the locations in a random
   permutation, the last one with a schedulable cluster wins, except that a cluster just set to
   Removing and schedulable in a location is revived there (Bound again, its Removing entry
   dropped) and stops the search. Otherwise each location to reschedule, in random order, gets a
   new cluster of its own (location stickiness), except that a revivable cluster there makes
   upstream drop its Removing entry, write no entry for it and stop: its next pass (its own patch
   enqueues it again) reschedules the locations still left, barring only what its entries name.
   Clusters in the annotation are never picked anew; a location whose schedulable clusters are
   all in it makes upstream's draw panic (rand.Intn(0)): kcp crashes on the namespace, and what
   that pass would have written is not (CRASHED when it is the first pass).
7. if the map changed (a nil map as read, an absent annotation or JSON null, always has), the
   annotation is written as Go marshals it with the negotiation-workspace annotation.

Then the status reconciler, from the annotation as written: SchedulingDisabled for the label;
else, for a non-empty annotation, PlacementInvalid when it does not unmarshal, Unschedulable for an
empty map, True otherwise; the condition stays as it is without an annotation. Conditions are set
as kcp sets them (status.py).

The cluster picks are the solver's: one request per unit, keyed `<workspace>/<namespace>@<location>`
(a stable key: the same namespace in the same location keeps it run after run). A unit holding
a cluster (a Pending or Bound entry it keeps, a revival) asks to keep it; a unit to reschedule
holds the cluster it just set to Removing, which no longer passes its filters, so the solver
gives it up (a forced move) and picks another. A second kept entry in one location (rare) is not
a unit: it counts as load on its cluster, as do the entries of namespaces the scheduler leaves.
Upstream's random orders (its map iteration, its permutations) come from `seeded` per namespace.

Written back (emit): every namespace under placement (a workload binding, either annotation, or
the disabled label; outside `root` only the last two), unchanged ones included.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.contract import Emitted
from adapters.kcp import names as n
from adapters.kcp.annotation import Entry, Parsed, entry_key, format_placement, parse_placement
from adapters.kcp.names import State
from adapters.kcp.objects import ClusterObject, NamespaceObject
from adapters.kcp.status import namespace_object
from adapters.kcp.world import World, last_shuffled, seeded
from adapters.kube.fields import time_text
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
OUTSIDE = "outside root"  # not in a workspace under root: only the status reconciler runs
DISABLED = "disabled"
UNBOUND = "unbound"  # no workload binding: upstream's patch fails, nothing is written
CRASHED = "crashed"  # upstream's draw panics on its first pass: nothing is written
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
    excluded: tuple[str, ...] = ()  # neutral names of the clusters it may not take
    key: str = ""  # its request's key (set with the request)


@dataclass(slots=True)
class NamespacePlan:
    namespace: NamespaceObject
    status: str  # OUTSIDE, DISABLED, UNBOUND, CRASHED or SCHEDULED
    parsed: Parsed
    negotiation: str = ""
    states: dict[str, State] = field(default_factory=dict)  # after the entry rules (step 4)
    removed: dict[str, str] = field(default_factory=dict)  # cluster -> the entry just set Removing
    dropped: list[str] = field(default_factory=list)  # Removing entries a reschedule's revival drops
    units: list[Unit] = field(default_factory=list)
    unchanged: bool = False  # upstream returns before its patch (step 6)
    unplaced: bool = False  # a location found no cluster, or a later pass panicked


@dataclass(slots=True)
class Plan:
    namespaces: list[NamespacePlan]
    requests: list[PlacementRequest]
    load: dict[str, int]  # neutral cluster -> entries outside the batch's units


def plan(world: World) -> Plan:
    namespaces: list[NamespacePlan] = []
    load: dict[str, int] = defaultdict(int)
    candidates = _Candidates(world)
    read: dict[str | None, Parsed] = {}  # each distinct annotation parsed once (read only)
    for ns in world.namespaces:
        p = _namespace(world, ns, load, candidates, read)
        if p is not None:
            namespaces.append(p)
    units = [(p, u) for p in namespaces for u in p.units]
    ordered = sorted(units, key=lambda pu: (pu[0].namespace.created, pu[0].namespace.key, pu[1].location))
    requests = []
    shared = _Shared()
    for order, (p, u) in enumerate(ordered):
        request = _request(p, u, order, shared)
        u.key = request.key  # the answer is found by the request's own key, whatever it is
        requests.append(request)
    return Plan(namespaces, sorted(requests, key=lambda r: r.key), dict(load))


class _Candidates:
    """The schedulable clusters of each location, computed once: (workspace, location) -> names;
    and each negotiation workspace's location names (`names`), listed once."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.cache: dict[tuple[str, str], tuple[str, ...]] = {}
        self.listed: dict[str, tuple[list[str], set[str]]] = {}

    def names(self, negotiation: str) -> tuple[list[str], set[str]]:
        """The workspace's location names in order, and as a set (a fresh copy of neither: read only)."""
        got = self.listed.get(negotiation)
        if got is None:
            here = self.world.locations.get(negotiation, ())
            locations = [loc.name for loc in here] or [n.DEFAULT_LOCATION]
            got = self.listed[negotiation] = (locations, set(locations))
        return got

    def __call__(self, workspace: str, location: str) -> tuple[str, ...]:
        got = self.cache.get((workspace, location))
        if got is None:
            world = self.world
            got = self.cache[(workspace, location)] = tuple(
                c.neutral for c in world.members.get((workspace, location), ()) if world.schedulable(c)
            )
        return got


def _reconciled(world: World, ns: NamespaceObject) -> bool:
    """Whether upstream's controller ever reconciles the namespace (step 0)."""
    if ns.name not in n.NAMESPACE_BLOCKLIST:
        return True
    if any(b.to_compute and b.completed for b in world.bindings.get(ns.workspace, ())):
        return True
    negotiation = ns.annotations.get(n.NEGOTIATION_ANNOTATION)
    return bool(negotiation) and bool(world.in_workspace.get(negotiation) or world.locations.get(negotiation))


def _namespace(
    world: World,
    ns: NamespaceObject,
    load: dict[str, int],
    candidates: _Candidates,
    read: dict[str | None, Parsed],
) -> NamespacePlan | None:
    if not _reconciled(world, ns):
        return None
    text = ns.annotations.get(n.PLACEMENT_ANNOTATION)
    parsed = read.get(text)
    if parsed is None:
        parsed = read[text] = parse_placement(text)
    disabled = ns.labels.get(n.SCHEDULING_DISABLED) == "true"
    rooted = ns.workspace.startswith(n.ROOT_WORKSPACE)
    binding = world.workload_binding(ns.workspace) if rooted and not disabled else None
    annotated = n.PLACEMENT_ANNOTATION in ns.annotations or n.NEGOTIATION_ANNOTATION in ns.annotations
    if binding is None and not annotated and not disabled:
        return None  # nothing upstream writes, and not under placement
    if binding is None:
        status = DISABLED if disabled else UNBOUND if rooted else OUTSIDE
        _hold(world, parsed.entries.values(), load)
        return NamespacePlan(ns, status, parsed)
    p = NamespacePlan(ns, SCHEDULED, parsed, binding.export_workspace)
    if _settled(world, p, candidates):
        return p
    held: dict[str, int] = defaultdict(int)
    _schedule(world, p, held, candidates)
    if p.status == CRASHED:  # the annotation stays as read: no unit, its entries are load
        p.units.clear()
        held.clear()
        _hold(world, parsed.entries.values(), held)
    for name, count in held.items():
        load[name] += count
    return p


def _hold(world: World, entries: Iterable[tuple[Entry, State]], load: dict[str, int]) -> None:
    """Entries that stay as they are: every Pending or Bound one holds its cluster (the workload
    namespace controller syncs there) and counts as load."""
    for entry, state in entries:
        c = world.in_workspace.get(entry.workspace, {}).get(entry.cluster)
        if c is not None and state in (State.PENDING, State.BOUND):
            load[c.neutral] += 1


def _schedule(world: World, p: NamespacePlan, load: dict[str, int], candidates: _Candidates) -> None:
    ws = p.negotiation
    clusters = world.in_workspace.get(ws, {})
    locations, existing = candidates.names(ws)
    if not p.parsed.entries:  # nothing to keep, revive or reschedule: a new location
        _new_location(world, p, locations, {}, (), candidates)
        return
    draws = _MapOrders(world.seed, ws, p.namespace.key)

    def here(c: ClusterObject | None, location: str) -> bool:
        return (
            c is not None
            and location in existing
            and world.in_location(c, ws, location)
            and world.admissible(c)
        )

    # Step 4: the entry rules, in Go's (random) map order: of two Bound entries of one cluster set
    # Removing, upstream remembers the later one.
    entries: dict[str, Entry] = {}
    keys = sorted(p.parsed.entries)
    draws.shuffle(keys)
    for key in keys:
        entry, state = p.parsed.entries[key]
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
                p.removed[entry.cluster] = key
        elif c is None:  # Removing: while the cluster exists
            continue
        p.states[key] = state
        entries[key] = entry

    # Step 5: active locations and locations to reschedule.
    active: dict[str, list[str]] = defaultdict(list)
    for key, state in p.states.items():
        if state in (State.PENDING, State.BOUND):
            active[entries[key].location].append(key)
    reschedule = _to_reschedule(p.states, entries, existing, active)
    taken = tuple(sorted({clusters[e.cluster].neutral for e in entries.values()}))

    kept: set[str] = set()
    for location in sorted(active):
        first = min(active[location])
        p.units.append(Unit(location, KEPT, clusters[entries[first].cluster]))
        kept.add(first)

    # Step 6: scheduling. The entries that stay beside the units are load: every other one as read
    # when nothing is written, else the other active ones.
    if not reschedule and active:
        p.unchanged = True
        _hold(world, (v for k, v in p.parsed.entries.items() if k not in kept), load)
        return
    _hold(world, ((entries[k], p.states[k]) for keys in active.values() for k in keys if k not in kept), load)
    revivable = {clusters[name].neutral: name for name in p.removed}
    if not reschedule:
        _new_location(world, p, locations, revivable, taken, candidates)
    else:
        _reschedule(p, reschedule, entries, clusters, active, draws, revivable, taken, candidates)


def _settled(world: World, p: NamespacePlan, candidates: _Candidates) -> bool:
    """Most namespaces: one Pending or Bound entry, of this negotiation workspace, whose cluster is
    still admissible in its existing location. It stays, active, nothing to reschedule: upstream
    returns before its patch (what _schedule makes of it, without its bookkeeping)."""
    if len(p.parsed.entries) != 1:
        return False
    ((key, (entry, state)),) = p.parsed.entries.items()
    if state not in (State.PENDING, State.BOUND) or entry.workspace != p.negotiation:
        return False
    c = world.in_workspace.get(p.negotiation, {}).get(entry.cluster)
    if c is None or entry.location not in candidates.names(p.negotiation)[1]:
        return False
    if not world.in_location(c, p.negotiation, entry.location) or not world.admissible(c):
        return False
    p.states[key] = state
    p.units.append(Unit(entry.location, KEPT, c))
    p.unchanged = True
    return True


class _MapOrders:
    """Upstream's map orders for one namespace (Go iterates a map in random order): its random
    source, made on first use. Most namespaces draw nothing (a list of one shuffles without a
    draw), and each source costs a SHA-512 of its seed."""

    __slots__ = ("parts", "rng")

    def __init__(self, seed: int, negotiation: str, namespace: str) -> None:
        self.parts = (seed, negotiation, namespace)
        self.rng: random.Random | None = None

    def _source(self) -> random.Random:
        if self.rng is None:
            seed, negotiation, namespace = self.parts
            self.rng = seeded(seed, negotiation, namespace, "draws")
        return self.rng

    def shuffle(self, items: list[str]) -> None:
        if len(items) > 1:
            self._source().shuffle(items)

    def choice(self, items: list[str]) -> str:
        return self._source().choice(items)


def _to_reschedule(
    states: Mapping[str, State], entries: Mapping[str, Entry], existing: set[str], active: Collection[str]
) -> list[str]:
    """The existing locations with a Removing entry and none `active`, sorted."""
    removing = {entries[k].location for k, s in states.items() if s is State.REMOVING}
    return sorted((removing & existing) - set(active))


def _new_location(
    world: World,
    p: NamespacePlan,
    locations: list[str],
    revivable: Mapping[str, str],
    taken: tuple[str, ...],
    candidates: _Candidates,
) -> None:
    """Nothing active and nothing to reschedule: the locations in a random permutation; a revival
    stops the search, otherwise the last location with a schedulable cluster wins."""
    ws = p.negotiation
    permutation = seeded(world.seed, ws, p.namespace.key)
    if not taken:  # no cluster to revive or to run out of (revivable ones are taken): the last wins
        last = last_shuffled(permutation, locations, lambda location: bool(candidates(ws, location)))
        if last is None:
            p.unplaced = True
        else:
            p.units.append(Unit(last, NEW, None, taken))
        return
    order = list(locations)
    permutation.shuffle(order)
    pick = seeded(world.seed, ws, p.namespace.key, "revive")
    held = set(taken)
    chosen: Unit | None = None
    for location in order:
        found = candidates(ws, location)
        if not found:
            continue
        revived = [name for name in found if name in revivable]
        if revived:
            cluster = world.clusters[pick.choice(revived)]
            chosen = Unit(location, REVIVE, cluster)
            break
        if held.issuperset(found):
            p.status = CRASHED
            return
        chosen = Unit(location, NEW, None, taken)
    if chosen is None:
        p.unplaced = True
    else:
        p.units.append(chosen)


def _reschedule(
    p: NamespacePlan,
    reschedule: list[str],
    entries: Mapping[str, Entry],
    clusters: Mapping[str, ClusterObject],
    active: Mapping[str, Any],
    draws: _MapOrders,
    revivable: Mapping[str, str],
    taken: tuple[str, ...],
    candidates: _Candidates,
) -> None:
    """Each location to reschedule, in random order, gets a unit of its own; a revivable cluster
    ends the first pass (its Removing entry dropped, nothing written for it), and the second pass
    takes the locations still to reschedule."""
    ws = p.negotiation
    order = list(reschedule)
    draws.shuffle(order)
    first: list[Unit] = []
    revived = ""
    for location in order:
        found = candidates(ws, location)
        if not found:  # upstream requeues: its Removing entries stay (the unit finds nothing)
            first.append(_replacement(p, location, entries, clusters, taken))
            continue
        hits = sorted(name for name in found if name in revivable)
        if hits:
            revived = draws.choice(hits)
            p.dropped.append(p.removed[revivable[revived]])
            break
        if set(found) <= set(taken):
            p.status = CRASHED
            return
        first.append(_replacement(p, location, entries, clusters, taken))
    p.units += first
    if not revived:
        return
    states = {k: s for k, s in p.states.items() if k not in p.dropped}
    placed = active.keys() | {u.location for u in first}
    second = _to_reschedule(states, entries, set(reschedule), placed)
    draws.shuffle(second)
    # The second pass bars the clusters its entries name (the revived one only if another of its
    # entries stays) and sets nothing Removing: its units give nothing up.
    barred = tuple(sorted({clusters[entries[k].cluster].neutral for k in states}))
    later = []
    for location in second:
        found = candidates(ws, location)
        if found and set(found) <= set(barred):
            p.unplaced = True  # the second pass panics: the first pass's writes stand
            return
        later.append(Unit(location, RESCHEDULE, None, barred))
    p.units += later


def _replacement(
    p: NamespacePlan,
    location: str,
    entries: Mapping[str, Entry],
    clusters: Mapping[str, ClusterObject],
    barred: tuple[str, ...],
) -> Unit:
    """A unit giving up, in its location, the first cluster by name it just set Removing."""
    given_up = sorted(
        e.cluster for e in entries.values() if e.location == location and e.cluster in p.removed
    )
    return Unit(location, RESCHEDULE, clusters[given_up[0]] if given_up else None, barred)


class _Shared:
    """What many requests have alike, made once: a location's requirement (with the clusters it
    keeps off), a hold on a cluster."""

    def __init__(self) -> None:
        self.required: dict[tuple[str, str, tuple[str, ...]], tuple[ClusterTerm, ...]] = {}
        self.holds: dict[tuple[str, bool], tuple[ExistingDecision, ...]] = {}

    def requirement(
        self, negotiation: str, location: str, excluded: tuple[str, ...]
    ) -> tuple[ClusterTerm, ...]:
        got = self.required.get((negotiation, location, excluded))
        if got is None:
            term = ClusterTerm(traits=(n.LOCATION_TRAIT.format(negotiation, location),))
            if excluded:
                keep_off = LabelRequirement(n.NAME_CLAIM, LabelOperator.NOT_IN, excluded)
                term = ClusterTerm(claims=LabelSelector(match_expressions=(keep_off,)), traits=term.traits)
            got = self.required[(negotiation, location, excluded)] = (term,)
        return got

    def hold(self, cluster: str, current: bool) -> tuple[ExistingDecision, ...]:
        got = self.holds.get((cluster, current))
        if got is None:
            got = self.holds[(cluster, current)] = (ExistingDecision(cluster, current=current),)
        return got


def _request(p: NamespacePlan, u: Unit, order: int, shared: _Shared) -> PlacementRequest:
    excluded = u.excluded if u.kind in (NEW, RESCHEDULE) else ()
    # A location to reschedule gives its cluster up for good ("never the cluster just removed"):
    # a hold no longer current, released whatever the cluster's state.
    existing = shared.hold(u.held.neutral, u.kind != RESCHEDULE) if u.held is not None else ()
    return PlacementRequest(
        name=f"{p.namespace.name}@{u.location}",
        namespace=p.namespace.workspace,
        mode=SelectionMode.N,
        count=1,
        required=shared.requirement(p.negotiation, u.location, excluded),
        existing=existing,
        tenancy=Tenancy(order=order, packing=Packing.RANDOM, movable=True, demand=1, balance=True),
    )


# ------------------------------------------------------------------------------------------- emit


def emit(world: World, plan: Plan, result: Result, part: tuple[float, float] = (0.0, 1.0)) -> Emitted:
    """The Namespaces; of them only the run from fraction `part[0]` to `part[1]` written
    (adapters.contract.System.emit_part), the others judged satisfied or not all the same."""
    by_request = result.by_request()
    apply = []
    unsatisfied = []
    now = time_text(world.now)
    start, stop = (int(fraction * len(plan.namespaces)) for fraction in part)
    for index, p in enumerate(plan.namespaces):
        if start <= index < stop:
            obj, ok = _write(p, by_request, now)
            apply.append(obj)
        else:
            ok = _satisfied(p, by_request)
        if not ok:
            unsatisfied.append(p.namespace.key)
    return Emitted(apply, [], tuple(p.namespace.key for p in plan.namespaces), tuple(unsatisfied))


def _answer(by_request: Mapping[str, RequestResult], unit: Unit) -> RequestResult:
    """A unit's answer in the result; a ValueError where the result has none."""
    got = by_request.get(unit.key)
    if got is None:
        raise ValueError(f"the result has no answer for {unit.key!r}")
    return got


def _satisfied(p: NamespacePlan, by_request: Mapping[str, RequestResult]) -> bool:
    """:func:`_write`'s verdict on `p`, its object not made: scheduled, placed, every unit answered
    with a cluster, and the map :func:`_states` makes not empty (without making it, the same
    ValueError for a unit without an answer). Every answered unit but a KEPT one left where it
    was writes an entry (a revival drops one first, then writes its own), so the map is empty
    only where none writes one and every entry of `states` is dropped."""
    if p.status != SCHEDULED:
        return False
    satisfied = not p.unplaced
    writes = False
    for u in p.units:
        got = _answer(by_request, u)
        if not got.selected:
            satisfied = False
        elif not (u.kind == KEPT and got.selected[0].kept):
            writes = True
    if not satisfied:
        return False
    return writes or any(key not in p.dropped for key in p.states)


def _write(
    p: NamespacePlan, by_request: Mapping[str, RequestResult], now: str
) -> tuple[dict[str, Any], bool]:
    ns = p.namespace
    if p.status in (UNBOUND, CRASHED):  # the reconcile fails before it writes anything
        return ns.manifest.obj, False
    annotations = None  # as read
    parsed = p.parsed  # the placement annotation as the status reconciler reads it
    satisfied = False
    if p.status == SCHEDULED and p.unchanged:  # (most: nothing written, the map not made)
        satisfied = _satisfied(p, by_request)
    elif p.status == SCHEDULED:
        states, satisfied = _states(p, by_request)
        if states != p.parsed.as_read:
            text = format_placement(states)
            annotations = {
                **ns.annotations,
                n.PLACEMENT_ANNOTATION: text,
                n.NEGOTIATION_ANNOTATION: p.negotiation,
            }
            parsed = Parsed(True, states, text=text)  # Go's JSON of a string map reads back as it
        satisfied = satisfied and bool(states)
    condition = scheduled_condition(ns.labels, parsed.text, parsed)
    return namespace_object(ns.manifest.obj, None, annotations, condition, now), satisfied


def _states(p: NamespacePlan, by_request: Mapping[str, RequestResult]) -> tuple[dict[str, str], bool]:
    """The map upstream writes: the entry rules' result, the scheduler's picks (step 6)."""
    states = {key: _TEXT[state] for key, state in p.states.items() if key not in p.dropped}
    satisfied = not p.unplaced
    for u in p.units:
        got = _answer(by_request, u)
        if not got.selected:
            satisfied = False
            continue
        choice = got.selected[0]
        cluster = choice.cluster.rpartition("/")[2]
        if u.kind == KEPT and choice.kept:
            continue
        key = entry_key(p.negotiation, u.location, cluster)
        if u.kind == REVIVE and choice.kept:
            states.pop(p.removed[cluster], None)
            states[key] = _TEXT[State.BOUND]
        else:
            states[key] = _TEXT[State.PENDING]
    return states, satisfied


_TEXT = {state: state.value for state in State}  # a state's text (an enum's value is slow to get)


def scheduled_condition(
    labels: Mapping[str, str], text: str | None, parsed: Parsed | None = None
) -> tuple[str, str, str] | None:
    """The NamespaceScheduled condition v0.5's status reconciler sets (None: it leaves it as it is);
    `parsed`: the text read already."""
    if labels.get(n.SCHEDULING_DISABLED) == "true":
        return "False", n.SCHEDULING_DISABLED_REASON, n.SCHEDULING_DISABLED_MESSAGE
    if not text:
        return None
    parsed = parsed or parse_placement(text)
    if parsed.invalid:
        return "False", n.PLACEMENT_INVALID, n.PLACEMENT_INVALID_MESSAGE
    if not parsed.states:
        return "False", n.UNSCHEDULABLE, n.UNSCHEDULABLE_MESSAGE
    return "True", "", ""
