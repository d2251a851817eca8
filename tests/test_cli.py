"""The command line: output formats, determinism, the ways to give input, and the demo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from adapters.kube import manifests
from adapters.run import forked, pipeline
from adapters.run.changes import object_key, served
from solver import SolveOptions
from tests.fixtures.fleet import (
    MODES,
    NOW,
    PLACEMENT_API,
    SAMPLE,
    SAMPLE_CLUSTERS,
    SAMPLE_PLACEMENTS,
    SAMPLE_STATE,
    crp,
    member_cluster,
    pick_all,
    pick_fixed,
    pick_n,
    run_cli,
    run_solve,
    snapshot,
    solve_args,
    write_yaml,
)
from tests.fixtures.parts import fresh

SUMMARY_KEYS = {
    "mode",
    "status",
    "objective",
    "bound",
    "gap",
    "wall_seconds",
    "build_seconds",
    "solve_seconds",
    "requests",
    "clusters",
    "unsatisfied",
}


def load_stream(text: str) -> list[dict]:
    return list(yaml.safe_load_all(text))


@pytest.fixture
def fleet_file(tmp_path) -> Path:
    return write_yaml(tmp_path / "fleet.yaml", SAMPLE)


# ------------------------------------------------------------------------------------ formats


@pytest.mark.parametrize("mode", MODES)
def test_yaml_is_a_loadable_stream(tmp_path, mode):
    text = run_solve(tmp_path, SAMPLE, mode)
    assert text.startswith("---\n")
    objects = load_stream(text)
    assert all(isinstance(o, dict) for o in objects)
    kinds = [(o["kind"], o["metadata"]["name"]) for o in objects]
    # Per placement (by name): its snapshot, then its bindings by name.
    assert [k for k in kinds if k[0] == "ClusterSchedulingPolicySnapshot"] == [
        ("ClusterSchedulingPolicySnapshot", "all-prod-0"),
        ("ClusterSchedulingPolicySnapshot", "fixed-0"),
        ("ClusterSchedulingPolicySnapshot", "one-0"),
    ]
    assert {o["apiVersion"] for o in objects} == {PLACEMENT_API}
    gone = [
        o for o in objects if o["kind"] == "ClusterResourceBinding" and o["spec"]["targetCluster"] == "gone"
    ]
    assert gone[0]["spec"]["state"] == "Unscheduled"


@pytest.mark.parametrize("mode", MODES)
def test_json_is_a_v1_list_of_the_same_objects(tmp_path, mode):
    listed = json.loads(run_solve(tmp_path, SAMPLE, mode, "json"))
    assert list(listed) == ["apiVersion", "kind", "items"]
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
    assert listed["items"] == load_stream(run_solve(tmp_path, SAMPLE, mode, "yaml"))


@pytest.mark.parametrize("mode", MODES)
def test_plan(tmp_path, mode):
    plan = json.loads(run_solve(tmp_path, SAMPLE, mode, "plan"))
    assert set(plan) == {"apply", "delete", "summary"}
    inputs = {object_key(o): o for o in SAMPLE}
    # Every desired object but those equal to their input (the server's metadata aside).
    desired = load_stream(run_solve(tmp_path, SAMPLE, mode, "yaml"))
    assert plan["apply"] == [
        o for o in desired if served(o, inputs.get(object_key(o))) != inputs.get(object_key(o))
    ]
    assert len(plan["apply"]) == len(desired) - 1  # the binding kept on c3 is written back unchanged
    assert plan["delete"] == []
    summary = plan["summary"]
    assert set(summary) >= SUMMARY_KEYS
    assert summary["mode"] == mode
    assert summary["status"] == ("GREEDY" if mode == "greedy" else "OPTIMAL")
    assert (summary["requests"], summary["clusters"], summary["unsatisfied"]) == (3, 4, 1)
    assert isinstance(summary["objective"], int)
    for key in ("wall_seconds", "build_seconds", "solve_seconds"):
        assert summary[key] >= 0
    if mode == "greedy":
        assert summary["bound"] is None and summary["gap"] is None
    else:
        assert summary["bound"] == summary["objective"] and summary["gap"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_table(tmp_path, mode):
    lines = run_solve(tmp_path, SAMPLE, mode, "table").splitlines()
    if mode == "optimal":  # what optimal gained over greedy closes the table
        assert lines[-2:] == ["", "Optimal chose as greedy did for every placement."]
        lines = lines[:-2]
    assert [line.split() for line in lines[:-3]] == [
        ["PLACEMENT", "CLUSTER", "DECISION", "AFFINITY", "SPREAD"],
        ["all-prod", "c1", "new", "0", "0"],
        ["all-prod", "c2", "new", "0", "0"],
        ["fixed", "-", "none", "-", "-"],
        ["one", "c3", "kept", "0", "0"],
        ["one", "gone", "released", "-", "-"],
    ]
    assert lines[0].index("CLUSTER") == lines[1].index("c1")  # aligned columns
    assert lines[-3] == ""
    status = "GREEDY" if mode == "greedy" else "OPTIMAL"
    assert lines[-2:] == [
        f"3 placements, 4 clusters; mode {mode}, status {status}; 1 unsatisfied:",
        "  fixed: Scheduled False, SchedulingPolicyUnfulfilled: could not find all clusters needed as "
        "specified by the scheduling policy, found 0 cluster(s) instead",
    ]


def test_pick_fixed_rows_have_no_scores(tmp_path):
    objects = [*SAMPLE_CLUSTERS, crp("f", pick_fixed("c1", "c2"))]
    rows = [line.split() for line in run_solve(tmp_path, objects, "greedy", "table").splitlines()[1:3]]
    assert rows == [["f", "c1", "new", "-", "-"], ["f", "c2", "new", "-", "-"]]


@pytest.mark.parametrize("output", ["yaml", "json", "table"])
@pytest.mark.parametrize("mode", MODES)
def test_repeated_runs_are_byte_identical(fleet_file, mode, output):
    args = solve_args([fleet_file], mode, output)
    first, second = run_cli(args), run_cli(args)
    assert first.exit_code == second.exit_code == 0
    assert first.stdout_bytes == second.stdout_bytes


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("output", ["yaml", "json", "plan", "table"])
def test_a_result_the_checker_rejects_is_never_written(fleet_file, monkeypatch, output, workers):
    # The command checks beside emit (in a forked child with 2 workers): before any byte is written
    monkeypatch.setattr(pipeline, "check", lambda batch, result: ["a planted problem"])
    monkeypatch.setattr(manifests, "_SPLIT_WRITE", 1)  # the YAML writer forks at once
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    monkeypatch.setattr(pipeline, "_CHECK_BESIDE", 1)  # so small a hub is checked beside emit too
    result = run_cli(solve_args([fleet_file], "optimal", output))
    assert isinstance(result.exception, AssertionError)
    assert "a planted problem" in str(result.exception)
    assert result.stdout == ""


def test_default_mode_is_optimal_and_default_output_yaml(fleet_file):
    result = run_cli(["solve", "-f", str(fleet_file), "--now", NOW])
    assert result.exit_code == 0
    assert result.stdout == run_cli(solve_args([fleet_file], "optimal", "yaml")).stdout
    plan = json.loads(run_cli(["solve", "-f", str(fleet_file), "--now", NOW, "-o", "plan"]).stdout)
    assert plan["summary"]["mode"] == "optimal"


def test_nothing_to_schedule_is_empty_output(tmp_path):
    path = write_yaml(tmp_path / "clusters.yaml", SAMPLE_CLUSTERS)
    result = run_cli(solve_args([path], "greedy", "yaml"))
    assert (result.exit_code, result.stdout) == (0, "")
    listed = json.loads(run_cli(solve_args([path], "greedy", "json")).stdout)
    assert listed["items"] == []


@pytest.mark.parametrize("source", ["file", "directory", "stdin", "foreign"])
@pytest.mark.parametrize("mode", MODES)
def test_an_input_of_no_system_says_so_and_keeps_the_summary_well_formed(tmp_path, source, mode):
    """Nothing to read: a note on standard error; the summary has the mode asked for and the
    status NO_INPUT (nothing was solved), with every key a run's summary has."""
    stdin = None
    if source == "file":
        path = tmp_path / "empty.yaml"
        path.write_text("", encoding="utf-8")
    elif source == "directory":
        path = tmp_path / "empty"
        path.mkdir()
    elif source == "foreign":
        path = write_yaml(
            tmp_path / "cm.yaml", [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]
        )
    else:
        path, stdin = "-", ""
    normal = json.loads(run_solve(tmp_path, SAMPLE, mode, "plan"))["summary"]
    result = run_cli(solve_args([path], mode, "plan"), stdin=stdin)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        "note: the input holds no object of any system (fleet, ocm, openmcp, kcp, karmada):"
        " nothing was scheduled\n"
    )
    summary = json.loads(result.stdout)["summary"]
    assert set(summary) == set(normal)
    assert (summary["mode"], summary["status"], summary["levels"]) == (mode, "NO_INPUT", [])
    assert (summary["requests"], summary["clusters"], summary["systems"]) == (0, 0, {})
    assert [type(summary[k]) for k in ("wall_seconds", "build_seconds", "solve_seconds")] == [float] * 3
    # The library says the same.
    outcome = pipeline.schedule([], options=SolveOptions(mode=mode))
    assert (outcome.summary["mode"], outcome.summary["status"]) == (mode, "NO_INPUT")
    assert (outcome.result.stats.mode, outcome.result.stats.status) == (mode, "NO_INPUT")


