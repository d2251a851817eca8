"""The process of one benchmark case (`python -m bench.case_child`, started by
bench.case.run_isolated): its Case pickled on standard input, its row pickled on standard output.
A module of its own so that bench.case, which the suite imports, imports nothing of the suite."""

from __future__ import annotations

import os
import pickle
import platform
import sys
import threading
import time

from bench.case import Case
from bench.environment import commit
from bench.suite import environment, run_case


def _exit_with_parent(every: float = 0.5) -> None:
    """Exit when the process that started this one is gone (a worker killed mid-case), rather
    than run on unwatched and take the cores of the case that replaces it."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def main() -> None:
    _exit_with_parent()
    case: Case = pickle.load(sys.stdin.buffer)  # noqa: S301 (our own parent's bytes)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever the case prints stays out of its row
    row = run_case(
        case.system,
        case.clusters,
        case.placements,
        case.mode,
        case.seed,
        time_limit=case.time_limit,
        events=case.events,
    )
    row.update(host=platform.node(), commit=commit(), machine=environment())
    out.write(pickle.dumps(row))
    out.flush()


if __name__ == "__main__":
    main()
