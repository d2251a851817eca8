"""The project's CP-SAT without ortools' cp_model module (solver.sat): the same proto for the same
calls, the same models (every solve's proto and parameters) and answers on generated hubs of every
system that builds one, and no pandas imported by any system's solve."""

from __future__ import annotations

import re
import types
from typing import Any

import pytest

import solver as solver_package
from solver import SolveOptions, sat, search
from tests.fixtures.common import NOW_TIME, imported_after


def _build(model, linear_expr) -> list:
    """Every call the project's models make (solver.search and its concepts, solver.replicas.
    capacity_model, solver.tenancy.joint), on `model`."""
    xs = [model.new_int_var(0, room, "") for room in (3, 5, 7)]
    flag = model.new_bool_var("")
    picks = [model.new_bool_var("") for _ in range(3)]
    model.add(linear_expr.weighted_sum(xs, [1, 2, 3]) + 4 * 2 <= 9 * 2)
    model.add(xs[0] + linear_expr.sum(xs[1:]) == 6)
    model.add(flag <= linear_expr.sum([xs[2]]))
    model.add(linear_expr.sum([]) == 0)
    model.add(sum(picks) <= 2)
    model.add(True)
    model.add(xs[1] - 2 * xs[0] >= -3)
    model.add_implication(picks[1], picks[0])
    model.add_at_most_one(picks)
    model.add_at_most_one([])
    load = model.new_int_var(2, 9, "")
    product = model.new_int_var(4, 81, "")
    model.add(load == 2 + xs[1])
    model.add_multiplication_equality(product, [load, load])
    for var, value in zip(xs, (1, 2, 3), strict=True):
        model.add_hint(var, value)
    model.clear_hints()
    model.add_hint(xs[0], 2)
    model.add_hint(picks[0], True)
    model.add_hint(~picks[2], False)
    every = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    model.minimize(linear_expr.weighted_sum([xs[0], product], [7, 1]))
    model.maximize(5)
    model.maximize(linear_expr.weighted_sum([linear_expr.sum(picks), -xs[0]], [4, 1]) + 3)
    return every


def test_the_same_calls_make_the_same_proto_and_answer() -> None:
    from ortools.sat.python import cp_model  # here only: the probes below import this module

    ours, theirs = sat.Model(), cp_model.CpModel()
    ours_vars, their_vars = _build(ours, sat.LinearExpr), _build(theirs, cp_model.LinearExpr)
    assert str(ours.proto) == str(theirs.proto)
    solver, reference = sat.Solver(), cp_model.CpSolver()
    for s in (solver, reference):
        s.parameters.num_workers = 1
        s.parameters.random_seed = 7
    assert solver.solve(ours) == reference.solve(theirs) == sat.OPTIMAL
    assert [solver.value(v) for v in ours_vars] == [reference.value(v) for v in their_vars]
    assert [solver.boolean_value(v) for v in ours_vars[3:6]] == [
        reference.boolean_value(v) for v in their_vars[3:6]
    ]
    assert solver.objective_value == reference.objective_value
    assert solver.best_objective_bound == reference.best_objective_bound
    assert solver.wall_time >= 0 and solver.deterministic_time >= 0
    assert solver.response_proto.status == sat.OPTIMAL
    with pytest.raises(TypeError):  # no floating point objective here: refused, not approximated
        ours.minimize(ours_vars[0] * 0.5)
    with pytest.raises(ValueError):
        ours.get_int_var_from_proto_index(len(ours.proto.variables))
    with pytest.raises(RuntimeError):
        sat.Solver().value(ours_vars[0])


# -- every model, built both ways ------------------------------------------------------------------


def _recording(solver_class: type, log: list[tuple[str, str]]) -> type:
    """`solver_class` noting each model it solves and its parameters (but the wall clock's limit,
    which is what is left of the batch's time)."""

    class Recording(solver_class):  # type: ignore[misc, valid-type]
        def solve(self, model, *args):
            parameters = re.sub(r"max_time_in_seconds: [^\n]*\n?", "", str(self.parameters))
            log.append((str(model.proto), parameters))
            return super().solve(model, *args)

    return Recording


