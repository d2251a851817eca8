"""The registry's checks of every object's metadata (adapters.registry.owned_by) made by the
checker's forked child while emit runs (adapters.run.pipeline._judged_beside): the same outcome,
and on bad input the same one error, as the checks made first in this process
(PLACEMENT_SOLVER_WORKERS=1)."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from adapters.errors import InputError
from adapters.ocm import load as ocm_load
from adapters.run import pipeline
from adapters.run.pipeline import schedule
from tests.fixtures import kcp
from tests.fixtures.common import NOW_TIME
from tests.fixtures.ocm import hub, managed_cluster, placement, predicate, score


def fleet_demo() -> list[dict]:
    text = resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(encoding="utf-8")
    return [d for d in yaml.safe_load_all(text) if d]


def kcp_hub() -> list[dict]:
    return [*kcp.compute_v05(kcp.cluster("c1", "us"), locations=["us"]), kcp.namespace("a")]


def outcome_or_error(objects: list[dict], beside: bool, monkeypatch) -> object:
    """The outcome's objects and summary (timings aside), or the error's type and message: judged
    beside emit (a forked child, from the first object on), or first, in this process."""
    with monkeypatch.context() as patched:
        patched.setenv("PLACEMENT_SOLVER_WORKERS", "2" if beside else "1")
        patched.setattr(pipeline, "_JUDGE_BESIDE", 0)
        try:
            outcome = schedule(objects, now=NOW_TIME)
        except (InputError, AssertionError) as error:
            return type(error).__name__, str(error)
    summary = {k: v for k, v in outcome.summary.items() if not k.endswith("_seconds")}
    return outcome.apply, outcome.delete, summary


def spied(monkeypatch) -> list[str]:
    """The functions pipeline starts in forked children, by name."""
    started: list[str] = []
    background, beside_next = pipeline.forked.background, pipeline.forked.beside_next

    def spy(func, item):
        started.append(func.__name__)
        return background(func, item)

    def spy_next(func, item):
        started.append(func.__name__)
        return beside_next(func, item)

    monkeypatch.setattr(pipeline.forked, "background", spy)
    monkeypatch.setattr(pipeline.forked, "beside_next", spy_next)
    return started


def bad_label(obj: dict) -> dict:
    obj["metadata"].setdefault("labels", {})["bad key!"] = "x"
    return obj


def bad_finalizer(obj: dict) -> dict:
    """A finalizer the API server refuses, which kcp's readers do not read: only the registry's
    checks (the child's verdict) find it."""
    obj["metadata"]["finalizers"] = ["bad finalizer!"]
    return obj


@pytest.mark.parametrize("hub", [fleet_demo, kcp_hub])
def test_the_metadata_judged_beside_emit_gives_the_same_outcome(hub, monkeypatch) -> None:
    started = spied(monkeypatch)
    beside = outcome_or_error(hub(), True, monkeypatch)
    assert started == ["_misjudged", "_judged_and_checked"]
    assert beside == outcome_or_error(hub(), False, monkeypatch)


def test_bad_metadata_is_the_error_though_the_load_fails_first(monkeypatch) -> None:
    """kcp's load refuses a duplicate namespace before it reads the one whose label the registry
    refuses: owned_by's error comes first, as when it runs before any load."""
    hub = [*kcp_hub(), kcp.namespace("a"), bad_label(kcp.namespace("b"))]
    error = outcome_or_error(hub, True, monkeypatch)
    assert "bad key!" in str(error)
    assert error == outcome_or_error(hub, False, monkeypatch)


@pytest.mark.parametrize("bad", [bad_label, bad_finalizer])
def test_bad_metadata_is_the_error_where_the_load_passes(bad, monkeypatch) -> None:
    """A label kcp's reader refuses itself (its error waits for owned_by's; the metadata's child,
    forked before the load, is stopped), or a finalizer only the child's verdict finds."""
    hub = [*kcp_hub(), bad(kcp.namespace("b"))]
    started = spied(monkeypatch)
    error = outcome_or_error(hub, True, monkeypatch)
    assert started == (["_misjudged"] if bad is bad_label else ["_misjudged", "_judged_and_checked"])
    assert "bad key!" in str(error) or "bad finalizer!" in str(error)
    assert error == outcome_or_error(hub, False, monkeypatch)


def _forks(monkeypatch, hub: list[dict]) -> list[object]:
    """What the pipeline forks, by function, in order, among its loading and solving; the outcome
    is the same as made in one process."""
    steps: list[object] = []
    start, solve, load = pipeline.forked._start, pipeline.solve, pipeline._load

    def forking(func, item, **kwargs):
        steps.append(func.__name__)
        return start(func, item, **kwargs)

    def solving(batch, options):
        steps.append("solve")
        return solve(batch, options)

    def loading(*args):
        steps.append("load")
        return load(*args)

    alone = outcome_or_error(hub, False, monkeypatch)
    monkeypatch.setattr(pipeline.forked, "_start", forking)
    monkeypatch.setattr(pipeline, "solve", solving)
    monkeypatch.setattr(pipeline, "_load", loading)
    assert outcome_or_error(hub, True, monkeypatch) == alone
    return steps


def test_the_metadata_is_judged_while_the_batch_is_solved(monkeypatch) -> None:
    """The registry's checks in a child forked once the batch is loaded (where the loader forks
    none), before it is solved; the checker's child, forked after, judges nothing again."""
    steps = _forks(monkeypatch, kcp_hub())
    assert steps == ["load", "_misjudged", "solve", "_judged_and_checked"]


def ocm_hub_objects(n: int) -> list[dict]:
    """An OCM hub of `n` clusters whose placements select by CEL expressions."""
    clusters = [managed_cluster(f"c{i}", {"region": ("us-east", "eu-west")[i % 2]}) for i in range(n)]
    scores = [score(f"c{i}", "usage", {"cpu": 10 * i - 40}) for i in range(0, n, 2)]
    expressions = [
        'managedCluster.metadata.labels["region"] == "us-east"',
        'managedCluster.scores("usage").all(s, s.value > 0)',
    ]
    placements = [placement(f"p{k}", n=2, predicates=[predicate(cel=[e])]) for k, e in enumerate(expressions)]
    return [*hub(*clusters), *scores, *placements]


def test_the_metadata_is_judged_from_the_loaders_fork(monkeypatch) -> None:
    """Where the loader forks a child (OCM's CEL child), the registry's checks are forked just
    before it: a fork write-protects every page of this process, whose next write to each then
    faults (forked at the solve's start, about 45,000 faults at OCM 10,000 x 2,000); two forks
    back to back cost one round of them."""
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)
    steps = _forks(monkeypatch, ocm_hub_objects(9))
    assert steps == ["load", "_misjudged", "_cel_early", "solve", "_judged_and_checked"]


