"""Live progress: on a terminal's standard error after a second, never on standard output."""

from __future__ import annotations

import io
from importlib import resources

from click.testing import CliRunner

from adapters.cli.main import main
from adapters.cli.progress import TerminalProgress
from solver.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_before_a_second_or_off_a_terminal() -> None:
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        show = TerminalProgress(stream)
        show(Progress("deciding", 10, 100, 0.5, 7))
        show(Progress("done", 100, 100, 0.9, 9, 9))
    assert terminal.getvalue() == pipe.getvalue() == ""


def test_lines_rewritten_in_place_and_the_last_one_kept() -> None:
    terminal = Terminal()
    show = TerminalProgress(terminal, every=0.5)
    show(Progress("deciding", 256, 2000, 1.2, 100))
    show(Progress("deciding", 512, 2000, 1.3, 200))  # throttled
    show(Progress("balance", 0, 20, 2.0, 300))
    show(Progress("done", 2000, 2000, 2.1, 400, 500, time_limited=True))
    lines = terminal.getvalue().split("\r\033[K")[1:]
    assert lines == [
        "deciding, 256/2000 placements, objective 100, 1.2 s",
        "balance, sweep 1, objective 300, 2.0 s",
        "done, objective 400, bound 500, gap 0.25, cut by --time-limit, 2.1 s\n",
    ]


def test_quiet_and_piped_runs_print_no_progress(tmp_path, monkeypatch) -> None:
    for args in (["demo"], ["demo", "--mode", "greedy"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0 and result.stderr == ""
    path = tmp_path / "x.yaml"
    path.write_text(resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(), "utf-8")
    seen: list[Progress] = []

    class Recorder:  # stands for the terminal printer: what would it have been told?
        def draws(self) -> bool:
            return True  # as on a terminal

        def __call__(self, progress: Progress) -> None:
            seen.append(progress)

    monkeypatch.setattr("adapters.cli.progress.TerminalProgress", Recorder)
    args = ["solve", "-f", str(path), "--now", "2026-11-21T12:00:00Z", "-o", "plan"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0 and result.stderr == ""
    assert [p.phase for p in seen][0] == "filtered" and seen[-1].phase == "done"
    seen.clear()
    result = CliRunner().invoke(main, [*args, "--quiet"])
    assert result.exit_code == 0 and result.stderr == "" and seen == []