def _with(monkeypatch, module: Any, log: list) -> None:
    """Every model of the pipeline made through `module` (solver.sat or ortools' cp_model)."""
    ours = module is sat
    shim = types.SimpleNamespace(
        Model=sat.Model if ours else module.CpModel,
        Solver=_recording(sat.Solver if ours else module.CpSolver, log),
        LinearExpr=module.LinearExpr,
        IntVar=module.IntVar,
        OPTIMAL=module.OPTIMAL,
        FEASIBLE=module.FEASIBLE,
    )
    monkeypatch.setattr(solver_package, "sat", shim)  # each model's `from solver import sat`


def _crossed(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A generated hub whose placements under two spread constraints spread the second over the
    environment, which crosses the regions and zones: no closed form answers them (solver.optimal),
    a search model does."""
    for o in objects:
        spec = o.get("spec", {})
        constraints = (spec.get("policy") or {}).get("topologySpreadConstraints") or (
            spec.get("spreadPolicy") or {}
        ).get("spreadConstraints")
        if constraints and len(constraints) >= 2:
            constraints[-1]["topologyKey"] = "environment"
    return objects


def _hubs() -> list[tuple[str, list[dict[str, Any]], dict[str, Any] | None]]:
    from adapters.generate.hubs import generate, generate_config

    return [
        ("fleet", _crossed(generate("fleet", 200, 100, seed=7, now=NOW_TIME)), None),
        ("ocm", _crossed(generate("ocm", 100, 60, seed=1, now=NOW_TIME)), None),
        ("karmada", generate("karmada", 50, 200, seed=7, now=NOW_TIME), None),
        (
            "openmcp",
            generate("openmcp", 50, 200, seed=7, now=NOW_TIME),
            generate_config("openmcp", 50, 200, seed=7),
        ),
    ]


@pytest.mark.parametrize("index", range(4), ids=["fleet", "ocm", "karmada", "openmcp"])
def test_every_model_is_the_one_cp_model_builds(monkeypatch, index: int) -> None:
    """Fleet's and OCM's searches (solver.search, spread across crossing keys), Karmada's capacity
    model (solver.replicas.capacity_model) and the tenancy model (openMCP's; kcp's flow builds none,
    tests/test_kcp_speed.py): each solve's
    proto and parameters, through solver.sat and through cp_model, are the same, and so is the
    outcome."""
    from ortools.sat.python import cp_model

    from adapters.run.pipeline import schedule

    name, objects, config = _hubs()[index]
    options = SolveOptions(time_limit=600, threads=1)  # only the budget bounds a search
    outcomes, logs = [], []
    for module in (sat, cp_model):
        log: list[tuple[str, str]] = []
        search._SOLVED.clear()  # each run solves every stage (none answered from the other's)
        with monkeypatch.context() as patched:
            _with(patched, module, log)
            outcomes.append(schedule(objects, now=NOW_TIME, options=options, config=config))
        logs.append(log)
    ours, theirs = outcomes
    assert logs[0], f"{name}: no model was solved"
    assert logs[0] == logs[1]
    assert ours.apply == theirs.apply and ours.delete == theirs.delete
    assert _untimed(ours.summary) == _untimed(theirs.summary)


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@pytest.mark.parametrize("index", range(4), ids=["fleet", "ocm", "karmada", "openmcp"])
def test_no_systems_solve_imports_pandas(index: int) -> None:
    """cp_model imports pandas (about 0.2 s of CPU and 34 MiB); no model needs any of it."""
    code = (
        "from adapters.run.pipeline import schedule\n"
        "from tests.fixtures.common import NOW_TIME\n"
        "from tests.test_sat import _hubs\n"
        f"name, objects, config = _hubs()[{index}]\n"
        "outcome = schedule(objects, now=NOW_TIME, config=config)\n"
        "assert outcome.summary['models'] >= 1, outcome.summary\n"
        "import sys\n"
        "assert 'solver.sat' in sys.modules\n"
    )
    assert imported_after(code, "pandas", "ortools.sat.python.cp_model") == []
