"""The incremental benchmark: a long-lived scheduler on a large hub, fed one event at a time.

    rows = run_incremental(10000, 2000, events=10)     # per event: latency, moves, forced moves

Each event goes to `adapters.live.incremental.FleetScheduler.handle`; the latency is that call (load of
the woken placements, solve, emit), the moves are (placement, cluster) pairs held before and not
after, the forced ones those whose cluster was removed. Events are drawn with a fixed seed.
"""

from __future__ import annotations

import copy
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.fields import time_text
from adapters.live.incremental import ClusterAdded, ClusterChanged, ClusterRemoved, FleetScheduler
from solver import SolveOptions

__all__ = ["KINDS", "run_incremental", "summarize", "write_incremental"]

KINDS = ("cluster-removed", "cluster-added", "label-changed", "score-updated")
_COST = "kubernetes.azure.com/per-cpu-core-cost"


def _moves(before: dict[str, list[str]], after: dict[str, list[str]]) -> int:
    return sum(len(set(held) - set(after.get(name, []))) for name, held in before.items())


def run_incremental(
    clusters: int, placements: int, *, events: int = 10, seed: int = 0, mode: str = "optimal"
) -> list[dict[str, Any]]:
    """`events` events of each kind on one hub, in turn; one row per event."""
    from datetime import datetime

    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("fleet", clusters, placements, seed=seed)
    members = {o["metadata"]["name"]: o for o in objects if o["kind"] == "MemberCluster"}
    started = time.perf_counter()
    scheduler = FleetScheduler(objects, now=now, options=SolveOptions(mode=mode))
    first = time.perf_counter() - started
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = [
        {"event": "first solve", "cluster": "", "seconds": first, "placements": len(scheduler.selected())}
    ]
    for i in range(events):
        for kind in KINDS:
            names = sorted(members)
            name = names[int(rng.integers(len(names)))]
            before = scheduler.selected()
            if kind == "cluster-removed":
                if i == 0:  # once the busiest cluster, the worst case
                    name = Counter(c for held in before.values() for c in held).most_common(1)[0][0]
                event: Any = ClusterRemoved(name)
                members.pop(name)
            elif kind == "cluster-added":
                obj = copy.deepcopy(members[name])
                name = f"member-added-{i:05d}"
                obj["metadata"]["name"] = name
                members[name] = obj
                event = ClusterAdded(obj)
            elif kind == "label-changed":
                obj = copy.deepcopy(members[name])
                obj["metadata"]["labels"]["region"] = f"region-moved-{i}"
                members[name] = obj
                event = ClusterChanged(obj)
            else:
                obj = copy.deepcopy(members[name])
                cost = f"0.{int(rng.integers(10, 99)):02d}"
                seen = time_text(now)  # the CRD requires the observation time
                obj.setdefault("status", {}).setdefault("properties", {})[_COST] = {
                    "value": cost,
                    "observationTime": seen,
                }
                members[name] = obj
                event = ClusterChanged(obj)
            delta = scheduler.handle(event, now=now)
            after = scheduler.selected()
            forced = sum(name in held for held in before.values()) if kind == "cluster-removed" else 0
            rows.append(
                {
                    "event": kind,
                    "cluster": name,
                    "seconds": delta.seconds,
                    "placements": len(delta.placements),
                    "moves": _moves(before, after),
                    "forced": forced,
                }
            )
    return rows


def summarize(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Per event kind: median and worst latency, placements re-solved, moves beyond forced."""
    out = []
    for kind in KINDS:
        mine = [r for r in rows if r["event"] == kind]
        if not mine:
            continue
        seconds = [r["seconds"] for r in mine]
        out.append(
            {
                "event": kind,
                "events": len(mine),
                "median_ms": round(statistics.median(seconds) * 1000, 1),
                "max_ms": round(max(seconds) * 1000, 1),
                "median_placements": statistics.median(r["placements"] for r in mine),
                "moves": sum(r["moves"] for r in mine),
                "forced": sum(r["forced"] for r in mine),
                "beyond_forced": sum(r["moves"] - r["forced"] for r in mine),
            }
        )
    return pl.DataFrame(out)


def write_incremental(
    frame: pl.DataFrame, out: str | Path, *, clusters: int, placements: int, mode: str
) -> Path:
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    frame.write_csv(path / "incremental.csv")
    header = list(frame.columns)
    lines = [
        f"# Incremental re-solve, {clusters:,} clusters x {placements:,} placements, {mode} mode",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.iter_rows()]
    target = path / "incremental.md"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target
