"""The suite's plots (matplotlib, Agg backend): time against fleet size, and optimal against greedy.

    plot_time(frame, "time.png")        # wall seconds against clusters, log-log; where time goes
    plot_quality(frame, "quality.png")  # objective of optimal relative to greedy; churn beyond forced

`frame` is what :func:`bench.sweeps.run_suite` and :func:`bench.sweeps.sweep` return; skipped and
failed rows are left out, and several seeds' figures are taken at their median.
"""

from __future__ import annotations

import os
from typing import Any

import matplotlib

matplotlib.use("Agg")

import polars as pl  # noqa: E402
import polars.selectors as cs  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from bench.events import EVENTS  # noqa: E402

__all__ = ["plot_quality", "plot_time"]

_MODE_STYLE = {"greedy": dict(linestyle="--", marker="s"), "optimal": dict(linestyle="-", marker="o")}
_PHASES = (
    ("load_s", "load"),
    ("build_s", "solver: build"),
    ("solve_s", "solver: CP-SAT"),
    ("other_s", "solver: greedy and the rest"),
    ("emit_s", "emit"),
)
_EVENT_COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")


def _measured(frame: pl.DataFrame) -> pl.DataFrame:
    """The cases measured (not skipped, not failed); with several seeds, each case's figures are
    their medians over the seeds."""
    data = frame.filter(~pl.col("status").is_in(["SKIPPED", "FAILED"]))
    case = ["system", "clusters", "placements", "mode"]
    if data["seed"].n_unique() > 1:
        figures = cs.numeric() - cs.by_name(*case, "seed")
        data = data.group_by(case).agg(figures.cast(pl.Float64).median())
    return data.sort("system", "placements", "clusters", "mode")


def _size_label(clusters: int, placements: int) -> str:
    def short(x: int) -> str:
        return f"{x // 1000}k" if x >= 1000 and x % 1000 == 0 else str(x)

    return f"{short(clusters)}x{short(placements)}"


def _count(x: float, _pos: Any = None) -> str:
    return f"{int(x):,}" if x >= 1 else f"{x:g}"