def _superseded(names: tuple[str, ...] = ("a", "b")) -> list[dict]:
    """Placements whose policy changed, each with 11 snapshots of the old one: a new snapshot is
    made and the two oldest fall out of the history of 10, so the run deletes 2 per placement."""
    objects = [member_cluster("c1"), member_cluster("c2")]
    for name in names:
        objects.append(crp(name, pick_n(1)))
        objects += [snapshot(name, i, pick_all(), latest=i == 10) for i in range(11)]
    return objects


DELETES_NOTE = (
    "note: this run also deletes {} objects, which -o {} cannot express; -o plan and -o diff list them\n"
)


@pytest.mark.parametrize("output", ["yaml", "json", "plan", "diff", "table"])
def test_outputs_that_cannot_express_deletions_say_how_many_there_are(tmp_path, output):
    path = write_yaml(tmp_path / "hub.yaml", _superseded())
    result = run_cli(solve_args([path], "optimal", output))
    assert result.exit_code == 0, result.stderr
    if output in ("yaml", "json"):
        assert result.stderr == DELETES_NOTE.format(4, output)
    else:  # plan and diff list them; the table is for people
        assert result.stderr == ""
    plan = json.loads(run_cli(solve_args([path], "optimal", "plan")).stdout)
    assert len(plan["delete"]) == 4
    # No deletions, no note.
    assert run_cli(solve_args([write_yaml(tmp_path / "fleet.yaml", SAMPLE)], "optimal", output)).stderr == ""


