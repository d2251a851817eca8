"""`-o table` in optimal mode shows greedy's answer beside optimal's without solving greedy again
where the optimal solve kept it (SolveOptions.beside_greedy, model.Result.greedy): its searches'
hints, and its own answer where no search ran. A batch decided jointly (Balance, tenancy slots,
capacity) keeps none, and is solved again in greedy mode as it was loaded."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from adapters.cli.table import greedy_beside
from adapters.run import pipeline
from model import Batch
from solver import SolveOptions, solve
from tests.fixtures.batches import SPREAD_CASES, batches, spread_batches, stuck_batch
from tests.fixtures.builders import batch
from tests.fixtures.common import NOW_TIME, run_cli


def _kept_is_greedy_modes(b: Batch) -> None:
    optimal = solve(b)
    kept = solve(b, SolveOptions(beside_greedy=True))
    assert kept.requests == optimal.requests  # asking for greedy's answer changes none
    assert kept.greedy == solve(b, SolveOptions(mode="greedy")).requests
    assert solve(b, SolveOptions(mode="greedy", beside_greedy=True)).greedy is None  # greedy mode: its own


@settings(deadline=None)
@given(st.one_of(batches(), spread_batches()))
def test_the_greedy_answer_an_optimal_solve_keeps_is_greedy_modes(b):
    _kept_is_greedy_modes(b)


@pytest.mark.parametrize("case", sorted(SPREAD_CASES))
def test_searched_and_closed_form_requests_keep_greedy_modes_answer(case):
    fleet, request = SPREAD_CASES[case]
    _kept_is_greedy_modes(batch(fleet, request))


def test_a_search_hinted_with_greedy_keeps_that_hint():
    b = stuck_batch()  # greedy gets stuck: optimal searches (CP-SAT), hinted with greedy's answer
    kept = solve(b, SolveOptions(beside_greedy=True))
    assert kept.stats.models == 1
    assert kept.greedy == solve(b, SolveOptions(mode="greedy")).requests != kept.requests


def _solves(monkeypatch, args: list[str]) -> tuple[list[str], Any]:
    """The modes of every solve the command ran, and its result."""
    modes: list[str] = []

    def counted(b: Batch, options: SolveOptions | None = None) -> Any:
        modes.append((options or SolveOptions()).mode)
        return solve(b, options)

    monkeypatch.setattr(pipeline, "solve", counted)
    monkeypatch.setattr(solver, "solve", counted)
    return modes, run_cli(args)


@pytest.mark.parametrize(("system", "greedy_again"), [("fleet", False), ("ocm", True)])
def test_the_table_solves_greedy_again_only_for_a_batch_decided_jointly(monkeypatch, system, greedy_again):
    modes, result = _solves(monkeypatch, ["demo", "--system", system, "-o", "table"])
    assert result.exit_code == 0, result.output
    assert "optimal" in result.output and "greedy" in result.output
    # OCM's bundled hub weighs Balance: its placements are decided jointly, with no greedy kept
    assert modes == ["optimal", "greedy"] if greedy_again else modes == ["optimal"]


def test_the_table_beside_greedy_is_the_greedy_runs_decisions():
    from adapters.run.pipeline import schedule

    objects = _fleet_hub()
    optimal = schedule(objects, now=NOW_TIME, options=SolveOptions(beside_greedy=True))
    greedy = schedule(objects, now=NOW_TIME, options=SolveOptions(mode="greedy"))
    beside = greedy_beside(optimal)
    assert beside is not None
    assert [p.result.requests for p in beside.parts] == [p.result.requests for p in greedy.parts]
    assert [p.batch for p in beside.parts] == [p.batch for p in greedy.parts]


def _fleet_hub() -> list[dict[str, Any]]:
    from adapters.fleet.generate import generate_fleet

    return generate_fleet(30, 20, seed=4, now=NOW_TIME)
