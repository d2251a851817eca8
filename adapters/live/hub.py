"""The long-lived scheduler of every system: it keeps the hub's objects as the API server stores
them and each system's loaded model, and on an event solves only what the event reaches.

    hub = HubScheduler(objects, now=now, config=config)     # the first, full solve (hub.initial)
    delta = hub.handle(Applied(request), now=now)           # delta.apply, delta.delete: what to write
    delta = hub.handle(Deleted(kind, name))
    hub.objects()                                           # the hub as the scheduler sees it
    hub.outcome[system]                                     # the last Outcome of each system

An event changes one object, as a user's write would (adapters.live.store: `Applied` creates or
replaces it, `Deleted` deletes it, or only marks it while finalizers are left; the garbage
collector takes what it owned). The first solve of a system is the pipeline's
(adapters.run.pipeline.schedule over its objects). Then its record's `reach`
(adapters.contract.Live) keeps its loaded model: every change of its objects (the event's, the
garbage collector's, the scheduler's own writes) goes to it, it re-reads only the changed objects,
and it answers with what upstream's controller takes up after them: a batch of those requests
with every other request held as it stands (adapters.contract.Taken). That batch is solved
(greedy: upstream's answer for them; optimal: re-optimised with the rest fixed), emitted, and the
output applied as the API server applies it; the writes are changes the system hears in turn, as
its controller hears its own writes, until they reach nothing. A system without a `reach` is
solved again over all its objects on every event that concerns it (its kinds; a shared kind, such
as kcp's Namespace, only while the system has objects of its own).

The Delta of an event holds the objects its solves changed (each once, as last written) and their
deletions. `hub.outcome[system]` is the system's last solve, of the requests it took. An event
refused (an InputError, of its object or of what it makes a system read) changes nothing: the
store, the models and later names and uids are as before (a model refusing only before it takes
anything in, as adapters.contract.Live asks; one that keeps a `journal`, adapters.live.kept.Journal,
is put back by it wherever the refusal comes: a load or an emit of what the event woke).

What each system's reach takes, and why that is exact, is in its reach module
(adapters/<system>/reach.py). `resolve` is the check: a full solve of the kept state from scratch.

The wall clock. A batch's searches are bounded by their deterministic budget
(`SolveOptions.deterministic_budget`, the Balance search's asks): bounded so, the same objects and
events at the same `now`s give the same deltas, whatever the machine's load. `SolveOptions.time_limit`
(wall seconds per batch) is a safety net above that budget: where it cuts a search (a loaded
machine, a batch of hundreds of coupled requests), that batch may answer otherwise than a run
with no cut, and the event says so: `Delta.time_limited` (the solver's `SolveStats.time_limited`
of any batch the event solved, the first solve's included for `initial`). A run whose deltas are
to be compared with another's (a soak's digest) counts those events, or lifts the limit. Nothing
else here depends on wall time but the default `now`. Returned objects share structure with the
kept state: treat them as read-only (copy to change).
"""

from __future__ import annotations

import copy
import gc
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from adapters.contract import Live, System
from adapters.errors import InputError
from adapters.kube.manifests import from_objects
from adapters.live.kept import Journal
from adapters.live.store import Change, Store, group_of
from adapters.registry import adapter, facet, owned_by, system, systems
from adapters.run.changes import Key, changed_objects, object_key, served
from adapters.run.pipeline import Outcome, SystemOutcome, paused_gc, schedule_manifests, summary_of_parts
from model import Batch, PlacementRequest, RequestResult
from solver import SolveOptions, check, solve

__all__ = ["Applied", "Deleted", "Delta", "HubScheduler", "HubEvent"]

_ROUNDS = 8  # a system's own writes reaching its objects again: upstream settles in two
_FROZEN_FROM = 10_000  # objects kept: from this many the heap is frozen after the first solve
# Young containers an event leaves (the collector's count): from this many, its young pass runs
# before they are frozen (see _freeze); fewer are frozen as they are.
_YOUNG_FROM = 2_000


