"""The console script's `solve`, its stages timed in every process it forks: who does what when.

    PYTHONPATH=<tree> python -m bench.stage_timeline LOG solve -q -f hub.yaml --now ... -o plan >/dev/null

Appends to LOG one line a stage: the process id, the stage, its start and end (wall seconds from
this process's start), its wall and CPU seconds (`time.process_time`), and the process's CPU so
far; and one line `EXIT` a process as it leaves (os._exit: the command's own and each forked
child). Stages missing in a tree (an older one) are left untimed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

_START = time.monotonic()

PIPELINE = (
    "routed",
    "remember_judged",
    "_load",
    "solve",
    "first_misjudged",
    "_problems",
    "schedule_manifests",
    "plan_shared",
    "_share_planned",
    "inputs_by_key",
    "changed_against",
    "orjson_items",
)


def _record(log: str, stage: str, started: float, cpu: float) -> None:
    ended = time.monotonic()
    with open(log, "a", encoding="utf-8") as out:
        out.write(
            f"{os.getpid()} {stage:24s} {started - _START:7.3f} {ended - _START:7.3f}"
            f" wall {ended - started:6.3f} cpu {cpu:6.3f} at {time.process_time():6.3f}\n"
        )


def _timed(log: str, module: Any, name: str, stage: str | None = None) -> None:
    func: Callable[..., Any] | None = getattr(module, name, None)
    if func is None:
        return

    def timed(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.monotonic(), time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            _record(log, stage or name, started, time.process_time() - cpu)

    setattr(module, name, timed)


def main(log: str, argv: list[str]) -> None:
    import adapters.cli.main as cli
    import adapters.kcp.emit as kcp_emit
    import adapters.openmcp.emit as openmcp_emit
    import adapters.run.changes as changes
    import adapters.run.pipeline as pipeline

    _timed(log, cli, "read_all")
    _timed(log, cli, "write_json")
    for name in PIPELINE:
        _timed(log, pipeline, name)
    _timed(log, changes, "plan_of")
    for module, system in ((kcp_emit, "kcp"), (openmcp_emit, "openmcp")):
        _timed(log, module, "emit", f"{system}.emit")
        _timed(log, module, "emit_part", f"{system}.emit_part")
    leave = os._exit

    def exit_timed(code: int) -> None:
        _record(log, "EXIT", _START, time.process_time())
        leave(code)

    os._exit = exit_timed
    sys.argv = ["placement-solver", *argv]
    cli.entry()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
