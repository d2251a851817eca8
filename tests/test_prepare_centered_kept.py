"""Prepare's centered scores kept: a request's feasible rows are its verdict's shared rows where
no cluster it holds passes by its taint alone, and a property's values are one array while the
kept rows' column is, so the centered scores over them are made once for the requests and the
batches after; made again where the values moved, and the same as fresh rows give."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import solver.prepare as prepare_module
from model import (
    ExistingDecision,
    PlacementRequest,
    Preference,
    PropertySorter,
    SelectionMode,
    Taint,
    parse_quantity,
)
from solver.prepare import HELD, PASS, prepare
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, term

SIZE = 300  # above the size from which rows are kept


def _fleet() -> list:
    return [
        cluster(
            f"c{i:03d}",
            {"zone": "a" if i % 4 else "b"},
            {"cpu": str(i % 23)} if i % 7 else {},
            [Taint("gpu", "yes", new_only=True)] if i % 10 == 3 else (),
        )
        for i in range(SIZE)
    ]


def _request(name: str, *held: str, ascending: bool = False) -> PlacementRequest:
    return PlacementRequest(
        name,
        mode=SelectionMode.N,
        count=2,
        required=(term({"zone": "a"}),),
        preferences=(Preference(3, sorter=PropertySorter("cpu", ascending, centered=True)),),
        existing=tuple(ExistingDecision(n) for n in held),
    )


def _feasible(p) -> list[int]:
    return np.flatnonzero((p.outcome == PASS) | (p.outcome == HELD)).tolist()


def test_feasible_rows_are_the_shared_rows_unless_a_held_cluster_passes_by_its_taint_alone() -> None:
    """Fails where the shared rows are taken for a request holding a cluster that passes by its
    taint alone (the test `len(held) == len(p.held_out)` dropped): that row is feasible too."""
    _Rows._last = None
    b = batch(_fleet(), _request("plain", "c001", "c005"), _request("past", "c001", "c013"))
    plain, past = sorted(prepare(b, ClusterTable(b)), key=lambda p: p.request.name != "plain")
    assert past.outcome[13] == HELD and plain.outcome[13] != PASS  # c013: tainted, held
    assert prepare_module._feasible_rows(plain) is plain.base
    assert prepare_module._feasible_rows(plain).tolist() == _feasible(plain)
    assert prepare_module._feasible_rows(past).tolist() == _feasible(past)


def test_centered_scores_are_made_once_and_again_where_the_values_moved(monkeypatch) -> None:
    """Fails where the kept scores are found by the rows alone (the values' identity left out of
    `_CENTERED`'s key: a cluster's cpu moved between batches), where the rows' values outlive
    their column (_Rows.float_values' `found[0] is not column` dropped), or where the scores are
    not kept (made per request)."""
    made = []
    real = prepare_module._centered_part

    def counted(*args):
        made.append(args)
        return real(*args)

    monkeypatch.setattr(prepare_module, "_centered_part", counted)
    monkeypatch.setattr(prepare_module, "_CENTERED", {})
    requests = (_request("r1", "c001", "c005"), _request("r2", "c002"), _request("r3", ascending=True))
    fleet = _fleet()
    _Rows._last = None

    def solved(clusters) -> list[list[int]]:
        b = batch(clusters, *requests)
        return [p.affinity.tolist() for p in prepare(b, ClusterTable(b))]

    first = solved(fleet)
    assert len(made) == 2  # descending (r1, r2: one verdict), ascending
    assert solved(fleet) == first and len(made) == 2
    moved = [*fleet[:9], replace(fleet[9], properties={"cpu": parse_quantity("99")}), *fleet[10:]]
    after = solved(moved)
    assert len(made) == 4
    _Rows._last = None
    monkeypatch.setattr(prepare_module, "_CENTERED", {})
    assert after == solved([replace(c) for c in moved]) and after != first
