"""What an index from clusters to OCM answers would visit, simulated on the soak's event stream
(bench.hub_soak) against what OCM's long-lived model (adapters.ocm.reach.OcmLive) visits today.

The index judged: every answer with Balance would be judged when a count in its scope moves (the
cluster's count of decisions, logged net at each take's end, `_log_moved`), keeping its slack
current, so that an enqueued answer no move threatened could be held without a visit. Counted at
each take's logged moves, per answer with Balance whose scope holds a moved cluster (a pair):

- a strict answer with picks and a best left out accumulates, move by move, the greatest weighted
  Balance rise of a moved cluster it did not pick (its threat), and is visited where the threat
  reaches its slack (the weakest pick's total less the best left out's; the threat then starts
  again), never where its kept ceiling holds (`_ceiling_of_kept`: no left-out total can reach the
  weakest pick);
- one whose pick's Balance score fell is visited;
- one not strict (a spread, a tie at the cut, an optimal joint answer), with batch-mates' moves,
  or without picks or a best left out, is visited on any move in its scope;
- a busiest count that moved visits every answer (a whole pass).

Against it, per event: the Placements upstream enqueues and today's proofs (`_stands`, `_quiet`
and `_quiet_left` calls). The model's own methods are wrapped for the run and put back after;
what the model decides is not changed.

    python -m bench.ocm_index_sim --hub /work/bench/ocm-10k-2k.yaml --events 200 [--mode greedy]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from adapters.kube.manifests import read_sources
from adapters.live.hub import HubScheduler
from adapters.ocm import reach
from bench.hub_soak import NOW, STEP, STEPS, _World
from solver import SolveOptions

COLUMNS = (
    "enqueued",
    "stands",
    "quiet",
    "quiet_left",
    "moved",
    "pairs",
    "visits",
    "not_strict",
    "pick_fell",
    "slack_reached",
    "rose",
    "whole_pass",
)


class _Tally:
    """The counts per event kind, and each answer's threat since it was last visited."""

    def __init__(self) -> None:
        self.kind = ""
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.threat: dict[str, int] = {}
        self.most: int | None = None

    def add(self, column: str, n: int = 1) -> None:
        self.counts[self.kind][column] += n

    def moves(self, live: reach.OcmLive, moved: dict[str, tuple[int, int]]) -> None:
        """One take's logged moves (cluster -> its count before and now) charged to the answers."""
        most = live._most()
        self.add("moved", len(moved))
        if self.most is not None and most != self.most:
            self.most = most
            self.add("whole_pass")
            self.add("visits", len(live.answers))
            self.threat.clear()
            return
        self.most = most
        for key, answer in live.answers.items():
            request = live.requests.get(key)
            if request is None:
                continue
            weight = live._facts_of(request)[1]
            if not weight:
                continue
            scope = request.scope
            in_scope = [c for c in moved if scope is None or live._in_scope_named(scope, c)]
            if not in_scope:
                continue
            self.add("pairs", len(in_scope))
            if not answer.strict or answer.mates is not None or not answer.picks or answer.best_out is None:
                self._visit(key, "not_strict")
                continue
            own = live.own.get(key, {})
            rise = fall = 0
            for c in in_scope:
                before, now = moved[c]
                mine = own.get(c, 0)
                change = weight * (
                    reach._balance(max(0, now - mine), most) - reach._balance(max(0, before - mine), most)
                )
                if c in answer.picks:
                    fall += max(0, -change)
                else:
                    rise = max(rise, change)
            if fall:
                self._visit(key, "pick_fell")
                continue
            if rise <= 0 or live._ceiling_of_kept(request, answer.best_out, answer.picks) is not None:
                continue
            self.add("rose")  # a threat grew: visited only where it reaches the slack
            self.threat[key] = self.threat.get(key, 0) + rise
            if self.threat[key] >= min(answer.picks.values()) - answer.best_out[0]:
                self._visit(key, "slack_reached")

    def _visit(self, key: str, why: str) -> None:
        self.add("visits")
        self.add(why)
        self.threat.pop(key, None)


@contextmanager
def _wrapped(tally: _Tally) -> Iterator[None]:
    """OcmLive's methods counted (and `_log_moved`'s moves charged) for the run, put back after."""
    originals = {
        name: getattr(reach.OcmLive, name)
        for name in ("_log_moved", "_checked", "_stands", "_quiet", "_quiet_left")
    }

    def log_moved(live: reach.OcmLive, first: dict[str, int]) -> None:
        counts = live.counts
        moved = {c: (old, counts.get(c, 0)) for c, old in first.items() if counts.get(c, 0) != old}
        originals["_log_moved"](live, first)
        if moved:
            tally.moves(live, moved)

    def checked(live: reach.OcmLive, enqueued: Any, *args: Any) -> Any:
        tally.add("enqueued", len(enqueued))
        return originals["_checked"](live, enqueued, *args)

    def counted(name: str) -> Callable[..., Any]:
        def call(live: reach.OcmLive, *args: Any, **kwargs: Any) -> Any:
            tally.add(name.lstrip("_"))
            return originals[name](live, *args, **kwargs)

        return call

    reach.OcmLive._log_moved = log_moved  # type: ignore[method-assign]
    reach.OcmLive._checked = checked  # type: ignore[method-assign]
    for name in ("_stands", "_quiet", "_quiet_left"):
        setattr(reach.OcmLive, name, counted(name))
    try:
        yield
    finally:
        for name, method in originals.items():
            setattr(reach.OcmLive, name, method)


def simulate(objects: list[dict[str, Any]], events: int, mode: str, seed: int) -> tuple[Counter[str], dict]:
    """The events per kind and the counts per kind over `events` of the soak's OCM stream."""
    tally = _Tally()
    per_kind: Counter[str] = Counter()
    hub = HubScheduler(objects, now=NOW, options=SolveOptions(mode=mode, time_limit=1000))
    world = _World("ocm", hub, seed)
    now = NOW
    with _wrapped(tally):
        for _ in range(events):
            now += STEPS.get("ocm", STEP)
            kind, event, _ = world.next(now)
            tally.kind = kind
            per_kind[kind] += 1
            hub.handle(event, now=now)
    return per_kind, dict(tally.counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hub", required=True)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("optimal", "greedy"), default="optimal")
    args = parser.parse_args(argv)
    objects = [m.obj for m in read_sources([args.hub])]
    per_kind, counts = simulate(objects, args.events, args.mode, args.seed)
    print("event | events | " + " | ".join(COLUMNS) + " (per event)")
    for kind in sorted(per_kind):
        n = per_kind[kind]
        row = counts.get(kind, Counter())
        print(f"{kind} | {n} | " + " | ".join(f"{row[c] / n:.1f}" for c in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
