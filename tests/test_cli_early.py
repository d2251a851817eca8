"""The console script's input read and its parsing begun before the command line's imports
(adapters.cli.early): the same output, errors and exit status, the work begun only where the
command takes it, and the runs the children parse cut where the document starts allow."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.cli import early
from adapters.cli.main import DEMO_NOW
from adapters.kube import codec, manifests
from adapters.run import forked

EXAMPLES = Path(__file__).resolve().parent.parent / "adapters" / "examples"
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("words", "file"),
    [
        (["solve", "-f", "a.yaml"], "a.yaml"),
        (["solve", "-q", "--filename", "a.yaml", "-o", "plan", "--now", "2026-11-24T03:00:00Z"], "a.yaml"),
        (["solve", "--filename=a.yaml", "--mode=greedy", "--config", "c.yaml", "--quiet"], "a.yaml"),
        (["solve", "--time-limit", "3", "--seed", "1", "-f", "-o"], "-o"),  # click reads it so too
        (["solve", "-f", "-"], None),  # standard input: read where the command reads it
        (["solve", "-f", "a.yaml", "-f", "b.yaml"], None),
        (["solve", "-fa.yaml"], None),  # a word it does not know
        (["solve", "-qf", "a.yaml"], None),
        (["solve", "-f", "a.yaml", "--help"], None),
        (["solve", "-f", "a.yaml", "stray"], None),
        (["solve", "-f"], None),
        (["solve", "--quiet=yes", "-f", "a.yaml"], None),
        (["explain", "-f", "a.yaml", "fleet/x"], None),
        (["--version"], None),
        ([], None),
    ],
)
def test_the_one_file_solve_reads_from_its_words(words, file) -> None:
    assert early.one_file(words) == file


def _texts() -> list[str]:
    """Streams cut and not: generated documents of uneven length, with and without a first
    document before any marker, comments, directives, markers inside scalars."""
    rng = random.Random(20)
    texts = []
    for _ in range(200):
        documents = []
        for _ in range(rng.randrange(0, 40)):
            lines = [f"k{j}: {'v' * rng.randrange(0, 300)}" for j in range(rng.randrange(0, 60))]
            documents.append("\n".join(lines) + "\n")
        head = rng.choice(["", "# a comment\n", "a: 1\n", "%YAML 1.1\n", "\n"])
        marker = rng.choice(["---\n", "--- \n", "---\t\n", "--- # c\n", "----\n"])
        text = head + "".join(marker + d for d in documents)
        if rng.random() < 0.2:
            text += rng.choice(["---", "x: |\n  ---\n", "\n%TAG ! x\n---\n", "y: '\n---\n'\n"])
        texts.append(text)
    return texts


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_runs_of_lines_cut_only_where_document_starts_cut(parts, monkeypatch) -> None:
    monkeypatch.setattr(codec, "_COUNTED", 97)  # many blocks in small texts
    for text in _texts():
        starts = codec.document_starts(text)
        runs = codec.runs_of_lines(text, parts)
        assert (runs is None) == (starts is None), text[:80]
        if runs is None:
            continue
        assert "".join(runs) == text
        assert 1 <= len(runs) <= parts and all(runs)
        cuts = [sum(map(len, runs[:i])) for i in range(1, len(runs))]
        assert set(cuts) <= set(starts), text[:80]


def test_runs_of_lines_are_about_equal_in_lines() -> None:
    text = "".join(f"---\nname: n{i}\n" + "x: y\n" * (i % 7) for i in range(3000))
    runs = codec.runs_of_lines(text, 2)
    lines = [run.count("\n") for run in runs]
    assert len(runs) == 2 and abs(lines[0] - lines[1]) < 0.02 * sum(lines)


def _command(
    argv0: str, args: list[str], *, split_read: int = 1, check: str = ""
) -> subprocess.CompletedProcess:
    """The console script's process (its name `argv0`), the children's reading from `split_read`
    characters on; `check` runs once adapters.cli (and with it the early start) is imported."""
    code = (
        "import sys; sys.argv[0] = sys.argv[1]; del sys.argv[1]\n"
        "import adapters.kube.manifests as m\n"
        f"m._SPLIT_READ = {split_read}\n"
        "import adapters.cli\n"
        f"{check}\n"
        "from adapters.cli.main import entry\n"
        "entry()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(forked.ENVIRONMENT, None)
    return subprocess.run(
        [sys.executable, "-c", code, argv0, *args], capture_output=True, env=env, timeout=120, check=False
    )


BEGUN = (
    "import gc; assert not gc.isenabled()  # the children forked without the collector, as entry runs\n"
    "b = m._begun[sys.argv[sys.argv.index('-f') + 1]]\n"
    "assert b[2] is not None and b[2].yaml_runs, b\n"
    "assert not {'click', 'polars', 'ortools', 'numpy', 'adapters.registry'} & set(sys.modules)\n"
)


@pytest.mark.parametrize("output", ["yaml", "plan", "table"])
def test_the_console_script_parses_before_its_imports_to_the_same_output(output) -> None:
    args = ["solve", "-q", "-f", str(EXAMPLES / "fleet-demo.yaml"), "--now", DEMO_NOW, "-o", output]
    begun = _command("/some/bin/placement-solver", args, check=BEGUN)
    assert begun.returncode == 0, begun.stderr
    as_ever = _command("python", args, check="assert not m._begun")
    assert as_ever.returncode == 0, as_ever.stderr
    if output == "plan":  # it says how long the run took
        keep = [line for line in begun.stdout.splitlines() if b"_seconds" not in line]
        assert keep == [line for line in as_ever.stdout.splitlines() if b"_seconds" not in line]
    else:
        assert begun.stdout == as_ever.stdout
    assert begun.stderr == as_ever.stderr


@pytest.mark.parametrize(
    ("text", "more"),
    [
        ("---\nkind: [unclosed\n", []),  # bad YAML: the children refuse, PyYAML words it
        (None, []),  # a missing file
        ("", ["--now", "bogus"]),  # the command fails before it reads: the children stopped
        ("", ["--config", "/no/such/config.yaml"]),
        ("", ["--mode", "bogus"]),  # click refuses it
    ],
)
def test_the_console_script_fails_as_ever_with_its_input_begun(tmp_path, text, more) -> None:
    path = tmp_path / "hub.yaml"
    if text is not None:
        path.write_bytes((EXAMPLES / "fleet-demo.yaml").read_bytes() + text.encode())
    args = ["solve", "-q", "-f", str(path), "--now", DEMO_NOW, *more]
    check = BEGUN if text is not None else "assert not m._begun"
    begun = _command("placement-solver", args, check=check)
    as_ever = _command("python", args)
    assert begun.returncode == as_ever.returncode == 2
    assert begun.stdout == as_ever.stdout == b""
    assert begun.stderr == as_ever.stderr.replace(b"python", b"placement-solver")  # click names the program
    if not more or more[0] != "--mode":
        assert begun.stderr.count(b"\n") == 1


def test_work_begun_that_no_command_took_is_stopped(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    path = tmp_path / "hub.yaml"
    path.write_bytes((EXAMPLES / "fleet-demo.yaml").read_bytes())
    manifests.begin_file(str(path))
    runs = manifests._begun[str(path)][2].yaml_runs
    children = [run._child[0] for run in runs]
    manifests.forget_begun()
    assert not manifests._begun
    for pid in children:  # killed and reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_begun_file_is_taken_by_its_reading_once(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    path = tmp_path / "hub.yaml"
    path.write_bytes((EXAMPLES / "fleet-demo.yaml").read_bytes())
    expected = manifests.read_sources([str(path)])
    manifests.begin_file(str(path))
    path.write_bytes(b"")  # read as the command began: the bytes then are the input
    taken = manifests.read_sources([str(path)])
    assert not manifests._begun
    assert [m.obj for m in taken] == [m.obj for m in expected]
    assert manifests.read_sources([str(path)]) == []  # read again: as it is now


def test_the_early_start_knows_every_option_of_solve_as_click_reads_it() -> None:
    """early.one_file's option names are solve's own (adapters.cli.main): an option added to solve
    and not here would quietly lose the early start, and one here that solve lost would begin
    work for a command click refuses."""
    from adapters.cli.main import solve

    valued = {o for p in solve.params if not p.is_flag for o in p.opts}
    flags = {o for p in solve.params if p.is_flag for o in p.opts}
    assert valued == early._VALUED
    assert flags == early._FLAGS
    assert valued >= early._FILE
