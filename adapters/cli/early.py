"""The console script's `solve` of one large file: its reading and parsing begun before the
command line's own imports (click, the registry, then the scheduler: a third of a second and
more on one core), so that forked children parse the input on the idle core while this process
imports. Exact or nothing: the file is read once, as the command would read it, and the command
takes what was begun only where it reads that very name (adapters.kube.manifests.begin_file);
anything else (a file that cannot be read, a command that fails first) is as it ever was, and
work no command took is stopped at the end (entry). The children are forked before polars or
ortools exist in this process: no thread of theirs is there to lose.

Light on purpose: this module is imported first (adapters.cli's package note), and imports only
what the children use (manifests: the codecs, forked) and only when it acts."""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Sequence

__all__ = ["FILE_PARTS", "SCRIPT", "begin", "one_file"]

# The console script's name (pyproject.toml's [project.scripts]): only its own process begins
# early. A test or a library caller importing the command line is left alone.
SCRIPT = "placement-solver"

# A file this large is read in its parts, each by the process that schedules it (adapters.cli.
# main._large_file_in_parts): not read whole here.
FILE_PARTS = 64 << 20

# solve's options that take a value, and its flags (adapters.cli.main.solve); any other word
# (--help, -qf, a stray argument) and nothing is begun: click then says what it says.
_VALUED = frozenset(
    ("-f", "--filename", "--mode", "--now", "--seed", "--time-limit", "--config", "-o", "--output")
)
_FLAGS = frozenset(("-q", "--quiet"))
_FILE = frozenset(("-f", "--filename"))


def begin() -> None:
    """Begin reading the input of this process's command, where it is the console script's
    `solve` of one regular file too small to be read in parts."""
    if os.path.basename(sys.argv[0]) != SCRIPT:
        return
    path = one_file(sys.argv[1:])
    if path is None:
        return
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return
    if not stat.S_ISREG(found.st_mode) or found.st_size >= FILE_PARTS:
        return
    from adapters.kube import manifests
    from adapters.run import forked

    # As entry does: this process is the command's own, and makes no cycles. Its children are
    # forked now, before entry runs: with the collector on, its passes over the documents they
    # build took 0.08 CPU s of each child's 0.36 to 0.43 at 10,000 x 2,000.
    forked.allow()
    gc.disable()
    manifests.begin_file(path)  # a small file only read: its parsing is this process's


def one_file(args: Sequence[str]) -> str | None:
    """The one file `solve` reads, from the command's words after the script's name; None where
    they are not `solve` with exactly one -f/--filename that is not standard input, and options
    of solve's alone. Conservative: a word it does not know begins nothing."""
    if not args or args[0] != "solve":
        return None
    files: list[str] = []
    words = iter(args[1:])
    for word in words:
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if name in _FLAGS and not equals:
            continue
        if name not in _VALUED:
            return None
        if not equals:
            value = next(words, None)
            if value is None:
                return None
        if name in _FILE:
            files.append(value)
    if len(files) != 1 or files[0] == "-":
        return None
    return files[0]
