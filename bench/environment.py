"""What every benchmark report says about where it ran: the machine, the packages that matter, and
the commit measured."""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

__all__ = ["machine", "revision"]

ROOT = Path(__file__).resolve().parent.parent


def machine(packages: Sequence[str] = ("ortools",)) -> str:
    """``Python 3.11.7 on Linux x86_64, 2 CPUs; ortools 9.15.6755.``"""
    versions = ", ".join(f"{name} {version(name)}" for name in packages)
    return (
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {versions}."
    )


def revision() -> str:
    """The commit measured, and the packages with uncommitted changes to tracked files, if any."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD").strip()
    if not commit:
        return ""
    changed = git("status", "--porcelain", "--untracked-files=no", "--", "adapters", "model", "solver")
    dirty = sorted({"/".join(line[3:].split("/")[:2]) for line in changed.splitlines() if line.strip()})
    return f"Measured at {commit}" + (f", with uncommitted changes in {', '.join(dirty)}." if dirty else ".")
