"""`placement-solver simulate`: kcp's scheduler and the controllers beside it, step by step to a
fixed point (adapters.kcp.simulate). A command of kcp's own, which its record adds to the command
line (adapters.contract.System.commands)."""

from __future__ import annotations

import sys

import click

from adapters.cli.options import MODES, TIME_LIMIT, count_option, guard, parse_now, read_all
from adapters.kcp import names as n
from adapters.kube.manifests import start_reading
from adapters.run.heap import paused_gc

__all__ = ["simulate"]

SIMULATE_OUTPUTS = ("yaml", "json", "log")


def _reads(kind: str, api_version: str) -> bool:
    """kcp's objects, its own kinds and the core ones it reads: simulate reads nothing else."""
    group = api_version.rpartition("/")[0]
    return group in n.KINDS.get(kind, ()) or group in n.SHARED_KINDS.get(kind, ())


@click.command()
@click.option(
    "-f", "--filename", "paths", multiple=True, required=True, help="File, directory, or - for stdin."
)
@click.option(
    "--steps",
    "steps_text",
    metavar="N",
    help="Stop after N steps (default: at the fixed point, at most 100 steps).",
)
@click.option("--mode", type=click.Choice(MODES), default="optimal", show_default=True)
@click.option(
    "--now",
    "now_text",
    metavar="RFC3339",
    help="The first step's moment; each later step runs 5 s after the one before.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every random choice.")
@click.option("--time-limit", type=TIME_LIMIT, default=10.0, show_default=True, help="Wall seconds.")
@click.option("-o", "--output", type=click.Choice(SIMULATE_OUTPUTS), default="yaml", show_default=True)
def simulate(paths, steps_text, mode, now_text, seed, time_limit, output) -> None:
    """Run kcp's scheduler and its other actors (namespace controller, resource controller,
    syncer) step by step to a fixed point; print the final objects and the transition log (yaml:
    the log as comments after the stream; log: the log alone; json: both)."""

    def run() -> str:
        from adapters.kcp.simulate import render, run_simulation
        from solver import SolveOptions

        steps = None if steps_text is None else count_option(steps_text, "--steps")
        now = parse_now(now_text)
        with paused_gc():
            manifests = read_all(start_reading(list(paths), stdin=sys.stdin, reads=_reads))
            options = SolveOptions(mode=mode, time_limit=time_limit, seed=seed)
            return render(run_simulation(manifests, steps=steps, now=now, options=options), output)

    guard(run)
