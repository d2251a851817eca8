"""Prepare's shortcuts give what the plain code gives: Prepared.scored_as holds every field as
dataclasses.replace would (a field added to Prepared and not to the copy fails here), and the
filters' outcome made from shared parts is the rules assigned one by one."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pytest

from model import ExistingDecision, PlacementRequest, Preference, PropertySorter, SelectionMode, TieBreak
from solver.prepare import centered_scores, prepare
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster


def test_scored_as_is_replace_of_the_affinity() -> None:
    request = PlacementRequest(
        "a",
        namespace="ns",
        mode=SelectionMode.N,
        count=1,
        preferences=(Preference(2, held=True),),
        existing=(ExistingDecision("c1", current=True), ExistingDecision("c3", current=False)),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=True,
    )
    b = batch([cluster(f"c{i}") for i in range(4)], request)
    (p,) = prepare(b, ClusterTable(b))
    scores = np.arange(4, dtype=np.int64)
    made, expected = p.scored_as(scores), replace(p, affinity=scores)
    for f in fields(p):
        assert getattr(made, f.name) is getattr(expected, f.name), f.name


def test_the_outcome_is_the_first_rule_each_cluster_fails() -> None:
    """_outcome (the shared rules' part made once per set of masks) against the rules assigned
    one by one in reverse plugin order, on masks where every pattern of passes occurs."""
    from solver.prepare import _CODE, _outcome

    rng = np.random.default_rng(7)
    kinds = list(_CODE)  # scope, affinity, eligibility, taints: plugin order
    shared = [rng.random(64) < 0.8, rng.random(64) < 0.7]
    suffixes: dict = {}
    for _ in range(20):
        rules = [(k, rng.random(64) < 0.5) for k in kinds[: rng.integers(0, 3)]]
        rules += [(kinds[2], shared[0]), (kinds[3], shared[1])]
        expected = np.zeros(64, dtype=np.int8)
        for kind, passing in reversed(rules):
            expected[~passing] = _CODE[kind]
        got = _outcome(rules, suffixes)
        assert got.dtype == np.int8 and got.tolist() == expected.tolist()
    assert len(suffixes) == 1


@pytest.mark.parametrize(
    ("static", "holds", "dtype"),
    [
        (2**30 - 150, ("c1",), np.int32),  # below 2**30 by what the held part can add at most
        (2**30 - 150, ("c1", "c2"), np.int32),  # the most it can add (200) is past: scanned, below
        (2**30 - 50, ("c1",), np.int64),  # past 2**30 on c1
    ],
)
def test_relative_scores_are_int32_exactly_where_they_fit(static: int, holds: tuple[str, ...], dtype) -> None:
    request = PlacementRequest(
        "a",
        namespace="ns",
        mode=SelectionMode.N,
        count=1,
        preferences=(Preference(static), Preference(1, held=True)),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )
    b = batch([cluster(f"c{i}") for i in range(4)], request)
    (p,) = prepare(b, ClusterTable(b))
    assert p.affinity.dtype == dtype
    assert p.affinity.tolist() == [static + (100 if f"c{i}" in holds else 0) for i in range(4)]


class _Looked(dict):
    """A table's index counting its lookups by name."""

    looked = 0

    def get(self, key, default=None):
        _Looked.looked += 1
        return super().get(key, default)


@pytest.mark.parametrize(
    "holds",
    [("c1", "c3", "gone"), ("c1", "c3", "c1")],  # each cluster once (one not in the fleet); one twice
)
def test_held_scores_are_added_on_the_held_rows_once_named(holds: tuple[str, ...]) -> None:
    """A `held` preference adds its score on each row a decision names: on the rows prepare found
    (_classify_existing's) where no two decisions name the same cluster, with no name looked up
    again; by name, once per decision, where two do. A centered property (absent on some
    clusters) is added as centered_scores gives it."""
    clusters = [cluster(f"c{i}", props={"cpu": str(i)} if i % 3 else None) for i in range(6)]
    request = PlacementRequest(
        "a",
        namespace="ns",
        mode=SelectionMode.N,
        count=1,
        preferences=(
            Preference(3, held=True),
            Preference(2, sorter=PropertySorter("cpu", False, centered=True)),
        ),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )
    b = batch(clusters, request)
    table = ClusterTable(b)
    table.index = _Looked(table.index)
    _Looked.looked = 0
    (p,) = prepare(b, table)
    twice = len(set(holds)) < len(holds)
    assert _Looked.looked == len(holds) * (2 if twice else 1)
    values = np.array([float(i) if i % 3 else np.nan for i in range(6)])
    centered = centered_scores(values, np.ones(6, dtype=bool))
    held = [300 * holds.count(f"c{i}") for i in range(6)]
    assert p.affinity.dtype == np.int32
    assert p.affinity.tolist() == [h + 2 * c for h, c in zip(held, centered.tolist(), strict=True)]


@pytest.mark.parametrize("seed", range(6))
def test_centered_scores_are_added_on_the_feasible_rows_alone(seed: int, monkeypatch) -> None:
    """A centered property's scores are added on the rows where the request's outcome is PASS or
    HELD alone (its candidates and the held rows that pass), with no mask over the fleet: what
    centered_scores over that mask gives, exactly, with some values absent, some equal, ascending
    or not, required terms failing, taints, held clusters current or not (some past a taint)."""
    from tests.fixtures.builders import held, taint, term

    rng = np.random.default_rng(seed)
    size, top = 40, 4 if seed % 3 == 0 else 60  # few values: many equal
    clusters = [
        cluster(
            f"c{i:02}",
            labels={"zone": "a" if rng.random() < 0.7 else "b"},
            props=None if rng.random() < 0.2 else {"cpu": str(int(rng.integers(1, top)))},
            taints=[taint("t", "x")] if rng.random() < 0.15 else [],
        )
        for i in range(size)
    ]
    requests = []
    for k in range(8):
        names = rng.choice(size, size=int(rng.integers(0, 6)), replace=False)
        requests.append(
            PlacementRequest(
                f"r{k}",
                namespace="ns",
                mode=SelectionMode.N,
                count=2,
                required=(term({"zone": "a"}),) if k % 2 else (),
                preferences=(
                    Preference(
                        int(rng.integers(1, 5)), sorter=PropertySorter("cpu", bool(k % 3), centered=True)
                    ),
                ),
                existing=tuple(
                    held(f"c{int(n):02}", current=bool(rng.random() < 0.7)) for n in sorted(names)
                ),
                tie_break=TieBreak.SMALLER_NAME,
            )
        )
    b = batch(clusters, *requests)
    whole = centered_scores

    def fleet_wide(*args, **kwargs):
        raise AssertionError("a mask over the fleet")

    monkeypatch.setattr("solver.prepare.centered_scores", fleet_wide)
    table = ClusterTable(b)
    values = table.float_values("cpu")
    for p in prepare(b, table):
        (preference,) = p.request.preferences
        feasible = (p.outcome == 0) | (p.outcome == 4)  # PASS, HELD
        expected = preference.weight * whole(values, feasible, preference.sorter.ascending)
        assert p.affinity.tolist() == expected.tolist()
