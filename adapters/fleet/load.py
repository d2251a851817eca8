"""Fleet objects -> model.Batch, keeping what emit needs to write the objects back (the inverse data)."""

from __future__ import annotations

import base64
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from adapters.contract import Cut
from adapters.fleet import names as n
from adapters.fleet import schema
from adapters.fleet.clusters import load_cluster
from adapters.fleet.policy import Policy, parse_policy, policy_hash
from adapters.fleet.snapshots import clean, new_snapshot, refresh_snapshot
from adapters.kube.fields import INT32, Fields
from adapters.kube.manifests import Manifest, index_by_kind
from adapters.kube.validation import judged_metadata
from adapters.run.heap import reused
from model import Batch, Cluster, ClusterScore, ExistingDecision, PlacementRequest

__all__ = [
    "CUT_CLUSTERS_PER_PLACEMENT",
    "CUT_PLACEMENTS",
    "DeletingPlacement",
    "FleetContext",
    "Owned",
    "PlacementContext",
    "cut",
    "load",
]


@dataclass(slots=True)
class PlacementContext:
    """One CRP and the objects the scheduler owns for it."""

    crp: Manifest
    generation: int
    count: int | None  # PickN's N
    mode: str  # PickAll / PickN / PickFixed
    snapshot: dict[str, Any]  # the latest snapshot, as it will be written (status filled by emit)
    snapshot_is_new: bool
    snapshot_generation: int
    previous_status: Any = None  # the latest snapshot's status as read (None for a new snapshot)
    older_snapshots: list[dict[str, Any]] = field(default_factory=list)  # relabelled not-latest
    deleted_snapshots: list[dict[str, Any]] = field(default_factory=list)  # beyond the history limit
    active: dict[str, dict[str, Any]] = field(default_factory=dict)  # Scheduled/Bound bindings by cluster
    unscheduled: dict[str, dict[str, Any]] = field(default_factory=dict)  # by cluster
    deleting: list[dict[str, Any]] = field(default_factory=list)
    # Of a state neither Scheduled, Bound nor Unscheduled (the CRD has no enum), on the current
    # snapshot and a cluster still there: classifyBindings puts them in no group, so the cycle
    # passes them by (their cluster is free to pick) and they are written back as they are.
    passed_by: list[dict[str, Any]] = field(default_factory=list)
    dangling: set[str] = field(default_factory=set)  # clusters of active bindings not there or leaving
    entries: dict[str, list[Any]] = field(default_factory=dict)  # the load's entry of each active binding

    def kept(self, cluster: str, make: Callable[[dict[str, Any]], Any]) -> Any:
        """What emit writes of the active binding on `cluster` where the cycle keeps it as it is:
        `make(binding)`, made once per binding object where a long-lived caller keeps the load's
        reading of it (Owned)."""
        entry = self.entries[cluster]
        made = entry[_KEPT]
        if made is None:
            made = entry[_KEPT] = make(entry[_M].obj)
        return made

    @property
    def name(self) -> str:
        return self.crp.name


@dataclass(slots=True)
class DeletingPlacement:
    """A CRP being deleted (a deletionTimestamp set): no scheduling cycle runs for it and the
    placement controller keeps no snapshot for it (pkg/scheduler/scheduler.go scheduleOnce,
    pkg/controllers/placement/controller.go Reconcile); their finalizers say what they clean up."""

    crp: Manifest
    bindings: list[dict[str, Any]]  # every binding whose parent label names it, by name
    snapshots: list[dict[str, Any]]  # every policy snapshot whose parent label names it, by name

    @property
    def name(self) -> str:
        return self.crp.name


@dataclass(slots=True)
class FleetContext:
    placements: dict[str, PlacementContext]
    now: datetime
    seed: int
    deleting: dict[str, DeletingPlacement] = field(default_factory=dict)
    # The objects read are a long-lived scheduler's stored ones: emit hands back one it leaves as
    # it is (snapshots.as_stored), which the scheduler then skips by identity.
    stored: bool = False


