"""OCM's first margins (adapters/ocm/reach.py, `OcmLive.__init__`): each Placement's answer
judged as its sync alone against the hub as it stands would judge it (its own decisions left out
of Balance's counts, every other Placement's counted as they stand). An answer is strict exactly
where what it holds is the strict top N of that sync; solver.SolveOptions.alone gives every
request of a greedy batch that picture at once."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from adapters.ocm.load import load
from adapters.ocm.reach import OcmLive, _balance_weight, _scored_alone, _sorted_alone
from model import FilterKind, RequestResult, SelectionMode
from solver import SolveOptions, solve
from tests.fixtures.live import balance_held_fixed as _held_fixed
from tests.fixtures.live import ocm_decisions as _decisions

NOW = datetime.fromisoformat(DEFAULT_NOW)


def _strict_top(got: RequestResult) -> bool:
    """Whether each pick ranks above every candidate left out (a higher total, or equal and a
    smaller name: upstream's tie-break), every one of them listed."""
    picks = [(c.score.affinity, c.cluster) for c in got.selected if c.score is not None]
    out = [(u.score.affinity, u.cluster) for u in got.unselected if u.kind is FilterKind.NOT_PICKED]
    if len(picks) != len(got.selected):
        return False
    return all(p[0] > o[0] or (p[0] == o[0] and p[1] < o[1]) for p in picks for o in out)


def _alone(full, key: str) -> RequestResult:
    """The Placement's sync alone against the hub as it stands, every candidate left out listed."""
    batch = replace(_held_fixed(full, {key}), explain_limit=100_000)
    return solve(batch, SolveOptions(mode="greedy")).requests[0]


@pytest.mark.parametrize("mode", ["optimal", "greedy"])
def test_a_first_answer_is_strict_exactly_where_its_sync_alone_keeps_it_strictly(mode, monkeypatch) -> None:
    """And in greedy mode, a Placement whose sync alone would pick otherwise than it holds is
    solved when next enqueued (dirty); an optimal answer is its joint search's, and stands."""
    judged = strict = moves = 0
    made = []
    original = OcmLive.__init__

    def init(self, manifests, **kwargs):
        made.append((manifests, kwargs))  # the hub as the first solve's writes leave it
        original(self, manifests, **kwargs)

    for seed in (2, 5):
        made.clear()
        monkeypatch.setattr(OcmLive, "__init__", init)
        HubScheduler(generate("ocm", 40, 60, seed=seed, now=NOW), now=NOW, options=SolveOptions(mode=mode))
        monkeypatch.undo()
        manifests, kwargs = made[0]
        live = OcmLive(manifests, **kwargs)
        full, _ = load(manifests, now=NOW, seed=0)
        held = _decisions([m.obj for m in manifests])
        for request in full.requests:
            if request.key not in live.answers:
                continue  # misconfigured: no answer judged
            got = _alone(full, request.key)
            keeps = {c.cluster for c in got.selected} == held.get(request.key, set())
            assert (request.key in live.dirty) == (mode == "greedy" and not keeps), request.key
            moves += not keeps
            if request.mode is not SelectionMode.N or not (_scored_alone(request) or _sorted_alone(request)):
                continue
            expected = keeps and _strict_top(got)
            assert live.answers[request.key].strict == expected, request.key
            judged += 1
            strict += expected
    assert judged > 60 and strict > judged // 2  # most first answers stand, on either picture
    assert moves  # some sync alone would move: the hub is no greedy fixed point


def test_alone_answers_each_request_as_its_batch_of_one() -> None:
    """A greedy batch solved `alone` gives every request the answer (and the report) of its own
    batch, every other request holding what it holds; a request under spread reports no cluster
    left out (its picks the same: its last cycle then picks by cells), a top N reading a sorter the
    first entry of its report alone (its best cluster left out)."""
    objects = generate("ocm", 30, 40, seed=1, now=NOW)
    full, _ = load(from_objects(objects, "<hub>"), now=NOW, seed=0)
    full = replace(full, explain_limit=20)
    # Every request solved, with what each holds counted as Balance's outside decisions.
    keys = {r.key for r in full.requests}
    together = solve(_held_fixed(full, keys), SolveOptions(mode="greedy", alone=True))
    differs = spreads = 0
    plain = solve(_held_fixed(full, keys), SolveOptions(mode="greedy"))
    spread = {r.key for r in full.requests if r.spread}
    sorted_ = {r.key for r in full.requests if any(p.sorter is not None for p in r.preferences)} - spread
    cut = 0
    for got, batch_got in zip(together.requests, plain.requests, strict=True):
        one = solve(_held_fixed(full, {got.request}), SolveOptions(mode="greedy")).requests[0]
        if got.request in spread:
            assert (got.selected, got.unselected) == (one.selected, ()), got.request
            spreads += bool(one.unselected)  # a report its batch of one makes, left out
        elif got.request in sorted_:
            assert (got.selected, got.unselected) == (one.selected, one.unselected[:1]), got.request
            cut += len(one.unselected) > 1
        else:
            assert (got.selected, got.unselected) == (one.selected, one.unselected), got.request
        differs += (batch_got.selected, batch_got.unselected) != (one.selected, one.unselected)
    assert differs  # a batch's greedy pass answers otherwise: each sees those before it moved
    assert spreads  # some spread whose report the pass leaves out
    assert cut  # some sorted top N whose report the pass cuts to its first entry


def test_alone_is_greedy_modes_and_scored_requests_only() -> None:
    with pytest.raises(ValueError):
        SolveOptions(mode="optimal", alone=True)


def test_alone_measures_no_coupled_answer(monkeypatch) -> None:
    """An `alone` batch's answers are judged, not measured: no coupled request's objective is
    evaluated (its Result counts none of theirs), every answer and report the same."""
    import solver.balance as balance

    objects = generate("ocm", 30, 40, seed=1, now=NOW)
    full, _ = load(from_objects(objects, "<hub>"), now=NOW, seed=0)
    batch = _held_fixed(full, {r.key for r in full.requests})
    measured = []
    original = balance.evaluate
    monkeypatch.setattr(balance, "evaluate", lambda *a, **k: measured.append(a) or original(*a, **k))
    got = solve(batch, SolveOptions(mode="greedy", alone=True))
    assert not measured
    monkeypatch.undo()
    coupled = sum(1 for r in batch.requests if _balance_weight(r))
    assert coupled > 10  # Balance couples most of them
    for r in batch.requests:
        one = solve(_held_fixed(full, {r.key}), SolveOptions(mode="greedy")).requests[0]
        (mine,) = [g for g in got.requests if g.request == r.key]
        assert mine.selected == one.selected, r.key
