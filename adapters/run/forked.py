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
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = [
    "Pending",
    "Stream",
    "allow",
    "background",
    "beside_next",
    "polars_idle",
    "reap",
    "split_evenly",
    "stream",
    "workers",
    "write_each",
]

T = TypeVar("T")

# Past a few workers the parent's share of the joining and decoding dominates.
MAX_WORKERS = 4
ENVIRONMENT = "PLACEMENT_SOLVER_WORKERS"


# Forking is the command's choice (adapters.cli.main.entry allows it): a library caller's process may
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


def polars_idle() -> bool:
    """Whether polars has not started its compute pool in this process, so that a forked child
    may compute with polars (it starts a pool of its own). Once started, the pool's threads
    (named polars-0, polars-1, ...) are not copied by a fork, and a child's first computation
    would wait for them forever. Known only where the kernel lists a process's threads (Linux);
    elsewhere False."""
    try:
        tasks = os.listdir("/proc/self/task")
        names = [_thread_name(task) for task in tasks] if len(tasks) > 1 else []
    except OSError:
        return False
    return not any(name.startswith("polars-") and name[7:8].isdigit() for name in names)


def _thread_name(task: str) -> str:
    with open(f"/proc/self/task/{task}/comm", encoding="utf-8", errors="replace") as comm:
        return comm.read()


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

    def __init__(self, func: Callable[[T], bytes], item: T, *, later: bool = False) -> None:
        self._func, self._item = func, item
        self._child: tuple[int, int] | None = None
        self._started = time.monotonic()
        self._begun = False
        if later:
            _later.append(self)
        else:
            self.start()

    def start(self) -> None:
        """Start the child now, if it was to start later (:func:`beside_next`) and has not."""
        if self._begun:
            return
        self._unwait()
        self._started = time.monotonic()
        if workers() > 1:
            _fork_later()
            self._child = _start(self._func, self._item)

    def _unwait(self) -> None:
        """Begun: no longer waiting for a fork."""
        self._begun = True
        if self in _later:
            _later.remove(self)

    def result(self) -> bytes:
        chunks: list[bytes] = []
        self.write_to(chunks.append)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def write_to(self, write: Callable[[bytes], object]) -> None:
        """Pass the answer to `write` in pieces as they arrive from the child. Exact whatever the
        child does: if it fails part way, the answer is computed here and only the part not yet
        written is passed on."""
        self._unwait()  # never started: made here
        child, self._child = self._child, None
        whole, done = _relay(child, _stall(self._started), write) if child is not None else (False, 0)
        if not whole:
            answer = self._func(self._item)
            if done < len(answer):
                write(memoryview(answer)[done:] if done else answer)

    def cancel(self) -> None:
        """Stop the child, if any, and forget its answer."""
        self._unwait()
        child, self._child = self._child, None
        _cancel(child)


# Children to start at this process's next fork (beside_next), in order.
_later: list[Pending] = []


def _fork_later() -> None:
    """The children waiting for this process's next fork (beside_next), forked now, in order."""
    while _later:
        waiting = _later.pop(0)
        waiting._begun = True
        waiting._started = time.monotonic()
        waiting._child = _start(waiting._func, waiting._item)


def beside_next(func: Callable[[T], bytes], item: T) -> Pending:
    """``func(item)`` to be made in a forked child started just before this process's next fork
    (another child's), or by :meth:`Pending.start`, whichever comes first; see Pending. A fork
    write-protects every page of a large process, whose next write to each then faults (at OCM
    10,000 x 2,000, about 45,000 faults, a tenth of a CPU second): two forks back to back cost
    one round of them."""
    return Pending(func, item, later=True)


# The least time a child is given before it is taken for stuck and its work redone here.
STALL_SECONDS = 60.0


def _stall(started: float, patience: float = 0.0) -> float:
    """How long a child started at `started` may send nothing. It cannot hang on a lock another
    thread held at the fork (it takes none), but if it ever did, the parent would wait forever:
    past a generous bound it is killed and its work redone."""
    return max(STALL_SECONDS + patience, 10 * (time.monotonic() - started))


def _cancel(child: tuple[int, int] | None) -> None:
    if child is not None:
        os.close(child[1])
        _stop(child[0])


def background(func: Callable[[T], bytes], item: T) -> Pending:
    """Start ``func(item)`` in a forked child (or nowhere yet, with one worker); see Pending."""
    return Pending(func, item)