def load(
    manifests: list[Manifest],
    *,
    now: datetime,
    seed: int = 0,
    clusters: Sequence[Cluster] | None = None,
    present: AbstractSet[str] | None = None,
    owned: Mapping[str, Owned] | None = None,
    stored: bool = False,
) -> tuple[Batch, FleetContext]:
    """The batch and the inverse data emit needs. `clusters`, when given, are the fleet's clusters
    already read, in name order (MemberCluster objects in `manifests` are then not read again;
    a tuple is the batch's as it is: the long-lived scheduler's, shared batch after batch), and
    `present` the names of those not leaving (made from `clusters` where not given). `owned`:
    each placement's bindings and policy snapshots, kept grouped by a long-lived caller (Owned;
    those in `manifests` are then not read); those of placements not in `manifests` are not
    read. `stored`: the objects are those stored (FleetContext.stored)."""
    objects = index_by_kind(manifests, n.KINDS)
    if clusters is None:
        members = objects[n.MEMBER_CLUSTER]
        # Read once by the parts a process makes one after another (adapters.run.heap.reusing).
        clusters = reused(("fleet clusters", now), [m.obj for m in members], lambda: _clusters(members, now))
    clusters = tuple(clusters)
    if present is None:
        present = {c.name for c in clusters if not c.leaving}

    if owned is None:
        groups = _grouped(objects)
    else:
        groups = {crp.name: owned[crp.name] for crp in objects[n.PLACEMENT] if crp.name in owned}
        _take_up(list(groups.values()))
    requests, contexts, deleting = [], {}, {}
    for crp in objects[n.PLACEMENT]:
        group = groups.get(crp.name, _NONE)
        if crp.obj["metadata"].get("deletionTimestamp") is not None:
            deleting[crp.name] = _load_deleting(crp, group)
            continue
        request, context = _load_placement(crp, group, present)
        requests.append(request)
        contexts[crp.name] = context
    requests.sort(key=lambda r: r.key)
    batch = Batch(clusters, tuple(requests), now=now, seed=seed, explain_limit=n.MAX_UNSELECTED_DECISIONS)
    return batch, FleetContext(contexts, now, seed, deleting, stored)


def _clusters(members: list[Manifest], now: datetime) -> tuple[Cluster, ...]:
    return tuple(sorted((load_cluster(m, now) for m in members), key=lambda c: c.name))


# A fleet is cut where its placements' work outweighs what every part repeats (each reads every
# cluster) and a fork's cost. Measured, the command in turns against one batch: 200 placements
# on 1,000 clusters 0.11 s faster, 300 on 50 0.02 s, 300 on 3,000 0.04 s, 400 on 5,000 0.01 s;
# 100 on 50 0.02 s slower, 200 on 10,000 0.03 s slower.
CUT_PLACEMENTS = 200  # at least this many placements
CUT_CLUSTERS_PER_PLACEMENT = 10  # at most this many clusters per placement


def cut(manifests: list[Manifest], parts: int) -> Cut | None:
    """The input in up to `parts` independent parts (systems.System.cut): every MemberCluster
    shared, and the placements in runs of their names (emit's order) of about equal work, each
    with the bindings and snapshots whose parent label names it. Those naming none are read by
    no placement, only checked: the first part has them. None where a cut is not worth it (see
    CUT_PLACEMENTS)."""
    objects: dict[str, list[Manifest]] = {kind: [] for kind in n.KINDS}
    for m in manifests:  # owned_by gave this system's kinds only
        objects[m.obj["kind"]].append(m)
    placements, clusters = objects[n.PLACEMENT], objects[n.MEMBER_CLUSTER]
    if (
        parts < 2
        or len(placements) < max(2, CUT_PLACEMENTS)
        or len(clusters) > CUT_CLUSTERS_PER_PLACEMENT * len(placements)
    ):
        return None
    # Not indexed (each part's load is): a duplicate within a part fails its load, and one across
    # parts is an object two parts read, which adapters.run.parts refuses; either way one batch runs.
    placements.sort(key=_name)  # emit's order
    by_parent = _by_parent(objects[n.BINDING] + objects[n.POLICY_SNAPSHOT])
    owned = {m.name: by_parent.get(m.name, []) for m in placements}
    unowned = [m for parent, children in by_parent.items() if parent not in owned for m in children]
    # Work grows with a placement's objects: runs of about equal objects, not equal placements.
    total = sum(1 + len(children) for children in owned.values())
    own: list[list[Manifest]] = [unowned]
    done = 0
    for index, m in enumerate(placements):
        # A new part at its share of the work, or where each part left needs what remains.
        if len(own) < parts and (
            done >= total * len(own) / parts or len(placements) - index <= parts - len(own)
        ):
            own.append([])
        children = owned[m.name]
        own[-1] += (m, *children)
        done += 1 + len(children)
    return Cut(clusters, own)


