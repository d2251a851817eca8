"""openMCP at scale: clusters created and time taken by each mode, for the batches issue 7 names.

    python -m bench.openmcp_scale                        # 300x1250 and 3000x12500, both modes
    python -m bench.openmcp_scale --sizes 300x1250 --out /tmp/openmcp

A size CxP is the hub of `placement-solver generate --system openmcp --clusters C --placements P`:
P ClusterRequests of which exactly 80% are pending (300x1250: 1,000 pending requests over 300
clusters and four purposes; 3000x12500: 10,000 over 3,000), with the scheduler config the
generator makes for that size. Per size and mode, three measurements:

- **command**: the wall time of `placement-solver solve -f hub.yaml --config config.yaml --mode M
  --now ...` in a fresh interpreter, YAML out to a file: what a user waits for, interpreter start
  and imports included. Its output is read back for the outcome: requests granted (on existing
  clusters, on new ones), requests left pending, clusters created;
- **end to end** (in a fresh process, :func:`bench.suite.run_case` after a warm-up on a tiny hub):
  reading the YAML text, the library pipeline and writing the YAML stream, without interpreter
  start-up, imports or CP-SAT's first model;
- **solver**: `solver.solve` alone on the loaded batch (inside that same process), beside the
  scheduler's own work (**wall** = load + solve + emit) and the CP-SAT status and gap.

Writes `README.md` (the table and how to read it) and `results.csv` to `--out`
(docs/bench/openmcp by default). The cases run one after the other, each in its own process.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import dump_yaml_stream
from bench import openmcp_hub
from bench.command import ROOT, solve_seconds
from bench.environment import machine, revision
from bench.suite import parse_sizes, run_case

__all__ = ["DEFAULT_SIZES", "main", "run", "write_report"]

DEFAULT_SIZES: tuple[tuple[int, int], ...] = ((300, 1250), (3000, 12_500))
MODES = ("greedy", "optimal")
TIME_LIMIT = 60.0


class _Applied:
    """The command's YAML output as something with `apply` (the complete desired state)."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.apply = objects
        self.delete: list[dict[str, Any]] = []


def _read_output(path: Path) -> list[dict[str, Any]]:
    """The command's YAML stream, read plainly (the output is not an input to validate)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open(encoding="utf-8") as stream:
        return [doc for doc in yaml.load_all(stream, Loader=loader) if doc]


def _command(hub: Path, config: Path, mode: str, seed: int, out: Path) -> float:
    """Wall seconds of `placement-solver solve` on the files, its YAML written to `out`."""
    flags = ["--config", str(config), "--mode", mode, "--now", DEFAULT_NOW, "--seed", str(seed)]
    return solve_seconds(hub, out, [*flags, "--time-limit", str(TIME_LIMIT)])


def _warm_case(clusters: int, placements: int, mode: str, seed: int) -> dict[str, Any]:
    """:func:`bench.suite.run_case` without churn, after the same on a tiny hub: the imports and
    CP-SAT's first model stay out of the figures, as they would in a long-lived controller."""
    run_case("openmcp", 20, 25, mode, seed, time_limit=TIME_LIMIT, events=False)
    return run_case("openmcp", clusters, placements, mode, seed, time_limit=TIME_LIMIT, events=False)


