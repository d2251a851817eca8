"""A large input scheduled in independent parts at once, one per core, for the command's outputs
that can be made from parts: the complete desired state (YAML, JSON), whose text is its objects'
texts joined in order, and the changes against the input (plan, diff), whose objects each part
compares with the objects it read.

A system that can cut its input (adapters.contract.Adapter.cut; Fleet's placements share nothing)
gives what every part reads (the clusters) and each part's own objects. The parts go in as many
contiguous runs as there are workers: the first run is loaded, solved, checked and rendered here,
each other one at the same time in a forked child (adapters.run.forked.Stream), a run's parts one
after another (a part's objects let go, its text held in a temporary file, before the next part
is read: a large file is cut in parts of bounded size, so that no process holds more than one
such part's objects), and every part's share of the output is rendered where it was made (a
Format): a child sends only what its parts read, wrote and deleted, the facts the output's join
needs (a plan's summary) and their text. Exact or not at all: the parts' text is used only where every part
succeeded, no part's batch is coupled (model.Batch.separable), the objects each part reads,
writes or deletes are its own, and the format can join the parts' facts into the whole's (a
plan's summary: pipeline.summary_of_cut). Otherwise (bad input, a checker failure, a clash, a
coupled batch) the caller schedules the whole input as one batch, which gives the answer, or the
error, a run without parts gives. A child that dies is redone here.

An input already read is cut as objects (schedule_in_parts); one large file is cut before it is
parsed, from a look at its bytes, and each part parses only its own documents
(schedule_file_in_parts): no process then holds, or waits for, the whole input's reading.
"""

from __future__ import annotations

import contextlib
import functools
import io
import marshal
import mmap
import os
import stat
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from adapters.contract import Cut
from adapters.kube import codec, stubs
from adapters.kube.manifests import (
    Manifest,
    from_numbered,
    json_items,
    json_lead_list,
    orjson_items,
    write_json_list_runs,
    write_yaml_runs,
    yaml_items,
)
from adapters.registry import adapter, owned_by, reads, system, systems
from adapters.run import forked, heap
from adapters.run.changes import changed_objects, diff_sections
from adapters.run.pipeline import Outcome, schedule_part, summary_of_cut
from solver import SolveOptions

__all__ = ["FORMATS", "Format", "Parted", "schedule_file_in_parts", "schedule_in_parts"]

Write = Callable[[bytes], object]
Pieces = Iterable[bytes | memoryview]
# A part's share of an output: the facts the join needs (marshal-able), and its text in sections.
Share = tuple[Any, list[Pieces]]
# Every part's sections, in order -> the writer of the whole output.
Writer = Callable[[Write], None]


@dataclass(frozen=True, slots=True)
class Format:
    """An output made in parts. `share(outcome, manifests)` renders one part's share where the
    part ran, from its outcome and the manifests it read; `join(facts, sections)` takes every
    part's facts and sections, in the parts' order, and gives the writer of the whole output
    (every part's first section in order, then every part's second, ...), or None where the
    parts' facts cannot make one batch's text exactly."""

    share: Callable[[Outcome, Sequence[Manifest]], Share]
    join: Callable[[list[Any], list[list[Pieces]]], Writer | None]


@dataclass(frozen=True, slots=True)
class Parted:
    """The output's writer (the first part's text made here as it is written, the others passed
    on from their children), the first part's outcome, how many objects the parts delete
    together (which the objects to write, YAML's and JSON's text, do not hold), and whether the
    wall clock cut any part's search (which they do not say either)."""

    write: Writer
    first: Outcome
    deletions: int
    time_limited: bool


def schedule_in_parts(
    manifests: Sequence[Manifest],
    *,
    now: datetime | None,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
    output: Format,
) -> Parted | None:
    """The output of the scheduled input made in parts, or None where it is not cut: one worker,
    live progress to show (it follows one solve), polars at work in this process
    (forked.polars_idle; in a command's own process it is not yet), several systems, a system
    that does not cut or an input it does not cut, or a part that failed or clashed, or facts
    the format cannot join."""
    parts = forked.workers()
    # The parts solve with polars in forked children: only from a process where polars is idle.
    if parts < 2 or options.progress is not None or not forked.polars_idle():
        return None
    if not _one_cutting_system(manifests):  # spared owned_by's checks, which the whole run makes
        return None
    owned = owned_by(list(manifests))
    cut = adapter(next(iter(owned))).cut if len(owned) == 1 else None
    if cut is None:
        return None
    ((name, objects),) = owned.items()
    try:
        pieces = cut(objects, parts)
    except Exception:  # noqa: BLE001 - bad input: the whole run reports it, as it would
        return None
    if pieces is None or len(pieces.own) < 2:
        return None
    job = _Job(name, len(pieces.own), functools.partial(_cut_part, pieces), now, options, config, output)
    return _scheduled(job, shared=pieces.shared)


