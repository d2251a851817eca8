"""Prepare's holdings given in name order, each cluster once and every one in the table (as the
adapters give them): classified as they come, without a sort, and that is the one-by-one loop's
answer field for field; holdings out of order, naming a cluster twice or one the table lacks are
sorted first, as before."""

from __future__ import annotations

import builtins
import random

import pytest

import solver.prepare as prepare_module
from model import ExistingDecision, Taint
from solver.prepare import prepare
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_all, pick_n, term, tol


def _batch(seed: int):
    """Requests holding clusters in name order (some also naming a cluster twice in a row, or
    one not in the fleet), current or not, over clusters with taints, some leaving."""
    rng = random.Random(seed)
    clusters = []
    for i in range(60):
        taints = [Taint("gpu", "yes", new_only=rng.random() < 0.7)] if rng.random() < 0.3 else []
        labels = {"env": "prod" if rng.random() < 0.8 else "dev"}
        clusters.append(cluster(f"c{i:02d}", labels, taints=taints, leaving=rng.random() < 0.1))
    requests = []
    for k in range(10):
        names = sorted(rng.sample([f"c{i:02d}" for i in range(60)], rng.randint(1, 40)))
        existing = [ExistingDecision(n, current=rng.random() < 0.75) for n in names]
        if k % 5 == 3:  # a cluster named twice, in name order
            at = rng.randrange(len(existing))
            existing.insert(at, ExistingDecision(existing[at].cluster, current=not existing[at].current))
        if k % 5 == 4:  # a cluster the table lacks, in name order (the first)
            existing.insert(0, ExistingDecision("a-gone"))
        tolerations = (tol("gpu", "yes"),) if rng.random() < 0.5 else ()
        terms = (term({"env": "prod"}),) if rng.random() < 0.5 else ()
        kw = dict(existing=tuple(existing), tolerations=tolerations, required=terms)
        requests.append(pick_n(rng.randint(1, 5), f"r{k}", **kw) if k % 2 else pick_all(f"r{k}", **kw))
    return batch(clusters, *requests, explain_limit=rng.choice([0, 3, 20]))


def _state(p) -> dict:
    out = {f: getattr(p, f) for f in ("released", "held_out", "elsewhere")}
    out["kept"] = list(p.kept.items())  # in order
    for f in ("outcome", "obsolete", "held", "filtered", "passing", "base"):
        value = getattr(p, f)
        out[f] = None if value is None else (value.dtype.str, value.tolist())
    return out


@pytest.mark.parametrize("seed", range(8))
def test_holdings_in_name_order_are_classified_unsorted_and_give_the_loops_answer(seed, monkeypatch) -> None:
    """Fails where the in-order path takes holdings that name a cluster twice in a row (its test
    `rows[1:] > rows[:-1]` made `>=`) or one the table lacks (`rows[0] >= 0` dropped: the lacking
    name first), or where it is dropped (holdings in name order sorted again)."""
    monkeypatch.setattr(prepare_module, "_ROWS_FROM", 1)
    b = _batch(seed)
    sorts = []

    def counted(items, **kw):
        sorts.append(items)
        return builtins.sorted(items, **kw)

    monkeypatch.setattr(prepare_module, "sorted", counted, raising=False)
    rows = [_state(p) for p in prepare(b, ClusterTable(b))]
    # Sorted: the holdings naming a cluster twice or one not in the table alone.
    resorted = [r.key for r in b.requests if any(items is r.existing for items in sorts)]
    assert resorted == [r.key for k, r in enumerate(b.requests) if k % 5 >= 3]
    monkeypatch.setattr(prepare_module, "sorted", builtins.sorted)

    def each(prepared, table, limit):
        prepared_decisions = builtins.sorted(prepared.request.existing, key=lambda d: d.cluster)
        prepare_module._classify_each(prepared, table, limit, prepared_decisions)

    monkeypatch.setattr(prepare_module, "_classify_existing", each)
    assert rows == [_state(p) for p in prepare(b, ClusterTable(b))]
