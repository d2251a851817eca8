"""The garbage collector paused while a large batch is read, built and written; what a run of
parts in one process makes once from the objects they share."""

from __future__ import annotations

import gc
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["paused_gc", "recalled", "remember", "reused", "reusing", "trimmed"]

T = TypeVar("T")


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


# What a run of parts in one process makes once and reuses (reusing), by name. None outside such
# a run.
_reusing: dict[Any, Any] | None = None


@contextmanager
def reusing() -> Iterator[None]:
    """Within, what :func:`remember` keeps is :func:`recalled` (adapters.run.parts: the parts a
    process makes one after another all read the same shared objects, which nobody changes);
    outside, nothing is kept."""
    global _reusing
    outer, _reusing = _reusing, {} if _reusing is None else _reusing
    try:
        yield
    finally:
        _reusing = outer


def recalled(name: Hashable) -> Any | None:
    """What was remembered by this name within :func:`reusing`, or None."""
    return None if _reusing is None else _reusing.get(name)


def remember(name: Hashable, value: Any) -> None:
    """Keep the value by its name for the rest of :func:`reusing` (outside it, nothing is kept)."""
    if _reusing is not None:
        _reusing[name] = value


def reused(key: Hashable, objects: Sequence[Any], make: Callable[[], T]) -> T:
    """`make()`, made from `objects`, or the value made earlier within :func:`reusing` for the same
    key and the same objects (by identity, in order). The objects are kept with it, so that no
    other object takes their identities meanwhile."""
    name = (key, tuple(map(id, objects)))
    found = recalled(name)
    if found is None:
        found = (objects, make())
        remember(name, found)
    return found[1]


def trimmed() -> None:
    """Hand the C allocator's free pages back to the system (glibc's malloc_trim; elsewhere
    nothing): after a part's objects are let go, the pages of its large buffers (the parser's,
    lists' and dicts' tables) that free() keeps would otherwise stay with the process while it
    makes the next part (about 100 MB at Fleet 10,000 x 50,000)."""
    import ctypes

    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the process's own symbols, libc's
    except (OSError, TypeError):  # no such handle where the platform has none
        return
    if trim is not None:
        trim(0)
