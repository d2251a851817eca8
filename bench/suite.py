"""Benchmark suites: every system with an adapter, both modes, fleets from 100 to 10,000 clusters.

    from bench.suite import measure
    row = measure("fleet", 1000, 1000, "optimal", seed=0)     # one case, in a fresh process
    frame = bench.sweeps.run_suite(["fleet"], [(100, 100), (1000, 1000)], out="bench-out")

Each case runs in a fresh interpreter (:mod:`bench.case`), so its peak resident set size is its
own; :mod:`bench.sweeps` runs a plan's cases here or on Dask workers. A case generates the hub (not
timed), then times the scheduler's own work on it: the adapter's load, `solver.solve`, the
adapter's emit (together `wall_s`), and apart from that the independent checker. Then the churn
experiment of :mod:`bench.events` runs on the solved hub, in the same mode. :func:`bench.sweeps.run_suite`
collects the rows in a polars frame and writes `results.csv`, `results.md`, `time.png` and
`quality.png`.

Each system the suite drives is one :class:`Profile` in :data:`PROFILES` (named as the bench's
`--systems` spell it): its hub (the registry's generator), its adapter's load and emit (the
registry's), and its events (KubeFleet's in :mod:`bench.events`, OCM's in
:mod:`bench.ocm_events`, under the same four names so that the churn columns serve both). openMCP
has no events (a granted request never moves); it brings the scheduler config its generated hub is
made for and counts the clusters each plan creates (:mod:`bench.openmcp_hub`). kcp comes in its two
API generations ("kcp": v0.8, "kcp-v0.5"), with its own events and the namespace moves of each plan
in the row's note (:mod:`bench.kcp_hub`). Karmada has no events either; its row's note counts the
plan's over-committed clusters and the replicas they cannot run (:mod:`bench.karmada_hub`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from adapters import registry
from adapters.generate.hubs import DEFAULT_NOW, generate
from adapters.kube.manifests import dump_yaml_stream, from_objects, parse_text
from adapters.run.pipeline import Outcome, SystemOutcome, schedule_manifests, summary_of_parts
from bench import events as ev
from bench import karmada_hub, kcp_hub, ocm_events, openmcp_hub
from bench.case import Case, run_isolated
from bench.command import solve_seconds
from bench.environment import machine
from model import Batch, Result
from solver import MODES, SolveOptions, check, solve

__all__ = [
    "COLUMNS",
    "DEFAULT_SIZES",
    "SKIPPED",
    "PROFILES",
    "Profile",
    "markdown_table",
    "measure",
    "parse_sizes",
    "run_case",
    "write_results",
]

Objects = list[dict[str, Any]]

DEFAULT_SIZES: tuple[tuple[int, int], ...] = tuple(
    (c, p) for c in (100, 1000, 10_000) for p in (100, 1000, 5000)
)
DEFAULT_TIME_LIMIT = 60.0  # wall seconds per solve; reported as time_limited when it cuts a search

# (system, clusters, placements) -> why the combination is not run. Empty: the whole grid runs.
SKIPPED: dict[tuple[str, int, int], str] = {}
NO_SKIPS = (
    "No combination is skipped: each size of the grid is a plausible hub (5,000 placements on 100 "
    "clusters is a dense multi-tenant fleet, 100 placements on 10,000 clusters an edge fleet), "
    "and the largest case takes under a minute per mode, churn runs included."
)


@dataclass(frozen=True, slots=True)
class Profile:
    """How the suite drives one system: generate its hub, load it into a Batch, emit a Result
    as its objects, apply that plan to the hub, and change the hub by an event."""

    name: str
    generate: Callable[[int, int, int], Objects]  # (clusters, placements, seed) -> objects
    # (objects, now, seed, config) -> batch, context; config: see `config` below
    load: Callable[[Objects, datetime, int, Any], tuple[Batch, Any]]
    emit: Callable[[Any, Result], Any]  # (context, result) -> .apply, .delete
    advance: Callable[[Objects, Outcome], Objects]
    apply_event: Callable[[str, Objects, int], Objects]  # (event, objects, seed) -> objects
    events: tuple[str, ...]
    now: datetime
    # (before, after, batch after the event) -> (moved, forced)
    churn: Callable[[Result, Result, Batch], tuple[int, int]] = ev.churn
    # Re-solve the applied plan with no event too, and note what moves (a system that re-evaluates
    # every decision on every sync moves some even then).
    resync: bool = False
    # (clusters, placements, seed) -> the scheduler config the generated hub is made for, for the
    # systems that read one (openMCP); None: no config.
    config: Callable[[int, int, int], Any] | None = None
    # (objects, outcome) -> clusters the plan creates, for the systems that create clusters.
    created: Callable[[Objects, Outcome], int] | None = None
    # (objects, outcome) -> the row's note: what else the plan did to the hub (kcp: namespace moves).
    note: Callable[[Objects, Outcome], str] | None = None


def _loader(name: str) -> Callable[[Objects, datetime, int, Any], tuple[Batch, Any]]:
    """The registry's load of system `name`, on generated objects (with the config, for a system
    that reads one)."""

    def load(objects: Objects, now: datetime, seed: int, config: Any = None) -> tuple[Batch, Any]:
        configured = {"config": config} if registry.system(name).config_read is not None else {}
        return registry.adapter(name).load(
            from_objects(objects, "<generated>"), now=now, seed=seed, **configured
        )

    return load


def _hub(name: str) -> Callable[[int, int, int], Objects]:
    return lambda clusters, placements, seed: generate(name, clusters, placements, seed=seed)


PROFILES: dict[str, Profile] = {
    "fleet": Profile(
        name="fleet",
        generate=_hub("fleet"),
        load=_loader("fleet"),
        emit=registry.adapter("fleet").emit,
        advance=ev.advance,
        apply_event=lambda event, objects, seed: ev.apply_event(event, objects, seed=seed),
        events=ev.EVENTS,
        now=datetime.fromisoformat(DEFAULT_NOW),
    ),
    "ocm": Profile(
        name="ocm",
        generate=_hub("ocm"),
        load=_loader("ocm"),
        emit=registry.adapter("ocm").emit,
        advance=ocm_events.advance,
        apply_event=lambda event, objects, seed: ocm_events.apply_event(event, objects, seed=seed),
        events=ocm_events.EVENTS,
        now=datetime.fromisoformat(DEFAULT_NOW),
        churn=ocm_events.churn,
        resync=True,
    ),
    # No churn experiment: a granted request never moves, whatever changes.
    "openmcp": Profile(
        name="openmcp",
        generate=_hub("openmcp"),
        load=_loader("openmcp"),
        emit=registry.adapter("openmcp").emit,
        advance=ev.advance,
        apply_event=lambda event, objects, seed: objects,
        events=(),
        now=openmcp_hub.NOW,
        config=openmcp_hub.config,
        created=openmcp_hub.created,
    ),
    # No churn experiment (a cluster's resourceSummary changing re-schedules nothing, as upstream);
    # the note counts the plan's over-commit: greedy's clusters and the replicas they cannot run.
    "karmada": Profile(
        name="karmada",
        generate=_hub("karmada"),
        load=_loader("karmada"),
        emit=registry.adapter("karmada").emit,
        advance=ev.advance,
        apply_event=lambda event, objects, seed: objects,
        events=(),
        now=karmada_hub.NOW,
        note=karmada_hub.note,
    ),
}


def _kcp_profile(name: str) -> Profile:
    """kcp in one API generation (bench.kcp_hub): the generated workspace set, its events, and the
    namespace moves of the plan in the row's note."""
    generation = kcp_hub.GENERATIONS[name]
    return Profile(
        name=name,
        generate=lambda clusters, placements, seed: kcp_hub.workspace_set(
            clusters, placements, seed, generation
        ),
        load=kcp_hub.load,
        emit=registry.adapter("kcp").emit,
        advance=kcp_hub.advance,
        apply_event=lambda event, objects, seed: kcp_hub.apply_event(event, objects, seed=seed),
        events=kcp_hub.EVENTS,
        now=kcp_hub.NOW,
        churn=kcp_hub.churn,
        note=kcp_hub.move_note,
    )