CUT_NOTE = (
    "note: the wall clock (--time-limit 2.5 s) cut a search: this answer may differ from an uncut "
    "run's; a longer limit gives the deterministic one\n"
)


@pytest.mark.parametrize("cut", [True, False])
def test_a_search_the_wall_clock_cut_is_said(tmp_path, monkeypatch, cut):
    # Searches end on their deterministic budget; where the clock cut one (a loaded machine), the
    # objects written cannot say so and may differ from an uncut run's: the command says it.
    real = pipeline.schedule_rendered

    def reported(*args, **kwargs):
        outcome, rendered = real(*args, **kwargs)
        outcome.summary["time_limited"] = cut
        return outcome, rendered

    monkeypatch.setattr(pipeline, "schedule_rendered", reported)
    path = write_yaml(tmp_path / "hub.yaml", _superseded())
    result = run_cli([*solve_args([path], "optimal", "yaml"), "--time-limit", "2.5"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == DELETES_NOTE.format(4, "yaml") + (CUT_NOTE if cut else "")


@pytest.mark.parametrize("output", ["yaml", "json", "plan"])
def test_the_demo_says_so_too(output):
    result = run_cli(["demo", "--system", "openmcp", "-o", output])  # the old mcp request's cluster goes
    assert result.exit_code == 0, result.stderr
    expected = (
        "note: this run also deletes 1 object, which -o {} cannot express; -o plan and -o diff list them\n"
    )
    assert result.stderr == (expected.format(output) if output != "plan" else "")


def test_a_run_in_parts_counts_the_deletions_of_every_part(tmp_path):
    path = write_yaml(tmp_path / "hub.yaml", _superseded(("a", "b", "c", "d")))
    used, code, stdout, stderr = fresh(
        "tests.fixtures.parts:command", ["solve", "-f", str(path), "--now", NOW, "-o", "yaml"]
    )
    assert (used, code) == ([True], 0)
    assert stderr == DELETES_NOTE.format(8, "yaml")


# ---------------------------------------------------------------------------------- inputs


@pytest.fixture
def expected(fleet_file) -> str:
    result = run_cli(solve_args([fleet_file], "greedy"))
    assert result.exit_code == 0
    return result.stdout


def test_input_from_a_directory(tmp_path, expected):
    root = tmp_path / "hub"
    write_yaml(root / "clusters" / "members.yaml", SAMPLE_CLUSTERS)
    write_yaml(root / "placements.yml", SAMPLE_PLACEMENTS)
    (root / "state.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": SAMPLE_STATE}), encoding="utf-8"
    )
    (root / ".hidden.yaml").write_text("this: [is not read", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "x.yaml").write_text(": nor this", encoding="utf-8")
    (root / "notes.txt").write_text("not a manifest", encoding="utf-8")
    result = run_cli(solve_args([root], "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


LEFT_OUT = "document 1 left out: neither apiVersion nor kind, not a Kubernetes object"


def test_a_directory_with_other_tools_yaml(tmp_path, expected):
    """A kustomization.yaml (apiVersion and kind, no metadata) is ignored; a Helm values.yaml (neither)
    is left out with a note naming it; the objects read are scheduled as ever."""
    root = tmp_path / "hub"
    write_yaml(root / "fleet.yaml", SAMPLE)
    (root / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [fleet.yaml]\n",
        encoding="utf-8",
    )
    (root / "values.yaml").write_text("replicas: 3\n", encoding="utf-8")
    result = run_cli(solve_args([root], "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected
    assert result.stderr == f"note: {root / 'values.yaml'}: {LEFT_OUT}\n"
    # Bad input beside them: the one line of the error, and no note.
    write_yaml(root / "bad.yaml", [{"apiVersion": PLACEMENT_API, "kind": "ClusterResourcePlacement"}])
    bad = run_cli(solve_args([root], "greedy"))
    assert (bad.exit_code, bad.stdout) == (2, "")
    assert bad.stderr == f"error: {root / 'bad.yaml'}: document 1: metadata: required field is missing\n"
    # The file given by name is read strictly.
    named = run_cli(solve_args([root / "values.yaml"], "greedy"))
    assert named.exit_code == 2 and "apiVersion: required field is missing" in named.stderr


def test_the_bundled_examples_directory_is_an_input(tmp_path):
    examples = Path(manifests.__file__).parents[1] / "examples"
    config = examples / "openmcp-demo-config.yaml"
    result = run_cli([*solve_args([examples], "greedy", "plan"), "--config", str(config)])
    assert result.exit_code == 0, result.stderr
    assert set(json.loads(result.stdout)["summary"]["systems"]) == {
        "fleet",
        "ocm",
        "openmcp",
        "kcp",
        "karmada",
    }
    assert (
        result.stderr
        == f"note: {config}: document 1 left out: neither apiVersion nor kind, not a Kubernetes object\n"
    )


def test_input_from_several_files(tmp_path, expected):
    paths = [
        write_yaml(tmp_path / "a.yaml", SAMPLE_CLUSTERS),
        write_yaml(tmp_path / "b.yaml", SAMPLE_PLACEMENTS),
        write_yaml(tmp_path / "c.yaml", SAMPLE_STATE),
    ]
    result = run_cli(solve_args(paths, "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected
    # The same file twice is read once (no duplicate-object error).
    again = run_cli(solve_args([*paths, paths[0]], "greedy"))
    assert again.exit_code == 0 and again.stdout == expected


def test_input_from_stdin(tmp_path, expected):
    text = yaml.safe_dump_all(SAMPLE, sort_keys=False)
    result = run_cli(solve_args(["-"], "greedy"), stdin=text)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


def test_stdin_mixed_with_files(tmp_path, expected):
    clusters = write_yaml(tmp_path / "clusters.yaml", SAMPLE_CLUSTERS)
    text = yaml.safe_dump_all([*SAMPLE_PLACEMENTS, *SAMPLE_STATE], sort_keys=False)
    result = run_cli(solve_args([clusters, "-"], "greedy"), stdin=text)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_kind_list_input(tmp_path, expected, suffix):
    listed = {"apiVersion": "v1", "kind": "List", "items": SAMPLE}
    path = tmp_path / f"list.{suffix}"
    if suffix == "json":
        path.write_text(json.dumps(listed), encoding="utf-8")
    else:
        write_yaml(path, [listed])
    result = run_cli(solve_args([path], "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


def test_unknown_kinds_are_ignored(tmp_path, expected):
    noise = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c1", "namespace": "default"},
            "data": {"numberOfClusters": "x"},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "app", "namespace": "x"},
            "spec": "not even an object",
        },
        # A known kind in another group is not ours either.
        {"apiVersion": "example.com/v1", "kind": "MemberCluster", "metadata": {"name": "c1"}},
        {
            "apiVersion": "example.com/v1",
            "kind": "ClusterResourcePlacement",
            "metadata": {"name": "one"},
            "spec": {"policy": {"placementType": "Nonsense"}},
        },
        None,
    ]
    path = tmp_path / "noisy.yaml"
    path.write_text(yaml.safe_dump_all([*noise, *SAMPLE], sort_keys=False), encoding="utf-8")
    result = run_cli(solve_args([path], "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


def test_kubectl_style_timestamps_and_server_fields(tmp_path, expected):
    """Unquoted timestamps and server-populated metadata, as `kubectl get -o yaml` prints them."""
    text = yaml.safe_dump_all(SAMPLE, sort_keys=False).replace("'2026-", "2026-").replace("Z'", "Z")
    assert "lastReceivedHeartbeat: 2026-" in text
    path = tmp_path / "kubectl.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli(solve_args([path], "greedy"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected


# ---------------------------------------------------------------------------------- demo


@pytest.mark.parametrize("mode", MODES)
def test_demo_prints_a_table(mode):
    result = run_cli(["demo", "--mode", mode])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["PLACEMENT", "CLUSTER", "DECISION", "AFFINITY", "SPREAD"]
    summary = next(
        i for i, line in enumerate(lines) if line.startswith("6 placements, 12 clusters; mode " + mode)
    )
    assert {line.split()[0] for line in lines[1 : summary - 1]} == {
        "batch-jobs",
        "checkout",
        "ml-training",
        "monitoring",
        "payments",
        "web-frontend",
    }
    unsatisfied = ["payments"] if mode == "optimal" else ["ml-training", "payments"]
    reason = "Scheduled False, SchedulingPolicyUnfulfilled: could not find all clusters needed as specified"
    assert lines[summary].endswith(f"; {len(unsatisfied)} unsatisfied:")
    assert lines[summary + 1 : summary + 1 + len(unsatisfied)] == [
        f"  {name}: {reason} by the scheduling policy, found 1 cluster(s) instead" for name in unsatisfied
    ]
    # Optimal mode shows what it gained over greedy: ml-training's spread, which greedy misses.
    rest = "\n".join(lines[summary + 1 + len(unsatisfied) :])
    if mode == "optimal":
        assert (
            "ml-training: greedy [aks-westeu-stage-1] -> optimal [aks-eastus-prod-1, aks-westeu-prod-1]"
            in rest
        )
        assert "the policy is satisfied, greedy's answer is not" in rest
    else:
        assert rest == ""


# -------------------------------------------------------------------------- subprocess smoke


def _executable() -> str:
    local = Path(sys.executable).parent / "placement-solver"
    return str(local) if local.exists() else (shutil.which("placement-solver") or "placement-solver")


def test_subprocess_solve_json(fleet_file):
    done = subprocess.run(
        [_executable(), *solve_args([fleet_file], "optimal", "json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["kind"] == "List"


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path, output):
    # `solve ... | head`: the reader took all it wanted; no traceback, no failure status
    hub = tmp_path / "hub.yaml"
    generate = [_executable(), "generate", "--system", "fleet", "--clusters", "300", "--placements"]
    subprocess.run([*generate, "300", "--now", NOW], stdout=hub.open("wb"), check=True, timeout=120)
    with subprocess.Popen(
        [_executable(), *solve_args([hub], "optimal", output)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as command:
        assert command.stdout.read(100)  # then stop reading, with megabytes still to come
        command.stdout.close()
        stderr = command.stderr.read()
        assert command.wait(timeout=120) == 0, stderr
    assert stderr == b""


def test_subprocess_bad_input_exit_status(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed", encoding="utf-8")
    done = subprocess.run(
        [_executable(), "solve", "-f", str(bad), "--now", NOW],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and str(bad) in done.stderr
    assert "Traceback" not in done.stderr


def test_the_command_line_modes_are_the_solver_modes() -> None:
    # spelt twice so that the command line starts without importing the solver
    from adapters.cli import main as cli
    from solver import MODES

    assert cli.MODES == MODES


def test_the_command_line_imports_nothing_above_it() -> None:
    # bench/ registers its command (entry points); adapters never import bench
    import ast

    from adapters.cli.main import main

    for path in Path("adapters").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n == "bench" or n.startswith("bench.") for n in names), path
    assert "bench" in main.list_commands(None)  # from the registry


@pytest.mark.parametrize("command", ["solve", "simulate"])
@pytest.mark.parametrize("limit", ["nan", "NaN", "0", "-1"])
def test_a_time_limit_that_is_no_positive_number_of_seconds_is_refused(tmp_path: Path, command, limit):
    """NaN passes every bound of a float range (it compares false), and cut every search short."""
    path = write_yaml(tmp_path / "hub.yaml", SAMPLE)
    result = run_cli([command, "-f", str(path), "--now", NOW, "--time-limit", limit])
    assert result.exit_code == 2, result.output
    assert "--time-limit" in result.stderr and not result.stdout
