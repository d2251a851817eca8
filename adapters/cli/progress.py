"""Live progress on a terminal: a solve that runs longer than a second shows its objective, bound,
gap and elapsed time on standard error (never standard output), one line rewritten in place."""

from __future__ import annotations

import sys
from typing import TextIO

from solver.progress import Progress

__all__ = ["TerminalProgress"]

_CLEAR = "\r\033[K"


class TerminalProgress:
    """A solver.progress.Report that draws on `stream` when it is a terminal, after `after`
    seconds, at most every `every` seconds, and leaves the final line standing."""

    def __init__(self, stream: TextIO | None = None, *, after: float = 1.0, every: float = 0.1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.after = after
        self.every = every
        self.shown = False
        self._last = -1.0

    def draws(self) -> bool:
        """Whether it shows anything at all: only on a terminal."""
        return _is_terminal(self.stream)

    def __call__(self, progress: Progress) -> None:
        if not _is_terminal(self.stream):
            return
        final = progress.phase == "done"
        if progress.elapsed < self.after and not self.shown:
            return
        if not final and progress.elapsed - self._last < self.every:
            return
        self._last = progress.elapsed
        self.stream.write(_CLEAR + render(progress) + ("\n" if final else ""))
        self.stream.flush()
        self.shown = not final


def render(progress: Progress) -> str:
    parts = [f"{progress.phase}"]
    if progress.phase == "balance":
        parts.append(f"sweep {progress.done + 1}")
    elif progress.phase != "done":
        parts.append(f"{progress.done}/{progress.total} placements")
    if progress.objective is not None:
        parts.append(f"objective {progress.objective:.6g}")
    if progress.bound is not None:
        gap = (progress.bound - (progress.objective or 0)) / max(1, abs(progress.objective or 0))
        parts.append(f"bound {progress.bound:.6g}, gap {gap:.3g}")
    if progress.time_limited:
        parts.append("cut by --time-limit")
    parts.append(f"{progress.elapsed:.1f} s")
    return ", ".join(parts)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