def _by_parent(manifests: list[Manifest]) -> dict[str | None, list[Manifest]]:
    """Manifests by the placement their parent label names, in their order; None: no such label
    (or, before the metadata is checked, not a string)."""
    out: dict[str | None, list[Manifest]] = {}
    for m in manifests:
        labels = m.obj["metadata"].get("labels")
        parent = labels.get(n.PARENT_LABEL) if type(labels) is dict else None
        out.setdefault(parent if type(parent) is str and parent else None, []).append(m)
    return out


def _check_metadata(m: Manifest) -> None:
    """The metadata of a scheduler-owned object that is read or rewritten below (judged at a look
    where its parts were judged before: the registry checks every object's metadata first)."""
    metadata = m.obj["metadata"]
    if not judged_metadata(
        metadata.get("labels"), metadata.get("annotations"), metadata.get("finalizers"), None
    ):
        Fields(m).metadata(metadata)


def _check_snapshot(m: Manifest) -> None:
    """What the CRD refuses in a policy snapshot's policy: its enums and ranges, as in a
    placement's (schema.RULES[schema.POLICY]; the webhook's rules are a placement's only), and a
    generation its status names."""
    f = Fields(m)
    f.integer(_generation(m), "metadata.generation", minimum=0)
    spec = f.mapping(m.obj.get("spec"), "spec")
    if spec.get("policy") is not None:
        schema.check(f, spec["policy"], schema.POLICY, at="spec.policy")


def _generation(m: Manifest) -> Any:
    """metadata.generation, 1 when absent or null (ObjectMeta reads a null as none)."""
    generation = m.obj["metadata"].get("generation")
    return 1 if generation is None else generation


def _strings(value: Any) -> bool:
    """None, or a dict of strings (a subset of what Fields.string_map accepts)."""
    return value is None or (type(value) is dict and all(type(v) is str for v in value.values()))


def _holds_hash(m: Manifest, digest: str) -> bool:
    """Whether the snapshot's spec.policyHash (base64, checked: schema.py) holds the bytes of
    `digest`, as the placement controller compares them (getOrCreateSchedulingPolicySnapshot)."""
    stored = m.obj["spec"]["policyHash"].replace("\r", "").replace("\n", "")
    return base64.b64decode(stored) == digest.encode()


@dataclass(frozen=True, slots=True)
class _Placement:
    """What a CRP says, checked as the API server and Fleet's webhook check it."""

    spec: Any
    raw_policy: Any
    policy: Policy
    generation: int
    mode: str


def _placement(crp: Manifest) -> _Placement:
    f = Fields(crp)
    spec = f.mapping(crp.obj.get("spec"), "spec")
    f.metadata(crp.obj["metadata"])
    if len(crp.name) > n.MAX_NAME_LENGTH:  # the webhook's (validatePlacement)
        raise f.fail(f"longer than {n.MAX_NAME_LENGTH} characters", "metadata.name")
    schema.check(f, crp.obj, n.PLACEMENT)
    raw_policy = spec.get("policy")
    policy = parse_policy(f, raw_policy)
    generation = f.integer(_generation(crp), "metadata.generation")
    mode = (
        (f.mapping(raw_policy, "spec.policy").get("placementType") or "PickAll") if raw_policy else "PickAll"
    )
    return _Placement(spec, raw_policy, policy, generation, mode)


class _BindingRead(NamedTuple):
    """What a load reads of a binding (its spec checked: schema.py): its target cluster and state
    are strings the CRD requires, any of them (no enum, no pattern; an empty target names no
    cluster, so the binding dangles)."""

    name: str
    target: str
    state: str
    deleting: bool
    policy_snapshot: Any  # spec.schedulingPolicySnapshotName
    score: Any  # its stored ClusterScore, or _UNREAD: read (or refused) where it is used


