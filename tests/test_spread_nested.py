"""Two nested spread constraints (zones inside regions), solved in closed form by solver.spread_nested:
the same optimum as every pick set enumerated, and as CP-SAT; anything that does not nest goes to CP-SAT."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import (
    Batch,
    Cluster,
    ExistingDecision,
    PlacementRequest,
    Preference,
    PropertySorter,
    SelectionMode,
    SpreadConstraint,
    parse_quantity,
)
from solver import check, solve
from solver.objective import combine, evaluate, scale_of
from solver.prepare import prepare
from solver.spread import SpreadState
from solver.spread_nested import solve_nested
from solver.table import ClusterTable
from tests.fixtures.builders import OPTIMAL, batch, cluster, held, pick_n, sel, spread

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cluster(draw, name: str, labels: dict[str, str]) -> Cluster:
    if draw(st.booleans()):
        labels["tier"] = "gold"
    eligible = draw(st.sampled_from((True, True, True, False)))
    return Cluster(
        name,
        labels=labels,
        properties={"cpu": parse_quantity(str(draw(st.integers(1, 9))))},
        eligible=eligible,
        ineligible_reason="" if eligible else "unhealthy",
    )


@st.composite
def nested_clusters(draw, low: int = 1, high: int = 9) -> list[Cluster]:
    """Regions with 0..3 zones each; clusters in a zone, region-only, or free (neither key)."""
    zones = {
        f"r{r}": [f"r{r}-{z}" for z in range(draw(st.integers(0, 3)))] for r in range(draw(st.integers(1, 3)))
    }
    out = []
    for i in range(draw(st.integers(low, high))):
        region = draw(st.sampled_from(sorted(zones)))
        kind = draw(st.sampled_from(("zone", "zone", "zone", "region", "free")))
        labels = {}
        if kind != "free":
            labels["region"] = region
            if kind == "zone" and zones[region]:
                labels["zone"] = draw(st.sampled_from(zones[region]))
        out.append(_cluster(draw, f"c{i:03d}", labels))
    return out


def _constraints(draw) -> tuple[SpreadConstraint, ...]:
    keys = draw(
        st.sampled_from((("region", "zone"), ("zone", "region"), ("zone", "zone"), ("region", "region")))
    )
    return tuple(SpreadConstraint(k, draw(st.integers(1, 2)), draw(st.booleans())) for k in keys)


@st.composite
def nested_batches(draw, low: int = 1, high: int = 9, count: int = 6) -> Batch:
    fleet = draw(nested_clusters(low, high))
    names = [c.name for c in fleet]
    existing = draw(st.lists(st.sampled_from(names), max_size=min(len(names), count + 2), unique=True))
    decisions = tuple(ExistingDecision(n, draw(st.booleans())) for n in sorted(existing))
    preferences = draw(
        st.lists(
            st.one_of(
                st.builds(
                    Preference,
                    st.integers(-9, 9),
                    st.sampled_from((sel({"tier": "gold"}), sel({"region": "r0"}))),
                ),
                st.builds(
                    Preference,
                    st.integers(-9, 9),
                    st.none(),
                    st.builds(PropertySorter, st.just("cpu"), st.booleans()),
                ),
            ),
            max_size=2,
        )
    )
    request = PlacementRequest(
        "r",
        mode=SelectionMode.N,
        count=draw(st.integers(1, count)),
        preferences=tuple(preferences),
        spread=_constraints(draw),
        existing=decisions,
    )
    return batch(fleet, request)


def _skew(b: Batch, names: list[str], key: str) -> int:
    domains = {c.labels[key] for c in b.clusters if key in c.labels}
    by_name = {c.name: c for c in b.clusters}
    counts = Counter(by_name[n].labels[key] for n in names if key in by_name[n].labels)
    values = [counts.get(d, 0) for d in domains]
    return max(values) - min(values) if values else 0


def _brute_force(b: Batch) -> int | None:
    """The best combined objective over every feasible set of new picks (None: nothing to pick)."""
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    want = p.request.count - p.present
    if want <= 0:
        return None
    scale = scale_of(p, table)
    kept = list(p.kept)
    kept_names = [table.names[r] for r in kept]
    limits: dict[str, int] = {}
    for c in p.request.spread:
        if c.hard:
            limit = max(c.max_skew, _skew(b, kept_names, c.topology_key))
            limits[c.topology_key] = min(limit, limits.get(c.topology_key, limit))
    candidates = [int(r) for r in p.candidates]
    best = None
    for size in range(min(want, len(candidates)) + 1):
        for picks in combinations(candidates, size):
            names = kept_names + [table.names[r] for r in picks]
            if any(_skew(b, names, key) > limit for key, limit in limits.items()):
                continue
            value = combine(evaluate(p, table, scale, kept, list(picks)), scale.spans)
            best = value if best is None else max(best, value)
    return best


def _nested(b: Batch) -> tuple[list[int] | None, int | None]:
    """solve_nested's picks for the batch's one request, and their combined objective."""
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    want = p.request.count - p.present
    state = SpreadState(table, p.request.spread, list(p.kept))
    picks = solve_nested(p, table, state, p.candidates, want)
    if picks is None:
        return None, None
    scale = scale_of(p, table)
    return picks, combine(evaluate(p, table, scale, list(p.kept), picks), scale.spans)


def _solve(b: Batch, *, search: bool = False):
    """A full optimal solve; with `search`, the nested closed form is skipped (CP-SAT instead)."""
    if search:
        with mock.patch("solver.optimal.solve_nested", lambda *args: None):
            result = solve(b, OPTIMAL)
    else:
        result = solve(b, OPTIMAL)
    assert check(b, result) == [], check(b, result)
    assert result.stats.status == "OPTIMAL" and result.stats.bound == result.stats.objective
    return result


def _oracle_nests(b: Batch, outer: str, inner: str) -> bool:
    """Straight from the labels: every cluster with `inner` has `outer`, one outer value per inner value."""
    parent: dict[str, str] = {}
    for c in b.clusters:
        if inner not in c.labels:
            continue
        if outer not in c.labels or parent.setdefault(c.labels[inner], c.labels[outer]) != c.labels[outer]:
            return False
    return True


# -- exactness ----------------------------------------------------------------------------------


@settings(max_examples=300, **SETTINGS)
@given(nested_batches())
def test_nested_matches_brute_force(b: Batch) -> None:
    best = _brute_force(b)
    if best is None:
        return
    picks, value = _nested(b)
    assert picks is not None  # these fleets nest
    assert value == best
    result = _solve(b)  # the full solve takes the closed form, and the checker accepts it
    assert result.stats.objective == best


@settings(max_examples=60, **SETTINGS)
@given(nested_batches())
def test_nested_matches_search_on_small_fleets(b: Batch) -> None:
    assert _solve(b).stats.objective == _solve(b, search=True).stats.objective


@settings(max_examples=30, **SETTINGS)
@given(nested_batches(low=30, high=120, count=25))
def test_nested_matches_search_on_larger_fleets(b: Batch) -> None:
    """More clusters, up to 25 picks and several held: many windows, the same optimum as CP-SAT."""
    closed = _solve(b)
    assert closed.stats.objective == _solve(b, search=True).stats.objective
    if b.requests[0].count > len([d for d in b.requests[0].existing if d.current]):
        assert _nested(b)[0] is not None


# -- when it applies ----------------------------------------------------------------------------


@st.composite
def loose_batches(draw) -> Batch:
    """Labels drawn freely: sometimes nested, often not."""
    fleet = []
    for i in range(draw(st.integers(1, 8))):
        labels = {}
        for key, values in (("region", ("r0", "r1")), ("zone", ("a", "b", "c"))):
            value = draw(st.sampled_from((None, *values)))
            if value is not None:
                labels[key] = value
        fleet.append(_cluster(draw, f"c{i}", labels))
    names = [c.name for c in fleet]
    existing = draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
    request = PlacementRequest(
        "r",
        mode=SelectionMode.N,
        count=draw(st.integers(1, 5)),
        spread=tuple(
            SpreadConstraint(k, draw(st.integers(1, 2)), draw(st.booleans())) for k in ("region", "zone")
        ),
        existing=tuple(ExistingDecision(n, draw(st.booleans())) for n in sorted(existing)),
    )
    return batch(fleet, request)


@settings(max_examples=150, **SETTINGS)
@given(loose_batches())
def test_closed_form_only_where_domains_nest(b: Batch) -> None:
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    if p.request.count <= p.present:
        return
    picks, value = _nested(b)
    nests = _oracle_nests(b, "region", "zone") or _oracle_nests(b, "zone", "region")
    assert (picks is not None) == nests
    best = _brute_force(b)
    if picks is not None:
        assert value == best
    assert _solve(b).stats.objective == best


def test_not_nested_goes_to_search() -> None:
    nested = [
        cluster("a", {"region": "east", "zone": "east-1"}),
        cluster("b", {"region": "east", "zone": "east-2"}),
        cluster("c", {"region": "west", "zone": "west-1"}),
        cluster("d", {"region": "west"}),
        cluster("e"),
    ]
    request = pick_n(3, spread=(spread("zone", 1, False), spread("region")))
    b = batch(nested, request)
    assert _nested(b)[0] is not None
    # A zone without its region, even on a cluster that can take nothing, breaks the nesting;
    # so does a zone in two regions.
    for extra in (
        cluster("f", {"zone": "west-2"}, eligible=False),
        cluster("f", {"region": "east", "zone": "west-1"}, eligible=False),
    ):
        broken = batch([*nested, extra], request)
        assert _nested(broken)[0] is None
        with mock.patch("solver.optimal.solve_nested", wraps=solve_nested) as spy:
            result = _solve(broken)
        assert spy.call_count == 1 and result.stats.objective == _brute_force(broken)


@pytest.mark.parametrize("count", [1, 3])
def test_other_counts_of_constraints_are_not_nested(count: int) -> None:
    b = batch(
        [
            cluster("a", {"region": "east", "zone": "east-1"}),
            cluster("b", {"region": "west", "zone": "west-1"}),
        ],
        pick_n(1, spread=(spread("region"), spread("zone"), spread("zone", 2))[:count]),
    )
    assert _nested(b)[0] is None


def test_held_domains_pin_the_window() -> None:
    """A region with nothing to pick still holds the minimum down; a held zone the maximum up."""
    clusters = [
        cluster("a1", {"region": "a", "zone": "a-1"}),
        cluster("a2", {"region": "a", "zone": "a-2"}),
        cluster("a3", {"region": "a", "zone": "a-2"}),
        cluster("b1", {"region": "b", "zone": "b-1"}, eligible=False),
        cluster("c1", {"region": "c"}),
        cluster("c2", {"region": "c"}),
        cluster("f1"),
    ]
    b = batch(
        clusters,
        pick_n(4, spread=(spread("zone", 1, False), spread("region", 1)), existing=(held("a2"),)),
    )
    picks, value = _nested(b)
    assert picks is not None and value == _brute_force(b)
    assert _solve(b).stats.objective == value == _solve(b, search=True).stats.objective


def test_soft_excess_outweighs_the_other_skew() -> None:
    """One pick: a region-only cluster keeps the zones even but exceeds the region's max skew (2 +
    1000); a zone's cluster skews both by one (1 + 1). The zone's cluster, though the other is preferred."""
    clusters = [cluster(f"c{i}", {"region": "r0"}) for i in range(4)]
    clusters += [
        cluster("c4", {"region": "r1", "zone": "r1-0"}),
        cluster("c5", {"region": "r2", "zone": "r2-0"}),
    ]
    request = pick_n(
        2,
        spread=(spread("region", 1, False), spread("zone", 1, False)),
        existing=(held("c0", current=False), held("c1")),
    )
    b = batch(clusters, request)
    picks, value = _nested(b)
    assert picks is not None and value == _brute_force(b)
    result = _solve(b)
    assert result.stats.objective == value
    assert {c.cluster for c in result.requests[0].selected} in ({"c1", "c4"}, {"c1", "c5"})


def test_region_and_zone_lower_bounds_together_exceed_the_picks() -> None:
    """Regions in [1, 2] and zones at 1 need one pick in r0 and two in r1's zones: three, though
    each constraint alone needs only the two picks there are. That window holds no answer."""
    clusters = [
        cluster("c0", {"region": "r1", "zone": "b"}),
        cluster("c1"),
        cluster("c2", {"region": "r0"}),
        cluster("c3", {"region": "r1", "zone": "a"}),
    ]
    b = batch(clusters, pick_n(2, spread=(spread("region", 1, False), spread("zone", 1, False))))
    picks, value = _nested(b)
    assert picks is not None and sorted(picks) == [2, 3]  # c2 and c3: skews 0 and 1
    assert value == _brute_force(b) == _solve(b).stats.objective
