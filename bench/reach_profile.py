"""Where the long-lived scheduler's events spend their time, per event kind: the soak's event stream
(bench.hub_soak) on a hub file, `HubScheduler.handle` alone timed (CPU and wall milliseconds) and,
with `--profile`, profiled (cProfile enabled around `handle` only, one profile per event kind).
No check runs: this is the measuring half of the soak, for finding what to make faster.

    python -m bench.reach_profile --profile ocm --hub /work/bench/ocm-10k-2k.yaml --events 200
    python -m bench.reach_profile --profile karmada --hub /work/bench/karmada-1k-10k.yaml --cprofile 25
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections import defaultdict

import numpy as np

from adapters.kube.manifests import read_sources
from adapters.live.hub import HubScheduler
from bench.hub_soak import NOW, PROFILES, STEP, STEPS, _World
from solver import SolveOptions

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True, choices=PROFILES)
    parser.add_argument("--hub", required=True)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", default="optimal", choices=("optimal", "greedy"))
    parser.add_argument("--cprofile", type=int, default=0, help="print the top N functions per kind")
    args = parser.parse_args(argv)

    import ortools.sat.python.cp_model  # noqa: F401  (CP-SAT's import is not an event's)

    objects = [m.obj for m in read_sources([args.hub])]
    c0, t0 = time.process_time(), time.perf_counter()
    hub = HubScheduler(objects, now=NOW, options=SolveOptions(mode=args.mode))
    first = (time.process_time() - c0, time.perf_counter() - t0)
    del objects
    world = _World(args.profile, hub, args.seed)
    cpu: dict[str, list[float]] = defaultdict(list)
    wall: dict[str, list[float]] = defaultdict(list)
    solved: dict[str, list[int]] = defaultdict(list)
    profiles: dict[str, cProfile.Profile] = defaultdict(cProfile.Profile)
    now = NOW
    for _ in range(args.events):
        now += STEPS.get(args.profile, STEP)  # the soak's clock (Fleet's heartbeats stay fresh)
        kind, event, _ = world.next(now)
        profile = profiles[kind] if args.cprofile else None
        c1, t1 = time.process_time(), time.perf_counter()
        if profile is not None:
            profile.enable()
        delta = hub.handle(event, now=now)
        if profile is not None:
            profile.disable()
        cpu[kind].append((time.process_time() - c1) * 1000)
        wall[kind].append((time.perf_counter() - t1) * 1000)
        solved[kind].append(len(delta.requests))
    print(f"first solve: {first[0]:.1f} cpu s, {first[1]:.1f} wall s; {args.events} events")
    print("kind | n | cpu ms median / p99 / max | wall ms median / p99 | requests solved (mean)")
    every = [x for v in cpu.values() for x in v]
    for kind in [*sorted(cpu), "all"]:
        c = np.array(every if kind == "all" else cpu[kind])
        w = np.array([x for v in wall.values() for x in v] if kind == "all" else wall[kind])
        s = np.array([x for v in solved.values() for x in v] if kind == "all" else solved[kind])
        print(
            f"{kind} | {len(c)} | {np.median(c):.1f} / {np.percentile(c, 99):.1f} / {c.max():.1f} | "
            f"{np.median(w):.1f} / {np.percentile(w, 99):.1f} | {s.mean():.1f}"
        )
    for kind, profile in sorted(profiles.items()):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.cprofile)
        print(f"\n=== {kind}\n{out.getvalue()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