def _one_cutting_system(manifests: Sequence[Manifest]) -> bool:
    """Whether the objects' kinds are the own kinds of one system, one that cuts: a look at each
    object's kind and apiVersion (validated on reading), as owned_by routes them."""
    types = {(m.obj["kind"], m.obj["apiVersion"].rpartition("/")[0]) for m in manifests}
    owners = {s.name for s in systems() for kind, group in types if group in s.kinds.get(kind, ())}
    return len(owners) == 1 and system(owners.pop()).cut is not None


def _cut_part(pieces: Cut, index: int) -> tuple[list[Manifest], list[Manifest]]:
    return pieces.part(index), pieces.own[index]


def _scheduled(job: _Job, *, shared: Sequence[Manifest] = ()) -> Parted | None:
    """The job's parts scheduled at once, in as many contiguous runs as there are workers: the
    first run here, each other one in a forked child, each run's parts one after another (a part's
    objects let go, its text held in a temporary file, before the next is read); their output, or
    None where a part failed, clashed or the format cannot join them. `shared`: the objects every
    part reads, already read here (schedule_in_parts): loaded once before the fork (_shared_loaded)."""
    if not shared:  # a file read in parts: each run reads the shared objects itself
        return _scheduled_runs(job)
    with heap.reusing():  # kept here until the runs are made, and in every forked run
        if not _shared_loaded(job, shared):
            return None
        return _scheduled_runs(job)


def _shared_loaded(job: _Job, shared: Sequence[Manifest]) -> bool:
    """The objects every part reads loaded once by the system's own load, before the runs fork:
    what its load makes of them and reuses (heap.reused: Fleet's 10,000 clusters, 0.28 CPU s at
    10,000 x 2,000) is then made here once, and every run, forked with it, finds it made instead of
    making it again. False where the load refuses them: a part's load would refuse them too, and
    the whole input is scheduled as one batch, which gives the error."""
    options = job.options
    configured = {"config": job.config} if system(job.system).config_read is not None else {}
    try:
        with heap.paused_gc():
            adapter(job.system).load(list(shared), now=job.now, seed=options.seed, **configured)
    except Exception:  # noqa: BLE001 - bad input: the whole run reports it, as it would
        return False
    return True


def _scheduled_runs(job: _Job) -> Parted | None:
    # numpy.ma, which every part's solve imports (np.union1d's np.unique asks np.ma.is_masked):
    # imported here once before the runs fork, not again by each forked run (0.03 CPU s each).
    import numpy.ma  # noqa: F401, ICN001, PLC0415

    options = job.options
    runs = [tuple(run) for run in forked.split_evenly(range(job.parts), forked.workers())]
    # Each child's text goes into a file made here before the fork, which this process reads
    # where the child wrote it (_Spill): not through the pipe, which would copy it twice more.
    spills = [_Spill.made() for _ in runs[1:]]
    # A child says nothing while it solves its run: as long as the solves' own time limits, and more.
    streams = [
        forked.stream(_part_messages, (job, run, spill), patience=options.time_limit * len(run))
        for run, spill in zip(runs[1:], spills, strict=True)
    ]
    taken: list[Iterator[bytes]] = []
    try:
        every_fact: list[Any] = []
        every_section: list[list[Pieces]] = []
        deletions = 0
        cut = False
        # The objects each part reads (the shared aside), writes or deletes must be its own: then
        # no part's answer could have told another's apart (module note).
        seen = np.empty(0, dtype=np.int64)
        *earlier, last = runs[0]
        with heap.reusing():  # what the run's parts share is read once (heap.reused)
            for index in earlier:
                status, sections = _made(job, index)[1:]
                seen, deletions = _claimed(seen, deletions, status)
                cut |= status[2]
                every_fact.append(status[-1])
                every_section.append([_held(section) for section in sections])
                del sections
                _let_go()
            # The run's last part: its text made as it is written (its objects kept until then).
            first, status, sections = _made(job, last)
        seen, deletions = _claimed(seen, deletions, status)
        cut |= status[2]
        every_fact.append(status[-1])
        every_section.append(sections)
        for each, spill in zip(streams, spills, strict=True):
            messages = iter(each)
            taken.append(messages)
            statuses = marshal.loads(_statuses(messages, spill))
            if statuses is None:
                raise _Failed
            for status in statuses:
                seen, deletions = _claimed(seen, deletions, status)
                cut |= status[2]
                every_fact.append(status[-1])
            # The messages are taken in order: each part's first section, then its second, ...
            every_section += [[_section(messages, spill) for _ in sections] for _ in statuses]
        write = job.output.join(every_fact, every_section)
        if write is None:
            raise _Failed
        write = _sending(write)
    except Exception:  # noqa: BLE001 - any failure: the whole run gives the answer or the error
        for messages in taken:
            messages.close()  # type: ignore[attr-defined]
        for each in streams[len(taken) :]:
            each.cancel()
        return None
    return Parted(write, first, deletions, cut)