# kcp: "kcp" is the later generation (SyncTargets, Placements), "kcp-v0.5" the annotation's.
PROFILES.update({name: _kcp_profile(name) for name in kcp_hub.GENERATIONS})


def _event_column(event: str) -> str:
    return event.replace("-", "_")


# The frame's columns, in order, with their types (objectives are exact integers: Int128).
COLUMNS: dict[str, Any] = {
    "system": pl.String,
    "clusters": pl.Int64,
    "placements": pl.Int64,
    "seed": pl.Int64,
    "mode": pl.String,
    "status": pl.String,
    "wall_s": pl.Float64,
    "command_s": pl.Float64,
    "e2e_s": pl.Float64,
    "read_s": pl.Float64,
    "write_s": pl.Float64,
    "load_s": pl.Float64,
    "solver_s": pl.Float64,
    "build_s": pl.Float64,
    "solve_s": pl.Float64,
    "emit_s": pl.Float64,
    "check_s": pl.Float64,
    "peak_rss_mb": pl.Float64,
    "models": pl.Int64,
    "selected": pl.Int64,
    "decisions": pl.String,
    "objective": pl.Int128,
    "objective_gain": pl.Int128,
    "bound": pl.Int128,
    "gap": pl.Float64,
    "unsatisfied": pl.Int64,
    "created": pl.Int64,
    "violations": pl.Int64,
    "event_violations": pl.Int64,
    "time_limited": pl.Boolean,
    **{f"{kind}_{_event_column(event)}": pl.Int64 for event in ev.EVENTS for kind in ("churn", "forced")},
    "note": pl.String,
    # Where and how the case ran (bench.case.measured, bench.sweeps): the whole case process's
    # seconds, its attempts (2: retried once) and the failure that cost an attempt, the host,
    # the engine that handed it out, the commit measured.
    "case_s": pl.Float64,
    "attempts": pl.Int64,
    "failure": pl.String,
    "host": pl.String,
    "engine": pl.String,
    "commit": pl.String,
}


