"""The Balance search's row sets made without np.unique (solver.balance `_union`, setxor1d of
distinct rows): the same rows, and numpy.ma, which np.unique's masked-array check imports (some
40 ms of the OCM command's CPU, for nothing else there), left unimported."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import solver.balance as balance
from tests.fixtures.common import imported_after

_ROWS = st.lists(st.integers(0, 40), unique=True, max_size=12).map(
    lambda rows: np.asarray(sorted(rows), dtype=np.int64)
)


@given(_ROWS, _ROWS)
def test_the_union_of_distinct_rows_is_numpys(a: np.ndarray, b: np.ndarray) -> None:
    union = balance._union(a, b)
    expected = np.union1d(a, b)
    assert union.dtype == expected.dtype and union.tolist() == expected.tolist()
    assert np.setxor1d(a, b, assume_unique=True).tolist() == np.setxor1d(a, b).tolist()


def test_a_coupled_optimal_solve_leaves_numpy_ma_unimported() -> None:
    code = (
        "from solver import SolveOptions, solve\n"
        "from tests.fixtures.builders import batch, cluster\n"
        "from model import ExistingDecision, PlacementRequest, Preference, SelectionMode\n"
        "prefs = (Preference(1, balance=True), Preference(1, held=True))\n"
        "held = (ExistingDecision('c1', current=False),)\n"
        "requests = [PlacementRequest(f'p{k}', namespace='ns', mode=SelectionMode.N, count=2,\n"
        "                             preferences=prefs, existing=held) for k in range(4)]\n"
        "result = solve(batch([cluster(f'c{i}') for i in range(6)], *requests), SolveOptions())\n"
        "assert result.stats.mode == 'optimal' and result.requests\n"
    )
    assert imported_after(code, "numpy.ma") == []
