"""Prepare's sorting of existing decisions: distinct clusters are classified as arrays
(`_classify_rows`), and that is the one-by-one loop's answer (`_classify_each`) field for field;
decisions naming a cluster twice take the loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

import solver.prepare as prepare_module
from model import ExistingDecision, SelectionMode, Taint
from solver.prepare import prepare
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_all, pick_n, term, tol

_FIELDS = ("kept", "released", "held_out", "elsewhere")
_ARRAYS = ("outcome", "obsolete", "held", "filtered")


def _batch(seed: int):
    """Clusters with taints new requests alone must tolerate (`new_only`), taints every request
    must, some leaving, some failing the requests' label term; requests holding clusters of the
    fleet and not of it, current or not, with and without the tolerations."""
    rng = random.Random(seed)
    clusters = []
    for i in range(40):
        taints = []
        if rng.random() < 0.3:
            taints.append(Taint("gpu", "yes", new_only=rng.random() < 0.7))
        if rng.random() < 0.1:
            taints.append(Taint("team", "x"))
        labels = {"env": "prod" if rng.random() < 0.8 else "dev"}
        clusters.append(cluster(f"c{i:02d}", labels, taints=taints, leaving=rng.random() < 0.1))
    requests = []
    for k in range(8):
        names = rng.sample(
            [f"c{i:02d}" for i in range(40)] + [f"gone{i}" for i in range(5)], rng.randint(1, 30)
        )
        existing = tuple(ExistingDecision(n, current=rng.random() < 0.75) for n in names)
        tolerations = (tol("gpu", "yes"),) if rng.random() < 0.5 else ()
        terms = (term({"env": "prod"}),) if rng.random() < 0.5 else ()
        kw = dict(existing=existing, tolerations=tolerations, required=terms)
        requests.append(pick_n(rng.randint(1, 5), f"r{k}", **kw) if k % 2 else pick_all(f"r{k}", **kw))
    return batch(clusters, *requests, explain_limit=rng.choice([0, 3, 20]))


def _state(p) -> dict:
    out = {f: getattr(p, f) for f in _FIELDS}
    out["kept"] = list(p.kept.items())  # in order
    for f in _ARRAYS:
        value = getattr(p, f)
        out[f] = None if value is None else (value.dtype.str, value.tolist())
    out["passing"] = None if p.passing is None else p.passing.tolist()
    out["base"] = None if p.base is None else p.base.tolist()
    return out


@pytest.mark.parametrize("seed", range(12))
def test_distinct_holdings_classified_as_arrays_are_the_loops_answer(seed: int, monkeypatch) -> None:
    monkeypatch.setattr(prepare_module, "_ROWS_FROM", 1)
    b = _batch(seed)
    assert all(len({d.cluster for d in r.existing}) == len(r.existing) for r in b.requests)
    rows = [_state(p) for p in prepare(b, ClusterTable(b))]

    def each(prepared, table, limit):
        prepared_decisions = sorted(prepared.request.existing, key=lambda d: d.cluster)
        prepare_module._classify_each(prepared, table, limit, prepared_decisions)

    monkeypatch.setattr(prepare_module, "_classify_existing", each)
    loop = [_state(p) for p in prepare(b, ClusterTable(b))]
    assert rows == loop
    # the cases the generator promises occur
    assert any(s["released"] for s in rows) and any(s["elsewhere"] for s in rows)
    assert any(s["held_out"] for s in rows) and any(s["obsolete"] is not None for s in rows)


def test_the_array_path_takes_many_distinct_holdings_and_the_loop_the_others(monkeypatch) -> None:
    """The loop is never asked for many decisions naming distinct clusters; it is for a few, and
    where two name the same cluster (the second then reads what the first set: the later decision
    kept, its row held once and obsolete as the earlier one left it)."""
    clusters = [
        cluster(f"c{i:02d}", taints=[Taint("gpu", "yes", new_only=True)] if i == 1 else []) for i in range(64)
    ]
    many = pick_all(
        "a", existing=tuple(ExistingDecision(f"c{i:02d}", current=i % 2 == 0) for i in range(1, 61))
    )
    others = tuple(ExistingDecision(f"c{i:02d}") for i in range(10, 59))
    twice = pick_n(
        2,
        "b",
        existing=(ExistingDecision("c01", current=False), ExistingDecision("c01"), *others),
        tolerations=(tol("gpu", "yes"),),
    )
    few = pick_all("c", existing=(ExistingDecision("c01"), ExistingDecision("c02", current=False)))
    assert (
        len(many.existing) >= prepare_module._ROWS_FROM and len(twice.existing) >= prepare_module._ROWS_FROM
    )
    calls = []
    real = prepare_module._classify_each

    def each(prepared, table, limit, decisions):
        calls.append(prepared.request.key)
        real(prepared, table, limit, decisions)

    monkeypatch.setattr(prepare_module, "_classify_each", each)
    b = batch(clusters, many, twice, few)
    a, p, c = prepare(b, ClusterTable(b))
    assert calls == ["b", "c"]
    assert p.request.mode is SelectionMode.N
    assert p.kept[1].current and p.obsolete[1]
    assert p.held.tolist() == [1, *range(10, 59)]
    assert a.held.tolist() == list(range(1, 61)) and np.flatnonzero(a.obsolete).tolist() == list(
        range(1, 61, 2)
    )
    assert c.held.tolist() == [1, 2] and np.flatnonzero(c.obsolete).tolist() == [2]
