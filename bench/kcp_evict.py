"""kcp: evict 10% of the clusters and count the moves each mode makes against the forced minimum.

    python -m bench.kcp_evict                         # 2,000 namespaces, 50 Locations, 500 clusters
    python -m bench.kcp_evict --clusters 100 --namespaces 400 --out /tmp/kcp

Per generation (v0.5: namespaces placed by the annotation state machine; v0.8: Placements) and
mode (greedy: upstream's random picks, seeded; optimal: the joint answer):

1. the workspace set of `placement-solver generate --system kcp --generation G` (clusters/10
   Locations, the lab's included) is settled: `simulate` runs the scheduler in that mode and the
   other actors to a fixed point, as if that mode had been kcp's scheduler all along (and, for
   optimal, once more from greedy's settled state: both modes' answers to the same eviction);
2. 10% of the clusters that are available (Ready, schedulable, not evicting; the same clusters in
   both modes, drawn with the seed) get `spec.evictAfter` one second before the next moment;
3. one scheduler run (the whole pipeline) at that moment: **moves** = (namespace, cluster) pairs
   the namespaces were on and are not any more, **forced** = those no scheduler could keep (on an
   evicted cluster, or otherwise unavailable), the minimum; the spread of namespaces over the
   available clusters after it (max, mean, standard deviation);
4. `simulate` from there to the fixed point: the steps it takes and that the invariants held.

Writes README.md (the table and how to read it) and results.csv to `--out` (docs/bench/kcp).
Both generations and modes run one after the other in this process.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from adapters.kcp import names as n
from adapters.kcp.actors import workspace_of
from adapters.kcp.simulate import STEP, run_simulation
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.run.pipeline import schedule_manifests
from bench import kcp_hub
from bench.environment import machine, revision
from solver import SolveOptions

__all__ = ["main", "run", "write_report"]

ROOT = Path(__file__).resolve().parent.parent
MODES = ("greedy", "optimal")
GENERATIONS = ("v0.5", "v0.8")
TIME_LIMIT = 60.0


def _evicted(objects: Sequence[dict[str, Any]], share: float, seed: int) -> list[tuple[str, str]]:
    """`share` of the available clusters (at least one), drawn with the seed, sorted."""
    generation = "v0.5" if any(o["kind"] == n.WORKLOAD_CLUSTER for o in objects) else "v0.8"
    available = sorted(
        (workspace_of(o), o["metadata"]["name"])
        for o in objects
        if o["kind"] in (n.WORKLOAD_CLUSTER, n.SYNC_TARGET)
        and kcp_hub._available(o, generation, kcp_hub.NOW)[1]
    )
    count = max(1, round(share * len(available))) if available else 0
    rng = np.random.default_rng([seed, 91])
    return sorted(available[i] for i in rng.choice(len(available), size=count, replace=False).tolist())


def _evict(
    objects: Sequence[dict[str, Any]], clusters: set[tuple[str, str]], at: str
) -> list[dict[str, Any]]:
    out = []
    for o in objects:
        if (
            o["kind"] in (n.WORKLOAD_CLUSTER, n.SYNC_TARGET)
            and (workspace_of(o), o["metadata"]["name"]) in clusters
        ):
            o = copy.deepcopy(o)
            o.setdefault("spec", {})["evictAfter"] = at
        out.append(o)
    return out


def _on(objects: Sequence[dict[str, Any]], clusters: set[tuple[str, str]]) -> int:
    """(namespace, cluster) pairs on these clusters."""
    return sum(1 for on in kcp_hub.placed(objects).values() for c in on if c in clusters)


def case(
    generation: str,
    mode: str,
    clusters: int,
    namespaces: int,
    share: float,
    seed: int,
    *,
    history: str | None = None,
) -> dict[str, Any]:
    """One row: the set settled by `history` (default: `mode` itself), evicted, solved in `mode`."""
    objects = kcp_hub.workspace_set(clusters, namespaces, seed, generation)
    options = SolveOptions(mode=mode, seed=seed, time_limit=TIME_LIMIT)
    settling = SolveOptions(mode=history or mode, seed=seed, time_limit=TIME_LIMIT)
    started = time.perf_counter()
    settled = run_simulation(from_objects(objects, "<generated>"), now=kcp_hub.NOW, options=settling)
    settle_s = time.perf_counter() - started
    assert settled.converged and not settled.violations, (generation, mode)
    before = settled.objects
    moment = settled.ended + STEP
    evicted = set(_evicted(objects, share, seed))
    at = time_text(moment - timedelta(seconds=1))
    state = _evict(before, evicted, at)
    on_evicted = _on(state, evicted)
    spread_before = kcp_hub.spread(before)

    manifests = from_objects(state, "<evicted>")
    started = time.perf_counter()
    outcome = schedule_manifests(manifests, now=moment, options=options)
    scheduler_s = time.perf_counter() - started
    after = kcp_hub.advance(state, outcome)
    moved, forced = kcp_hub.moves(state, after, now=moment)
    spread_after = kcp_hub.spread(after, now=moment)
    summary = outcome.summary

    started = time.perf_counter()
    rest = run_simulation(from_objects(state, "<evicted>"), now=moment, options=options)
    simulate_s = time.perf_counter() - started
    final = kcp_hub.spread(rest.objects, now=rest.ended)
    return {
        "generation": generation,
        "mode": mode,
        "history": history or mode,
        "clusters": clusters,
        "namespaces": namespaces,
        "locations": sum(1 for o in objects if o["kind"] == n.LOCATION),
        "placed": len(kcp_hub.placed(before)),
        "evicted": len(evicted),
        "on_evicted": on_evicted,
        "forced": forced,
        "moves": moved,
        "beyond_forced": moved - forced,
        "max_before": spread_before["max"],
        "std_before": spread_before["std"],
        "max_after": spread_after["max"],
        "mean_after": spread_after["mean"],
        "std_after": spread_after["std"],
        "max_final": final["max"],
        "settle_steps": settled.steps,
        "steps_after": rest.steps,
        "converged": rest.converged,
        "violations": len(rest.violations),
        "requests": summary["requests"],
        "status": summary["status"],
        "gap": summary["gap"],
        "scheduler_s": scheduler_s,
        "solver_s": summary["wall_seconds"],
        "settle_s": settle_s,
        "simulate_s": simulate_s,
    }


def run(
    clusters: int = 500,
    namespaces: int = 2000,
    share: float = 0.10,
    seed: int = 0,
    generations: Sequence[str] = GENERATIONS,
    modes: Sequence[str] = MODES,
    progress: Any = None,
) -> pl.DataFrame:
    rows = []
    runs = [(m, None) for m in modes] + ([("optimal", "greedy")] if set(modes) == set(MODES) else [])
    for generation in generations:
        for mode, history in runs:
            row = case(generation, mode, clusters, namespaces, share, seed, history=history)
            rows.append(row)
            if progress is not None:
                progress(
                    f"kcp {generation} {mode} settled by {history or mode}: moves {row['moves']} / "
                    f"forced {row['forced']} "
                    f"(on evicted {row['on_evicted']}), max {row['max_after']} mean {row['mean_after']:.2f}, "
                    f"scheduler {row['scheduler_s']:.2f} s"
                )
    return pl.DataFrame(rows)


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def markdown(frame: pl.DataFrame) -> str:
    headers = (
        "generation", "mode", "settled by", "requests", "on evicted clusters", "moves", "forced",
        "beyond forced", "max / mean / std per cluster after", "max / std before", "scheduler s", "solver s",
        "status", "steps to settle after",
    )  # fmt: skip
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" for _ in headers) + "|"]
    for r in frame.iter_rows(named=True):
        status = r["status"] + (
            "" if r["gap"] in (None, 0) or r["status"] == "GREEDY" else f", gap {r['gap']:.2g}"
        )
        cells = (
            r["generation"],
            r["mode"],
            r["history"],
            f"{r['requests']:,}",
            f"{r['on_evicted']:,}",
            f"**{r['moves']:,}**",
            f"{r['forced']:,}",
            f"{r['beyond_forced']:,}",
            f"**{r['max_after']}** / {r['mean_after']:.2f} / {r['std_after']:.2f}",
            f"{r['max_before']} / {r['std_before']:.2f}",
            _seconds(r["scheduler_s"]),
            _seconds(r["solver_s"]),
            status,
            f"{r['steps_after']}" + ("" if r["converged"] else " (not converged)"),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


LEGEND = """\
- **settled by**: the mode that scheduled the set before the eviction (simulate to the fixed point
  from the generated set). A mode settled by itself is that mode run as kcp's scheduler all along;
  the row "optimal, settled by greedy" starts from exactly greedy's state (the same namespaces on
  the evicted clusters): the two modes' answers to the same eviction.
