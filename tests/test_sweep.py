"""Sweeps without Dask: the plan file, the local engine's retry, the command's flags, and the
one line a user without the dask extra gets (tests/test_sweep_dask.py runs the Dask engine)."""

from __future__ import annotations

import io
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import bench
from adapters.errors import InputError
from bench import sweeps
from bench.case import Case, CaseFailed
from bench.cluster import DASK_MISSING
from bench.plan import EVENT_NAMES, SweepSpec, read_plan
from bench.suite import COLUMNS, DEFAULT_SIZES, PROFILES, measure, run_case
from tests.fixtures.fleet import run_cli

ROOT = Path(__file__).resolve().parent.parent

PLAN = """\
systems: [fleet, ocm]
sizes: [100x50, 60X30, 100x50]
seeds: [2, 0]
modes: [optimal]
events: [cluster-removed]
time-limit: 5
"""


def test_a_plan_file_is_a_sweep_of_every_system_size_seed_and_mode(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(PLAN)
    spec = read_plan(path)
    assert spec == SweepSpec(
        ("fleet", "ocm"), ((100, 50), (60, 30)), (2, 0), ("optimal",), ("cluster-removed",), 5.0
    )
    labels = [case.label() for case in spec.cases()]
    assert labels[:3] == [
        "fleet 100x50 optimal seed 2",
        "fleet 100x50 optimal seed 0",
        "fleet 60x30 optimal seed 2",
    ]
    assert len(labels) == 8 and labels[-1] == "ocm 60x30 optimal seed 0"
    assert spec.cases()[0] == Case("fleet", 100, 50, "optimal", 2, 5.0, ("cluster-removed",))
    (tmp_path / "again.yaml").write_text(spec.text())
    assert read_plan(tmp_path / "again.yaml") == spec


def test_an_empty_plan_is_the_default_sweep(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("# everything by default\n")
    spec = read_plan(path)
    assert spec.systems == tuple(sorted(PROFILES)) and spec.sizes == DEFAULT_SIZES
    assert (spec.seeds, spec.modes, spec.events) == ((0,), ("greedy", "optimal"), True)
    assert "events: all" in spec.text() and "events: none" in SweepSpec(events=False).text()


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("systems: [fleet, nosuch]", "systems"),
        ("systems: fleet", "systems"),
        ("sizes: [100x50, 100]", "sizes[1]"),
        ("sizes: ['100x50,200x50']", "sizes[0]"),
        ("sizes: [0x10]", "sizes[0]"),
        ("seeds: [1, -1]", "seeds[1]"),
        ("seeds: [true]", "seeds[0]"),
        ("seeds: []", "seeds"),
        ("modes: [fastest]", "modes"),
        ("events: [cluster-removed, meteor]", "events"),
        ("events: some", "events"),
        ("time-limit: 0", "time-limit"),
        ("time-limit: .inf", "time-limit"),
        ("time-limit: '60'", "time-limit"),
        ("timeLimit: 60", "timeLimit"),
    ],
)
def test_a_bad_plan_names_the_file_and_the_field(tmp_path, text, field):
    path = tmp_path / "sweep.yaml"
    path.write_text(text + "\n")
    with pytest.raises(InputError) as caught:
        read_plan(path)
    assert str(caught.value).startswith(f"{path}: {field}: "), str(caught.value)


def test_a_plan_that_is_not_a_mapping_or_not_yaml(tmp_path):
    for text, says in (("- fleet\n", "a plan is a mapping"), ("systems: [fleet\n", "not YAML")):
        path = tmp_path / "sweep.yaml"
        path.write_text(text)
        with pytest.raises(InputError, match=says):
            read_plan(path)
    with pytest.raises(InputError, match="cannot read"):
        read_plan(tmp_path / "missing.yaml")


def test_the_events_a_plan_names_are_the_only_ones_run():
    """`events` narrows the churn experiment: the other events' columns stay empty."""
    assert set(EVENT_NAMES) == {e for p in PROFILES.values() for e in p.events}
    row = run_case("fleet", 30, 20, "greedy", seed=0, events=("cluster-removed",))
    assert row["churn_cluster_removed"] is not None and "churn_policy_changed" not in row
    assert "churn_cluster_removed" not in run_case("fleet", 30, 20, "greedy", seed=0, events=False)


def _measure_into(queue: Any) -> None:
    try:
        queue.put(measure("fleet", 30, 20, "greedy", seed=0, events=False)["status"])
    except Exception as err:  # noqa: BLE001 (the test reads it)
        queue.put(repr(err))