def _read_binding(obj: dict[str, Any]) -> _BindingRead:
    spec, metadata = obj["spec"], obj["metadata"]
    return _BindingRead(
        metadata["name"],
        spec["targetCluster"],
        spec["state"],
        metadata.get("deletionTimestamp") is not None,
        spec.get("schedulingPolicySnapshotName"),
        _plain_score(spec),
    )


# A binding as a load reads it: [its manifest, its _BindingRead, its ExistingDecision as a
# decision of the current policy snapshot, and as one of an older snapshot, what emit writes of
# it where a cycle keeps it (PlacementContext.kept); None until made]. A list, so that a
# long-lived caller's Owned keeps what is made (and a hub's million bindings each cost a list,
# not an object).
_Entry = list
_M, _READ = 0, 1
_AS_CURRENT, _AS_OLDER, _KEPT = 2, 3, 4


def _entry(m: Manifest) -> _Entry:
    return [m, _read_binding(m.obj), None, None, None]


def _entry_name(entry: _Entry) -> str:
    return entry[_READ].name


class _Group:
    """One placement's bindings and policy snapshots as a load reads them: the bindings' entries
    in name order, the snapshots in name order."""

    __slots__ = ("entries", "snapshots")

    def __init__(self, entries: list[_Entry], snapshots: list[Manifest]) -> None:
        self.entries = entries
        self.snapshots = snapshots


_NONE = _Group([], [])


def _grouped(objects: dict[str, list[Manifest]]) -> dict[str | None, _Group]:
    """Every binding and policy snapshot judged (metadata, schema; in name order, bindings first)
    and grouped by the placement their parent label names."""
    for kind in (n.BINDING, n.POLICY_SNAPSHOT):
        _judge(objects[kind], kind)
    bindings, snapshots = _by_parent(objects[n.BINDING]), _by_parent(objects[n.POLICY_SNAPSHOT])
    return {
        parent: _Group(
            sorted(map(_entry, bindings.get(parent, ())), key=_entry_name), snapshots.get(parent, [])
        )
        for parent in bindings.keys() | snapshots.keys()
    }


def _judge(manifests: list[Manifest], kind: str) -> None:
    """Objects of a scheduler-owned kind judged as the API server would (metadata, schema)."""
    for m in manifests:
        _check_metadata(m)
        schema.check(Fields(m), m.obj, kind)
    if kind == n.POLICY_SNAPSHOT:
        for m in manifests:
            _check_snapshot(m)


class Owned(_Group):
    """The bindings and policy snapshots whose parent label names one placement, kept grouped by a
    long-lived caller (adapters/fleet/reach.py) as it hears them, for `load(owned=...)`: a load
    then neither indexes nor groups the hub's objects again, and what it judged and read of an
    object (its entry) stays with it until the object is replaced (by identity: a stored object
    is replaced, never changed), so that a woken placement's load costs what changed since its
    last one. Objects put or popped since are taken up (judged, read) by the next load of the
    placement."""

    __slots__ = ("bindings", "_by_name", "_changed", "_snapshots")

    def __init__(self) -> None:
        super().__init__([], [])
        self.bindings: dict[str, Manifest] = {}  # by name, as put
        self._snapshots: dict[str, Manifest] = {}  # by name, as put
        self._by_name: dict[str, _Entry] = {}  # each binding's entry, as last taken up
        self._changed: dict[tuple[str, str], None] = {}  # (kind, name) put or popped since

    def __len__(self) -> int:
        return len(self.bindings) + len(self._snapshots)

    def objects(self) -> list[Manifest]:
        return [*self.bindings.values(), *self._snapshots.values()]

    def put(self, m: Manifest) -> Manifest | None:
        """A binding or snapshot stored (`m.obj` the stored object); the one it replaces, if any
        (putting that back undoes it). The same object heard again (the first solve's writes) is
        not taken up again."""
        kind, name = m.obj["kind"], m.obj["metadata"]["name"]
        by_name = self.bindings if kind == n.BINDING else self._snapshots
        old = by_name.get(name)
        if old is not None and old.obj is m.obj:
            return old
        by_name[name] = m
        self._changed[(kind, name)] = None
        return old

    def pop(self, kind: str, name: str) -> Manifest | None:
        by_name = self.bindings if kind == n.BINDING else self._snapshots
        old = by_name.pop(name, None)
        if old is not None:
            self._changed[(kind, name)] = None
        return old

    def _fresh(self) -> list[Manifest]:
        """The objects put since the last load: not judged yet."""
        out = []
        for kind, name in self._changed:
            m = (self.bindings if kind == n.BINDING else self._snapshots).get(name)
            if m is not None:
                out.append(m)
        return out

    def _taken_up(self) -> None:
        """The changes since the last load read (their objects judged): the entries and both
        lists in name order again."""
        for kind, name in self._changed:
            if kind == n.BINDING:
                m = self.bindings.get(name)
                at = bisect_left(self.entries, name, key=_entry_name)
                had = at < len(self.entries) and self.entries[at][_READ].name == name
                if m is None:
                    if had:
                        del self.entries[at]
                elif had:
                    self.entries[at] = _entry(m)
                else:
                    self.entries.insert(at, _entry(m))
        if any(kind == n.POLICY_SNAPSHOT for kind, _ in self._changed):
            self.snapshots = [self._snapshots[name] for name in sorted(self._snapshots)]
        self._changed.clear()