# ===================================================================================== one case


def _schedule(
    system: Profile, objects: Objects, options: SolveOptions, config: Any = None
) -> tuple[Outcome, dict[str, float]]:
    started = time.perf_counter()
    batch, context = system.load(objects, system.now, options.seed, config)
    loaded = time.perf_counter()
    result = solve(batch, options)
    solved = time.perf_counter()
    emitted = system.emit(context, result)
    done = time.perf_counter()
    part = SystemOutcome(system.name, batch, result, emitted.placements, emitted.unsatisfied)
    outcome = Outcome(emitted.apply, emitted.delete, (part,), summary_of_parts([part]))
    return outcome, {"load_s": loaded - started, "solver_s": solved - loaded, "emit_s": done - solved}


def _command_times(
    objects: Objects, now: datetime, options: SolveOptions, config: Any = None
) -> dict[str, float]:
    """What `placement-solver solve -f hub.yaml [--config config.yaml]` costs on the hub: the
    command itself in a fresh interpreter (`command_s`: start-up, imports, reading, scheduling,
    writing, exit), and in this process reading the YAML text, scheduling (every system present)
    and writing the YAML stream (`e2e_s`, beside `read_s` and `write_s`)."""
    text = dump_yaml_stream(objects)
    started = time.perf_counter()
    manifests = parse_text(text, "hub.yaml")
    read = time.perf_counter()
    outcome = schedule_manifests(manifests, now=now, options=options, verify=False, config=config)
    scheduled = time.perf_counter()
    dump_yaml_stream(outcome.apply)
    done = time.perf_counter()
    in_process = {"e2e_s": done - started, "read_s": read - started, "write_s": done - scheduled}
    flags = ["--now", now.isoformat(), "--mode", options.mode, "--seed", str(options.seed)]
    flags += ["--time-limit", str(options.time_limit)]
    with tempfile.TemporaryDirectory(prefix="bench-command-") as tmp:
        hub = Path(tmp) / "hub.yaml"
        hub.write_text(text, encoding="utf-8")
        if config is not None:
            config_text = dump_yaml_stream([config]).removeprefix("---\n")
            (Path(tmp) / "config.yaml").write_text(config_text, encoding="utf-8")
            flags += ["--config", str(Path(tmp) / "config.yaml")]
        command_s = solve_seconds(hub, Path(tmp) / "out.yaml", flags)
    return {"command_s": command_s, **in_process}


