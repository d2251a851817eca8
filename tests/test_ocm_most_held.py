"""The OCM model's hold of a strict answer past a moved busiest count that moved none of its
picks' totals (`OcmLive._most_held`), against the margins' path it replaces."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest

import adapters.ocm.reach as reach_module
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm.reach import OcmLive
from bench.hub_soak import _World
from solver import SolveOptions
from tests.fixtures.live import answer_fields, hold_replayed


@pytest.mark.parametrize(("mode", "log"), [("optimal", None), ("greedy", 64)])
def test_a_hold_past_a_moved_busiest_count_is_judged_as_its_margins_judge_it(mode, log, monkeypatch) -> None:
    """`_most_held`: over 40 generated events (40 clusters, 120 Placements; the count log cut
    every 64 entries for one run, so anchors fall below the floor), every hold it gives is judged
    again from the answer as it stood by `_stands_margins`, with the drift `_stands` reads, no
    relevant change and the busiest count `_checked` found (other than the answer's): the
    verdict and every field after (the anchor's too) are the same; a refusal moves no field.
    Holds and refusals are both counted, and so are holds whose picks have a count of one or
    more (a count Balance scores below 100) and holds whose picks' totals moved (a new dict).
    Fails where a pick's count is read with the request's own decisions on it (`cluster.load`
    for `cluster.load - own.get(c, 0)`), or where a pick moved since the picture keeps its
    shifted total (the `logged` test dropped)."""
    if log is not None:
        monkeypatch.setattr(reach_module, "_LOG_LIMIT", log)
    held_ = OcmLive._most_held
    asked: Counter[str] = Counter()

    def replayed(self, key, request, answer, most):
        found = hold_replayed(key, answer, lambda: held_(self, key, request, answer, most), asked, True)
        if found is None:
            return False
        before, after, fields = found
        assert most != answer.most, key
        assert self._stands_margins(key, request, answer, [], self._drift(answer), most, self.now), key
        assert answer_fields(answer, True) == fields, key
        own = self.own.get(key, {})
        clusters = self.pool.by_name()
        asked["held"] += 1
        asked["counted"] += any(clusters[c].load - own.get(c, 0) > 0 for c in answer.picks)
        asked["moved"] += after[0] is not before[0]
        return True

    monkeypatch.setattr(OcmLive, "_most_held", replayed)
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 40, 120, seed=2, now=now), now=now, options=SolveOptions(mode=mode))
    world = _World("ocm", hub, 2)
    for _ in range(40):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        hub.handle(event, now=now)
    assert asked["held"] > 5 and asked["refused"] > 5 and asked["counted"] > 0 and asked["moved"] > 0, asked