def test_bad_metadata_comes_before_the_checkers_verdict(monkeypatch) -> None:
    """A checker that rejects the result (a solver defect) is an AssertionError, but an input the
    registry refuses is that InputError first, as owned_by gives it before anything is solved."""
    monkeypatch.setattr(pipeline, "_problems", lambda solved: b"made up")
    fine = outcome_or_error(kcp_hub(), True, monkeypatch)
    assert fine == ("AssertionError", "the checker rejected the kcp result:\nmade up")
    hub = [*kcp_hub(), bad_finalizer(kcp.namespace("b"))]
    error = outcome_or_error(hub, True, monkeypatch)
    assert error[0] == "InputError" and "bad finalizer!" in error[1]
    assert error == outcome_or_error(hub, False, monkeypatch)


def test_an_earlier_systems_metadata_comes_before_a_later_ones_unserved_version(monkeypatch) -> None:
    """owned_by checks each system's versions, then its metadata, in registry order: Fleet's bad
    label is the error, not kcp's unserved version (the routing alone would give that)."""
    fleet = fleet_demo()
    bad_label(next(obj for obj in fleet if obj["kind"] == "MemberCluster"))
    unserved = {**kcp.binding(), "apiVersion": "apis.kcp.dev/v9"}
    hub = [*fleet, *kcp_hub(), unserved]
    error = outcome_or_error(hub, True, monkeypatch)
    assert "bad key!" in str(error)
    assert error == outcome_or_error(hub, False, monkeypatch)


def test_several_systems_are_judged_first_as_ever(monkeypatch) -> None:
    hub = [*fleet_demo(), *kcp_hub()]
    started = spied(monkeypatch)
    beside = outcome_or_error(hub, True, monkeypatch)
    assert "_judged_and_checked" not in started
    assert beside == outcome_or_error(hub, False, monkeypatch)