def run_case(
    system: str,
    clusters: int,
    placements: int,
    mode: str,
    seed: int = 0,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    events: bool | Collection[str] = True,
) -> dict[str, Any]:
    """One case in this process (see :func:`measure`, which runs it in a fresh one); `events`:
    the churn experiment's events, every one of the system's (True), none (False), or those
    named."""
    entry = PROFILES[system]
    options = SolveOptions(mode=mode, time_limit=time_limit, seed=seed)
    objects = entry.generate(clusters, placements, seed)
    config = entry.config(clusters, placements, seed) if entry.config is not None else None
    # The hub is long-lived input (a controller's informer cache): out of the cyclic collector's
    # view, so that its size does not add collector pauses at random points of the timed phases.
    gc.collect()
    gc.freeze()

    outcome, times = _schedule(entry, objects, options, config)
    command = _command_times(objects, entry.now, options, config)
    started = time.perf_counter()
    problems = check(outcome.batch, outcome.result)
    check_s = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    stats = outcome.result.stats
    row: dict[str, Any] = {
        "system": system,
        "clusters": clusters,
        "placements": placements,
        "seed": seed,
        "mode": mode,
        "status": stats.status,
        "wall_s": times["load_s"] + times["solver_s"] + times["emit_s"],
        **command,
        **times,
        "build_s": stats.build_seconds,
        "solve_s": stats.solve_seconds,
        "check_s": check_s,
        "peak_rss_mb": peak_kib / 1024 if sys.platform != "darwin" else peak_kib / 2**20,
        "models": stats.models,
        "selected": sum(len(r.selected) for r in outcome.result.requests),
        "decisions": decisions_digest(outcome.result),
        "objective": stats.objective,
        "bound": stats.bound,
        "gap": stats.gap,
        "unsatisfied": outcome.summary["unsatisfied"],
        "created": entry.created(objects, outcome) if entry.created is not None else None,
        "violations": len(problems),
        "time_limited": stats.time_limited,
        "note": entry.note(objects, outcome) if entry.note is not None else "",
    }
    chosen = entry.events if events is True else tuple(e for e in entry.events if events and e in events)
    if not events or not (chosen or entry.resync):
        return row

    state = entry.advance(objects, outcome)
    del objects
    event_violations = 0
    if entry.resync:
        again, _ = _schedule(entry, state, options, config)
        event_violations += len(check(again.batch, again.result))
        moved, forced = entry.churn(outcome.result, again.result, again.batch)
        row["note"] = f"no-event re-solve: churn {moved} / forced {forced}"
    for event in chosen:
        changed = entry.apply_event(event, state, seed)
        after, _ = _schedule(entry, changed, options, config)
        event_violations += len(check(after.batch, after.result))
        moved, forced = entry.churn(outcome.result, after.result, after.batch)
        row[f"churn_{_event_column(event)}"] = moved
        row[f"forced_{_event_column(event)}"] = forced
        row["time_limited"] = row["time_limited"] or after.result.stats.time_limited
    row["event_violations"] = event_violations
    return row