def _take_up(groups: list[Owned]) -> None:
    """The objects put since each group's last load judged, all of them (in name order, bindings
    first, as a full load judges them), before any is taken up: a refusal takes up none."""
    fresh = [m for group in groups if group._changed for m in group._fresh()]
    for kind in (n.BINDING, n.POLICY_SNAPSHOT):
        _judge(sorted((m for m in fresh if m.obj["kind"] == kind), key=_name), kind)
    for group in groups:
        if group._changed:
            group._taken_up()


def _load_deleting(crp: Manifest, group: _Group) -> DeletingPlacement:
    _placement(crp)  # checked as any other
    return DeletingPlacement(crp, [e[_M].obj for e in group.entries], [m.obj for m in group.snapshots])


def _load_placement(crp: Manifest, group: _Group, present: AbstractSet[str]):
    """The placement's request and context. `present`: the clusters not leaving the fleet; a
    binding on another is dangling (classifyBindings), whatever its state but Unscheduled."""
    read = _placement(crp)
    policy, mode = read.policy, read.mode
    context = _snapshot_context(
        crp, read.spec, read.raw_policy, group.snapshots, read.generation, mode, policy.count
    )
    current = context.snapshot["metadata"]["name"]
    existing = []
    active, dangling, entries = context.active, context.dangling, context.entries
    for entry in group.entries:
        r = entry[_READ]
        target, state = r.target, r.state
        if r.deleting:
            context.deleting.append(entry[_M].obj)
            continue
        if state == n.UNSCHEDULED:
            context.unscheduled.setdefault(target, entry[_M].obj)
            continue
        is_current = r.policy_snapshot == current
        if state not in _HELD and is_current and target in present:
            context.passed_by.append(entry[_M].obj)
            continue
        if target in active:
            other = active[target]["metadata"]["name"]
            raise Fields(entry[_M]).fail(
                f"another active binding, {other}, targets the same cluster {target!r}", "spec.targetCluster"
            )
        active[target] = entry[_M].obj
        entries[target] = entry
        if target not in present:
            dangling.add(target)
        slot = _AS_CURRENT if is_current else _AS_OLDER
        decision = entry[slot]
        if decision is None:
            score = r.score
            if score is _UNREAD:
                score = _stored_score(Fields(entry[_M]), entry[_M].obj["spec"])
            decision = entry[slot] = ExistingDecision(target, is_current, state == n.BOUND, score)
        existing.append(decision)
    request = PlacementRequest(
        name=crp.name,
        mode=policy.mode,
        count=policy.count,
        cluster_names=policy.cluster_names,
        required=policy.required,
        preferences=policy.preferences,
        spread=policy.spread,
        tolerations=policy.tolerations,
        existing=tuple(existing),
    )
    return request, context


def _name(m: Manifest) -> str:
    return m.obj["metadata"]["name"]


