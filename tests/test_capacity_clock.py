"""The joint capacity solve decides by counts, not by the wall clock (k19-slow): the same input gives
the same bytes whatever time it is given, and where the clock does cut a search the summary says
so (time_limited)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import numpy as np

from adapters.karmada.generate import generate_karmada
from adapters.run.pipeline import schedule
from model import Batch
from solver import SolveOptions, solve
from solver.replicas.capacity_units import CapacityProblem, Option, Placed, Unit
from solver.replicas.joint import solve_joint
from tests.fixtures.replicas import PODS, cluster, request

NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)


def test_a_generated_hub_gets_the_same_answer_with_any_time_left() -> None:
    # 1,000 clusters x 200 bindings: 109 distinct requests over 9,157 arcs. The class model of it
    # spent the whole 10 s (first level proven after 7 s of presolve and hint search, the next cut
    # by the clock) and its answer hung on how much of the clock the machine gave it.
    objects = generate_karmada(1000, 200, seed=0, now=NOW)
    quick = schedule(objects, now=NOW, options=SolveOptions(mode="optimal", time_limit=3.0))
    slow = schedule(objects, now=NOW, options=SolveOptions(mode="optimal", time_limit=120.0))
    assert quick.apply == slow.apply
    assert not quick.summary["time_limited"] and not slow.summary["time_limited"]
    assert quick.summary["levels"] == slow.summary["levels"]


def _contested(n: int) -> CapacityProblem:
    """n distinct requests over 3 clusters, more than fit: a class model to build and solve."""
    units = tuple(
        Unit(2 + k % 3, (1 + k % 2, 1), options=(Option((0, 1, 2), target=((k % 3, 2 + k % 3),)),), order=k)
        for k in range(n)
    )
    return CapacityProblem(np.asarray([[20, 100], [15, 100], [10, 100]]), units)


def test_a_model_the_clock_leaves_no_time_for_is_reported_time_limited() -> None:
    p = _contested(30)
    part = list(range(30))
    greedy: list[Placed | None] = [None] * 30
    out = solve_joint(p, part, greedy, deadline=time.perf_counter() - 1)
    assert out.time_limited and out.models == 0
    assert out.values[0] < 30  # the fills stand


def test_a_model_cut_by_the_clock_before_any_answer_is_reported_time_limited() -> None:
    p = _contested(30)
    part = list(range(30))
    out = solve_joint(p, part, [None] * 30, deadline=time.perf_counter() + 1e-4)
    assert out.time_limited


def test_a_part_too_large_to_model_is_not_time_limited_whatever_the_clock() -> None:
    # 600 distinct requests over 100 clusters: more arcs than the model takes even pruned, so the
    # fills decide them at any load; a clock run out cut nothing (the 1,000 x 10,000 hub under load
    # said time_limited while nothing hung on the time).
    clusters = tuple(cluster(f"m{j:03}", {"cpu": 10**6, PODS: 10**4}) for j in range(100))
    apps = tuple(request(f"app-{k:03}", 1 + k, demand={"cpu": 10, PODS: 1}, order=k) for k in range(600))
    b = Batch(clusters, apps)
    late = solve(b, SolveOptions(mode="optimal", threads=1, time_limit=1e-9))
    early = solve(b, SolveOptions(mode="optimal", threads=1, time_limit=60))
    assert not late.stats.time_limited and late.stats.models == 0
    assert late.requests == early.requests