def measure(
    system: str,
    clusters: int,
    placements: int,
    mode: str,
    seed: int = 0,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    events: bool | Collection[str] = True,
) -> dict[str, Any]:
    """Run one case in a fresh interpreter (bench.case) and return its row: timings (seconds),
    peak RSS of that process (MiB), the objective, bound and gap, unsatisfied placements, checker
    violations (must be 0; `event_violations` for the events' solves), `time_limited` (a
    wall-clock limit cut a search in any of the case's solves), `decisions` (a digest of every
    decision) and, per event, `churn_<event>` and `forced_<event>` (event names with
    underscores: churn_cluster_removed, ...)."""
    if system not in PROFILES:
        raise ValueError(f"unknown system {system!r}; expected one of {', '.join(sorted(PROFILES))}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    chosen = events if isinstance(events, bool) else tuple(events)
    return run_isolated(Case(system, clusters, placements, mode, seed, time_limit, chosen))


def decisions_digest(result: Result) -> str:
    """Every decision of a result (request, cluster and replicas, in the result's order) as a
    short digest: two runs decided alike when their digests are equal."""
    digest = hashlib.sha256()
    for request in result.requests:
        for choice in request.selected:
            digest.update(f"{request.request}\t{choice.cluster}\t{choice.replicas}\n".encode())
    return digest.hexdigest()[:16]


# ==================================================================================== the suite


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """ "100x100,1000x1000" -> [(100, 100), (1000, 1000)]; ValueError on anything else."""
    sizes = []
    for item in text.split(","):
        item = item.strip().lower()
        clusters, sep, placements = item.partition("x")
        if not sep or not clusters.isdigit() or not placements.isdigit():
            raise ValueError(f"not a size CLUSTERSxPLACEMENTS: {item!r}")
        size = (int(clusters), int(placements))
        if size[0] < 1 or size[1] < 1:
            raise ValueError(f"sizes must be positive: {item!r}")
        if size not in sizes:
            sizes.append(size)
    return sizes


def _skipped_row(system: str, clusters: int, placements: int, mode: str, reason: str) -> dict[str, Any]:
    return {
        "system": system,
        "clusters": clusters,
        "placements": placements,
        "mode": mode,
        "status": "SKIPPED",
        "note": reason,
    }


def _frame(rows: Sequence[Mapping[str, Any]]) -> pl.DataFrame:
    frame = pl.DataFrame([{c: row.get(c) for c in COLUMNS} for row in rows], schema=COLUMNS)
    hub = ["system", "clusters", "placements", "seed"]  # the seed fixes the hub
    greedy = frame.filter(pl.col("mode") == "greedy").select(*hub, pl.col("objective").alias("_greedy"))
    return (
        frame.drop("objective_gain")
        .join(greedy, on=hub, how="left")
        .with_columns(objective_gain=pl.col("objective") - pl.col("_greedy"))
        .drop("_greedy")
        .select(list(COLUMNS))
    )


# ====================================================================================== output


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _churn(row: Mapping[str, Any], event: str) -> str:
    moved, forced = row[f"churn_{_event_column(event)}"], row[f"forced_{_event_column(event)}"]
    return "-" if moved is None else f"{moved} / {forced}"


def _number(value: Any) -> str:
    return "-" if value is None else str(value)


def _status(row: Mapping[str, Any]) -> str:
    marks = [
        m for m, on in (("time-limited", row["time_limited"]), ("retried", (row["attempts"] or 0) > 1)) if on
    ]
    return row["status"] + (f" ({', '.join(marks)})" if marks else "")


# (header, formatter) of the Markdown table; the CSV has every column raw.
_MARKDOWN: tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...] = (
    ("system", lambda r: r["system"]),
    ("clusters", lambda r: str(r["clusters"])),
    ("placements", lambda r: str(r["placements"])),
    ("seed", lambda r: _number(r["seed"])),
    ("mode", lambda r: r["mode"]),
    ("status", lambda r: _status(r)),
    ("command s", lambda r: _seconds(r["command_s"])),
    ("end to end s", lambda r: _seconds(r["e2e_s"])),
    ("read s", lambda r: _seconds(r["read_s"])),
    ("write s", lambda r: _seconds(r["write_s"])),
    ("wall s", lambda r: _seconds(r["wall_s"])),
    ("load s", lambda r: _seconds(r["load_s"])),
    ("solver s", lambda r: _seconds(r["solver_s"])),
    ("build s", lambda r: _seconds(r["build_s"])),
    ("CP-SAT s", lambda r: _seconds(r["solve_s"])),
    ("emit s", lambda r: _seconds(r["emit_s"])),
    ("check s", lambda r: _seconds(r["check_s"])),
    ("peak MiB", lambda r: "-" if r["peak_rss_mb"] is None else f"{r['peak_rss_mb']:.0f}"),
    ("models", lambda r: _number(r["models"])),
    ("selected", lambda r: _number(r["selected"])),
    ("objective", lambda r: _number(r["objective"])),
    ("gain vs greedy", lambda r: _number(r["objective_gain"])),
    ("gap", lambda r: "-" if r["gap"] is None else f"{r['gap']:.2g}"),
    ("unsatisfied", lambda r: _number(r["unsatisfied"])),
    ("created", lambda r: _number(r["created"])),
    (
        "violations",
        lambda r: (
            _number(r["violations"])
            + ("" if r["event_violations"] in (0, None) else f" (+{r['event_violations']} after events)")
        ),
    ),
    *((f"{event} churn / forced", lambda r, e=event: _churn(r, e)) for event in ev.EVENTS),
)

