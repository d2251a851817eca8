"""The patches since a kept value as one, carried forward from the epoch before (solver/table.py
`_MaskStore.since`, `_MaskStore._origin`, `_composed`): over drawn lineages of patches (rows made
again in place, one row joined or gone with the rows either side slid, two rows gone at once,
rows gathered afresh with new names among them, several patches with no read between), every
depth read in a drawn order moves a value as the patches one by one do, and is the patch composed
back from the log."""

from __future__ import annotations

import random

import numpy as np

from solver.table import _composed, _Masks, _slid

ROWS = 40


def _moved(values: list, kept, remade) -> list:
    """A value of each row alone moved through one patch."""
    out = list(values) if kept is None else [values[i] for i in kept.tolist()]
    for row, made in remade:
        out[row] = made
    return out


def _patch(values: list, rng: random.Random, step: int) -> tuple:
    """One drawn patch of `values` (each row's object): (kept, remade)."""
    size = len(values)
    kind = rng.randrange(6)
    if kind == 0:  # rows made again in place (a relabel, a taint; several: past _FEW_MADE)
        rows = sorted(rng.sample(range(size), rng.choice((1, 1, 2, 7))))
        return None, [(row, f"m{step}.{row}") for row in rows]
    if kind == 1:  # one row joined at `at`: a placeholder (-1), made again
        at = rng.choice((0, size, rng.randrange(size + 1)))
        return _slid(size, size + 1, at), [(at, f"j{step}")]
    if kind == 2:  # one row gone at `at` (the last one often: it is the edge of a slide)
        at = rng.choice((size - 1, rng.randrange(size)))
        return _slid(size, size - 1, at), []
    if kind == 3:  # a join beside rows made again, the join's last row among them
        at = rng.randrange(size + 1)
        kept = _slid(size, size + 1, at)
        rows = sorted({at, size} | set(rng.sample(range(size + 1), 2)))
        return kept, [(row, f"x{step}.{row}") for row in rows]
    if kind == 4:  # two gone at once, one of them the last (a gather that looks like a leave's slide)
        at = rng.randrange(size - 1)
        return np.array([*range(at), *range(at + 1, size - 1)], dtype=np.int64), []
    # Gathered afresh: rows shuffled, some dropped, new ones placed after row 0's place (a new
    # row's placeholder gathers row 0, as `_Rows._patched`'s does), row 0's often made again.
    order = rng.sample(range(size), size - 2)
    new = [len(order), len(order) + 1]
    kept = np.array(order + [0, 0], dtype=np.int64)
    remade = {row: f"n{step}.{row}" for row in new}
    if rng.random() < 0.5:
        remade[order.index(0) if 0 in order else 0] = f"z{step}"
    return kept, sorted(remade.items())


def _back(log: list, behind: int) -> tuple:
    """The last `behind` patches composed back from the log (the way before carrying forward)."""
    out = log[-1]
    for patch in reversed(log[len(log) - behind : -1]):
        out = _composed(patch, out)
    return out


def _same(a: tuple, b: tuple) -> bool:
    kept_same = (a[0] is None) == (b[0] is None) and (a[0] is None or np.array_equal(a[0], b[0]))
    return kept_same and a[1] == b[1]


def test_composed_forward_is_the_patches_one_by_one() -> None:
    """Fails where `_Masks.moved` keeps the epoch before's `previous` when nothing was composed
    since (`store.previous = store.composed or store.previous`: two patches with no read between
    carry a composition two epochs old), where `since` carries forward from `previous[i]` (one
    patch too few), where `_origin` lets a row the last patch made again keep its gather (its
    `carried[...] = False` line removed: a new row's placeholder takes row 0's place), where a
    slide's arithmetic keeps a row past the rows after (`if new < size` made always true: two
    rows gone, the last one too, read as a leave's slide) or moves a leave's own row (`row +
    delta` for every row from `at`), where a slide's slices skip the joined row's placeholder
    (`kept[-1:]` left out), where `_composed` finds no made row by comparison (its `_FEW_MADE`
    loop finding none), or where its table takes a joined row's placeholder (-1) for the last
    row (`& (kept2 >= 0)` removed: the base's KeyError where the last row was made again just
    before a join)."""
    for seed in range(40):
        rng = random.Random(seed)
        values = [f"c{i}" for i in range(ROWS)]
        masks = _Masks()
        store = masks._store
        at_epoch = {0: values}
        for step in range(1, 30):
            kept, remade = _patch(values, rng, step)
            masks = masks.moved(kept, remade)
            values = _moved(values, kept, remade)
            at_epoch[store.epoch] = values
            if rng.random() < 0.3:  # no read this epoch: the next carries nothing forward
                continue
            depths = list(range(1, len(store.log) + 1))
            rng.shuffle(depths)
            for behind in depths[: rng.randrange(1, len(depths) + 1)]:
                got = store.since(behind)
                assert _moved(at_epoch[store.epoch - behind], *got) == values, (seed, step, behind)
                assert _same(got, _back(store.log, behind)), (seed, step, behind)