- **requests**: the units the scheduler decides: v0.5 one per namespace and location (a namespace
  placed by the annotation state machine), v0.8 one per Placement (all the namespaces a Placement
  selects move together, to the one SyncTarget it holds).
- **on evicted clusters**: (namespace, cluster) pairs on the clusters evicted, in the state the
  mode itself settled to (so it differs a little between the modes); **forced**: the moves no
  scheduler could avoid (those pairs, plus any other pair whose cluster is unavailable), the
  minimum; **moves**: the pairs the plan takes away; **beyond forced** = moves - forced (both modes
  keep every namespace whose cluster is still valid: the placement onto a cluster is sticky while
  the cluster is valid, upstream and here).
- **max / mean / std per cluster after**: namespaces per available cluster of the compute
  workspace (Ready, schedulable, not evicting) right after the plan; **max / std before**: the
  same of the settled state, before the eviction. A Location whose clusters are mostly unavailable
  (cordoned, not Ready, evicted) leaves its namespaces one or two clusters to go to, in both
  modes: the maximum after the eviction is often that cluster's, the standard deviation says more.
  Greedy is upstream's uniform random pick (seeded); optimal levels the namespaces over the
  clusters of each Location (the most loaded cluster as light as possible) with the moves it is
  forced to make and the new namespaces, never moving one that may stay.
