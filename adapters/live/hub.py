"""A long-lived scheduler for any system's hub: it keeps the hub's objects as the API server stores
them, applies the scheduler's own output to them, and re-solves only the system an event concerns.

    hub = HubScheduler(objects, now=now, config=config)     # the first, full solve (hub.initial)
    delta = hub.handle(Applied(request), now=now)           # delta.apply, delta.delete: what to write
    delta = hub.handle(Deleted(kind, name))
    hub.objects()                                           # the hub as the scheduler sees it
    hub.outcome[system]                                     # the last Outcome of each system

Objects are kept by adapters.run.changes.object_key (API group, kind, workspace, namespace, name).
An event changes one object, as a user's write would: `Applied` creates or replaces it (the server
keeps the metadata it owns: uid, creationTimestamp, a deletionTimestamp already set, the
resourceVersion; it counts `generation` up when the spec changes, and gives a new object a uid, a
creationTimestamp and generation 1), `Deleted` deletes it (one with finalizers only gets a
deletionTimestamp).
Then every system owning the object's kind is solved again over its own objects only (a shared
kind, such as kcp's Namespace, wakes its system only while that system has objects of its own),
through the same pipeline as `adapters.run.pipeline.schedule`; a system whose record names a
`reach` (adapters.contract.System: Karmada's, adapters/karmada/reach.py) over only the objects the
event reaches as its upstream controller's event handlers would, the others held as they stand
(then again over what its own writes reach, as its controller hears them, until they reach
nothing), the rest over every object. The output is applied as the API server applies it:
written objects replace the stored ones by key (a `generateName` object gets the name the server
makes of it, its suffix counted rather than drawn, and a uid), deleted references go or, with
finalizers left, get a deletionTimestamp; an object being deleted whose finalizers are all gone
disappears, and so do the objects whose every ownerReference named it (the garbage collector's
work). The Delta of an event holds the objects that solve changed
(adapters.run.changes.changed_objects against the state before the solve; each once, as last
written) and its deletions. `hub.outcome[system]` is the system's last solve, of the objects it took.

This path is system-neutral: it serves OCM, openMCP, kcp and Karmada, and Fleet too (a Fleet hub's kinds
route to the fleet adapter like any other), though `adapters.live.incremental.FleetScheduler` is the
finer choice for Fleet: it re-solves only the placements an event can change, not the system.
Nothing here depends on wall time except the default `now`: the same objects and events at the
same `now`s give the same deltas (suffixes and uids are counted, not drawn).

Returned objects share structure with the kept state: treat them as read-only (copy to change).
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters.contract import System
from adapters.errors import InputError
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.kube.validation import name_from_generate_name
from adapters.registry import facet, owned_by, system, systems
from adapters.run.changes import SERVER_FIELDS, Key, changed_objects, object_key, served
from adapters.run.pipeline import Outcome, schedule_manifests
from solver import SolveOptions

__all__ = ["Applied", "Deleted", "Delta", "HubScheduler", "HubEvent"]

_UID_NAMESPACE = uuid.UUID("6f1c9a52-3c1e-4d55-9a43-7c0de0b1a7e5")
_ROUNDS = 8  # a system's own writes reaching its objects again: upstream settles in two

Change = dict[str, Any] | None  # an object as stored before or after a change; None: absent


@dataclass(frozen=True, slots=True)
class Applied:
    """A user creates or updates an object."""

    obj: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Deleted:
    """A user deletes an object. `api_version` "" matches the kind in any API group (an error when
    two groups hold it); `workspace` is kcp's logical cluster ("" elsewhere)."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""
    workspace: str = ""


HubEvent = Applied | Deleted


