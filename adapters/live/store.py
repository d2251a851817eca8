"""The hub's objects as the API server stores them, for the long-lived scheduler (adapters.live.hub).

    store = Store(objects)
    store.write(obj, now)            # create or replace, as the server does
    store.delete(key, now)           # delete, or mark (finalizers left)
    store.drain()                    # every change since the last drain: (key, before, after)

Objects are kept by adapters.run.changes.object_key (API group, kind, workspace, namespace, name).
A write keeps the metadata the server owns (uid, creationTimestamp, a deletionTimestamp already
set, the resourceVersion), counts `generation` up when the spec changes, and gives a new object a
uid, a creationTimestamp and generation 1; a `generateName` object gets the name the server makes
of it, its suffix counted rather than drawn. A deletion of an object with finalizers only sets its
deletionTimestamp; an object being deleted whose finalizers are all gone disappears, and so do the
objects whose every ownerReference named it (the garbage collector's work).

Every change, the garbage collector's included, is logged as (key, object before, object after;
None where absent) so that the scheduler hears each one, and journalled so that `undo` puts the
store back as it was at the last `mark` (an event refused). What the scheduler looks objects up
by is indexed, so that no event costs a pass over the hub: (kind, namespace, name) for deletions
and references, the owners named by ownerReferences, the number of objects of each group and kind.
Nothing here depends on wall time but the times written: the same writes give the same store.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from adapters.kube.fields import time_text
from adapters.kube.validation import name_from_generate_name
from adapters.run.changes import SERVER_FIELDS, Key, object_key

__all__ = ["Change", "Store", "group_of"]

_UID_NAMESPACE = uuid.UUID("6f1c9a52-3c1e-4d55-9a43-7c0de0b1a7e5")

Obj = dict[str, Any]
Change = tuple[Key, Obj | None, Obj | None]  # key, as stored before and after; None: absent


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


class Store:
    def __init__(self, objects: Iterable[Obj] = ()) -> None:
        self._objects: dict[Key, Obj] = {}
        self._named: dict[tuple[str, str, str], set[Key]] = defaultdict(set)  # (kind, namespace, name)
        self._dependents: dict[tuple[str, str, str], set[Key]] = defaultdict(set)  # owner (group, kind, name)
        self._types: Counter[tuple[str, str]] = Counter()  # (group, kind) -> objects
        self._of_kind: dict[str, dict[Key, None]] = defaultdict(dict)  # kind -> keys, in order
        self._ids: dict[int, Obj] = {}  # id of each stored object -> the object (unheld)
        self.created = 0  # uids and names the server made, counted
        self._log: list[Change] = []
        self._journal: list[tuple[Key, Obj | None]] = []
        self._mark = (0, 0)
        self._now_text: tuple[datetime, str] | None = None  # the last `now` written and its text
        for obj in objects:
            self._set(object_key(obj), obj)
        self._log.clear()
        self._journal.clear()

    # -- reading --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._objects)

    def get(self, key: Key) -> Obj | None:
        return self._objects.get(key)

    def values(self) -> list[Obj]:
        return list(self._objects.values())

    def items(self) -> Iterable[tuple[Key, Obj]]:
        return self._objects.items()

    def of_kind(self, kind: str) -> list[Obj]:
        """The objects of a kind (in any group), in the order they were stored."""
        return [self._objects[key] for key in self._of_kind.get(kind, ())]

    def unheld(self, objects: list[Obj]) -> list[Obj]:
        """Those of `objects` that are not themselves stored objects (by identity: no key made,
        nothing compared; in one pass, a woken placement hands back hundreds)."""
        ids = self._ids
        return [obj for obj in objects if ids.get(id(obj)) is not obj]

    def types(self) -> set[tuple[str, str]]:
        """The (group, kind) of every object held."""
        return set(self._types)

    def named(self, kind: str, namespace: str, name: str) -> list[Key]:
        """The keys of the objects of that kind, namespace and name, in any group and workspace."""
        return sorted(self._named.get((kind, namespace, name), ()))

    # -- changes --------------------------------------------------------------------------------

    def drain(self) -> list[Change]:
        """Every change since the last drain, in order."""
        out, self._log = self._log, []
        return out

    def mark(self) -> None:
        """What `undo` goes back to."""
        self._journal.clear()
        self._mark = (self.created, len(self._log))

    def undo(self) -> None:
        """The store as it was at the last `mark`: every change since put back, none logged."""
        for key, before in reversed(self._journal):
            self._set(key, before, logged=False)
        self._journal.clear()
        self.created, logged = self._mark
        del self._log[logged:]

    # -- the API server -------------------------------------------------------------------------

    def write(self, obj: Obj, now: datetime, key: Key | None = None) -> Obj:
        """Create or replace `obj` (whose key is `key`, where the caller knows it) as the server
        would; the stored object (or the object, when it goes at once: being deleted with no
        finalizer left)."""
        named = self.named_by_server(obj)
        now_text = self._time_text(now)
        metadata = dict(named.get("metadata") or {})
        key = key if key is not None and named is obj else object_key(named)
        obj = {**named, "metadata": metadata}
        old = self._objects.get(key)
        if old is not None:
            kept = old.get("metadata") or {}
            for field in SERVER_FIELDS:
                if field in kept:
                    metadata[field] = kept[field]
            if isinstance(kept.get("generation"), int) and obj.get("spec") != old.get("spec"):
                metadata["generation"] = kept["generation"] + 1
        else:
            metadata.setdefault("uid", self._new_uid())
            metadata.setdefault("creationTimestamp", now_text)
            metadata.setdefault("generation", 1)
        if metadata.get("deletionTimestamp") and not metadata.get("finalizers"):
            self._remove(key, now)
            return obj
        self._set(key, obj)
        return obj

    def delete(self, key: Key, now: datetime) -> None:
        obj = self._objects[key]
        metadata = obj.get("metadata") or {}
        if metadata.get("finalizers"):
            if not metadata.get("deletionTimestamp"):
                self._set(key, {**obj, "metadata": {**metadata, "deletionTimestamp": time_text(now)}})
            return
        self._remove(key, now)

    def named_by_server(self, obj: Obj) -> Obj:
        """`obj`, named by the server when it asks for a generated name."""
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict) or metadata.get("name") or not metadata.get("generateName"):
            return obj
        metadata = dict(metadata)
        while True:
            self.created += 1
            metadata["name"] = name_from_generate_name(metadata["generateName"], self.created)
            named = {**obj, "metadata": metadata}
            if object_key(named) not in self._objects:
                return named

    def _time_text(self, now: datetime) -> str:
        """`now` as the server writes it (the last one's text kept: an event's writes share it)."""
        kept = self._now_text
        if kept is None or kept[0] != now:
            kept = self._now_text = (now, time_text(now))
        return kept[1]

    def _new_uid(self) -> str:
        self.created += 1
        return str(uuid.uuid5(_UID_NAMESPACE, str(self.created)))

    def _remove(self, key: Key, now: datetime) -> None:
        """The object goes, and with it every object all of whose ownerReferences name objects
        that are gone: by uid, or, for a reference or owner without one (hand-written input), by
        group, kind and name in the dependent's workspace and namespace."""
        gone = self._objects.get(key)
        if gone is None:
            return
        self._set(key, None)
        orphans = [
            k
            for k in sorted(self._dependents.get((key[0], key[1], key[4]), ()))
            if (refs := self._objects[k]["metadata"].get("ownerReferences"))
            and any(_names(r, k, gone, key) for r in refs)
            and not any(self._owner_alive(r, k) for r in refs)
        ]
        for k in orphans:
            if k in self._objects:
                self.delete(k, now)

    def _owner_alive(self, ref: Mapping[str, Any], dependent: Key) -> bool:
        owner = (
            group_of(str(ref.get("apiVersion", ""))),
            ref.get("kind", ""),
            *dependent[2:4],
            ref.get("name", ""),
        )
        for key in (owner, (*owner[:3], "", owner[4])):  # namespaced, or cluster-scoped owner
            obj = self._objects.get(key)
            if obj is not None and _names(ref, key, obj, key):
                return True
        return False

    # -- the one place objects change -------------------------------------------------------------

    def _set(self, key: Key, obj: Obj | None, *, logged: bool = True) -> None:
        before = self._objects.get(key)
        if before is obj:
            return
        if before is not None and obj is not None:
            self._reindex(key, before, obj)
        else:
            if before is not None:
                self._unindex(key, before)
            if obj is None:
                self._objects.pop(key, None)
            else:
                self._objects[key] = obj
                self._index(key, obj)
        if logged:
            self._journal.append((key, before))
            self._log.append((key, before, obj))

    def _index(self, key: Key, obj: Obj) -> None:
        self._ids[id(obj)] = obj
        self._named[(key[1], key[3], key[4])].add(key)
        self._types[(key[0], key[1])] += 1
        self._of_kind[key[1]][key] = None
        for owner in _owners(obj):
            self._dependents[owner].add(key)

    def _reindex(self, key: Key, before: Obj, obj: Obj) -> None:
        """`_unindex(before)` then `_index(obj)` for an object replaced under its key, in one
        step: its name and type stay, its owners are read again only where its ownerReferences
        differ, and its key moves last in its kind's order (as the two steps leave it)."""
        self._objects[key] = obj
        ids = self._ids
        ids.pop(id(before), None)
        ids[id(obj)] = obj
        of_kind = self._of_kind[key[1]]
        del of_kind[key]
        of_kind[key] = None
        refs = (before.get("metadata") or {}).get("ownerReferences")
        if refs != (obj.get("metadata") or {}).get("ownerReferences"):
            was, now = _owners(before), _owners(obj)
            for owner in was - now:
                _discard(self._dependents, owner, key)
            for owner in now - was:
                self._dependents[owner].add(key)

    def _unindex(self, key: Key, obj: Obj) -> None:
        self._ids.pop(id(obj), None)
        _discard(self._named, (key[1], key[3], key[4]), key)
        self._of_kind[key[1]].pop(key, None)
        self._types[(key[0], key[1])] -= 1
        if not self._types[(key[0], key[1])]:
            del self._types[(key[0], key[1])]
        for owner in _owners(obj):
            _discard(self._dependents, owner, key)


def _discard(index: dict[Any, set[Key]], at: Any, key: Key) -> None:
    keys = index.get(at)
    if keys is not None:
        keys.discard(key)
        if not keys:
            del index[at]


def _owners(obj: Obj) -> set[tuple[str, str, str]]:
    """(group, kind, name) of every owner its ownerReferences name."""
    refs = (obj.get("metadata") or {}).get("ownerReferences") or ()
    return {
        (group_of(str(r.get("apiVersion", ""))), r.get("kind", ""), r.get("name", ""))
        for r in refs
        if isinstance(r, Mapping)
    }


def _names(ref: Mapping[str, Any], dependent: Key, owner: Mapping[str, Any], owner_key: Key) -> bool:
    """Whether an ownerReference names the object `owner` (stored under `owner_key`)."""
    uid, owner_uid = ref.get("uid"), (owner.get("metadata") or {}).get("uid")
    if uid and owner_uid:
        return uid == owner_uid
    return (
        (group_of(str(ref.get("apiVersion", ""))), ref.get("kind", ""), ref.get("name", ""))
        == (owner_key[0], owner_key[1], owner_key[4])
        and owner_key[2] == dependent[2]
        and owner_key[3] in ("", dependent[3])
    )
