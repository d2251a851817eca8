"""The garbage collector paused while a large batch is read, built and written."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection for the duration: reading, scheduling and writing allocate
    millions of long-lived objects and make no cycles, so the collector's repeated full passes
    over them are pure cost (a third of a command's time on a large hub)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
