"""Prepare's one-row filter code (`_code`, a kept verdict's rows made again): the first rule the
cluster fails in solver.admits' order, judged only as far as it, is what `refusals` reports."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import solver.prepare as prepare_module
from model import Taint
from solver.admits import refusals, untolerated
from tests.fixtures.builders import cluster, pick_n, term, tol


def _expected(request, c, forever) -> int:
    first = refusals(request, c, None)
    if not first:
        return prepare_module.PASS
    code = prepare_module._CODE[first[0]]
    if code == prepare_module.TAINT and forever is not None and untolerated(c, forever, None) is None:
        return prepare_module.PASS
    return code


@pytest.mark.parametrize("seed", range(4))
def test_a_rows_code_is_its_first_refusal(seed: int) -> None:
    """Fails where the rules are judged in another order (eligibility before the required terms,
    or the scope after them), or where the taints held forever are not asked."""
    rng = random.Random(seed)
    clusters = []
    for i in range(60):
        taints = [Taint("gpu", "yes")] if rng.random() < 0.4 else []
        c = cluster(
            f"c{i:02d}",
            {"zone": rng.choice("ab")},
            taints=taints,
            eligible=rng.random() < 0.7,
            leaving=rng.random() < 0.1,
        )
        clusters.append(replace(c, traits=frozenset({"edge"}) if rng.random() < 0.5 else frozenset()))
    requests = [
        pick_n(
            1,
            f"r{k}",
            required=(term({"zone": "a"}),) if k % 2 else (),
            tolerations=(tol("gpu", "yes"),) if k % 3 == 0 else (),
            scope=("edge",) if k % 4 < 2 else None,
        )
        for k in range(12)
    ]
    forever = (tol("gpu", "yes"),)
    codes = set()
    for request in requests:
        for c in clusters:
            for held_forever in (None, forever):
                got = prepare_module._code(request, c, held_forever)
                assert got == _expected(request, c, held_forever), (request.key, c.name, held_forever)
                codes.add(got)
    assert codes == {0, 1, 2, 3, 5}  # every code met
