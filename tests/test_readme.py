"""The README runs: every shell command and Python block in it is executed, and a block followed by
a ```text block prints exactly that text, so the README cannot drift from the code.

Blocks are read in order. A ```bash block holds commands, one a line (a line ending in a backslash
goes on); a command of steps joined by `&&` is split into them. The ```python blocks are executed
in one namespace, in the README's order. A ```text block right after a bash or python block is what
that block prints on standard output, exactly. Everything runs in a fresh directory holding the
checkout's `adapters/` (the README's paths are the checkout's), with this environment's
`placement-solver` first on PATH.

The rule for what is not run (and only this): a step that installs (`python3 -m venv`,
`. .venv/bin/activate`, `pip install`), runs the test suite (`python -m pytest`: this is part of
it), needs a live cluster (`kubectl`, and every later step of its block, which reads what it read
from the cluster or writes to it), or runs the benchmarks (`placement-solver bench`: minutes).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
_SKIPPED = re.compile(
    r"^(python3 -m venv|\. \.venv/bin/activate|pip install|python -m pytest|placement-solver bench)\b"
)
_LIVE = re.compile(r"\bkubectl\b")


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    line: int  # of the opening fence, 1-based
    prints: str | None  # the ```text block right after it


def _blocks(text: str) -> list[Block]:
    found = [
        (m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in re.finditer(r"^```(\w*)\n(.*?)^```[ \t]*$", text, re.S | re.M)
    ]
    out = []
    for i, (language, body, line) in enumerate(found):
        after = found[i + 1] if i + 1 < len(found) else None
        adjacent = after is not None and after[0] == "text" and after[2] == line + body.count("\n") + 2
        if language in ("bash", "python"):
            out.append(Block(language, body, line, after[1] if adjacent else None))
    return out


def _steps(body: str) -> list[str]:
    """The commands of a shell block, continuation lines joined, `&&` chains split."""
    lines = body.replace("\\\n", " ").splitlines()
    return [
        step.strip()
        for line in lines
        if line.strip() and not line.lstrip().startswith("#")
        for step in line.split("&&")
    ]


def _runs(step: str) -> bool:
    return not _SKIPPED.match(step) and not _LIVE.search(step)


def _running(body: str) -> list[tuple[str, bool]]:
    """Each step of a shell block and whether it runs here: from a live step on, none does."""
    out, live = [], False
    for step in _steps(body):
        live = live or bool(_LIVE.search(step))
        out.append((step, _runs(step) and not live))
    return out


SHELL = [b for b in _blocks(README) if b.language == "bash"]
PYTHON = [b for b in _blocks(README) if b.language == "python"]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh working directory where the README's paths (adapters/examples/...) resolve."""
    (tmp_path / "adapters").symlink_to(ROOT / "adapters", target_is_directory=True)
    return tmp_path


def test_the_readme_is_a_short_guide_that_stands_alone() -> None:
    assert len(README.splitlines()) <= 300
    assert not re.search(r"https?://|\]\(/|\.\./", README), "a link leaves the repository"
    for target in re.findall(r"\]\(([^)#]+)", README):
        assert (ROOT / target).is_file(), target


def test_every_subcommand_is_in_the_reference() -> None:
    commands = main.list_commands(None)  # type: ignore[arg-type]
    assert {"solve", "explain", "generate", "simulate", "bench", "demo"} <= set(commands)
    for name in commands:
        assert f"placement-solver {name}" in README, name


def test_the_rule_skips_only_what_cannot_run_here() -> None:
    for block in SHELL:
        steps = _running(block.text)
        for i, (step, runs) in enumerate(steps):
            after_live = any(_LIVE.search(before) for before, _ in steps[:i])
            assert runs or _SKIPPED.match(step) or _LIVE.search(step) or after_live, step
    ran = [s for b in SHELL for s, runs in _running(b.text) if runs]
    assert "placement-solver demo" in ran  # the set-up command's last step runs
    assert len(ran) >= 10


@pytest.mark.parametrize("block", SHELL, ids=[f"line-{b.line}" for b in SHELL])
def test_shell_block(block: Block, checkout: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    printed = []
    for step, runs in _running(block.text):
        if not runs:
            continue
        done = subprocess.run(
            ["bash", "-c", f"set -eo pipefail\n{step}"], cwd=checkout, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (step, done.stderr)
        printed.append(done.stdout)
    if block.prints is not None:
        assert "".join(printed) == block.prints


def test_python_blocks(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(checkout)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in PYTHON:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.text, f"README.md:{block.line}", "exec"), namespace)  # noqa: S102
        if block.prints is not None:
            assert out.getvalue() == block.prints, f"README.md:{block.line}"


def test_the_fleet_example_says_what_it_holds() -> None:
    """Its comment counted five placements when it held six."""
    import yaml

    text = (ROOT / "adapters" / "examples" / "fleet-demo.yaml").read_text(encoding="utf-8")
    kinds = [d["kind"] for d in yaml.safe_load_all(text) if d]
    header = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    numbers = {"five": 5, "six": 6, "seven": 7, "twelve": 12}
    said = re.findall(r"\b(five|six|seven|twelve) (placements|member clusters)", header)
    assert {noun: numbers[word] for word, noun in said} == {
        "placements": kinds.count("ClusterResourcePlacement"),
        "member clusters": kinds.count("MemberCluster"),
    }
    assert "--now 2026-11-21T12:00:00Z" in header