def test_a_case_runs_from_a_daemonic_process_as_a_dask_workers_are():
    """A Dask worker's process is a daemon, which may not start multiprocessing children: a case
    is a subprocess (it was a spawned multiprocessing child, which failed there)."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    daemon = context.Process(target=_measure_into, args=(queue,), daemon=True)
    daemon.start()
    try:
        assert queue.get(timeout=120) == "GREEDY"
    finally:
        daemon.join(timeout=10)


# -------------------------------------------------------------------------------- the local engine

SMALL = SweepSpec(("fleet",), ((30, 20),), (0, 1), ("greedy", "optimal"), False, 5.0)


def _row(case: Case) -> dict[str, Any]:
    """What bench.case.measured returns, without running anything."""
    return {
        "system": case.system,
        "clusters": case.clusters,
        "placements": case.placements,
        "seed": case.seed,
        "mode": case.mode,
        "status": "GREEDY",
        "objective": 10 + case.seed,
        "selected": 5,
        **{k: 0.5 for k in ("command_s", "e2e_s", "wall_s", "case_s")},
        "violations": 0,
        "host": "here",
        "commit": "abc1234",
        "machine": "a machine",
    }


def test_the_local_engine_runs_a_failed_case_once_more_and_reports_one_that_fails_twice(
    monkeypatch, tmp_path
):
    calls: list[str] = []

    def flaky(case: Case) -> dict[str, Any]:
        calls.append(case.label())
        if case.seed == 1 and (case.mode == "optimal" or calls.count(case.label()) == 1):
            raise CaseFailed("the case's process killed by signal 9")
        return _row(case)

    monkeypatch.setattr(sweeps, "measured", flaky)
    reports: list[sweeps.Report] = []
    frame = sweeps.sweep(SMALL, out=tmp_path, progress=reports.append)
    assert calls.count("fleet 30x20 greedy seed 1") == 2 and calls.count("fleet 30x20 optimal seed 1") == 2
    assert frame.height == 4
    assert frame["status"].to_list() == ["GREEDY", "GREEDY", "GREEDY", "FAILED"]
    assert frame["attempts"].to_list() == [1, 1, 2, 2]
    assert frame["failure"].to_list()[2:] == ["CaseFailed: the case's process killed by signal 9"] * 2
    assert frame["engine"].unique().to_list() == ["local"]
    assert frame["objective_gain"].to_list() == [0, 0, 0, None]
    assert [(r.done, r.retried, r.failed) for r in reports][-1] == (4, 2, 1)
    assert "attempt 1 CaseFailed" in reports[2].line and reports[2].line.endswith("trying once more")
    md = (tmp_path / "results.md").read_text()
    assert "- fleet 30 x 20 seed 1 optimal: FAILED after 2 attempts; CaseFailed" in md
    assert "| GREEDY (retried) |" in md.replace("  ", " ").replace("  ", " ")
    assert f"placement-solver bench --plan {tmp_path / 'plan.yaml'} --out {tmp_path}" in md
    assert "Swept by the local engine (this process, one case at a time)" in md and "cases ran on here" in md
    assert read_plan(tmp_path / "plan.yaml") == SMALL
    again = pl.read_csv(tmp_path / "results.csv", schema=COLUMNS)
    assert again["status"].to_list() == frame["status"].to_list()


def test_a_progress_bar_over_the_cases_on_a_terminal_and_lines_elsewhere():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    report = sweeps.Report(3, 10, 1, 0, 42.4, "[3/10] fleet 30x20 greedy seed 0: ...")
    assert sweeps.bar(report, 10) == "[###.......] 3/10 cases, 1 retried, 0 failed, 42 s"
    terminal, log = Terminal(), io.StringIO()
    sweeps.ProgressBar(terminal, 10)(report)
    sweeps.ProgressBar(log, 10)(report)
    assert terminal.getvalue() == "\r\033[K" + report.line + "\n" + sweeps.bar(report, 10)
    assert log.getvalue() == report.line + "\n"
    sweeps.ProgressBar(terminal, 10)(sweeps.Report(10, 10, 1, 0, 50.0, "last"))
    assert terminal.getvalue().endswith("10/10 cases, 1 retried, 0 failed, 50 s\n")


def test_the_library_names_sweep_and_its_spec():
    assert bench.sweep is sweeps.sweep and bench.SweepSpec is SweepSpec and bench.read_plan is read_plan
    with pytest.raises(AttributeError):
        _ = bench.nosuch


# ------------------------------------------------------------------------------------ the command


@pytest.mark.parametrize(
    "args",
    [
        ["--engine", "ray"],
        ["--scheduler", "tcp://127.0.0.1:8786"],
        ["--workers", "2"],
        ["--plan", "PLAN", "--sizes", "100x50"],
        ["--plan", "PLAN", "--seed", "0"],
        ["--plan", "MISSING"],
        ["--plan", "PLAN", "--incremental", "100x100"],
    ],
)
def test_bad_sweep_flags_exit_2_with_one_line(tmp_path, args):
    (tmp_path / "plan.yaml").write_text(PLAN)
    paths = {"PLAN": str(tmp_path / "plan.yaml"), "MISSING": str(tmp_path / "missing.yaml")}
    result = run_cli(["bench", *(paths.get(a, a) for a in args), "--out", str(tmp_path / "never")])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert result.stdout == "" and not (tmp_path / "never").exists()


def test_without_dask_the_dask_engine_exits_2_naming_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    result = run_cli(["bench", "--engine", "dask", "--sizes", "30x20", "--out", str(tmp_path / "never")])
    assert result.exit_code == 2
    assert result.stderr == f"error: --engine: {DASK_MISSING}\n"
    assert "pip install 'placement-solver[dask]'" in result.stderr
    assert result.stdout == "" and not (tmp_path / "never").exists()


def test_the_command_and_the_local_engine_need_no_dask():
    """The default install has no Dask: nothing the command or a local sweep imports needs it."""
    code = (
        "import sys; import adapters.cli.main, bench.cli, bench.sweeps, bench.cluster, bench.case; "
        "print('distributed' in sys.modules or 'dask' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"
