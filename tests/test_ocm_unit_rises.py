"""A picture's rises read off its weight-1 rises (adapters/ocm/reach.py, `OcmLive._unit_rises`:
every Balance weight of one sign scales one array and shares its order by rise), and an answer's
clusters in a drift found by set intersection (`_in_drift`). Each gives what the arrays and
look-ups it replaces give, on generated hubs and on made-up maps."""

from __future__ import annotations

import random
from array import array
from collections import Counter

import numpy as np

from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive
from tests.fixtures.live import ocm_model_after


def _run(mode: str, events: int, seed: int = 0) -> OcmLive:
    return ocm_model_after(mode, events, seed)


def _rises_weighted(live: OcmLive, drift, most: int, then: int, weight: int, mates: bool) -> np.ndarray:
    """The shared rises as each weight made them before (`_shared_rises` at 631788f): the weighted
    score now less the least weighted score on the picture's range."""
    s_now, s_low, s_high = live._balance_bases(drift, most, then)
    scores = weight * s_now
    if not mates:
        return scores - weight * s_low
    return scores - np.minimum(weight * s_low, weight * s_high)


def test_the_rises_scaled_from_a_pictures_unit_rises_are_each_weights_own() -> None:
    """After 25 generated events, for each drift kept (batch-mates' moves given to it or not),
    busiest counts then below, at and above now, and Balance weights of both signs and 0, the
    shared rises are those the weight makes itself (the weighted scores' difference, exact
    integers, read only), their order by rise is the array's own (positions above 0, greatest
    first, then position), weights of one sign share one order, and weight 1 reads the unit
    array itself. Fails where a weight below 0 with batch-mates' moves scales the weight-1
    rises (`np.maximum` read as `np.minimum` in `_unit_rises`), or where weight 0 takes a sign's
    order."""
    live = _run("greedy", 25)
    drifts = [entry[2] for entry in live._drifts.values() if len(entry[2].names) > 1]
    assert drifts
    most = max(live.counts.values(), default=0) + 1
    asked = Counter()
    for drift in drifts[:5]:
        live._shared_rise.clear()
        live._units.clear()
        live._orders.clear()
        # Batch-mates' moves on the drift's clusters, so that the range's ends differ.
        drift = reach_module._Drift(
            drift.mates,
            drift.names,
            drift.index,
            drift.then,
            drift.now,
            np.arange(len(drift.names), dtype=np.int64) % 3,
            np.arange(len(drift.names), dtype=np.int64) % 2,
        )
        for then in (most - 1, most, most + 3):
            for mates in (False, True):
                orders: dict[int, list[int]] = {}
                for weight in (1, 3, 2, 0, -1, -2, -7):
                    rises = live._shared_rises(drift, most, then, weight, mates)
                    want = _rises_weighted(live, drift, most, then, weight, mates)
                    assert rises.dtype == want.dtype and np.array_equal(rises, want), (weight, then, mates)
                    assert not rises.flags.writeable
                    order = live._rise_order(rises)
                    rising = np.flatnonzero(want > 0)
                    assert order == rising[np.argsort(-want[rising], kind="stable")].tolist(), (weight, mates)
                    sign = (weight > 0) - (weight < 0)
                    if sign and sign in orders:
                        assert order is orders[sign]
                        asked["shared"] += 1
                    orders.setdefault(sign, order)
                    asked["rising"] += bool(order)
                    asked["falling"] += weight < 0 and bool(order)
                    if weight == 1:
                        unit, _ = live._unit_rises(drift, most, then, mates, True)
                        assert rises is unit
    assert asked["shared"] > 10 and asked["rising"] > 10 and asked["falling"] > 5, asked


def _in_drift_by_look_up(index, own, answer) -> set[str]:
    """`_rise_patch`'s clusters as it found them before: the union of the Placement's decisions
    now and then and the answer's moves, each looked up."""
    return {c for c in {*own, *answer.own, *answer.up, *answer.down} if index.get(c) is not None}


def test_an_answers_clusters_in_a_drift_found_at_once_are_those_looked_up_one_by_one() -> None:
    """`_in_drift` gives the same names as the union looked up one by one, for drifts as dicts and
    as `_Places`, over decisions as dicts, Counters and `_Ones`, the answer's decisions the same
    object as now or another, and moves up and down. Fails where the answer's moves down are
    left out (`answer.down` not intersected)."""
    rng = random.Random(7)
    names = [f"c{i:03d}" for i in range(60)]
    number = {c: i for i, c in enumerate(names)}
    asked = Counter()
    for _ in range(400):
        moved = sorted(rng.sample(names, rng.randint(0, 40)))
        if rng.random() < 0.5:
            index = dict(zip(moved, range(len(moved)), strict=True))
        else:
            at = array("q", [-1] * len(names))
            for place, c in enumerate(moved):
                at[number[c]] = place
            index = reach_module._Places(number, at, moved)

        def counts(kind: str) -> object:
            picked = rng.sample(names, rng.randint(0, 12))
            if kind == "dict":
                return {c: rng.randint(1, 3) for c in picked}
            if kind == "counter":
                return Counter({c: rng.randint(1, 3) for c in picked})
            return reach_module._Ones(frozenset(picked))

        own = counts(rng.choice(["dict", "counter", "ones"]))
        then = own if rng.random() < 0.4 else counts(rng.choice(["dict", "counter", "ones"]))
        answer = reach_module._Answer(
            {},
            None,
            True,
            0,
            0,
            own=then,
            up=frozenset(rng.sample(names, rng.randint(0, 3))),
            down=frozenset(rng.sample(names, rng.randint(0, 3))),
        )
        got = reach_module._in_drift(index, own, answer)
        want = _in_drift_by_look_up(index, own, answer)
        assert set(got) == want
        asked["found"] += bool(want)
        asked["down"] += bool(answer.down & set(moved) - set(own) - set(then) - answer.up)
        asked["places"] += type(index) is not dict
    assert asked["found"] > 100 and asked["down"] > 10 and asked["places"] > 100, asked


def test_who_moved_since_a_sorters_picture_read_off_its_drift_is_the_logs() -> None:
    """`_stands_margins` reads which of a sorter's picks moved since its picture off the drift it
    was handed (`_moved_for`; its answers with no batch-mates' moves alone come there): over 40
    generated events (greedy), every such read names exactly the clusters `_moved_since` gives
    for that picture, some of them with clusters moved. Fails where nothing is read as moved
    (`_moved_for` answering `_NO_COUNTS`: a moved pick's total kept as it was)."""
    moved_for, asked = OcmLive._moved_for, Counter()

    def checked(self, answer, drift):
        out = moved_for(self, answer, drift)
        assert set(out) == set(self._moved_since(answer.seen))
        asked["drift" if out is (drift.index if drift is not None else None) else "log"] += 1
        asked["moved"] += bool(out)
        return out

    OcmLive._moved_for = checked
    try:
        _run("greedy", 40)
    finally:
        OcmLive._moved_for = moved_for
    assert asked["drift"] > 20 and asked["moved"] > 20, asked
