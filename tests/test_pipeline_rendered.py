"""The command's output made while the checker's forked child judges a large input
(adapters.run.pipeline.schedule_rendered, _judged_beside): the same bytes as the output made
once the verdict passed (one process), written only after it; on a rejected result or bad
metadata nothing is written and the error is the ordinary one."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.generate.hubs import generate
from adapters.kube import manifests
from adapters.run import forked, pipeline
from tests.fixtures.common import NOW, run_cli, solve_args, write_yaml


@pytest.fixture
def ocm_file(tmp_path) -> Path:
    return write_yaml(tmp_path / "ocm.yaml", generate("ocm", 30, 40, seed=3, now=NOW))


def beside(monkeypatch, workers: str = "2") -> list[str]:
    """The checker's child judges even a small input beside emit (with 2 workers), the YAML
    writer forks at once; the order in which the output is made and the verdict awaited."""
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    monkeypatch.setattr(pipeline, "_JUDGE_BESIDE", 0)
    monkeypatch.setattr(manifests, "_SPLIT_WRITE", 1)
    steps: list[str] = []
    for name in ("_held", "_judgement"):
        step = getattr(pipeline, name)

        def spy(*args, _step=step, _name=name):
            steps.append(_name)
            return _step(*args)

        monkeypatch.setattr(pipeline, name, spy)
    return steps


@pytest.mark.parametrize("output", ["yaml", "json", "table", "diff"])
@pytest.mark.parametrize("mode", ["optimal", "greedy"])
def test_the_output_made_before_the_verdict_is_the_ordinary_output(ocm_file, monkeypatch, mode, output):
    args = solve_args([ocm_file], mode, output)
    with monkeypatch.context() as patched:
        steps = beside(patched)
        made = run_cli(args)
    assert steps == ["_held", "_judgement"]
    with monkeypatch.context() as patched:
        patched.setenv(forked.ENVIRONMENT, "1")
        ordinary = run_cli(args)
    assert made.exit_code == ordinary.exit_code == 0, (made.exception, ordinary.exception)
    assert made.stdout_bytes == ordinary.stdout_bytes and len(made.stdout_bytes) > 1000
    assert made.stderr == ordinary.stderr


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_a_rejected_result_made_before_the_verdict_is_never_written(ocm_file, monkeypatch, output):
    steps = beside(monkeypatch)
    monkeypatch.setattr(pipeline, "_problems", lambda solved: b"a planted problem")
    result = run_cli(solve_args([ocm_file], "optimal", output))
    assert steps == ["_held", "_judgement"]  # made, then refused
    assert isinstance(result.exception, AssertionError)
    assert "the checker rejected the ocm result:\na planted problem" in str(result.exception)
    assert result.stdout == ""


def test_bad_metadata_only_the_verdict_finds_writes_nothing(tmp_path, monkeypatch):
    """A finalizer the API server refuses, which OCM's loader does not read: the child's verdict
    finds it after the output is made; exit 2, its one line, nothing written, as in one process."""
    objects = generate("ocm", 30, 40, seed=3, now=NOW)
    objects[-1]["metadata"]["finalizers"] = ["bad finalizer!"]
    path = write_yaml(tmp_path / "bad.yaml", objects)
    with monkeypatch.context() as patched:
        steps = beside(patched)
        made = run_cli(solve_args([path], "optimal", "yaml"))
    assert steps == ["_held", "_judgement"]
    with monkeypatch.context() as patched:
        patched.setenv(forked.ENVIRONMENT, "1")
        ordinary = run_cli(solve_args([path], "optimal", "yaml"))
    assert made.exit_code == ordinary.exit_code == 2
    assert made.stdout == ordinary.stdout == ""
    assert made.stderr == ordinary.stderr and "bad finalizer!" in made.stderr
