"""solver.solve_deferred: the answers at once, the statistics once what only they read (the
Balance bound of OCM's coupled requests) is in, made beside the rest by `SolveOptions.beside`
(the command's: a forked child). The answers and every statistic are solve's, wherever the bound
was made: a forked child, this process when asked, or this process when the child fails."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

import solver.api as api
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.ocm.load import load
from adapters.registry import reads
from adapters.run import forked
from model import Result
from solver import SolveOptions, solve, solve_deferred

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def ocm_batch(seed: int):
    return load(from_objects(generate("ocm", 40, 60, seed=seed, now=NOW), "<o>", reads=reads), now=NOW)[0]


def untimed(result: Result) -> tuple:
    stats = replace(result.stats, wall_seconds=0.0, build_seconds=0.0, solve_seconds=0.0)
    return result.requests, stats, result.greedy


class InTurn:
    """A beside that makes the work only when its answer is asked for, in this process (as
    forked.Pending does with one worker, or where its child fails)."""

    def __init__(self, func, item) -> None:
        self.func, self.item = func, item

    def result(self) -> bytes:
        return self.func(self.item)


@pytest.fixture
def searched_counted(monkeypatch):
    """Every search counted as a CP-SAT model, so that the statistics count the settle's (the
    generated hubs' spreads are closed forms)."""
    search = api._search
    monkeypatch.setattr(api, "_search", lambda *args, **kw: replace(search(*args, **kw), searched=True))


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("beside", ["forked", "in turn", "failing child"])
def test_the_bound_made_beside_gives_solves_result(seed, beside, searched_counted, monkeypatch) -> None:
    batch = ocm_batch(seed)
    plain = solve(batch, SolveOptions())
    assert plain.stats.models > 0 and plain.stats.bound > plain.stats.objective  # (a bound to prove)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    if beside == "failing child":
        monkeypatch.setattr(forked, "_start", lambda func, item, framed=False: None)
    started: list[str] = []

    def start(func, item):
        started.append(func.__name__)
        return InTurn(func, item) if beside == "in turn" else forked.background(func, item)

    decided, finished = solve_deferred(batch, SolveOptions(beside=start))
    assert started == ["bounds_of"] and decided.stats.status == "PENDING"
    assert decided.requests == plain.requests
    assert untimed(finished()) == untimed(plain)
    assert finished() is finished()  # asked once


def test_greedy_mode_and_a_batch_without_balance_ask_nothing_beside(monkeypatch) -> None:
    started: list[str] = []

    def start(func, item):
        started.append(func.__name__)
        return InTurn(func, item)

    batch = ocm_batch(0)
    decided, finished = solve_deferred(batch, SolveOptions(mode="greedy", beside=start))
    assert decided is finished() and untimed(decided) == untimed(solve(batch, SolveOptions(mode="greedy")))
    assert started == []
