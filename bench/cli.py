"""`placement-solver bench`: the benchmark suites from the command line. Registered in the
entry-point group ``placement_solver.commands`` (pyproject.toml), which adapters.cli.main reads: the
command line imports nothing of bench/."""

from __future__ import annotations

import os

import click

from adapters.cli.options import MODES, count_option, guard, list_option
from adapters.errors import InputError
from bench import suite

__all__ = ["bench"]


@click.command()
@click.option("--system", "systems", multiple=True, help="A system to measure (repeatable; default: all).")
@click.option(
    "--sizes",
    "sizes_text",
    metavar="CxP,...",
    help="Sizes (default: the 3x3 grid of 100, 1000, 10000 clusters by 100, 1000, 5000 placements).",
)
@click.option("--modes", "modes_text", default="greedy,optimal", show_default=True, help="Comma-separated.")
@click.option(
    "--seed", "seed_text", metavar="S", default="0", show_default=True, help="Fixes the hubs and events."
)
@click.option(
    "--time-limit",
    "limit_text",
    metavar="SECONDS",
    default="60",
    show_default=True,
    help="Wall-clock bound of each solve.",
)
@click.option("--out", "out", default="bench-out", show_default=True, help="Directory for CSV, MD and PNGs.")
@click.option(
    "--incremental",
    "incremental_text",
    metavar="CxP",
    help="Instead: feed a long-lived scheduler events on one hub of this size (e.g. 10000x2000).",
)
def bench(systems, sizes_text, modes_text, seed_text, limit_text, out, incremental_text) -> None:
    """Run the benchmark suites; print the Markdown table, write results.csv/.md and PNG plots."""

    def run() -> str:

        if incremental_text is not None:
            return _bench_incremental(incremental_text, seed_text, out)

        chosen = list(dict.fromkeys(systems)) or sorted(suite.PROFILES)
        for system in chosen:
            if system not in suite.PROFILES:
                raise InputError(
                    f"unknown system {system!r}; expected one of {', '.join(sorted(suite.PROFILES))}",
                    field="--system",
                )
        try:
            sizes = suite.parse_sizes(sizes_text) if sizes_text is not None else list(suite.DEFAULT_SIZES)
        except ValueError as err:
            raise InputError(str(err), field="--sizes") from None
        modes = list_option(modes_text, "--modes")
        for mode in modes:
            if mode not in MODES:
                raise InputError(
                    f"unknown mode {mode!r}; expected one of {', '.join(MODES)}", field="--modes"
                )
        seed = count_option(seed_text, "--seed")
        try:
            time_limit = float(limit_text)
        except ValueError:
            time_limit = -1.0
        if not time_limit > 0 or time_limit == float("inf"):
            raise InputError(f"not a positive number of seconds: {limit_text!r}", field="--time-limit")
        if not out or (os.path.exists(out) and not os.path.isdir(out)):
            raise InputError(f"not a directory: {out!r}", field="--out")

        def progress(line: str) -> None:
            click.echo(line, err=True)

        frame = suite.run_suite(chosen, sizes, modes, seed, out, time_limit=time_limit, progress=progress)
        return suite.markdown_table(frame)

    guard(run)


def _bench_incremental(size_text: str, seed_text: str, out: str) -> str:
    from bench.incremental import run_incremental, summarize, write_incremental

    try:
        ((clusters, placements),) = suite.parse_sizes(size_text)
    except ValueError as err:
        raise InputError(str(err), field="--incremental") from None
    seed = count_option(seed_text, "--seed")
    frame = summarize(run_incremental(clusters, placements, seed=seed))
    return write_incremental(frame, out, clusters=clusters, placements=placements, mode="optimal").read_text()
