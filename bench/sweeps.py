"""Sweeps: every case of a plan, one fresh process each, gathered into the suite's frame.

    from bench import SweepSpec, sweep
    spec = SweepSpec(systems=("fleet", "ocm"), sizes=((1000, 1000),), seeds=(0, 1, 2))
    frame = sweep(spec)                            # the local engine: here, one case at a time
    frame = sweep(spec, client, out="bench-out")   # a dask.distributed Client: on its workers

Each case is :func:`bench.case.measured` (a fresh interpreter, as the suite has always run a
case), here or as a Dask task on a worker, one case per worker at a time. A case that fails, or
whose worker dies, is run once more; if that fails too its row says FAILED and why. Either way
the sweep goes on, and the rows say how many attempts each case took and what the failed one
died of. The frame is :func:`bench.suite`'s (rows in the plan's order, whatever order they
finished in); with `out`, the results are written as the suite writes them, with the plan
(`plan.yaml`) and what ran it (`sweep.json`: engine, workers, hosts, commit, when, how long).
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from adapters.cli.progress import TerminalProgress
from bench import suite
from bench.case import Case, measured
from bench.environment import commit
from bench.plan import SweepSpec

__all__ = ["ENGINES", "ProgressBar", "Record", "Report", "run_suite", "sweep", "write_sweep"]

ENGINES = ("local", "dask")
ATTEMPTS = 2  # a case is run at most twice: once, and once more if that failed


@dataclass(frozen=True, slots=True)
class Report:
    """What a sweep's progress callback hears after each attempt: the cases done (measured or
    failed for good) of the total, how many were retried and how many failed, seconds since the
    sweep began, and a line for people."""

    done: int
    total: int
    retried: int
    failed: int
    elapsed: float
    line: str


@dataclass(frozen=True, slots=True)
class Record:
    """What ran a sweep, written beside its results (`sweep.json`, and a line of results.md)."""

    engine: str  # "local" or "dask"
    where: str  # this process, or the Dask scheduler and its workers
    workers: int
    commit: str  # the commit of the process that ran the sweep (each row has its case's)
    started: str  # UTC, RFC 3339
    wall_s: float
    hosts: dict[str, str] = field(default_factory=dict)  # host -> its machine

    def sentence(self, here: str) -> str:
        """For results.md, beside `here` (this machine): each host's machine where it differs."""
        hosts = ", ".join(
            host if text == here else f"{host} ({text})" for host, text in sorted(self.hosts.items())
        )
        return (
            f"Swept by the {self.engine} engine ({self.where}) from commit {self.commit}, started "
            f"{self.started}, {self.wall_s:.1f} s wall; cases ran on {hosts or 'no host'}."
        )


def sweep(
    spec: SweepSpec | Mapping[str, Any],
    client: Any = None,
    *,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[Report], None] | None = None,
) -> pl.DataFrame:
    """Measure every case of `spec` (a SweepSpec, or a plan as read from YAML): here, one after
    another, or with a dask.distributed `client`, as tasks on its workers. Returns the frame of
    bench.suite.COLUMNS; with `out`, writes results.csv, results.md, the plots, plan.yaml and
    sweep.json there."""
    spec = spec if isinstance(spec, SweepSpec) else SweepSpec.of(spec)
    started, clock = datetime.now(UTC), time.perf_counter()
    cases = spec.cases()
    tally = _Tally(cases, "local" if client is None else "dask", progress, clock)
    runnable = [i for i, case in enumerate(cases) if not tally.skipped(i)]
    if client is None:
        _run_here(cases, runnable, tally)
        where, workers = "this process, one case at a time", 1
    else:
        _run_on_dask(client, cases, runnable, tally)
        where, workers = _dask_where(client)
    frame = suite._frame(tally.ordered())
    record = Record(
        engine=tally.engine,
        where=where,
        workers=workers,
        commit=commit(),
        started=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        wall_s=time.perf_counter() - clock,
        hosts=tally.hosts,
    )
    if out is not None:
        write_sweep(frame, out, spec, record)
    return frame


