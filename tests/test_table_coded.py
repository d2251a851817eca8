"""A large batch's required masks in numpy (solver.table.ClusterTable._coded_required): the same
booleans as the model's rules and as the polars expressions, and polars left out for them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver.table as table_module
from model import Cluster, ClusterTerm, LabelOperator, LabelRequirement, LabelSelector
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_n, prop
from tests.fixtures.common import imported_after

KEYS = ("a", "b", "c")
VALUES = ("x", "y", "z", "")
TRAITS = ("t1", "t2")

maps = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)


@st.composite
def fleets(draw) -> list[Cluster]:
    size = draw(st.integers(0, 9))
    out = []
    for i in range(size):
        c = cluster(f"c{i}", draw(maps), draw(st.sampled_from(({}, {"p": "2"}, {"p": "5"}))))
        traits = frozenset(draw(st.lists(st.sampled_from(TRAITS), max_size=2)))
        out.append(dataclasses.replace(c, claims=draw(maps), traits=traits))
    return out


requirements = st.builds(
    LabelRequirement,
    st.sampled_from((*KEYS, "missing")),
    st.sampled_from(list(LabelOperator)),
    st.lists(st.sampled_from((*VALUES, "w")), max_size=2, unique=True).map(tuple),
)
selectors = st.builds(
    LabelSelector,
    maps.map(lambda d: tuple(sorted(d.items()))),
    st.lists(requirements, max_size=3).map(tuple),
)
terms = st.builds(
    ClusterTerm,
    labels=st.none() | selectors,
    properties=st.sampled_from(((), (), (), (prop("p", "Gt", "3"),))),
    claims=st.none() | selectors,
    traits=st.lists(st.sampled_from((*TRAITS, "t3")), max_size=2, unique=True).map(tuple),
)
term_sets = st.lists(terms, min_size=1, max_size=3).map(tuple)


def _filler(count: int) -> list[tuple[ClusterTerm, ...]]:
    """Distinct term sets enough to make the batch large: each asks a value no cluster has."""
    return [(ClusterTerm(LabelSelector((("a", f"v{i}"),))),) for i in range(count)]


def _table(clusters: list[Cluster], sets: list[tuple[ClusterTerm, ...]]) -> ClusterTable:
    requests = [pick_n(1, name=f"r{i}", required=t) for i, t in enumerate(sets)]
    return ClusterTable(batch(clusters, *requests))


def _masks(table: ClusterTable, sets: list[tuple[ClusterTerm, ...]]) -> dict[tuple, np.ndarray]:
    return table.batch_masks(sets, (), ())[0]


@settings(max_examples=150, deadline=None)
@given(fleets(), st.lists(term_sets, min_size=1, max_size=6))
def test_a_large_batchs_required_masks_are_the_models_and_polars(clusters, sets) -> None:
    sets = sets + _filler(table_module._CODED_FROM)
    coded = _masks(_table(clusters, sets), sets)
    for terms_ in sets:
        expected = [
            any(t.matches(c.labels, c.properties, c.claims, c.traits) for t in terms_) for c in clusters
        ]
        assert coded[terms_].tolist() == expected, terms_
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(table_module, "_CODED_FROM", 10**9)  # every set through polars
        plain = _masks(_table(clusters, sets), sets)
    assert plain.keys() == coded.keys()
    assert all(np.array_equal(plain[k], coded[k]) for k in plain)


def test_polars_evaluates_only_the_sets_numpy_does_not(monkeypatch) -> None:
    clusters = [cluster("c0", {"a": "x"}, {"p": "5"}), cluster("c1", {"a": "y"})]
    with_property = (ClusterTerm(LabelSelector((("a", "x"),)), (prop("p", "Gt", "3"),)),)
    sets = [*_filler(table_module._CODED_FROM), with_property]
    table = _table(clusters, sets)
    compiled = []
    original = ClusterTable._required

    def required(self, terms_):
        compiled.append(terms_)
        return original(self, terms_)

    monkeypatch.setattr(ClusterTable, "_required", required)
    masks = _masks(table, sets)
    assert compiled == [with_property]  # the property's set alone, in polars
    assert masks[with_property].tolist() == [True, False]
    assert not any(masks[s].any() for s in sets[:-1])


def test_a_small_batch_is_evaluated_by_polars_as_before(monkeypatch) -> None:
    sets = _filler(table_module._CODED_FROM - 1)
    table = _table([cluster("c0", {"a": "v3"})], sets)
    calls = []
    monkeypatch.setattr(ClusterTable, "_coded_required", lambda self, s: calls.append(s) or {})
    masks = _masks(table, sets)
    assert calls == []
    assert [bool(masks[s][0]) for s in sets] == [i == 3 for i in range(len(sets))]


class _Unasked(frozenset):
    """Traits that may be read, never asked one by one."""

    def __contains__(self, item: object) -> bool:
        raise AssertionError("a trait asked of a cluster one by one")


@settings(max_examples=100, deadline=None)
@given(fleets())
def test_trait_columns_read_each_clusters_own_traits_once(clusters) -> None:
    clusters = [dataclasses.replace(c, traits=_Unasked(c.traits)) for c in clusters]
    scope = ("t1", "t2", "t3")
    table = ClusterTable(batch(clusters, pick_n(1, name="r", scope=scope)))
    masks = table.scope_masks([scope, ("t2",), ("t3",)])
    ordered = sorted(clusters, key=lambda c: c.name)
    assert masks[scope].tolist() == [bool(set(c.traits) & set(scope)) for c in ordered]
    assert masks[("t2",)].tolist() == ["t2" in set(c.traits) for c in ordered]
    assert not masks[("t3",)].any()


def test_the_trait_columns_leave_numpy_ma_unimported() -> None:
    """polars makes a Series of a numpy array only once numpy.ma is imported (0.03 cpu s, nothing
    else of a greedy command imports it): the columns are made of lists."""
    code = (
        "from tests.fixtures.builders import batch, cluster, pick_n\n"
        "from solver.table import ClusterTable\n"
        "import dataclasses\n"
        "c = dataclasses.replace(cluster('c0'), traits=frozenset({'t1'}))\n"
        "table = ClusterTable(batch([c], pick_n(1, name='r', scope=('t1', 't2'))))\n"
        "assert table.scope_masks([('t1', 't2')])[('t1', 't2')].tolist() == [True]\n"
    )
    assert imported_after(code, "numpy.ma") == []
