"""Times as Kubernetes reads them (metav1.Time: Go's time.Parse with time.RFC3339), in objects and
in `--now`: what it reads is read to the same moment, what it refuses is one line and exit 2."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from adapters.kube.fields import rfc3339
from tests.fixtures.common import run_cli, solve_args, write_yaml
from tests.fixtures.fleet import crp, member_cluster, pick_n

NOON = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-11-21T12:00:00Z", NOON),
        ("2026-11-21T13:30:00+01:30", NOON),
        ("2026-11-21T07:00:00-05:00", NOON),
        ("2026-11-21T12:00:00.5Z", NOON.replace(microsecond=500000)),
        ("2026-11-21T12:00:00,25Z", NOON.replace(microsecond=250000)),  # Go takes a comma too
        ("2026-11-21T12:00:00.123456789Z", NOON.replace(microsecond=123456)),  # kept to the microsecond
        ("2026-11-21T9:00:00-03:00", NOON),  # Go reads a one-digit hour
        ("2024-02-29T12:00:00Z", datetime(2024, 2, 29, 12, tzinfo=UTC)),
        ("2026-11-21T12:00:00+24:00", datetime(2026, 11, 20, 12, tzinfo=UTC)),  # Go's offset range
    ],
)
def test_what_kubernetes_reads(text, moment) -> None:
    assert rfc3339(text) == moment


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-21T12:00:00",  # no offset
        "2026-11-21",  # a date alone
        "2026-W47-6T12:00:00Z",  # a week date
        "20261121T120000Z",  # ISO 8601 basic form
        "2026-11-21 12:00:00Z",  # a space for T
        "2026-11-21t12:00:00z",
        "2026-11-21T12:00Z",  # no seconds
        "2026-11-21T12:00:00.Z",  # a point without digits
        "2026-11-21T12:00:00+0100",  # an offset without its colon
        "2026-11-21T12:00:00+01",
        "2026-13-01T12:00:00Z",
        "2026-02-29T12:00:00Z",
        "2026-11-21T24:00:00Z",
        "2026-11-21T12:60:00Z",
        "2026-11-21T12:00:60Z",
        "2026-11-21T12:00:00+25:00",
        "2026-11-21T12:00:00Z ",
        " 2026-11-21T12:00:00Z",
        "２０２６-11-21T12:00:00Z",  # digits other than ASCII ones
        "",
    ],
)
def test_what_kubernetes_refuses(text) -> None:
    assert rfc3339(text) is None


@pytest.mark.parametrize("year", ["0000", "0001", "1900", "2000", "2023", "2024", "9999"])
def test_a_time_in_utc_reads_as_its_offset_twin(year) -> None:
    """A whole-second time ending in Z (the form controllers write: read in one call) is read or
    refused exactly as the same time written with +00:00 (read by the rules field by field)."""
    texts = [f"{year}-{month:02d}-{day:02d}T12:00:00" for month in range(14) for day in range(33)]
    texts += [f"{year}-02-28T{clock}" for clock in ("00:00:00", "23:59:59", "24:00:00", "9:00:00")]
    texts += [f"{year}-02-28T{h:02d}:{m:02d}:{s:02d}" for h in (23, 24) for m in (59, 60) for s in (59, 60)]
    for text in texts:
        assert rfc3339(text + "Z") == rfc3339(text + "+00:00"), text


def test_now_without_an_offset_is_refused(tmp_path) -> None:
    path = write_yaml(tmp_path / "hub.yaml", [member_cluster("c1"), crp("web", pick_n(1))])
    result = run_cli(["solve", "-f", str(path), "--now", "2026-11-21T12:00:00"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("error: --now: not an RFC 3339 time: '2026-11-21T12:00:00'")
    assert len(result.stderr.splitlines()) == 1
    # With its offset, the same moment.
    assert (
        run_cli(["solve", "-f", str(path), "--now", "2026-11-21T13:00:00+01:00"]).stdout
        == run_cli(solve_args([path], "optimal")).stdout
    )


@pytest.mark.parametrize("heartbeat", ["2026-11-21", "2026-11-21T11:59:30", "2026-W47-6T11:59:30Z", ""])
def test_a_time_in_an_object_kubernetes_refuses_is_bad_input(tmp_path, heartbeat) -> None:
    cluster = member_cluster("c1")
    cluster["status"]["agentStatus"][0]["lastReceivedHeartbeat"] = heartbeat
    path = write_yaml(tmp_path / "hub.yaml", [cluster, crp("web", pick_n(1))])
    result = run_cli(solve_args([path], "greedy"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: MemberCluster/c1: status.agentStatus[0].lastReceivedHeartbeat: "
        f"expected an RFC 3339 time, got {heartbeat!r}\n"
    )


@pytest.mark.parametrize("demo", ["fleet-demo.yaml", "ocm-demo.yaml", "kcp-demo.yaml"])
def test_times_written_before_the_year_1000_have_four_digits(demo) -> None:
    """Every time a system writes (conditions, stamps) is metav1.Time's text: `strftime("%Y")`
    wrote `500-06-01T...` in the year 500, a time no reader takes."""
    import re
    from importlib import resources

    from adapters.kube.fields import time_text

    assert time_text(datetime(500, 6, 1, tzinfo=UTC)) == "0500-06-01T00:00:00Z"
    example = str(resources.files("adapters.examples").joinpath(demo))
    written = run_cli(["solve", "-f", example, "--now", "0500-06-01T00:00:00Z"])
    assert written.exit_code == 0, written.stderr
    assert "0500-06-01T00:00:00Z" in written.stdout
    assert re.search(r"(?<![0-9])500-06-01T", written.stdout) is None


@pytest.mark.parametrize("system", ["fleet", "ocm", "openmcp", "kcp"])
def test_a_generated_hub_whose_times_would_fall_before_the_year_1_is_refused(system) -> None:
    """Its times reach back from --now: Fleet's and kcp's generators failed with an OverflowError
    traceback, OCM's and openMCP's wrote year-0000 times no reader takes."""
    early = run_cli(
        [
            "generate",
            "--system",
            system,
            "--clusters",
            "3",
            "--placements",
            "2",
            "--now",
            "0001-01-01T00:00:00Z",
        ]
    )
    assert early.exit_code == 2 and early.stderr.count("\n") == 1 and "--now" in early.stderr, early.output
    late = run_cli(
        [
            "generate",
            "--system",
            system,
            "--clusters",
            "3",
            "--placements",
            "2",
            "--now",
            "0003-01-01T00:00:00Z",
        ]
    )
    assert late.exit_code == 0, late.output
