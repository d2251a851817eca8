"""A large input scheduled in independent parts at once, one per core, for the command's YAML and
JSON outputs (the complete desired state, whose text is its objects' texts joined in order).

A system that can cut its input (adapters.contract.Adapter.cut; Fleet's placements share nothing)
gives what every part reads (the clusters) and each part's own objects. The first part is loaded,
solved, checked and emitted here, each other one at the same time in a forked child
(adapters.run.forked.Stream), and every part's objects are rendered where they were made: a child
sends only what it wrote and its text. Exact or not at all: the parts' text is used only where
every part succeeded, no part's batch is coupled (model.Batch.separable), and the objects each
part reads or writes are its own. Otherwise (bad input, a checker failure, a clash, a coupled
batch) the caller schedules the whole input as one batch, which gives the answer, or the error,
a run without parts gives. A child that dies is redone here.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters.contract import Cut
from adapters.kube.manifests import Manifest
from adapters.registry import adapter, owned_by
from adapters.run import forked
from adapters.run.pipeline import Outcome, schedule_part
from solver import SolveOptions

__all__ = ["Items", "Parted", "schedule_items"]

# A run of objects -> their text in the output, in pieces (manifests.yaml_items, json_items).
Items = Callable[[Sequence[Mapping[str, Any]]], Iterable[bytes]]


@dataclass(frozen=True, slots=True)
class Parted:
    """Each part's text in the output, in order (the first made here as it is taken, the others
    passed on from their children), the first part's outcome, and how many objects the parts
    delete together (which the text, the objects to write, does not hold)."""

    runs: list[Iterable[bytes]]
    first: Outcome
    deletions: int


def schedule_items(
    manifests: Sequence[Manifest],
    *,
    now: datetime | None,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
    items: Items,
) -> Parted | None:
    """The output's text of the scheduled input in parts, or None where it is not cut: one
    worker, live progress to show (it follows one solve), polars at work in this process
    (forked.polars_idle; in a command's own process it is not yet), several systems, a system
    that does not cut or an input it does not cut, or a part that failed or clashed."""
    parts = forked.workers()
    # The parts solve with polars in forked children: only from a process where polars is idle.
    if parts < 2 or options.progress is not None or not forked.polars_idle():
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
    job = _Job(name, pieces, now or datetime.now(UTC).replace(microsecond=0), options, config, items)
    # A child says nothing while it solves: as long as the solve's own time limit, and more.
    streams = [
        forked.stream(_part_messages, (job, index), patience=options.time_limit)
        for index in range(1, len(pieces.own))
    ]
    taken: list[Iterator[bytes]] = []
    deletions = 0
    try:
        first = schedule_part(name, pieces.part(0), now=job.now, options=options, config=config)
        # The objects each part reads (the shared aside) or writes must be its own: then no
        # part's answer could have told another's apart (module note). Read while children work.
        seen = _identities(m.obj for m in pieces.own[0]) | _identities(first.apply)
        reads = [_identities(m.obj for m in own) for own in pieces.own[1:]]
        for each, read in zip(streams, reads, strict=True):
            messages = iter(each)
            taken.append(messages)
            status = marshal.loads(next(messages))
            if status is None:
                raise _Failed
            written, deleted = status
            deletions += deleted
            touched = read | written
            if not seen.isdisjoint(touched):
                raise _Failed
            seen |= touched
    except Exception:  # noqa: BLE001 - any failure: the whole run gives the answer or the error
        for messages in taken:
            messages.close()  # type: ignore[attr-defined]
        for each in streams[len(taken) :]:
            each.cancel()
        return None
    return Parted([items(first.apply), *taken], first, deletions + len(first.delete))


class _Failed(Exception):
    """A part failed, or it reads or writes an object another part reads or writes."""


@dataclass(frozen=True, slots=True)
class _Job:
    system: str
    cut: Cut
    now: datetime
    options: SolveOptions
    config: Mapping[str, Any] | None
    items: Items


def _part_messages(task: tuple[_Job, int]) -> Iterator[bytes]:
    """A part's status (None if it failed, else the objects it writes and how many it deletes),
    then its text."""
    job, index = task
    try:
        outcome = schedule_part(
            job.system, job.cut.part(index), now=job.now, options=job.options, config=job.config
        )
    except Exception:  # noqa: BLE001 - the parent schedules the whole input, which tells why
        yield marshal.dumps(None)
        return
    yield marshal.dumps((_identities(outcome.apply), len(outcome.delete)))
    # Made whole before the first piece goes: the pipe holds little, and the parent takes none
    # of it until its own part's text is written; sent piece by piece, this text would wait.
    yield from list(job.items(outcome.apply))


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