_RIGHT = {
    "clusters",
    "placements",
    "seed",
    "selected",
    "objective",
    "gain vs greedy",
    "gap",
    "unsatisfied",
    "created",
    "models",
    "violations",
    "peak MiB",
} | {h for h, _ in _MARKDOWN if h.endswith(" s")}

LEGEND = """\
- **end to end** = what `placement-solver solve -f hub.yaml` spends on the hub: **read** (the
  YAML text parsed and validated), the schedule (load, solve, emit of every system present) and
  **write** (the YAML stream), measured in the case's process on the hub written as YAML
  (interpreter start-up and imports, about half a second, not included).
- **wall** = load + solver + emit: the scheduler's own work on an already generated hub (hub
  generation and checking excluded; the generated objects are frozen out of Python's cyclic garbage
  collector with `gc.freeze()`, as a controller's long-lived cache would be, so that collector
  pauses do not land at random in the timed phases). One run per case, in a fresh process.
- **solver** = `solver.solve`; **build** (cluster table, filters, scores, CP-SAT models) and
  **CP-SAT** (search, and the exact answers for one spread constraint) are the parts its
  statistics report, summed over the threads that run searches side by side (so they can exceed
  **solver**); the rest is the greedy walk and the closed-form answers. **check** =
  `solver.check`, the independent re-verification.
- **peak MiB** = peak RSS of the case's process (hub generation included, churn runs excluded).
- **models** = CP-SAT models solved; **selected** = (placement, cluster) pairs selected.
- **objective**: the lexicographic objective combined exactly into one integer (README, "The
  objective"); **gain vs greedy** = objective minus greedy's on the same hub; **gap** =
  (bound - objective) / |objective|, proven by optimal mode only.
- **violations** = `solver.check` problems on the result, must be 0 (the events' solves are
  checked too; a failure would show as "+N after events"). A status marked "(time-limited)" means
  the wall-clock limit cut a search in one of the case's solves (none did here if unmarked).
- **churn / forced**, per event, solved again in the same mode from the state the first plan left:
  (placement, cluster) pairs selected before the event and not after / how many of those no
  scheduler could keep (cluster removed or leaving, a re-evaluated decision whose cluster fails
  the new filters, surplus over N), a lower bound. `cluster-removed` deletes the member cluster
  holding the most bindings; `label-changed` moves that cluster to another region;
  `score-updated` redraws per-cpu-core-cost on a quarter of the clusters; `policy-changed` edits
  the policy of 10% of the placements with spread or preferences (a preference weight moved by 10,
  or maxSkew raised), so all their bindings are re-evaluated. Current bindings are never moved by
  a label or property change (the policy is ignored during execution), hence 0 / 0 there.
"""