def _let_go() -> None:
    """What a part made and no later part reads, given back before the next part is read: the
    YAML writer's memos of its strings (codec.forget_memos), then the allocator's free pages
    (heap.trimmed). Kept, a worker's next part would add to the pages they pin."""
    codec.forget_memos()
    heap.trimmed()


# A part's status: the objects it reads (the shared aside), writes and deletes (_hashed), how
# many it deletes, and its facts (marshal-able: a child sends it).
Status = tuple[bytes, int, bool, Any]


def _made(job: _Job, index: int) -> tuple[Outcome, Status, list[Pieces]]:
    """A part read and scheduled: its outcome, its status and its share's sections, to be
    rendered before the outcome is let go (the sections hold only what they render)."""
    read, own = job.read(index)
    outcome = schedule_part(job.system, read, now=job.now, options=job.options, config=job.config)
    facts, sections = job.output.share(outcome, read)
    touched = _identities(m.obj for m in own) | _identities(outcome.apply) | _deleted(outcome.delete)
    cut = bool(outcome.summary.get("time_limited"))
    return outcome, (_hashed(touched), len(outcome.delete), cut, facts), sections


def _hashed(identities: set[Any]) -> bytes:
    """The identities' hashes, sorted, as 64-bit integers' bytes: a child sends 8 bytes an object,
    not its names (tens of MB marshalled, read and joined in sets at 10,000 x 50,000, on the path
    the wall follows, after every part is made). Two identities of one hash are taken for one,
    which at worst sends the input to one batch (exact either way). The hashes agree between the
    processes: the children are forked, and share this process's hash seed."""
    return _distinct(np.fromiter(map(hash, identities), dtype=np.int64, count=len(identities))).tobytes()


def _claimed(seen: np.ndarray, deletions: int, status: Status) -> tuple[np.ndarray, int]:
    """What the parts so far read, write or delete with this part's (_hashed, sorted), and how
    many they delete; _Failed where this part touches an object an earlier one did."""
    touched, deleting, _, _ = status
    # Both hold each hash once: one that is in both is twice in the two sorted together (which
    # takes a hundredth of np.union1d's time with a million hashes).
    joined = np.concatenate((seen, np.frombuffer(touched, dtype=np.int64)))
    joined.sort()
    if (joined[1:] == joined[:-1]).any():
        raise _Failed
    return joined, deletions + deleting


