"""Properties of both modes on random small fleets and batches."""

from __future__ import annotations

import re
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings

from model import (
    Batch,
    Cluster,
    PlacementRequest,
    Preference,
    SelectionMode,
    SpreadConstraint,
    Tenancy,
)
from solver import SolveOptions, check, solve
from solver.objective import combine, evaluate, scale_of
from tests.fixtures.batches import SETTINGS, batches, skew, spread_batches
from tests.fixtures.builders import GREEDY, OPTIMAL, prepared


def _assert_sound(b: Batch, mode: SolveOptions):
    result = solve(b, mode)
    assert check(b, result) == [], check(b, result)
    assert [r.request for r in result.requests] == [r.key for r in b.requests]
    for request, rr in zip(b.requests, result.requests, strict=True):
        assert len(rr.unselected) <= b.explain_limit
        if request.mode is not SelectionMode.FIXED:
            # A selected cluster is never also explained as unselected (held ones are skipped).
            assert not {c.cluster for c in rr.selected} & {u.cluster for u in rr.unselected}
    return result


@SETTINGS
@given(batches())
def test_both_modes_are_sound_and_optimal_is_never_worse(b: Batch) -> None:
    g = _assert_sound(b, GREEDY)
    o = _assert_sound(b, OPTIMAL)
    assert o.stats.objective >= g.stats.objective
    assert o.stats.bound is not None and o.stats.bound >= o.stats.objective
    assert o.stats.status == "OPTIMAL"


@SETTINGS
@given(spread_batches())
def test_spread_requests(b: Batch) -> None:
    g = _assert_sound(b, GREEDY)
    o = _assert_sound(b, OPTIMAL)
    assert o.stats.objective >= g.stats.objective
    assert o.stats.status == "OPTIMAL" and o.stats.bound == o.stats.objective
    (request,) = b.requests
    (rg,), (ro,) = g.requests, o.requests
    assert len(ro.selected) >= len(rg.selected)
    kept = [c.cluster for c in ro.selected if c.kept]
    assert kept == [c.cluster for c in rg.selected if c.kept]
    for constraint in request.spread:
        if constraint.hard:
            before = skew(b, kept, constraint.topology_key)
            limit = max(constraint.max_skew, before)
            assert skew(b, [c.cluster for c in ro.selected], constraint.topology_key) <= limit
            assert skew(b, [c.cluster for c in rg.selected], constraint.topology_key) <= limit


@SETTINGS
@given(batches())
def test_solving_twice_gives_equal_results(b: Batch) -> None:
    for mode in (GREEDY, OPTIMAL):
        first, second = solve(b, mode), solve(b, mode)
        assert first.requests == second.requests
        assert (first.stats.objective, first.stats.status) == (second.stats.objective, second.stats.status)


@SETTINGS
@given(batches(allow_spread=False))
def test_optimal_equals_greedy_without_spread(b: Batch) -> None:
    g, o = solve(b, GREEDY), solve(b, OPTIMAL)
    assert o.requests == g.requests
    assert o.stats.objective == g.stats.objective
    assert o.stats.models == 0
    for request, rr in zip(b.requests, g.requests, strict=True):
        if request.mode is not SelectionMode.N:
            continue
        # The top-N sort: no cluster left out scores above a new pick.
        picked = [c.score.affinity for c in rr.selected if not c.kept]
        passed = [u.score.affinity for u in rr.unselected if u.kind.value == "not-picked"]
        if picked and passed:
            assert max(passed) <= min(picked)
        if passed:
            assert len(picked) + sum(c.kept for c in rr.selected) >= request.count


@SETTINGS
@given(batches())
def test_requests_are_independent(b: Batch) -> None:
    """Nothing couples these requests: each one's answer is the answer it gets alone."""
    together = solve(b, OPTIMAL).by_request()
    for request in b.requests:
        alone = solve(Batch(b.clusters, (request,), explain_limit=b.explain_limit), OPTIMAL)
        assert alone.requests[0] == together[request.key]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spread_batches())
def test_optimal_spread_matches_brute_force(b: Batch) -> None:
    """The search's optimum equals the best of every feasible set of new picks, enumerated."""
    table, (p,) = prepared(b)
    want = p.request.count - p.present
    if want <= 0:
        return
    scale = scale_of(p, table)
    kept = list(p.kept)
    kept_names = [table.names[r] for r in kept]
    candidates = [int(r) for r in p.candidates]
    best = None
    for size in range(min(want, len(candidates)) + 1):
        for picks in combinations(candidates, size):
            names = kept_names + [table.names[r] for r in picks]
            if any(
                skew(b, names, c.topology_key) > max(c.max_skew, skew(b, kept_names, c.topology_key))
                for c in p.request.spread
                if c.hard
            ):
                continue
            value = combine(evaluate(p, table, scale, kept, list(picks)), scale.spans)
            best = value if best is None else max(best, value)
    assert solve(b, OPTIMAL).stats.objective == best


