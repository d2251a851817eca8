"""solver.admits: the one rule set a cluster must pass for a request, the reason it is reported with,
and its agreement with the independent checker."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from model import (
    Batch,
    Choice,
    ClusterTerm,
    RequestResult,
    Result,
    SelectionMode,
    SolveStats,
    Taint,
    Toleration,
    TolerationOperator,
)
from solver import SolveOptions, check, solve
from solver.admits import admits, first_refusal, refusals
from solver.checker import passes
from solver.table import ClusterTable, rule_masks
from tests.fixtures.batches import SETTINGS, batches
from tests.fixtures.builders import batch, cluster, pick_n, sel

NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)


def test_a_filtered_cluster_is_reported_with_the_taint_left_untolerated_at_the_clock() -> None:
    """The first taint is tolerated for an hour after it was added (ten minutes ago): the cluster is
    kept out by the second, and reported with it, as upstream's taint filter says."""
    tolerated = Taint("maintenance", added=NOW - timedelta(minutes=10))
    tainted = cluster("a", taints=[tolerated, Taint("gpu")])
    request = pick_n(1, tolerations=[Toleration("maintenance", seconds=3600)])
    b = replace(batch([tainted, cluster("b")], request), now=NOW)
    for mode in ("greedy", "optimal"):
        (got,) = solve(b, SolveOptions(mode=mode)).requests
        (left_out,) = got.unselected
        assert (left_out.cluster, left_out.taint) == ("a", Taint("gpu"))


def test_the_long_lived_scheduler_wakes_a_placement_by_the_rules_at_the_events_time(monkeypatch) -> None:
    """A cluster joins carrying a taint added ten minutes before the event, which the unsatisfied
    placement tolerates for an hour: it admits the placement now, so the placement is woken (its
    wake rule once judged taints with no clock, and every toleration with seconds as run out).
    Fleet's objects carry neither taint times nor toleration seconds, so the neutral model is set
    so directly: the wake rule reads it alone."""
    from adapters.fleet import reach
    from adapters.live.incremental import ClusterAdded, FleetScheduler
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster
    from tests.fixtures.fleet import pick_n as fleet_pick_n

    scheduler = FleetScheduler([member_cluster("m1"), crp("app", fleet_pick_n(2))], now=NOW_TIME)
    assert scheduler.selected() == {"app": ["m1"]}
    live = scheduler.hub._live["fleet"]  # Fleet's model in the long-lived scheduler
    request = live.requests["app"]
    live.requests["app"] = replace(request, tolerations=(Toleration("maintenance", seconds=3600),))
    taint = Taint("maintenance", added=NOW_TIME - timedelta(minutes=10))
    load = reach.load_cluster
    monkeypatch.setattr(
        reach, "load_cluster", lambda manifest, now: replace(load(manifest, now), taints=(taint,))
    )
    delta = scheduler.handle(ClusterAdded(member_cluster("m2")), now=NOW_TIME)
    assert delta.placements == ["app"]


# What the property tests' batches leave out, drawn on top of them: claims, traits, a scope, taints
# with the time they were added (some only for newcomers), clusters leaving while still eligible,
# tolerations with seconds, a clock.
TRAITS = ("pool-a", "pool-b")
TIMED = (
    Toleration("gpu", TolerationOperator.EXISTS, seconds=600),
    Toleration("team", TolerationOperator.EQUAL, "x", seconds=60),
    Toleration("", TolerationOperator.EXISTS, seconds=3600),
)
CLAIM_TERMS = (
    ClusterTerm(claims=sel({"region": "eu"})),
    ClusterTerm(traits=("pool-a",)),
    ClusterTerm(sel({"env": "prod"}), traits=("pool-b",)),
)


@st.composite
def admission_batches(draw) -> Batch:
    b = draw(batches())
    now = draw(st.sampled_from((NOW, None)))
    clusters = []
    for c in b.clusters:
        taints = tuple(
            replace(
                t,
                added=draw(st.sampled_from((None, NOW - timedelta(seconds=30), NOW - timedelta(minutes=30)))),
                new_only=draw(st.booleans()),
            )
            for t in c.taints
        )
        region = draw(st.sampled_from((None, "eu", "us")))
        traits = frozenset(draw(st.lists(st.sampled_from(TRAITS), max_size=2, unique=True)))
        claims = {} if region is None else {"region": region}
        leaving = c.leaving or draw(st.sampled_from((False, False, False, True)))
        clusters.append(replace(c, taints=taints, claims=claims, traits=traits, leaving=leaving))
    requests = []
    for r in b.requests:
        if r.mode is not SelectionMode.FIXED:
            scope = draw(st.none() | st.lists(st.sampled_from(TRAITS), max_size=2, unique=True).map(tuple))
            extra = tuple(draw(st.lists(st.sampled_from(CLAIM_TERMS), max_size=2, unique=True)))
            timed = tuple(draw(st.lists(st.sampled_from(TIMED), max_size=2, unique=True)))
            r = replace(r, scope=scope, required=r.required + extra, tolerations=r.tolerations + timed)
        requests.append(r)
    return replace(b, clusters=tuple(clusters), requests=tuple(requests), now=now)


def _checker_admits_named(b: Batch, request, name: str) -> bool:
    """The checker's verdict on a request of named clusters newly selecting one."""
    alone = replace(request, existing=())
    got = RequestResult(request.key, (Choice(name),), satisfied=False)
    problems = check(replace(b, requests=(alone,)), Result((got,), SolveStats("greedy", "GREEDY")))
    return not any("not a valid named cluster" in p or "leaving cluster" in p for p in problems)


@SETTINGS
@given(admission_batches())
def test_the_rule_set_and_the_independent_checker_agree(b: Batch) -> None:
    """The checker's plain rules and solver.admits, scalar and compiled over the table, give every
    (request, cluster) the same verdict, held or not; the compiled form lists the same refusals,
    and `first_refusal` is the first of them."""
    table = ClusterTable(b)
    for request in b.requests:
        masks = rule_masks(request, table) if request.mode is not SelectionMode.FIXED else []
        for row, c in enumerate(b.clusters):
            for held in (False, True):
                verdict = admits(request, c, b.now, held=held)
                refused = refusals(request, c, b.now, held=held)
                assert verdict == (refused == ())
                assert first_refusal(request, c, b.now, held=held) == (refused[0] if refused else None)
                if request.mode is SelectionMode.FIXED:
                    assert verdict == _checker_admits_named(b, request, c.name)
                else:
                    assert verdict == (passes(request, c, b.now, held=held) and not c.leaving)
            if masks:
                compiled = tuple(kind for kind, mask in masks if not mask[row])
                assert compiled == refusals(request, c, b.now)