def schedule_file_in_parts(
    path: str,
    *,
    now: datetime | None,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
    output: Format,
) -> Parted | None:
    """:func:`schedule_in_parts` of one (large) file, read in its parts: no process parses or
    holds the whole input. A forked child looks at the file (adapters.kube.
    stubs: each document's place and the fields a cut reads) and cuts the stubs as the system cuts
    objects; each part then parses, checks and validates only its own documents and the shared
    ones, the first here, the others in forked children. Exact or not at all: each part compares
    every document it parses with its stub, parses the others it is given (the first part: those
    of no system, or whose stub the look could not read) and finds them of no system, and
    validates its objects as the whole file's reading and routing would (manifests.from_objects,
    registry.owned_by); otherwise, and where the file is not one to read so (not a regular file,
    not a YAML stream or a JSON List the look reads, not one system's that cuts), None:
    the caller reads and schedules the file as ever, which gives the answer, or the error."""
    workers = forked.workers()
    if workers < 2 or options.progress is not None or not forked.polars_idle():
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    # Each worker's share in parts of at most _PART_BYTES of the file, made one after another.
    parts = workers * max(1, -(-found.st_size // (workers * _PART_BYTES)))
    planned = forked.background(_planned, (path, parts)).result()  # the look's memory not kept here
    if not planned:
        return None
    name, json, shares = marshal.loads(planned)
    # Let go before the parts fork: held here, it would be held by every child too (tens of MB).
    del planned
    read = functools.partial(_file_part, path, name, json, shares)
    return _scheduled(_Job(name, len(shares), read, now, options, config, output))


# The most of a file one part reads (its own documents; every part also reads the shared ones):
# a part's objects, in and out, are held until its text is made, several times the file's bytes.
# 96 MB: since a worker forgets its writer's memos between parts, Fleet 10,000 x 50,000 holds
# under 2 GB in all (PSS 1.8 GB; 2.2 GB at 192 MB) for about 2% more wall (docs/performance.md).
_PART_BYTES = 96 << 20


def _planned(task: tuple[str, int]) -> bytes:
    """The file's parts (packed by marshal; empty where it is not read in parts): its system's
    name, whether it is JSON, and per part the documents it parses (their numbers and spans: the
    first part's include those of no system, and those the look could not read), the order it
    reads the system's objects in (as Cut.part gives them), which of them are its own, and their
    stubs."""
    path, parts = task
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = stubs.look(data, path)
        if found is None:
            return b""
        routed = _routed(found.objects)
        if routed is None:
            return b""
        name, mine, others = routed
        # Each stub's manifest numbered by its document (its index less one), as the cut keeps it.
        objects = [Manifest(found.objects[i], path, i + 1) for i in mine]
        pieces = _lighter_here(adapter(name).cut, objects, parts)  # type: ignore[arg-type]
        if pieces is None or len(pieces.own) < 2:
            return b""
        shares = []
        for index in range(len(pieces.own)):
            order = [m.index - 1 for m in pieces.part(index)]
            own = [m.index - 1 for m in pieces.own[index]]
            documents = _distinct(np.asarray([*order, *(others if index == 0 else ())], dtype=np.int64))
            starts, ends = found.starts[documents].tolist(), found.ends[documents].tolist()
            expected = [found.objects[i] for i in order]
            # Each part's share packed alone: a part unpacks its own only.
            shares.append(marshal.dumps((documents.tolist(), starts, ends, order, own, expected)))
        return marshal.dumps((name, found.json, shares))
    except Exception:  # noqa: BLE001 - any surprise: the file is read as ever, which tells why
        return b""


def _distinct(numbers: np.ndarray) -> np.ndarray:
    """The numbers sorted, each once: np.unique's answer in a tenth of its time (numpy 2.4 finds
    an integer array's distinct values by hashing, then sorts them: 0.24 CPU s of the look's cut
    at Fleet 10,000 x 50,000, on the path every part waits for). Of none, none (not an IndexError)."""
    numbers = np.sort(numbers)
    first = np.ones(len(numbers), dtype=bool)
    first[1:] = numbers[1:] != numbers[:-1]
    return numbers[first]


def _lighter_here(
    cut: Callable[[list[Manifest], int], Cut | None], objects: list[Manifest], parts: int
) -> Cut | None:
    """The system's cut in `parts` parts, the first run's (this process's: _scheduled) parts about
    1% of the work lighter than each other run's: this process also claims the statuses and passes
    every other run's text on as it writes (Fleet 10,000 x 50,000: 32.4 CPU s after the fork
    against its child's 31.3). Made of a finer cut (_PIECES a run), adjacent pieces joined: a part
    of pieces in order reads and writes what they do, and its text is theirs joined (the checks of
    the parts hold as for any cut). The plain cut where the finer one is not had."""
    workers = max(1, forked.workers())  # the runs, each of parts // workers parts (_scheduled)
    pieces = _PIECES * workers
    fine = cut(objects, pieces) if parts % workers == 0 else None
    if fine is None or len(fine.own) != pieces:
        return cut(objects, parts)
    # The first run _PIECES - 1 pieces, the last _PIECES + 1, any between _PIECES, in order.
    sizes = [_PIECES - 1] + [_PIECES] * (workers - 1)
    sizes[-1] += 1
    own, start = [], 0
    for size in sizes:
        for part in forked.split_evenly(fine.own[start : start + size], parts // workers):
            own.append([m for piece in part for m in piece])
        start += size
    return Cut(fine.shared, own)


# The pieces of a finer cut a run of parts is made of (_lighter_here).
_PIECES = 50


def _routed(objects: list[dict[str, Any] | None]) -> tuple[str, list[int], list[int]] | None:
    """The one system the stubs' objects are of (one that cuts), its documents' numbers and the
    others' (no system's, or not read by the look); None where no system, or several, own some."""
    mine: dict[str, list[int]] = {}
    others: list[int] = []
    # Per kind and apiVersion, the list its documents go into: its system's, or the others'.
    into: dict[tuple[Any, Any], list[int]] = {}
    for i, stub in enumerate(objects):
        if stub is None:
            others.append(i)
            continue
        key = (stub["kind"], stub["apiVersion"])
        found = into.get(key)
        if found is None:
            owner = _owner(*key)
            found = into[key] = others if owner is None else mine.setdefault(owner, [])
        found.append(i)
    if len(mine) != 1:
        return None
    ((name, numbers),) = mine.items()
    if system(name).cut is None:
        return None
    return name, numbers, others


def _owner(kind: Any, api_version: Any) -> str | None:
    """The system whose own kind this is (None: no system's; a shared kind is no system's own,
    and its documents go with the others, judged where they are parsed)."""
    if type(kind) is not str or type(api_version) is not str:
        return None
    group = api_version.rpartition("/")[0]
    owners = [s.name for s in systems() if group in s.kinds.get(kind, ())]
    return owners[0] if len(owners) == 1 else None


def _file_part(
    path: str, name: str, json: bool, shares: list[Any], index: int
) -> tuple[list[Manifest], list[Manifest]]:
    """The part's objects (every one it reads, in its cut's order, and its own), parsed from the
    file, compared with their stubs and validated; _Failed where anything differs from what the
    whole file's reading would give (module note)."""
    documents, starts, ends, order, own, expected = marshal.loads(shares[index])
    # The documents every part reads (the cut's shared objects) are parsed once by a process that
    # makes several parts one after another (heap.reusing), each alone as every document is.
    shared = sorted(set(order).difference(own))
    kept_as = ("parsed", path, json, tuple(shared))
    kept = heap.recalled(kept_as)
    spans = zip(documents, starts, ends, strict=True)
    wanted = [(i, a, b) for i, a, b in spans if kept is None or i not in kept]
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        parsed = stubs.parse(data, [(a, b) for _, a, b in wanted], json)
    if parsed is None:
        raise _Failed
    by_number = dict(zip([i for i, _, _ in wanted], parsed, strict=True))
    del parsed
    if kept is None:
        heap.remember(kept_as, {i: by_number[i] for i in shared})
    else:
        by_number.update(kept)
    # Numbered as the whole file's reading numbers them: a YAML stream's documents, a List's items
    # all the List's (no error is worded here: any sends the file to that reading).
    made = from_numbered(((1 if json else i + 1, by_number[i]) for i in documents), path, reads=reads)
    by_object = {id(m.obj): m for m in made}
    found = [by_object.pop(id(by_number[i]), None) for i in order]
    read = [m for m in found if m is not None]
    # Compared one at a time: a list of every object's view would be held at once.
    if len(read) != len(found) or any(stubs.view(m.obj) != e for m, e in zip(read, expected, strict=True)):
        raise _Failed
    del expected
    # A document the look could not read, or read as no system's, that is one's after all.
    if owned_by(list(by_object.values())):
        raise _Failed
    owned = owned_by(read)  # each object's metadata judged as the whole input's would be
    if list(owned) != [name] or len(owned[name]) != len(read):
        raise _Failed
    mine = dict(zip(order, read, strict=True))
    return read, [mine[i] for i in own]


class _Failed(Exception):
    """A part failed, reads, writes or deletes an object another part reads, writes or deletes,
    or the parts' facts do not join."""


@dataclass(frozen=True, slots=True)
class _Job:
    """Parts to schedule: the system, how many parts, what each reads (`read(index)`: every
    object it reads, and those of them that are its own, the shared aside), and how."""

    system: str
    parts: int
    read: Callable[[int], tuple[list[Manifest], list[Manifest]]]
    now: datetime | None
    options: SolveOptions
    config: Mapping[str, Any] | None
    output: Format

    def __post_init__(self) -> None:
        if self.now is None:  # every part judges by one clock
            object.__setattr__(self, "now", datetime.now(UTC).replace(microsecond=0))


def _part_messages(task: tuple[_Job, tuple[int, ...], _Spill | None]) -> Iterator[bytes]:
    """A run of parts made one after another: their statuses (None if one failed), then their
    texts, part by part: each section's place in the spill, or (no spill) its pieces, then an
    empty message. A part's text is made before the next part is read; the last part's once the
    statuses are sent, as the parent decides on them. With a spill the statuses go there too, and
    only their place through the pipe: megabytes at 10,000 x 50,000 (every object each part reads
    and writes), through the pipe's 64 KB they would hold this child until the parent, done with
    its own parts, took them, and the last part's text would wait as long."""
    job, run, spill = task
    keep = _held if spill is None else spill.keep

    def sent(message: bytes) -> bytes:
        return message if spill is None else _PLACE.pack(*spill.keep([message]))

    statuses, held = [], []
    try:
        with heap.reusing():  # what the run's parts share is read once (heap.reused)
            for index in run:
                status, sections = _made(job, index)[1:]
                statuses.append(status)
                held.append(sections if index == run[-1] else [keep(section) for section in sections])
                del sections
                if index != run[-1]:
                    _let_go()
    except Exception:  # noqa: BLE001 - the parent schedules the whole input, which tells why
        yield sent(marshal.dumps(None))
        return
    yield sent(marshal.dumps(statuses))
    # Made whole before the first piece goes: the pipe holds little, and the parent takes none
    # of it until the parts before this run are written; sent piece by piece, this text would wait.
    held[-1] = [keep(section) for section in held[-1]]
    for sections in held:
        for section in sections:
            if spill is None:
                for piece in section:  # a held region's bytes, mapped, through the pipe
                    yield from piece.views() if type(piece) is _Region else (piece,)
                yield _END_OF_SECTION
            else:
                yield _PLACE.pack(*section)


def _held(pieces: Pieces) -> Iterable[bytes | memoryview | _Region]:
    """The pieces made now and held until they are taken: in a temporary file (a large part's text
    is hundreds of MB, which this process need not keep while the parent writes the parts before
    it), given back as one _Region of it (sent from the file, or mapped: _sending); in memory
    where no file can be had. No piece is empty. A write that fails fails the part, which the
    parent then makes itself (forked.Stream)."""
    try:
        spill = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _read_back, which reads it
    except OSError:
        return [piece for piece in pieces if piece]
    size = sum(spill.write(piece) for piece in pieces)
    spill.flush()
    return _read_back(spill, size)


def _read_back(spill: Any, size: int) -> Iterator[_Region]:
    with spill:
        if size:
            yield _Region.checked(spill.fileno(), 0, size)


# The most of a held text mapped at a time (a multiple of the mapping granularity).
_WINDOW = 8 << 20


def _mapped(fd: int, offset: int, size: int) -> Iterator[memoryview]:
    """The file's bytes from `offset` on, `size` of them, a window at a time, as views of the
    file mapped: the writer passes the file's own pages on, where reading them (os.pread) would
    first copy each into this process. A window is unmapped once its view is let go, so no more
    than one is held while the text is written. OSError where the file is shorter."""
    end = offset + size
    if os.fstat(fd).st_size < end:
        raise OSError("a part's held text came back short")
    while offset < end:
        base = offset - offset % mmap.ALLOCATIONGRANULARITY
        stop = min(end, base + _WINDOW)
        window = mmap.mmap(fd, stop - base, access=mmap.ACCESS_READ, offset=base)
        yield memoryview(window)[offset - base :]
        offset = stop


class _Region:
    """A held text's bytes in a file (`size` of them from `offset`: never empty), a piece of an
    output that _sending writes: by the kernel (os.sendfile) where the output is a file
    descriptor's, else as views of the file mapped (_mapped). Sent, 2.3 GB of text at Fleet
    10,000 x 50,000 (the command's held parts and its child's) are neither mapped, faulted in
    nor copied through this process, on the path the wall follows once every part is made."""

    __slots__ = ("fd", "offset", "size")

    def __init__(self, fd: int, offset: int, size: int) -> None:
        self.fd, self.offset, self.size = fd, offset, size

    @classmethod
    def checked(cls, fd: int, offset: int, size: int) -> _Region:
        """The region, or OSError where the file is shorter (before any of it is written)."""
        if os.fstat(fd).st_size < offset + size:
            raise OSError("a part's held text came back short")
        return cls(fd, offset, size)

    def __len__(self) -> int:
        return self.size

    def views(self, skip: int = 0) -> Iterator[memoryview]:
        return _mapped(self.fd, self.offset + skip, self.size - skip)


def _sending(writer: Writer) -> Writer:
    """The output's writer, its _Region pieces sent (_sent); every other piece passed to `write`."""
    return lambda write: writer(_sent(write))


def _sent(write: Write) -> Write:
    """`write`, where a _Region piece is copied by the kernel from its file to the output's file
    descriptor when `write` is a binary file's own (sys.stdout.buffer.write: its buffer flushed
    first, so the bytes stay in order), else written as its file's mapped views. Where the kernel
    will not (an output opened to append, a stream it cannot send to: EINVAL, ENOSYS, EAGAIN, ...)
    the rest of the region, and every later one, goes the mapped way: the same bytes. A reader
    gone (EPIPE) is the error it would be for `write`."""
    owner = getattr(write, "__self__", None)
    target: list[Any] = []
    if (
        hasattr(os, "sendfile")
        and isinstance(owner, io.BufferedWriter | io.FileIO | io.BufferedRandom)
        and write == owner.write
    ):
        with contextlib.suppress(OSError, ValueError):
            target.append((owner, owner.fileno()))

    def written(piece: Any) -> object:
        if type(piece) is not _Region:
            return write(piece)
        done = 0
        if target:
            stream, fd = target[0]
            stream.flush()
            try:
                done = _sendfile(fd, piece)
            except BrokenPipeError:
                raise
            except OSError as err:
                target.clear()  # the mapped way from now on
                done = err.sent if isinstance(err, _SentInPart) else 0
        for view in piece.views(done):
            write(view)
        return piece.size

    return written


class _SentInPart(OSError):
    """os.sendfile stopped after sending some of a region: how much (`sent`)."""

    def __init__(self, sent: int) -> None:
        super().__init__("a region sent in part")
        self.sent = sent


def _sendfile(fd: int, region: _Region) -> int:
    """All of the region sent to `fd` by the kernel: its size; _SentInPart (an OSError carrying
    how much was sent) where the kernel stops before its end, or OSError where it sends none."""
    offset, end = region.offset, region.offset + region.size
    while offset < end:
        try:
            sent = os.sendfile(fd, region.fd, offset, end - offset)
        except BrokenPipeError:
            raise
        except OSError as err:
            if offset == region.offset:
                raise
            raise _SentInPart(offset - region.offset) from err
        if sent == 0:  # the file ended (checked before: it cannot; the mapped way then says so)
            raise _SentInPart(offset - region.offset)
        offset += sent
    return region.size


_END_OF_SECTION = b""  # a message no section's piece is (empty pieces are not sent)


def _statuses(messages: Iterator[bytes], spill: _Spill | None) -> bytes:
    """A child's first message, its parts' statuses packed (_part_messages): as it came, or read
    from where the child wrote it in the spill."""
    if spill is None:
        return next(messages)
    return b"".join(spill.read_back(messages))


def _section(messages: Iterator[bytes], spill: _Spill | None) -> Pieces:
    """The pieces of a child's next section, as they arrive (no spill), or read from where the
    child wrote them in the spill. Taken when first iterated: the sections are taken in order as
    the output is written, and this process's own last part is made as it is written, while the
    child may still be making its text."""
    if spill is None:
        return iter(messages.__next__, _END_OF_SECTION)
    return spill.regions(messages)


class _Spill:
    """A temporary file made before a child is forked, shared by both: the child writes each of
    its sections' text at the file's end (:meth:`keep`) and sends only where it stands; this
    process reads it from there (:meth:`read_back`). Only one process writes at a time: the
    child, or this process where it redoes the child's run (forked.Stream), after it stopped."""

    def __init__(self, file: Any) -> None:
        self._file = file  # kept open while a section may still be read from it
        self._fd = file.fileno()

    @classmethod
    def made(cls) -> _Spill | None:
        """A new spill, or None where no temporary file can be had (the text then goes through
        the pipe)."""
        try:
            return cls(tempfile.TemporaryFile())  # noqa: SIM115 - open while its sections are read
        except OSError:
            return None

    def keep(self, pieces: Pieces) -> tuple[int, int]:
        """Write the pieces at the file's end: their offset and size. A write that fails fails
        the part, which the parent then makes itself (forked.Stream)."""
        fd = self._fd
        start = end = os.lseek(fd, 0, os.SEEK_END)
        for piece in pieces:
            view = memoryview(piece)
            while view:
                written = os.pwrite(fd, view, end)
                view = view[written:]
                end += written
        return start, end - start

    def read_back(self, messages: Iterator[bytes]) -> Iterator[memoryview]:
        """The section whose place is the child's next message, mapped a window at a time."""
        offset, size = _PLACE.unpack(next(messages))
        yield from _mapped(self._fd, offset, size)

    def regions(self, messages: Iterator[bytes]) -> Iterator[_Region]:
        """:meth:`read_back`'s section as one _Region of the file (none where it is empty)."""
        offset, size = _PLACE.unpack(next(messages))
        if size:
            yield _Region.checked(self._fd, offset, size)


_PLACE = struct.Struct("<qq")  # a section's offset and size in a child's spill


def _identities(objects: Iterable[Mapping[str, Any]]) -> set[Any]:
    """Objects' namespaces and names, kinds aside: objects of two kinds that share both are taken
    for one, which at worst sends the input to one batch (exact either way), and is cheaper."""
    out: set[Any] = set()
    add = out.add
    for obj in objects:
        metadata = obj["metadata"]
        namespace = metadata.get("namespace")
        add((namespace, metadata["name"]) if namespace else metadata["name"])
    return out


def _deleted(references: Iterable[Mapping[str, str]]) -> set[Any]:
    """:func:`_identities` of the objects deleted (adapters.kube.manifests.object_reference)."""
    return {(r["namespace"], r["name"]) if r.get("namespace") else r["name"] for r in references}


# ------------------------------------------------------------------------------------ the formats


def _in_order(sections: list[list[Pieces]]) -> Iterator[Pieces]:
    """Every part's first section, in the parts' order, then every part's second, ..."""
    for index in range(len(sections[0])):
        for part in sections:
            yield part[index]


def _passed(sections: list[list[Pieces]], write: Write) -> None:
    for section in _in_order(sections):
        for piece in section:
            write(piece)


def _objects_share(items: Callable[[Sequence[Mapping[str, Any]]], Pieces]) -> Callable[..., Share]:
    """The objects to write, rendered by `items`: no facts, one section."""
    return lambda outcome, manifests: (None, [items(outcome.apply)])


def _objects_joined(write_runs: Callable[[Iterable[Pieces], Write], None]) -> Callable[..., Writer]:
    return lambda facts, sections: functools.partial(write_runs, list(_in_order(sections)))


def _plan_share(outcome: Outcome, manifests: Sequence[Manifest]) -> Share:
    """The part's changed objects (adapters.run.changes.plan_of) as orjson writes them, and as
    facts its summary, its counts, its deletions and whether orjson wrote every piece."""
    changed, unchanged = changed_objects(outcome.apply, manifests)
    items = orjson_items([obj for _, obj in changed])
    facts = (outcome.summary, len(changed), unchanged, outcome.delete, items is not None)
    return facts, [items or []]


def _plan_joined(facts: list[Any], sections: list[list[Pieces]]) -> Writer | None:
    """plan_of's document of the parts: their changed objects in order, their deletions in
    order, one batch's summary (None where the summaries do not join, or where json would write
    the document: orjson's pieces would then spell its floats otherwise)."""
    summary = summary_of_cut([summary for summary, *_ in facts])
    if summary is None or not all(written for *_, written in facts):
        return None
    summary["changed"] = sum(changed for _, changed, *_ in facts)
    summary["unchanged"] = sum(unchanged for _, _, unchanged, *_ in facts)
    delete = [ref for _, _, _, deleted, _ in facts for ref in deleted]
    write_document = json_lead_list("apply", {"delete": delete, "summary": summary})
    if write_document is None:
        return None
    return functools.partial(write_document, [part[0] for part in sections])


def _diff_share(outcome: Outcome, manifests: Sequence[Manifest]) -> Share:
    """The part's diffs (adapters.run.changes.diff_of): its objects written, then its deletions."""
    written, deleted = diff_sections(outcome.apply, outcome.delete, manifests)
    return None, [_utf8(written), _utf8(deleted)]


def _utf8(texts: list[str], size: int = 1 << 20) -> list[bytes]:
    """The texts joined, in UTF-8 pieces of about `size` characters."""
    pieces, run, held = [], [], 0
    for text in texts:
        run.append(text)
        held += len(text)
        if held >= size:
            pieces.append("".join(run).encode("utf-8"))
            run, held = [], 0
    if run:
        pieces.append("".join(run).encode("utf-8"))
    return pieces


# The command's outputs made in parts, by name (adapters.cli.main's -o).
FORMATS = {
    "yaml": Format(_objects_share(yaml_items), _objects_joined(write_yaml_runs)),
    "json": Format(_objects_share(json_items), _objects_joined(write_json_list_runs)),
    "plan": Format(_plan_share, _plan_joined),
    "diff": Format(_diff_share, lambda facts, sections: functools.partial(_passed, sections)),
}