def _freeze() -> None:
    """The process's heap left out of the cyclic collector's passes from now on (gc.freeze): a
    large hub is millions of containers the scheduler keeps for good and that make no cycles,
    and every full collection walked them all (half a second at 10,000 x 2,000, the worst events'
    latency). A frozen object still goes when its last reference does (reference counting), only
    frozen cycles are never collected.

    What each event leaves is collected once and frozen the same way, before the collector is back
    (`handle`): the young collection walks the event's objects once (its cyclic garbage goes: ortools'
    `cp_model.CpModel` was a cycle through its deprecated-method closures, some 3,400 objects an OCM
    cluster event at 10,000 x 2,000, until solver/sat.py built the models without it; whatever else an
    event leaves in a cycle goes the same way), and what it kept (the model's answers, the objects
    written) is never walked again (a full collection after 120 such events, the heap unfrozen, found
    no garbage left). Left to the collector, each event's survivors were walked again by every older
    generation's pass, the full ones over every event's so far: some 90 ms of CPU after a join or
    leave (up to 214), 50 (up to 90) this way. Frozen without the collection, the CpModels' cycles of
    then were never freed (409,216 objects after 120 events).
    An event that leaves fewer young containers than `_YOUNG_FROM` (the collector's count since the
    last freeze: a Placement's event, some 130 to 2,000 at 10,000 x 2,000) is frozen without the
    pass: the pass walked every container those few hold (the batch's tuples of 10,000 clusters),
    0.5 to 2 ms of a 15 to 20 ms event, and found nothing: over the soak's first 80 events at
    10,000 x 2,000 no young pass found any garbage (the scheduler makes no cycles since the
    CpModels went), and were one left, it would be at most those few objects of that event.
    A refused event is undone and collected as before."""
    gc.collect()
    gc.freeze()


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
    # The requests the event's solves took up (their keys, in the order solved; a system solved
    # again over all its objects: every request of it).
    requests: tuple[str, ...] = ()
    # A wall-clock limit (SolveOptions.time_limit) cut a search of a batch the event solved: its
    # answers may differ from a run with no cut (see the module's docstring).
    time_limited: bool = False


class _Writes:
    """What the solves of one event (or of the first solve) wrote: each changed object once, as
    last written, the deletions, the systems solved."""

    def __init__(self) -> None:
        self.written: dict[Key, dict[str, Any]] = {}
        self.deleted: list[dict[str, str]] = []
        self.systems: list[str] = []
        self.requests: list[str] = []
        self.time_limited = False  # a wall-clock limit cut a search of one of the solves

    def delta(self, started: float) -> Delta:
        seconds = time.perf_counter() - started
        requests = tuple(dict.fromkeys(self.requests))
        written = list(self.written.values())
        return Delta(written, self.deleted, tuple(self.systems), seconds, requests, self.time_limited)