def measure(clusters: int, placements: int, mode: str, seed: int) -> dict[str, Any]:
    """:func:`_warm_case` in a fresh process (its peak memory its own)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_warm_case, clusters, placements, mode, seed).result()


def run(
    sizes: Sequence[tuple[int, int]] = DEFAULT_SIZES,
    modes: Sequence[str] = MODES,
    seed: int = 0,
    progress: Any = None,
) -> pl.DataFrame:
    """One row per (size, mode)."""
    rows = []
    for clusters, placements in sizes:
        objects = generate("openmcp", clusters, placements, seed=seed)
        config = openmcp_hub.config(clusters, placements, seed)
        waiting = openmcp_hub.pending(objects)
        with tempfile.TemporaryDirectory(prefix="openmcp-scale-") as tmp:
            hub, config_file = Path(tmp) / "hub.yaml", Path(tmp) / "config.yaml"
            hub.write_text(dump_yaml_stream(objects), encoding="utf-8")
            config_file.write_text(dump_yaml_stream([config]).removeprefix("---\n"), encoding="utf-8")
            for mode in modes:
                output = Path(tmp) / f"out-{mode}.yaml"
                command_s = _command(hub, config_file, mode, seed, output)
                applied = _read_output(output)
                granted, on_existing = openmcp_hub.granted(objects, _Applied(applied))
                row = measure(clusters, placements, mode, seed)
                rows.append(
                    {
                        "clusters": clusters,
                        "requests": placements,
                        "pending": waiting,
                        "mode": mode,
                        "granted": granted,
                        "granted_existing": on_existing,
                        "granted_new": granted - on_existing,
                        "left_pending": waiting - granted,
                        "created": openmcp_hub.created(objects, _Applied(applied)),
                        "created_exclusive": openmcp_hub.created_by_tenancy(objects, _Applied(applied))[0],
                        "created_in_process": row["created"],
                        "command_s": command_s,
                        "e2e_s": row["e2e_s"],
                        "read_s": row["read_s"],
                        "write_s": row["write_s"],
                        "wall_s": row["wall_s"],
                        "solver_s": row["solver_s"],
                        "solve_s": row["solve_s"],
                        "status": row["status"],
                        "gap": row["gap"],
                        "time_limited": row["time_limited"],
                        "peak_rss_mb": row["peak_rss_mb"],
                        "violations": row["violations"],
                    }
                )
                if progress is not None:
                    progress(
                        f"openmcp {clusters}x{placements} {mode}: created {rows[-1]['created']}, command "
                        f"{command_s:.2f} s, end to end {row['e2e_s']:.2f} s, solver {row['solver_s']:.2f} s"
                    )
    return pl.DataFrame(rows)


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def markdown(frame: pl.DataFrame) -> str:
    headers = (
        "clusters", "requests (pending)", "mode", "clusters created", "of which Exclusive / Shared",
        "granted: existing / new",
        "left pending", "command s", "end to end s", "wall s", "solver s", "CP-SAT s", "status",
        "peak MiB",
    )  # fmt: skip
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" for _ in headers) + "|"]
    for r in frame.iter_rows(named=True):
        status = r["status"] + (" (time-limited)" if r["time_limited"] else "")
        if r["gap"] is not None and r["status"] != "GREEDY":
            status += f", gap {r['gap']:.2g}"
        cells = (
            f"{r['clusters']:,}",
            f"{r['requests']:,} ({r['pending']:,})",
            r["mode"],
            f"**{r['created']:,}**",
            f"{r['created_exclusive']:,} / {r['created'] - r['created_exclusive']:,}",
            f"{r['granted_existing']:,} / {r['granted_new']:,}",
            f"{r['left_pending']:,}",
            _seconds(r["command_s"]),
            _seconds(r["e2e_s"]),
            _seconds(r["wall_s"]),
            _seconds(r["solver_s"]),
            _seconds(r["solve_s"]),
            status,
            f"{r['peak_rss_mb']:.0f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _environment() -> str:
    return f"{machine()} {revision()}".rstrip()


LEGEND = """\
- **clusters created**: Clusters the plan makes (new ones from the purposes' templates, named from
  generateName where a request asks, and lost ones made again). Every Exclusive (`mcp`) request
  takes one in both modes; the difference between the modes is in the Shared purposes
  (**of which Exclusive / Shared**).
- **granted: existing / new**: pending requests the plan grants, on clusters that already exist /
  on clusters it creates. **left pending**: requests still waiting (an unknown purpose, a cluster
  the API server would refuse to make).
- **command**: `placement-solver solve -f hub.yaml --config config.yaml --mode M` in a fresh
  interpreter, YAML out to a file: the figure a user waits for, interpreter start-up and imports
  included. **end to end**: the same read, schedule and write inside a running process (warmed up
  on a tiny hub first: no imports, no first CP-SAT model).
  **wall**: the scheduler's own work (load + solve + emit) on parsed input. **solver**:
  `solver.solve` alone; **CP-SAT**: the search inside it (summed over parts searched side by side).
- **status**: GREEDY, or optimal mode's status: OPTIMAL (every level proven), FEASIBLE (CP-SAT
  proved the first two levels, the requests left without a cluster and the clusters created;
  the strategy's aim after them, Balanced here, is exact for CP-SAT's split of the new clusters
  over pools but not proven over every split: see solver/tenancy/). A time-limited solve
  would say so.
