"""The project's one way to CP-SAT: ortools' own C++ model and solver, without its `cp_model` module.

`cp_model` imports pandas at its top (for its `*_series` and `values` methods, which nothing here
calls): about 0.2 s of CPU and 34 MiB in every process that builds a model through it, several
times a small model's own build. The model and the solver here are ortools' own C++ ones
(`cp_model_helper`, which `cp_model` wraps), driven with the calls `cp_model.CpModel` and
`CpSolver` make for the methods the project's models use (ortools pinned, pyproject.toml), so each
model's proto is the one `cp_model` builds, and every answer is the same (tests/test_sat.py builds
every model both ways and compares their protos). Every model reaches CP-SAT here: the search of
one request (solver.search, solver.space and the concepts' `contribute`), the replica classes'
capacity model (solver.replicas.capacity_model) and the tenancy models (solver.tenancy.joint).

A model made here holds no cycle (`cp_model.CpModel` binds its deprecated camel-case aliases onto
itself, some 3,400 objects the collector had to find): it goes when its last reference does.
Importing this module costs about a quarter of `cp_model`'s import, so it is still imported only
where a model is built.
"""

from __future__ import annotations

import numpy as np
from ortools.sat.python import cp_model_helper as cmh
from ortools.util.python.sorted_interval_list import Domain

__all__ = ["FEASIBLE", "OPTIMAL", "IntVar", "LinearExpr", "Model", "Solver"]

IntVar = cmh.IntVar
LinearExpr = cmh.LinearExpr
OPTIMAL = cmh.CpSolverStatus.OPTIMAL
FEASIBLE = cmh.CpSolverStatus.FEASIBLE

_INTEGRAL = (int, np.integer)  # what cp_model takes as a constant objective


class Model(cmh.CpBaseModel):
    """The part of `cp_model.CpModel` the project's models use, with the same calls beneath."""

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

    def add_implication(self, a, b) -> cmh.Constraint:
        """`a => b`: cp_model's bool_and of `b` enforced by `a`."""
        return self._add_bool_argument_constraint(cmh.BoolArgumentConstraint.bool_and, b).only_enforce_if(a)

    def add_at_most_one(self, *literals) -> cmh.Constraint:
        return self._add_bool_argument_constraint(cmh.BoolArgumentConstraint.at_most_one, *literals)

    def add_multiplication_equality(self, target: cmh.LinearExpr, expressions: list) -> cmh.Constraint:
        return self._add_linear_argument_constraint(cmh.LinearArgumentConstraint.prod, target, expressions)

    def get_int_var_from_proto_index(self, index: int) -> cmh.IntVar:
        if index < 0 or index >= len(self.model_proto.variables):
            raise ValueError(f"get_int_var_from_proto_index: out of bound index {index}")
        return IntVar(self.model_proto, index)

    def minimize(self, obj: cmh.LinearExpr | int) -> None:
        self._set_objective(obj, maximize=False)

    def maximize(self, obj: cmh.LinearExpr | int) -> None:
        self._set_objective(obj, maximize=True)

    def _set_objective(self, obj: cmh.LinearExpr | int, *, maximize: bool) -> None:
        """cp_model's, for integral objectives (every one here: no floating point objective)."""
        self.model_proto.clear_objective()
        self.model_proto.clear_floating_point_objective()
        objective = self.model_proto.objective
        if isinstance(obj, _INTEGRAL):
            objective.offset = int(obj)
            objective.scaling_factor = 1.0
            return
        if not isinstance(obj, cmh.LinearExpr) or not obj.is_integer():
            raise TypeError(f"not an integral objective: {type(obj).__name__!r}")
        flat = cmh.FlatIntExpr(obj)
        # In two extends, not an append a term (a search's stage objective has some hundred).
        objective.vars.extend([var.index for var in flat.vars])
        if maximize:
            objective.scaling_factor = -1.0
            objective.offset = -flat.offset
            objective.coeffs.extend([-c for c in flat.coeffs])
        else:
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
    """The part of `cp_model.CpSolver` the project's models use (no callbacks: none is set)."""

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

    def boolean_value(self, literal) -> bool:
        return cmh.ResponseHelper.boolean_value(self._checked, literal)

    @property
    def objective_value(self) -> float:
        return self._checked.objective_value

    @property
    def best_objective_bound(self) -> float:
        return self._checked.best_objective_bound

    @property
    def wall_time(self) -> float:
        return self._checked.wall_time

    @property
    def deterministic_time(self) -> float:
        return self._checked.deterministic_time

    @property
    def response_proto(self) -> cmh.CpSolverResponse:
        return self._checked
