"""Whole commands timed in turns, A against B: the method of docs/performance.md's paired figures.

    python -m bench.paired -n 3 --warmup 1 --timeout 900 --vs 'COMMAND_B' -- COMMAND_A [ARG ...]

Each command is a fresh process, started without a shell (write `sh -c '...'` for a pipe or a
redirection) with empty standard input and its output thrown away. After the warm-up runs (not
counted) A and B run in turn, A B A B ..., so that a drift of the machine's pace falls on both;
the ratio A/B is taken pair by pair. For each run: wall seconds (a monotonic clock around the
child's start and reaping), CPU seconds (user + system of the child and every process it waited
for, the kernel's own accounting from `os.wait4`) and the peak (the largest single process among
them, `ru_maxrss`, not their sum; it cannot read below this process's own size, which the child
has at its fork). Every figure is printed as min / median / max: quote the median.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    peak_mib: float
    status: int


def run_once(argv: list[str], timeout: float) -> Run:
    """One fresh process of `argv`, reaped with the kernel's account of it and its children."""
    started = time.monotonic()
    child = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True
    )
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(child.pid, 9)
            pid, status, usage = os.wait4(child.pid, 0)
            break
        time.sleep(0.002)
    wall = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in KiB on Linux: the largest of the child and the descendants it waited for.
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.returncode)


def spread(values: list[float]) -> str:
    return f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}"


def measure(a: list[str], b: list[str] | None, runs: int, warmup: int, timeout: float) -> str:
    """The report: one row a command (wall, cpu, peak), and with B the pairs' ratios A/B."""
    ends = time.monotonic() + timeout
    for _ in range(warmup):
        run_once(a, max(ends - time.monotonic(), 1.0))
        if b is not None:
            run_once(b, max(ends - time.monotonic(), 1.0))
    got_a: list[Run] = []
    got_b: list[Run] = []
    for _ in range(runs):
        if time.monotonic() > ends:
            break
        got_a.append(run_once(a, max(ends - time.monotonic(), 1.0)))
        if b is not None:
            got_b.append(run_once(b, max(ends - time.monotonic(), 1.0)))
    lines = [
        "command  runs  wall s min / median / max  cpu s min / median / max  peak MiB min / median / max"
    ]
    for name, got in (("A", got_a), ("B", got_b)):
        if got:
            statuses = sorted({r.status for r in got})
            lines.append(
                f"{name}  {len(got)}  {spread([r.wall for r in got])}  {spread([r.cpu for r in got])}  "
                f"{spread([r.peak_mib for r in got])}  exit {statuses}"
            )
    pairs = list(zip(got_a, got_b, strict=False))
    if pairs:
        lines.append(f"A/B wall  {spread([x.wall / y.wall for x, y in pairs])}")
        lines.append(f"A/B cpu   {spread([x.cpu / y.cpu for x, y in pairs])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.paired", description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=5, help="counted runs of each command")
    parser.add_argument("--warmup", type=int, default=1, help="runs of each before counting")
    parser.add_argument("--timeout", type=float, default=100.0, help="one bound in seconds on the whole call")
    parser.add_argument("--vs", default=None, help="command B, one string split as a shell splits words")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="command A, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command A given (after --)")
    print(measure(command, shlex.split(args.vs) if args.vs else None, args.runs, args.warmup, args.timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
