"""Choices and report entries kept with the table's rows (ClusterTable.by_name, solver/solution.py
_named): a long-lived scheduler's next batch over the same clusters, or over clusters one of which
left and another joined (every row after them moved), gives the results a batch of fresh clusters
gives, and takes the very objects an earlier batch made."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model import Preference
from solver import SolveOptions, solve
from solver import table as table_module
from solver.table import _Rows
from tests.fixtures.batches import ocm_like
from tests.fixtures.builders import batch, cluster, held, pick_all, pick_n, pref, spread

SIZE = 300  # above the size from which rows are kept


def _fleet(names: list[str]) -> list:
    return [
        cluster(name, {"zone": f"z{i % 4}", "tier": "gold" if i % 3 else "silver"}, {"cpu": str(i % 13)})
        for i, name in enumerate(names)
    ]


def _requests(names: list[str]) -> list:
    return [
        pick_all("all", preferences=(pref(2, {"tier": "gold"}), pref(1, sort="cpu"))),
        pick_n(3, "spread", spread=(spread("zone"),), preferences=(pref(1, sort="cpu"),)),
        pick_n(
            4,
            "held",
            existing=(held(names[5], score=(0, 7)), held(names[9])),
            preferences=(pref(3, sort="cpu"),),
        ),
        ocm_like("bal-a", 2, Preference(2, balance=True), holds=names[:2]),
        ocm_like("bal-b", 3, Preference(-1, balance=True), holds=names[1:3]),
    ]


def _results(clusters: list, names: list[str], mode: str) -> dict:
    result = solve(batch(clusters, *_requests(names)), SolveOptions(mode=mode, time_limit=1000))
    return {r.request: r for r in result.requests}


@pytest.mark.parametrize("mode", ["optimal", "greedy"])
def test_a_later_batchs_choices_are_a_fresh_batchs_and_shared_with_the_earlier(mode) -> None:
    names = [f"c{i:04d}" for i in range(SIZE)]
    first = _fleet(names)
    _Rows._last = None
    before = _results(first, names, mode)
    # One cluster left (every row after it moved up by one) and another joined at the end.
    later_names = names[:7] + names[8:] + ["c9999"]
    later = [c for c in first if c.name != names[7]] + _fleet(["c9999"])
    kept = _results(later, later_names, mode)
    assert _Rows._last.patched  # the later table's rows were patched from the first's
    _Rows._last = None
    fresh = _results([replace(c) for c in later], later_names, mode)
    assert kept == fresh
    made = {id(c) for r in before.values() for c in r.selected}
    made |= {id(u) for r in before.values() for u in r.unselected}
    shared = [c for r in kept.values() for c in (*r.selected, *r.unselected) if id(c) in made]
    assert len(shared) > SIZE // 2  # the all-clusters request's choices above all


def test_a_dict_kept_with_the_rows_starts_again_past_its_size(monkeypatch) -> None:
    names = [f"c{i:04d}" for i in range(SIZE)]
    clusters = _fleet(names)
    _Rows._last = None
    _results(clusters, names, "greedy")
    picked = _Rows._last.by_name[("solution", "picked choices")]
    assert len(picked) >= SIZE
    monkeypatch.setattr(table_module, "_BY_NAME_UP_TO", 10)
    again = _results(clusters, names, "greedy")
    assert _Rows._last.by_name[("solution", "picked choices")] is not picked
    _Rows._last = None
    assert again == _results([replace(c) for c in clusters], names, "greedy")
