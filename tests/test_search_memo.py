"""solver.search remembers the stage solves CP-SAT proved optimal (by a digest of the model as
solved, the booleans' places, the seed and the budget): a search asked again answers as it did,
without solving; a fresh solve of the same model gives the same answer; a cut is never
remembered, and past the deadline a remembered stage is not used."""

from __future__ import annotations

import time

import pytest

from model import Preference
from solver import SolveOptions, sat, search, solve
from solver.greedy import solve_greedy
from solver.objective import scale_of
from solver.optimal import solve_spread
from solver.prepare import prepare
from solver.table import ClusterTable
from tests.fixtures.batches import SPREAD_CASES, stuck_batch
from tests.fixtures.builders import batch, numbered, pick_n, spread


@pytest.fixture
def solves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The stage solves CP-SAT makes, counted; the memo emptied before and after."""
    made: list[int] = []
    solve_stage = sat.Solver.solve

    def counted(self, model):
        made.append(1)
        return solve_stage(self, model)

    monkeypatch.setattr(sat.Solver, "solve", counted)
    search._SOLVED.clear()
    yield made
    search._SOLVED.clear()


def _coupled():
    """Requests under two spread constraints that do not nest (a model each) with Balance: the
    Balance search asks each one's best response, a CP-SAT search, round after round."""
    clusters = [
        *numbered(4, prefix="a", labels={"zone": "a", "rack": "r1"}),
        *numbered(4, prefix="b", labels={"zone": "b", "rack": "r2"}),
        *numbered(4, prefix="c", labels={"zone": "a", "rack": "r2"}),
    ]
    balance = (Preference(3, balance=True),)
    requests = [
        pick_n(3, name=f"p{k}", preferences=balance, spread=(spread("zone"), spread("rack")))
        for k in range(3)
    ]
    return batch(clusters, *requests)


def test_a_search_asked_again_solves_nothing(solves: list[int]) -> None:
    first = solve(stuck_batch(), SolveOptions(mode="optimal"))
    assert first.stats.models == 1 and solves
    solves.clear()
    again = solve(stuck_batch(), SolveOptions(mode="optimal"))
    assert solves == []  # every stage remembered
    assert again.requests == first.requests
    assert (again.stats.objective, again.stats.bound, again.stats.status, again.stats.models) == (
        first.stats.objective,
        first.stats.bound,
        first.stats.status,
        first.stats.models,
    )


@pytest.mark.parametrize("case", sorted(SPREAD_CASES))
def test_a_remembered_answer_is_a_fresh_solves(case: str, solves: list[int]) -> None:
    clusters, request = SPREAD_CASES[case]
    b = batch(clusters, request)
    fresh = solve(b, SolveOptions(mode="optimal"))
    remembered = solve(b, SolveOptions(mode="optimal"))
    search._SOLVED.clear()
    assert remembered.requests == fresh.requests == solve(b, SolveOptions(mode="optimal")).requests
    assert remembered.stats.objective == fresh.stats.objective


