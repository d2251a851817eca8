"""The joint bound on the Balance-coupled requests' scores (solver.balance_bound.most_scored) holds
under every joint answer of small random problems, enumerated and scored as upstream scores Balance
(ocm:pkg/placement/plugins/balance/balance.go): negative weights, weight 0, fixed and outside loads
that set or leave the busiest count, requests that must make all their picks or may make fewer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver.balance_bound as bb
from solver import SolveOptions, solve
from solver.balance import balance_scores
from solver.balance_bound import Pairs, most_scored
from tests.fixtures.batches import BALANCE_CASES as CASES
from tests.fixtures.batches import balance_batch as small
from tests.fixtures.batches import balance_hubs, shortfalls_of_every_answer
from tests.fixtures.batches import balance_request as request


def scores(n: int):
    return st.lists(st.integers(-60, 60), min_size=n, max_size=n)


@st.composite
def problems(draw):
    clusters = draw(st.integers(2, 4))
    requests = draw(st.integers(1, 3))
    base = draw(st.lists(st.integers(0, 3), min_size=clusters, max_size=clusters))
    outside = draw(st.integers(0, 4))
    out = []
    for _ in range(requests):
        candidates = sorted(draw(st.sets(st.integers(0, clusters - 1), min_size=1, max_size=clusters)))
        out.append(
            dict(
                candidates=candidates,
                affinity=draw(
                    st.lists(st.integers(-60, 60), min_size=len(candidates), max_size=len(candidates))
                ),
                weight=draw(st.sampled_from([-3, -1, 0, 1, 2, 5])),
                picks=draw(st.integers(1, min(2, len(candidates)))),
                exact=draw(st.booleans()),
                start=draw(st.integers(-150, 150)),
            )
        )
    return base, outside, out


def answers(requests):
    """Every joint answer: per request, its picks (exactly K, or at most K where not exact)."""
    choices = []
    for r in requests:
        sizes = [r["picks"]] if r["exact"] else range(r["picks"] + 1)
        choices.append([c for k in sizes for c in itertools.combinations(r["candidates"], k)])
    return itertools.product(*choices)


def scored(base, outside, requests, answer) -> tuple[int, int]:
    """(what the answer's picks score together, its busiest count), Balance as upstream: each
    request against every other decision, the busiest count without its own."""
    counts = np.asarray(base, dtype=np.int64).copy()
    for picks in answer:
        counts[list(picks)] += 1
    total = 0
    for r, picks in zip(requests, answer, strict=True):
        others = counts.copy()
        others[list(picks)] -= 1
        most = max(int(others.max()), outside)
        scores = balance_scores(others, most)
        for c in picks:
            total += r["affinity"][r["candidates"].index(c)] + r["weight"] * int(scores[c])
    return total, max(int(counts.max()), outside)


def pairs_of(base, outside, requests, start_answer) -> Pairs:
    value, _ = scored(base, outside, requests, start_answer)
    return Pairs(
        request=np.repeat(np.arange(len(requests)), [len(r["candidates"]) for r in requests]),
        row=np.concatenate([r["candidates"] for r in requests]).astype(np.int64),
        affinity=np.concatenate([r["affinity"] for r in requests]).astype(np.int64),
        picks=np.asarray([r["picks"] for r in requests], dtype=np.int64),
        exact=np.asarray([r["exact"] for r in requests], dtype=bool),
        weight=np.asarray([r["weight"] for r in requests], dtype=np.int64),
        base=np.asarray(base, dtype=np.int64),
        outside=outside,
        start=np.asarray([r["start"] for r in requests], dtype=np.int64),
        scored=value,
    )


@settings(max_examples=150, deadline=None)
@given(problems(), st.integers(0, 10**6))
def test_the_joint_bound_is_above_every_answer(problem, pick) -> None:
    base, outside, requests = problem
    every = list(answers(requests))
    results = [scored(base, outside, requests, a) for a in every]
    start = every[pick % len(every)]  # where the work starts: any answer
    bound = most_scored(pairs_of(base, outside, requests, start), scored(base, outside, requests, start)[1])
    assert bound >= max(value for value, _ in results)


def test_a_busiest_count_raised_by_the_others_is_within_the_bound() -> None:
    """Two weight-1 requests gain when a weight-0 one crowds a third cluster (the busiest count
    rises, and with it their scores): the bound allows the higher count."""
    requests = [
        dict(candidates=[0, 1, 2], affinity=[0, 0, 5], weight=0, picks=1, exact=True, start=0),
        dict(candidates=[0, 1], affinity=[0, 0], weight=1, picks=1, exact=True, start=0),
        dict(candidates=[0, 1], affinity=[0, 0], weight=1, picks=1, exact=True, start=0),
    ]
    base, outside = [1, 1, 2], 0
    every = list(answers(requests))
    best = max(scored(base, outside, requests, a)[0] for a in every)
    for start in every:
        bound = most_scored(
            pairs_of(base, outside, requests, start), scored(base, outside, requests, start)[1]
        )
        assert bound >= best


# Four requests on four clusters: the busiest count goes from 1 to 4 across the answers.
CROWDING = [
    request("a", 1, -3, ("c0",)),
    request("b", 1, 0),
    request("c", 2, 2, ("c1",)),
    request("d", 1, 1, ("c0",)),
]


@pytest.mark.parametrize("requests", [*CASES.values(), CROWDING], ids=[*CASES, "crowding"])
def test_the_batch_bound_is_joint_where_the_work_is_small(monkeypatch, requests) -> None:
    """The affinity level's bound in a small batch is the joint one: above every request's own
    (every Balance score at its best), and still below every answer (enumerated, Balance judged
    on each answer's own decisions)."""
    b = small(requests)
    joint = solve(b, SolveOptions()).stats.levels[2]
    with monkeypatch.context() as patch:
        patch.setattr(bb, "JOINT_PAIRS", 0)
        alone = solve(b, SolveOptions()).stats.levels[2]
    assert alone.bound < joint.bound <= min(answer[2] for answer in shortfalls_of_every_answer(b))
    assert joint.objective == alone.objective


@pytest.mark.parametrize("price", [-2, 0, 1, 3, 40])
def test_a_member_worth_nothing_alone_that_crowds_a_negative_weight_is_kept(price: int) -> None:
    """A weight -5 request alone on cluster 0 scores -500 (nobody else there); a weight 0 one
    loses 1 point joining it there, and then it scores 0: the best answer has both there. A set
    may not leave out a member that is worth nothing alone but crowds a negative weight."""
    requests = [
        dict(candidates=[0], affinity=[0], weight=-5, picks=1, exact=True, start=-500),
        dict(candidates=[0, 1], affinity=[0, 1], weight=0, picks=1, exact=True, start=price),
    ]
    base, outside = [0, 0], 2
    every = list(answers(requests))
    best = max(scored(base, outside, requests, a)[0] for a in every)
    assert best == 0
    for start in every:
        most = scored(base, outside, requests, start)[1]
        assert most_scored(pairs_of(base, outside, requests, start), most) >= best


@settings(max_examples=25, deadline=None)
@given(balance_hubs())
def test_no_answer_of_a_small_hub_beats_its_affinity_bound(requests) -> None:
    """Property: on random small hubs the summary's affinity bound (joint where the work is small)
    is below every joint answer's affinity shortfall, Balance judged on each answer's decisions."""
    b = small(requests)
    level = solve(b, SolveOptions()).stats.levels[2]
    assert level.bound <= min(answer[2] for answer in shortfalls_of_every_answer(b)) <= level.objective