OCM_LEGEND = """\
- **OCM rows** (`system` ocm): **selected** counts PlacementDecision entries; **unsatisfied** the
  batch's placements the solver reports unsatisfied (fewer decisions than numberOfClusters, or
  none). It leaves out the misconfigured placements (not solved) and placements without
  numberOfClusters left with no decision, whose PlacementSatisfied is False all the same (see
  docs/bench/ocm/README.md for the conditions written). The events are OCM's
  (`bench/ocm_events.py`):
  `cluster-removed` deletes the ManagedCluster named in the most PlacementDecisions (and its
  AddOnPlacementScores); `label-changed` moves that cluster to another region (and zone);
  `score-updated` redraws the resource-usage-score AddOnPlacementScore of a quarter of the
  clusters that have one; `policy-changed` edits 10% of the Placements (numberOfClusters one up or
  down, or the first predicate narrowed). **forced** = decisions on a removed cluster, on a cluster
  that no longer passes the placement's filters (sets, predicates, taints), of a placement now
  misconfigured, or beyond a lowered numberOfClusters. OCM keeps nothing by policy: every sync
  re-scores every decision, and Steady only prices holding a cluster, so moves beyond the forced
  ones are expected after any event, in both modes; the table below gives, per row, what re-solving
  the applied plan with no event at all moves (the re-evaluation itself: Balance judged on the
  decisions just written).
"""


OPENMCP_LEGEND = """\
- **openMCP rows** (`system` openmcp): the hub of `placement-solver generate --system openmcp`
  (`placements` ClusterRequests, 80% of them pending, over `clusters` Clusters and four purposes),
  solved with the scheduler config the generator makes for that size
  (`adapters.openmcp.generate.generate_config`; the end-to-end time takes it already parsed, as
  `--config` gives it). **created** = Clusters the plan makes (new ones, some named from
  generateName, and lost ones made again): the figure that matters, a cluster
  someone has to build and pay for. Optimal mode minimises it, after the requests left out;
  greedy is upstream's one-at-a-time queue. **selected** = (request, cluster) pairs of the result:
  granted requests kept and new grants; **unsatisfied** = reconciled requests left Pending (an
  unknown purpose, or a cluster the API server would refuse to make). No churn experiment: a
  granted request never moves.
"""


KCP_LEGEND = """\
- **kcp rows** (`system` kcp: API generation v0.8, SyncTargets and Placements; kcp-v0.5: the
  placement annotation's state machine over WorkloadClusters): the workspace set of
  `placement-solver generate --system kcp [--generation v0.5]` (`placements` namespaces over
  `clusters` clusters and clusters/10 Locations; bench/kcp_hub.py). **selected** counts (request,
  cluster) pairs: a v0.5 request is a namespace in a location, a v0.8 request a Placement with all
  the namespaces it selects. The note gives the **namespace moves** the plan makes on the
  generated set (namespaces on clusters since evicted, not Ready or cordoned, the latter two in
  v0.8 only) against the **forced** minimum; both modes move only what they must. The events are
  kcp's: `cluster-removed` deletes the cluster holding the most namespaces, `label-changed` moves
  it out of its Location (its pool label); there is no score or policy event (kcp has neither).
  The eviction experiment of issue 8 (10% of the clusters) is docs/bench/kcp/README.md.
"""


def _ocm_notes(frame: pl.DataFrame) -> str:
    rows = frame.filter((pl.col("system") == "ocm") & (pl.col("status") != "SKIPPED"))
    lines = ["| OCM clusters x placements | mode | re-solved with no event |", "|---|---|---|"]
    for r in rows.iter_rows(named=True):
        lines.append(f"| {r['clusters']} x {r['placements']} | {r['mode']} | {r['note'] or '-'} |")
    return "\n".join(lines)


def _kcp_notes(frame: pl.DataFrame) -> str:
    rows = frame.filter(pl.col("system").is_in(list(kcp_hub.GENERATIONS)) & (pl.col("status") != "SKIPPED"))
    lines = ["| kcp system | clusters x namespaces | mode | on the generated set |", "|---|---|---|---|"]
    for r in rows.iter_rows(named=True):
        lines.append(
            f"| {r['system']} | {r['clusters']} x {r['placements']} | {r['mode']} | {r['note'] or '-'} |"
        )
    return "\n".join(lines)


def markdown_table(frame: pl.DataFrame) -> str:
    """The frame as a GitHub Markdown table (figures rounded; results.csv has them raw)."""
    rows = [[fmt(r) for _, fmt in _MARKDOWN] for r in frame.iter_rows(named=True)]
    headers = [h for h, _ in _MARKDOWN]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [
            c.rjust(w) if h in _RIGHT else c.ljust(w) for c, w, h in zip(cells, widths, headers, strict=True)
        ]
        return "| " + " | ".join(out) + " |"

    rule = (
        "|"
        + "|".join(
            ("-" * (w + 1) + ":") if h in _RIGHT else ("-" * (w + 2))
            for w, h in zip(widths, headers, strict=True)
        )
        + "|"
    )
    return "\n".join([line(headers), rule, *(line(r) for r in rows)]) + "\n"