class Stream:
    """``func(item)``'s messages (an iterable of bytes) made in a forked child, to be taken in
    order as they arrive: iterating gives them as the child sends them. Exact whatever the child
    does: if it fails part way, ``func(item)`` is run here and the messages not yet given are
    given from that. `func` must be pure (the same messages every time)."""

    def __init__(self, func: Callable[[T], Iterable[bytes]], item: T, patience: float = 0.0) -> None:
        self._func, self._item, self._patience = func, item, patience
        self._started = time.monotonic()
        self._child = None
        if workers() > 1:
            _fork_later()
            self._child = _start(func, item, framed=True)

    def __iter__(self) -> Iterator[bytes]:
        child, self._child = self._child, None
        given = 0
        if child is not None:
            messages = _received(child, _stall(self._started, self._patience))
            try:
                for message in messages:
                    yield message
                    given += 1
                return
            except _Broken:
                pass
            finally:
                messages.close()  # taken no further (a failure here, or the caller stopped): stopped
        for index, message in enumerate(self._func(self._item)):
            if index >= given:
                yield message

    def cancel(self) -> None:
        """Stop the child, if any, and forget its messages."""
        child, self._child = self._child, None
        _cancel(child)


def stream(func: Callable[[T], Iterable[bytes]], item: T, patience: float = 0.0) -> Stream:
    """Start making ``func(item)``'s messages in a forked child (or nowhere yet, with one
    worker); see Stream. A child silent for longer than STALL_SECONDS plus `patience` (a search
    it may run that long without a word), or ten times as long as it had run when first asked,
    is taken for stuck: stopped, and its work redone here."""
    return Stream(func, item, patience)


def _start(func: Callable[[T], Any], item: T, *, framed: bool = False) -> tuple[int, int] | None:
    """A child computing func(item) into a pipe: (pid, read end), or None if none could start.
    The answer goes as its length and its bytes; `framed`, func's messages go so, each in turn,
    and then _END."""
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
            if framed:
                for message in func(item):
                    _send(write, message)
                _send_all(write, _END)
            else:
                _send(write, func(item))
            os.close(write)
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the parent does the work itself
            pass
        finally:
            os._exit(code)
    os.close(write)
    _reap_finished()
    return pid, read


def _send(fd: int, message: bytes) -> None:
    # Its length first: the parent knows a message whole when it has that many bytes, and the
    # answer whole without waiting for this process's exit (tearing down a large heap takes a while).
    _send_all(fd, len(message).to_bytes(_HEADER, "little"))
    _send_all(fd, message)


def _send_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_HEADER = 8  # bytes of an answer's length, before the answer
_END = b"\xff" * _HEADER  # after a stream's last message: no message is that long
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


def reap() -> None:
    """Wait for every child that sent its whole answer: each is exiting, so this is quick, and a
    command that exits after it leaves no child unwaited for, whose seconds no measure of the
    command (its rusage, `time`) would count."""
    for pid in _exiting:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    _exiting.clear()


def _relay(child: tuple[int, int], stall: float, write: Callable[[bytes], object]) -> tuple[bool, int]:
    """Pass the child's answer to `write` as it arrives: whether it came whole (else the child
    failed, or sent nothing for `stall` seconds, and is stopped), and how many bytes were written.
    A child that sent its whole answer is not waited for (see _reap_finished)."""
    pid, read = child
    written = 0
    try:
        size = int.from_bytes(_read_exactly(read, _HEADER, stall), "little")
        for chunk in _arriving(read, size, stall):
            write(chunk)
            written += len(chunk)
    except _Broken:
        _stop(pid)
        return False, written
    except BaseException:  # `write` failed (a reader gone): the child's answer is of no use now
        _stop(pid)
        raise
    finally:
        os.close(read)
    _exiting.append(pid)
    return True, written


def _stop(pid: int) -> None:
    """Kill a child and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


_PIPE_READ = 1 << 20


class _Broken(Exception):
    """A child's stream ended before its end mark, or stalled."""


def _received(child: tuple[int, int], stall: float) -> Iterator[bytes]:
    """The messages of a framed child as they arrive; _Broken if it fails or stalls first. The
    child is reaped later once its stream is whole, else stopped (also when the caller stops)."""
    pid, read = child
    whole = False
    try:
        while True:
            size = int.from_bytes(_read_exactly(read, _HEADER, stall), "little")
            if size == _END_SIZE:
                whole = True
                return
            yield _read_exactly(read, size, stall)
    finally:
        os.close(read)
        if whole:
            _exiting.append(pid)
        else:
            _stop(pid)


_END_SIZE = int.from_bytes(_END, "little")


def _read_exactly(read: int, size: int, stall: float) -> bytes:
    chunks = list(_arriving(read, size, stall))
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _arriving(read: int, size: int, stall: float) -> Iterator[bytes]:
    """The next `size` bytes from a child's pipe, as they arrive; _Broken if it ends first, or
    sends nothing for `stall` seconds."""
    left = size
    try:
        while left:
            ready, _, _ = select.select([read], [], [], stall)
            if not ready:
                raise _Broken
            chunk = os.read(read, min(_PIPE_READ, left))
            if not chunk:
                raise _Broken
            left -= len(chunk)
            yield chunk
    except OSError:
        raise _Broken from None
