"""`placement-solver bench`: the benchmark suites from the command line. Registered in the
entry-point group ``placement_solver.commands`` (pyproject.toml), which adapters.cli.main reads: the
command line imports nothing of bench/."""

from __future__ import annotations

import os

import click
from click.core import ParameterSource

from adapters.cli.options import count_option, guard, list_option
from adapters.errors import InputError
from bench import suite
from bench.cluster import dask_client, require_dask
from bench.plan import SweepSpec, read_plan
from bench.sweeps import ENGINES, ProgressBar, sweep

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
@click.option(
    "--plan",
    "plan",
    metavar="FILE",
    help="Instead of the flags above: a sweep file (systems, sizes, seeds, modes, events, time-limit).",
)
@click.option(
    "--engine",
    "engine",
    default="local",
    show_default=True,
    metavar="local|dask",
    help="local: one case after another here; dask: each case a task on Dask workers.",
)
@click.option(
    "--scheduler", metavar="ADDRESS", help="With --engine dask: a running Dask scheduler's address."
)
@click.option(
    "--workers",
    "workers_text",
    metavar="N",
    help="With --engine dask: the LocalCluster's workers (default: one per two cores), or, with "
    "--scheduler, how many to wait for.",
)
@click.option("--out", "out", default="bench-out", show_default=True, help="Directory for CSV, MD and PNGs.")
@click.option(
    "--incremental",
    "incremental_text",
    metavar="CxP",
    help="Instead: feed a long-lived scheduler events on one hub of this size (e.g. 10000x2000).",
)
@click.pass_context
def bench(
    ctx: click.Context,
    systems,
    sizes_text,
    modes_text,
    seed_text,
    limit_text,
    plan,
    engine,
    scheduler,
    workers_text,
    out,
    incremental_text,
) -> None:
    """Run the benchmark suites; print the Markdown table, write results.csv/.md and PNG plots."""

    def run() -> str:
        workers = _engine(engine, scheduler, workers_text)
        if incremental_text is not None:
            if engine != "local" or plan is not None:
                raise InputError("not with --engine dask or --plan", field="--incremental")
            return _bench_incremental(incremental_text, seed_text, out)
        if plan is not None:
            given = [f"--{name.replace('_', '-')}" for name in _SWEEP_FLAGS if _given(ctx, name)]
            if given:
                raise InputError(f"the plan says what to sweep; not with {', '.join(given)}", field="--plan")
            spec = read_plan(plan)
        else:
            spec = _spec(systems, sizes_text, modes_text, seed_text, limit_text)
        if not out or (os.path.exists(out) and not os.path.isdir(out)):
            raise InputError(f"not a directory: {out!r}", field="--out")
        if engine == "local":
            frame = sweep(spec, out=out, progress=ProgressBar())
        else:
            with dask_client(scheduler, workers) as client:
                frame = sweep(spec, client, out=out, progress=ProgressBar())
        return suite.markdown_table(frame)

    guard(run)


# The flags a plan replaces (by their parameter names).
_SWEEP_FLAGS = ("systems", "sizes_text", "modes_text", "seed_text", "limit_text")


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


def _engine(engine: str, scheduler: str | None, workers_text: str | None) -> int | None:
    """The engine's flags checked (Dask importable for `dask`); the workers asked for, if any."""
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}", field="--engine")
    if engine != "dask":
        for flag, value in (("--scheduler", scheduler), ("--workers", workers_text)):
            if value is not None:
                raise InputError("only with --engine dask", field=flag)
        return None
    require_dask()
    if scheduler is not None and not scheduler.strip():
        raise InputError("empty address", field="--scheduler")
    if workers_text is None:
        return None
    workers = count_option(workers_text, "--workers")
    if workers < 1:
        raise InputError(f"not a positive number of workers: {workers_text!r}", field="--workers")
    return workers


# The plan's fields by the flags that give them.
_FLAG_OF = {
    "systems": "--system",
    "sizes": "--sizes",
    "seeds": "--seed",
    "modes": "--modes",
    "time-limit": "--time-limit",
}


def _spec(systems, sizes_text, modes_text, seed_text, limit_text) -> SweepSpec:
    """The sweep the flags describe (one seed, every event), refused as the plan refuses it but
    naming the flag."""
    try:
        sizes = suite.parse_sizes(sizes_text) if sizes_text is not None else list(suite.DEFAULT_SIZES)
    except ValueError as err:
        raise InputError(str(err), field="--sizes") from None
    seed = count_option(seed_text, "--seed")
    try:
        time_limit = float(limit_text)
    except ValueError:
        raise InputError(f"not a positive number of seconds: {limit_text!r}", field="--time-limit") from None
    chosen = tuple(dict.fromkeys(systems)) or tuple(sorted(suite.PROFILES))
    modes = tuple(list_option(modes_text, "--modes"))
    try:
        return SweepSpec(chosen, tuple(sizes), (seed,), modes, True, time_limit)
    except InputError as err:
        message = str(err).removeprefix(f"{err.field}: ")
        raise InputError(message, field=_FLAG_OF[err.field]) from None


def _bench_incremental(size_text: str, seed_text: str, out: str) -> str:
    from bench.incremental import run_incremental, summarize, write_incremental

    try:
        ((clusters, placements),) = suite.parse_sizes(size_text)
    except ValueError as err:
        raise InputError(str(err), field="--incremental") from None
    seed = count_option(seed_text, "--seed")
    frame = summarize(run_incremental(clusters, placements, seed=seed))
    return write_incremental(frame, out, clusters=clusters, placements=placements, mode="optimal").read_text()
