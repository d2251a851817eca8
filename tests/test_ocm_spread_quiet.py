"""A spread's greedy answer (`_Answer.ordered`) held in `_checked` where nothing it reads but the
moved counts moved (`OcmLive._spread_quiet`), the rising clusters it may pick bounded by the most
a cluster it does not hold can total (`_rising_lose`, `_bound_out`), and whether a moved cluster
is feasible read by name first (`_any_feasible`, `_FEASIBLE_FIRST`): each judged against the
path it stands for."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive
from solver import SolveOptions
from tests.fixtures.live import world_deltas


def _deltas(mode: str, seed: int, events: int) -> list[tuple]:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 80, 120, seed=seed, now=now), now=now, options=SolveOptions(mode=mode))
    return [
        (delta.apply, delta.delete, delta.requests, set(hub._live["ocm"].enqueued))
        for _, delta in world_deltas(hub, "ocm", seed, events, now)
    ]


@pytest.mark.parametrize("mode", ["optimal", "greedy"])
def test_a_quiet_spread_held_in_the_checks_is_held_by_its_whole_path(mode, monkeypatch) -> None:
    """`_spread_quiet`: over 40 generated events, every hold it gives is judged again, from the
    answer as it stood, by `_stands` handed no relevant change and the answer's busiest count
    (the path `_checked` sends it on otherwise): the verdict is a hold and every field after is
    the same; a refusal moves no field. Holds past rising clusters it may pick, holds with none
    rising and refusals are counted. Fails where `_spread_quiet` holds without asking
    `_rising_lose` (checked)."""
    quiet, checked = OcmLive._spread_quiet, OcmLive._checked
    asked: Counter[str] = Counter()
    seen: dict[str, object] = {}

    def kept_changes(self, enqueued, changed, now):
        seen["changed"] = changed
        return checked(self, enqueued, changed, now)

    def replayed(self, key, request, answer, weight, now):
        before = reach_module._answer_values(answer)
        drift = self._drift(answer)
        rising = drift.names and self._rising_in_scope(
            request, drift, self._shared_rises(drift, answer.most, answer.most, weight, False)
        )
        held = quiet(self, key, request, answer, weight, now)
        after = reach_module._answer_values(answer)
        if not held:
            assert all(a is b for a, b in zip(after, before, strict=True)), key
            asked["refused"] += 1
            return False
        reach_module._put_back(answer, before)
        assert self._stands(key, request, answer, seen["changed"], now, ([], answer.most)), key
        assert reach_module._answer_values(answer) == after, key
        asked["held past rising" if rising else "held"] += 1
        return True

    monkeypatch.setattr(OcmLive, "_checked", kept_changes)
    monkeypatch.setattr(OcmLive, "_spread_quiet", replayed)
    _deltas(mode, 0, 40)
    assert asked["held"] > 3 and asked["held past rising"] > 5 and asked["refused"] > 5, asked


def test_a_spreads_rising_clusters_bounded_by_the_most_one_left_out_totals_judge_as_each_judged(
    monkeypatch,
) -> None:
    """`_rising_lose` first asks whether the weakest pick's total beats `_bound_out` (the most
    `_total` gives a cluster the request does not hold): over 40 generated events, optimal, the
    bound tried at every call (`_RISING_BOUND` 0: the generated hubs' spreads see a few rising
    clusters), every verdict equals the one judging each rising cluster (its filters, then its
    total), the bound ending some and refused by it in others. Fails where `_bound_out` leaves out an external
    score's hull (checked)."""
    original = OcmLive._rising_lose
    asked: Counter[str] = Counter()

    def checked(self, request, answer, own, most, held, names, rising, now, weakest):
        out = original(self, request, answer, own, most, held, names, rising, now, weakest)
        with monkeypatch.context() as m:
            m.setattr(reach_module, "_RISING_BOUND", len(rising))  # the filters, one by one
            assert out == original(self, request, answer, own, most, held, names, rising, now, weakest)
        bound = self._bound_out(request)
        if len(rising) > reach_module._RISING_BOUND and held <= answer.selected and bound is not None:
            weakest = weakest or self._weakest_pick(request, answer, own, most, held)
            asked["bound ends" if weakest is not None and weakest[0] > bound else "bound refused"] += 1
        return out

    monkeypatch.setattr(reach_module, "_RISING_BOUND", 0)
    monkeypatch.setattr(OcmLive, "_rising_lose", checked)
    _deltas("optimal", 3, 40)
    assert asked["bound ends"] > 5 and asked["bound refused"] > 2, asked


def test_a_moved_cluster_feasible_read_by_name_first_is_the_verdict_of_the_scopes_masks(monkeypatch) -> None:
    """`_any_feasible` asks the drift's first `_FEASIBLE_FIRST` clusters by name, then the rest of
    its scope past them (`_in_scope_at`): over 40 generated events, optimal, the first one read
    by name (on these small hubs the usual 64 are the whole drift), every verdict equals the one
    judged by the scope's masks alone (every moved cluster in scope in order, `_FEASIBLE_FIRST`
    0) and the one judged by name alone (every moved cluster, `_FEASIBLE_FIRST` past the drift),
    verdicts found past the first too. Fails where the rest is not read when none of the first
    passes (the `else` dropped, checked)."""
    first = 1
    monkeypatch.setattr(reach_module, "_FEASIBLE_FIRST", first)
    original = OcmLive._any_feasible
    asked: Counter[str] = Counter()

    def checked(self, request, drift, now):
        key = (id(drift), self._filters_number(request))
        fresh = key not in self._feasible_of
        out = original(self, request, drift, now)
        if fresh:  # judged here, not read off the event's verdicts
            for others in (0, len(drift.names) + 1):
                self._feasible_of.pop(key)
                with monkeypatch.context() as m:
                    m.setattr(reach_module, "_FEASIBLE_FIRST", others)
                    assert original(self, request, drift, now) == out, (others, first)
            asked[
                "past the first"
                if out
                and not any(
                    self.pool.get(n) is not None and reach_module.admits(request, self.pool.get(n), now)
                    for n in drift.names[:first]
                )
                else str(out)
            ] += 1
        return out

    monkeypatch.setattr(OcmLive, "_any_feasible", checked)
    _deltas("optimal", 3, 40)
    assert asked["past the first"] > 1 and asked["True"] > 3 and asked["False"] > 1, asked
