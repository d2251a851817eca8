"""A long-lived scheduler's kept values moved through the patches since they were kept as one
patch (solver/table.py `_MaskStore.since`): a lineage of tables, each after a cluster event
(relabelled, tainted, properties gone, gone, joined, several at once), each asking the verdicts
and masks of some requests (the others left one to seven patches behind), reads what a table of
fresh clusters reads, and the composed patch moves a value as the patches one by one do."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from solver.prepare import prepare
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, prop, req, taint, term

SIZE = 300  # above the size from which rows are kept


def _cluster(i: int, **labels: str) -> object:
    return cluster(
        f"c{i:04d}",
        {"zone": f"z{i % 6}", "tier": f"t{i % 3}", **labels},
        {"cpu": str(i % 17)} if i % 5 else None,
    )


TERMS = [
    (term({"zone": "z1"}),),
    (term(None, req("tier", "NotIn", "t0")), term({"zone": "z3"})),
    (term(None, req("gpu", "Exists")),),
    (term(None, req("gpu", "DoesNotExist"), props=(prop("cpu", "Gt", "8"),)),),
    (term({"tier": "t1"}),),
]


def _asked(step: int) -> list:
    """Request k asked every k + 1 steps: kept values one to five patches behind."""
    return [pick_n(2, f"r{k}", required=t) for k, t in enumerate(TERMS) if step % (k + 1) == 0]


def _changed(clusters: list, step: int) -> list:
    """One event's clusters (some steps two events' at once: a join and a relabel)."""
    out = list(clusters)
    at = (step * 37) % len(out)
    old = out[at]
    kind = step % 7
    if kind == 0:
        out[at] = replace(old, labels={**old.labels, "zone": "z1", "gpu": "yes"})
    elif kind == 1:
        out[at] = replace(old, properties={})
    elif kind == 2:
        out[at] = replace(old, taints=(taint("gone"),))
    elif kind == 3:
        del out[at]
    elif kind == 4:
        out.append(_cluster(1000 + step, gpu="a"))
    elif kind == 5:  # a join beside a relabel: the relabelled row made again, then slid
        out[at] = replace(old, labels={"tier": "t1", "gpu": "b"})
        out.append(_cluster(2000 + step, zone="z1"))
    else:
        out[at] = replace(old, labels={"tier": "t0"})
        out[(at + 1) % len(out)] = replace(out[(at + 1) % len(out)], load=old.load + 3)  # the load alone
    return sorted(out, key=lambda c: c.name)


def _judged(made, requests: list) -> tuple:
    """What a batch of the requests reads off the kept values: the required terms' masks and each
    request's filter outcome."""
    table = ClusterTable(made)
    required, _, _ = table.batch_masks((r.required for r in requests), (), ())
    return table, required, {p.request.key: p.outcome for p in prepare(made, table)}


def _names(names: list, kept, remade) -> list:
    """A value of each row's cluster alone: its name."""
    out = list(names) if kept is None else [names[i] for i in kept.tolist()]
    for row, made in remade:
        out[row] = made.name
    return out


def test_values_moved_through_the_patches_as_one_are_a_fresh_batchs() -> None:
    """Fails where `_composed` drops the first patch's rows made again that a later patch gathers
    (its `if remade:` block removed: a joined cluster's row, slid by the next join, reads the
    name of the row its placeholder gathered), or where it takes the second patch's gather alone
    (`kept2` for `kept[kept2]`: the masks and verdicts of rows two slides back are misplaced)."""
    clusters = [_cluster(i) for i in range(SIZE)]
    _Rows._last = None
    every = [pick_n(2, f"r{k}", required=t) for k, t in enumerate(TERMS)]
    table, *_ = _judged(batch(clusters, *every), every)
    names_at = {table._rows.masks._store.epoch: list(table._rows.names)}
    for step in range(1, 36):
        clusters = _changed(clusters, step)
        requests = _asked(step)
        kept, *got = _judged(batch(clusters, *requests), requests)
        assert kept._rows.patched
        last = _Rows._last
        _Rows._last = None
        _, *want = _judged(batch([replace(c) for c in clusters], *requests), requests)
        _Rows._last = last
        for have, expected in zip(got, want, strict=True):
            assert have.keys() == expected.keys()
            for key, value in have.items():
                assert np.array_equal(value, expected[key]), (step, key)
        # The composed patch of every depth against the patches one by one.
        store = kept._rows.masks._store
        names_at[store.epoch] = list(kept._rows.names)
        for behind in range(1, len(store.log) + 1):
            one_by_one = names_at[store.epoch - behind]
            for patch in store.log[len(store.log) - behind :]:
                one_by_one = _names(one_by_one, *patch)
            assert _names(names_at[store.epoch - behind], *store.since(behind)) == one_by_one
            assert one_by_one == names_at[store.epoch]
