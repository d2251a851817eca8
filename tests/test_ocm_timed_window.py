"""`OcmLive._in_window`: a strict top N with a centered sorter and a toleration with seconds is
judged by its margins only where no toleration of it runs out between its picture and now."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from adapters.live.hub import Applied, HubScheduler
from adapters.ocm import reach
from adapters.ocm.reach import OcmLive
from solver import SolveOptions, solve
from tests.fixtures import ocm

_AT = ocm.NOW_TIME
_END = _AT + timedelta(seconds=100)  # c0's toleration runs out here (added 200 s ago, 300 s)


def _hub() -> list[dict]:
    """c0..c9 with i + 1 allocatable CPUs of 16; c0, the lowest, tainted unreachable 200 s ago;
    `s` sorts by CPU (weight 3) beside an AddOn score that only c7 has (71), two picks, and
    tolerates the taint for 300 s. While c0 is feasible the CPU range is 1..10 and c7's score
    beats c8's (c9, c7 picked); with c0 gone it is 2..10 and c8 beats c7."""
    clusters = [
        ocm.managed_cluster(
            f"c{i}",
            {"zone": "a"},
            allocatable={"cpu": str(i + 1)},
            capacity={"cpu": "16"},
            taints=[ocm.taint(ocm.UNREACHABLE, added=ocm.ago(seconds=200))] if i == 0 else (),
        )
        for i in range(10)
    ]
    prioritizers = [ocm.builtin("ResourceAllocatableCPU", 3), ocm.addon("usage", "free")]
    return [
        *ocm.hub(*clusters),
        ocm.score("c7", "usage", {"free": 71}),
        ocm.placement(
            "s",
            n=2,
            mode="Exact",
            prioritizers=prioritizers,
            tolerations=[ocm.toleration(ocm.UNREACHABLE, "Exists", seconds=300)],
        ),
    ]


def _picks(objects: list[dict], at) -> set[str]:
    """What `s`'s sync picks at `at`, the hub loaded then."""
    batch, _ = ocm.load(objects, now=at)
    got = solve(batch, SolveOptions(mode="greedy"))
    return {c.cluster for r in got.requests if r.request.endswith("/s") for c in r.selected}


def test_a_timed_sorter_is_judged_by_its_margins_only_while_no_toleration_runs_out() -> None:
    """The answer of `s` (`_hub`) is strict and pictured at the first solve's clock; `_facts_of`
    leaves it out of `alone` (its margins read no clock). The window admits it at any `now`
    before c0's toleration runs out (the sync then picks what it holds: nothing the margins read
    moved), and refuses it at that moment and after (the sync picks c8 for c7 there, which the
    margins, reading no verdict of an unchanged cluster, could not see); an answer pictured
    after the end is admitted again, and one whose anchor was pictured before it is not.
    Fails where the window's interval leaves `now` out (`ends[i] <= hi` made `ends[i] < hi`
    in `_ends_in`: the end itself admitted)."""
    objects = _hub()
    hub = HubScheduler(objects, now=_AT, options=SolveOptions(mode="greedy"))
    live: OcmLive = hub._live["ocm"]
    key = f"{ocm.NS}/s"
    request, answer = live.requests[key], live.answers[key]
    assert set(answer.picks) == {"c9", "c7"} == _picks(objects, _AT)
    assert answer.strict and answer.at == _AT
    assert not live._facts_of(request)[2]  # `alone`: its margins read without a window never
    assert reach._sorted_alone(request)  # its margins read within the window (`_stands_on`)
    for seconds in (0, 1, 50, 99):
        now = _AT + timedelta(seconds=seconds)
        assert live._in_window(request, answer, {}, now), seconds
        assert _picks(objects, now) == {"c9", "c7"}, seconds
    for seconds in (100, 101, 400):
        now = _AT + timedelta(seconds=seconds)
        assert not live._in_window(request, answer, {}, now), seconds
        assert _picks(objects, now) == {"c9", "c8"}, seconds
    # Pictured after the end: nothing runs out between it and now.
    answer.at = _END + timedelta(seconds=1)
    assert live._in_window(request, answer, {}, _END + timedelta(seconds=60))
    # Its anchor pictured before the end: the bound it may start from read c0 feasible.
    answer.anchor = type(answer)(**{**{f: getattr(answer, f) for f in answer.__slots__}, "at": _AT})
    assert not live._in_window(request, answer, {}, _END + timedelta(seconds=60))


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_a_timed_sorter_whose_left_out_cluster_ran_out_is_not_held_as_is(mode: str) -> None:
    """An event that moves nothing `s` reads (an unread label on c5), 200 s after the first solve:
    c0's toleration ran out at 100 s, with no event on c0, so the CPU range is 2..10 and the sync
    picks c9 and c8 where `s` holds c9 and c7. No relevant change, no drift: the checks' hold as
    is would keep c7; `_ran_out` sends it to its run, which writes the sync's picks. Fails where
    `_checked` does not ask `_ran_out` (the Placement then held as is, as before the fix)."""
    objects = _hub()
    hub = HubScheduler(objects, now=_AT, options=SolveOptions(mode=mode))
    c5 = copy.deepcopy(next(o for o in hub.objects("ManagedCluster") if o["metadata"]["name"] == "c5"))
    c5["metadata"]["labels"]["unread"] = "x"
    now = _AT + timedelta(seconds=200)
    hub.handle(Applied(c5), now=now)
    live: OcmLive = hub._live["ocm"]
    assert f"{ocm.NS}/s" in live.enqueued
    decided = {d["clusterName"] for o in hub.objects("PlacementDecision") for d in o["status"]["decisions"]}
    assert decided == _picks(list(hub.objects()), now) == {"c9", "c8"}
