"""What every benchmark report says about where it ran: the machine, the packages that matter, and
the commit measured."""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

__all__ = ["commit", "machine", "revision"]

ROOT = Path(__file__).resolve().parent.parent


def machine(packages: Sequence[str] = ("ortools",)) -> str:
    """``Python 3.11.7 on Linux x86_64, 2 CPUs; ortools 9.15.6755.``"""
    versions = ", ".join(f"{name} {version(name)}" for name in packages)
    return (
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {versions}."
    )


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def _changed_packages() -> list[str]:
    """The packages with uncommitted changes to tracked files."""
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", "adapters", "model", "solver")
    return sorted({"/".join(line[3:].split("/")[:2]) for line in changed.splitlines() if line.strip()})


def commit() -> str:
    """The commit measured, short (``510bdb1``; ``510bdb1+dirty`` with uncommitted changes in the
    packages measured), or the installed version where this is no git checkout
    (``placement-solver 0.1.0``)."""
    short = _git("rev-parse", "--short", "HEAD").strip()
    if not short:
        return f"placement-solver {version('placement-solver')}"
    return short + ("+dirty" if _changed_packages() else "")


def revision() -> str:
    """The commit measured, and the packages with uncommitted changes to tracked files, if any."""
    short = _git("rev-parse", "--short", "HEAD").strip()
    if not short:
        return ""
    dirty = _changed_packages()
    return f"Measured at {short}" + (f", with uncommitted changes in {', '.join(dirty)}." if dirty else ".")
