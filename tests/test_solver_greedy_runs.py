"""Greedy's unexplained answers within one optimal solve of coupled requests (solver/api.py
`_Runs`): a request asked again on the same scores (its greedy pass, its search's hint or best
response, the settle's greedy run) is given the answer found, every answer, level and bound
the same as where each ask solves; asked on other scores, it is solved again."""

from __future__ import annotations

import pytest

import solver.api
from model import ExistingDecision, PlacementRequest, Preference, SelectionMode, SpreadConstraint, TieBreak
from solver import SolveOptions, solve
from tests.fixtures.builders import batch, cluster
from tests.fixtures.common import counted_calls

# Two constraints whose domains do not nest: no closed form, a search hinted with greedy's answer.
_ZONE = (SpreadConstraint("zone", 1, True), SpreadConstraint("rack", 1, False))


def _request(
    name: str, count: int, holds: list[str], *, weight: int = 1, spread: bool = True
) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=count,
        preferences=(Preference(weight, balance=True), Preference(1, held=True)),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        spread=_ZONE if spread else (),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def _clusters(zones: int = 3, size: int = 4) -> list:
    return [
        cluster(f"c{z}-{j}", {"zone": f"z{z}", "rack": f"r{(z + j) % 3}"})
        for z in range(zones)
        for j in range(size)
    ]


def _solved(b, runs_up_to: int, monkeypatch: pytest.MonkeyPatch) -> tuple:
    with monkeypatch.context() as patch:
        patch.setattr(solver.api, "_RUNS_UP_TO", runs_up_to)
        calls = counted_calls(patch, solver.api, "solve_greedy")
        result = solve(b, SolveOptions(mode="optimal"))
        return result, len(calls)


def _same(a, b) -> None:
    assert a.requests == b.requests
    assert (a.stats.objective, a.stats.bound, a.stats.status) == (
        b.stats.objective,
        b.stats.bound,
        b.stats.status,
    )
    assert a.stats.levels == b.stats.levels
    assert a.ordered == b.ordered


def test_one_coupled_request_asks_greedy_once_on_its_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of one coupled request under two spread constraints (no closed form): its greedy
    pass and its search's hint read one set of scores, so greedy is solved once for both; the
    same answer, levels, bound and `ordered`. Fails where `answer` keeps no answer (its
    `known` entry left out: checked)."""
    b = batch(_clusters(), _request("p", 3, ["c0-3", "c1-3", "c2-3"]))
    every, solved_every = _solved(b, 0, monkeypatch)
    kept, solved_kept = _solved(b, 64, monkeypatch)
    _same(kept, every)
    assert kept.stats.models > 0  # searched
    assert solved_kept == solved_every - 1


@pytest.mark.parametrize("n", [2, 5, 9])
def test_asks_on_moved_scores_are_solved_again(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Requests crowding one another's Balance (each holding the same few clusters, spread or
    not): the joint search asks them again on scores the others' moves changed, and every such
    ask is solved, so every answer, level and bound is the one where every ask solves. Fails
    where `_same_scores` compares no scores (every ask of a request answered by its first:
    checked, the answers then differ)."""
    holds = ["c0-0", "c1-0"]
    requests = [_request(f"p{i}", 1 + i % 3, holds, weight=1 + i % 2, spread=i % 2 == 0) for i in range(n)]
    b = batch(_clusters(), *requests)
    every, solved_every = _solved(b, 0, monkeypatch)
    kept, solved_kept = _solved(b, 64, monkeypatch)
    _same(kept, every)
    assert solved_kept <= solved_every


def test_nothing_is_kept_past_the_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answers and their scores are let go once the settle has reported them (`clear`), and
    none is kept after. Fails where Balance is given no `settled` (the scores then live on to the
    solve's end: checked)."""
    made: list[solver.api._Runs] = []
    runs = solver.api._Runs

    def recorded(table):
        made.append(runs(table))
        return made[-1]

    monkeypatch.setattr(solver.api, "_Runs", recorded)
    b = batch(_clusters(), _request("p", 3, ["c0-0", "c1-0", "c2-0"]), _request("q", 2, ["c0-1"]))
    solve(b, SolveOptions(mode="optimal"))
    assert len(made) == 1 and made[0].closed and not made[0].known
