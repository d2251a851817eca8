"""The Balance search's record of an ask (solver.balance `_Ask`): a top-N ask watches the rows
its request holds or would take; an ask whose answer is no plain top N (a request under spread)
watches none, since any change among its candidates asks it again."""

from __future__ import annotations

import numpy as np

import solver.balance as balance
from model import Preference
from solver import SolveOptions, solve
from tests.fixtures.builders import batch, cluster, held, pick_n, spread

BALANCE = Preference(1, balance=True)


def _hub():
    """Balance-weighted requests under spread (one constraint, two that do not nest) beside top
    Ns, holding some clusters: every one of them is asked by the joint search."""
    clusters = [cluster(f"c{i:02d}", {"zone": f"z{i % 3}", "rack": f"r{i % 4}"}) for i in range(12)]
    requests = [
        pick_n(4, name="s1", preferences=[BALANCE], spread=[spread("zone")], existing=[held("c00")]),
        pick_n(3, name="s2", preferences=[BALANCE], spread=[spread("zone"), spread("rack")]),
        pick_n(2, name="t1", preferences=[BALANCE], existing=[held("c01"), held("c02")]),
        pick_n(3, name="t2", preferences=[BALANCE], existing=[held("c01")]),
        pick_n(1, name="t3", preferences=[BALANCE]),
    ]
    return batch(clusters, *requests)


def test_an_ask_under_spread_watches_no_rows_and_a_top_ns_its_held_and_taken(monkeypatch) -> None:
    """Every ask of the joint search recorded: under spread (or a top N picking nothing) no row
    is watched and every change may change it; a top N watches the union of what it holds and
    what its answer takes. The answers are those of a search where every ask may change on any
    move. Fails where `_Ask.of` makes the union for every ask (a spread ask's watch not empty)."""
    made: list[tuple[bool, balance._Ask, np.ndarray]] = []
    of = balance._Ask.of.__func__

    def record(cls, state, i, scored, answer):
        ask = of(cls, state, i, scored, answer)
        expected = balance._union(state.members[i], balance.selected_rows(answer))
        made.append((bool(state.base[i].request.spread), ask, expected))
        return ask

    monkeypatch.setattr(balance._Ask, "of", classmethod(record))
    b = _hub()
    result = solve(b, SolveOptions(mode="optimal"))
    assert any(under for under, _, _ in made)
    assert all(ask.worst is None for under, ask, _ in made if under)
    tops = [(ask, expected) for _, ask, expected in made if ask.worst is not None]
    assert tops
    for ask in (ask for _, ask, _ in made if ask.worst is None):  # under spread, or no pick
        assert len(ask.watch) == 0
        assert ask.may_change(None, 0, np.arange(3))  # read nothing: any change asks again
    for ask, expected in tops:
        assert np.array_equal(ask.watch, expected)
    monkeypatch.undo()
    monkeypatch.setattr(balance._Ask, "may_change", lambda self, state, i, rows: True)
    every = solve(b, SolveOptions(mode="optimal"))
    assert result.requests == every.requests
    assert (result.stats.objective, result.stats.bound) == (every.stats.objective, every.stats.bound)
