"""What a system's model for the long-lived scheduler (adapters.contract.Live) keeps between events,
shared by every system: the changed objects read once (by object identity), the model clusters in
name order with the batch's tuple made once.

    reads = Reads(read_cluster)              # per object: read again only when the object changes
    read = reads.read(obj)                   # the read kept for a stored object, or a new one
    reads.keep(obj, read); reads.forget(old) # once the change is taken
    pool = ClusterPool(model_clusters)       # model.Cluster by name, in name order
    pool.put(cluster); pool.drop(name)
    pool.clusters({name: 2})                 # the tuple, those clusters' load moved by the deltas

A stored object is never changed in place (the store replaces it), so its identity tells whether
it changed: an object read before is not read again.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Generic, TypeVar

from adapters.kube.manifests import Manifest
from model import Cluster

__all__ = ["ClusterPool", "Reads", "generation_changed", "manifest"]

T = TypeVar("T")
Obj = Mapping[str, Any]


def manifest(obj: Obj) -> Manifest:
    """A stored object as the adapters read it (errors name it as the hub's)."""
    return Manifest(obj, "<hub>", 1)  # type: ignore[arg-type]


def generation_changed(before: Obj, after: Obj) -> bool:
    """Whether an update changed metadata.generation (the API server counts it up with the spec;
    an object without one, written by hand, stands for one whose generation follows its spec)."""
    old, new = ((o.get("metadata") or {}).get("generation") for o in (before, after))
    if isinstance(old, int) and isinstance(new, int):
        return old != new
    return before.get("spec") != after.get("spec")


class Reads(Generic[T]):
    """One reader's reads of stored objects, each kept while its object is stored: `read` reads an
    object not kept (or answers from the one kept), `keep` keeps it once the change is taken (a
    refused change keeps nothing), `forget` lets a replaced or deleted object's read go."""

    def __init__(self, reader: Callable[[Manifest], T]) -> None:
        self._reader = reader
        self._kept: dict[int, tuple[Obj, T]] = {}

    def read(self, obj: Obj) -> T:
        kept = self._kept.get(id(obj))
        if kept is not None and kept[0] is obj:
            return kept[1]
        return self._reader(manifest(obj))

    def keep(self, obj: Obj, value: T) -> None:
        self._kept[id(obj)] = (obj, value)

    def forget(self, obj: Obj) -> None:
        kept = self._kept.get(id(obj))
        if kept is not None and kept[0] is obj:
            del self._kept[id(obj)]


class ClusterPool:
    """Model clusters by name, in name order, each replaced only when its object changes; the
    batch's tuple taken from a list kept in that order (a change moves one entry)."""

    def __init__(self, clusters: Iterable[Cluster] = ()) -> None:
        self._by_name: dict[str, Cluster] = {c.name: c for c in clusters}
        self._names = sorted(self._by_name)
        self._ordered = [self._by_name[name] for name in self._names]

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> Cluster:
        return self._by_name[name]

    def get(self, name: str) -> Cluster | None:
        return self._by_name.get(name)

    def names(self) -> list[str]:
        return self._names

    def put(self, cluster: Cluster) -> None:
        name = cluster.name
        at = bisect_left(self._names, name)
        if name in self._by_name:
            self._ordered[at] = cluster
        else:
            self._names.insert(at, name)
            self._ordered.insert(at, cluster)
        self._by_name[name] = cluster

    def drop(self, name: str) -> None:
        if self._by_name.pop(name, None) is not None:
            at = bisect_left(self._names, name)
            del self._names[at]
            del self._ordered[at]

    def clusters(self, loads: Mapping[str, int] | None = None) -> tuple[Cluster, ...]:
        """Every cluster in name order; those in `loads` with their load moved by its delta."""
        out = tuple(self._ordered)
        moved = {name: delta for name, delta in (loads or {}).items() if delta and name in self._by_name}
        if not moved:
            return out
        listed = list(out)
        for name, delta in moved.items():
            cluster = self._by_name[name]
            listed[bisect_left(self._names, name)] = replace(cluster, load=cluster.load + delta)
        return tuple(listed)