- **peak MiB**: peak resident memory of the in-process measurement (hub generation included).
"""


def _purposes(frame: pl.DataFrame, seed: int) -> str:
    """The purposes of each size's scheduler config, with their tenancy and count."""
    lines = []
    for clusters, requests in dict.fromkeys(zip(frame["clusters"], frame["requests"], strict=True)):
        mappings = openmcp_hub.config(clusters, requests, seed)["scheduler"]["purposeMappings"]
        kinds = []
        for purpose, m in mappings.items():
            tenancy, count = m["template"]["spec"]["tenancy"], m["tenancyCount"]
            kinds.append(
                f"`{purpose}` {tenancy}"
                + ("" if tenancy != "Shared" else f" {count}" if count else " unlimited")
            )
        lines.append(f"{clusters:,} x {requests:,}: " + ", ".join(kinds))
    return "Purposes (tenancy, tenancyCount) per size: " + "; ".join(lines) + "."


def _comparison(frame: pl.DataFrame) -> str:
    """Per size with both modes: how many clusters optimal saves against greedy."""
    lines = []
    rows = {(r["clusters"], r["requests"], r["mode"]): r for r in frame.iter_rows(named=True)}
    for clusters, requests in dict.fromkeys(zip(frame["clusters"], frame["requests"], strict=True)):
        greedy, optimal = rows.get((clusters, requests, "greedy")), rows.get((clusters, requests, "optimal"))
        if greedy is None or optimal is None:
            continue
        saved = greedy["created"] - optimal["created"]
        shared_greedy = greedy["created"] - greedy["created_exclusive"]
        shared_optimal = optimal["created"] - optimal["created_exclusive"]
        share = f" ({(shared_greedy - shared_optimal) / shared_greedy:.0%} of greedy's Shared ones)"
        lines.append(
            f"- {greedy['pending']:,} pending requests over {clusters:,} clusters: optimal creates "
            f"{optimal['created']:,} clusters, greedy {greedy['created']:,}: {saved:,} fewer"
            + (share if shared_greedy and saved > 0 else "")
            + f"; it grants {optimal['granted_existing']:,} requests on existing clusters against "
            f"greedy's {greedy['granted_existing']:,}. Command: optimal {_seconds(optimal['command_s'])} s, "
            f"greedy {_seconds(greedy['command_s'])} s; solver alone: optimal "
            f"{_seconds(optimal['solver_s'])} s, greedy {_seconds(greedy['solver_s'])} s."
        )
    return "\n".join(lines)


def write_report(frame: pl.DataFrame, out: str | os.PathLike[str], *, seed: int = 0) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv, md = out / "results.csv", out / "README.md"
    frame.write_csv(csv)
    sizes = ",".join(
        f"{c}x{p}" for c, p in dict.fromkeys(zip(frame["clusters"], frame["requests"], strict=True))
    )
    command = "python -m bench.openmcp_scale" + (f" --sizes {sizes}" if sizes else "")
    command += f" --seed {seed}" if seed else ""
    parts = [
        "# openMCP: clusters created and time taken, greedy against optimal",
        "Issue 7's batches: 1,000 pending ClusterRequests over 300 Clusters and four purposes, and "
        "10,000 over 3,000, each the hub of `placement-solver generate --system openmcp` (80% of "
        "its ClusterRequests pending; the rest granted, being deleted, ignored or outside the "
        "request selector) with the scheduler config `generate --config-out` writes for it. "
        f"Reproduce with `{command}`. " + _environment(),
        _purposes(frame, seed),
        _comparison(frame),
        markdown(frame).rstrip("\n"),
        LEGEND.rstrip("\n"),
    ]
    text = "\n\n".join(part for part in parts if part)
    if (out / "grid" / "results.md").is_file():
        text += (
            "\n\nThe suite's grid for openMCP (both modes, 100 to 10,000 clusters by 100 to 5,000 "
            "ClusterRequests, with the phases and a **created** column): [grid/results.md](grid/results.md), "
            "from `placement-solver bench --system openmcp --out docs/bench/openmcp/grid`."
        )
    md.write_text(text + "\n", encoding="utf-8")
    return [csv, md]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.openmcp_scale", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(f"{c}x{p}" for c, p in DEFAULT_SIZES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "openmcp"))
    args = parser.parse_args(argv)
    sizes = parse_sizes(args.sizes)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    frame = run(sizes, modes, args.seed, progress=lambda line: print(line, file=sys.stderr, flush=True))
    write_report(frame, args.out, seed=args.seed)
    print(markdown(frame), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
