"""Every solve reports its lexicographic levels (SolveStats.levels, the summary's "levels"): each
level's value, the lower bound proven on it and the gap, all minimised, in order, added up over
parts; greedy mode reports the values and proves nothing (issue 20: a proven gap per level)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from model import (
    Batch,
    ClusterTerm,
    ExistingDecision,
    LevelStats,
    Packing,
    PlacementRequest,
    Preference,
    SelectionMode,
    Tenancy,
    TieBreak,
)
from solver import SolveOptions, check, solve
from solver.objective import LEVEL_NAMES, bound_shortfalls, combine
from solver.tenancy import LEVELS as TENANCY_LEVELS
from tests.fixtures import karmada
from tests.fixtures.batches import batches, spread_batches
from tests.fixtures.builders import cluster
from tests.fixtures.replicas import GREEDY, PODS, labelled, names_term
from tests.fixtures.replicas import request as replica_request

OPTIMAL = SolveOptions(mode="optimal", threads=1)
CPU = "cpu"
CAPACITY_LEVELS = (
    "requests-unscheduled@priority=0",
    "fresh-later-tiers",
    "fresh-clusters-used",
    "fresh-replicas-off-split",
    "replicas-moved",
    "later-tiers",
    "clusters-used",
    "replicas-off-split",
)


def solved(b: Batch, options: SolveOptions):
    result = solve(b, options)
    assert check(b, result) == []
    return result


def sound(levels: tuple[LevelStats, ...], names: tuple[str, ...], *, proven: bool) -> None:
    """The levels are the names given, in order; a bound is never above its level (all are
    minimised), its gap follows from it; greedy proves nothing."""
    assert tuple(level.name for level in levels) == names
    for level in levels:
        if not proven:
            assert level.bound is None and level.gap is None
        elif level.bound is not None:
            assert level.bound <= level.objective
            assert level.gap == (level.objective - level.bound) / max(1, abs(level.objective))


def summed(*results) -> tuple[tuple[str, int, int | None], ...]:
    """The results' levels added up by name, in the first's order."""
    out: dict[str, tuple[int, int | None]] = {}
    for result in results:
        for level in result.stats.levels:
            value, bound = out.get(level.name, (0, 0))
            out[level.name] = (
                value + level.objective,
                None if bound is None or level.bound is None else bound + level.bound,
            )
    return tuple((name, value, bound) for name, (value, bound) in out.items())


def as_tuples(result) -> tuple[tuple[str, int, int | None], ...]:
    return tuple((level.name, level.objective, level.bound) for level in result.stats.levels)


# -- scored requests ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_scored_levels_are_the_objectives_apart_and_add_up_over_requests(b: Batch) -> None:
    optimal, greedy = solved(b, OPTIMAL), solved(b, SolveOptions(mode="greedy"))
    sound(optimal.stats.levels, LEVEL_NAMES, proven=True)
    sound(greedy.stats.levels, LEVEL_NAMES, proven=False)
    if optimal.stats.status == "OPTIMAL":
        assert all(level.bound == level.objective for level in optimal.stats.levels)
    # Requests no coupling holds are parts of their own: alone, each gives its share.
    alone = [solved(replace(b, requests=(r,)), OPTIMAL) for r in b.requests]
    assert as_tuples(optimal) == summed(*alone)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spread_batches())
def test_searched_levels_are_bounded_by_the_combined_bound(b: Batch) -> None:
    optimal = solved(b, OPTIMAL)
    sound(optimal.stats.levels, LEVEL_NAMES, proven=True)
    assert optimal.stats.levels[0].bound is not None  # the leading level is always bounded


def test_a_combined_bound_proves_its_levels_up_to_the_first_the_answer_misses() -> None:
    spans = (3, 5, 4)
    bound = combine((2, 5, 0), spans)  # level 1 could reach 5; the answer has 3
    assert bound_shortfalls((2, 3, 1), bound, spans) == (1, 0, None)
    assert bound_shortfalls((2, 5, 0), bound, spans) == (1, 0, 4)  # the answer is the bound


# -- Balance ---------------------------------------------------------------------------------------


def balanced(name: str, n: int, holds: tuple[str, ...] = ()) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=n,
        preferences=(Preference(1, balance=True),),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def test_balance_levels_are_the_objectives_and_never_claim_past_their_value() -> None:
    clusters = tuple(cluster(f"c{i}") for i in range(1, 5))
    requests = (balanced("a", 1, ("c1",)), balanced("b", 2, ("c1", "c2")), balanced("c", 1))
    b = Batch(clusters, requests)
    optimal, greedy = solved(b, OPTIMAL), solved(b, SolveOptions(mode="greedy"))
    sound(optimal.stats.levels, LEVEL_NAMES, proven=True)
    sound(greedy.stats.levels, LEVEL_NAMES, proven=False)
    # The combined bound takes every Balance score at its best: the first level is proven, the
    # affinity level (where Balance scores) keeps an honest gap where the relaxation is loose.
    assert optimal.stats.levels[0].bound == optimal.stats.levels[0].objective
    assert optimal.stats.bound >= optimal.stats.objective


# -- tenancy ---------------------------------------------------------------------------------------


def tenant(
    name: str, order: int, purpose: str, *, limit: int = 2, packing=Packing.FEWEST
) -> PlacementRequest:
    return PlacementRequest(
        name,
        "ns",
        mode=SelectionMode.N,
        count=1,
        required=(ClusterTerm(traits=(f"purpose:{purpose}",)),),
        tenancy=Tenancy(
            order=order, limit=limit, packing=packing, pool=purpose, new_cluster=f"ns/{purpose}-{name}"
        ),
    )


def purpose_cluster(name: str, purpose: str, load: int = 0):
    return replace(cluster(f"ns/{name}"), traits=frozenset({f"purpose:{purpose}"}), load=load)


def test_tenancy_levels_add_up_over_independent_parts() -> None:
    clusters = [purpose_cluster("x1", "x", 1), purpose_cluster("x2", "x"), purpose_cluster("y1", "y", 2)]
    xs = [tenant(f"x{i}", i, "x") for i in range(4)]
    ys = [tenant(f"y{i}", 10 + i, "y", packing=Packing.FIRST) for i in range(3)]

    def of(requests) -> Batch:
        return Batch(tuple(clusters), tuple(sorted(requests, key=lambda r: r.key)))

    both, x, y = (solved(of(rs), OPTIMAL) for rs in ([*xs, *ys], xs, ys))
    for result in (both, x, y):
        sound(result.stats.levels, TENANCY_LEVELS, proven=True)
    assert as_tuples(both) == summed(x, y)
    created = both.stats.levels[TENANCY_LEVELS.index("clusters-created")]
    assert created.objective > 0 and created.bound == created.objective
    sound(solved(of([*xs, *ys]), SolveOptions(mode="greedy")).stats.levels, TENANCY_LEVELS, proven=False)


# -- capacity --------------------------------------------------------------------------------------


def apps(namespace: str, n: int, *on: str) -> tuple[PlacementRequest, ...]:
    """`n` single-replica apps that may run on the clusters named `on`."""
    return tuple(
        replace(
            replica_request(
                f"app-{i:02}", 1, demand={CPU: 1000, PODS: 1}, order=i, required=[names_term(*on)]
            ),
            namespace=namespace,
        )
        for i in range(n)
    )


def test_capacity_levels_on_6518_are_proven_and_add_up_over_parts() -> None:
    # karmada#6518: fifteen single-replica apps, room for ten on b and five on c.
    first = (labelled("b", free={CPU: 10_000, PODS: 100}), labelled("c", free={CPU: 5_000, PODS: 100}))
    second = (labelled("d", free={CPU: 3_000, PODS: 100}),)
    one = Batch(first, apps("one", 15, "b", "c"))
    optimal = solved(one, OPTIMAL)
    sound(optimal.stats.levels, CAPACITY_LEVELS, proven=True)
    unscheduled = optimal.stats.levels[0]
    assert (unscheduled.objective, unscheduled.bound, unscheduled.gap) == (0, 0, 0.0)
    sound(solved(one, GREEDY).stats.levels, CAPACITY_LEVELS, proven=False)
    # d takes three of its five apps: two stay unscheduled, and that is proven.
    other = Batch(second, apps("two", 5, "d"))
    alone = solved(other, OPTIMAL)
    assert (alone.stats.levels[0].objective, alone.stats.levels[0].bound) == (2, 2)
    both = solved(Batch(first + second, one.requests + other.requests), OPTIMAL)
    assert as_tuples(both) == summed(optimal, alone)


def test_karmada_6518_through_the_command_shows_the_capacity_levels(tmp_path) -> None:
    clusters = [
        karmada.cluster(name, allocatable={"cpu": cpu, "pods": "110"})
        for name, cpu in (("b", "10"), ("c", "5"))
    ]
    placement = {
        "clusterAffinity": {"clusterNames": ["b", "c"]},
        "replicaScheduling": karmada.divided(dynamic="AvailableReplicas"),
    }
    bindings = [
        karmada.binding(
            f"app-{i:02}", placement=placement, replicas=1, requests={"cpu": "1"}, created=karmada.at(i)
        )
        for i in range(15)
    ]
    summaries = {}
    for mode in ("optimal", "greedy"):
        result = karmada.solve(tmp_path, clusters + bindings, mode, "-o", "plan")
        assert result.exit_code == 0, result.stderr
        summaries[mode] = json.loads(result.stdout)["summary"]
    optimal, greedy = summaries["optimal"], summaries["greedy"]
    assert [level["name"] for level in optimal["levels"]] == list(CAPACITY_LEVELS)
    assert optimal["levels"][0] == {
        "name": "requests-unscheduled@priority=0",
        "objective": 0,
        "bound": 0,
        "gap": 0.0,
    }
    assert all(
        level["bound"] is not None and level["bound"] <= level["objective"] for level in optimal["levels"]
    )
    assert [level["name"] for level in greedy["levels"]] == list(CAPACITY_LEVELS)
    assert all(level["bound"] is None and level["gap"] is None for level in greedy["levels"])
    # Greedy puts all 15 on b, which has room for 10: charged in queue order, 5 do not run there.
    assert greedy["levels"][0]["objective"] == 5


# -- the summary over systems ------------------------------------------------------------------------


def test_the_summary_adds_up_each_systems_levels() -> None:
    from adapters.kube.manifests import parse_text
    from adapters.run.pipeline import schedule_manifests

    def read(name: str):
        path = Path("adapters/examples") / name
        return parse_text(path.read_text(), str(path))

    now = datetime(2026, 11, 21, 12, tzinfo=UTC)
    options = SolveOptions(mode="optimal", threads=1)
    fleet, ocm = read("fleet-demo.yaml"), read("ocm-demo.yaml")
    together = schedule_manifests([*fleet, *ocm], now=now, options=options).summary
    apart = [schedule_manifests(m, now=now, options=options).summary for m in (fleet, ocm)]
    totals: dict[str, list] = {}
    for summary in apart:
        for level in summary["levels"]:
            value, bound = totals.get(level["name"], [0, 0])
            totals[level["name"]] = [
                value + level["objective"],
                None if bound is None or level["bound"] is None else bound + level["bound"],
            ]
    assert [[lv["name"], lv["objective"], lv["bound"]] for lv in together["levels"]] == [
        [name, *values] for name, values in totals.items()
    ]


def test_tenancy_levels_keep_what_cp_sat_proved_and_bound_the_aim_where_it_is_unproven(monkeypatch) -> None:
    # A generated openMCP hub whose levelled loads the flow settles for CP-SAT's split alone (its
    # other splits, few here, are not tried: flow.best_joined proves it otherwise): FEASIBLE, yet
    # requests left out and new clusters are proven, and the aim, not proven, is bounded by a
    # relaxation (solver.tenancy.bound; it had no bound before).
    import solver.tenancy.flow

    monkeypatch.setattr(solver.tenancy.flow, "_JOINED_SPLITS", 0)
    from adapters.generate.hubs import generate
    from adapters.openmcp.generate import generate_config
    from adapters.run.pipeline import schedule
    from tests.fixtures.common import NOW_TIME

    objects = generate("openmcp", 10, 40, seed=1, now=NOW_TIME)
    config = generate_config(10, 40, seed=1)
    outcome = schedule(objects, now=NOW_TIME, options=OPTIMAL, config=config)
    stats = outcome.result.stats
    assert stats.status == "FEASIBLE"
    sound(stats.levels, TENANCY_LEVELS, proven=True)
    unplaced, created, squares, _ = stats.levels
    assert unplaced.bound == unplaced.objective and created.bound == created.objective > 0
    assert squares.bound is not None and 0 < squares.bound < squares.objective
