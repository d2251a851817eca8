"""The checker's tenancy verdicts, judged once per filters, cluster and held (solver.checker
_Passing): requests sharing their filters' objects are still judged each as its own case."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from functools import cache

import pytest

from adapters.generate.hubs import generate
from adapters.openmcp.generate import generate_config
from adapters.run.pipeline import schedule
from model import (
    Batch,
    Choice,
    Cluster,
    ClusterTerm,
    ExistingDecision,
    PlacementRequest,
    RequestResult,
    Result,
    SelectionMode,
    SolveStats,
    Taint,
    Tenancy,
)
from solver import check
from solver.checker import passes

NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)
CORDONED = Taint("kcp/unschedulable", "", "NoSchedule", new_only=True)
EAST = (ClusterTerm(traits=("location:east",)),)  # one object, shared by every request below


def _site(name: str, *, taints: tuple[Taint, ...] = ()) -> Cluster:
    return Cluster(f"ws/{name}", traits=frozenset({"location:east"}), taints=taints)


def _unit(name: str, order: int, *, held: str | None = None) -> PlacementRequest:
    return PlacementRequest(
        name,
        "ws",
        mode=SelectionMode.N,
        count=1,
        required=EAST,
        existing=(ExistingDecision(held),) if held else (),
        tenancy=Tenancy(order=order, movable=True, balance=True),
    )


def _on(request: PlacementRequest, cluster: str) -> RequestResult:
    return RequestResult(request.key, (Choice(cluster),))


def test_a_cluster_that_passes_for_its_holder_still_fails_a_newcomer_with_the_same_filters():
    holder, newcomer = _unit("n1", 1, held="ws/c"), _unit("n2", 2)
    assert holder.required is newcomer.required
    batch = Batch((_site("a"), _site("c", taints=(CORDONED,))), (holder, newcomer), now=NOW)
    stats = SolveStats(mode="greedy", status="GREEDY")
    sound = Result((_on(holder, "ws/c"), _on(newcomer, "ws/a")), stats)
    assert check(batch, sound) == []
    cordoned = Result((_on(holder, "ws/c"), _on(newcomer, "ws/c")), stats)
    assert check(batch, cordoned) == ["ws/n2: selected ws/c, which fails the request's filters"]
    # The other way round: the newcomer judged first, then the holder's hold still valid.
    first = Result((_on(newcomer, "ws/c"), _on(holder, "ws/c")), stats)
    assert check(Batch(batch.clusters, (newcomer, holder), now=NOW), first) == [
        "ws/n2: selected ws/c, which fails the request's filters"
    ]


# Broken answers on each tenancy system's generated hub: the checker must object to each.

HUBS = {"kcp v0.8": ("kcp", "v0.8"), "kcp v0.5": ("kcp", "v0.5"), "openmcp": ("openmcp", None)}


@cache
def _solved(hub: str) -> tuple[Batch, Result]:
    name, generation = HUBS[hub]
    config = generate_config(40, 120, seed=3) if name == "openmcp" else None
    objects = generate(name, 40, 120, seed=3, now=NOW, generation=generation)
    outcome = schedule(objects, now=NOW, config=config)
    return outcome.batch, outcome.result


def _broken(result: Result, index: int, **changes) -> Result:
    requests = list(result.requests)
    requests[index] = replace(requests[index], **changes)
    return replace(result, requests=tuple(requests))


def _without(result: Result, index: int) -> Result:
    return replace(result, requests=result.requests[:index] + result.requests[index + 1 :])


@pytest.mark.parametrize("hub", HUBS)
def test_the_generated_answer_passes_and_a_missing_answer_is_reported(hub):
    batch, result = _solved(hub)
    assert check(batch, result) == []
    missing = batch.requests[3].key
    assert check(batch, _without(result, 3)) == [f"{missing}: no result"]


@pytest.mark.parametrize("hub", HUBS)
def test_a_flipped_satisfied_flag_is_reported(hub):
    batch, result = _solved(hub)
    got = result.requests[5]
    assert check(batch, _broken(result, 5, satisfied=not got.satisfied)) == [
        f"{got.request}: satisfied flag disagrees with the placement"
    ]


@pytest.mark.parametrize("hub", HUBS)
def test_a_request_moved_to_a_cluster_it_may_not_take_is_reported(hub):
    batch, result = _solved(hub)
    index, request, failing = next(
        (i, r, failing)
        for i, r in enumerate(batch.requests)
        if not r.existing and (failing := [c for c in batch.clusters if not passes(r, c, NOW, held=False)])
    )
    moved = _broken(result, index, selected=(Choice(failing[0].name),), satisfied=True)
    assert f"{request.key}: selected {failing[0].name}, which fails the request's filters" in check(
        batch, moved
    )


@pytest.mark.parametrize("hub", HUBS)
def test_a_kept_hold_moved_is_reported(hub):
    batch, result = _solved(hub)
    index, request = next((i, r) for i, r in enumerate(batch.requests) if r.existing)
    got = result.requests[index]
    other = next(c.name for c in batch.clusters if c.name not in {d.cluster for d in request.existing})
    problems = check(batch, _broken(result, index, selected=(Choice(other),), released=()))
    assert any(p.startswith(f"{got.request}: ") for p in problems), problems


def test_an_overfilled_cluster_and_a_new_cluster_named_after_none_are_reported():
    batch, result = _solved("openmcp")
    limited = {
        i: r for i, r in enumerate(batch.requests) if r.tenancy.limit and not r.existing and r.tenancy.pool
    }
    target = next(c for c in batch.clusters if all(passes(r, c, NOW, held=False) for r in limited.values()))
    packed = replace(
        result,
        requests=tuple(
            replace(g, selected=(Choice(target.name),), satisfied=True) if i in limited else g
            for i, g in enumerate(result.requests)
        ),
    )
    assert any(f"joined {target.name} with" in p for p in check(batch, packed))
    index, got = next((i, g) for i, g in enumerate(result.requests) if g.selected and g.selected[0].created)
    renamed = _broken(result, index, selected=(replace(got.selected[0], cluster="made-up"),))
    assert "new cluster made-up is named after none of its requests" in check(batch, renamed)
