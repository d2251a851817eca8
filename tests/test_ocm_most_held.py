"""The OCM model's hold of a strict answer past a moved busiest count that moved none of its
picks' totals (`OcmLive._most_held`), against the margins' path it replaces."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest

import adapters.ocm.reach as reach_module
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm.reach import OcmLive
from bench.hub_soak import _World
from solver import SolveOptions


def _fields(answer: Any) -> list[Any] | None:
    """Every field of an answer, its anchor's too."""
    if answer is None:
        return None
    values = zip(reach_module._ANSWER_FIELDS, reach_module._answer_values(answer), strict=True)
    return [_fields(value) if f == "anchor" else value for f, value in values]


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
        before = reach_module._answer_values(answer)
        held = held_(self, key, request, answer, most)
        after = reach_module._answer_values(answer)
        if not held:
            assert all(a is b for a, b in zip(after, before, strict=True)), key
            asked["refused"] += 1
            return False
        fields = _fields(answer)
        reach_module._put_back(answer, before)
        assert most != answer.most, key
        assert self._stands_margins(key, request, answer, [], self._drift(answer), most, self.now), key
        assert _fields(answer) == fields, key
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
