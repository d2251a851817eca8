"""Work spread over the machine's cores by fork, for the command's pure steps on large inputs.

Reading and writing a large hub's text (tens of MB) is pure Python or single-threaded C++ work on
data the process already holds. A forked child sees that data as it is (copy on write), does its
share, and sends back only bytes; nothing is pickled, nothing is imported anew. Exact or nothing:
a child that fails, for any reason, is redone by the parent, so the answer is the same bytes as
the sequential one, only sooner. Where fork is missing, or ``PLACEMENT_SOLVER_WORKERS=1``, or
in a library caller's process that did not :func:`allow` it, everything runs in that process.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["Pending", "allow", "background", "map_bytes", "split_evenly", "workers"]

T = TypeVar("T")

# Past a few workers the parent's share of the joining and decoding dominates.
MAX_WORKERS = 4
ENVIRONMENT = "PLACEMENT_SOLVER_WORKERS"


# Forking is the command's choice (adapters.cli.entry allows it): a library caller's process may
# hold threads of its own, and gets one process unless it allows it too, or sets the variable.
_allowed = False


def allow(allowed: bool = True) -> None:
    """Let splits use the machine's CPUs in this process (the command line does)."""
    global _allowed
    _allowed = allowed


def workers() -> int:
    """How many processes a split may use: ``PLACEMENT_SOLVER_WORKERS`` when set; else, where
    :func:`allow` was called, the CPUs this process may run on (at most MAX_WORKERS); else 1.
    Always 1 where fork is missing."""
    if not hasattr(os, "fork") or sys.platform == "win32":
        return 1
    setting = os.environ.get(ENVIRONMENT, "").strip()
    if setting.isdigit() and int(setting) >= 1:
        return min(int(setting), 64)
    if not _allowed:
        return 1
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        usable = os.cpu_count() or 1
    return max(1, min(usable, MAX_WORKERS))


def split_evenly(items: Sequence[T], parts: int) -> list[Sequence[T]]:
    """`items` in at most `parts` contiguous runs of nearly equal length (none empty)."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    runs, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        runs.append(items[start:end])
        start = end
    return runs


def map_bytes(func: Callable[[T], bytes], items: Sequence[T]) -> list[bytes]:
    """``[func(item) for item in items]``: the first item in this process, each other in a forked
    child at the same time. `func` must be pure (its effects in a child are lost)."""
    pending = [background(func, item) for item in items[1:]]
    answers = [func(items[0])] if items else []
    return answers + [p.result() for p in pending]


class Pending:
    """``func(item)`` under way in a forked child; :meth:`result` waits for it (or, when the child
    failed or could not start, computes it here)."""

    def __init__(self, func: Callable[[T], bytes], item: T) -> None:
        self._func, self._item = func, item
        self._started = time.monotonic()
        self._child = _start(func, item) if workers() > 1 else None

    def result(self) -> bytes:
        child, self._child = self._child, None
        answer = _collect(child, self._deadline()) if child is not None else None
        return self._func(self._item) if answer is None else answer

    def _deadline(self) -> float:
        # A child cannot hang on a lock another thread held at the fork (it takes none), but if it
        # ever did, the parent would wait forever: past a generous bound it is killed and redone.
        return max(STALL_SECONDS, 10 * (time.monotonic() - self._started))


# The least time a child is given before it is taken for stuck and its work redone here.
STALL_SECONDS = 60.0


def background(func: Callable[[T], bytes], item: T) -> Pending:
    """Start ``func(item)`` in a forked child (or nowhere yet, with one worker); see Pending."""
    return Pending(func, item)


def _start(func: Callable[[T], bytes], item: T) -> tuple[int, int] | None:
    """A child computing func(item) into a pipe: (pid, read end), or None if none could start."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork beside threads (polars keeps a pool): the child runs
            # only Python and single-threaded C code and takes no lock those threads hold.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: answer, then leave at once (no atexit, no inherited buffers flushed)
        code = 1
        try:
            os.close(read)
            data = memoryview(func(item))
            while data:
                data = data[os.write(write, data) :]
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the parent does the work itself
            pass
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(child: tuple[int, int], stall: float) -> bytes | None:
    """The child's answer, or None when it failed or sent nothing for `stall` seconds."""
    pid, read = child
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([read], [], [], stall)
            if not ready:  # stuck: give up on it
                os.kill(pid, signal.SIGKILL)
                chunks = None
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        chunks = None
    finally:
        os.close(read)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # pragma: no cover - reaped elsewhere
        return None
    if chunks is None or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    return b"".join(chunks)
