"""What a system's model for the long-lived scheduler (adapters.contract.Live) keeps between events,
shared by every system: the changed objects read once (by object identity), the model clusters in
name order with the batch's tuple made once.

    reads = Reads(read_cluster)              # per object: read again only when the object changes
    read = reads.read(obj)                   # the read kept for a stored object, or a new one
    reads.keep(obj, read); reads.forget(old) # once the change is taken
    pool = ClusterPool(model_clusters)       # model.Cluster by name, in name order
    pool.put(cluster); pool.drop(name)
    pool.clusters({name: 2})                 # the tuple, those clusters' load moved by the deltas
    pool.clusters(loads, within=requests)    # only those the tenancy requests may use
    pool.clusters()                          # every cluster: the same tuple until a change
    pool.loaded({name: 2})                   # that tuple, and those clusters' loads moved (model.Loads)
    journal = Journal()                      # a model's changes since journal.mark(), undone by
    journal.set(d, key, value); journal.undo()   # journal.undo() (the pool and timers take one)

A stored object is never changed in place (the store replaces it), so its identity tells whether
it changed: an object read before is not read again.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, MutableMapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import fields
from datetime import datetime
from functools import partial
from itertools import repeat
from operator import attrgetter
from typing import Any, Generic, TypeVar

import numpy as np

from adapters.kube.manifests import Manifest
from model import Cluster, Loads, PlacementRequest, vouch_loads, vouch_moved, vouch_scores

__all__ = ["ClusterPool", "Journal", "Reads", "Timers", "generation_changed", "manifest", "with_load"]

T = TypeVar("T")
Obj = Mapping[str, Any]


_CLUSTER_FIELDS = tuple(f.name for f in fields(Cluster))
_LABELLED_KEYS = 256  # tests ClusterPool.labelled keeps answers of
_SHIFTED_UP_TO = 8  # names come or gone before ClusterPool's positions are made again
_NEAR_UP_TO = 2048  # clusters a batch moves up to which they are found near their old positions
_SHIFTS_UP_TO = 16  # names come or gone ClusterPool.loaded moves the kept positions by (`_shifts`)
_FEW_LOADS = 256  # loads up to which ClusterPool.loaded finds each name alone
_SCORED_UP_TO = 64  # changes of the order's score mappings ClusterPool logs (`_rescored`)
_RELABELLED_UP_TO = 100_000  # names ClusterPool.labelled's log holds before a new epoch
# Every field's value read at once (a C call), and each field's slot written through its member
# descriptor (what object.__setattr__ ends in, without looking the name up each time), one line a
# field (`with_load` names them: a field added, dropped or moved fails here, not in a copy).
_cluster_values = attrgetter(*_CLUSTER_FIELDS)
assert _CLUSTER_FIELDS == (
    "name",
    "labels",
    "properties",
    "taints",
    "eligible",
    "ineligible_reason",
    "leaving",
    "claims",
    "traits",
    "scores",
    "load",
    "capacity",
), _CLUSTER_FIELDS
(
    _set_name,
    _set_labels,
    _set_properties,
    _set_taints,
    _set_eligible,
    _set_reason,
    _set_leaving,
    _set_claims,
    _set_traits,
    _set_scores,
    _set_load,
    _set_capacity,
) = (Cluster.__dict__[name].__set__ for name in _CLUSTER_FIELDS)
_new = object.__new__


def with_load(cluster: Cluster, load: int) -> Cluster:
    """The cluster with another load (at least 0): a copy, as dataclasses.replace makes it but
    without judging again the fields it takes as they are (a batch may move thousands: a
    joined cluster's batch copies nearly every cluster of 10,000, its PickAlls' decisions taken
    off; the slots written through their descriptors cost two thirds of a named setattr each,
    one call a field, with no loop over them: a third less than a loop)."""
    out = _new(Cluster)
    name, labels, properties, taints, eligible, reason, leaving, claims, traits, scores, _, capacity = (
        _cluster_values(cluster)
    )
    _set_name(out, name)
    _set_labels(out, labels)
    _set_properties(out, properties)
    _set_taints(out, taints)
    _set_eligible(out, eligible)
    _set_reason(out, reason)
    _set_leaving(out, leaving)
    _set_claims(out, claims)
    _set_traits(out, traits)
    _set_scores(out, scores)
    _set_load(out, load)
    _set_capacity(out, capacity)
    return out


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


_ABSENT: Any = object()


class Journal:
    """How to put a model back as it was at the last `mark`: each change made through it (or
    noted) keeps its undoing, and `undo` runs them, the last first. For an event the hub refuses
    after a model took it in (adapters.live.hub: a load or an emit of what it woke refused it).
    Nothing is kept before the first mark (a model being made: nothing to go back to, and a
    hub's worth of undoings made and let go would leave the heap in pieces)."""

    __slots__ = ("_undo",)

    def __init__(self) -> None:
        self._undo: list[Callable[[], Any]] | None = None

    @property
    def recording(self) -> bool:
        return self._undo is not None

    def mark(self) -> None:
        self._undo = []

    def undo(self) -> None:
        undo, self._undo = self._undo or [], []
        while undo:
            undo.pop()()
        self._undo.clear()  # what the undoing itself noted (the pool's, the timers')

    def note(self, undo: Callable[[], Any]) -> None:
        if self._undo is not None:
            self._undo.append(undo)

    def set(self, mapping: MutableMapping[Any, Any], key: Any, value: Any) -> None:
        if self._undo is not None:
            self._undo.append(partial(_put_back, mapping, key, mapping.get(key, _ABSENT)))
        mapping[key] = value

    def assign(self, obj: Any, name: str, value: Any) -> None:
        """An attribute of `obj` replaced (set's counterpart for a model's own attributes)."""
        if self._undo is not None:
            self._undo.append(partial(setattr, obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def keep(self, mapping: MutableMapping[Any, Any], keys: Iterable[Any]) -> None:
        """The mapping's values at `keys` as they stand (absent ones absent) put back by `undo`,
        in one note: the caller then changes them in place (a decision's hundreds of counts
        moved at once, not a note per key)."""
        if self._undo is not None:
            get = mapping.get
            self._undo.append(partial(_put_all_back, mapping, [(key, get(key, _ABSENT)) for key in keys]))

    def pop(self, mapping: MutableMapping[Any, Any], key: Any) -> Any:
        """The value popped (None: none)."""
        old = mapping.pop(key, _ABSENT)
        if old is _ABSENT:
            return None
        if self._undo is not None:
            self._undo.append(partial(mapping.__setitem__, key, old))
        return old

    def add(self, items: set[Any], item: Any) -> None:
        if item not in items:
            items.add(item)
            if self._undo is not None:
                self._undo.append(partial(items.discard, item))

    def discard(self, items: set[Any], item: Any) -> None:
        if item in items:
            items.discard(item)
            if self._undo is not None:
                self._undo.append(partial(items.add, item))


def _put_back(mapping: MutableMapping[Any, Any], key: Any, old: Any) -> None:
    if old is _ABSENT:
        mapping.pop(key, None)
    else:
        mapping[key] = old


def _put_all_back(mapping: MutableMapping[Any, Any], olds: list[tuple[Any, Any]]) -> None:
    for key, old in olds:
        _put_back(mapping, key, old)


class ClusterPool:
    """Model clusters by name, in name order, each replaced only when its object changes; the
    batch's tuple taken from a list kept in that order (a change moves one entry), and the
    clusters of each trait indexed (a batch of tenancy requests takes only those it may use).
    With a `journal`, each put and drop is noted there with its undoing."""

    def __init__(self, clusters: Iterable[Cluster] = (), *, journal: Journal | None = None) -> None:
        self._journal = journal
        self._by_name: dict[str, Cluster] = {}
        self._names: list[str] = []
        self._ordered: list[Cluster] = []
        self._loads: list[int] = []  # each entry's load, in order (`loaded` reads no entry)
        self._with_trait: dict[str, set[str]] = defaultdict(set)
        self._staying: set[str] = set()  # the names of those not leaving
        self._tainted: set[str] = set()  # the names of those with a taint
        # Every cluster as one tuple, made again only after a change: batch after batch shares it
        # (and with it the rows solver.table makes of it).
        self._all: tuple[Cluster, ...] | None = None
        # Replaced with `_all` at every change of the order's entries: the tuples `clusters` gives
        # (every cluster, some copied with another load) hold the same score mappings while it is
        # the same (model.vouch_scores).
        self._scored = object()
        # How the order's score mappings moved from earlier tokens to `_scored`: per change, the
        # token before it and the entry changed (model.vouch_scores: the next batch's magnitudes
        # moved by the few entries, not read off every cluster), the last _SCORED_UP_TO changes.
        self._scored_log: list[tuple[object, tuple[str, int, Any]]] = []
        # Each name's position in the order (a batch moves the loads of thousands: each found by a
        # lookup, not a bisection), as it was `_shifted` names come or gone ago (`_near`).
        self._position: dict[str, int] | None = None
        # The names come or gone since the positions were made, in order: where each came (+1) or
        # went (-1) (`loaded` moves a kept position by them); None past _SHIFTS_UP_TO (the
        # positions are then made again there).
        self._shifts: list[tuple[int, int]] | None = []
        self._gone: set[str] = set()  # the names gone since the positions were made
        self.missed = 0  # names `loaded` found again, not at their moved positions (a test's count)
        # `clusters`' load copies: per name the last two made, each with the cluster it copies
        # (base, copy, base, copy; the latest first), given again where the cluster and the load
        # are the same (see `_copy`).
        self._copies: dict[str, tuple[Cluster, Cluster, Cluster | None, Cluster | None]] = {}
        # The last `_all` made (`_base`), where the one name come or gone since it was (None: none
        # or more), and how many came or went.
        self._moved_since: tuple[tuple[Cluster, ...], int | None, int] | None = None
        # Counts every change of a trait's clusters (`with_trait`): what a reader keeps of them
        # holds while it is the same.
        self.traits_version = 0
        # `labelled`'s: per key, the log's epoch and length it read and the names it holds; the
        # log: every name put or dropped since the epoch began, in order.
        self._labelled: dict[Hashable, tuple[int, int, set[str]]] = {}
        self._relabelled: list[str] = []
        self._epoch = 0
        for cluster in sorted(clusters, key=lambda c: c.name):
            self._by_name[cluster.name] = cluster
            self._names.append(cluster.name)
            self._ordered.append(cluster)
            self._loads.append(cluster.load)
            if not cluster.leaving:
                self._staying.add(cluster.name)
            if cluster.taints:
                self._tainted.add(cluster.name)
            for trait in cluster.traits:
                self._with_trait[trait].add(cluster.name)

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

    def by_name(self) -> Mapping[str, Cluster]:
        """Every cluster by name (read-only)."""
        return self._by_name

    def staying(self) -> set[str]:
        """The names of the clusters not leaving (read-only)."""
        return self._staying

    def tainted(self) -> set[str]:
        """The names of the clusters with a taint (read-only)."""
        return self._tainted

    def with_trait(self, trait: str) -> set[str]:
        """The names of the clusters with the trait (read-only)."""
        return self._with_trait.get(trait, set())

    def labelled(self, key: Hashable, test: Callable[[Cluster], bool]) -> AbstractSet[str]:
        """The names of the clusters `test` holds for, where `test` reads a cluster's labels and
        claims alone and `key` names it (equal keys, the same test): kept per key and judged
        again only for the clusters put or dropped since (`reload` moves loads alone and shares
        the labels and claims), so it is what judging every cluster now gives (read-only)."""
        kept = self._labelled.get(key)
        log = self._relabelled
        if kept is None or kept[0] != self._epoch:
            if len(self._labelled) >= _LABELLED_KEYS:  # tests no reader asks for any more
                self._labelled.clear()
            names = {c.name for c in self._ordered if test(c)}
        else:
            names = kept[2]
            for name in dict.fromkeys(log[kept[1] :]):
                cluster = self._by_name.get(name)
                if cluster is not None and test(cluster):
                    names.add(name)
                else:
                    names.discard(name)
        self._labelled[key] = (self._epoch, len(log), names)
        return names

    def united(self, traits: tuple[str, ...]) -> AbstractSet[str]:
        """The names of the clusters with any of the traits: the union of their `with_trait` sets,
        kept per tuple as `labelled` keeps its answers and moved only by the clusters put or
        dropped since (a cluster's traits move only so: `reload` moves loads alone), so it is the
        union made now (read-only). Made afresh at every traits change, a cluster event's batch
        united the same few scopes of thousands each again (some 13 ms of a join at 10,000
        clusters)."""
        key = ("united", traits)
        kept = self._labelled.get(key)
        log = self._relabelled
        if kept is None or kept[0] != self._epoch:
            if len(self._labelled) >= _LABELLED_KEYS:  # tests no reader asks for any more
                self._labelled.clear()
            names = set().union(*(self._with_trait.get(t, ()) for t in traits))
        else:
            names = kept[2]
            if len(log) > kept[1]:
                wanted = frozenset(traits)
                for name in dict.fromkeys(log[kept[1] :]):
                    cluster = self._by_name.get(name)
                    if cluster is not None and not wanted.isdisjoint(cluster.traits):
                        names.add(name)
                    else:
                        names.discard(name)
        self._labelled[key] = (self._epoch, len(log), names)
        return names

    def _relabel(self, name: str) -> None:
        """`name` put or dropped: judged again by `labelled`'s readers (a long log begins a new
        epoch: every kept answer then made again)."""
        if len(self._relabelled) >= _RELABELLED_UP_TO:
            self._relabelled.clear()
            self._epoch += 1
        self._relabelled.append(name)

    def put(self, cluster: Cluster) -> None:
        self._all = None
        name = cluster.name
        self._relabel(name)
        at = bisect_left(self._names, name)
        old = self._by_name.get(name)
        self._rescored("set" if old is not None else "insert", at, cluster.scores)
        if self._journal is not None and self._journal.recording:
            self._journal.note(partial(self.drop, name) if old is None else partial(self.put, old))
        if old is not None:
            self._ordered[at] = cluster
            self._loads[at] = cluster.load
            self._retrait(name, old.traits, cluster.traits)
        else:
            self._shift(at, 1, name)
            self._name_moved(at)
            self._names.insert(at, name)
            self._ordered.insert(at, cluster)
            self._loads.insert(at, cluster.load)
            self._retrait(name, frozenset(), cluster.traits)
        self._by_name[name] = cluster
        if cluster.leaving:
            self._staying.discard(name)
        else:
            self._staying.add(name)
        if cluster.taints:
            self._tainted.add(name)
        else:
            self._tainted.discard(name)

    def reload(self, clusters: Sequence[Cluster]) -> None:
        """Kept clusters replaced by copies of them that differ in their load alone
        (`with_load`): their names, traits and leaving are as kept, so only the entries move (in
        one pass, with one note in the journal: a Placement's decisions move hundreds)."""
        if not clusters:
            return
        self._all = None
        by_name, names, ordered, loads = self._by_name, self._names, self._ordered, self._loads
        if self._journal is not None and self._journal.recording:
            self._journal.note(partial(self.reload, [by_name[c.name] for c in clusters]))
        scored = True  # every entry's score mapping the one it replaces
        for cluster in clusters:
            name = cluster.name
            at = bisect_left(names, name)
            scored = scored and ordered[at].scores is cluster.scores
            ordered[at] = by_name[name] = cluster
            loads[at] = cluster.load
        if not scored:
            self._scored = object()
            self._scored_log.clear()  # a reload's entries are load copies: never logged
        # Else the order's score mappings are, in order, those vouched with `_scored` still (a
        # load copy shares its cluster's): the next batch's magnitudes read no cluster (an event's
        # second take, after the first's write-back reloaded hundreds, read 10,000 again).

    def drop(self, name: str) -> None:
        old = self._by_name.pop(name, None)
        if old is not None:
            self._relabel(name)
            if self._journal is not None and self._journal.recording:
                self._journal.note(partial(self.put, old))
            self._all = None
            at = bisect_left(self._names, name)
            self._shift(at, -1, name)
            self._name_moved(at)
            self._rescored("delete", at, None)
            del self._names[at]
            del self._ordered[at]
            del self._loads[at]
            self._staying.discard(name)
            self._tainted.discard(name)
            self._retrait(name, old.traits, frozenset())

    @property
    def _shifted(self) -> int:
        """How many names came or went since the positions were made (`_shifts` counted; past
        _SHIFTS_UP_TO, one more than it: `clusters` then makes them again too)."""
        shifts = self._shifts
        return _SHIFTS_UP_TO + 1 if shifts is None else len(shifts)

    def _shift(self, at: int, step: int, name: str) -> None:
        """`name` comes (`step` 1) or goes (-1) at `at`: noted for `loaded` (`_shifts`, `_gone`)."""
        shifts = self._shifts
        if shifts is None:
            return
        if len(shifts) >= _SHIFTS_UP_TO:
            self._shifts = None  # made again when next read
            self._gone = set()
            return
        shifts.append((at, step))
        if step < 0:
            self._gone.add(name)

    def _made_positions(self) -> dict[str, int]:
        """Every name's position made again: nothing come or gone since."""
        names = self._names
        position = self._position = dict(zip(names, range(len(names)), strict=True))
        self._shifts = []
        self._gone = set()
        return position

    def _name_moved(self, at: int) -> None:
        """A name comes or goes at `at`: `_moved_since` holds the last base made, and where this
        is the one name moved since, its position (else None)."""
        if self._moved_since is not None:
            base, _, moves = self._moved_since
            self._moved_since = (base, at if moves == 0 else None, moves + 1)

    def _rescored(self, kind: str, at: int, scores: Any) -> None:
        """The order's entry at `at` set, inserted or deleted: a new token, the change logged."""
        log = self._scored_log
        if len(log) >= _SCORED_UP_TO:
            del log[: len(log) // 2]
        log.append((self._scored, (kind, at, scores)))
        self._scored = object()

    def _retrait(self, name: str, old: frozenset[str], new: frozenset[str]) -> None:
        if old == new:
            return
        self.traits_version += 1
        for trait in old - new:
            names = self._with_trait[trait]
            names.discard(name)
            if not names:
                del self._with_trait[trait]
        for trait in new - old:
            self._with_trait[trait].add(name)

    def clusters(
        self, loads: Mapping[str, int] | None = None, within: Sequence[PlacementRequest] = ()
    ) -> tuple[Cluster, ...]:
        """The clusters in name order, those in `loads` with their load moved by its delta. With
        `within`, a batch of tenancy requests each of whose terms names traits (as solver.tenancy
        judges them, only a cluster with every trait of a term can be a candidate): only the
        clusters that can be candidates of one, and those they hold; nothing else of the batch
        depends on the others."""
        names = self._within(within) if within else None
        if names is None and not any((loads or {}).values()):
            base = self._base()
            vouch_scores(base, self._scored, self._scored_log)
            vouch_loads(base, base)
            return base
        if len(self._copies) > 2 * len(self._names) + 1024:  # names long gone: let go whole
            self._copies.clear()
        if names is None:
            out = list(self._ordered)
            position = self._position
            moved = loads or {}
            if position is None or (
                self._shifted and (self._shifted > _SHIFTED_UP_TO or len(moved) > _NEAR_UP_TO)
            ):
                position = self._made_positions()
            if self._shifted:
                given = tuple(self._near(out, moved, position))
                vouch_scores(given, self._scored, self._scored_log)  # the order's entries, as below
                self._vouch_loads(given)
                return given
        else:
            out = [self._by_name[name] for name in names]
            position = {name: i for i, name in enumerate(names)}
        by_name, copy = self._by_name, self._copy
        for name, delta in (loads or {}).items():
            if delta and (at := position.get(name)) is not None:  # a position is a held name's
                out[at] = copy(by_name[name], delta)
        given = tuple(out)
        if names is None:  # the order's entries, a load copy sharing its cluster's score mapping
            vouch_scores(given, self._scored, self._scored_log)
            self._vouch_loads(given)
        return given

    def loaded(self, loads: Mapping[str, int]) -> tuple[tuple[Cluster, ...], Loads | None]:
        """Every cluster in name order, the very tuple `clusters()` gives, and the loads of the
        held clusters of `loads` moved by its deltas (model.Loads: their positions in that tuple,
        their loads), where `clusters(loads)` gives a copy of each (`with_load`): a batch carries
        them beside the shared tuple (model.Batch.loads). A join's batch moved the loads of
        1,500 to 6,300 clusters, a copy each (about 2 us) and the rest given again; here each is
        found and moved in C passes (positions, loads, the positions sorted as ints).

        Where names came or went since the positions were made (`_shifts`), each kept position
        is moved by them in numpy passes over them all: one on for every name come at or before
        it, one back for every name gone before it, which is exact for a name held throughout;
        those held then and gone since (`_gone`, come again or not) and those not held then are
        found again (bisected where held now). Made again after every join, the 10,000 names'
        positions cost 0.7 ms hot and 2.5 ms or more with their strings out of cache."""
        base = self.clusters()
        if not loads:
            return base, None
        position = self._position
        if position is None or self._shifts is None:
            position = self._made_positions()
        moved = list(loads)
        count = len(moved)
        if count <= _FEW_LOADS:  # a few: each found alone (numpy's passes cost more)
            return base, self._few_loaded(loads, position)
        deltas = np.fromiter(loads.values(), dtype=np.int64, count=count)
        at = np.array(list(map(position.get, moved, repeat(-1))), dtype=np.int64)
        if self._shifts:
            for where, step in self._shifts:
                if step > 0:
                    at += at >= where  # a name not kept (-1) stays below every place
                else:
                    at -= at > where
            again = set(np.flatnonzero(at < 0).tolist())
            gone = self._gone
            if gone:
                again.update(moved.index(name) for name in gone.intersection(loads))
            self.missed += len(again)
            names, by_name = self._names, self._by_name
            for i in again:
                name = moved[i]
                at[i] = bisect_left(names, name) if name in by_name else -1
        keep = (at >= 0) & (deltas != 0)  # a name not held at none, one unmoved moves nothing
        if not keep.all():
            at, deltas = at[keep], deltas[keep]
            if not len(at):
                return base, None
        order = np.argsort(at)
        ats = at[order].tolist()
        values = np.fromiter(map(self._loads.__getitem__, ats), dtype=np.int64, count=len(ats))
        values += deltas[order]
        return base, Loads(tuple(ats), tuple(values.tolist()))

    def _few_loaded(self, loads: Mapping[str, int], position: Mapping[str, int]) -> Loads | None:
        """`loaded`'s Loads for a few names: each held one at its position, bisected where names
        came or went since the positions were made."""
        names, by_name, kept = self._names, self._by_name, self._loads
        shifted = bool(self._shifts)
        found: dict[int, int] = {}
        for name, delta in loads.items():
            if delta and name in by_name:
                at = bisect_left(names, name) if shifted else position[name]
                found[at] = kept[at] + delta
        if not found:
            return None
        at = sorted(found)
        return Loads(tuple(at), tuple(map(found.__getitem__, at)))

    def _vouch_loads(self, given: tuple[Cluster, ...]) -> None:
        """Vouch (model.vouch_loads) that `given`, every cluster in name order, holds the order's
        entries or their load copies (`_copy`: of the very entry, `by_name`'s): an event's two
        batches, the order unchanged between them, then share every table row but the load."""
        vouch_loads(given, self._base())

    def _base(self) -> tuple[Cluster, ...]:
        """`_all`, made where a change cleared it; where one name alone came or went since the
        last one made, vouched as that one's names with it added or gone (model.vouch_moved: a
        join's or leave's table slides its rows without reading the names)."""
        if self._all is None:
            self._all = tuple(self._ordered)
            if self._moved_since is not None and self._moved_since[1] is not None:
                vouch_moved(self._all, self._moved_since[0], self._moved_since[1])
            self._moved_since = (self._all, None, 0)
        return self._all

    def _near(
        self, out: list[Cluster], loads: Mapping[str, int], position: Mapping[str, int]
    ) -> list[Cluster]:
        """`out` (every cluster in name order) with the held clusters of `loads` moved, where a
        few names came or went since the positions were made: each found at its position then or
        one off it (one name come or gone shifts those after it by one), checked against the names
        now, else by bisecting them (a held name is there); a name not held is passed over
        without a search. Made again at every join and leave, the 10,000 names' positions cost
        2.4-3.1 ms each time (their strings out of cache), against the few hundred clusters a
        batch of such an event moves."""
        names, by_name, copy = self._names, self._by_name, self._copy
        end = len(names)
        for name, delta in loads.items():
            if not delta or name not in by_name:
                continue  # not held: no position to move
            at = position.get(name)
            if at is not None and at < end and names[at] == name:
                pass
            elif at is not None and at + 1 < end and names[at + 1] == name:
                at += 1
            elif at is not None and 0 < at <= end and names[at - 1] == name:
                at -= 1
            else:
                at = bisect_left(names, name)
                if at == end or names[at] != name:
                    continue  # not held
            out[at] = copy(by_name[name], delta)
        return out

    def _copy(self, cluster: Cluster, delta: int) -> Cluster:
        """The cluster with its load moved by `delta` (`with_load`): one of the last two copies
        made of this very cluster (identity: a cluster put, dropped or reloaded is another object)
        where it has that load, else a new one. A copy differs from the cluster in its load
        alone and nothing changes a Cluster once made, so a copy given again equals a new one;
        batch after batch moves the loads of the same clusters by the same Placements' decisions
        (a join's batches copied some 4,000 clusters each, about half of them as the batch
        before had them), and solver.table keeps a cluster's rows by its object."""
        load = cluster.load + delta
        kept = self._copies.get(cluster.name)
        if kept is not None:
            if kept[0] is cluster and kept[1].load == load:
                return kept[1]
            if kept[2] is cluster and kept[3] is not None and kept[3].load == load:
                self._copies[cluster.name] = (cluster, kept[3], kept[0], kept[1])
                return kept[3]
            out = with_load(cluster, load)
            self._copies[cluster.name] = (cluster, out, kept[0], kept[1])
            return out
        out = with_load(cluster, load)
        self._copies[cluster.name] = (cluster, out, None, None)
        return out

    def _within(self, requests: Sequence[PlacementRequest]) -> list[str] | None:
        """The clusters the tenancy requests can use (None: any cluster may be one's)."""
        found: set[str] = set()
        for r in requests:
            if r.tenancy is None or not r.required or any(not t.traits for t in r.required):
                return None
            for term in r.required:
                found |= set.intersection(*(self._with_trait.get(t, set()) for t in term.traits))
            found |= {d.cluster for d in r.existing if d.cluster in self._by_name}
        return sorted(found)


class Timers(Generic[T]):
    """What comes due at a moment with no event (a cluster's eviction time, a grace period's end,
    a toleration running out): `at(when, key)` sets the key's moment (the last one set counts),
    `due(now)` gives the keys whose moment is now passed, each once. With a `journal`, each
    change is noted there with its undoing."""

    def __init__(self, *, journal: Journal | None = None) -> None:
        self._heap: list[tuple[datetime, int, T]] = []
        self._when: dict[T, datetime] = {}
        self._count = 0  # ties in the heap never compare keys
        self._journal = journal

    def at(self, when: datetime | None, key: T) -> None:
        # A moment set again is pushed again; the entry of the one it replaced is passed by. The
        # moment the key has already is not (its entry is in the heap: `due` gives the key at
        # its first entry with that moment, each once, so a second entry changes nothing): a
        # Placement's timer set again at each of its answers stays one entry.
        if when is not None and self._when.get(key) == when:
            return
        if self._journal is not None and self._journal.recording:
            self._journal.note(partial(self.at, self._when.get(key), key))
        if when is None:
            self._when.pop(key, None)
            return
        self._when[key] = when
        self._count += 1
        heapq.heappush(self._heap, (when, self._count, key))

    def sooner(self, when: datetime | None, key: T) -> None:
        """The key's moment brought to `when` where it has none or a later one, else kept (a
        delaying work queue's add-after: a later or no moment never postpones one waiting)."""
        if when is not None and ((had := self._when.get(key)) is None or when < had):
            self.at(when, key)

    def due(self, now: datetime) -> list[T]:
        out = []
        while self._heap and self._heap[0][0] <= now:
            when, _, key = heapq.heappop(self._heap)
            if self._when.get(key) == when:
                del self._when[key]
                out.append(key)
                if self._journal is not None and self._journal.recording:
                    self._journal.note(partial(self.at, when, key))
        return out
