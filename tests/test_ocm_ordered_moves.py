"""A spread's ordered answer judged by the moves since its picture (`OcmLive._ordered_moves`): the
rising clusters in its scope read once per picture and scope (`_rising_in_scope`), its own
positions (`_rise_patch`) apart, equal the answer's patched rises judged one by one. And the
relevance of a cluster entering or leaving a request's scope judged with its rules inline
(`OcmLive._relevant`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive
from bench.hub_soak import _World
from model import ExistingDecision
from solver import SolveOptions
from solver.admits import admits


def _ordered_moves_each(live: OcmLive, key, request, answer, drift, most, now) -> bool:
    """`_ordered_moves` as it read before (the oracle): the answer's own rises array
    (`_rises`), its picks marked no rise, the rising positions in its scope over the whole drift
    (`_in_scope_at`), each one's filters asked by `admits`."""
    own = live.own.get(key, Counter())
    weight = reach_module._balance_weight(request)
    held = live._held_of(request)
    weakest = None
    if most != answer.most and reach_module._most_rise(weight, answer.most, most) > 0:
        if (
            weight < 0
            or any(not (p.balance or p.held) for p in request.preferences)
            or not held <= answer.selected
        ):
            return False
        weakest = live._weakest_pick(request, answer, own, most, held)
        if weakest is None or not reach_module._beats(weakest, (weight * reach_module._balance(1, most), "")):
            return False
    rises = live._rises(drift, answer, own, most, weight)
    for c in answer.selected:
        at = drift.index.get(c)
        if at is not None or most != answer.most:
            if live._balance_moved(c, answer, own, most, weight) != (0, 0):
                return False
            if at is not None:
                rises[at] = reach_module._NONE
    rising = rises > 0
    for at in live._in_scope_at(request, drift, rising) if rising.any() else ():
        cluster = live.pool.get(drift.names[at])
        if cluster is not None and admits(request, cluster, now, held=cluster.name in held):
            if cluster.name in held or any(p.sorter is not None for p in request.preferences):
                return False
            if weakest is None:
                weakest = live._weakest_pick(request, answer, own, most, held)
                if weakest is None:
                    return False
            total = reach_module._total(request, cluster, own, most, held)
            if not reach_module._beats(weakest, (total, cluster.name)):
                return False
    return True


def _held_variants(live: OcmLive, key, request, answer, drift, most):
    """Variants of the request (and answer) where a rising cluster of the picture (the shared
    rises above 0, not a pick) decides: the request holding it, scoped by a trait it lacks, then
    by one it has (asked in that order: a list kept by the picture alone would give the second
    the first's, without it); and, where its count fell by one, the answer holding it on its
    picture too (its own rise, `_rise_patch`, is then none: not rising, though the shared array
    rises there)."""
    weight = reach_module._balance_weight(request)
    shared = live._shared_rises(drift, most, answer.most, weight, answer.mates is not None)
    traits = sorted({t for c in live.pool.by_name().values() for t in c.traits})
    for at in live._rise_order(shared)[:3]:
        c = live.pool.get(drift.names[at])
        if c is None or c.name in answer.selected or not c.traits:
            continue
        existing = (*request.existing, ExistingDecision(c.name))
        inside = replace(request, scope=(sorted(c.traits)[0],), existing=existing, required=())
        lacks = [t for t in traits if t not in c.traits]
        if lacks:
            yield replace(request, scope=(lacks[0],), existing=existing, required=()), answer
            yield inside, answer
        fell = int(drift.then[at]) - int(drift.now[at]) == 1 and not int(drift.dropped[at])
        if (
            fell
            and most == answer.most
            and c.name not in answer.own
            and not live.own.get(key, {}).get(c.name)
        ):
            yield inside, replace(answer, own={**answer.own, c.name: 1})


