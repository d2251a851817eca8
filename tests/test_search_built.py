"""solver.search builds a request's model once per shape (`_shape`: the cells' sizes, the picks,
the spread's constraints, counts held and the rows' domain codes) and copies it for the next ask
of that shape: the copy is the model a fresh build makes, proto and level terms alike, whatever
the request's scores, and a request of another shape gets its own."""

from __future__ import annotations

import random

import numpy as np
import pytest
from ortools.sat.python import cp_model_helper as cmh

from model import Preference
from solver import SolveOptions, search, solve
from solver.objective import LEVELS
from solver.prepare import prepare
from solver.solution import pick_order
from solver.spread import SpreadState
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, held, pick_n, pref, spread


@pytest.fixture(autouse=True)
def _empty() -> None:
    """No model kept before or after."""
    search._BUILT.clear()
    yield
    search._BUILT.clear()


def _signature(space: search.Space) -> tuple:
    """What a search reads of a built model: the proto, the booleans' rows in order, and each
    level's terms as CP-SAT receives them (variable indices, coefficients, offset)."""
    levels = []
    for i in range(len(LEVELS)):
        flat = cmh.FlatIntExpr(space.level(i))
        levels.append(([v.index for v in flat.vars], list(flat.coeffs), flat.offset))
    return str(space.model.proto), list(space.x), levels


def _fresh(p, table, want, cells) -> tuple:
    kept = dict(search._BUILT)
    search._BUILT.clear()
    try:
        return _signature(search.build(p, table, want, cells))
    finally:
        search._BUILT.clear()
        search._BUILT.update(kept)


def _cells(p, table, want) -> dict[int, list[int]]:
    """The cells solver.optimal.solve_spread models: each cell's best `want` candidates."""
    state = SpreadState(table, p.request.spread, list(p.kept))
    ids = state.cells(p.candidates)
    return {
        int(c): pick_order(p, table, p.candidates[ids == c])[:want].tolist() for c in np.unique(ids).tolist()
    }


def _fleet(rng: random.Random) -> list:
    return [
        cluster(
            f"n{i:02d}", {"zone": rng.choice("abc"), "rack": rng.choice("rstu"), "w": str(rng.randrange(3))}
        )
        for i in range(rng.randrange(8, 20))
    ]


@pytest.mark.parametrize("seed", range(6))
def test_a_model_copied_from_its_shape_is_the_one_built_fresh(seed: int) -> None:
    """Drawn fleets and requests under a zone spread (hard or soft, max skew 1 or 2) and a soft
    rack spread, holding a few clusters: each request's model built twice, the second copied,
    both the model a fresh build makes. Fails where `_shape` leaves out a constraint's max skew,
    or where `_again` leaves out the scores' terms (both checked)."""
    rng = random.Random(seed)
    clusters = _fleet(rng)
    names = [c.name for c in clusters]
    requests = []
    for k in range(6):
        requests.append(
            pick_n(
                rng.randrange(2, 6),
                name=f"p{k}",
                preferences=(pref(rng.randrange(1, 5), {"w": str(rng.randrange(3))}),),
                spread=(
                    spread("zone", rng.randrange(1, 3), hard=rng.random() < 0.5),
                    spread("rack", 1, hard=False),
                ),
                existing=tuple(
                    held(n, current=rng.random() < 0.5) for n in rng.sample(names, rng.randrange(3))
                ),
            )
        )
    b = batch(clusters, *requests)
    table = ClusterTable(b)
    again = 0
    for _ in range(2):  # each request twice: the second build of each copies the first's model
        for p in prepare(b, table):
            want = p.request.count - p.present
            if want <= 0:
                continue
            cells = _cells(p, table, want)
            kept = search._built(search._shape(p, table, want, cells, sorted(cells))) is not None
            again += kept
            assert _signature(search.build(p, table, want, cells)) == _fresh(p, table, want, cells)
    assert again >= 6


def test_rows_of_other_domains_in_cells_of_the_same_sizes_get_their_own_model() -> None:
    """Two asks of one request whose cells hold as many rows, the held counts the same, but a
    row in another zone: the second is built for its own rows' domains. Fails where `_shape`
    leaves out the modelled rows' domain codes (the second would copy the first's model)."""
    clusters = [cluster(f"{z}{i}", {"zone": z}) for z in "ab" for i in range(3)]
    b = batch(clusters, pick_n(3, spread=(spread("zone"),)))
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    rows = {c.name: i for i, c in enumerate(b.clusters)}
    first = {0: [rows["a0"], rows["a1"]], 1: [rows["b0"]]}
    second = {0: [rows["a0"], rows["b1"]], 1: [rows["b0"]]}
    built = _signature(search.build(p, table, 3, first))
    assert search._built(search._shape(p, table, 3, first, [0, 1])) is not None
    assert _signature(search.build(p, table, 3, second)) == _fresh(p, table, 3, second) != built


def test_a_kept_model_answers_as_a_fresh_one() -> None:
    """The Balance search of requests under two spreads that do not nest (a model each, asked
    round after round, some copied): the same answers and objective as with every model built
    fresh."""
    clusters = [cluster(f"{z}{i}", {"zone": z, "rack": f"r{i % 2}"}) for z in "ab" for i in range(4)]
    balance = (Preference(3, balance=True),)
    requests = [
        pick_n(3, name=f"p{k}", preferences=balance, spread=(spread("zone"), spread("rack")))
        for k in range(3)
    ]
    b = batch(clusters, *requests)
    copied = []
    again = search._again

    def counted(*args):
        copied.append(1)
        return again(*args)

    search._again = counted
    try:
        kept = solve(b, SolveOptions(mode="optimal"))
    finally:
        search._again = again
    assert copied  # later asks copied a kept model
    search._BUILT.clear()
    search._SOLVED.clear()
    original = search._built
    try:
        search._built = lambda shape: None  # every model built fresh
        fresh = solve(b, SolveOptions(mode="optimal"))
    finally:
        search._built = original
    assert kept.requests == fresh.requests
    assert kept.stats.objective == fresh.stats.objective


def test_a_model_of_more_booleans_than_kept_is_built_fresh_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model past `_BUILT_ROWS` booleans is not kept (its copy would hold megabytes): each
    build is fresh, and the same. Fails where `_keep_built` keeps it whatever its size."""
    clusters = [cluster(f"{z}{i}", {"zone": z}) for z in "ab" for i in range(3)]
    b = batch(clusters, pick_n(3, spread=(spread("zone"),)))
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    cells = _cells(p, table, 3)
    monkeypatch.setattr(search, "_BUILT_ROWS", sum(map(len, cells.values())) - 1)
    first = _signature(search.build(p, table, 3, cells))
    assert not search._BUILT
    assert _signature(search.build(p, table, 3, cells)) == first
    monkeypatch.setattr(search, "_BUILT_ROWS", sum(map(len, cells.values())))
    search.build(p, table, 3, cells)
    assert len(search._BUILT) == 1