def test_the_balance_search_answers_alike_with_and_without_the_memo(
    solves: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    b = _coupled()
    remembered = solve(b, SolveOptions(mode="optimal"))
    assert solves  # the searches ran CP-SAT
    made = len(solves)
    again = solve(b, SolveOptions(mode="optimal"))
    assert len(solves) == made  # the second solve found every stage remembered
    monkeypatch.setattr(search, "_solved", lambda key: None)  # nothing remembered: all solved
    fresh = solve(b, SolveOptions(mode="optimal"))
    assert len(solves) > made
    assert remembered.requests == again.requests == fresh.requests
    assert remembered.stats.objective == fresh.stats.objective


def _space():
    b = stuck_batch()
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    return p, table, scale_of(p, table)


def test_past_the_deadline_nothing_remembered_is_used(solves: list[int]) -> None:
    p, table, scale = _space()

    def ask(deadline: float):
        return solve_spread(
            p,
            table,
            scale,
            lambda: solve_greedy(p, table, 0),
            0,
            seed=0,
            deterministic_budget=5.0,
            deadline=deadline,
        )

    solved = ask(time.perf_counter() + 60)
    assert solved.status == "OPTIMAL" and search._SOLVED
    late = ask(time.perf_counter() - 1)
    assert late.time_limited and late.status != "OPTIMAL"  # cut as before, not answered from the memo


def test_a_cut_stage_is_not_remembered(solves: list[int]) -> None:
    p, table, scale = _space()
    late = solve_spread(
        p,
        table,
        scale,
        lambda: solve_greedy(p, table, 0),
        0,
        seed=0,
        deterministic_budget=5.0,
        deadline=time.perf_counter() - 1,
    )
    assert late.time_limited and not search._SOLVED and solves == []


def test_a_forked_child_has_its_own_lock_and_an_empty_store() -> None:
    """A child forked while its parent's thread held the store's lock (or moved the store) takes
    a lock of its own and forgets the store (solver.search._forked)."""
    import os

    search._remember(b"k" * 32, (b"\x01", 1))
    with search._SOLVED_LOCK:  # held across the fork, as by a search thread of the parent
        pid = os.fork()
        if pid == 0:  # the child: it must not wait on its parent's lock, and keeps nothing
            code = 0 if search._SOLVED_LOCK.acquire(timeout=2) and not search._SOLVED else 1
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    search._SOLVED.clear()
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_runs_model_text_is_formed_once_and_its_hints_set_in_bulk(
    solves: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later stage is keyed by the previous stage's key and what changed since (the constraints
    appended, the objective, the hint): the whole model's text is formed once a run, by its first
    stage. The booleans are hinted in two appends, no `Model.add_hint` call, the hint it would set."""
    formed: list[str] = []
    text = search._text
    monkeypatch.setattr(search, "_text", lambda proto: formed.append(type(proto).__name__) or text(proto))
    hinted: list[int] = []
    add_hint = sat.Model.add_hint
    monkeypatch.setattr(
        sat.Model, "add_hint", lambda self, var, value: hinted.append(1) or add_hint(self, var, value)
    )
    clusters, request = SPREAD_CASES["two-keys"]  # two constraints that do not nest: a search of two stages
    b = batch(clusters, request)
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    scale = scale_of(p, table)
    assert len(search.stages(scale.spans)) == 2
    solved = solve_spread(
        p,
        table,
        scale,
        lambda: solve_greedy(p, table, 0),
        0,
        seed=0,
        deterministic_budget=5.0,
        deadline=time.perf_counter() + 60,
    )
    assert solved.status == "OPTIMAL" and solves
    assert formed.count("CpModelProto") == 1 and len(formed) > 1
    assert hinted == []

    one_by_one, bulk = sat.Model(), sat.Model()
    for model in (one_by_one, bulk):
        for _ in range(4):
            model.new_bool_var("")
    for index, value in zip(range(4), (True, False, False, True), strict=True):
        one_by_one.add_hint(one_by_one.get_int_var_from_proto_index(index), value)
    search._hint(bulk, (0, 1, 2, 3), [10, 11, 12, 13], {10, 13})
    assert str(bulk.proto) == str(one_by_one.proto)


def _later_key(weight: int, hinted: int, total: int, *, variables: int | None = None) -> tuple[bytes, bytes]:
    """A second stage's key, and its whole text's key, of a small model: its objective's weight,
    its hinted boolean and the first stage's value appended as a constraint vary."""
    model = sat.Model()
    x = [model.new_bool_var("") for _ in range(3)]
    model.add(x[0] + x[1] <= 1)
    model.maximize(x[0] + x[2])
    search._hint(model, (0, 1, 2), [0, 1, 2], {0})
    first = search._stage_key(model, (0, 1, 2), 0, 5.0)
    last = (
        first,
        len(model.proto.variables) if variables is None else variables,
        len(model.proto.constraints),
    )
    model.add(x[0] + x[2] == total)
    model.maximize(weight * x[1] + x[2])
    model.clear_hints()
    search._hint(model, (0, 1, 2), [0, 1, 2], {hinted})
    return search._stage_key(model, (0, 1, 2), 0, 5.0, last), search._stage_key(model, (0, 1, 2), 0, 5.0)


def test_a_later_stages_key_tells_its_objective_hint_and_constraints_apart() -> None:
    key, whole = _later_key(1, 1, 1)
    assert _later_key(1, 1, 1)[0] == key != whole
    assert len({key, _later_key(2, 1, 1)[0], _later_key(1, 2, 1)[0], _later_key(1, 1, 2)[0]}) == 4
    # a variable added since the last stage: the whole text is hashed
    assert _later_key(1, 1, 1, variables=2)[0] == whole
