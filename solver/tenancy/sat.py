"""CP-SAT for the tenancy models, without ortools' `cp_model` module.

`cp_model` imports pandas at its top (for its `*_series` methods, which nothing here calls): about
0.2 s of CPU on every command whose tenancy part builds a joint model (openMCP's 10,000 x 50,000
hub), several times the model's own build. The model and the solver are ortools' own C++ ones
(`cp_model_helper`, which `cp_model` wraps), driven with the calls `cp_model.CpModel` and
`CpSolver` make for the few methods used here, so the model's proto is the same, and so is every
answer (tests/test_tenancy_sat.py builds both and compares their protos).
"""

from __future__ import annotations

from ortools.sat.python import cp_model_helper as cmh
from ortools.util.python.sorted_interval_list import Domain

__all__ = ["FEASIBLE", "OPTIMAL", "IntVar", "LinearExpr", "Model", "Solver"]

IntVar = cmh.IntVar
LinearExpr = cmh.LinearExpr
OPTIMAL = cmh.CpSolverStatus.OPTIMAL
FEASIBLE = cmh.CpSolverStatus.FEASIBLE


class Model(cmh.CpBaseModel):
    """The part of `cp_model.CpModel` the tenancy models use."""

    def __init__(self) -> None:
        cmh.CpBaseModel.__init__(self, None)

    @property
    def proto(self) -> cmh.CpModelProto:
        return self.model_proto

    def new_int_var(self, lb: int, ub: int, name: str) -> cmh.IntVar:
        return IntVar(self.model_proto).with_name(name).with_domain(Domain(lb, ub))

    def new_bool_var(self, name: str) -> cmh.IntVar:
        return IntVar(self.model_proto).with_name(name).with_domain(Domain(0, 1))

    def add(self, ct: cmh.BoundedLinearExpression | bool) -> cmh.Constraint:
        if isinstance(ct, cmh.BoundedLinearExpression):
            return self._add_bounded_linear_expression(ct)
        if ct and self.is_boolean_value(ct):
            return self._add_bool_argument_constraint(cmh.BoolArgumentConstraint.bool_or, [True])
        if not ct and self.is_boolean_value(ct):
            return self._add_bool_argument_constraint(cmh.BoolArgumentConstraint.bool_or, [])
        raise TypeError(f"not supported: Model.add({type(ct).__name__!r})")

    def add_multiplication_equality(self, target: cmh.LinearExpr, expressions: list) -> cmh.Constraint:
        return self._add_linear_argument_constraint(cmh.LinearArgumentConstraint.prod, target, expressions)

    def get_int_var_from_proto_index(self, index: int) -> cmh.IntVar:
        return IntVar(self.model_proto, index)

    def minimize(self, obj: cmh.LinearExpr | int) -> None:
        self.model_proto.clear_objective()
        self.model_proto.clear_floating_point_objective()
        objective = self.model_proto.objective
        if isinstance(obj, int):
            objective.offset = int(obj)
            objective.scaling_factor = 1.0
            return
        if not obj.is_integer():
            raise TypeError("a tenancy objective is integral")
        flat = cmh.FlatIntExpr(obj)
        for var in flat.vars:
            objective.vars.append(var.index)
        objective.scaling_factor = 1.0
        objective.offset = flat.offset
        objective.coeffs.extend(flat.coeffs)

    def add_hint(self, var: cmh.IntVar, value: int) -> None:
        hint = self.model_proto.solution_hint
        if var.index >= 0:
            hint.vars.append(var.index)
            hint.values.append(int(value))
        else:
            hint.vars.append(-var.index - 1)
            hint.values.append(int(not value))

    def clear_hints(self) -> None:
        self.model_proto.clear_solution_hint()


class Solver:
    """The part of `cp_model.CpSolver` the tenancy models use."""

    def __init__(self) -> None:
        self.parameters = cmh.SatParameters()
        self._response: cmh.CpSolverResponse | None = None

    def solve(self, model: Model) -> cmh.CpSolverStatus:
        wrapper = cmh.SolveWrapper()
        wrapper.set_parameters(self.parameters)
        self._response = wrapper.solve(model.model_proto)
        return self._response.status

    @property
    def _checked(self) -> cmh.CpSolverResponse:
        if self._response is None:
            raise RuntimeError("solve() has not been called.")
        return self._response

    def value(self, expression: cmh.LinearExpr | int) -> int:
        return cmh.ResponseHelper.value(self._checked, expression)

    @property
    def objective_value(self) -> float:
        return self._checked.objective_value

    @property
    def wall_time(self) -> float:
        return self._checked.wall_time
