"""The command line. InputError becomes exit status 2 here, and only here."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click
import yaml

from adapters import registry
from adapters.cli.early import FILE_PARTS
from adapters.cli.options import (
    MODES,
    TIME_LIMIT,
    Output,
    count_option,
    guard,
    note,
    parse_now,
    read_all,
    write_file,
)
from adapters.contract import resolve
from adapters.errors import InputError
from adapters.kube.manifests import (
    Manifest,
    dump_yaml_stream,
    forget_begun,
    parse_text,
    start_reading,
    write_json,
    write_json_list,
    write_yaml_stream,
)
from adapters.registry import names, reads, systems
from adapters.run import forked
from adapters.run.heap import paused_gc

if TYPE_CHECKING:
    from adapters.run.pipeline import Outcome

# The scheduler (polars, numpy: a third of a second) is imported where it is used: `solve` imports
# it while forked children parse a large input. The registry's records are light (each system's
# modules load on first use), so the commands' choices come from it.

__all__ = ["FORMATS", "entry", "main"]

FORMATS = ("yaml", "json", "plan", "diff", "table", "apply-script")


def _render(outcome: Outcome, output: str, manifests: Sequence[Manifest]) -> Output:
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
    from adapters.cli.table import greedy_beside, render_table

    return render_table(outcome, greedy_beside(outcome))


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
    forget_begun()  # an input read as the command began that it did not take (it failed first)
    forked.reap()  # the output is whole; its children's seconds belong to the command
    os._exit(code or 0)


class _Commands(click.Group):
    """The commands defined here, those the systems add (their records' `commands`: kcp's
    `simulate`), and those other packages register in the entry-point group
    ``placement_solver.commands`` (the benchmarks' `bench`, from bench/): the command line names
    no package above it, and imports a command's code only when it runs."""

    GROUP = "placement_solver.commands"

    def list_commands(self, ctx: click.Context) -> list[str]:
        added = {name for s in systems() for name in s.commands}
        return sorted({*super().list_commands(ctx), *added, *(e.name for e in self._registered())})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        for s in systems():
            if name in s.commands:
                return resolve(s.commands[name])
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
    help="The scheduler config of the systems that read one; repeatable, later files override.",
)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="yaml", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No live progress on a terminal's standard error.")
def solve(paths, mode, now_text, seed, time_limit, configs, output, quiet) -> None:
    """Schedule every placement in the input and print the objects to write."""

    def run() -> str | bytes:
        now = parse_now(now_text)
        config = _read_config(configs)
        # Reading, scheduling and writing allocate millions of objects and make no cycles: the
        # collector's passes over them would cost a third of the command (about 3 s at 10,000 x 2,000).
        with paused_gc():
            parted = _large_file_in_parts(paths, now, mode, time_limit, seed, quiet, config, output)
            if parted is not None:
                _retain(parted)
                _note_deletions(parted.deletions, output)
                _note_time_limited(parted.time_limited, time_limit)
                return parted.write
            reading = start_reading(list(paths), stdin=sys.stdin, reads=reads)
            from adapters.cli.progress import TerminalProgress
            from adapters.run.pipeline import plan_shared, schedule_rendered  # while large inputs are parsed
            from solver import SolveOptions

            manifests = read_all(reading)
            progress = None if quiet else TerminalProgress()
            options = SolveOptions(
                mode=mode,
                time_limit=time_limit,
                seed=seed,
                progress=progress if progress is not None and progress.draws() else None,
                beside_greedy=output == "table",  # the table shows what optimal changed
            )
            if output in _PARTED:  # a large input in parts, one per core
                from adapters.run.parts import FORMATS, schedule_in_parts

                parted = schedule_in_parts(
                    manifests, now=now, options=options, config=config, output=FORMATS[output]
                )
                if parted is not None:
                    _retain(manifests, parted)
                    _note_deletions(parted.deletions, output)
                    _note_time_limited(parted.time_limited, time_limit)
                    return parted.write
            if output == "plan":  # a large input's objects emitted on two cores, where its system can
                written = plan_shared(manifests, now=now, options=options, config=config)
                if written is not None:
                    _retain(manifests, written)
                    return written
            # The output made while the checker's child judges a large input, written once it passes.
            render = functools.partial(_render, output=output, manifests=manifests)
            outcome, rendered = schedule_rendered(manifests, render, now=now, options=options, config=config)
            _retain(manifests, outcome, rendered)
            _note_nothing_read(outcome)
            _note_deletions(len(outcome.delete), output)
            _note_time_limited(bool(outcome.summary.get("time_limited")), time_limit)
            return rendered

    guard(run)


def _large_file_in_parts(
    paths: Sequence[str],
    now: Any,
    mode: str,
    time_limit: float,
    seed: int,
    quiet: bool,
    config: Any,
    output: str,
) -> Any:
    """One large file's output made by parts that each read their own objects of it (adapters.
    run.parts.schedule_file_in_parts), or None: not one large file, an output not made in parts,
    live progress to show, or a file that run finds not to read so (it is then read as ever)."""
    if output not in _PARTED or len(paths) != 1 or paths[0] == "-" or not _large(paths[0]):
        return None
    from adapters.cli.progress import TerminalProgress

    if not quiet and TerminalProgress().draws():  # live progress follows one solve
        return None
    from adapters.run.parts import FORMATS, schedule_file_in_parts
    from solver import SolveOptions

    options = SolveOptions(mode=mode, time_limit=time_limit, seed=seed)
    return schedule_file_in_parts(paths[0], now=now, options=options, config=config, output=FORMATS[output])


# A file this large is read in its parts, each by the process that schedules it: no process holds
# the whole input, and none waits for another's reading (measured: see docs/performance.md).
_FILE_PARTS = FILE_PARTS


