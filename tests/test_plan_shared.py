"""`-o plan` of a large input of one system whose emit makes a part of its objects
(adapters.run.pipeline.plan_shared; kcp v0.8): the checker's forked child makes the last share of
the plan (emit, comparison, text) beside this process's first. The document is plan_of's byte for
byte, however the child fares, and on bad input the error is the one the ordinary run gives."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from adapters.errors import InputError
from adapters.generate.hubs import generate
from adapters.kcp import emit as kcp_emit
from adapters.kcp.load import load as kcp_load
from adapters.kube.manifests import from_objects, write_json
from adapters.openmcp.generate import generate_config
from adapters.registry import reads
from adapters.run import forked, pipeline
from adapters.run.changes import plan_of
from adapters.run.pipeline import plan_shared, schedule_manifests
from solver import SolveOptions, solve
from tests.fixtures import kcp

NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)


def hub(generation: str) -> list[dict]:
    return generate("kcp", 40, 120, seed=3, now=NOW, generation=generation)


CONFIG = generate_config(40, 120, seed=3)  # openMCP's, for its hub of 40 x 120 (seed 3)


def text(write) -> bytes:
    chunks: list[bytes] = []
    write(chunks.append)
    return b"".join(bytes(chunk) for chunk in chunks)


def untimed(document: bytes) -> list[bytes]:
    return [line for line in document.splitlines() if b'_seconds": ' not in line]


def shared_or_error(objects: list[dict], monkeypatch, workers: str = "2") -> object:
    """plan_shared's document (timings aside), or the error's type and message."""
    with monkeypatch.context() as patched:
        patched.setenv(forked.ENVIRONMENT, workers)
        patched.setattr(pipeline, "_JUDGE_BESIDE", 0)
        try:
            write = plan_shared(from_objects(objects, "<objects>", reads=reads), now=NOW, config=CONFIG)
        except (InputError, AssertionError) as error:
            return type(error).__name__, str(error)
    return None if write is None else untimed(text(write))


def ordinary_or_error(objects: list[dict], monkeypatch) -> object:
    """plan_of's document as the command wrote it before (one process), or the error."""
    with monkeypatch.context() as patched:
        patched.setenv(forked.ENVIRONMENT, "1")
        manifests = from_objects(objects, "<objects>", reads=reads)
        try:
            outcome = schedule_manifests(manifests, now=NOW, config=CONFIG)
        except (InputError, AssertionError) as error:
            return type(error).__name__, str(error)
    chunks: list[bytes] = []
    write_json(plan_of(outcome, manifests), chunks.append)
    return untimed(b"".join(bytes(chunk) for chunk in chunks))


def shares(monkeypatch) -> list[object]:
    """The plan's share each checker's child was given (None: none)."""
    given: list[object] = []
    background = pipeline.forked.background

    def spy(func, item):
        given.append(item[3][4:] if item[3] else None)
        return background(func, item)

    monkeypatch.setattr(pipeline.forked, "background", spy)
    return given


@pytest.mark.parametrize("generation", ["v0.8", "v0.5"])
def test_the_plan_made_on_two_cores_is_plan_ofs_document(generation, monkeypatch) -> None:
    """The child's share as estimated (v0.8's hub: a third), and where it is a third."""
    given = shares(monkeypatch)
    if generation == "v0.5":  # (its estimate, a twentieth, leaves the child none)
        monkeypatch.setattr(pipeline, "_child_share", lambda costs, objects, requests: 0.3)
    shared = shared_or_error(hub(generation), monkeypatch)
    assert len(given) == 1 and 0.5 < given[0][0] < 0.8 and given[0][1] == 1.0
    assert shared == ordinary_or_error(hub(generation), monkeypatch)
    assert b'  "apply": [' in shared and len(shared) > 1000


@pytest.mark.parametrize("generation", ["v0.8", "v0.5"])
def test_a_share_too_small_leaves_the_child_its_verdict_alone(generation, monkeypatch) -> None:
    """The whole plan made here, before the verdict (kcp v0.5 10,000 x 50,000)."""
    given = shares(monkeypatch)
    monkeypatch.setattr(pipeline, "_LEAST_SHARE", 0.9)
    assert shared_or_error(hub(generation), monkeypatch) == ordinary_or_error(hub(generation), monkeypatch)
    assert given == [None]


def test_a_child_that_fails_is_made_again_here(monkeypatch) -> None:
    monkeypatch.setattr(forked, "_start", lambda func, item, framed=False: None)  # no child
    assert shared_or_error(hub("v0.8"), monkeypatch) == ordinary_or_error(hub("v0.8"), monkeypatch)


