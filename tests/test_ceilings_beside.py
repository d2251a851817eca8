"""The Balance ceilings of OCM's coupled requests asked beside the search (SolveOptions.beside:
the command's forked child, started before Balance's walk, when the second core is idle): the
same result and statistics as asked in the settle, wherever they were made (a forked child, this
process when asked, or this process when the child fails)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

import solver.api as api
import solver.balance as balance
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.ocm.load import load
from adapters.registry import reads
from adapters.run import forked
from model import Result
from solver import SolveOptions, solve

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def ocm_batch(seed: int):
    return load(from_objects(generate("ocm", 40, 60, seed=seed, now=NOW), "<o>", reads=reads), now=NOW)[0]


def untimed(result: Result) -> tuple:
    stats = replace(result.stats, wall_seconds=0.0, build_seconds=0.0, solve_seconds=0.0)
    return result.requests, stats, result.greedy


class InTurn:
    """A beside that makes the work only when its answer is asked for, in this process (as
    forked.Pending does with one worker)."""

    def __init__(self, func, item) -> None:
        self.func, self.item = func, item

    def result(self) -> bytes:
        return self.func(self.item)


@pytest.fixture
def searched_counted(monkeypatch):
    """Every search counted as a CP-SAT model, so that the statistics count the ceilings' (the
    generated hubs' spreads take closed forms)."""
    search = api._search
    monkeypatch.setattr(api, "_search", lambda *args, **kw: replace(search(*args, **kw), searched=True))


def started(monkeypatch, how: str) -> tuple[list[str], list[int]]:
    """A beside as `how` asks, the functions it was given and when (the count of settles so far)."""
    given: list[str] = []
    settles: list[int] = []
    settle = balance.Balance.settle

    def counted(self, *args):
        settles.append(1)
        return settle(self, *args)

    monkeypatch.setattr(balance.Balance, "settle", counted)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    if how == "failing child":
        monkeypatch.setattr(forked, "_start", lambda func, item, framed=False: None)

    def start(func, item):
        given.append((func.__name__, len(settles)))
        return InTurn(func, item) if how == "in turn" else forked.background(func, item)

    return given, start


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("how", ["forked", "in turn", "failing child"])
def test_the_ceilings_asked_beside_give_solves_result(seed, how, searched_counted, monkeypatch) -> None:
    batch = ocm_batch(seed)
    plain = solve(batch, SolveOptions())
    assert plain.stats.models > 0 and plain.stats.bound > plain.stats.objective  # (a bound to prove)
    given, start = started(monkeypatch, how)
    here: list[int] = []
    ceilings = balance.Balance.ceilings
    monkeypatch.setattr(balance.Balance, "ceilings", lambda self, r: here.append(1) or ceilings(self, r))
    monkeypatch.setattr(forked, "STALL_SECONDS", 5.0)  # a child waiting for polars' threads: redone here
    assert untimed(solve(batch, SolveOptions(beside=start))) == untimed(plain)
    assert given == [("ceilings_of", 0)]  # before anything is settled
    assert here == ([] if how == "forked" else [1])  # made in the child, where there is one


def test_greedy_mode_asks_nothing_beside(monkeypatch) -> None:
    given, start = started(monkeypatch, "in turn")
    batch = ocm_batch(0)
    greedy = SolveOptions(mode="greedy")
    assert untimed(solve(batch, replace(greedy, beside=start))) == untimed(solve(batch, greedy))
    assert given == []


def test_the_ceilings_are_those_the_settle_asks(monkeypatch) -> None:
    """Balance.ceilings, from the prepared requests alone, against the settle's own (from its
    state's scales and weights), request by request."""
    asked: dict[int, int] = {}
    ceiling = balance.ceiling

    def recorded(p, scale, table, weight, respond):
        most = ceiling(p, scale, table, weight, respond)
        asked[id(p)] = most
        return most

    monkeypatch.setattr(balance, "ceiling", recorded)
    given: list[dict[int, int]] = []
    ceilings = balance.Balance.ceilings
    monkeypatch.setattr(
        balance.Balance,
        "ceilings",
        lambda self, requests: given.append(ceilings(self, requests)) or given[-1],
    )
    batch = ocm_batch(3)
    solve(batch, SolveOptions())  # the settle asks each
    in_settle = dict(asked)
    asked.clear()
    solve(batch, SolveOptions(beside=InTurn))
    assert given and len(given[0]) == len(in_settle) > 10
    assert sorted(given[0].values()) == sorted(in_settle.values())
