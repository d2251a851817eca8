"""Required terms' and scopes' masks kept with a long-lived scheduler's table rows (solver/table.py
_Masks): a lineage of batches, each after a cluster event (relabelled, properties or traits or
claims changed, gone, joined, several at once), each asking some of the masks (others left behind
for several patches), reads the masks a batch of fresh clusters reads."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import solver.table as T
from model import ClusterTerm
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, prop, req, sel, term

SIZE = 300  # above the size from which rows are kept


def _cluster(i: int, **labels: str) -> object:
    made = cluster(
        f"c{i:04d}",
        {"zone": f"z{i % 6}", "tier": f"t{i % 3}", **labels},
        {"cpu": str(i % 17)} if i % 5 else None,
    )
    return replace(made, claims={"region": f"r{i % 4}"}, traits=frozenset({f"x{i % 3}"} if i % 2 else ()))


def _fleet() -> list:
    return [_cluster(i) for i in range(SIZE)]


TERMS = [
    (term({"zone": "z1"}),),
    (term(None, req("tier", "NotIn", "t0")), term({"zone": "z3"})),
    (term(None, req("gpu", "Exists")),),
    (term(None, req("gpu", "DoesNotExist"), props=(prop("cpu", "Gt", "8"),)),),
    (ClusterTerm(claims=sel({"region": "r2"})),),
    (ClusterTerm(labels=sel({"tier": "t1"}), traits=("x1",)),),
]
SCOPES = [("x0",), ("x1", "x2")]


def _requests(step: int) -> list:
    """Every other term set and scope by step: the others are left behind a patch or more."""
    out = []
    for k, terms in enumerate(TERMS):
        if (k + step) % 3:
            out.append(pick_n(1, f"r{k}", required=terms, scope=SCOPES[(k + step) % 2]))
    return out


def _changed(clusters: list, step: int) -> list:
    out = list(clusters)
    at = (step * 37) % len(out)
    old = out[at]
    kind = step % 6
    if kind == 0:
        out[at] = replace(old, labels={**old.labels, "zone": "z1", "gpu": "yes"})
    elif kind == 1:
        out[at] = replace(old, properties={})
    elif kind == 2:
        out[at] = replace(old, traits=frozenset({"x0", "x1"}), claims={"region": "r2"})
    elif kind == 3:
        del out[at]
    elif kind == 4:
        out.append(_cluster(1000 + step, gpu="a"))
    else:
        out[at] = replace(old, labels={"tier": "t1"})
        out[(at + 1) % len(out)] = replace(out[(at + 1) % len(out)], load=old.load + 3)  # the load alone
    return sorted(out, key=lambda c: c.name)


def _masks(table: ClusterTable, requests: list) -> tuple[dict, dict]:
    required, _, scoped = table.batch_masks(
        (r.required for r in requests), (), (r.scope for r in requests if r.scope is not None)
    )
    return required, scoped


@pytest.mark.parametrize("log_up_to", [64, 1])
def test_a_lineages_kept_masks_are_a_fresh_batchs(log_up_to, monkeypatch) -> None:
    monkeypatch.setattr(T, "_LOG_UP_TO", log_up_to)
    clusters = _fleet()
    _Rows._last = None
    every = [pick_n(1, f"r{k}", required=t, scope=SCOPES[k % 2]) for k, t in enumerate(TERMS)]
    _masks(ClusterTable(batch(clusters, *every)), every)
    for step in range(1, 25):
        clusters = _changed(clusters, step)
        requests = _requests(step)
        kept = ClusterTable(batch(clusters, *requests))
        assert kept._rows.patched
        got = _masks(kept, requests)
        last = _Rows._last
        _Rows._last = None
        want = _masks(ClusterTable(batch([replace(c) for c in clusters], *requests)), requests)
        _Rows._last = last
        for have, expected in zip(got, want, strict=True):
            assert have.keys() == expected.keys()
            for key, mask in have.items():
                assert np.array_equal(mask, expected[key]), (step, key)
                assert mask.dtype == bool and not mask.flags.writeable


def test_kept_masks_are_not_evaluated_again(monkeypatch) -> None:
    clusters = _fleet()
    _Rows._last = None
    requests = [pick_n(1, f"r{k}", required=t, scope=SCOPES[k % 2]) for k, t in enumerate(TERMS)]
    _masks(ClusterTable(batch(clusters, *requests)), requests)
    asked: list = []
    evaluate = ClusterTable._evaluate_all

    def counted(self, groups):
        groups = [(list(keys), compile_one, dtype) for keys, compile_one, dtype in groups]
        asked.extend(k for keys, _, _ in groups for k in keys)
        return evaluate(self, groups)

    monkeypatch.setattr(ClusterTable, "_evaluate_all", counted)
    later = ClusterTable(batch(_changed(clusters, 1), *requests))
    required, scoped = _masks(later, requests)
    assert not asked and len(required) == len(TERMS) and len(scoped) == len(SCOPES)


def test_a_larger_table_keeps_proportionally_fewer(monkeypatch) -> None:
    monkeypatch.setattr(T, "_KEPT_ROWS", 100)  # 300 rows: a third of the masks and values
    monkeypatch.setattr(T, "_MASKS_UP_TO", 48)
    monkeypatch.setattr(T, "_VALUES_UP_TO", 48)
    _Rows._last = None
    table = ClusterTable(batch(_fleet(), pick_n(1)))
    table._rows.masks.keep(T._SCOPE, {(f"x{i}",): np.zeros(SIZE, dtype=bool) for i in range(40)})
    for i in range(40):
        table.keep(("value", i), i)
    store = table._rows.masks._store
    assert len(store.masks) == 16 and len(store.values) == 16
    assert (
        table.kept(("value", 39), lambda *a: None) == 39 and table.kept(("value", 0), lambda *a: None) is None
    )