def test_a_share_json_must_write_is_made_again_here(monkeypatch) -> None:
    """Where orjson cannot write a piece, the whole document is json's, made here."""
    monkeypatch.setattr(pipeline, "orjson_items", lambda objects: None)
    assert shared_or_error(hub("v0.8"), monkeypatch) == ordinary_or_error(hub("v0.8"), monkeypatch)


def test_nothing_is_done_in_one_process_or_where_nothing_is_read(monkeypatch) -> None:
    """None, and the command makes the plan (and says that nothing was read) as ever."""
    assert shared_or_error(hub("v0.8"), monkeypatch, workers="1") is None
    assert (
        shared_or_error([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}], monkeypatch)
        is None
    )


def test_a_system_that_makes_no_part_and_several_systems_are_planned_whole(monkeypatch) -> None:
    """openMCP's objects emitted whole (here, before the verdict); Fleet's and kcp's together
    as ever, each system in turn."""
    given = shares(monkeypatch)
    openmcp = generate("openmcp", 40, 120, seed=3, now=NOW)
    assert shared_or_error(openmcp, monkeypatch) == ordinary_or_error(openmcp, monkeypatch)
    assert given == [None]
    both = [*generate("fleet", 20, 20, seed=3, now=NOW), *hub("v0.8")]
    assert shared_or_error(both, monkeypatch) == ordinary_or_error(both, monkeypatch)
    assert given == [None]


def bad_finalizer(obj: dict) -> dict:
    obj["metadata"]["finalizers"] = ["bad finalizer!"]
    return obj


@pytest.mark.parametrize("least", [0.1, 0.9])
def test_bad_metadata_and_a_rejected_result_are_the_ordinary_errors(least, monkeypatch) -> None:
    """A finalizer only the child's verdict finds; a checker that rejects the result (then no
    share is made); a load that fails (a duplicate namespace) before the bad label it holds. With
    a share for the child and without."""
    monkeypatch.setattr(pipeline, "_LEAST_SHARE", least)
    bad = [*hub("v0.8"), bad_finalizer(kcp.namespace_v08("extra"))]
    error = shared_or_error(bad, monkeypatch)
    assert error[0] == "InputError" and "bad finalizer!" in error[1]
    assert error == ordinary_or_error(bad, monkeypatch)
    duplicate = [*hub("v0.8"), kcp.namespace_v08("a"), kcp.namespace_v08("a", labels={"bad key!": "x"})]
    error = shared_or_error(duplicate, monkeypatch)
    assert error[0] == "InputError" and "bad key!" in error[1]
    assert error == ordinary_or_error(duplicate, monkeypatch)
    monkeypatch.setattr(pipeline, "_problems", lambda solved: b"made up")
    rejected = shared_or_error(hub("v0.8"), monkeypatch)
    assert rejected == ("AssertionError", "the checker rejected the kcp result:\nmade up")


@pytest.mark.parametrize("generation", ["v0.8", "v0.5"])
def test_emits_parts_joined_are_emits_objects(generation) -> None:
    """The objects from any fraction to any other are emit's run of them (v0.8: the Namespaces,
    then the Placements; v0.5: the Namespaces), its other fields whole."""
    manifests = from_objects(hub(generation), "<objects>", reads=reads)
    batch, context = kcp_load(manifests, now=NOW, seed=0)
    result = solve(batch, SolveOptions())
    whole = kcp_emit.emit(context, result)
    cuts = [0.0, 0.13, 0.5, 0.71, 0.97, 1.0]
    parts = [kcp_emit.emit_part(context, result, a, b) for a, b in zip(cuts, cuts[1:], strict=False)]
    assert [obj for part in parts for obj in part.apply] == whole.apply
    assert len(whole.apply) >= 120 and whole.unsatisfied  # (v0.8: the cuts fall in both kinds)
    for part in parts:
        assert (part.delete, part.placements, part.unsatisfied) == (
            whole.delete,
            whole.placements,
            whole.unsatisfied,
        )


def test_the_childs_share_is_estimated_from_the_systems_own_costs(monkeypatch) -> None:
    """The pipeline holds no system's numbers: kcp's record gives its costs (v0.8's hub: a third);
    a system with emit_part and no costs gets none shared, its plan the same document."""
    import dataclasses

    from adapters import registry

    given = shares(monkeypatch)
    record = registry.system("kcp")
    assert record.part_costs is not None
    assert pipeline._child_share(record.part_costs, 82_150, 11_350) == pytest.approx(0.34, abs=0.02)
    monkeypatch.setitem(registry._records(), "kcp", dataclasses.replace(record, part_costs=None))
    assert shared_or_error(hub("v0.8"), monkeypatch) == ordinary_or_error(hub("v0.8"), monkeypatch)
    assert given == [None]