# ------------------------------------------------------------- numbers the solver can hold
# The model refuses, where a value is made, what the solver's arithmetic cannot hold (model.types:
# INT32_MAX, MAX_AFFINITY, MAX_TENANCY); a hand-built batch got past the adapters' checks to an
# OverflowError (a count past int64 with spread), an IndexError (a negative load), a wrong
# optimum (weights times external scores past a double's precision) or a wrong answer (a
# negative explain limit dropped a pick).

I32 = 2**31 - 1
ZONES = tuple(Cluster(f"c{i}", labels={"zone": "abc"[i % 3]}, scores={"s": i}) for i in range(6))


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: PlacementRequest("r", mode=SelectionMode.N, count=2**63), "count"),
        (lambda: PlacementRequest("r", mode=SelectionMode.N, count=-1), "count"),
        (lambda: SpreadConstraint("zone", 0), "max_skew"),
        (lambda: SpreadConstraint("zone", I32 + 1), "max_skew"),
        (lambda: Preference(-I32 - 2), "weight"),
        (lambda: PlacementRequest("r", preferences=(Preference(I32, held=True),)), "affinity"),
        (lambda: PlacementRequest("r", preferences=(Preference(I32), Preference(1))), "affinity"),
        (lambda: Cluster("c", load=-1), "load"),
        (lambda: Cluster("c", scores={"s": I32 + 1}), "scores['s']"),
        (lambda: Tenancy(order=0, demand=0), "demand"),
        (lambda: Tenancy(order=0, limit=-1), "limit"),
        (lambda: Batch(ZONES, (), explain_limit=-1), "explain_limit"),
        (
            lambda: Batch(ZONES, (PlacementRequest("r", preferences=(Preference(I32 // 4, external="s"),)),)),
            "affinity",
        ),
        (
            lambda: Batch(
                (Cluster("c", load=I32 - 1),),
                tuple(PlacementRequest(f"r{i}", tenancy=Tenancy(order=i)) for i in range(2)),
            ),
            "tenants",
        ),
    ],
)
def test_the_model_refuses_what_the_solver_cannot_hold(make, field) -> None:
    with pytest.raises(ValueError, match=re.escape(field)):
        make()


class _Spelt(str):
    """A name that counts how often it is spelt into text."""

    spelt = 0

    def __format__(self, spec: str) -> str:
        _Spelt.spelt += 1
        return str.__format__(self, spec)


def test_a_request_spells_its_name_only_for_a_check_that_fails() -> None:
    """A batch makes tens of thousands of requests: none spells its key to pass its checks."""
    PlacementRequest(_Spelt("r"), namespace=_Spelt("ns"), mode=SelectionMode.N, count=1)
    assert _Spelt.spelt == 0
    with pytest.raises(ValueError, match=re.escape("request 'ns/r'")):
        PlacementRequest(_Spelt("r"), namespace=_Spelt("ns"), mode=SelectionMode.N, count=-1)


@pytest.mark.parametrize("options", [GREEDY, OPTIMAL], ids=["greedy", "optimal"])
def test_a_hand_built_batch_at_the_limits_is_solved_soundly(options) -> None:
    weight = I32 // 5  # external scores up to 5: the most affinity the model takes
    b = Batch(
        ZONES,
        (
            PlacementRequest(
                "many", mode=SelectionMode.N, count=I32, spread=(SpreadConstraint("zone", I32),)
            ),
            PlacementRequest(
                "scored",
                mode=SelectionMode.N,
                count=3,
                preferences=(Preference(weight, external="s"),),
                spread=(SpreadConstraint("zone", 1),),
            ),
        ),
    )
    result = solve(b, options)
    assert check(b, result) == []
    chosen = {r.request: sorted(c.cluster for c in r.selected) for r in result.requests}
    assert chosen == {"many": [c.name for c in ZONES], "scored": ["c3", "c4", "c5"]}


def test_a_tenancy_limit_of_any_size_is_taken() -> None:
    # A limit is only compared with counts (openMCP's tenancyCount is any non-negative integer).
    clusters = tuple(Cluster(f"c{i}", load=i) for i in range(3))
    requests = tuple(
        PlacementRequest(
            f"r{i}", mode=SelectionMode.N, count=1, tenancy=Tenancy(order=i, limit=2**40, pool="p")
        )
        for i in range(3)
    )
    for options in (GREEDY, OPTIMAL):
        b = Batch(clusters, requests)
        assert check(b, solve(b, options)) == []
