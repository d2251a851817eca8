"""Batch -> decisions: the greedy reference, the joint CP-SAT model, and an independent checker."""

from solver.api import MODES, SolveOptions, solve
from solver.checker import check

__all__ = ["MODES", "SolveOptions", "check", "solve"]
