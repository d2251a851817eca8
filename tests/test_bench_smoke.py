"""The benchmark suite at a smoke size, the `bench` and `generate` commands, and the churn events.

The full grid (up to 10,000 clusters x 5,000 placements) never runs here: see bench/ and
`placement-solver bench`.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime

import polars as pl
import pytest
import yaml

from adapters.fleet import api as fleet
from adapters.fleet import names as n
from adapters.kube.manifests import from_objects, parse_text
from adapters.ocm import api as ocm
from adapters.ocm import names as on
from adapters.run.pipeline import schedule
from bench import events as ev
from bench import ocm_events as oev
from bench.generate import DEFAULT_NOW, generate, generate_yaml
from bench.suite import COLUMNS, parse_sizes
from model import SelectionMode
from solver import SolveOptions, check
from tests.fixtures.fleet import run_cli

NOW = datetime.fromisoformat(DEFAULT_NOW)
SMOKE = ("--sizes", "100x50", "--modes", "greedy,optimal", "--seed", "0")


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    result = run_cli(["bench", "--system", "fleet", *SMOKE, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result, out


def test_bench_writes_table_csv_and_plots(bench_run):
    result, out = bench_run
    for name in ("results.csv", "results.md", "time.png", "quality.png"):
        assert (out / name).is_file(), name
    for name in ("time.png", "quality.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.stdout.startswith("| system")
    md = (out / "results.md").read_text()
    assert result.stdout.strip() in md
    assert "skipped" in md and "time.png" in md and "quality.png" in md
    assert f"placement-solver bench --system fleet --sizes 100x50 --out {out}`" in md


def test_bench_figures_hold(bench_run):
    _, out = bench_run
    frame = pl.read_csv(out / "results.csv", schema=COLUMNS)
    assert frame.height == 2
    assert frame["mode"].to_list() == ["greedy", "optimal"]
    assert frame["violations"].to_list() == [0, 0]
    assert frame["event_violations"].to_list() == [0, 0]
    greedy, optimal = frame.iter_rows(named=True)
    assert greedy["status"] == "GREEDY" and optimal["status"] in ("OPTIMAL", "FEASIBLE")
    assert optimal["objective"] >= greedy["objective"]
    assert optimal["objective_gain"] == optimal["objective"] - greedy["objective"]
    assert optimal["bound"] >= optimal["objective"] and optimal["gap"] >= 0
    for row in (greedy, optimal):
        assert row["wall_s"] == pytest.approx(row["load_s"] + row["solver_s"] + row["emit_s"])
        assert row["e2e_s"] >= row["read_s"] + row["write_s"]
        assert row["command_s"] > 0  # the real command, in its own interpreter
        assert row["peak_rss_mb"] > 0
        for event in ev.EVENTS:
            column = event.replace("-", "_")
            assert row[f"churn_{column}"] >= row[f"forced_{column}"] >= 0, event
        assert row["forced_cluster_removed"] > 0  # the busiest cluster held something


def test_bench_bad_arguments_exit_2_with_one_line(tmp_path):
    for args in (
        ["--sizes", "100"],
        ["--sizes", "0x10"],
        ["--modes", "fastest"],
        ["--system", "nosuch"],
        ["--seed", "-1"],
        ["--time-limit", "0"],
    ):
        result = run_cli(["bench", *args, "--out", str(tmp_path / "never")])
        assert result.exit_code == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
        assert result.stdout == ""
    assert not (tmp_path / "never").exists()


def test_parse_sizes():
    assert parse_sizes("100x100, 1000X50,100x100") == [(100, 100), (1000, 50)]
    with pytest.raises(ValueError):
        parse_sizes("100x")


# ------------------------------------------------------------------------------------- generate


def test_generate_then_solve_as_the_readme_shows_finds_a_healthy_fleet(tmp_path):
    """No --now on either command: generate stamps the current minute, solve judges by the clock."""
    hub = run_cli(["generate", "--system", "fleet", "--clusters", "200", "--placements", "60"])
    assert hub.exit_code == 0
    path = tmp_path / "hub.yaml"
    path.write_text(hub.stdout, encoding="utf-8")
    fresh = json.loads(run_cli(["solve", "-f", str(path), "-o", "plan"]).stdout)["summary"]
    at_generation = generate("fleet", 200, 60, seed=0)
    path.write_text(generate_yaml("fleet", 200, 60, seed=0), encoding="utf-8")
    reference = json.loads(run_cli(["solve", "-f", str(path), "--now", DEFAULT_NOW, "-o", "plan"]).stdout)
    assert at_generation
    assert fresh["unsatisfied"] <= reference["summary"]["unsatisfied"] + 2


def test_generate_prints_a_deterministic_loadable_stream():
    args = ["generate", "--system", "fleet", "--clusters", "40", "--placements", "25", "--seed", "3"]
    args += ["--now", DEFAULT_NOW]
    first, second = run_cli(args), run_cli(args)
    assert first.exit_code == 0 and second.exit_code == 0
    assert first.stdout == second.stdout
    assert first.stdout == generate_yaml("fleet", 40, 25, seed=3)
    assert first.stdout.startswith("---\n")
    documents = list(yaml.safe_load_all(first.stdout))
    kinds = {d["kind"] for d in documents}
    assert {n.MEMBER_CLUSTER, n.PLACEMENT} <= kinds
    assert sum(d["kind"] == n.MEMBER_CLUSTER for d in documents) == 40
    batch, _ = fleet.load(parse_text(first.stdout, "<generated>"), now=NOW)
    assert len(batch.clusters) == 40 and len(batch.requests) == 25
    other = run_cli(["generate", "--clusters", "40", "--placements", "25", "--seed", "4"])
    assert other.stdout != first.stdout


def test_generate_bad_arguments_exit_2_with_one_line():
    for args in (
        ["--placements", "5"],
        ["--clusters", "5"],
        ["--clusters", "many", "--placements", "5"],
        ["--clusters", "5", "--placements", "5", "--seed", "x"],
        ["--system", "nosuch", "--clusters", "5", "--placements", "5"],
    ):
        result = run_cli(["generate", *args])
        assert result.exit_code == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
        assert result.stdout == ""


# --------------------------------------------------------------------------------------- events


@pytest.fixture(scope="module")
def solved():
    objects = generate("fleet", 120, 60, seed=1)
    options = SolveOptions(mode="greedy")
    outcome = schedule(objects, now=NOW, options=options)
    return objects, outcome, ev.advance(objects, outcome), options


def _canonical(objects):
    return sorted(json.dumps(o, sort_keys=True) for o in objects)


def test_advance_applies_the_plan(solved):
    objects, outcome, state, options = solved
    before = _canonical(objects)
    assert _canonical(ev.advance(objects, outcome)) == _canonical(state)  # deterministic
    assert _canonical(objects) == before  # the input is not modified
    kinds = {o["kind"] for o in state}
    assert n.BINDING in kinds and n.POLICY_SNAPSHOT in kinds
    # Every active binding now belongs to its placement's latest policy snapshot.
    latest = {
        o["metadata"]["labels"][n.PARENT_LABEL]: o["metadata"]["name"]
        for o in state
        if o["kind"] == n.POLICY_SNAPSHOT and o["metadata"]["labels"][n.LATEST_LABEL] == "true"
    }
    for o in state:
        if o["kind"] == n.BINDING and o["spec"]["state"] in (n.SCHEDULED, n.BOUND):
            parent = o["metadata"]["labels"][n.PARENT_LABEL]
            assert o["spec"]["schedulingPolicySnapshotName"] == latest[parent]
    # Solving the applied state again moves nothing.
    again = schedule(state, now=NOW, options=options)
    assert ev.churn(outcome.result, again.result, again.batch) == (0, 0)


@pytest.mark.parametrize("event", ev.EVENTS)
def test_events_are_deterministic_and_pure(solved, event):
    _, outcome, state, options = solved
    frozen = copy.deepcopy(state)
    changed = ev.apply_event(event, state, seed=5)
    assert _canonical(changed) == _canonical(ev.apply_event(event, state, seed=5))
    assert _canonical(state) == _canonical(frozen)
    assert _canonical(changed) != _canonical(state)
    after = schedule(changed, now=NOW, options=options)
    assert check(after.batch, after.result) == []
    moved, forced = ev.churn(outcome.result, after.result, after.batch)
    assert moved >= forced >= 0


def test_cluster_removed_forces_exactly_its_bindings(solved):
    _, outcome, state, options = solved
    target = ev.busiest_cluster(state)
    held = sum(1 for _, cluster in ev.selected_pairs(outcome.result) if cluster == target)
    changed = ev.apply_event("cluster-removed", state)
    assert target not in {o["metadata"]["name"] for o in changed if o["kind"] == n.MEMBER_CLUSTER}
    after = schedule(changed, now=NOW, options=options)
    assert ev.churn(outcome.result, after.result, after.batch) == (held, held)


def test_policy_changed_makes_bindings_obsolete(solved):
    _, _, state, _ = solved
    changed = ev.apply_event("policy-changed", state, seed=0)
    edited = [
        new for old, new in zip(state, changed, strict=True) if new["kind"] == n.PLACEMENT and new is not old
    ]
    assert edited
    for crp in edited:
        old = next(
            o for o in state if o["kind"] == n.PLACEMENT and o["metadata"]["name"] == crp["metadata"]["name"]
        )
        assert crp["spec"]["policy"] != old["spec"]["policy"]
        assert crp["metadata"]["generation"] == old["metadata"]["generation"] + 1
    batch, _ = fleet.load(from_objects(changed, "<changed>"), now=NOW)
    names = {c["metadata"]["name"] for c in edited}
    for request in batch.requests:
        if request.key in names:
            assert not any(d.current for d in request.existing)


# ------------------------------------------------------------------------------------------ OCM


OCM_SIZE = (120, 60)


@pytest.fixture(scope="module")
def ocm_rows():
    """Both modes of one small OCM case, in this process (the suite runs each in a fresh one)."""
    from bench.suite import run_case

    return [run_case("ocm", *OCM_SIZE, mode, seed=0) for mode in ("greedy", "optimal")]


def test_ocm_case_figures_hold(ocm_rows):
    greedy, optimal = ocm_rows
    assert greedy["status"] == "GREEDY" and optimal["status"] in ("OPTIMAL", "FEASIBLE")
    assert optimal["objective"] >= greedy["objective"]
    for row in (greedy, optimal):
        assert row["system"] == "ocm" and row["violations"] == 0 and row["event_violations"] == 0
        assert row["wall_s"] == pytest.approx(row["load_s"] + row["solver_s"] + row["emit_s"])
        assert row["e2e_s"] >= row["read_s"] + row["write_s"]
        assert row["selected"] > 0 and row["unsatisfied"] < OCM_SIZE[1] // 4
        for event in oev.EVENTS:
            column = event.replace("-", "_")
            assert row[f"churn_{column}"] >= row[f"forced_{column}"] >= 0, event
        assert row["forced_cluster_removed"] > 0  # the busiest cluster held decisions
        assert row["note"].startswith("no-event re-solve: churn ")


def test_ocm_results_are_written_with_their_legend(ocm_rows, tmp_path):
    from bench.suite import _frame, write_results

    frame = _frame(ocm_rows)
    write_results(frame, tmp_path)
    md = (tmp_path / "results.md").read_text()
    assert "placement-solver bench --system ocm --sizes 120x60 --out" in md
    assert "**OCM rows**" in md and "| 120 x 60 | greedy | no-event re-solve: churn" in md
    again = pl.read_csv(tmp_path / "results.csv", schema=COLUMNS)
    assert again["system"].to_list() == ["ocm", "ocm"]
    assert again["objective_gain"][1] == again["objective"][1] - again["objective"][0]


def test_fleet_results_have_no_ocm_legend(bench_run):
    _, out = bench_run
    assert "OCM" not in (out / "results.md").read_text()


@pytest.fixture(scope="module")
def ocm_solved():
    objects = generate("ocm", 150, 60, seed=1)
    options = SolveOptions(mode="greedy")
    outcome = schedule(objects, now=NOW, options=options)
    return objects, outcome, oev.advance(objects, outcome), options


def test_ocm_advance_writes_the_plan(ocm_solved):
    objects, outcome, state, options = ocm_solved
    before = _canonical(objects)
    assert _canonical(oev.advance(objects, outcome)) == _canonical(state)
    assert _canonical(objects) == before
    decisions = [o for o in state if o["kind"] == on.DECISION]
    deleted = {(d["namespace"], d["name"]) for d in outcome.delete}
    assert not deleted & {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in decisions}
    written: dict[str, set[str]] = {}
    for o in decisions:
        key = f"{o['metadata']['namespace']}/{o['metadata']['labels'][on.PLACEMENT_LABEL]}"
        written.setdefault(key, set()).update(d["clusterName"] for d in o["status"]["decisions"])
    for got in outcome.result.requests:
        assert written.get(got.request, set()) == {c.cluster for c in got.selected}
    placements = {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": o for o in state if o["kind"] == on.PLACEMENT
    }
    for got in outcome.result.requests:
        status = placements[got.request]["status"]
        assert status["numberOfSelectedClusters"] == len(got.selected)
        assert placements[got.request]["metadata"].get("uid")  # server fields kept
    # Solving the written state again: nothing is forced, and the answer is checked clean.
    again = schedule(state, now=NOW, options=options)
    moved, forced = oev.churn(outcome.result, again.result, again.batch)
    assert forced == 0 and moved >= 0


@pytest.mark.parametrize("event", oev.EVENTS)
def test_ocm_events_are_deterministic_and_pure(ocm_solved, event):
    _, outcome, state, options = ocm_solved
    frozen = copy.deepcopy(state)
    changed = oev.apply_event(event, state, seed=5)
    assert _canonical(changed) == _canonical(oev.apply_event(event, state, seed=5))
    assert _canonical(state) == _canonical(frozen)
    assert _canonical(changed) != _canonical(state)
    after = schedule(changed, now=NOW, options=options)
    assert check(after.batch, after.result) == []
    moved, forced = oev.churn(outcome.result, after.result, after.batch)
    assert moved >= forced >= 0


def test_ocm_cluster_removed_forces_exactly_its_decisions(ocm_solved):
    _, outcome, state, options = ocm_solved
    target = oev.busiest_cluster(state)
    held = sum(1 for _, cluster in oev.selected_pairs(outcome.result) if cluster == target)
    assert held == oev.decision_counts(state)[target] > 0
    changed = oev.apply_event("cluster-removed", state)
    assert target not in {o["metadata"]["name"] for o in changed if o["kind"] == on.MANAGED_CLUSTER}
    assert not [o for o in changed if o["kind"] == on.SCORE and o["metadata"]["namespace"] == target]
    after = schedule(changed, now=NOW, options=options)
    moved, forced = oev.churn(outcome.result, after.result, after.batch)
    assert forced == held and moved >= held
    assert target not in {c for _, c in oev.selected_pairs(after.result)}


def test_ocm_policy_changed_edits_specs_and_forces_surplus(ocm_solved):
    _, outcome, state, _ = ocm_solved
    changed = oev.apply_event("policy-changed", state, seed=0)
    old = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in state if o["kind"] == on.PLACEMENT}
    edited = [
        o
        for o in changed
        if o["kind"] == on.PLACEMENT
        and o["spec"] != old[(o["metadata"]["namespace"], o["metadata"]["name"])]["spec"]
    ]
    assert len(edited) == round(0.1 * len(old))
    for o in edited:
        assert (
            o["metadata"]["generation"]
            == old[(o["metadata"]["namespace"], o["metadata"]["name"])]["metadata"]["generation"] + 1
        )
    # A placement cut to fewer clusters than it holds must give up the surplus.
    batch, _ = ocm.load(from_objects(changed, "<changed>"), now=NOW)
    pairs = oev.selected_pairs(outcome.result)
    for request in batch.requests:
        held = {(p, c) for p, c in pairs if p == request.key}
        if request.mode is SelectionMode.N and len(held) > request.count:
            assert oev.forced_pairs(held, batch) >= len(held) - request.count
