"""What every command shares: the flags' parsers, and `guard`, which runs a command and turns its
InputError into exit status 2 with one line, in one place. Commands other packages and systems add
(the benchmarks' `bench`, kcp's `simulate`) use these too."""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

import click

from adapters.errors import InputError
from adapters.kube.fields import rfc3339
from adapters.kube.manifests import Manifest, Reading

__all__ = [
    "MODES",
    "TIME_LIMIT",
    "Output",
    "count_option",
    "guard",
    "list_option",
    "note",
    "parse_now",
    "read_all",
    "write_file",
]


class _Seconds(click.FloatRange):
    """A positive number of seconds (inf: no wall limit). NaN compares false with every bound, so
    FloatRange alone lets it through, and a NaN limit quietly cut every search."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return seconds


TIME_LIMIT = _Seconds(min=0, min_open=True)


TIME_LIMIT = _Seconds(min=0, min_open=True)
MODES = ("optimal", "greedy")  # solver.MODES (a test holds them equal), spelt here to start light


def parse_now(value: str | None) -> datetime | None:
    """`--now`: an RFC 3339 time, as Kubernetes reads the times in objects (fields.rfc3339)."""
    if value is None:
        return None
    moment = rfc3339(value)
    if moment is None:
        raise InputError(
            f"not an RFC 3339 time: {value!r} (a date, T, a time, then Z or an offset: 2026-11-21T12:00:00Z)",
            field="--now",
        )
    return moment


# What a command prints: text, or a writer that passes the output to its argument in pieces (a
# large hub's output is tens of MB, never held whole); either way only once the work succeeded.
Writer = Callable[[Callable[[bytes], object]], None]
Output = str | bytes | Writer


# Remarks for the person running the command, said on standard error (never part of the output)
# once the command has succeeded (guard).
_notes: list[str] = []


def note(text: str) -> None:
    _notes.append(text)


def guard(action: Callable[[], Output]) -> None:
    """Run, and print only when everything succeeded: nothing is written on error, and the error
    is the one line on standard error (the notes the run made are said only when it succeeds)."""
    _notes.clear()
    try:
        text = action()
    except InputError as err:
        _notes.clear()
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    for note in _notes:
        click.echo(f"note: {note}", err=True)
    _notes.clear()
    if isinstance(text, str):
        sys.stdout.write(text)
        return
    binary = getattr(sys.stdout, "buffer", None)
    if binary is None:  # a text-only stream (tests capture so)
        pieces: list[bytes] = []
        _write_output(text, pieces.append)
        sys.stdout.write(b"".join(pieces).decode("utf-8"))
        return
    sys.stdout.flush()
    with contextlib.suppress(BrokenPipeError):  # the reader went away (| head): it took all it wanted
        _write_output(text, binary.write)
        binary.flush()


def _write_output(output: bytes | Writer, write: Callable[[bytes], object]) -> None:
    if isinstance(output, bytes):
        write(output)
    else:
        output(write)


def count_option(value: str | None, flag: str) -> int:
    """A required non-negative integer flag; InputError (exit 2, one line) otherwise."""
    if value is None:
        raise InputError("required", field=flag)
    text = value.strip()
    if not text.isdigit():
        raise InputError(f"not a non-negative integer: {value!r}", field=flag)
    return int(text)


def list_option(value: str, flag: str) -> list[str]:
    """A comma-separated flag's non-empty items; InputError (exit 2, one line) when it has none."""
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError("empty list", field=flag)
    return list(dict.fromkeys(items))


def write_file(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", where=path) from None


def read_all(reading: Reading) -> list[Manifest]:
    """The manifests of the sources, and a note for what a directory held that was left out."""
    manifests = reading.manifests()
    _notes.extend(reading.notes)
    return manifests
