"""What the live OCM model keeps per Placement from one event to the next, found again where
what it was made of moved though the request stands: `_first_end`'s ends (a held cluster's
taints moved)."""

from __future__ import annotations

from datetime import timedelta

from adapters.live.hub import Applied, HubScheduler
from adapters.ocm import reach
from adapters.ocm.reach import OcmLive
from solver import SolveOptions
from tests.fixtures import ocm

_AT = ocm.NOW_TIME


def _cluster(name: str, added: str | None = None) -> dict:
    taints = [ocm.taint(ocm.UNREACHABLE, added=added)] if added is not None else ()
    return ocm.managed_cluster(name, {"zone": "a"}, taints=taints)


def test_a_held_cluster_tainted_under_a_standing_request_moves_its_first_end() -> None:
    """`p`, a PickAll tolerating the unreachable taint for 300 s, holds c0..c3, none tainted:
    no toleration of it can run out (its ends kept, found at the first solve's clock). c1 is
    then tainted unreachable (added at the first solve's clock): p tolerates it, so it still
    holds c0..c3 and its request is the same object, but its first end is now that taint's,
    300 s on, and the requeue `_rearm` arms at the event is there; c1's taint put again 30 s
    later moves that end 30 s on (the ends of c1 found again, the other held clusters' read off
    those kept). Fails where the kept ends are read though a held cluster's taints moved since
    they were found (the log of such clusters, `_retainted`, not read), and where a cluster in
    that log has its kept ends read (`name not in stale` left out in `_ends_at`)."""
    clusters = [_cluster(f"c{i}") for i in range(4)]
    p = ocm.placement("p", tolerations=[ocm.toleration(ocm.UNREACHABLE, "Exists", seconds=300)])
    hub = HubScheduler([*ocm.hub(*clusters), p], now=_AT, options=SolveOptions(mode="greedy"))
    live: OcmLive = hub._live["ocm"]
    key = f"{ocm.NS}/p"
    request = live.requests[key]
    assert live._held_of(request) == {"c0", "c1", "c2", "c3"}
    assert live._first_end(request, _AT) is None and key in live._first_ends
    now = _AT + timedelta(seconds=15)
    hub.handle(Applied(_cluster("c1", added=ocm.ago(0))), now=now)
    assert live.requests[key] is request  # held as it was: nothing of it was solved
    end = _AT + timedelta(seconds=300)
    assert live._first_end(request, now) == end
    assert live.timers._when.get(f"toleration:{key}") == end
    later = now + timedelta(seconds=15)  # c1's taint put again 30 s on: its end moves on too
    hub.handle(Applied(_cluster("c1", added=ocm.later(0.5))), now=later)
    assert live.requests[key] is request
    assert live._first_end(request, later) == end + timedelta(seconds=30)


def test_the_log_of_moved_taints_is_let_go_with_the_ends_kept_by_it(monkeypatch) -> None:
    """The log of clusters whose taints moved (`_retainted`) is let go, with every end kept by
    its positions, once it holds `_RETAINTED` names (here 3), whether or not any Placement's
    ends are asked: a hub with no toleration with seconds never asks. c1's taint put again at
    each of eight events keeps it at most 3 long, and `p`'s first end is each time that taint's.
    Fails where `_retaint` does not let the log go (it grows by one an event)."""
    monkeypatch.setattr(reach, "_RETAINTED", 3)
    clusters = [_cluster(f"c{i}") for i in range(4)]
    p = ocm.placement("p", tolerations=[ocm.toleration(ocm.UNREACHABLE, "Exists", seconds=300)])
    hub = HubScheduler([*ocm.hub(*clusters), p], now=_AT, options=SolveOptions(mode="greedy"))
    live: OcmLive = hub._live["ocm"]
    key = f"{ocm.NS}/p"
    for k in range(1, 9):
        now = _AT + timedelta(seconds=15 * k)
        hub.handle(Applied(_cluster("c1", added=ocm.later(k / 4))), now=now)
        assert len(live._retainted) <= 3, k
        assert live._first_end(live.requests[key], now) == _AT + timedelta(seconds=300 + 15 * k), k