_HELD = frozenset({n.SCHEDULED, n.BOUND})


def _fits_int32(value: int) -> bool:
    return -INT32 - 1 <= value <= INT32


_UNREAD = object()  # a stored score not read by _plain_score


def _plain_score(spec: dict[str, Any]) -> Any:
    """The common case of a stored score, two plain integers in range (a bool is no integer);
    _UNREAD for any other (_stored_score reads it, or refuses it)."""
    decision = spec.get("clusterDecision")
    raw = decision.get("clusterScore") if type(decision) is dict else None
    if type(raw) is dict:
        spread, affinity = raw.get("priorityScore", 0), raw.get("affinityScore", 0)
        if type(spread) is int and type(affinity) is int and _fits_int32(spread) and _fits_int32(affinity):
            return _score(spread, affinity)
    return _UNREAD


def _stored_score(f: Fields, spec: dict[str, Any]) -> ClusterScore | None:
    decision = spec.get("clusterDecision")
    decision = f.mapping(decision, "spec.clusterDecision")
    raw = decision.get("clusterScore")
    if raw is None:
        return None
    raw = f.mapping(raw, "spec.clusterDecision.clusterScore")
    path = "spec.clusterDecision.clusterScore"

    def part(key: str) -> int:  # absent or null (which the API server prunes): 0
        value = raw.get(key)
        return 0 if value is None else f.integer(value, f"{path}.{key}", maximum=INT32)

    return _score(part("priorityScore"), part("affinityScore"))


@lru_cache(maxsize=4096)
def _score(spread: int, affinity: int) -> ClusterScore:
    """One ClusterScore per pair of values: a hub's bindings repeat a few score pairs."""
    return ClusterScore(spread=spread, affinity=affinity)


def _index(m: Manifest) -> int:
    f = Fields(m)
    raw = (m.obj.get("metadata", {}).get("labels") or {}).get(n.INDEX_LABEL)
    if raw is None:
        suffix = m.name.rsplit("-", 1)[-1]
        raw = suffix
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise f.fail(f"policy index {raw!r} is not an integer", f"metadata.labels[{n.INDEX_LABEL}]") from None


def _snapshot_context(crp, spec, raw_policy, snapshots, generation, mode, count) -> PlacementContext:
    ordered = sorted(snapshots, key=_index)
    latest = None
    for m in ordered:
        if (m.obj.get("metadata", {}).get("labels") or {}).get(n.LATEST_LABEL) == "true":
            latest = m
    if latest is None and ordered:
        latest = ordered[-1]
    history = spec.get("revisionHistoryLimit", n.DEFAULT_REVISION_HISTORY_LIMIT)
    history = Fields(crp).integer(history, "spec.revisionHistoryLimit", minimum=1, maximum=1000)

    same = latest is not None and _holds_hash(latest, policy_hash(raw_policy))
    count = count if mode == "PickN" else None
    if same:  # ensureLatestPolicySnapshot: only the latest is written
        snapshot = refresh_snapshot(latest.obj, generation, count)
        return PlacementContext(
            crp,
            generation,
            count,
            mode,
            snapshot,
            False,
            _generation(latest),  # checked: _check_snapshot
            latest.obj.get("status"),
        )
    index = _index(ordered[-1]) + 1 if ordered else 0
    snapshot = new_snapshot(crp.obj, index, raw_policy, generation, count)
    keep = ordered[len(ordered) - (history - 1) :] if history > 1 else []
    deleted = [m.obj for m in ordered if m not in keep]
    # The latest one, labelled so, is labelled not latest first; the others are not touched.
    older = [
        _not_latest(m.obj)
        for m in keep
        if m is latest and (m.obj["metadata"].get("labels") or {}).get(n.LATEST_LABEL) == "true"
    ]
    return PlacementContext(crp, generation, count, mode, snapshot, True, 1, None, older, deleted)


def _not_latest(obj: dict[str, Any]) -> dict[str, Any]:
    out = clean(obj, keep_status=True)
    out["metadata"] = dict(out["metadata"])
    out["metadata"]["labels"] = {**(out["metadata"].get("labels") or {}), n.LATEST_LABEL: "false"}
    return out
