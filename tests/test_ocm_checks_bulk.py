"""`OcmLive._checked`'s work done for the event at once: the answers it judges as is moved on
after its loop (`_judged_all`), every answer it moves put back by one journal note
(`_notes`, `_put_answers_back`), and `_ceiling_held` keeping the answers' picks when it overflows."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive, _Answer
from solver import SolveOptions
from tests.fixtures.live import checks_put_back, ocm_model_after


def _fields(answer: _Answer | None) -> list[Any] | None:
    """Every field of an answer as it stands (its anchor's too), compared by identity."""
    if answer is None:
        return None
    return [
        _fields(getattr(answer, f)) if f == "anchor" else getattr(answer, f)
        for f in reach_module._ANSWER_FIELDS
    ]


def _same(a: list[Any] | None, b: list[Any] | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(_same(x, y) if isinstance(x, list) else x is y for x, y in zip(a, b, strict=True))


def _run(mode: str, seed: int, events: int) -> None:
    ocm_model_after(mode, events, seed)


@pytest.mark.parametrize(("mode", "seed"), [("greedy", 0), ("optimal", 1)])
def test_the_checks_one_note_puts_back_every_answer_they_moved(mode, seed, monkeypatch) -> None:
    """Over 40 generated events, every take's checks are undone through the journal (the notes
    since they began, as a refused event undoes them): every answer stands as before, field by
    field (the same objects, its anchor's too), though hundreds were moved on (those judged as
    is at once after the loop among them); run again, they solve the same Placements and leave
    every answer as the first run did. Fails where `_judged_all` puts nothing in the checks'
    note (`notes.extend` dropped: its answers then stay moved on after the undo)."""
    checks = OcmLive._checked
    asked: Counter[str] = Counter()

    def undone(self, enqueued, changed, now):
        undo = self.journal._undo
        if undo is None:
            return checks(self, enqueued, changed, now)
        at, runs, flipped = len(undo), set(self._runs), dict(self._flipped)
        before = {key: _fields(answer) for key, answer in self.answers.items()}
        out = checks(self, enqueued, changed, now)
        after = {key: _fields(answer) for key, answer in self.answers.items()}
        asked["moved"] += sum(not _same(before[key], after[key]) for key in before)
        asked["as is"] += sum(
            key in enqueued
            and key not in out
            and answer.seen == self.seq
            and answer.best_out is before[key][1]
            for key, answer in self.answers.items()
        )
        checks_put_back(self, at, runs, flipped)
        assert all(_same(_fields(self.answers[key]), fields) for key, fields in before.items())
        again = checks(self, enqueued, changed, now)
        assert again == out
        assert all(
            _fields(self.answers[key])[:4] == after[key][:4] and self.answers[key].seen == after[key][4]
            for key in after
        )
        return again

    monkeypatch.setattr(OcmLive, "_checked", undone)
    _run(mode, seed, 40)
    assert asked["moved"] > 300 and asked["as is"] > 100, asked


def test_an_answer_the_checks_moved_twice_is_put_back_as_it_first_stood() -> None:
    """The checks' one note puts back the last move first, as one note per move would: an answer
    moved on as is and then kept whole (and moved again) stands as before the first move.
    Fails where `_put_answers_back` puts the moves back in the order they were made."""
    answer = _Answer(picks={"a": 3}, best_out=(1, "b"), strict=True, most=4, seen=7)
    first = reach_module._answer_values(answer)
    notes: list[tuple[Any, _Answer, tuple[Any, ...]]] = [
        (reach_module._put_judged, answer, reach_module._judged_values(answer))
    ]
    answer.seen, answer.own = 8, {"a": 1}
    notes.append((reach_module._put_back, answer, reach_module._answer_values(answer)))
    answer.seen, answer.best_out, answer.picks = 9, (2, ""), {"a": 5}
    reach_module._put_answers_back(notes)
    assert all(a is b for a, b in zip(reach_module._answer_values(answer), first, strict=True))


def test_the_ceiling_memo_keeps_the_answers_picks_when_it_overflows() -> None:
    """`_ceiling_of_kept` keeps its verdict per picks dict; past its size it lets go the picks
    of no answer and keeps those of the answers (each asked again at its next check). Fails
    where it lets every entry go (`clear`)."""
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 40, 30, seed=0, now=now), now=now, options=SolveOptions())
    live = hub._live["ocm"]
    key, answer = next((k, a) for k, a in live.answers.items() if a.picks and a.best_out is not None)
    request = live.requests[key]
    live._ceiling_of_kept(request, answer.best_out, answer.picks)
    assert id(answer.picks) in live._ceiling_held
    junk = [{"x": i} for i in range(4 * len(live.requests) + 128)]  # twice what it keeps
    for picks in junk:
        live._ceiling_of_kept(request, answer.best_out, picks)
    assert id(answer.picks) in live._ceiling_held
    assert any(id(picks) not in live._ceiling_held for picks in junk)  # those let go
