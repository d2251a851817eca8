"""The events' profile (bench.reach_profile): the share of their checks and runs the events may
keep for a target (`kept_share`, on figures worked by hand), and `--phases` on a small generated
OCM hub: the runs are timed as a phase of their own (some cluster event's runs took time) and the
stream less its checks (then its checks and runs) is read, with the shares for both targets."""

import re

import numpy as np
import pytest

from adapters.generate.hubs import generate_yaml
from bench import reach_profile


def test_the_share_kept_is_the_largest_that_meets_the_target():
    whole = np.array([10.0, 30.0, 50.0])
    part = np.array([0.0, 20.0, 40.0])  # each event less its part: 10 ms
    # kept share s: 10, 10 + 20 s, 10 + 40 s, whose median 10 + 20 s is within 20 ms up to s = 1/2
    assert reach_profile.kept_share(whole, part, 50.0, 20.0) == pytest.approx(0.5, abs=1e-5)
    assert reach_profile.kept_share(whole, part, 50.0, 40.0) == 1.0  # the median (30) already is
    assert reach_profile.kept_share(whole, part, 50.0, 5.0) is None  # not even with the part free
    # the largest of the three (q = 100): 10 + 40 s within 30 ms up to s = 1/2
    assert reach_profile.kept_share(whole, part, 100.0, 30.0) == pytest.approx(0.5, abs=1e-5)


def test_phases_time_the_runs_and_the_stream_less_its_checks(tmp_path, capsys):
    hub = tmp_path / "ocm.yaml"
    hub.write_text(generate_yaml("ocm", 60, 90, seed=5), encoding="utf-8")
    argv = ["--profile", "ocm", "--hub", str(hub), "--events", "24", "--phases", "--time-limit", "60"]
    assert reach_profile.main(argv) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("kind | cpu ms median: handle"))
    assert header.split(" | ")[1:7] == ["cpu ms median: handle", "take", "checks", "runs", "load", "solve"]
    # the runs are timed (`_by_runs` wrapped): some cluster event's runs took time on this stream
    rows = [line.split(" | ") for line in out.splitlines()[out.splitlines().index(header) + 1 :]]
    runs = [float(row[4]) for row in rows if row[0].startswith("cluster-")]
    assert runs and max(runs) > 0.0
    medians = {}
    for line in out.splitlines():
        found = re.match(r"all events less their (.+): cpu ms median ([\d.]+), p99 ([\d.]+)", line)
        if found:
            medians[found[1]] = float(found[2])
    whole = next(line for line in out.splitlines() if line.startswith("all | 24 |"))
    median = float(whole.split(" | ")[2].split(" / ")[1])
    assert set(medians) == {"checks", "checks and runs"}
    assert medians["checks and runs"] <= medians["checks"] <= median
    assert re.search(r"^median within 20 ms: each event's checks and runs may keep at most ", out, re.M)
    assert re.search(r"^p99 within 250 ms: each event's checks and runs may keep at most ", out, re.M)