def _skip_note(frame: pl.DataFrame) -> str:
    skipped = frame.filter(pl.col("status") == "SKIPPED")
    if skipped.is_empty():
        return NO_SKIPS
    lines = ["Skipped combinations:"]
    for r in skipped.unique(["system", "clusters", "placements"], maintain_order=True).iter_rows(named=True):
        lines.append(f"- {r['system']} {r['clusters']} x {r['placements']}: {r['note']}")
    return "\n".join(lines)


def _failure_note(frame: pl.DataFrame) -> str:
    """The cases that failed, for good or once (then retried), and why."""
    troubled = frame.filter(pl.col("failure").is_not_null())
    lines = ["Cases that failed (each was run once more; FAILED: that failed too):"]
    for r in troubled.iter_rows(named=True):
        lines.append(
            f"- {r['system']} {r['clusters']} x {r['placements']} seed {r['seed']} {r['mode']}: "
            f"{r['status']} after {r['attempts']} attempts; {r['failure']}"
        )
    return "" if troubled.is_empty() else "\n".join(lines)


def environment() -> str:
    """This machine, as results.md describes it."""
    return machine(("ortools", "polars"))


def _command(frame: pl.DataFrame, seed: int, out: str) -> str:
    systems = list(dict.fromkeys(frame["system"].to_list()))
    sizes = list(dict.fromkeys(zip(frame["clusters"].to_list(), frame["placements"].to_list(), strict=True)))
    modes = list(dict.fromkeys(frame["mode"].to_list()))
    parts = ["placement-solver bench", *(f"--system {s}" for s in systems)]
    if sizes != list(DEFAULT_SIZES):
        parts.append("--sizes " + ",".join(f"{c}x{p}" for c, p in sizes))
    if modes != ["greedy", "optimal"]:
        parts.append("--modes " + ",".join(modes))
    if seed:
        parts.append(f"--seed {seed}")
    return " ".join([*parts, f"--out {out}"])


def write_results(
    frame: pl.DataFrame,
    out: str | os.PathLike[str],
    *,
    seed: int = 0,
    reproduce: str | None = None,
    ran: str = "",
) -> list[Path]:
    """results.csv, results.md, time.png and quality.png in `out` (created if needed); results.md
    says how to reproduce them (`reproduce`: the command, when the flags alone cannot) and what
    ran them (`ran`)."""
    from bench import plots

    given = os.fspath(out)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv, md = out / "results.csv", out / "results.md"
    frame.write_csv(csv)
    systems = set(frame["system"].to_list())
    ocm_rows = "ocm" in systems
    text = "\n\n".join(
        [
            "# placement-solver benchmark results",
            f"Reproduce with `{reproduce or _command(frame, seed, given)}` (after `pip install '.[bench]'`). "
            + environment()
            + (f" {ran}" if ran else ""),
            _skip_note(frame),
            *filter(None, [_failure_note(frame)]),
            markdown_table(frame).rstrip("\n"),
            LEGEND.rstrip("\n"),
            *((OCM_LEGEND.rstrip("\n"), _ocm_notes(frame)) if ocm_rows else ()),
            *((OPENMCP_LEGEND.rstrip("\n"),) if "openmcp" in systems else ()),
            *((KCP_LEGEND.rstrip("\n"), _kcp_notes(frame)) if systems & set(kcp_hub.GENERATIONS) else ()),
            "![wall time against fleet size](time.png)",
            "![optimal against greedy: objective and churn](quality.png)",
        ]
    )
    md.write_text(text + "\n", encoding="utf-8")
    time_png, quality_png = out / "time.png", out / "quality.png"
    plots.plot_time(frame, time_png)
    plots.plot_quality(frame, quality_png)
    return [csv, md, time_png, quality_png]
