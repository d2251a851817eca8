"""Properties of the greedy replica answer on generated batches: the independent checker holds on
every answer, and the answer is deterministic (the same batch, the same bytes; each request's
answer its own, whatever else the batch holds, since greedy deducts nothing between requests)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import AffinityTier, Batch, Division, GroupSpread, Taint
from solver import SolveOptions, check, solve
from tests.fixtures.replicas import cluster, names_term, request

NAMES = [f"m{i}" for i in range(8)]
GREEDY = SolveOptions(mode="greedy")


@st.composite
def clusters(draw):
    out = []
    for name in NAMES[: draw(st.integers(1, len(NAMES)))]:
        free = {"pods": draw(st.integers(-2, 12)), "cpu": draw(st.integers(0, 4000))}
        out.append(
            cluster(
                name,
                free,
                labels={"name": name},
                region=draw(st.sampled_from(["", "r1", "r2", "r3"])),
                taints=[Taint("k", "v", "NoSchedule")] if draw(st.booleans()) and draw(st.booleans()) else [],
                traits=["api"] if draw(st.integers(0, 4)) else [],
                leaving=draw(st.integers(0, 9)) == 0,
                reports=draw(st.integers(0, 9)) > 0,
            )
        )
    return out


@st.composite
def requests(draw, index: int):
    division = draw(st.sampled_from(list(Division)))
    every = division is Division.EVERY
    # counts and held replicas are int32s that may be negative (upstream's API takes them)
    count = draw(st.sampled_from([0, 0, -2])) if every else draw(st.integers(-3, 20))
    groups = []
    if draw(st.booleans()):
        low = draw(st.integers(1, 3))
        groups.append(GroupSpread("", low, draw(st.integers(low, 5))))
    if draw(st.booleans()):
        low = draw(st.integers(1, 2))
        groups.append(GroupSpread("region", low, draw(st.integers(low, 3)), selects=draw(st.booleans())))
    tiers = ()
    if draw(st.booleans()):
        tiers = tuple(
            AffinityTier(f"t{k}", names_term(*draw(st.sets(st.sampled_from(NAMES), min_size=1))))
            for k in range(draw(st.integers(1, 3)))
        )
        if division in (Division.AVAILABLE, Division.AGGREGATED) and draw(st.booleans()):
            tiers = (
                replace(tiers[0], overflow=(names_term(*draw(st.sets(st.sampled_from(NAMES), min_size=1))),)),
            ) + tiers[1:]
    current = draw(
        st.lists(
            st.tuples(st.sampled_from(NAMES), st.integers(0 if every else -2, 6)),
            max_size=3,
            unique_by=lambda e: e[0],
        )
    )
    if every:
        current = [(n, 0) for n, _ in current]
    weights = None
    if division is Division.WEIGHTED and draw(st.booleans()):
        weights = [
            (names_term(*draw(st.sets(st.sampled_from(NAMES), min_size=1))), draw(st.integers(1, 5)))
            for _ in range(2)
        ]
    return request(
        f"r{index}",
        count,
        division,
        demand={} if every else {"pods": 1, "cpu": draw(st.sampled_from([0, 250, 1000]))},
        weights=weights,
        groups=groups,
        tiers=tiers,
        tier=draw(st.integers(0, len(tiers) - 1)) if tiers else 0,
        current=current,
        fresh=draw(st.booleans()),
        needs="api" if draw(st.booleans()) else "",
        evicted=draw(st.lists(st.sampled_from(NAMES), max_size=1)),
        unlimited=every and count == 0,
        spread_by_room=every and draw(st.booleans()),
        order=index,
        priority=draw(st.integers(0, 2)),
    )


@st.composite
def batches(draw):
    fleet = draw(clusters())
    reqs = [draw(requests(i)) for i in range(draw(st.integers(1, 4)))]
    return Batch(tuple(fleet), tuple(reqs), explain_limit=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_checker_holds_on_every_greedy_answer(batch):
    for options in (GREEDY, SolveOptions(mode="optimal")):
        result = solve(batch, options)
        assert check(batch, result) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_deterministic_and_each_request_its_own(batch):
    first = solve(batch, GREEDY).requests
    assert solve(batch, GREEDY).requests == first
    alone = [solve(replace(batch, requests=(r,)), GREEDY).requests[0] for r in batch.requests]
    assert list(first) == alone
