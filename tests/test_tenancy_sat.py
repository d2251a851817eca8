"""The tenancy models' CP-SAT without ortools' cp_model module (solver.tenancy.sat): the same
proto for the same calls, the same answers on generated hubs, and no pandas imported."""

from __future__ import annotations

import types

from ortools.sat.python import cp_model

from solver.tenancy import sat
from tests.fixtures.common import imported_after


def _build(model, linear_expr) -> list:
    """Every call the joint model makes (solver.tenancy.joint), on `model`."""
    xs = [model.new_int_var(0, room, "") for room in (3, 5, 7)]
    flag = model.new_bool_var("")
    model.add(linear_expr.weighted_sum(xs, [1, 2, 3]) + 4 * 2 <= 9 * 2)
    model.add(xs[0] + linear_expr.sum(xs[1:]) == 6)
    model.add(flag <= linear_expr.sum([xs[2]]))
    model.add(linear_expr.sum([]) == 0)
    model.add(True)
    load = model.new_int_var(2, 9, "")
    product = model.new_int_var(4, 81, "")
    model.add(load == 2 + xs[1])
    model.add_multiplication_equality(product, [load, load])
    for var, value in zip(xs, (1, 2, 3), strict=True):
        model.add_hint(var, value)
    model.clear_hints()
    model.add_hint(xs[0], 2)
    every = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    model.minimize(linear_expr.weighted_sum([xs[0], product], [7, 1]))
    model.minimize(linear_expr.weighted_sum(xs, [1, 1, 2]))
    return every


def test_the_same_calls_make_the_same_proto_and_answer() -> None:
    ours, theirs = sat.Model(), cp_model.CpModel()
    ours_vars, their_vars = _build(ours, sat.LinearExpr), _build(theirs, cp_model.LinearExpr)
    assert str(ours.proto) == str(theirs.proto)
    solver, reference = sat.Solver(), cp_model.CpSolver()
    for s in (solver, reference):
        s.parameters.num_workers = 1
        s.parameters.random_seed = 7
    assert solver.solve(ours) == reference.solve(theirs) == sat.OPTIMAL
    assert [solver.value(v) for v in ours_vars] == [reference.value(v) for v in their_vars]
    assert solver.objective_value == reference.objective_value
    assert solver.wall_time >= 0


def test_generated_hubs_are_answered_as_with_cp_model(monkeypatch) -> None:
    """openMCP (the joint model with joins) and kcp v0.8 (several slots) solved with this module
    and with ortools' cp_model in its place: the same outcome."""
    import solver.tenancy
    from adapters.kcp.generate import generate as generate_kcp
    from adapters.openmcp.generate import generate, generate_config
    from adapters.run.pipeline import schedule
    from tests.fixtures.common import NOW_TIME

    hubs = [
        (generate(50, 200, seed=7, now=NOW_TIME), generate_config(50, 200, seed=7)),
        (generate(100, 400, seed=3, now=NOW_TIME), generate_config(100, 400, seed=3)),
        (generate_kcp(60, 150, seed=2, now=NOW_TIME), None),
    ]
    ours = [schedule(objects, now=NOW_TIME, config=config) for objects, config in hubs]
    shim = types.SimpleNamespace(
        Model=cp_model.CpModel,
        Solver=cp_model.CpSolver,
        LinearExpr=cp_model.LinearExpr,
        IntVar=cp_model.IntVar,
        OPTIMAL=cp_model.OPTIMAL,
        FEASIBLE=cp_model.FEASIBLE,
    )
    monkeypatch.setattr(solver.tenancy, "sat", shim)
    theirs = [schedule(objects, now=NOW_TIME, config=config) for objects, config in hubs]
    for a, b in zip(ours, theirs, strict=True):
        assert a.apply == b.apply and a.delete == b.delete
        assert _untimed(a.summary) == _untimed(b.summary)
    assert any(s["levels"] for s in (o.summary for o in ours) if "levels" in s)


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def test_an_openmcp_solve_imports_no_pandas() -> None:
    """cp_model imports pandas (about 0.2 s of CPU); the joint model needs none of it."""
    code = (
        "from adapters.openmcp.generate import generate, generate_config\n"
        "from adapters.run.pipeline import schedule\n"
        "from tests.fixtures.common import NOW_TIME\n"
        "outcome = schedule(generate(50, 200, seed=7, now=NOW_TIME), now=NOW_TIME,\n"
        "                   config=generate_config(50, 200, seed=7))\n"
        "assert outcome.summary['models'] >= 1, outcome.summary\n"
    )
    assert imported_after(code, "pandas") == []
