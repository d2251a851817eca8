"""The vectorised cluster table (solver/table.py) against the pure-Python model rules and fleet.md's
sorter formula."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from model import (
    Cluster,
    ClusterTerm,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    PlacementRequest,
    Preference,
    PropertyOperator,
    PropertyRequirement,
    PropertySorter,
    SelectionMode,
    parse_quantity,
)
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_n, pref, prop, req, spread, term

KEYS = ("a", "b", "c")
VALUES = ("x", "y", "z", "")
PROPERTIES = ("p", "q")
ABSENT = "r"  # a property no cluster has
QUANTITIES = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "7",
    "-1",
    "-2.5",
    "500m",
    "1.5",
    "1Ki",
    "1k",
    "2e3",
    "0.000000001",
    "1E",
)

label_maps = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)
property_maps = st.dictionaries(st.sampled_from(PROPERTIES), st.sampled_from(QUANTITIES), max_size=2)


@st.composite
def fleets(draw, min_size: int = 0) -> list[Cluster]:
    size = draw(st.integers(min_size, 8))
    return [
        cluster(f"c{i}", draw(label_maps), draw(property_maps), eligible=draw(st.booleans()))
        for i in range(size)
    ]


requirements = st.builds(
    LabelRequirement,
    st.sampled_from((*KEYS, "missing")),
    st.sampled_from(list(LabelOperator)),
    st.lists(st.sampled_from(VALUES), max_size=2, unique=True).map(tuple),
)
selectors = st.builds(
    LabelSelector,
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2).map(
        lambda d: tuple(sorted(d.items()))
    ),
    st.lists(requirements, max_size=3).map(tuple),
)
property_requirements = st.builds(
    PropertyRequirement,
    st.sampled_from((*PROPERTIES, ABSENT)),
    st.sampled_from(list(PropertyOperator)),
    st.sampled_from(QUANTITIES).map(parse_quantity),
)
terms = st.builds(ClusterTerm, st.none() | selectors, st.lists(property_requirements, max_size=2).map(tuple))
term_sets = st.lists(terms, min_size=1, max_size=3).map(tuple)
preferences = st.builds(
    Preference,
    st.integers(-100, 100) | st.sampled_from((0, 1, -1, 3, 100, -100)),
    st.none() | selectors,
    st.none() | st.builds(PropertySorter, st.sampled_from((*PROPERTIES, ABSENT)), st.booleans()),
)
preference_sets = st.lists(preferences, min_size=1, max_size=3).map(tuple)


def _table(clusters: list[Cluster], term_sets=(), preference_sets=()) -> ClusterTable:
    requests = [pick_n(1, name=f"r{i}", required=t) for i, t in enumerate(term_sets)]
    requests += [pick_n(1, name=f"s{i}", preferences=p) for i, p in enumerate(preference_sets)]
    return ClusterTable(batch(clusters, *requests))


def _round_half_away(x: float) -> int:
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return int(whole)


def reference_scores(clusters: list[Cluster], prefs: tuple[Preference, ...]) -> list[int]:
    """fleet.md §3.2 ClusterAffinity Score, written out plainly."""
    out = []
    for c in clusters:
        total = 0
        for p in prefs:
            if p.weight == 0:
                continue
            if p.labels is not None and not p.labels.matches(c.labels):
                continue
            if p.sorter is None:
                total += p.weight
                continue
            known = [
                o.properties[p.sorter.name].as_float() for o in clusters if p.sorter.name in o.properties
            ]
            if p.sorter.name not in c.properties:
                continue
            low, high = min(known), max(known)
            if low == high:
                continue
            ratio = (c.properties[p.sorter.name].as_float() - low) / (high - low)
            if p.sorter.ascending:
                ratio = 1 - ratio
            total += _round_half_away(ratio * p.weight)
        out.append(total)
    return out


@settings(max_examples=150, deadline=None)
@given(fleets(), st.lists(term_sets, min_size=1, max_size=3))
def test_required_masks_agree_with_model(clusters, sets) -> None:
    table = _table(clusters, sets)
    masks = table.required_masks(sets)
    for terms_ in sets:
        expected = [any(t.matches(c.labels, c.properties) for t in terms_) for c in clusters]
        assert masks[terms_].tolist() == expected, terms_


@settings(max_examples=150, deadline=None)
@given(fleets(), st.lists(preference_sets, min_size=1, max_size=3))
def test_affinity_scores_agree_with_reference(clusters, sets) -> None:
    table = _table(clusters, preference_sets=sets)
    scores = table.affinity_scores(sets)
    for prefs in sets:
        assert scores[prefs].dtype == np.int64
        assert scores[prefs].tolist() == reference_scores(clusters, prefs), prefs


def test_empty_sets_are_skipped() -> None:
    table = _table([cluster("c0")])
    assert table.required_masks([()]) == {}
    assert table.affinity_scores([()]) == {}


def test_literal_only_expressions_cover_every_cluster() -> None:
    """A term without any selector and a plain weight compile to literals; they still give one value
    per cluster (regression: polars returned a single row)."""
    clusters = [cluster(f"c{i}") for i in range(4)]
    everything = (ClusterTerm(),)
    flat = (pref(7),)
    table = _table(clusters, [everything], [flat])
    assert table.required_masks([everything])[everything].tolist() == [True] * 4
    assert table.affinity_scores([flat])[flat].tolist() == [7] * 4


NODE_COUNTS = {"m1": "1", "m2": "2", "m3": "2", "m4": "2", "m5": "4", "m6": "6", "m7": "8", "m8": "8"}


def _node_fleet() -> list[Cluster]:
    # m1 is unhealthy (ineligible) but still supplies the minimum.
    return [cluster(n, props={"node-count": v}, eligible=n != "m1") for n, v in NODE_COUNTS.items()]


def test_worked_example_ascending() -> None:
    prefs = (pref(100, sort="node-count", asc=True),)
    scores = _table(_node_fleet(), preference_sets=[prefs]).affinity_scores([prefs])[prefs].tolist()
    assert dict(zip(NODE_COUNTS, scores, strict=True)) == {
        "m1": 100,
        "m2": 86,
        "m3": 86,
        "m4": 86,
        "m5": 57,
        "m6": 29,
        "m7": 0,
        "m8": 0,
    }


def test_worked_example_descending() -> None:
    prefs = (pref(100, sort="node-count"),)
    scores = _table(_node_fleet(), preference_sets=[prefs]).affinity_scores([prefs])[prefs].tolist()
    assert dict(zip(NODE_COUNTS, scores, strict=True)) == {
        "m1": 0,
        "m2": 14,
        "m3": 14,
        "m4": 14,
        "m5": 43,
        "m6": 71,
        "m7": 100,
        "m8": 100,
    }


def _scores(clusters, *prefs: Preference) -> list[int]:
    return _table(clusters, preference_sets=[prefs]).affinity_scores([prefs])[prefs].tolist()


def test_sorter_missing_property_scores_zero_and_is_not_in_range() -> None:
    clusters = [cluster("a", props={"p": "10"}), cluster("b"), cluster("c", props={"p": "20"})]
    assert _scores(clusters, pref(10, sort="p")) == [0, 0, 10]
    assert _scores(clusters, pref(10, sort="p", asc=True)) == [10, 0, 0]


def test_sorter_equal_min_max_scores_zero() -> None:
    clusters = [cluster("a", props={"p": "1k"}), cluster("b", props={"p": "1000"}), cluster("c")]
    assert _scores(clusters, pref(50, sort="p"), pref(50, sort="p", asc=True)) == [0, 0, 0]


def test_sorter_rounds_half_away_from_zero_per_term() -> None:
    clusters = [
        cluster("a", props={"p": "0"}),
        cluster("b", props={"p": "1"}),
        cluster("c", props={"p": "2"}),
    ]
    # b sits at ratio 0.5: 0.5 -> 1 and -0.5 -> -1, per term, then summed.
    assert _scores(clusters, pref(1, sort="p")) == [0, 1, 1]
    assert _scores(clusters, pref(-1, sort="p")) == [0, -1, -1]
    assert _scores(clusters, pref(1, sort="p"), pref(1, sort="p", asc=True)) == [1, 2, 1]
    assert _scores(clusters, pref(3, sort="p"), pref(-3, sort="p")) == [0, 0, 0]


def test_negative_weights_and_label_gates() -> None:
    clusters = [
        cluster("a", {"env": "prod"}, {"p": "0"}),
        cluster("b", {"env": "dev"}, {"p": "10"}),
        cluster("c", {}, {"p": "5"}),
    ]
    # The gate does not narrow the sorter's range: c (no env label) still counts for min/max.
    assert _scores(clusters, pref(-40, {"env": "prod"}), pref(20, None, req("env", "Exists"), sort="p")) == [
        -40,
        20,
        0,
    ]
    assert _scores(clusters, pref(-10, sort="p", asc=True)) == [-10, 0, -5]
    assert _scores(clusters, pref(0, sort="p"), pref(0)) == [0, 0, 0]


def test_required_terms_are_ored_and_missing_property_fails() -> None:
    clusters = [
        cluster("a", {"env": "prod"}, {"cpu": "8"}),
        cluster("b", {"env": "dev"}, {"cpu": "2"}),
        cluster("c", {"env": "dev"}),
        cluster("d", {}, {"cpu": "16"}),
    ]
    one = (term({"env": "prod"}), term(None, props=[prop("cpu", "Gt", "10")]))
    two = (term(None, props=[prop("cpu", "Ne", "2")]),)
    table = _table(clusters, [one, two])
    masks = table.required_masks([one, two])
    assert masks[one].tolist() == [True, False, False, True]
    assert masks[two].tolist() == [True, False, False, True]  # c lacks cpu: Ne does not match


def test_tolerated_and_domain_codes() -> None:
    from tests.fixtures.builders import taint, tol

    clusters = [
        cluster("a", {"zone": "z2"}, taints=[taint("t", "1")]),
        cluster("b", {"zone": "z1"}),
        cluster("c"),
        cluster("d", {"zone": "z2"}, taints=[taint("u")]),
    ]
    b = batch(clusters, pick_n(1, spread=(spread("zone"),)))
    table = ClusterTable(b)
    assert table.tolerated(()).tolist() == [False, True, True, False]
    assert table.tolerated((tol("t", "1"),)).tolist() == [True, True, True, False]
    assert table.tolerated((tol(exists=True),)).tolist() == [True] * 4
    codes, domains = table.domain_codes("zone")
    assert domains == ["z1", "z2"]
    assert codes.tolist() == [1, 0, -1, 1]
    codes, domains = table.domain_codes("absent")
    assert domains == [] and codes.tolist() == [-1] * 4


def test_unknown_label_key_in_selector() -> None:
    clusters = [cluster("a", {"k": "v"}), cluster("b")]
    t = (term(None, req("nowhere", "NotIn", "v")),)
    u = (term(None, req("nowhere", "In", "v")),)
    table = _table(clusters, [t, u])
    masks = table.required_masks([t, u])
    assert masks[t].tolist() == [True, True]
    assert masks[u].tolist() == [False, False]


def test_fixed_requests_do_not_need_columns() -> None:
    b = batch([cluster("a")], PlacementRequest("f", mode=SelectionMode.FIXED, cluster_names=("a",)))
    assert ClusterTable(b).size == 1
