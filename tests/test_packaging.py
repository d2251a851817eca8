"""Every package of the source tree ships: pyproject lists packages one by one, and a package left
out installs without it (the tests, run from the checkout, would not notice)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("model", "solver", "adapters", "bench")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found - listed == set()