def test_a_spreads_rising_clusters_read_once_per_picture_and_scope_judge_as_its_own_rises(
    monkeypatch,
) -> None:
    """Over 40 generated events, optimal, every `_ordered_moves` call (and the same answer asked
    again at the busiest count one up and one down, and by variants of its request holding a
    rising cluster, scoped without it and then with it: the function is pure, so asked of
    several pictures and requests) equals the oracle judging the answer's own patched rises
    array one position at a time (`_ordered_moves_each`). Counted: answers refused, variants
    refused by the held rising cluster, answers with a patch, answers holding a cluster on their
    picture whose own rise is none. Fails where `_rising_in_scope` keys its answers by the
    shared array alone (not the scope), or where `_ordered_moves` keeps the patched positions
    among the shared rising ones (both checked)."""
    original = OcmLive._ordered_moves
    asked: Counter[str] = Counter()

    def checked(self, key, request, answer, drift, most, now):
        out = original(self, key, request, answer, drift, most, now)
        assert out == _ordered_moves_each(self, key, request, answer, drift, most, now), key
        for other in (most - 1, most + 1):
            if other >= 0:
                got = original(self, key, request, answer, drift, other, now)
                assert got == _ordered_moves_each(self, key, request, answer, drift, other, now), (key, other)
        for variant, then in _held_variants(self, key, request, answer, drift, most):
            got = original(self, key, variant, then, drift, most, now)
            assert got == _ordered_moves_each(self, key, variant, then, drift, most, now), (
                key,
                variant.scope,
            )
            asked["variants refused"] += not got
            asked["held then"] += then is not answer
        asked["calls"] += 1
        asked["refused"] += not out
        own = self.own.get(key, Counter())
        asked["patched"] += bool(
            self._rise_patch(drift, answer, own, most, reach_module._balance_weight(request))
        )
        return out

    monkeypatch.setattr(OcmLive, "_ordered_moves", checked)
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(
        generate("ocm", 80, 120, seed=0, now=now), now=now, options=SolveOptions(mode="optimal")
    )
    world = _World("ocm", hub, 0)
    for _ in range(40):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        hub.handle(event, now=now)
    assert asked["calls"] > 20 and asked["refused"] > 5 and asked["variants refused"] > 5, asked
    assert asked["patched"] > 5 and asked["held then"] > 5, asked


def test_a_clusters_scope_move_is_relevant_as_matters_says_with_its_rules_inline() -> None:
    """`_relevant` judges a cluster entering or leaving a request's scope (its traits moved, or
    it came or went) with `_reads_scope`'s rules and the seen cluster's filters inline
    (`_feasible_seen`, `_emptied_now`): on a generated hub, for every request (its policy as it
    is, and with a refused toleration), the changes of a held and an unheld cluster that take
    it out of every scope or bring it in (its traits emptied, it leaving, ineligible, tainted),
    joining and leaving, give the relevant changes `matters` finds of each (`_relevant_each`).
    Fails where `_feasible_seen` leaves out the leaving rule, or where the inline scope rules
    leave out the refused toleration (both checked)."""
    from model.selectors import Taint

    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 60, 90, seed=3, now=now), now=now, options=SolveOptions(mode="greedy"))
    live = hub._live["ocm"]
    requests = [(k, r) for k, r in live.requests.items() if r is not None]
    held_by = Counter(c for own in live.own.values() for c, count in own.items() if count > 0)
    names = [name for name, _ in held_by.most_common(2)]
    names += [c for c in sorted(live.pool.by_name()) if c not in held_by][:2]
    asked: Counter[str] = Counter()
    policies = dict(live.policies)
    for refused in (False, True):
        if refused:  # every policy with a refused toleration (its sync reads scope-only moves)
            live.policies.update({k: replace(p, toleration_error="refused") for k, p in policies.items()})
        try:
            for name in names:
                c = live.pool.get(name)
                out_of_scope = replace(c, traits=frozenset())
                variants = [
                    replace(c, leaving=True),
                    replace(c, eligible=False),
                    replace(c, taints=(*c.taints, Taint("example.com/blocked", effect="NoSelect"))),
                    c,
                ]
                changes = [(out_of_scope, v) for v in variants] + [(v, out_of_scope) for v in variants]
                changes += [(None, v) for v in variants] + [(v, None) for v in variants]
                for old, new in changes:
                    changed = {name: (old, new)}
                    live._touched_of = None
                    for key, request in requests:
                        out = live._relevant(key, request, changed, now)
                        assert out == live._relevant_each(key, request, changed, now), (key, name, refused)
                        asked["relevant"] += bool(out)
                        asked["not relevant"] += not out
        finally:
            live.policies.clear()
            live.policies.update(policies)
            live._touched_of = None
    assert asked["relevant"] > 50 and asked["not relevant"] > 50, asked
