"""kcp v0.5's kept child (adapters.kcp.v05.plan_kept; adapters.contract.System.load_kept): a child
forked by the load plans the last namespaces and keeps them, judges the input's metadata while
this process solves, then gets its units' answers and makes its namespaces' part of `-o plan`.
The plan, the requests and the document are the one-process run's, whatever the child does: a
child that cannot start, dies at any step or hangs has its work done here."""

from __future__ import annotations

import marshal
import os
import signal
import time
from collections.abc import Iterator

import pytest

from adapters.generate.hubs import generate
from adapters.kcp import load as kcp_load
from adapters.kcp import v05
from adapters.kcp.load import _generation, _index, _world
from adapters.kube.manifests import from_objects
from adapters.registry import reads
from adapters.run import forked, pipeline
from model import Result
from solver import SolveOptions, solve
from tests.fixtures import kcp
from tests.test_plan_shared import NOW, bad_finalizer, hub, ordinary_or_error, shared_or_error


@pytest.fixture
def kept(monkeypatch) -> list[str]:
    """Every v0.5 input keeps a child (from its third namespace on); what became of each Kept
    part: "child" (its objects came from the child) or "here" (made in this process)."""
    monkeypatch.setattr(kcp_load, "KEPT_LEAST", 0)
    monkeypatch.setattr(kcp_load, "KEPT_FROM", 0.3)
    fates: list[str] = []
    part, emitted = v05.Kept.part, v05.Kept.emitted

    def spied_part(self):
        fates.append("child")
        return part(self)

    def spied_emitted(self):
        fates[-1:] = ["here"]
        return emitted(self)

    monkeypatch.setattr(v05.Kept, "part", spied_part)
    monkeypatch.setattr(v05.Kept, "emitted", spied_emitted)
    return fates


def world_of(objects: list[dict]) -> v05.World:
    manifests = from_objects(objects, "<objects>", reads=reads)
    indexed = _index(manifests)
    return _world(indexed, _generation(indexed), NOW, 0)


@pytest.mark.parametrize("size", [(40, 120), (60, 300)])
def test_the_kept_childs_part_is_the_plans_own(size, kept, monkeypatch) -> None:
    """(60 x 300: a Namespace the child writes anew whose kept unit's answer keeps its cluster.)"""
    objects = generate("kcp", *size, seed=3, now=NOW, generation="v0.5")
    shared = shared_or_error(objects, monkeypatch)
    assert kept == ["child"]
    assert shared == ordinary_or_error(objects, monkeypatch)
    assert b'  "apply": [' in shared and len(shared) > 1000


