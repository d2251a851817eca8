"""The command a user runs, timed from outside: `placement-solver solve` in a fresh interpreter
(start-up, imports, reading, scheduling, writing and exit), its output written to a file."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ROOT", "solve_seconds"]

ROOT = Path(__file__).resolve().parent.parent


def solve_seconds(hub: Path, out: Path, flags: Sequence[str] = ()) -> float:
    """Wall seconds of `placement-solver solve -f HUB -q FLAGS...`, standard output to `out`
    (the console script's own entry, so its exit is the command's)."""
    entry = "from adapters.cli.main import entry; entry()"
    args = [sys.executable, "-c", entry, "solve", "-f", str(hub), "-q", *flags]
    with out.open("wb") as sink:
        started = time.perf_counter()
        done = subprocess.run(args, stdout=sink, stderr=subprocess.PIPE, cwd=ROOT, check=False)
        elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"placement-solver solve exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return elapsed
