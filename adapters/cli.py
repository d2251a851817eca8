"""The command line. InputError becomes exit status 2 here, and only here."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import resources

import click

from adapters.errors import InputError
from adapters.manifests import dump_json, dump_json_list, dump_yaml_stream, parse_text, read_sources
from adapters.pipeline import Outcome, schedule_manifests
from solver import MODES, SolveOptions

__all__ = ["main"]

FORMATS = ("yaml", "json", "plan", "table")


def _parse_now(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        if "t" not in value.lower():  # RFC 3339 needs a time, not just a date
            raise ValueError
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"not an RFC 3339 time: {value!r}", field="--now") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _render(outcome: Outcome, output: str) -> str:
    if output == "yaml":
        return dump_yaml_stream(outcome.apply)
    if output == "json":
        return dump_json_list(outcome.apply)
    if output == "plan":
        return dump_json({"apply": outcome.apply, "delete": outcome.delete, "summary": outcome.summary})
    return render_table(outcome)


def render_table(outcome: Outcome) -> str:
    rows = [("PLACEMENT", "CLUSTER", "DECISION", "AFFINITY", "SPREAD")]
    for got in outcome.result.requests:
        for choice in got.selected:
            score = choice.score
            rows.append(
                (
                    got.request,
                    choice.cluster,
                    "kept" if choice.kept else "new",
                    "-" if score is None else str(score.affinity),
                    "-" if score is None else str(score.spread),
                )
            )
        rows += [(got.request, cluster, "released", "-", "-") for cluster in got.released]
        if not got.selected and not got.released:
            rows.append((got.request, "-", "none", "-", "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    s = outcome.summary
    unsatisfied = [r.request for r in outcome.result.requests if not r.satisfied]
    lines.append("")
    lines.append(
        f"{s['requests']} placements, {s['clusters']} clusters; mode {s['mode']}, status {s['status']}; "
        f"{len(unsatisfied)} unsatisfied{': ' + ', '.join(unsatisfied) if unsatisfied else ''}"
    )
    return "\n".join(lines) + "\n"


def _guard(action: Callable[[], str]) -> None:
    """Run, and print only when everything succeeded: nothing is written on error."""
    try:
        text = action()
    except InputError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    sys.stdout.write(text)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="placement-solver")
def main() -> None:
    """placement-solver: jointly optimal multi-cluster placement with CP-SAT."""


@main.command()
@click.option(
    "-f", "--filename", "paths", multiple=True, required=True, help="File, directory, or - for stdin."
)
@click.option("--mode", type=click.Choice(MODES), default="optimal", show_default=True)
@click.option("--now", "now_text", metavar="RFC3339", help="The time to judge heartbeats and health by.")
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every random choice.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True)
@click.option(
    "--config", "config", type=click.Path(dir_okay=False), help="Scheduler configuration (openMCP)."
)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="yaml", show_default=True)
def solve(paths, mode, now_text, seed, time_limit, config, output) -> None:
    """Schedule every placement in the input and print the objects to write."""

    def run() -> str:
        now = _parse_now(now_text)
        if config is not None:
            try:
                with open(config, encoding="utf-8"):
                    pass
            except OSError as err:
                raise InputError(f"cannot read: {err.strerror}", where=config) from None
        manifests = read_sources(list(paths), stdin=sys.stdin)
        options = SolveOptions(mode=mode, time_limit=time_limit, seed=seed)
        return _render(schedule_manifests(manifests, now=now, options=options), output)

    _guard(run)


DEMO_NOW = "2026-11-21T12:00:00Z"


@main.command()
@click.option("--mode", type=click.Choice(MODES), default="optimal", show_default=True)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
def demo(mode: str, output: str) -> None:
    """Solve the bundled example fleet and print the decisions."""

    def run() -> str:
        text = resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(encoding="utf-8")
        manifests = parse_text(text, "fleet-demo.yaml")
        outcome = schedule_manifests(manifests, now=_parse_now(DEMO_NOW), options=SolveOptions(mode=mode))
        return _render(outcome, output)

    _guard(run)