def test_the_plan_with_a_kept_child_is_the_whole_plan(monkeypatch) -> None:
    """The requests (with their order), the load (its keys in order) and the units' keys."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    world = world_of(hub("v0.5"))
    whole = v05.plan(world)
    for start in (0, 7, len(world.namespaces) // 2, len(world.namespaces)):
        planned, part = v05.plan_kept(world_of(hub("v0.5")), start, pipeline._Compared({}))
        assert part is not None
        assert planned.requests == whole.requests
        assert list(planned.load.items()) == list(whole.load.items())
        mine = [p.namespace.key for p in planned.namespaces]
        assert mine == [p.namespace.key for p in whole.namespaces][: len(mine)]
        assert [u.key for u in part.units] == [u.key for p in whole.namespaces[len(mine) :] for u in p.units]
        part.cancel()


def _dies(step: int, how: str):
    """The kept child's steps, the child killed (or hung) at `step`: before its units (0), before
    its verdict (1), before it takes its answers (2), before its objects (3)."""
    child = v05._kept_child

    def die() -> None:
        if how == "hang":
            time.sleep(3600)
        os.kill(os.getpid(), signal.SIGKILL)

    def dying(task, receive) -> Iterator[bytes]:
        def received() -> bytes:
            if step == 2:
                die()
            return receive()

        stop = {0: 0, 1: 1, 3: 2}.get(step)
        for sent, message in enumerate(child(task, received)):
            if sent == stop:
                die()
            yield message

    return dying


@pytest.mark.parametrize("step", [0, 1, 2, 3])
@pytest.mark.parametrize("how", ["killed", "hang"])
def test_a_kept_child_killed_or_hung_at_any_step_is_redone_here(step, how, kept, monkeypatch) -> None:
    """Before its units (all planned here, no Kept part), before its verdict (made here too),
    before its answers or before its objects (its objects made here)."""
    monkeypatch.setattr(forked, "STALL_SECONDS", 0.5)
    monkeypatch.setattr(v05, "_kept_child", _dies(step, how))
    expected = ordinary_or_error(hub("v0.5"), monkeypatch)
    assert shared_or_error(hub("v0.5"), monkeypatch) == expected
    assert kept == ([] if step == 0 else ["here"])


def test_no_child_plans_it_all_here(kept, monkeypatch) -> None:
    monkeypatch.setattr(forked, "_start", lambda func, item, framed=False: None)
    assert shared_or_error(hub("v0.5"), monkeypatch) == ordinary_or_error(hub("v0.5"), monkeypatch)
    assert kept == []


def test_bad_metadata_and_a_rejected_result_are_the_ordinary_errors(kept, monkeypatch) -> None:
    """The metadata's verdict is the kept child's: a finalizer only it finds is still the error;
    a load that fails (a duplicate namespace) before the bad label it holds."""
    bad = [*hub("v0.5"), bad_finalizer(kcp.namespace("extra", generation="v0.5"))]
    error = shared_or_error(bad, monkeypatch)
    assert error[0] == "InputError" and "bad finalizer!" in error[1]
    assert error == ordinary_or_error(bad, monkeypatch)
    assert kept == ["child"]
    namespaces = [
        kcp.namespace("a", generation="v0.5"),
        kcp.namespace("a", generation="v0.5", labels={"bad key!": "x"}),
    ]
    duplicate = [*hub("v0.5"), *namespaces]
    error = shared_or_error(duplicate, monkeypatch)
    assert error[0] == "InputError" and "bad key!" in error[1]
    assert error == ordinary_or_error(duplicate, monkeypatch)
    monkeypatch.setattr(pipeline, "_problems", lambda solved: b"made up")
    rejected = shared_or_error(hub("v0.5"), monkeypatch)
    assert rejected[0] == "AssertionError" and "made up" in rejected[1]


def test_an_answer_missing_is_emits_error(monkeypatch) -> None:
    """The child given no answers: its objects made here, with emit's ValueError."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(kcp_load, "KEPT_LEAST", 0)
    manifests = from_objects(hub("v0.5"), "<objects>", reads=reads)
    batch, _, part = kcp_load.load_kept(manifests, now=NOW, made=pipeline._Compared({}))
    result = solve(batch, SolveOptions())
    missing = part.units[-1].key
    result = Result(tuple(r for r in result.requests if r.request != missing), result.stats)
    part.answer(result)
    with pytest.raises(ValueError, match="the result has no answer for"):
        part.part()
    whole = world_of(hub("v0.5"))
    with pytest.raises(ValueError) as expected:
        v05.emit(whole, v05.plan(whole), result)
    assert missing in str(expected.value)


def test_the_childs_messages_are_marshal(monkeypatch) -> None:
    """Its units as plain tuples and its load's items in order (what this process rebuilds)."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    world = world_of(hub("v0.5"))
    start = len(world.namespaces) // 2
    messages = v05._kept_child(
        (world, start, pipeline._Compared({}), lambda: b"verdict"), lambda: marshal.dumps(([], []))
    )
    units, load = marshal.loads(next(messages))
    assert all(index >= start for index, *_ in units) and isinstance(load, list)
    assert next(messages) == b"verdict"