- **scheduler s**: the whole pipeline in process (load, solve, emit of `schedule_manifests` on the
  parsed objects; YAML reading and writing and interpreter start-up not included): end to end for a
  controller. **solver s**: `solver.solve` alone (the pipeline's summary `wall_seconds`).
- **steps to settle after**: `simulate` from the evicted state to its fixed point (5 s a step; v0.8's
  5 s grace takes two of them); the invariants (no workload object loses its state label before the
  signal) held in every step of every run.
"""


def _environment() -> str:
    return f"{machine()} {revision()}".rstrip()


def write_report(
    frame: pl.DataFrame,
    out: str | os.PathLike[str],
    *,
    clusters: int,
    namespaces: int,
    share: float,
    seed: int,
) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv, md = out / "results.csv", out / "README.md"
    frame.write_csv(csv)
    locations = frame["locations"][0] if frame.height else 0
    command = "python -m bench.kcp_evict"
    if (clusters, namespaces, share, seed) != (500, 2000, 0.10, 0):
        command += f" --clusters {clusters} --namespaces {namespaces} --share {share} --seed {seed}"
    text = "\n\n".join(
        [
            "# kcp: evicting 10% of the clusters, greedy against optimal",
            f"The workspace set of `placement-solver generate --system kcp --clusters {clusters} "
            f"--placements {namespaces}` in both API generations: {namespaces:,} namespaces over "
            f"{locations} Locations and {clusters:,} clusters; {share:.0%} of the available clusters "
            f"evicted (`spec.evictAfter` in the past) after each mode settled the set itself. "
            f"Reproduce with `{command}`. " + _environment(),
            markdown(frame).rstrip("\n"),
            LEGEND.rstrip("\n"),
        ]
    )
    if (out / "grid" / "results.md").is_file():
        text += (
            "\n\nThe suite's kcp rows (both generations, both modes, with the phases, the churn of "
            "kcp's events and the namespace moves on each generated set): "
            "[grid/results.md](grid/results.md), from `placement-solver bench --system kcp --system "
            "kcp-v0.5 --sizes 100x100,1000x1000,500x2000,1000x5000 --out docs/bench/kcp/grid`."
        )
    md.write_text(text + "\n", encoding="utf-8")
    return [csv, md]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kcp_evict", description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=500)
    parser.add_argument("--namespaces", type=int, default=2000)
    parser.add_argument("--share", type=float, default=0.10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generations", default=",".join(GENERATIONS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "kcp"))
    args = parser.parse_args(argv)
    generations = [g.strip() for g in args.generations.split(",") if g.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    frame = run(
        args.clusters,
        args.namespaces,
        args.share,
        args.seed,
        generations,
        modes,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    write_report(
        frame, args.out, clusters=args.clusters, namespaces=args.namespaces, share=args.share, seed=args.seed
    )
    print(markdown(frame), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
