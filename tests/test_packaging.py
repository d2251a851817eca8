"""Every package of the source tree ships: pyproject finds packages by pattern, and a package the
patterns miss installs without it (the tests, run from the checkout, would not notice)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_found_by_pyproject():
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    shipped = set(find_packages(where=str(ROOT), include=include["include"]))
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("model", "solver", "adapters", "bench")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found - shipped == set()
    assert "tests" not in shipped


@pytest.mark.parametrize(
    "made", [".venv/bin/python", "venv/bin/python", "build/lib/x.py", "dist/x.whl", "x.egg-info/PKG-INFO"]
)
def test_what_the_readme_commands_make_is_ignored(made):
    """The README's set-up makes a virtual environment and, with `pip install .`, build output in
    the checkout: `git status` stays clean after it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "check-ignore", "-q", "--no-index", made], cwd=ROOT)
    assert done.returncode == 0, made
