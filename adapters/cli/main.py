"""The command line. InputError becomes exit status 2 here, and only here."""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click
import yaml

from adapters.errors import InputError
from adapters.kube.fields import rfc3339
from adapters.kube.manifests import (
    Manifest,
    Reading,
    dump_yaml_stream,
    json_items,
    parse_text,
    start_reading,
    write_json,
    write_json_list,
    write_json_list_runs,
    write_yaml_runs,
    write_yaml_stream,
    yaml_items,
)
from adapters.run import forked
from adapters.run.heap import paused_gc

if TYPE_CHECKING:
    from adapters.run.pipeline import Outcome, SystemOutcome
    from model import Choice

# The scheduler (polars, numpy: a third of a second) is imported where it is used: `solve` imports
# it while forked children parse a large input.

# `guard` and the option parsers serve the commands other packages register too (bench/cli.py).
__all__ = ["MODES", "count_option", "entry", "guard", "list_option", "main"]

class _Seconds(click.FloatRange):
    """A positive number of seconds (inf: no wall limit). NaN compares false with every bound, so
    FloatRange alone lets it through, and a NaN limit quietly cut every search."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return seconds


TIME_LIMIT = _Seconds(min=0, min_open=True)
FORMATS = ("yaml", "json", "plan", "diff", "table", "apply-script")
MODES = ("optimal", "greedy")  # solver.MODES (a test holds them equal), spelt here to start light


def _parse_now(value: str | None) -> datetime | None:
    """`--now`: an RFC 3339 time, as Kubernetes reads the times in objects (fields.rfc3339)."""
    if value is None:
        return None
    moment = rfc3339(value)
    if moment is None:
        raise InputError(
            f"not an RFC 3339 time: {value!r} (a date, T, a time, then Z or an offset: 2026-11-21T12:00:00Z)",
            field="--now",
        )
    return moment


# What a command prints: text, or a writer that passes the output to its argument in pieces (a
# large hub's output is tens of MB, never held whole); either way only once the work succeeded.
Writer = Callable[[Callable[[bytes], object]], None]
Output = str | bytes | Writer


def _render(
    outcome: Outcome, output: str, manifests: Sequence[Manifest], config: Mapping[str, Any] | None = None
) -> Output:
    """yaml/json: the complete desired state; plan/diff: only what changes against the input.
    The large formats come as writers of UTF-8 bytes."""
    from adapters.run.changes import diff_of, plan_of

    if output == "yaml":
        return functools.partial(write_yaml_stream, outcome.apply)
    if output == "json":
        return functools.partial(write_json_list, outcome.apply)
    if output == "plan":
        return functools.partial(write_json, plan_of(outcome, manifests))
    if output == "diff":
        return diff_of(outcome, manifests)
    if output == "apply-script":
        from adapters.cli.writeback import apply_script

        return apply_script(outcome, manifests)
    return render_table(outcome, _greedy_beside(outcome, manifests, config))


def _greedy_beside(
    outcome: Outcome, manifests: Sequence[Manifest], config: Mapping[str, Any] | None = None
) -> Outcome | None:
    """For people: an optimal answer is shown beside what greedy (upstream) would have done."""
    from adapters.run.pipeline import schedule_manifests
    from solver import SolveOptions

    if outcome.summary.get("mode") != "optimal" or not outcome.parts:
        return None
    batch = outcome.parts[0].batch
    options = SolveOptions(mode="greedy", seed=batch.seed)
    return schedule_manifests(manifests, now=batch.now, options=options, config=config)


def render_table(outcome: Outcome, greedy: Outcome | None = None) -> str:
    """One row per placement and chosen cluster. Fleet alone keeps its own words (affinity score);
    otherwise a SYSTEM column leads and the score is the system's total score. Then the counts,
    and every unsatisfied placement with the reason (adapters.cli.unsatisfied), those the solver never
    saw included. With `greedy`, the placements where optimal chose differently follow, with
    what it gained."""
    from adapters.cli.explain import counted
    from adapters.cli.unsatisfied import Reasons

    fleet_only = all(part.system == "fleet" for part in outcome.parts)
    head = ("PLACEMENT", "CLUSTER", "DECISION", "AFFINITY" if fleet_only else "SCORE", "SPREAD")
    rows = [head if fleet_only else ("SYSTEM", *head)]
    unsatisfied: list[tuple[SystemOutcome, str]] = []
    for part in outcome.parts:
        prefix = () if fleet_only else (part.system,)
        held = {r.key: {d.cluster for d in r.existing} for r in part.batch.requests}
        for got in part.result.requests:
            had = held.get(got.request, set())
            for choice in got.selected:
                score = choice.score
                rows.append(
                    (
                        *prefix,
                        got.request,
                        choice.cluster,
                        _decision(choice, had),
                        "-" if score is None else str(score.affinity),
                        "-" if score is None else str(score.spread),
                    )
                )
            rows += [(*prefix, got.request, cluster, "released", "-", "-") for cluster in got.released]
            if not got.selected and not got.released:
                rows.append((*prefix, got.request, "-", "none", "-", "-"))
        keys = part.unsatisfied
        if keys is None:
            keys = tuple(got.request for got in part.result.requests if not got.satisfied)
        unsatisfied += [(part, key) for key in keys]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    s = outcome.summary
    lines.append("")
    lines.append(
        f"{counted(s['requests'], 'placement')}, {counted(s['clusters'], 'cluster')}; mode {s['mode']}, "
        f"status {s['status']}; {len(unsatisfied)} unsatisfied{':' if unsatisfied else ''}"
    )
    if unsatisfied:
        reasons = Reasons(outcome.apply)
        several = len(outcome.parts) > 1
        lines += [
            f"  {part.system + ' ' if several else ''}{key}: {reasons.why(part, key)}"
            for part, key in unsatisfied
        ]
    text = "\n".join(lines) + "\n"
    if greedy is not None:
        from adapters.cli.difference import differences, render_differences

        text += "\n" + render_differences(differences(outcome, greedy))
        text += _created_beside(outcome, greedy)
    return text


def _decision(choice: Choice, had: set[str]) -> str:
    """kept, new (an existing cluster), created (a new one), recreated (a held one that is gone)."""
    if choice.created:
        return "recreated" if choice.kept else "created"
    return "kept" if choice.kept or choice.cluster in had else "new"


def _created(outcome: Outcome) -> dict[str, int]:
    """New clusters per system, where a system creates any."""
    out: dict[str, int] = {}
    for part in outcome.parts:
        names = {c.cluster for got in part.result.requests for c in got.selected if c.created and not c.kept}
        if names or any(r.tenancy is not None and r.tenancy.pool is not None for r in part.batch.requests):
            out[part.system] = len(names)
    return out


def _created_beside(optimal: Outcome, greedy: Outcome) -> str:
    """Systems that create clusters (openMCP): how many each mode creates."""
    from adapters.cli.explain import counted

    mine, theirs = _created(optimal), _created(greedy)
    return "".join(
        f"{system}: optimal creates {counted(count, 'new cluster')}, greedy {theirs.get(system, 0)}\n"
        for system, count in mine.items()
    )


def guard(action: Callable[[], Output]) -> None:
    """Run, and print only when everything succeeded: nothing is written on error, and the error
    is the one line on standard error (the notes the run made are said only when it succeeds)."""
    _notes.clear()
    try:
        text = action()
    except InputError as err:
        _notes.clear()
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    for note in _notes:
        click.echo(f"note: {note}", err=True)
    _notes.clear()
    if isinstance(text, str):
        sys.stdout.write(text)
        return
    binary = getattr(sys.stdout, "buffer", None)
    if binary is None:  # a text-only stream (tests capture so)
        pieces: list[bytes] = []
        _write_output(text, pieces.append)
        sys.stdout.write(b"".join(pieces).decode("utf-8"))
        return
    sys.stdout.flush()
    with contextlib.suppress(BrokenPipeError):  # the reader went away (| head): it took all it wanted
        _write_output(text, binary.write)
        binary.flush()


def _write_output(output: bytes | Writer, write: Callable[[bytes], object]) -> None:
    if isinstance(output, bytes):
        write(output)
    else:
        output(write)


# Where a command's large objects (the input read, the outcome) are kept until the process ends,
# when the console script runs it: released one by one, when the command's function returns and
# before its output is written, they would cost 0.3 s at 10,000 x 2,000. None: not kept (tests
# and other callers of `main` in a long-lived process).
_retained: list[Any] | None = None


def _retain(*objects: Any) -> None:
    if _retained is not None:
        _retained.extend(objects)


def entry() -> None:
    """The console script: :func:`main`, then exit without tearing the heap down. A large hub
    leaves millions of objects whose one-by-one release would add a second or more after the
    output is complete (1.6 s at 10,000 x 5,000); the operating system frees them at once."""
    global _retained
    _retained = []
    forked.allow()  # this process is the command's own: large inputs use every core
    # No cyclic collection at all: the command makes no cycles, and the collector, re-enabled
    # when a command's work is done, would first walk every object it made (0.2 s at 10k x 2k).
    gc.disable()
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = stop.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    with contextlib.suppress(BrokenPipeError):  # the reader went away (| head): it took all it wanted
        sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


class _Commands(click.Group):
    """The commands defined here, and those other packages register in the entry-point group
    ``placement_solver.commands`` (the benchmarks' `bench`, from bench/): the command line names
    no package above it, and reads the registry only for a command it does not define."""

    GROUP = "placement_solver.commands"

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(e.name for e in self._registered())})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        for registered in self._registered():
            if registered.name == name:
                return registered.load()
        return None

    def _registered(self) -> list[Any]:
        from importlib.metadata import entry_points

        return list(entry_points(group=self.GROUP))


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--time-limit", type=TIME_LIMIT, default=10.0, show_default=True, help="Wall seconds.")
@click.option(
    "--config",
    "configs",
    multiple=True,
    metavar="FILE",
    help="The operator config with the scheduler: block (openMCP); repeatable, later files override.",
)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="yaml", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No live progress on a terminal's standard error.")
def solve(paths, mode, now_text, seed, time_limit, configs, output, quiet) -> None:
    """Schedule every placement in the input and print the objects to write."""

    def run() -> str | bytes:
        now = _parse_now(now_text)
        config = _read_config(configs)
        # Reading, scheduling and writing allocate millions of objects and make no cycles: the
        # collector's passes over them would cost a third of the command (about 3 s at 10,000 x 2,000).
        with paused_gc():
            reading = start_reading(list(paths), stdin=sys.stdin, reads=_reads)
            from adapters.cli.progress import TerminalProgress
            from adapters.run.pipeline import schedule_manifests  # while large inputs are parsed
            from solver import SolveOptions

            manifests = _read(reading)
            progress = None if quiet else TerminalProgress()
            options = SolveOptions(
                mode=mode,
                time_limit=time_limit,
                seed=seed,
                progress=progress if progress is not None and progress.draws() else None,
            )
            if output in _JOINED:  # the complete desired state: a large input in parts, one per core
                from adapters.run.parts import schedule_items

                items, write_runs = _JOINED[output]
                parted = schedule_items(manifests, now=now, options=options, config=config, items=items)
                if parted is not None:
                    _retain(manifests, parted)
                    _note_deletions(parted.deletions, output)
                    return functools.partial(write_runs, parted.runs)
            outcome = schedule_manifests(manifests, now=now, options=options, config=config)
            _retain(manifests, outcome)
            _note_nothing_read(outcome)
            _note_deletions(len(outcome.delete), output)
            return _render(outcome, output, manifests, config)

    guard(run)


# Remarks for the person running the command, said on standard error (never part of the output)
# once the command has succeeded (guard).
_notes: list[str] = []


def _note(text: str) -> None:
    _notes.append(text)


def _read(reading: Reading) -> list[Manifest]:
    """The manifests of the sources, and a note for what a directory held that was left out."""
    manifests = reading.manifests()
    _notes.extend(reading.notes)
    return manifests


def _reads(kind: str, api_version: str) -> bool:
    """adapters.registry.reads, imported when first asked (the registry imports the model)."""
    from adapters.registry import reads

    return reads(kind, api_version)


def _note_deletions(count: int, output: str) -> None:
    """The objects to write (yaml, json) cannot say what to delete: say how many, and where they
    are listed."""
    if count and output in _JOINED:
        objects = f"{count} object{'' if count == 1 else 's'}"
        listed = "-o plan and -o diff list them"
        _note(f"this run also deletes {objects}, which -o {output} cannot express; {listed}")


def _note_nothing_read(outcome: Outcome) -> None:
    """An input that holds no object of any system: say so, an empty output alone would not."""
    if not outcome.parts:
        from adapters.registry import SYSTEMS

        _note(f"the input holds no object of any system ({', '.join(SYSTEMS)}): nothing was scheduled")


# The outputs whose text is their objects' texts joined, so parts made apart can be joined: how
# a run of objects is rendered, and how rendered runs are written as one output.
_JOINED = {"yaml": (yaml_items, write_yaml_runs), "json": (json_items, write_json_list_runs)}


def _read_config(paths: Sequence[str]) -> dict[str, Any] | None:
    """The scheduler config files merged (later ones override), checked before anything is read:
    a bad config is an error whether or not the input holds the objects it is for."""
    if not paths:
        return None
    from adapters.openmcp import parse_config, read_config_files

    document = read_config_files(list(paths))
    parse_config(document, where=", ".join(paths))
    return document


KCP_GENERATIONS = ("v0.5", "v0.8")  # `generate --system kcp --generation`
SIMULATE_OUTPUTS = ("yaml", "json", "log")
DEMO_NOW = "2026-11-21T12:00:00Z"


DEMOS = {
    "fleet": ("fleet-demo.yaml",),
    "ocm": ("ocm-demo.yaml",),
    "openmcp": ("openmcp-demo.yaml",),
    "kcp": ("kcp-demo.yaml",),
    "all": ("fleet-demo.yaml", "ocm-demo.yaml", "openmcp-demo.yaml", "kcp-demo.yaml"),
}
# The scheduler config a bundled hub is meant for (openMCP's operator config is not an object).
DEMO_CONFIG = "openmcp-demo-config.yaml"


@main.command()
@click.option("--mode", type=click.Choice(MODES), default="optimal", show_default=True)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--system",
    type=click.Choice(sorted(DEMOS)),
    default="fleet",
    show_default=True,
    help="Which bundled hub.",
)
def demo(mode: str, output: str, system: str) -> None:
    """Solve a bundled example hub and print the decisions."""

    def run() -> str | bytes:
        from importlib import resources  # here only: 18 ms of every command's start

        from adapters.run.pipeline import schedule_manifests
        from solver import SolveOptions

        examples = resources.files("adapters.examples")
        manifests = [
            m
            for name in DEMOS[system]
            for m in parse_text(examples.joinpath(name).read_text(encoding="utf-8"), name)
        ]
        config = yaml.safe_load(examples.joinpath(DEMO_CONFIG).read_text(encoding="utf-8"))
        options = SolveOptions(mode=mode)
        outcome = schedule_manifests(manifests, now=_parse_now(DEMO_NOW), options=options, config=config)
        _note_deletions(len(outcome.delete), output)
        return _render(outcome, output, manifests, config)

    guard(run)


def count_option(value: str | None, flag: str) -> int:
    """A required non-negative integer flag; InputError (exit 2, one line) otherwise."""
    if value is None:
        raise InputError("required", field=flag)
    text = value.strip()
    if not text.isdigit():
        raise InputError(f"not a non-negative integer: {value!r}", field=flag)
    return int(text)


@main.command()
@click.option(
    "--system", "system", default="fleet", show_default=True, help="The system whose objects to make."
)
@click.option("--clusters", "clusters_text", metavar="N", help="Member clusters (required).")
@click.option("--placements", "placements_text", metavar="M", help="Placements (required).")
@click.option("--seed", "seed_text", metavar="S", default="0", show_default=True, help="Fixes every draw.")
@click.option(
    "--now",
    "now_text",
    metavar="RFC3339",
    help="The moment heartbeats and transitions are relative to (default: now, rounded down to the minute).",
)
@click.option(
    "--config-out",
    "config_out",
    metavar="FILE",
    help="Also write the scheduler config the hub is made for (openMCP) to FILE.",
)
@click.option(
    "--generation",
    type=click.Choice(KCP_GENERATIONS),
    help="kcp: the API generation, v0.5 (WorkloadClusters, the placement annotation) or v0.8 "
    "(SyncTargets, Placements; the default).",
)
def generate(
    system: str,
    clusters_text: str | None,
    placements_text: str | None,
    seed_text: str,
    now_text: str | None,
    config_out: str | None,
    generation: str | None,
) -> None:
    """Print a synthetic hub as a YAML stream: the same arguments (and --now) give the same bytes."""

    def run() -> str:
        from adapters.generate.common import GENERATORS, current_minute, generate_yaml

        now = _parse_now(now_text) or current_minute()
        if system not in GENERATORS:
            raise InputError(
                f"unknown system {system!r}; expected one of {', '.join(sorted(GENERATORS))}",
                field="--system",
            )
        clusters = count_option(clusters_text, "--clusters")
        placements = count_option(placements_text, "--placements")
        seed = count_option(seed_text, "--seed")
        if config_out is not None and system not in CONFIGURED_GENERATORS:
            raise InputError(f"the {system} system reads no scheduler config", field="--config-out")
        if generation is not None and system != "kcp":
            raise InputError(f"the {system} system has one API generation", field="--generation")
        options = {"generation": generation} if generation is not None else {}
        text = generate_yaml(system, clusters, placements, seed=seed, now=now, **options)
        if config_out is not None:
            config = CONFIGURED_GENERATORS[system](clusters, placements, seed=seed)
            _write_file(config_out, dump_yaml_stream([config]).removeprefix("---\n"))
        return text

    guard(run)


def _openmcp_config(clusters: int, placements: int, *, seed: int) -> dict[str, Any]:
    from adapters.openmcp.generate import generate_config

    return generate_config(clusters, placements, seed=seed)


# Generators whose hubs are made for a scheduler config (`generate --config-out`).
CONFIGURED_GENERATORS: dict[str, Callable[..., dict[str, Any]]] = {"openmcp": _openmcp_config}


def _write_file(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", where=path) from None


def list_option(value: str, flag: str) -> list[str]:
    """A comma-separated flag's non-empty items; InputError (exit 2, one line) when it has none."""
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError("empty list", field=flag)
    return list(dict.fromkeys(items))


@main.command()
@click.option(
    "-f", "--filename", "paths", multiple=True, required=True, help="File, directory, or - for stdin."
)
@click.argument("placement", metavar="KIND/[NAMESPACE/]NAME")
@click.option("--cluster", "cluster", metavar="NAME", help="Explain only this cluster.")
@click.option("--mode", "mode", default="optimal", show_default=True, help="optimal or greedy.")
@click.option("--now", "now_text", metavar="RFC3339", help="The time to judge heartbeats and health by.")
@click.option("-o", "--output", "output", default="table", show_default=True, help="table or yaml.")
@click.option(
    "--config",
    "configs",
    multiple=True,
    metavar="FILE",
    help="The operator config with the scheduler: block (openMCP); repeatable, later files override.",
)
def explain(paths, placement, cluster, mode, now_text, output, configs) -> None:
    """Why each cluster was or was not chosen for one placement (ClusterResourcePlacement, crp;
    Placement, OCM's or kcp's, placement.scheduling.kcp.dev where both have one; ClusterRequest, cr;
    a kcp Namespace, ns/[WORKSPACE/]NAME), in the placement system's own words, and what would let
    it in."""

    def run() -> str:
        from adapters.cli.explain import OUTPUTS, explain_document, render
        from solver import SolveOptions

        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}", field="--mode")
        if output not in OUTPUTS:
            raise InputError(f"unknown output {output!r}; expected one of {', '.join(OUTPUTS)}", field="-o")
        now = _parse_now(now_text)
        config = _read_config(configs)
        with paused_gc():
            manifests = _read(start_reading(list(paths), stdin=sys.stdin, reads=_reads))
            document = explain_document(
                manifests, placement, cluster=cluster, now=now, options=SolveOptions(mode=mode), config=config
            )
            return render(document, output)

    guard(run)


@main.command()
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
        now = _parse_now(now_text)
        with paused_gc():
            manifests = _read(start_reading(list(paths), stdin=sys.stdin, reads=_reads))
            options = SolveOptions(mode=mode, time_limit=time_limit, seed=seed)
            return render(run_simulation(manifests, steps=steps, now=now, options=options), output)

    guard(run)
