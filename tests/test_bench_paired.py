"""bench.paired: whole commands timed in turns, with the kernel's account of each process."""

from __future__ import annotations

import resource
import sys

from bench.paired import main, run_once


def test_a_run_counts_the_children_it_waited_for():
    # A forked child's peak reads at least this process's size (it has it at its fork): a
    # grandchild the command waits for touches every page of 200 MiB more than that.
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    heavy = (
        "import subprocess, sys; subprocess.run([sys.executable, '-c', "
        f"'x = bytearray({floor + 200} * 2**20); x[::4096] = bytes(len(x[::4096]))'])"
    )
    run = run_once([sys.executable, "-c", heavy], timeout=60)
    small = run_once([sys.executable, "-c", "pass"], timeout=60)
    assert run.status == 0
    assert run.peak_mib > small.peak_mib + 100
    assert run.cpu > small.cpu


def test_the_report_pairs_a_with_b(capsys):
    b = f"{sys.executable} -c pass"
    assert main(["-n", "2", "--warmup", "0", "--vs", b, "--", sys.executable, "-c", "pass"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["A", "B", "A/B", "A/B"]
    assert lines[1].split()[1] == "2" and "exit [0]" in lines[1]


def test_a_command_past_the_bound_is_killed():
    run = run_once([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert run.status != 0 and run.wall < 10
