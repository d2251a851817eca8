"""The bound of the clusters an OCM answer left out (adapters/ocm/reach.py, `OcmLive._left_out`):
a sorter's threats judged by total before their filters (`_judged_inside`, `_inside_of`), the
order by rise shared by every Balance weight of a picture (`_rise_order`, `_unit_rises`), and a
walk found not to stand refused at once (`_walk_stands`, `_unstood`), or brought up to the log
of models replaced (`_walk_moved`, `_log_since`), and a sorter's ends read with its walks at once
(`_sorter_ends`), and a sorter's few threats all refused by their filters answered without its
ends (`_none_admitted`), and a threat's scope and bound read through kept parts (`_members`,
`_upper_parts`). Each gives what the path it replaces gives, on generated hubs."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive
from tests.fixtures.live import count_admits_outside_walks, ocm_model_after


def _run(mode: str, events: int, seed: int = 0) -> OcmLive:
    return ocm_model_after(mode, events, seed)


def _one_by_one(self, request, drift, order, inner, found, beaten, own, most, held, now):
    """`_judged_inside` as `_judged_in_order` judged it before: each threat in name order, its
    total first (`_inside_total`), its filters where that beats what was found so far."""
    for at in order:
        name = drift.names[at]
        cluster = self.pool.get(name)
        if cluster is None:
            continue
        inside = reach_module._inside_total(request, cluster, own, most, held, inner)
        if inside is not None:
            if not reach_module._beats((inside, name), beaten):
                continue
            if not reach_module.admits(request, cluster, now, held=name in held):
                continue
            found = reach_module._better(found, (inside, name))
            beaten = reach_module._better(beaten, (inside, name))
            continue
        if not reach_module.admits(request, cluster, now, held=name in held):
            continue
        total = self._within_range(request, cluster, own, most, held, now)
        if total is None:
            return False
        found = reach_module._better(found, (total, name))
        beaten = reach_module._better(beaten, (total, name))
    return found


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_sorters_threats_asked_their_filters_by_total_judge_as_one_by_one(mode, monkeypatch) -> None:
    """Over 60 generated events (seed 3), every verdict `_judged_inside` gives is the one the threats
    judged one by one in name order give (False where that is False; a bound as the caller reads
    it, the better of it and what it must beat), every total `_inside_of` reads is
    `_inside_total`'s, and its filters are asked of no more threats, of fewer in some answer.
    Fails where the threats whose total beats what was found are not sorted by total before
    their filters are asked (`inside.sort` left out: the first in name order that passes taken)."""
    judged, asked = OcmLive._judged_inside, Counter()

    def inside_of(c, ends, total_of):
        out = reach_module._inside_total(request_of[0], c, *context[0], ends)
        assert inside(c, ends, total_of) == out
        asked["inside"] += out is not None
        return out

    request_of: list = [None]
    context: list = [None]
    inside = reach_module._inside_of

    def checked(self, request, drift, order, inner, found, beaten, own, most, held, now):
        request_of[0], context[0] = request, (own, most, held)
        first = asked["admits"]
        out = judged(self, request, drift, list(order), inner, found, beaten, own, most, held, now)
        fast = asked["admits"] - first
        whole = _one_by_one(self, request, drift, list(order), inner, found, beaten, own, most, held, now)
        slow = asked["admits"] - first - fast
        assert (out is False) == (whole is False)
        if out is not False:
            read = [reach_module._better(beaten, x) if x is not None else beaten for x in (out, whole)]
            assert read[0] == read[1], (out, whole, beaten)
        assert fast <= slow
        asked["fewer"] += fast < slow
        asked["calls"] += 1
        return out

    count_admits_outside_walks(monkeypatch, asked)
    monkeypatch.setattr(reach_module, "_inside_of", inside_of)
    monkeypatch.setattr(OcmLive, "_judged_inside", checked)
    _run(mode, 60, seed=3)
    assert asked["calls"] > 5 and asked["inside"] > 5 and asked["fewer"] > 0, asked


def test_the_order_by_rise_shared_across_weights_is_each_arrays_own() -> None:
    """After 40 generated events, for each drift kept and a range of Balance weights (0 and below
    too) and busiest counts then, the order `_rise_order` gives every shared rises array (read
    off the weight-1 rises of the weight's sign, `_unit_rises`) is that array's own: its
    positions above 0 by rise, greatest first, then position. Fails where the order is shared
    with a weight of 0 or below (`weight > 0` read as `weight != 0`)."""
    live = _run("greedy", 40)
    shared = 0
    drifts = [entry[2] for entry in live._drifts.values() if len(entry[2].names) > 1]
    assert drifts
    most = max(live.counts.values(), default=0) + 1
    for drift in drifts[:4]:
        for then in (most, most + 3):
            for mates in (False, True):
                for weight in (1, 3, 2, 0, -1, -2):
                    before = len(live._orders)
                    rises = live._shared_rises(drift, most, then, weight, mates)
                    shared += weight > 0 and len(live._orders) > before and id(rises) in live._orders
                    order = live._rise_order(rises)
                    rising = np.flatnonzero(rises > 0)
                    own = rising[np.argsort(-rises[rising], kind="stable")].tolist()
                    assert order == own, (weight, then, mates)
    assert shared > 0


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_walk_refused_once_is_refused_as_the_log_would_refuse_it(mode, monkeypatch) -> None:
    """Over 60 generated events, every answer `_walk_stands` gives is the one it gives with its
    refusals forgotten (`_unstood` emptied: the log read again), and some refusals are read off
    them. Fails where a refusal is kept by the key alone, not by the walk it refused (a walk
    made afresh since read as refused)."""
    original, asked = OcmLive._walk_stands, Counter()

    def checked(self, key):
        kept = self._walks.get(key)
        remembered = kept is not None and self._unstood.get(key) is kept
        out = original(self, key)
        unstood = dict(self._unstood)
        self._unstood.clear()
        try:
            assert original(self, key) == out, key
        finally:
            self._unstood.clear()
            self._unstood.update(unstood)
        asked["remembered"] += remembered
        asked[out] += 1
        return out

    monkeypatch.setattr(OcmLive, "_walk_stands", checked)
    _run(mode, 60)
    assert asked["remembered"] > 0 and asked[True] > 0, asked


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_sorters_threats_read_as_arrays_judge_as_one_by_one(mode, monkeypatch) -> None:
    """Over 40 generated events, every sorter's threats sent through the arrays
    (`_judged_inside_of`, `_INSIDE_ARRAYS` at 1) give exactly the verdict the loop gives them
    (`_INSIDE_ARRAYS` past any count: False, None or the same bound), every total and end
    `_inside_totals` reads over the take's columns (`_column`) is `_inside_of`'s, cluster by
    cluster, every threat's scope read by position (`_in_scope_of`) is `_in_scope_at`'s, and
    every bound `_scored_bounds` reads over the columns is the one read cluster by cluster.
    Fails where the columns outlive a take (`self._columns.clear()` left out of `take`: a load
    read on an earlier take's model)."""
    judged, asked = OcmLive._judged_inside, Counter()

    def checked(self, request, drift, order, inner, found, beaten, own, most, held, now):
        if not order:
            return judged(self, request, drift, order, inner, found, beaten, own, most, held, now)
        at = np.asarray(order, dtype=np.int64)
        at = at[~self._column(drift, ("gone", ""), at)]
        named = [drift.names[i] for i in at.tolist()]
        totals = reach_module._inside_totals(request, drift, at, named, inner, own, most, held, self._column)
        if totals is not None:
            total_of = reach_module._total_of(request, own, most, held)
            for i, name in enumerate(named):
                one = reach_module._inside_of(self.pool.get(name), inner, total_of)
                assert bool(totals[1][i]) == (one is None), name
                assert one is None or int(totals[0][i]) == one, (name, int(totals[0][i]), one)
                asked["totals"] += 1
        monkeypatch.setattr(reach_module, "_INSIDE_ARRAYS", 1)
        fast = judged(self, request, drift, list(order), inner, found, beaten, own, most, held, now)
        monkeypatch.setattr(reach_module, "_INSIDE_ARRAYS", 1 << 30)
        slow = judged(self, request, drift, list(order), inner, found, beaten, own, most, held, now)
        assert fast == slow and (fast is False) == (slow is False), (fast, slow)
        asked["calls"] += 1
        return fast

    scoped = OcmLive._in_scope_of

    def in_scope(self, request, drift, wanted):
        out = scoped(self, request, drift, wanted)
        assert out == self._in_scope_at(request, drift, wanted)
        asked["scopes"] += 1
        return out

    bounded = OcmLive._scored_bounds

    def scored_bounds(self, request, drift, upper, order):
        out = bounded(self, request, drift, upper, order)
        one_by_one = dict(zip(order, upper[list(order)].tolist(), strict=True))
        assert out == self._scored_parts(request, drift, one_by_one, order)
        asked["bounds"] += 1
        return out

    monkeypatch.setattr(OcmLive, "_judged_inside", checked)
    monkeypatch.setattr(OcmLive, "_in_scope_of", in_scope)
    monkeypatch.setattr(OcmLive, "_scored_bounds", scored_bounds)
    _run(mode, 40, seed=3)
    assert asked["calls"] > 5 and asked["totals"] > 20 and asked["scopes"] > 0 and asked["bounds"] > 0, asked


@pytest.mark.parametrize(("mode", "walk"), [("greedy", 6), ("optimal", 6), ("optimal", 12)])
def test_a_walk_brought_up_to_the_log_is_the_walk_made_afresh(mode, walk, monkeypatch) -> None:
    """Over 60 generated events (walks of at most `walk` steps: the hub's 80 clusters would
    all be read by walks of `_WALK`, kept with no reach, never brought up), every walk
    `_walk_moved` brings up to the log of models replaced (where `_walk_stands` refused it) is
    the walk made afresh there: the same end (its step, value and name, or none within the
    steps) and the same reach `_kept_walk` keeps with it; and every first pair `_log_since`
    reads over the log's tail is the one read pair by pair. Some walks are brought up so,
    with and without an end. Fails where a replaced cluster within what the walk read is taken
    as passing without its filters asked (`admits` left out of `_walk_moved`)."""
    moved, since, asked = OcmLive._walk_moved, OcmLive._log_since, Counter()

    def checked(self, request, key, now):
        out = moved(self, request, key, now)
        if out:
            prop, side, _ = key
            found = self._walk(request, prop, side, 0, "", now)
            pairs = self._by_value(prop)
            if found is not None:
                reach = (found[1], found[2])
            else:
                reach = pairs[reach_module._WALK - 1] if side == 0 else pairs[len(pairs) - reach_module._WALK]
            assert self._walks[key] == (found, len(self._remodels), reach), key
            asked["found" if found is not None else "none"] += 1
        return out

    def read(self, prop, side, start):
        out = since(self, prop, side, start)
        pairs = [
            (q.as_float(), c.name)
            for pair in self._remodels[start:]
            for c in pair
            if c is not None and (q := c.properties.get(prop)) is not None
        ]
        assert out == ((min(pairs) if side == 0 else max(pairs)) if pairs else None)
        asked["read"] += 1
        return out

    monkeypatch.setattr(OcmLive, "_walk_moved", checked)
    monkeypatch.setattr(OcmLive, "_log_since", read)
    monkeypatch.setattr(reach_module, "_WALK", walk)
    _run(mode, 60)
    assert asked["found"] > 0 and asked["none"] > 0 and asked["read"] > 0, asked


def _sorter_ends_composed(self, request, held, now):
    """`_sorter_ends` as it was composed: `_ends_kept` asked of every sorter, then `_ends` of
    each in turn."""
    sorted_by = [p.sorter.name for p in request.preferences if p.sorter is not None]
    if not all(self._ends_kept(request, prop, now) for prop in sorted_by):
        return False
    out = []
    for p in request.preferences:
        if p.sorter is None:
            continue
        ends = None if p.labels is not None else self._ends(request, p.sorter.name, "", held, now)
        if ends is None:
            return []
        out.append((p.weight, p.sorter.name, ends[0], ends[1], p.sorter.ascending))
    return out


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_sorters_ends_read_at_once_are_the_ends_composed(mode, monkeypatch) -> None:
    """Over 60 generated events (walks of at most 6 steps, so some are kept with a reach and
    brought up to the log), every `_sorter_ends` answer (the shared ends and the walks read at
    once) is the one `_ends_kept` then `_ends` give from the same state (False, [] or the same
    ends), and every walk and ends both keep for the event are the same; each of the three
    answers is given. Fails where a walk the log moved is not brought up to it there
    (`_walk_moved` left out of `_sorter_ends`: False where `_ends_kept` finds it kept)."""
    at_once, asked = OcmLive._sorter_ends, Counter()
    kept = ("_ends_of", "_ends_walked", "_walks", "_unstood", "_unmoved")

    def checked(self, request, held, now):
        before = {k: dict(getattr(self, k)) for k in kept}
        out = at_once(self, request, held, now)
        after = {k: dict(getattr(self, k)) for k in kept}
        for k in kept:
            getattr(self, k).clear()
            getattr(self, k).update(before[k])
        composed = _sorter_ends_composed(self, request, held, now)
        assert out == composed, (out, composed)
        for k in ("_ends_of", "_ends_walked"):
            mine, theirs = after[k], getattr(self, k)
            assert all(mine[x] == theirs[x] for x in mine.keys() & theirs.keys()), k
        for k in kept:
            getattr(self, k).clear()
            getattr(self, k).update(after[k])
        asked["list" if out else str(out)] += 1
        return out

    monkeypatch.setattr(OcmLive, "_sorter_ends", checked)
    monkeypatch.setattr(reach_module, "_WALK", 6)
    _run(mode, 60)
    assert asked["False"] > 0 and asked["[]"] > 0 and asked["list"] > 0, asked


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_sorters_few_threats_all_refused_answer_what_was_found(mode, monkeypatch) -> None:
    """Over 60 generated events (seed 3), every `_judged_in_order` call gives, as the caller reads
    it (False where that is False; else the better of it and what it must beat), what it gives
    with `_none_admitted` answering False (the sorters' ends read, the threats judged as
    before), with threats all refused answered early and some a threat passes among them.
    Fails where a threat that passes its filters does not end the pre-pass (`return False`
    read as `continue`: every few threats taken as refused)."""
    judged, none_admitted, asked = OcmLive._judged_in_order, OcmLive._none_admitted, Counter()

    def counted(self, request, drift, order, held, now):
        out = none_admitted(self, request, drift, order, held, now)
        asked["refused" if out else "passed"] += 1
        return out

    def checked(self, request, drift, order, bounds, found, beaten, *rest):
        out = judged(self, request, drift, list(order), bounds, found, beaten, *rest)
        with monkeypatch.context() as m:
            m.setattr(OcmLive, "_none_admitted", lambda *args: False)
            whole = judged(self, request, drift, list(order), bounds, found, beaten, *rest)
        assert (out is False) == (whole is False), (out, whole)
        if out is not False and beaten is not None:
            read = [reach_module._better(beaten, x) if x is not None else beaten for x in (out, whole)]
            assert read[0] == read[1], (out, whole, beaten)
        elif out is not False:
            assert out == whole, (out, whole)
        return out

    monkeypatch.setattr(OcmLive, "_none_admitted", counted)
    monkeypatch.setattr(OcmLive, "_judged_in_order", checked)
    _run(mode, 60, seed=3)
    assert asked["refused"] > 5 and asked["passed"] > 0, asked


def test_a_threats_scope_and_bounds_read_through_kept_parts_are_those_read_afresh() -> None:
    """A threat's scope of several traits is read through the pool's kept union of their members
    (`_members`: one column per scope, `_in_scope_of`; one set, `_threats_few`), and a bound of
    its total through the request's preference sums kept per request (`_upper_parts`), the
    external scores' bounds read from the hull at each ask: on a generated hub's model, over a
    drift of every cluster, each scope of two traits (with clusters in the second alone) gives
    the positions testing each trait's members gives, and `_upper_at` gives `_uppers`' bound
    at every position, again after an external score widens the hull. Fails where the hull is
    read once with the kept sums (the static part kept in `_upper_parts`: the widened bound
    missed) or a scope is read as its first trait's members (`_members(name)` as
    `with_trait(name[0])` in `_column`'s "scope" fill)."""
    from dataclasses import replace

    from model import Preference

    model = _run("optimal", 0)
    names = list(model.pool.names())
    size = len(names)
    counts = np.arange(size, dtype=np.int64) % 7
    drift = reach_module._Drift(
        None, names, dict(zip(names, range(size), strict=True)), counts, counts + 1,
        np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
    )  # fmt: skip
    traits = sorted(model.pool._with_trait, key=lambda t: (len(model.pool.with_trait(t)), t))
    pairs = [
        (a, b)
        for a in traits
        for b in traits
        if a != b and model.pool.with_trait(b) - model.pool.with_trait(a) and model.pool.with_trait(a)
    ][:6]
    assert pairs
    request = next(r for r in model.requests.values() if r is not None and r.scope)
    wanted = np.arange(size) % 3 != 0
    for scope in pairs:
        scoped = replace(request, scope=scope, mode=reach_module.SelectionMode.N)
        members = model.pool.with_trait(scope[0]) | model.pool.with_trait(scope[1])
        expected = [i for i, c in enumerate(names) if wanted[i] and c in members]
        assert model._in_scope_of(scoped, drift, wanted) == expected, scope
        assert set(model._members(scope)) == members, scope
    key = "i30-threats-score"
    scored = replace(
        request,
        preferences=(
            *request.preferences,
            Preference(weight=2, external=key),
            Preference(weight=-3, external=key),
        ),
    )
    own = {names[0]: 1, names[2]: 3}
    held = frozenset(names[1:4])
    every = range(size)
    for hull in ((0, 0), (-40, 10), (-40, 90)):
        model._score_hull[key] = hull
        uppers = model._uppers(scored, drift, own, 9, held)
        assert model._upper_at(scored, drift, every, own, 9, held) == dict(enumerate(uppers.tolist())), hull


def test_a_sorters_many_threats_cut_by_their_kept_term_verdicts_keep_every_admitted_one() -> None:
    """A sorter's many threats are cut to those whose labels may match a required term
    (`_terms_may`: each term's matchLabels and In conditions, the verdicts kept across events
    per terms, `_terms_kept`): on a generated hub's model, over a drift of every cluster, the
    threats kept are exactly those meeting a term's conditions (so every one `admits` takes is
    kept), in order; after a cluster's model is replaced by one with other labels (`_revalue`,
    then the pool's put) its verdict is read again. Fails where the kept verdicts outlive a
    model replaced (the pops of `_remodels`' clusters left out of `_terms_kept`)."""
    from dataclasses import replace

    from model import ClusterTerm, LabelSelector
    from model.selectors import LabelOperator, LabelRequirement

    model = _run("optimal", 0)
    names = list(model.pool.names())
    size = len(names)
    counts = np.zeros(size, dtype=np.int64)
    drift = reach_module._Drift(
        None, names, dict(zip(names, range(size), strict=True)), counts, counts,
        np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
    )  # fmt: skip
    key, value = next(iter(model.pool.get(names[0]).labels.items()))
    among = LabelRequirement(key, LabelOperator.IN, ("x", "y"))
    terms = (
        ClusterTerm(labels=LabelSelector(match_labels=((key, value),))),
        ClusterTerm(labels=LabelSelector(match_expressions=(among,))),
    )
    request = next(r for r in model.requests.values() if r is not None and r.scope)
    request = replace(request, required=terms, scope=None, tolerations=())
    order = list(range(size))
    for round_ in range(2):
        kept = model._terms_may(request, drift, order)
        expected = [i for i, c in enumerate(names) if model.pool.get(c).labels.get(key) in (value, "x", "y")]
        assert kept == expected, round_
        admitted = [i for i, c in enumerate(names) if reach_module.admits(request, model.pool.get(c), None)]
        assert set(admitted) <= set(kept) and admitted, round_
        # a cluster out of the terms relabelled into them, one in them out of them
        outside = next(c for c in names if model.pool.get(c).labels.get(key) not in (value, "x", "y"))
        labelled_x = (c for c in names if model.pool.get(c).labels.get(key) == "x")
        inside = names[0] if round_ == 0 else next(labelled_x)
        for name, label in ((outside, "x"), (inside, "z")):
            was = model.pool.get(name)
            now = replace(was, labels={**was.labels, key: label})
            model._revalue(was, now)
            model.pool.put(now)
    assert model._terms_may(request, drift, order) == [
        i for i, c in enumerate(names) if model.pool.get(c).labels.get(key) in (value, "x", "y")
    ]
