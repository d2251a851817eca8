"""The runs pass's answers (OcmLive._by_runs: greedy, SolveOptions.alone, never written) are
judged without the batch's moves: `_answered` makes neither the moves nor the busiest count
through them (`_moved_by`), which no answer never written reads; the answers are those it made
with them."""

from __future__ import annotations

from dataclasses import fields

import pytest

from adapters.live.hub import Applied, HubScheduler
from adapters.ocm.reach import OcmLive
from solver import SolveOptions, solve
from tests.fixtures import ocm


def _hub(mode: str) -> HubScheduler:
    """`ocm.sorter_hub`: `s` sorts ten clusters by CPU (c9 the most) with Balance, two picks; `t`
    takes the emptiest by Balance."""
    return HubScheduler(ocm.sorter_hub(), now=ocm.NOW_TIME, options=SolveOptions(mode=mode))


def _answer(live: OcmLive, key: str) -> tuple:
    a = live.answers[key]
    return tuple((f.name, getattr(a, f.name)) for f in fields(a) if f.name != "anchor")


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_the_runs_pass_judges_its_answers_without_the_batchs_moves(mode, monkeypatch) -> None:
    """c10 joins with half a CPU: `s`'s feasible range moves, its margins cannot say, and the runs
    pass judges it (held: c8 and c9). Inside the pass `_moved_by` is not asked, and the answers
    it leaves are, field by field, those the same pass leaves where the moves are made (its
    result read as another mode's, which makes them; no spread here, so nothing else differs).
    Fails where `_answered` makes the moves of a greedy answer never written (its `written or`
    test made always true)."""
    hub = _hub(mode)
    live: OcmLive = hub._live["ocm"]
    s = f"{ocm.NS}/s"
    state: dict = {"in": False, "asked": 0, "sent": set(), "answers": {}}
    moved_by, by_runs = live._moved_by, live._by_runs

    def counted(added, dropped):
        state["asked"] += state["in"]
        return moved_by(added, dropped)

    def recorded(keys, now):
        state["in"] = True
        try:
            held = by_runs(keys, now)
        finally:
            state["in"] = False
        state["sent"] |= keys
        state["answers"] = {k: _answer(live, k) for k in keys}
        return held

    monkeypatch.setattr(live, "_moved_by", counted)
    monkeypatch.setattr(live, "_by_runs", recorded)
    joined = ocm.managed_cluster("c10", {"zone": "a"}, allocatable={"cpu": "500m"}, capacity={"cpu": "16"})
    delta = hub.handle(Applied(joined), now=ocm.NOW_TIME)
    assert s in state["sent"] and s not in delta.requests
    assert state["asked"] == 0
    keys = set(state["answers"])
    taken = live._taken(keys, ocm.NOW_TIME, written=False)
    result = solve(taken.batch, SolveOptions(mode="greedy", seed=live.seed, alone=True))
    assert taken.answered is not None
    taken.answered(result)
    assert {k: _answer(live, k) for k in keys} == state["answers"]  # the pass judged again: the same
    object.__setattr__(result.stats, "mode", "as-another-mode")  # read so, its moves are made
    taken.answered(result)
    assert state["asked"] == 0 and {k: _answer(live, k) for k in keys} == state["answers"]
