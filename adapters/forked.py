"""Work spread over the machine's cores by fork, for the command's pure steps on large inputs.

Reading and writing a large hub's text (tens of MB) is pure Python or single-threaded C++ work on
data the process already holds. A forked child sees that data as it is (copy on write), does its
share, and sends back only bytes; nothing is pickled, nothing is imported anew. Exact or nothing:
a child that fails, for any reason, is redone by the parent, so the answer is the same bytes as
the sequential one, only sooner. Where fork is missing, or ``PLACEMENT_SOLVER_WORKERS=1``, or
in a library caller's process that did not :func:`allow` it, everything runs in that process.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

__all__ = ["Pending", "allow", "background", "split_evenly", "workers", "write_each"]

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


def write_each(
    chunks: Callable[[T], Iterable[bytes]], items: Sequence[T], write: Callable[[bytes], object]
) -> None:
    """``for item in items: for chunk in chunks(item): write(chunk)``: the first item's chunks made
    here and written as they come (so no item's whole text is ever held here), each other item's
    made at the same time in a forked child and passed through to `write` once the first is done.
    `chunks` must be pure; their joined bytes are what is written, whatever a child does."""
    pending = [background(_joined(chunks), item) for item in items[1:]]
    for item in items[:1]:
        for chunk in chunks(item):
            write(chunk)
    for each in pending:
        each.write_to(write)


def _joined(chunks: Callable[[T], Iterable[bytes]]) -> Callable[[T], bytes]:
    return lambda item: b"".join(chunks(item))


class Pending:
    """``func(item)`` under way in a forked child; :meth:`result` waits for it (or, when the child
    failed or could not start, computes it here), :meth:`write_to` passes it on as it comes."""

    def __init__(self, func: Callable[[T], bytes], item: T) -> None:
        self._func, self._item = func, item
        self._started = time.monotonic()
        self._child = _start(func, item) if workers() > 1 else None

    def result(self) -> bytes:
        chunks: list[bytes] = []
        self.write_to(chunks.append)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def write_to(self, write: Callable[[bytes], object]) -> None:
        """Pass the answer to `write` in pieces as they arrive from the child. Exact whatever the
        child does: if it fails part way, the answer is computed here and only the part not yet
        written is passed on."""
        child, self._child = self._child, None
        whole, done = _relay(child, self._deadline(), write) if child is not None else (False, 0)
        if not whole:
            answer = self._func(self._item)
            if done < len(answer):
                write(memoryview(answer)[done:] if done else answer)

    def cancel(self) -> None:
        """Stop the child, if any, and forget its answer."""
        child, self._child = self._child, None
        if child is not None:
            pid, read = child
            os.close(read)
            _stop(pid)

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
            answer = func(item)
            # Its length first: the parent knows the answer whole when it has that many bytes,
            # without waiting for this process's exit (tearing down a large heap takes a while).
            for data in (memoryview(len(answer).to_bytes(_HEADER, "little")), memoryview(answer)):
                while data:
                    data = data[os.write(write, data) :]
            os.close(write)
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the parent does the work itself
            pass
        finally:
            os._exit(code)
    os.close(write)
    _reap_finished()
    return pid, read


_HEADER = 8  # bytes of an answer's length, before the answer
# Children that sent their whole answer and may still be exiting: reaped when next convenient.
_exiting: list[int] = []


def _reap_finished() -> None:
    """Reap the children that sent their answer and have exited since (none is waited for)."""
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # pragma: no cover - reaped elsewhere
            done = pid
        if done:
            _exiting.remove(pid)


def _relay(child: tuple[int, int], stall: float, write: Callable[[bytes], object]) -> tuple[bool, int]:
    """Pass the child's answer to `write` as it arrives: whether it came whole (else the child
    failed, or sent nothing for `stall` seconds, and is stopped), and how many bytes were written.
    A child that sent its whole answer is not waited for (see _reap_finished)."""
    pid, read = child
    header, size, written = b"", None, 0
    try:
        while size is None or written < size:
            ready, _, _ = select.select([read], [], [], stall)
            if not ready:  # stuck: give up on it
                break
            chunk = os.read(read, _PIPE_READ if size is None else min(_PIPE_READ, size - written))
            if not chunk:  # it ended before its answer did: it failed
                break
            if size is None:
                header += chunk
                if len(header) < _HEADER:
                    continue
                size, chunk = int.from_bytes(header[:_HEADER], "little"), header[_HEADER:]
            if chunk:
                write(chunk)
                written += len(chunk)
    except OSError:
        pass
    finally:
        os.close(read)
    if size is not None and written == size:
        _exiting.append(pid)
        return True, written
    _stop(pid)
    return False, written


def _stop(pid: int) -> None:
    """Kill a child and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


_PIPE_READ = 1 << 20