@dataclass(frozen=True, slots=True)
class Delta:
    """What one event makes the scheduler write: new or changed objects, then deletions; which
    systems were solved, and how long the event took."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    systems: tuple[str, ...] = ()
    seconds: float = 0.0


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


class HubScheduler:
    def __init__(
        self,
        objects: Iterable[dict[str, Any]],
        *,
        now: datetime | None = None,
        options: SolveOptions | None = None,
        config: Mapping[str, Any] | None = None,
        verify: bool = False,
    ) -> None:
        self.options = options or SolveOptions()
        self.config = config
        self.verify = verify
        now = now or datetime.now(UTC).replace(microsecond=0)
        objects = list(objects)
        from_objects(objects, "<objects>")  # validated before anything is kept
        self._state: dict[Key, dict[str, Any]] = {}
        for obj in objects:
            self._state[object_key(obj)] = copy.deepcopy(obj)
        self._created = 0  # objects the server created (uids) and names it generated, counted
        self.outcome: dict[str, Outcome] = {}
        start = time.perf_counter()
        present = self._present()
        apply: list[dict[str, Any]] = []
        delete: list[dict[str, str]] = []
        for name in present:
            a, d = self._solve(name, now, None)
            apply += a
            delete += d
        # What the first, full solve writes: a controller applies it before handling events.
        self.initial = Delta(apply, delete, tuple(present), time.perf_counter() - start)

    # -- reading --------------------------------------------------------------------------------

    def objects(self) -> list[dict[str, Any]]:
        """The hub as the API server holds it after every event and write so far."""
        return list(self._state.values())

    def get(self, key: Key) -> dict[str, Any] | None:
        return self._state.get(key)

    def resolve(self, *, now: datetime | None = None) -> Delta:
        """What a full solve of the kept state from scratch (adapters.run.pipeline.schedule, every
        system at once) would write, as the server would take it; the state is left as it is. Empty
        when the state is a fixed point of the scheduler, as it should be after every event."""
        now = now or datetime.now(UTC).replace(microsecond=0)
        start = time.perf_counter()
        manifests = from_objects(self.objects(), "<hub>")
        outcome = schedule_manifests(
            manifests, now=now, options=self.options, verify=self.verify, config=self.config
        )
        changed, _ = changed_objects([self._served(obj) for obj in outcome.apply], manifests)
        systems = tuple(p.system for p in outcome.parts)
        return Delta([obj for _, obj in changed], list(outcome.delete), systems, time.perf_counter() - start)

    # -- events ---------------------------------------------------------------------------------

    def handle(self, event: HubEvent, *, now: datetime | None = None) -> Delta:
        """The event applied and the systems it concerns solved again. An event the API server or
        a system refuses (an InputError, of its object or of the hub it makes) changes nothing: the
        hub stays as it was, and so do its later events' names and uids."""
        kept = dict(self._state), dict(self.outcome), self._created
        try:
            return self._handle(event, now or datetime.now(UTC).replace(microsecond=0))
        except InputError:
            self._state, self.outcome, self._created = kept
            raise

    def _handle(self, event: HubEvent, now: datetime) -> Delta:
        start = time.perf_counter()
        before = after = None
        if isinstance(event, Applied):
            obj = self._named(copy.deepcopy(event.obj))
            # A clear InputError for a malformed object, and the registry's checks (a version not
            # served, a name refused), whether or not a solve reads the object.
            owned_by(from_objects([obj], "<event>"))
            group, kind = _group(str(obj["apiVersion"])), obj["kind"]
            key = object_key(obj)
            before = self._state.get(key)
            self._write(obj, now)
            after = self._state.get(key)
        elif isinstance(event, Deleted):
            key = self._find(event)
            group, kind = _group(event.api_version), event.kind
            if key is not None:
                group = key[0]
                before = self._state[key]
                self._delete(key, now)
                after = self._state.get(key)
        else:
            raise TypeError(f"not a hub event: {event!r}")
        woken = self._woken(group, kind)
        apply: list[dict[str, Any]] = []
        delete: list[dict[str, str]] = []
        for name in woken:
            a, d = self._solve(name, now, [(before, after)])
            apply += a
            delete += d
        for name in [s for s in self.outcome if s not in self._present()]:
            del self.outcome[name]  # its last own object went
        return Delta(apply, delete, tuple(woken), time.perf_counter() - start)

    def _find(self, event: Deleted) -> Key | None:
        if event.api_version:
            key = (_group(event.api_version), event.kind, event.workspace, event.namespace, event.name)
            return key if key in self._state else None
        found = [
            k for k in self._state if k[1:] == (event.kind, event.workspace, event.namespace, event.name)
        ]
        if len(found) > 1:
            raise ValueError(f"{event.kind} {event.name!r} exists in several API groups: name api_version")
        return found[0] if found else None

    # -- systems --------------------------------------------------------------------------------

    def _present(self) -> list[str]:
        """The systems owning at least one kept object, in registry order."""
        own = {(k[0], k[1]) for k in self._state}
        return [s.name for s in systems() if any(group in s.kinds.get(kind, ()) for group, kind in own)]

    def _woken(self, group: str, kind: str) -> list[str]:
        """The systems an object of (group, kind) concerns: those owning the kind, and those sharing
        it that have objects of their own."""
        present = None
        out = []
        for s in systems():
            if group in s.kinds.get(kind, ()):
                out.append(s.name)
            elif group in s.shared.get(kind, ()):
                present = self._present() if present is None else present
                if s.name in present:
                    out.append(s.name)
        return out

    def _solve(
        self, name: str, now: datetime, changes: list[tuple[Change, Change]] | None
    ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
        """Solve one system after `changes` (None: the first solve, of every object), apply the
        output to the state, and return what changed (each object once, as last written) and
        the deletions. A system with a `reach` facet solves only the objects the changes reach,
        and then what its own writes reach, as its controller hears its own writes, until they
        reach nothing; without one, every object of the system, once."""
        s = system(name)
        reach = facet(name, s.reach)
        written: dict[Key, dict[str, Any]] = {}
        deleted: list[dict[str, str]] = []
        for _ in range(_ROUNDS):
            mine = self._own(s)
            if mine is None:
                self.outcome.pop(name, None)
                break
            taken = mine if changes is None or reach is None else reach(changes, mine)
            if not taken:
                break
            writes, deletes = self._pass(name, taken, now)
            for key, _, obj in writes:
                written[key] = obj
            deleted += deletes
            if reach is None:
                break
            changes = [(before, self._state.get(key)) for key, before, _ in writes]
        else:
            raise RuntimeError(f"{name}: its own writes still reach its objects after {_ROUNDS} rounds")
        return list(written.values()), deleted

    def _own(self, s: System) -> list[dict[str, Any]] | None:
        """The objects the system reads, or None when it owns none of them."""
        mine = [
            obj
            for (group, kind, *_), obj in self._state.items()
            if group in s.kinds.get(kind, ()) or group in s.shared.get(kind, ())
        ]
        if not any(_group(str(o["apiVersion"])) in s.kinds.get(o["kind"], ()) for o in mine):
            return None
        return mine

    def _pass(
        self, name: str, objects: list[dict[str, Any]], now: datetime
    ) -> tuple[list[tuple[Key, Change, dict[str, Any]]], list[dict[str, str]]]:
        """One solve of the objects through the pipeline, its output applied to the state: for
        each changed object, its key as stored (named by the server), the stored object it
        replaced and the object written; and the deletions."""
        manifests = from_objects(objects, "<hub>")
        outcome = schedule_manifests(
            manifests, now=now, options=self.options, verify=self.verify, config=self.config
        )
        self.outcome[name] = outcome
        changed, _ = changed_objects([self._served(obj) for obj in outcome.apply], manifests)
        writes = []
        for _, obj in changed:
            before = self._state.get(object_key(obj))
            writes.append((object_key(self._write(obj, now)), before, obj))
        for ref in outcome.delete:
            key = self._reference_key(ref)
            if key is not None:
                self._delete(key, now)
        return writes, list(outcome.delete)

    # -- the API server -------------------------------------------------------------------------

    def _reference_key(self, ref: Mapping[str, str]) -> Key | None:
        key = (
            _group(ref.get("apiVersion", "")),
            ref.get("kind", ""),
            "",
            ref.get("namespace", ""),
            ref["name"],
        )
        if key in self._state:
            return key
        # A reference names no workspace (kcp): the object of that group, kind, namespace and name.
        found = [k for k in self._state if (k[0], k[1], k[3], k[4]) == (key[0], key[1], key[3], key[4])]
        return found[0] if len(found) == 1 else None

    def _served(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj` as the server stores it over the stored object of its key (see `served`)."""
        if not (obj.get("metadata") or {}).get("name"):
            return obj
        return served(obj, self._state.get(object_key(obj)))

    def _new_uid(self) -> str:
        self._created += 1
        return str(uuid.uuid5(_UID_NAMESPACE, str(self._created)))

    def _generated_name(self, prefix: str, key_of: Any) -> str:
        while True:
            self._created += 1
            name = name_from_generate_name(prefix, self._created)
            if key_of(name) not in self._state:
                return name

    def _named(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj`, named by the server when it asks for a generated name."""
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict) or metadata.get("name") or not metadata.get("generateName"):
            return obj
        metadata = dict(metadata)
        metadata["name"] = self._generated_name(
            metadata["generateName"], lambda name: object_key({**obj, "metadata": {**metadata, "name": name}})
        )
        return {**obj, "metadata": metadata}

    def _write(self, obj: dict[str, Any], now: datetime) -> dict[str, Any]:
        """Create or replace `obj` as the server would; the stored object."""
        obj = self._named(obj)
        metadata = dict(obj.get("metadata") or {})
        obj = {**obj, "metadata": metadata}
        key = object_key(obj)
        old = self._state.get(key)
        if old is not None:
            kept = old.get("metadata") or {}
            for field in SERVER_FIELDS:
                if field in kept:
                    metadata[field] = kept[field]
            if isinstance(kept.get("generation"), int) and obj.get("spec") != old.get("spec"):
                metadata["generation"] = kept["generation"] + 1
        else:
            metadata.setdefault("uid", self._new_uid())
            metadata.setdefault("creationTimestamp", time_text(now))
            metadata.setdefault("generation", 1)
        if metadata.get("deletionTimestamp") and not metadata.get("finalizers"):
            self._remove(key, now)
            return obj
        self._state[key] = obj
        return obj

    def _delete(self, key: Key, now: datetime) -> None:
        obj = self._state[key]
        metadata = obj.get("metadata") or {}
        if metadata.get("finalizers"):
            if not metadata.get("deletionTimestamp"):
                self._state[key] = {**obj, "metadata": {**metadata, "deletionTimestamp": time_text(now)}}
            return
        self._remove(key, now)

    def _remove(self, key: Key, now: datetime) -> None:
        """The object goes, and with it (the garbage collector's work) every object all of whose
        ownerReferences name objects that are gone: by uid, or, for a reference or owner without
        one (hand-written input), by group, kind and name in the dependent's workspace and
        namespace."""
        gone = self._state.pop(key, None)
        if gone is None:
            return
        orphans = [
            k
            for k, o in self._state.items()
            if (refs := (o.get("metadata") or {}).get("ownerReferences"))
            and any(_names(r, k, gone, key) for r in refs)
            and not any(self._owner_alive(r, k) for r in refs)
        ]
        for k in orphans:
            if k in self._state:
                self._delete(k, now)

    def _owner_alive(self, ref: Mapping[str, Any], dependent: Key) -> bool:
        owner = (
            _group(str(ref.get("apiVersion", ""))),
            ref.get("kind", ""),
            *dependent[2:4],
            ref.get("name", ""),
        )
        for key in (owner, (*owner[:3], "", owner[4])):  # namespaced, or cluster-scoped owner
            obj = self._state.get(key)
            if obj is not None and _names(ref, key, obj, key):
                return True
        return False


def _names(ref: Mapping[str, Any], dependent: Key, owner: Mapping[str, Any], owner_key: Key) -> bool:
    """Whether an ownerReference names the object `owner` (stored under `owner_key`)."""
    uid, owner_uid = ref.get("uid"), (owner.get("metadata") or {}).get("uid")
    if uid and owner_uid:
        return uid == owner_uid
    return (
        (_group(str(ref.get("apiVersion", ""))), ref.get("kind", ""), ref.get("name", ""))
        == (owner_key[0], owner_key[1], owner_key[4])
        and owner_key[2] == dependent[2]
        and owner_key[3] in ("", dependent[3])
    )
