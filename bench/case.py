"""One benchmark case, run in a fresh interpreter: the unit both sweep engines hand out.

    row = measured(Case("fleet", 1000, 1000, "optimal", seed=0))

The case runs as `python -m bench.case_child` (its arguments pickled on standard input, its row pickled
on standard output), so its timings and peak resident set size are its own, whichever process
asks: the command, a notebook, or a Dask worker (whose processes are daemons, which may not start
`multiprocessing` children, and whose death must not leave the case running: the child exits when
its parent does). Only the standard library is imported here, so that a worker holding many cases
stays light; the case's own process (bench.case_child) imports the suite.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Case", "CaseFailed", "measured", "run_isolated"]

ROOT = Path(__file__).resolve().parent.parent

# One case at a time in a process (a Dask worker given several threads still runs one): a case
# forks the command's own two processes, so two at once would share cores and skew both timings.
_ONE_AT_A_TIME = threading.Lock()


@dataclass(frozen=True, slots=True)
class Case:
    """What one case measures: a system's generated hub of `clusters` x `placements`, solved in
    `mode` with `seed` (which also fixes the hub), then its churn experiment: every event of the
    system (True), none (False), or those named."""

    system: str
    clusters: int
    placements: int
    mode: str
    seed: int = 0
    time_limit: float = 60.0
    events: bool | tuple[str, ...] = True

    def label(self) -> str:
        return f"{self.system} {self.clusters}x{self.placements} {self.mode} seed {self.seed}"


class CaseFailed(RuntimeError):
    """The case's process failed: exited with an error, or was killed."""


def run_isolated(case: Case) -> dict[str, Any]:
    """The case's row (see bench.suite.run_case), measured in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.case_child"],
        input=pickle.dumps(case),
        capture_output=True,
        cwd=ROOT,  # `-m bench.case_child` finds this package first, the one asking
        check=False,
    )
    if done.returncode != 0:
        raise CaseFailed(_failure(done.returncode, done.stderr.decode("utf-8", "replace")))
    return pickle.loads(done.stdout)  # noqa: S301 (our own child's bytes)


def measured(case: Case) -> dict[str, Any]:
    """The case's row with where and what measured it: `case_s` (the whole fresh process:
    start-up, generating the hub, every timed phase, the events), `host`, `commit`, and
    `machine` (a description, not a column). The task each engine runs, one per case."""
    with _ONE_AT_A_TIME:
        started = time.perf_counter()
        row = run_isolated(case)
        row["case_s"] = time.perf_counter() - started
    return row


def _failure(code: int, stderr: str) -> str:
    """One line: the signal or exit status, and the error's last line."""
    how = f"killed by signal {-code}" if code < 0 else f"exited {code}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return f"the case's process {how}" + (f": {lines[-1][:300]}" if lines else "")