def write_sweep(frame: pl.DataFrame, out: str | os.PathLike[str], spec: SweepSpec, record: Record) -> None:
    """The suite's results (CSV, Markdown, plots) with the plan and the record beside them."""
    given = os.fspath(out)
    single = len(spec.seeds) == 1 and spec.events is True and spec.time_limit == suite.DEFAULT_TIME_LIMIT
    reproduce = None if single else f"placement-solver bench --plan {Path(given) / 'plan.yaml'} --out {given}"
    suite.write_results(
        frame, out, seed=spec.seeds[0], reproduce=reproduce, ran=record.sentence(suite.environment())
    )
    Path(out, "plan.yaml").write_text(spec.text(), encoding="utf-8")
    summary = {
        **asdict(record),
        "cases": frame.height,
        "retried": frame.filter(pl.col("attempts") > 1).height,
        "failed": frame.filter(pl.col("status") == "FAILED").height,
        "plan": "plan.yaml",
    }
    Path(out, "sweep.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


# ================================================================================== the engines


def _run_here(cases: Sequence[Case], runnable: Sequence[int], tally: _Tally) -> None:
    for index in runnable:
        while True:
            try:
                row = measured(cases[index])
            except Exception as err:  # noqa: BLE001 (any failure is the case's, reported in its row)
                if tally.failed(index, _reason(err)):
                    continue
                break
            tally.measured(index, row)
            break


def _run_on_dask(client: Any, cases: Sequence[Case], runnable: Sequence[int], tally: _Tally) -> None:
    """Every case a task, as many at once as the cluster has workers (so that none waits behind
    another on a worker while a worker that joined later idles), the largest first (so that the
    last to finish is short); a failed task is submitted once more, before the rest."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]
    waiting = deque(sorted(runnable, key=lambda i: cases[i].clusters * cases[i].placements, reverse=True))
    index_of: dict[Any, int] = {}
    running = as_completed(with_results=True, raise_errors=False)

    def fill() -> None:
        while waiting and running.count() < max(1, len(client.nthreads())):
            index = waiting.popleft()
            key = f"bench-case-{token}-{index}-{tally.attempts[index] + 1}"
            future = client.submit(measured, cases[index], key=key, pure=False)
            index_of[future] = index
            running.add(future)

    fill()
    for future, result in running:
        index = index_of.pop(future)
        if future.status == "finished" and isinstance(result, dict):
            tally.measured(index, result)
        elif tally.failed(index, _reason(_error(future))):
            waiting.appendleft(index)
        future.release()
        fill()


def _dask_where(client: Any) -> tuple[str, int]:
    workers = len(client.nthreads())
    cluster = type(client.cluster).__name__ + ", " if client.cluster is not None else ""
    return f"{cluster}scheduler {client.scheduler.address}, {workers} workers", workers


def _error(future: Any) -> BaseException:
    """What a task that did not finish died of: its exception, or why it is gone (cancelled)."""
    try:
        return future.exception()
    except BaseException as err:  # noqa: BLE001 (a cancelled task's future raises its reason)
        return err


def _reason(error: BaseException) -> str:
    """A failed attempt in one line."""
    last_worker = getattr(error, "last_worker", None)  # distributed.KilledWorker
    if type(error).__name__ == "KilledWorker":
        return f"its worker died ({getattr(last_worker, 'address', last_worker)})"
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:400]


# ==================================================================================== the rows


class _Tally:
    """The rows as they come in, the attempts and failures per case, and the progress reports."""

    def __init__(
        self, cases: Sequence[Case], engine: str, progress: Callable[[Report], None] | None, clock: float
    ) -> None:
        self.cases = cases
        self.engine = engine
        self.progress = progress
        self.clock = clock
        self.rows: dict[int, dict[str, Any]] = {}
        self.attempts = [0] * len(cases)
        self.failures: dict[int, str] = {}
        self.hosts: dict[str, str] = {}

    def skipped(self, index: int) -> bool:
        case = self.cases[index]
        reason = suite.SKIPPED.get((case.system, case.clusters, case.placements))
        if reason is not None:
            self.rows[index] = suite._skipped_row(
                case.system, case.clusters, case.placements, case.mode, reason
            )
            self.rows[index].update(seed=case.seed, engine=self.engine)
        return reason is not None

    def measured(self, index: int, row: dict[str, Any]) -> None:
        self.attempts[index] += 1
        self.hosts[row["host"]] = row.pop("machine")
        row.update(attempts=self.attempts[index], failure=self.failures.get(index), engine=self.engine)
        self.rows[index] = row
        self._report(lambda: f"{self._counter()} {self.cases[index].label()}: {_figures(row)}")

    def failed(self, index: int, reason: str) -> bool:
        """Count a failed attempt; True: run the case once more."""
        self.attempts[index] += 1
        self.failures[index] = reason
        case = self.cases[index]
        again = self.attempts[index] < ATTEMPTS
        if not again:
            self.rows[index] = {
                "system": case.system,
                "clusters": case.clusters,
                "placements": case.placements,
                "seed": case.seed,
                "mode": case.mode,
                "status": "FAILED",
                "attempts": self.attempts[index],
                "failure": reason,
                "engine": self.engine,
            }
        verdict = "trying once more" if again else f"FAILED after {self.attempts[index]} attempts"
        self._report(
            lambda: f"{self._counter()} {case.label()}: attempt {self.attempts[index]} {reason}; {verdict}"
        )
        return again

    def ordered(self) -> list[dict[str, Any]]:
        return [self.rows[i] for i in range(len(self.cases))]

    def _counter(self) -> str:
        return f"[{len(self.rows)}/{len(self.cases)}]"

    def _report(self, line: Callable[[], str]) -> None:
        if self.progress is None:
            return
        retried = len(self.failures)  # a case with a failed attempt is run once more
        failed = sum(1 for row in self.rows.values() if row.get("status") == "FAILED")
        elapsed = time.perf_counter() - self.clock
        self.progress(Report(len(self.rows), len(self.cases), retried, failed, elapsed, line()))


def _figures(row: Mapping[str, Any]) -> str:
    retried = f", attempt {row['attempts']}" if row["attempts"] > 1 else ""
    return (
        f"command {row['command_s']:.2f} s, end to end {row['e2e_s']:.2f} s, wall {row['wall_s']:.2f} s, "
        f"{row['status']}, violations {row['violations']}, "
        f"case {row['case_s']:.1f} s on {row['host']}{retried}"
    )


# ================================================================================ the progress


class ProgressBar:
    """A sweep's progress on `stream` (standard error): every report's line, and on a terminal a
    bar over the cases below them, redrawn in place."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.terminal = TerminalProgress(self.stream).draws()

    def __call__(self, report: Report) -> None:
        if not self.terminal:
            self.stream.write(report.line + "\n")
            self.stream.flush()
            return
        self.stream.write("\r\033[K" + report.line + "\n" + bar(report, self.width))
        if report.done == report.total:
            self.stream.write("\n")
        self.stream.flush()


def bar(report: Report, width: int = 30) -> str:
    """``[#########.....................] 3/10 cases, 1 retried, 0 failed, 42 s``"""
    filled = width * report.done // max(1, report.total)
    return (
        f"[{'#' * filled}{'.' * (width - filled)}] {report.done}/{report.total} cases, "
        f"{report.retried} retried, {report.failed} failed, {report.elapsed:.0f} s"
    )


def run_suite(
    systems: Iterable[str] = ("fleet",),
    sizes: Iterable[tuple[int, int]] = suite.DEFAULT_SIZES,
    modes: Iterable[str] = ("greedy", "optimal"),
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    *,
    time_limit: float = suite.DEFAULT_TIME_LIMIT,
    progress: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """Measure every (system, size, mode), one fresh process each, in order (the local engine of
    :func:`sweep`); with `out`, write results.csv, results.md, time.png and
    quality.png there."""
    spec = SweepSpec(tuple(systems), tuple(sizes), (seed,), tuple(modes), True, time_limit)
    return sweep(spec, out=out, progress=None if progress is None else lambda report: progress(report.line))
