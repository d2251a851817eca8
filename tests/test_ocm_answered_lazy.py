"""A long-lived OCM scheduler's answers kept after a solve (`OcmLive._answered`): the reported
totals judged one by one as read, up to the first that differs (`_reproduces`), and a given
PickAll's answer taken as fitting with no total read."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from adapters.ocm.reach import OcmLive
from bench.hub_soak import _World
from model import FilterKind
from solver import SolveOptions


def _reproduces_listed(self, request, got, answer, moved, *, after=None):
    """`OcmLive._reproduces` as 9a36f78 made it: every reported total listed first, then judged."""
    if not reach_module._scored_alone(request):
        return False
    own = answer.own if after is not None else self.own.get(request.key, Counter())
    held = self._held_of(request)
    reported = [(c.cluster, c.score.affinity) for c in got.selected if c.score is not None]
    reported += [
        (u.cluster, u.score.affinity)
        for u in got.unselected
        if u.kind is FilterKind.NOT_PICKED and u.score is not None
    ]
    for name, total in reported:
        if name in moved:
            continue
        cluster = self.pool.get(name)
        if cluster is not None and after is not None:
            cluster = after.cluster(cluster)
        if cluster is None or reach_module._total(request, cluster, own, answer.most, held) != total:
            return False
    return True


def _stream(clusters: int, placements: int, seed: int, events: int) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("ocm", clusters, placements, seed=seed, now=now)
    hub = HubScheduler(objects, now=now, options=SolveOptions(mode="optimal"))
    world = _World("ocm", hub, seed)
    for _ in range(events):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        hub.handle(event, now=now)


def test_reported_totals_judged_as_read_give_the_verdict_of_listing_them_first(monkeypatch) -> None:
    """Over two generated streams (80 clusters x 120 Placements, and 800 x 30 whose PickAlls hold
    hundreds; 35 and 25 events), every `_reproduces` verdict equals that of the totals listed
    first (9a36f78's, run on the same state), fitting and not; and every answer of a request
    scored alone is judged but the given PickAlls' (`known`), which carry no score and report
    none left out (so the listed judging finds them fitting), and those its margins found not
    strict, which stay not strict whatever the totals (a PickAll's, `_margins`' `whole`, is
    read here with its picks, so that its totals are judged): `_answered` keeps what it kept.
    Fails where what the request holds is never read for the totals (`held = frozenset()` for
    `self._held_of(request)`), or where an answer its margins found strict is taken as fitting
    unjudged (`fits = True` for every answer)."""
    verdicts, asked = Counter(), []
    lazy = OcmLive._reproduces

    def checked(self, request, got, answer, moved, *, after=None):
        out = lazy(self, request, got, answer, moved, after=after)
        assert out == _reproduces_listed(self, request, got, answer, moved, after=after)
        verdicts[out] += 1
        asked.append(got)
        return out

    answered = OcmLive._answered

    def judged(self, batch, result, keys, *, written=True, given=(), known=None):
        asked.clear()
        answered(self, batch, result, keys, written=written, given=given, known=known)
        by_key = {r.key: r for r in (*batch.requests, *given)}
        seen = {id(got) for got in asked}
        for got in result.requests:
            request = by_key.get(got.request)
            if request is None or not reach_module._scored_alone(request):
                continue
            k = (known or {}).get(got.request)
            if k is not None and k[0] is got:  # a given answer: nothing to judge
                assert all(c.score is None for c in got.selected) and not got.unselected
                verdicts["given"] += 1
            else:  # judged, or not strict by its margins (then not strict, unjudged)
                assert id(got) in seen or not self.answers[got.request].strict, got.request
        asked.clear()

    monkeypatch.setattr(OcmLive, "_reproduces", checked)
    monkeypatch.setattr(OcmLive, "_answered", judged)
    # A PickAll's answer read with its picks, as strict as they make it (`whole` left out), so
    # that its totals are judged too: most totals that do not fit are a PickAll's.
    margins = reach_module._margins
    monkeypatch.setattr(
        reach_module,
        "_margins",
        lambda request, got, most, seen, selected=None, *, scoreless=False, whole=False: margins(
            request, got, most, seen, selected, scoreless=scoreless
        ),
    )
    _stream(80, 120, 0, 35)
    _stream(800, 30, 3, 25)
    assert verdicts[True] > 50 and verdicts[False] > 5 and verdicts["given"], verdicts
