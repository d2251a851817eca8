"""kcp v0.5's kept child (adapters.kcp.v05.plan_kept; adapters.contract.System.load_kept): a child
forked by the load after the plan keeps its last namespaces, judges the input's metadata and
makes their objects that need no answer while this process solves, then gets their units' answers
and makes their part of `-o plan`. The document is the one-process run's whatever the child does:
a child that cannot start, dies at any step or hangs has its work done here."""

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
    """Every v0.5 input keeps a child; what became of each Kept part: "child" (its objects came
    from the child) or "here" (made in this process)."""
    monkeypatch.setattr(kcp_load, "KEPT_LEAST", 0)
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


@pytest.mark.parametrize("share", [0.0, 0.3, 0.6, 1.0])
def test_the_plan_with_a_kept_child_is_the_whole_plan(share, monkeypatch) -> None:
    """The requests and the load whole; this process's namespaces then the child's are the plan's."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    whole = v05.plan(world_of(hub("v0.5")))
    planned, part = v05.plan_kept(world_of(hub("v0.5")), share, pipeline._Compared({}))
    assert planned.requests == whole.requests
    assert list(planned.load.items()) == list(whole.load.items())
    assert len(part.plans) == int(share * len(whole.namespaces))
    assert [p.namespace.key for p in planned.namespaces + part.plans] == [
        p.namespace.key for p in whole.namespaces
    ]
    part.cancel()


def _dies(step: int, how: str):
    """The kept child's steps, the child killed (or hung) at `step`: before its verdict (0),
    before it takes its answers (1), before its objects (2)."""
    child = v05._kept_child

    def die() -> None:
        if how == "hang":
            time.sleep(3600)
        os.kill(os.getpid(), signal.SIGKILL)

    def dying(task, receive) -> Iterator[bytes]:
        def received() -> bytes:
            if step == 1:
                die()
            return receive()

        stop = {0: 0, 2: 1}.get(step)
        for sent, message in enumerate(child(task, received)):
            if sent == stop:
                die()
            yield message

    return dying


@pytest.mark.parametrize("step", [0, 1, 2])
@pytest.mark.parametrize("how", ["killed", "hang"])
def test_a_kept_child_killed_or_hung_at_any_step_is_redone_here(step, how, kept, monkeypatch) -> None:
    """Before its verdict (made here too), before its answers or before its objects: its
    objects made here."""
    monkeypatch.setattr(forked, "STALL_SECONDS", 0.5)
    monkeypatch.setattr(v05, "_kept_child", _dies(step, how))
    expected = ordinary_or_error(hub("v0.5"), monkeypatch)
    assert shared_or_error(hub("v0.5"), monkeypatch) == expected
    assert kept == ["here"]


def test_no_child_makes_it_all_here(kept, monkeypatch) -> None:
    monkeypatch.setattr(forked, "_start", lambda func, item, framed=False: None)
    assert shared_or_error(hub("v0.5"), monkeypatch) == ordinary_or_error(hub("v0.5"), monkeypatch)
    assert kept == ["here"]


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
    missing = [u for p in part.plans for u in p.units][-1].key
    result = Result(tuple(r for r in result.requests if r.request != missing), result.stats)
    part.answer(result)
    with pytest.raises(ValueError, match="the result has no answer for"):
        part.part()
    whole = world_of(hub("v0.5"))
    with pytest.raises(ValueError) as expected:
        v05.emit(whole, v05.plan(whole), result)
    assert missing in str(expected.value)


def test_the_childs_messages(monkeypatch) -> None:
    """Its verdict first, then, given its units' answers in order, its part: marshal."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(kcp_load, "KEPT_LEAST", 0)
    manifests = from_objects(hub("v0.5"), "<objects>", reads=reads)
    batch, context, part = kcp_load.load_kept(manifests, now=NOW, made=pipeline._Compared({}))
    part.cancel()
    result = solve(batch, SolveOptions())
    part.answer(result)  # (to a child stopped: only kept for emitted())
    by_request = result.by_request()
    answers = [
        tuple((c.cluster, c.kept) for c in by_request[u.key].selected) for p in part.plans for u in p.units
    ]
    made = pipeline._Compared({})
    messages = v05._kept_child(
        (context.world, part.plans, made, lambda: b"verdict"), lambda: marshal.dumps(answers)
    )
    assert next(messages) == b"verdict"
    placements, unsatisfied, (changed, unchanged, text) = marshal.loads(next(messages))
    assert placements == tuple(p.namespace.key for p in part.plans)
    assert (changed, unchanged) == (len(part.plans), 0)  # (nothing to compare with)
    assert text == made.text(part.emitted().apply)