class HubScheduler:
    """The hub's long-lived scheduler (see the module's docstring).

    The rule of the wall clock: every search of an event's batch is bounded by the deterministic
    budget (`options.deterministic_budget`, the Balance search's asks), so the deltas are a
    function of the objects, the events and their `now`s alone. `options.time_limit` only guards
    against a batch running away: where it cuts a search, the delta says so (`Delta.time_limited`,
    and `initial.time_limited` for the first solve), and its answers may differ from those of a
    run the wall clock did not cut.

    The deltas carry no bound: the solves are asked without the proven bound and gaps
    (`SolveOptions.bound` off, whatever `options` says; the same answers, without the work that
    proves only the bound) unless `bounds` asks for them, for `outcome`'s results and summaries."""

    def __init__(
        self,
        objects: Iterable[dict[str, Any]],
        *,
        now: datetime | None = None,
        options: SolveOptions | None = None,
        config: Mapping[str, Any] | None = None,
        verify: bool = False,
        bounds: bool = False,
    ) -> None:
        self.options = replace(options or SolveOptions(), bound=bounds)
        self.config = config
        self.verify = verify
        now = now or datetime.now(UTC).replace(microsecond=0)
        objects = list(objects)
        from_objects(objects, "<objects>")  # validated before anything is kept
        self._store = Store(copy.deepcopy(obj) for obj in objects)
        self._live: dict[str, Live] = {}
        self.outcome: dict[str, Outcome] = {}
        start = time.perf_counter()
        writes = _Writes()
        with paused_gc():
            pending: list[tuple[str | None, list[Change]]] = []
            for name in self._present():
                self._first(name, now, writes)
                writes.systems.append(name)
                pending.append((name, self._store.drain()))
            self._settle(now, writes, pending)
        # What the first, full solve writes: a controller applies it before handling events.
        self.initial = writes.delta(start)
        # The journal held every object as it stood before the first solve's writes (a second
        # hub, which the first event let go of): nothing before this can be undone (nor in the
        # models, which heard those writes).
        self._store.mark()
        for journal in self._journals():
            journal.mark()
        self._frozen = len(self._store) >= _FROZEN_FROM
        if self._frozen:
            _freeze()

    def _journals(self) -> list[Journal]:
        """The journals of the models that keep one (adapters.live.kept.Journal)."""
        return [j for live in self._live.values() if isinstance(j := getattr(live, "journal", None), Journal)]

    # -- reading --------------------------------------------------------------------------------

    def objects(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The hub as the API server holds it after every event and write so far (of one kind:
        `kind`)."""
        return self._store.values() if kind is None else self._store.of_kind(kind)

    def get(self, key: Key) -> dict[str, Any] | None:
        return self._store.get(key)

    def resolve(self, *, now: datetime | None = None) -> Delta:
        """What a full solve of the kept state from scratch (adapters.run.pipeline.schedule, every
        system at once) would write, as the server would take it; the state is left as it is. Empty
        when the state is a fixed point of the scheduler (see each system's reach module for what
        a full solve may change that an event does not)."""
        now = now or datetime.now(UTC).replace(microsecond=0)
        start = time.perf_counter()
        manifests = from_objects(self.objects(), "<hub>")
        outcome = schedule_manifests(
            manifests, now=now, options=self.options, verify=self.verify, config=self.config
        )
        changed, _ = changed_objects([self._served(obj) for obj in outcome.apply], manifests)
        systems = tuple(p.system for p in outcome.parts)
        seconds, cut = time.perf_counter() - start, bool(outcome.summary.get("time_limited"))
        return Delta([obj for _, obj in changed], list(outcome.delete), systems, seconds, time_limited=cut)

    # -- events ---------------------------------------------------------------------------------

    def handle(self, event: HubEvent, *, now: datetime | None = None) -> Delta:
        """The event applied and what it reaches solved. An event the API server or a system
        refuses (an InputError, of its object or of the hub it makes) changes nothing: the hub
        stays as it was, and so do its later events' names and uids."""
        now = now or datetime.now(UTC).replace(microsecond=0)
        self._store.mark()
        kept = dict(self.outcome), dict(self._live)
        journals = self._journals()
        for journal in journals:
            journal.mark()
        try:
            with paused_gc():
                delta = self._handle(event, now)
                for journal in journals:
                    journal.mark()  # nothing left to undo: what the undoing held is let go
                if self._frozen:  # what the event left (see _freeze), before the collector is back
                    if gc.get_count()[0] >= _YOUNG_FROM:
                        gc.collect(0)
                    gc.freeze()
        except InputError:
            self._store.undo()
            for journal in journals:
                journal.undo()
            self.outcome, self._live = kept
            raise
        return delta

    def _handle(self, event: HubEvent, now: datetime) -> Delta:
        start = time.perf_counter()
        if isinstance(event, Applied):
            obj = self._store.named_by_server(copy.deepcopy(event.obj))
            # A clear InputError for a malformed object, and the registry's checks (a version not
            # served, a name refused), whether or not a solve reads the object.
            owned_by(from_objects([obj], "<event>"))
            self._store.write(obj, now)
        elif isinstance(event, Deleted):
            key = self._find(event)
            if key is not None:
                self._store.delete(key, now)
        else:
            raise TypeError(f"not a hub event: {event!r}")
        writes = _Writes()
        self._settle(now, writes, [(None, self._store.drain())])
        return writes.delta(start)

    def _find(self, event: Deleted) -> Key | None:
        found = [
            key
            for key in self._store.named(event.kind, event.namespace, event.name)
            if key[2] == event.workspace and (not event.api_version or key[0] == group_of(event.api_version))
        ]
        if len(found) > 1:
            raise ValueError(f"{event.kind} {event.name!r} exists in several API groups: name api_version")
        return found[0] if found else None

    # -- systems --------------------------------------------------------------------------------

    def _present(self) -> list[str]:
        """The systems owning at least one kept object, in registry order."""
        own = self._store.types()
        return [s.name for s in systems() if any(group in s.kinds.get(kind, ()) for group, kind in own)]

    def _settle(self, now: datetime, writes: _Writes, pending: list[tuple[str | None, list[Change]]]) -> None:
        """Hand every change (`pending`: by the system whose solve made it, None for the event's)
        to the systems it concerns, solve what they take up, apply their writes, and go on with
        the changes those make, until nothing is left to hear. A system without a model hears
        none of its own writes: its solve took every object. A system that appears gets its
        first, full solve; one whose last own object went is dropped."""
        for _ in range(_ROUNDS):
            if not any(changes for _, changes in pending):
                break
            present = self._present()
            for name in [s for s in self._live if s not in present]:
                del self._live[name]
            for name in [s for s in self.outcome if s not in present]:
                del self.outcome[name]
            routed: dict[str, list[Change]] = {name: [] for name in present}
            for origin, changes in pending:
                for change in changes:
                    for name in self._concerned(change[0], present):
                        if name != origin or name in self._live:  # a full solve heard itself
                            routed[name].append(change)
            pending = []
            for name, changes in routed.items():
                if changes:
                    if name not in writes.systems:
                        writes.systems.append(name)
                    self._solve(name, changes, now, writes)
                    pending.append((name, self._store.drain()))
        else:
            raise RuntimeError(f"the systems' own writes still reach their objects after {_ROUNDS} rounds")

    def _concerned(self, key: Key, present: list[str]) -> list[str]:
        """The present systems an object of the key's (group, kind) concerns: those owning the
        kind, and those sharing it (present: they have objects of their own)."""
        group, kind = key[0], key[1]
        return [
            name
            for name in present
            if group in (s := system(name)).kinds.get(kind, ()) or group in s.shared.get(kind, ())
        ]

    def _solve(self, name: str, changes: list[Change], now: datetime, writes: _Writes) -> None:
        live = self._live.get(name)
        if live is None:
            self._first(name, now, writes)
            return
        taken = live.take([(before, after) for _, before, after in changes], now)
        if taken is None:
            return
        batch = taken.batch
        # A batch of no request (a deletion's run) asks nothing of its clusters.
        result = solve(batch if batch.requests else replace(batch, clusters=(), loads=None), self.options)
        if taken.given:  # answered without the solver: checked and emitted with the rest, in key order
            result = replace(result, requests=_merged(result.requests, tuple(a for _, a in taken.given)))
        if self.verify:
            whole = _with_given(batch, taken.given) if taken.given else batch
            problems = check(whole, result)
            if problems:  # a defect of the solver or of the model's own answers, never an input problem
                raise AssertionError(f"the checker rejected the {name} result:\n" + "\n".join(problems))
        if taken.answered is not None:
            taken.answered(result)
        writes.requests += [r.request for r in result.requests]
        writes.time_limited |= result.stats.time_limited
        emitted = adapter(name).emit(taken.context, result)
        part = SystemOutcome(name, batch, result, emitted.placements, emitted.unsatisfied)
        self.outcome[name] = Outcome(emitted.apply, emitted.delete, (part,), summary_of_parts([part]))
        self._apply(emitted.apply, emitted.delete, now, writes)

    def _first(self, name: str, now: datetime, writes: _Writes) -> None:
        """The system's full solve, through the pipeline over every object it reads; then its
        model is loaded from the hub as the solve leaves it, for the events to come."""
        s = system(name)
        manifests = from_objects(self._own(s), "<hub>")
        outcome = schedule_manifests(
            manifests, now=now, options=self.options, verify=self.verify, config=self.config
        )
        self.outcome[name] = outcome
        writes.requests += [r.request for part in outcome.parts for r in part.result.requests]
        writes.time_limited |= bool(outcome.summary.get("time_limited"))
        self._apply(outcome.apply, outcome.delete, now, writes)
        make = facet(name, s.reach)
        if make is not None:
            config = {"config": self.config} if s.config_read is not None else {}
            mine = from_objects(self._own(s), "<hub>")
            self._live[name] = make(mine, now=now, seed=self.options.seed, result=outcome.result, **config)

    def _own(self, s: System) -> list[dict[str, Any]]:
        """The objects the system reads."""
        return [
            obj
            for (group, kind, *_), obj in self._store.items()
            if group in s.kinds.get(kind, ()) or group in s.shared.get(kind, ())
        ]

    def _apply(
        self,
        apply: list[dict[str, Any]],
        delete: list[dict[str, str]],
        now: datetime,
        writes: _Writes,
    ) -> None:
        """A solve's output applied as the server takes it: each object that differs from the
        stored one written (named by the server), each deletion made."""
        for obj in self._store.unheld(apply):  # not those an adapter handed back as stored (fleet)
            key = object_key(obj) if (obj.get("metadata") or {}).get("name") else None
            stored = self._store.get(key) if key is not None else None
            if stored is not None:
                if stored is obj or stored == obj:
                    continue
                obj = served(obj, stored)
                if obj == stored:
                    continue
            written = self._store.write(obj, now, key)
            writes.written[key if key is not None else object_key(written)] = obj
        for ref in delete:
            key = self._reference_key(ref)
            if key is not None:
                self._store.delete(key, now)
        writes.deleted += delete

    # -- the API server -------------------------------------------------------------------------

    def _reference_key(self, ref: Mapping[str, str]) -> Key | None:
        """The object a reference names: it names no workspace (kcp), so the one object of that
        group, kind, namespace and name in any workspace."""
        group = group_of(ref.get("apiVersion", ""))
        found = [
            k
            for k in self._store.named(ref.get("kind", ""), ref.get("namespace", ""), ref["name"])
            if k[0] == group
        ]
        exact = [k for k in found if k[2] == ""]
        if exact:
            return exact[0]
        return found[0] if len(found) == 1 else None

    def _served(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj` as the server stores it over the stored object of its key (see `served`)."""
        if not (obj.get("metadata") or {}).get("name"):
            return obj
        return served(obj, self._store.get(object_key(obj)))


def _with_given(batch: Batch, given: tuple[tuple[PlacementRequest, RequestResult], ...]) -> Batch:
    """The batch holding the requests the model answered itself too, for the checker: a hard rule
    reads a request's own decisions and the clusters, never the load the others put there."""
    requests = sorted((*batch.requests, *(r for r, _ in given)), key=lambda r: r.key)
    return replace(batch, requests=tuple(requests))


def _merged(solved: tuple[RequestResult, ...], given: tuple[RequestResult, ...]) -> tuple[RequestResult, ...]:
    """The solver's answers and the model's own (adapters.contract.Taken.given) in key order, as
    a batch holding them all would report them (the solver answers in its batch's order, by key)."""
    return tuple(sorted((*solved, *given), key=lambda r: r.request))