def _large(path: str) -> bool:
    try:
        return os.path.getsize(path) >= _FILE_PARTS
    except OSError:
        return False


def _note_deletions(count: int, output: str) -> None:
    """The objects to write (yaml, json) cannot say what to delete: say how many, and where they
    are listed."""
    if count and output in _OBJECTS:
        objects = f"{count} object{'' if count == 1 else 's'}"
        listed = "-o plan and -o diff list them"
        note(f"this run also deletes {objects}, which -o {output} cannot express; {listed}")


def _note_time_limited(cut: bool, time_limit: float) -> None:
    """Searches end on their deterministic budget; the wall clock is a safety net. Where it cut
    one (a loaded machine, a short limit), the answer may differ from an uncut run's: say so
    (-o plan's summary says it too, as time_limited)."""
    if cut:
        note(
            f"the wall clock (--time-limit {time_limit:g} s) cut a search: this answer may differ "
            "from an uncut run's; a longer limit gives the deterministic one"
        )


def _note_nothing_read(outcome: Outcome) -> None:
    """An input that holds no object of any system: say so, an empty output alone would not."""
    if not outcome.parts:
        note(f"the input holds no object of any system ({', '.join(names())}): nothing was scheduled")


# The outputs that are the objects to write; those a large input's parts can make
# (adapters.run.parts.FORMATS).
_OBJECTS = ("yaml", "json")
_PARTED = (*_OBJECTS, "plan", "diff")


def _read_config(paths: Sequence[str]) -> dict[str, Any] | None:
    """The scheduler config, read and checked before anything else (adapters.registry.read_config)."""
    return registry.read_config(paths) if paths else None


# The moment the bundled examples (adapters/examples) were taken at: they are judged at it.
DEMO_NOW = "2026-11-21T12:00:00Z"


def _demos() -> dict[str, tuple[str, ...]]:
    """Each system's bundled hub, and all of them together."""
    own = {s.name: s.demo for s in systems() if s.demo}
    return {**own, "all": tuple(f for files in own.values() for f in files)}


def _generations() -> tuple[str, ...]:
    return tuple(dict.fromkeys(g for s in systems() for g in s.generations))


@main.command()
@click.option("--mode", type=click.Choice(MODES), default="optimal", show_default=True)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--system",
    type=click.Choice(sorted(_demos())),
    default=names()[0],
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
            for name in _demos()[system]
            for m in parse_text(examples.joinpath(name).read_text(encoding="utf-8"), name)
        ]
        configs = [s.demo_config for s in systems() if s.demo_config]
        config = None
        if configs:  # the scheduler config the bundled hubs are meant for
            config = yaml.safe_load(examples.joinpath(configs[0]).read_text(encoding="utf-8"))
        options = SolveOptions(mode=mode, beside_greedy=output == "table")
        outcome = schedule_manifests(manifests, now=parse_now(DEMO_NOW), options=options, config=config)
        _note_deletions(len(outcome.delete), output)
        return _render(outcome, output, manifests)

    guard(run)


@main.command()
@click.option(
    "--system", "system", default=names()[0], show_default=True, help="The system whose objects to make."
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
    help="Also write the scheduler config the hub is made for to FILE (a system that reads one).",
)
@click.option(
    "--generation",
    type=click.Choice(_generations()),
    help="The API generation, for a system that has several ("
    + "; ".join(f"{s.name}: {', '.join(s.generations)}" for s in systems() if s.generations)
    + "; the first is the default).",
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
        from adapters.generate import hubs

        now = parse_now(now_text) or hubs.current_minute()
        if now < hubs.EARLIEST_NOW:  # a hub's times reach back from now: none may fall before year 1
            raise InputError(
                "a generated hub's times reach back up to two years: give a later --now", field="--now"
            )
        if system not in hubs.generating():
            expected = ", ".join(hubs.generating())
            raise InputError(f"unknown system {system!r}; expected one of {expected}", field="--system")
        clusters = count_option(clusters_text, "--clusters")
        placements = count_option(placements_text, "--placements")
        seed = count_option(seed_text, "--seed")
        config = hubs.generate_config(system, clusters, placements, seed=seed) if config_out else None
        if config_out is not None and config is None:
            raise InputError(f"the {system} system reads no scheduler config", field="--config-out")
        if generation is not None and generation not in registry.system(system).generations:
            raise InputError(f"the {system} system has one API generation", field="--generation")
        text = hubs.generate_yaml(system, clusters, placements, seed=seed, now=now, generation=generation)
        if config_out is not None:
            write_file(config_out, dump_yaml_stream([config]).removeprefix("---\n"))
        return text

    guard(run)


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
    help="The scheduler config of the systems that read one; repeatable, later files override.",
)
def explain(paths, placement, cluster, mode, now_text, output, configs) -> None:
    """Why each cluster was or was not chosen for one placement (KIND/[NAMESPACE/]NAME, the
    middle part a workspace where the system has them: each system's placement kinds, as kubectl
    spells them, or kind.group where two systems spell one alike), in the placement system's own
    words, and what would let it in."""

    def run() -> str:
        from adapters.cli.explain import OUTPUTS, explain_document, render
        from solver import SolveOptions

        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}", field="--mode")
        if output not in OUTPUTS:
            raise InputError(f"unknown output {output!r}; expected one of {', '.join(OUTPUTS)}", field="-o")
        now = parse_now(now_text)
        config = _read_config(configs)
        with paused_gc():
            manifests = read_all(start_reading(list(paths), stdin=sys.stdin, reads=reads))
            document = explain_document(
                manifests, placement, cluster=cluster, now=now, options=SolveOptions(mode=mode), config=config
            )
            return render(document, output)

    guard(run)