def plot_time(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Left: wall seconds against clusters, log-log, one line per (mode, placements).
    Right: where the time goes, per case (stacked seconds)."""
    data = _measured(frame)
    fig = Figure(figsize=(14, 6), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(1, 1.15))
    placements = sorted(set(data["placements"].to_list()))
    colors = matplotlib.colormaps["viridis"]
    systems = sorted(set(data["system"].to_list()))
    for k, count in enumerate(placements):
        color = colors(k / max(1, len(placements) - 1) * 0.85)
        for mode in ("greedy", "optimal"):
            for system in systems:
                part = data.filter(
                    (pl.col("placements") == count) & (pl.col("mode") == mode) & (pl.col("system") == system)
                ).sort("clusters")
                if part.is_empty():
                    continue
                label = f"{mode}, {count:,} placements" + (f" ({system})" if len(systems) > 1 else "")
                left.plot(part["clusters"], part["wall_s"], color=color, label=label, **_MODE_STYLE[mode])
    left.set_xscale("log")
    left.set_yscale("log")
    left.xaxis.set_major_formatter(FuncFormatter(_count))
    left.set_xlabel("clusters")
    left.set_ylabel("wall seconds (load + solve + emit)")
    left.set_title("Scheduling time against fleet size")
    left.grid(True, which="both", alpha=0.3)
    if not data.is_empty():
        left.legend(fontsize=8)

    cases = data.sort("system", "clusters", "placements", "mode").with_columns(
        other_s=(pl.col("solver_s") - pl.col("build_s") - pl.col("solve_s")).clip(lower_bound=0.0)
    )
    labels = [
        f"{_size_label(c, p)} {m[:3]}" + (f" {s}" if len(systems) > 1 else "")
        for s, c, p, m in cases.select("system", "clusters", "placements", "mode").iter_rows()
    ]
    y = list(range(len(labels)))
    totals = [sum(row[c] or 0.0 for c, _ in _PHASES) for row in cases.iter_rows(named=True)]
    start = [0.0] * len(labels)
    phase_colors = ("#8c8c8c", "#4c72b0", "#c44e52", "#dd8452", "#55a868")
    for (column, name), color in zip(_PHASES, phase_colors, strict=True):
        shares = [
            100 * (v or 0.0) / t if t else 0.0 for v, t in zip(cases[column].to_list(), totals, strict=True)
        ]
        right.barh(y, shares, left=start, color=color, label=name, height=0.7)
        start = [a + b for a, b in zip(start, shares, strict=True)]
    for k, total in enumerate(totals):
        right.annotate(
            f"{total:.2f} s", (100, k), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7
        )
    right.set_yticks(y, labels, fontsize=8)
    right.invert_yaxis()
    right.set_xlim(0, 112)
    right.set_xticks([0, 20, 40, 60, 80, 100])
    right.set_xlabel("share of wall time, % (right: wall seconds)")
    right.set_title("Where the time goes (clusters x placements, mode)")
    right.grid(True, axis="x", alpha=0.3)
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncols=len(_PHASES))
    fig.savefig(path, dpi=110)


def _relative_gain(data: pl.DataFrame) -> list[dict[str, Any]]:
    """Per size (optimal rows): the relative and absolute objective gain over greedy, and the
    change in selected pairs (the objective's first level)."""
    greedy = {
        (r["system"], r["clusters"], r["placements"]): r
        for r in data.filter(pl.col("mode") == "greedy").iter_rows(named=True)
    }
    out = []
    for row in data.filter(pl.col("mode") == "optimal").sort("clusters", "placements").iter_rows(named=True):
        gain = row["objective_gain"]
        base = greedy.get((row["system"], row["clusters"], row["placements"]))
        out.append(
            {
                "label": _size_label(row["clusters"], row["placements"]),
                "gain": gain,
                "relative": None if gain is None else gain / max(1, abs(row["objective"] - gain)),
                "picks": None if base is None else round(row["selected"] - base["selected"]),
            }
        )
    return out


def _positions(count: int, j: int, width: float) -> list[float]:
    """x positions of the j-th bar of each of `count` groups."""
    return [i - 0.4 + width * (j + 0.5) for i in range(count)]


def plot_quality(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Left: (objective of optimal - greedy's) / |greedy's| per size (optimal never loses).
    Right: churn beyond the forced minimum after each event, per size and mode."""
    data = _measured(frame)
    fig = Figure(figsize=(14, 6), layout="constrained")
    left, right = fig.subplots(1, 2)

    gains = _relative_gain(data)
    xs = list(range(len(gains)))
    positive = [g["relative"] for g in gains if g["relative"] is not None and g["relative"] > 0]
    floor = min(positive) / 20 if positive else 1e-12
    highest = max(positive) if positive else 1e-10
    top = highest * (highest / floor) ** 0.35  # headroom for the rotated labels
    heights = [g["relative"] if g["relative"] is not None and g["relative"] > 0 else 0 for g in gains]
    left.set_yscale("log")
    shown = [x for x in xs if heights[x] > 0]
    left.bar(shown, [heights[x] for x in shown], color="#4c72b0", width=0.6)
    for x, g in zip(xs, gains, strict=True):
        gain = g["gain"]
        if gain is None:
            text = "no greedy run"
        elif gain == 0:
            text = "equal"
        else:
            text = f"{gain:+.2g}".replace("e+", "e") + (" (!)" if gain < 0 else "")
            if g["picks"]:
                text += f", {g['picks']:+d} picks"
        y = heights[x] if heights[x] > 0 else floor
        left.annotate(
            text,
            (x, y),
            ha="center",
            va="bottom",
            fontsize=7,
            rotation=90,
            xytext=(0, 3),
            textcoords="offset points",
        )
    left.set_ylim(floor, top)
    left.set_xlim(-0.6, len(xs) - 0.4)
    left.set_xticks(xs, [g["label"] for g in gains], rotation=45, ha="right")
    left.set_xlabel("clusters x placements")
    left.set_ylabel("(optimal - greedy) / |greedy|, log (labels: absolute gain)")
    left.set_title("Objective of optimal relative to greedy (higher is better)")
    left.grid(True, axis="y", which="both", alpha=0.3)

    sizes = sorted(set(zip(data["clusters"].to_list(), data["placements"].to_list(), strict=True)))
    modes = [m for m in ("greedy", "optimal") if m in set(data["mode"].to_list())]
    width = 0.8 / max(1, len(modes))
    for j, mode in enumerate(modes):
        bottom = [0.0] * len(sizes)
        for event, color in zip(EVENTS, _EVENT_COLORS, strict=True):
            column = event.replace("-", "_")
            heights = []
            for clusters, placements in sizes:
                row = data.filter(
                    (pl.col("clusters") == clusters)
                    & (pl.col("placements") == placements)
                    & (pl.col("mode") == mode)
                )
                churn = row[f"churn_{column}"].sum() if not row.is_empty() else 0
                forced = row[f"forced_{column}"].sum() if not row.is_empty() else 0
                heights.append(max(0, (churn or 0) - (forced or 0)))
            positions = _positions(len(sizes), j, width)
            right.bar(
                positions,
                heights,
                width=width * 0.95,
                bottom=bottom,
                color=color,
                hatch="//" if mode == "greedy" else None,
                edgecolor="white",
                label=f"{event} ({mode})",
            )
            bottom = [a + b for a, b in zip(bottom, heights, strict=True)]
        for position, total in zip(_positions(len(sizes), j, width), bottom, strict=True):
            right.annotate(
                f"{mode[0]}:{int(total)}",
                (position, total),
                ha="center",
                va="bottom",
                fontsize=7,
                xytext=(0, 2),
                textcoords="offset points",
            )
    right.set_xticks(range(len(sizes)), [_size_label(c, p) for c, p in sizes], rotation=45, ha="right")
    right.set_xlabel("clusters x placements (hatched: greedy, plain: optimal; g:/o: totals)")
    right.set_ylabel("workloads moved beyond the forced minimum")
    right.set_title("Churn after an event, beyond what was forced (lower is better)")
    right.grid(True, axis="y", alpha=0.3)
    right.set_ylim(0, max(1.0, right.get_ylim()[1]) * 1.35)
    right.legend(fontsize=7, ncols=2, loc="upper left")
    fig.savefig(path, dpi=110)
