"""A large input scheduled in parts at once (adapters.run.parts): the same bytes as one batch, or the
whole run where a part fails, clashes or is coupled; Fleet's cut; the writers of joined runs."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import marshal
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import registry as systems
from adapters.contract import Cut
from adapters.fleet import names as n
from adapters.fleet.generate import generate_fleet
from adapters.kube import manifests
from adapters.kube.manifests import from_objects, json_items, write_json_list, write_yaml_stream, yaml_items
from adapters.run import forked, parts
from adapters.run.changes import diff_of, plan_of
from adapters.run.pipeline import NotSeparable, schedule_manifests, schedule_part, summary_of_cut
from solver import SolveOptions
from tests.fixtures import ocm
from tests.fixtures.common import NOW, NOW_TIME, run_cli, write_yaml
from tests.fixtures.parts import fresh

fleet_load = importlib.import_module("adapters.fleet.load")  # the module (the package exports its function)


def _fresh(case: str, *args: Any) -> Any:
    """`case(*args)`, a function of this module, run in a fresh process (tests.fixtures.parts)."""
    return fresh(f"tests.test_parts:{case}", *args)


def _hub(seed: int = 3, clusters: int = 40, placements: int = 30) -> list[dict[str, Any]]:
    return generate_fleet(clusters, placements, seed=seed, now=NOW)  # made here: it computes with polars


def _written(tmp_path: Path, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / "hub.json"
    path.write_text(json.dumps(objects), encoding="utf-8")
    return str(path)


def _read(path: str) -> list[dict[str, Any]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _whole_text(output: str, outcome: Any, loaded: list[Any]) -> bytes:
    """The output of one batch, as the command writes it (timings aside, in a plan)."""
    out: list[bytes] = []
    if output == "yaml":
        write_yaml_stream(outcome.apply, out.append)
    elif output == "json":
        write_json_list(outcome.apply, out.append)
    elif output == "plan":
        manifests.write_json(plan_of(outcome, loaded), out.append)
    else:
        out.append(diff_of(outcome, loaded).encode())
    return _untimed(output, b"".join(bytes(piece) for piece in out))


def _untimed(output: str, text: bytes) -> bytes:
    """A plan's text without its summary's timings, which differ run to run (and part to part)."""
    if output != "plan":
        return text
    plan = json.loads(text)
    for timing in ("wall_seconds", "build_seconds", "solve_seconds"):
        assert timing in plan["summary"]
        plan["summary"][timing] = 0
    return json.dumps(plan, indent=2).encode()


def _in_parts(objects: list[dict[str, Any]], output: str, mode: str = "optimal") -> bytes | None:
    """The output of `objects` scheduled in parts (any fleet of two placements is cut), or None."""
    fleet_load.CUT_PLACEMENTS = 2
    fleet_load.CUT_CLUSTERS_PER_PLACEMENT = 1 << 30
    options = SolveOptions(mode=mode)
    parted = parts.schedule_in_parts(
        from_objects(objects, "hub"), now=NOW_TIME, options=options, config=None, output=parts.FORMATS[output]
    )
    if parted is None:
        return None
    out: list[bytes] = []
    parted.write(out.append)
    return _untimed(output, b"".join(bytes(piece) for piece in out))


def _whole(objects: list[dict[str, Any]], output: str, mode: str = "optimal") -> bytes:
    loaded = from_objects(objects, "hub")
    outcome = schedule_manifests(loaded, now=NOW_TIME, options=SolveOptions(mode=mode))
    return _whole_text(output, outcome, loaded)


# --------------------------------------------------------------------------------- the same bytes


def same_bytes(path: str, mode: str, output: str) -> list[bool]:
    objects = _read(path)
    text = _in_parts(objects, output, mode)
    return [text is not None, text == _whole(objects, output, mode)]


@pytest.mark.parametrize("mode", ["optimal", "greedy"])
@pytest.mark.parametrize(
    ("seed", "output"),
    [(1, "yaml"), (2, "json"), (3, "yaml"), (4, "json"), (5, "plan"), (6, "diff"), (7, "plan"), (8, "diff")],
)
def test_parts_joined_are_the_whole_run(tmp_path, seed, mode, output):
    assert _fresh("same_bytes", _written(tmp_path, _hub(seed)), mode, output) == [True, True]


def each_in_a_fork(cases: list[list[Any]]) -> list[list[bool]]:
    """same_bytes(*case) for each case, each in a forked child of this (polars-idle) process, so
    that every case may cut its input: a process that has scheduled once has polars at work."""
    answers = []
    for case in cases:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.write(write, json.dumps(same_bytes(*case)).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        with os.fdopen(read, "rb") as answer:
            text = answer.read()
        _, status = os.waitpid(pid, 0)
        assert status == 0, f"case {case} failed"
        answers.append(json.loads(text))
    return answers


@settings(max_examples=max(3, settings().max_examples // 10), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(2, 60),  # clusters
            st.integers(2, 40),  # placements
            st.integers(0, 10_000),  # seed
            st.sampled_from(["optimal", "greedy"]),
            st.sampled_from(["yaml", "json", "plan", "diff"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_fleet_in_parts_is_the_whole_runs_bytes(tmp_path_factory, drawn):
    # Hubs of any size and state (the generator gives about 40% of the placements bindings and
    # snapshots of an earlier run), each cut wherever its placements fall.
    folder = tmp_path_factory.mktemp("hubs")
    cases = []
    for number, (clusters, placements, seed, mode, output) in enumerate(drawn):
        path = folder / f"hub{number}.json"
        path.write_text(json.dumps(_hub(seed, clusters=clusters, placements=placements)), encoding="utf-8")
        cases.append([str(path), mode, output])
    assert _fresh("each_in_a_fork", cases) == [[True, True]] * len(cases)


def lost_child(path: str, how: str) -> list[bool]:
    if how == "never started":  # no fork to be had: the parent makes that part itself
        forked._start = lambda *args, **kwargs: None
    else:  # the child sends its status, then is gone: the parent finishes its part from there
        parent, messages = os.getpid(), parts._part_messages

        def dies_after_its_status(task: Any) -> Any:
            for number, message in enumerate(messages(task)):
                if number == 1 and os.getpid() != parent:
                    os._exit(9)
                yield message

        parts._part_messages = dies_after_its_status
    objects = _read(path)
    text = _in_parts(objects, "json")
    return [text is not None, text == _whole(objects, "json")]


@pytest.mark.parametrize("how", ["never started", "gone after its status"])
def test_a_child_lost_is_made_up_here(tmp_path, how):
    assert _fresh("lost_child", _written(tmp_path, _hub(5)), how) == [True, True]


def piped(path: str, output: str, spill: bool) -> list[Any]:
    """[the parts' text is the whole run's, the bytes that came through children's pipes, the
    text's size]; `spill` False: no temporary file to be had for a child's text."""
    if not spill:
        parts._Spill.made = classmethod(lambda cls: None)
    came, arriving = [0], forked._arriving

    def counted(*args: Any) -> Any:
        for chunk in arriving(*args):
            came[0] += len(chunk)
            yield chunk

    forked._arriving = counted
    objects = _read(path)
    text = _in_parts(objects, output)
    return [text == _whole(objects, output), came[0], len(text or b"")]


@pytest.mark.parametrize("output", ["yaml", "json", "plan", "diff"])
def test_a_childs_text_is_read_from_its_file_not_through_the_pipe(tmp_path, output):
    path = _written(tmp_path, _hub(5, clusters=60, placements=40))
    same, came, size = _fresh("piped", path, output, True)
    assert same and came < size // 20  # the statuses and the sections' places only
    same, came, size = _fresh("piped", path, output, False)
    assert same and came > size // 3  # no file: the child's half comes through the pipe


@pytest.mark.parametrize("output", ["yaml", "json", "plan", "diff"])
@pytest.mark.parametrize(
    "bad", [None, False, True], ids=["good", "bad in the first part", "bad in the second"]
)
def test_the_command_writes_what_it_writes_in_one_batch(tmp_path, monkeypatch, output, bad):
    objects = _hub(6)
    if bad is not None:
        _binding_of(objects, bad)["spec"]["state"] = 7  # any string is a state; a number is none
    args = ["solve", "-f", str(write_yaml(tmp_path / "hub.yaml", objects)), "--now", NOW, "-o", output]
    used, code, stdout, stderr = fresh("tests.fixtures.parts:command", args)
    assert used == [bad is None]
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    whole = run_cli(args)
    assert code == whole.exit_code == (0 if bad is None else 2)
    if output == "plan" and bad is None:  # the summary's timings differ run to run
        stdout, whole_stdout = (_untimed(output, text.encode()).decode() for text in (stdout, whole.stdout))
    else:
        whole_stdout = whole.stdout
    assert (stdout, stderr) == (whole_stdout, whole.stderr)
    if bad is not None:
        assert "spec.state: expected a string, got an integer" in stderr


# ------------------------------------------------------------------------------ or the whole run


def _binding_of(objects: list[dict[str, Any]], last: bool) -> dict[str, Any]:
    bindings = sorted(
        (o for o in objects if o["kind"] == n.BINDING), key=lambda o: o["metadata"]["labels"][n.PARENT_LABEL]
    )
    assert len({b["metadata"]["labels"][n.PARENT_LABEL] for b in bindings}) > 2
    return bindings[-1 if last else 0]


def refused(path: str, variant: str) -> list[int]:
    """[whether the input was scheduled in parts, how many parts were started]"""
    started: list[int] = []
    stream = forked.stream

    def counted(func: Any, item: Any, **options: Any) -> forked.Stream:
        started.append(1)
        return stream(func, item, **options)

    forked.stream = counted
    objects = _read(path)
    if variant == "duplicate":  # the same binding name in both parts: one batch refuses it
        _binding_of(objects, True)["metadata"]["name"] = _binding_of(objects, False)["metadata"]["name"]
    elif variant == "same new names":  # new bindings named by their cluster: both parts make them
        emit = importlib.import_module("adapters.fleet.emit")  # the module (the package exports a function)
        emit.binding_name = lambda crp, cluster, seed, taken: f"b-{cluster}"
    elif variant == "reads what another writes":  # a cut giving both parts the same placements
        both = lambda ms, k: Cut([], [list(ms), list(ms)])  # noqa: E731
        _cut_by("fleet", both)
    elif variant == "deletes what another reads":  # the first part deletes a binding of the second
        fleet_emit, other = importlib.import_module("adapters.fleet.emit").emit, _binding_of(objects, True)

        def deleting(context: Any, result: Any) -> Any:
            emitted = fleet_emit(context, result)
            if other["metadata"]["labels"][n.PARENT_LABEL] not in context.placements:
                emitted.delete.append(manifests.object_reference(other))
            return emitted

        _EMIT["emit"] = deleting
        systems._RECORDS["fleet"] = dataclasses.replace(
            systems.system("fleet"), emit="tests.test_parts:_emit"
        )
        systems.adapter.cache_clear()
    elif variant == "coupled":  # OCM's Balance couples placements: parts would change the answer
        balance = [ocm.builtin("Balance", 2)]
        objects = ocm.hub(*(ocm.managed_cluster(f"c{i}") for i in range(4))) + [
            ocm.placement(f"p{i}", n=1, prioritizers=balance, mode="Exact") for i in range(4)
        ]
        loaded = from_objects(objects, "ocm")
        try:
            schedule_part("ocm", loaded, now=NOW_TIME, options=SolveOptions(), config=None)
            return [-1, -1]
        except NotSeparable:
            pass
        shared = [m for m in loaded if m.kind != "Placement"]
        placements = [m for m in loaded if m.kind == "Placement"]  # two to each part: nothing clashes
        halves = Cut(shared, [placements[:2], placements[2:]])
        _cut_by("ocm", lambda ms, k: halves)
    text = _in_parts(objects, "json")
    return [text is not None, len(started)]


_CUT: dict[str, Any] = {}
_EMIT: dict[str, Any] = {}


def _emit(context: Any, result: Any) -> Any:
    return _EMIT["emit"](context, result)


def _test_cut(manifests: Any, parts: int) -> Any:
    return _CUT["cut"](manifests, parts)


def _cut_by(name: str, cut: Any) -> None:
    """The system's record, cutting by `cut` (in this fresh process only)."""
    _CUT["cut"] = cut
    systems._RECORDS[name] = dataclasses.replace(systems.system(name), cut="tests.test_parts:_test_cut")
    systems.adapter.cache_clear()


@pytest.mark.parametrize(
    ("variant", "started"),
    [
        ("duplicate", 1),
        ("same new names", 1),
        ("reads what another writes", 1),
        ("deletes what another reads", 1),
        ("coupled", 1),
    ],
)
def test_parts_that_fail_or_clash_leave_the_input_to_one_batch(tmp_path, variant, started):
    assert _fresh("refused", _written(tmp_path, _hub(7)), variant) == [False, started]


def clusters_loaded(path: str, output: str, bad: bool) -> list[Any]:
    """[whether the input was scheduled in parts, every process's loads of the clusters (their
    pids), this process's pid, the same bytes as one batch]: `bad` gives a cluster a property
    Fleet's load refuses."""
    objects = _read(path)
    if bad:
        member = next(o for o in objects if o["kind"] == n.MEMBER_CLUSTER)
        member["status"]["properties"] = {"cpus": {"value": "many"}}
    read, write = os.pipe()
    clusters = fleet_load._clusters

    def counted(*args: Any) -> Any:
        os.write(write, f"{os.getpid()}\n".encode())  # a forked run's load says so too
        return clusters(*args)

    fleet_load._clusters = counted
    text = _in_parts(objects, output)
    fleet_load._clusters = clusters
    os.close(write)
    with os.fdopen(read) as said:
        loads = [int(line) for line in said]
    return [text is not None, loads, os.getpid(), text is None or text == _whole(objects, output)]


@pytest.mark.parametrize("output", ["yaml", "plan"])
def test_the_clusters_every_part_reads_are_loaded_once_before_the_fork(tmp_path, output):
    """Every part reads every cluster: they are loaded once, here, and each forked run finds them
    loaded (heap.reused); a cluster the load refuses leaves the input to one batch, as a part's
    refusal would."""
    cut, loads, pid, same = _fresh("clusters_loaded", _written(tmp_path, _hub(5)), output, False)
    assert (cut, loads, same) == (True, [pid], True)
    cut, loads, pid, same = _fresh("clusters_loaded", _written(tmp_path, _hub(5)), output, True)
    assert (cut, loads) == (False, [pid])


def imported_before_the_runs(path: str) -> list[Any]:
    """[whether numpy.ma was imported before the input was cut, whether the input was scheduled in
    parts, whether numpy.ma was imported when each forked run began]."""
    before = "numpy.ma" in sys.modules
    read, write = os.pipe()
    messages = parts._part_messages

    def spied(task: Any) -> Any:
        os.write(write, b"1" if "numpy.ma" in sys.modules else b"0")
        return messages(task)

    parts._part_messages = spied
    text = _in_parts(_read(path), "json")
    os.close(write)
    with os.fdopen(read, "rb") as said:
        return [before, text is not None, list(said.read().decode())]


def test_a_forked_run_does_not_import_what_every_run_imports(tmp_path):
    """numpy.ma (every part's solve imports it, 0.03 CPU s) is imported once before the runs fork."""
    assert _fresh("imported_before_the_runs", _written(tmp_path, _hub(5))) == [False, True, ["1"]]


_JSON = parts.FORMATS["json"]


def test_no_parts_with_one_worker_live_progress_or_polars_at_work(monkeypatch):
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    loaded = from_objects(_hub(), "hub")
    options = SolveOptions()
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    assert parts.schedule_in_parts(loaded, now=NOW_TIME, options=options, config=None, output=_JSON) is None
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(forked, "polars_idle", lambda: True)
    shown = SolveOptions(progress=lambda progress: None)
    assert parts.schedule_in_parts(loaded, now=NOW_TIME, options=shown, config=None, output=_JSON) is None
    monkeypatch.undo()
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    assert not forked.polars_idle()  # this test process has solved before
    assert parts.schedule_in_parts(loaded, now=NOW_TIME, options=options, config=None, output=_JSON) is None


def test_an_input_no_system_cuts_is_not_routed_twice(monkeypatch):
    """kcp and openMCP do not cut: the look at the kinds says so, without owned_by's checks of
    every object, which the whole run then makes (0.2 s at 80,000 objects)."""
    from tests.fixtures.kcp import compute_v08, namespace_v08, sync_target

    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(forked, "polars_idle", lambda: True)
    routed = []
    monkeypatch.setattr(parts, "owned_by", lambda objects: routed.append(objects) or {})
    loaded = from_objects([*compute_v08(), sync_target("a"), namespace_v08("n")], "hub")
    options = SolveOptions()
    assert parts.schedule_in_parts(loaded, now=NOW_TIME, options=options, config=None, output=_JSON) is None
    assert routed == []


def polars_pool() -> list[bool]:
    import polars as pl

    before = forked.polars_idle()
    pl.DataFrame({"a": [1, 2]}).lazy().select(pl.col("a").sum()).collect()
    return [before, forked.polars_idle()]


def test_polars_is_idle_until_it_computes():
    assert _fresh("polars_pool") == [True, False]


# ------------------------------------------------------------------------------------ Fleet's cut


def test_fleet_cut_keeps_each_placement_with_its_objects_and_every_cluster(monkeypatch):
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    objects = _hub(8, clusters=20, placements=40)
    orphan = dict(
        _binding_of(objects, False), metadata={"name": "orphan", "labels": {n.PARENT_LABEL: "gone"}}
    )
    objects.append(orphan)
    loaded = from_objects(objects, "hub")
    cut = fleet_load.cut(loaded, 3)
    assert cut is not None and len(cut.own) == 3
    clusters = [m for m in loaded if m.kind == n.MEMBER_CLUSTER]
    assert cut.shared == clusters
    placed = [sorted(m.name for m in own if m.kind == n.PLACEMENT) for own in cut.own]
    assert [name for names in placed for name in names] == sorted(
        m.name for m in loaded if m.kind == n.PLACEMENT
    )
    for index, own in enumerate(cut.own):
        assert cut.part(index) == [*cut.shared, *own]
        for m in own:
            assert m.kind != n.MEMBER_CLUSTER
            if m.kind in (n.BINDING, n.POLICY_SNAPSHOT):
                parent = m.obj["metadata"]["labels"][n.PARENT_LABEL]
                assert parent in placed[index] or (index == 0 and m.name == "orphan")
    counts = Counter(id(m) for own in [cut.shared, *cut.own] for m in own)
    assert {id(m) for m in loaded} == set(counts) and set(counts.values()) == {1}
    sizes = [len(own) for own in cut.own]
    assert max(sizes) - min(sizes) <= max(sizes) // 2  # about equal work


def test_every_part_gets_a_placement_whatever_their_work(monkeypatch):
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    for seed in range(6):
        for placements, parts_wanted in ((2, 2), (3, 3), (5, 3)):
            loaded = from_objects(_hub(seed, clusters=10, placements=placements), "hub")
            cut = fleet_load.cut(loaded, parts_wanted)
            assert cut is not None
            assert len(cut.own) == parts_wanted
            assert all(any(m.kind == n.PLACEMENT for m in own) for own in cut.own)


def test_a_fleet_is_cut_only_where_its_placements_outweigh_its_clusters(monkeypatch):
    loaded = from_objects(_hub(clusters=40, placements=30), "hub")
    assert fleet_load.cut(loaded, 2) is None  # fewer than CUT_PLACEMENTS placements
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 30)
    assert fleet_load.cut(loaded, 2) is not None
    assert fleet_load.cut(loaded, 1) is None  # one worker
    many_clusters = from_objects(_hub(clusters=40, placements=3), "hub")  # 13 clusters a placement
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    assert fleet_load.cut(many_clusters, 2) is None
    monkeypatch.setattr(fleet_load, "CUT_CLUSTERS_PER_PLACEMENT", 14)
    assert fleet_load.cut(many_clusters, 2) is not None


# -------------------------------------------------------------------------------- joined writers


@pytest.mark.parametrize("size", [0, 1, 3, 1024, 1025, 2600])
def test_runs_of_items_joined_are_the_list_and_the_stream(size):
    objects = [
        {"apiVersion": "v1", "kind": "K", "metadata": {"name": f"o{i}"}, "data": {"n": i}}
        for i in range(size)
    ]
    # What every cut must write, read back once (each cut's bytes are then compared to these:
    # the same assertions, the YAML parse of 2,600 objects not repeated per cut).
    whole: list[bytes] = []
    write_json_list(objects, whole.append)
    whole_text = b"".join(bytes(p) for p in whole)
    assert json.loads(whole_text)["items"] == objects
    # ... and the List as json.dumps writes it, which no piece of the writers makes
    reference = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=2) + "\n"
    assert whole_text == reference.encode("utf-8")
    stream = manifests.encode_yaml_stream(objects)
    assert list(yaml.safe_load_all(stream)) == objects
    for cuts in ([], [0], [size], [size // 2], [1, size // 3, size // 3, size]):
        bounds = [0, *sorted(min(c, size) for c in cuts), size]
        runs = [objects[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        listed: list[bytes] = []
        manifests.write_json_list_runs((json_items(r) for r in runs), listed.append)
        assert b"".join(bytes(p) for p in listed) == whole_text
        streamed: list[bytes] = []
        manifests.write_yaml_runs((yaml_items(r) for r in runs), streamed.append)
        assert b"".join(streamed) == stream


def _summary(models: int, clusters: int = 5, bound: int | None = 12) -> dict[str, Any]:
    levels = [{"name": "clusters-short", "objective": 2, "bound": None if bound is None else 1, "gap": None}]
    return {
        "mode": "optimal",
        "status": "OPTIMAL" if bound == 10 else "FEASIBLE",
        "objective": 10,
        "bound": bound,
        "gap": None,
        "levels": levels,
        "wall_seconds": 0.5,
        "build_seconds": 0.25,
        "solve_seconds": 0.125,
        "time_limited": False,
        "models": models,
        "requests": 3,
        "clusters": clusters,
        "unsatisfied": 1,
        "systems": {"fleet": {"requests": 3, "clusters": clusters, "unsatisfied": 1}},
    }


def test_the_parts_summaries_join_into_one_batchs():
    joined = summary_of_cut([_summary(0, bound=10), _summary(2)])
    assert joined is not None
    assert list(joined) == list(_summary(0))
    assert (joined["status"], joined["objective"], joined["bound"], joined["gap"]) == (
        "FEASIBLE",
        20,
        22,
        0.1,
    )
    assert joined["levels"] == [{"name": "clusters-short", "objective": 4, "bound": 2, "gap": 0.5}]
    assert (joined["models"], joined["requests"], joined["clusters"], joined["unsatisfied"]) == (2, 6, 5, 2)
    assert joined["systems"] == {"fleet": {"requests": 6, "clusters": 5, "unsatisfied": 2}}
    unproven = summary_of_cut([_summary(0), _summary(0, bound=None)])
    assert unproven is not None and unproven["bound"] is None and unproven["gap"] is None
    assert unproven["levels"][0]["bound"] is None


def test_summaries_that_may_count_a_search_twice_or_disagree_on_the_clusters_do_not_join():
    # One batch searches a request once for every request asking the same: two parts that each
    # searched may have searched one such request twice.
    assert summary_of_cut([_summary(1), _summary(1)]) is None
    assert summary_of_cut([_summary(0), _summary(0, clusters=6)]) is None


def test_a_plan_orjson_cannot_write_whole_is_made_in_one_batch():
    summary = _summary(0)
    written = (summary, 1, 0, [], True)
    assert parts._plan_joined([written, written], [[[]], [[]]]) is not None
    assert parts._plan_joined([written, (summary, 1, 0, [], False)], [[[]], [[]]]) is None
    assert manifests.orjson_items([{"n": 1 << 70}]) is None  # json would write the whole plan
    beyond = ({**summary, "objective": 1 << 70}, 1, 0, [], True)
    assert parts._plan_joined([beyond, written], [[[]], [[]]]) is None


@pytest.mark.parametrize("size", [0, 1, 1024, 1025, 2600])
def test_a_document_led_by_a_list_in_runs_is_the_whole_documents_text(size):
    objects = [{"kind": "K", "n": i, "f": 1e-5, "s": "é"} for i in range(size)]
    rest = {"delete": [{"name": "x"}], "summary": {"levels": [], "n": 5}}
    write_document = manifests.json_lead_list("apply", rest)
    assert write_document is not None
    for cuts in ([], [0], [size], [size // 2], [1, size // 3, size]):
        bounds = [0, *sorted(min(c, size) for c in cuts), size]
        runs = [manifests.orjson_items(objects[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
        out: list[bytes] = []
        write_document(runs, out.append)
        whole: list[bytes] = []
        manifests.write_json({"apply": objects, **rest}, whole.append)
        assert b"".join(bytes(p) for p in out) == b"".join(whole)
    assert manifests.json_lead_list("apply", {"summary": 1 << 70}) is None


def child_done_unread(path: str) -> list[Any]:
    """[the parts' text is the whole run's, whether the child had made its whole text and left
    before this process took any of its messages]: a child whose statuses outgrow the pipe."""
    pids: list[int] = []
    start, made = forked._start, parts._made

    def started(*args: Any, **kwargs: Any) -> Any:
        child = start(*args, **kwargs)
        pids.append(child[0])
        return child

    def made_once_the_child_is_done(job: Any, index: int) -> Any:
        if pids and len(pids) < 2:  # this process's first part: wait for the child (at most 20 s)
            pids.append(-1)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not _exited(pids[0]):
                time.sleep(0.05)
            done.append(_exited(pids[0]))
        return made(job, index)

    done: list[bool] = []
    forked._start, parts._made = started, made_once_the_child_is_done
    objects = _read(path)
    text = _in_parts(objects, "yaml")
    return [text == _whole(objects, "yaml"), done]


def _exited(pid: int) -> bool:
    """Whether the child has exited (a zombie, not yet reaped)."""
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_childs_statuses_do_not_wait_for_this_process_to_take_them(tmp_path):
    # A child sends its parts' statuses (every object each part reads and writes: megabytes at
    # 10,000 x 50,000), then makes its last part's text. Through the pipe (64 KB), it waited
    # until this process, done with its own parts, took them; through its file, it goes on.
    path = _written(tmp_path, _hub(5, clusters=40, placements=600))
    assert os.path.getsize(path) > 1 << 20
    assert _fresh("child_done_unread", path) == [True, [True]]


def test_a_parts_status_holds_a_hash_of_each_object_it_touches_not_its_name(monkeypatch):
    # A child sends its parts' statuses, which this process then joins: as names, tens of MB at
    # 10,000 x 50,000, marshalled, read back and joined in sets after every part is made.
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    monkeypatch.setattr(fleet_load, "CUT_CLUSTERS_PER_PLACEMENT", 1 << 30)
    pieces = fleet_load.cut(from_objects(_hub(5), "hub"), 2)
    job = parts._Job(
        "fleet",
        2,
        functools.partial(parts._cut_part, pieces),
        NOW_TIME,
        SolveOptions(),
        None,
        parts.FORMATS["yaml"],
    )
    statuses = [parts._made(job, index) for index in range(2)]
    for index, (outcome, status, _) in enumerate(statuses):
        own = parts._identities(m.obj for m in pieces.own[index])
        touched = own | parts._identities(outcome.apply) | parts._deleted(outcome.delete)
        assert len(touched) > 50
        assert len(marshal.dumps(status[:-1])) <= 8 * len(touched) + 64
    seen, deletions = parts._claimed(np.empty(0, dtype=np.int64), 0, statuses[0][1])
    parts._claimed(seen, deletions, statuses[1][1])  # disjoint
    with pytest.raises(parts._Failed):  # the same part twice: a clash
        parts._claimed(seen, deletions, statuses[0][1])


def test_a_parts_hashes_are_each_once_sorted_and_none_for_nothing_touched() -> None:
    identities = {("v1", "A", "ns", str(i)) for i in range(40)}
    hashes = np.frombuffer(parts._hashed(identities), dtype=np.int64)
    assert sorted(set(hashes.tolist())) == hashes.tolist() and len(hashes) == 40
    assert parts._hashed(set()) == b""
    seen, _ = parts._claimed(np.empty(0, dtype=np.int64), 0, (b"", 0, False, None))
    assert len(seen) == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(0, 5), max_size=60))
def test_a_looks_documents_sorted_each_once_are_np_uniques(numbers: list[int]) -> None:
    array = np.asarray(numbers, dtype=np.int64)
    assert parts._distinct(array).tolist() == np.unique(array).tolist()


def test_the_looks_stubs_are_routed_by_kind_and_api_version() -> None:
    """Each stub's document goes to its system's numbers or to the others' (no stub, a kind no
    system owns, or a system's kind at an apiVersion of another group)."""
    cluster = {"apiVersion": "cluster.kubernetes-fleet.io/v1beta1", "kind": n.MEMBER_CLUSTER}
    placement = {"apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": n.PLACEMENT}
    stubs = [
        cluster,
        None,
        {"apiVersion": "v1", "kind": "ConfigMap"},
        placement,
        cluster,
        {"apiVersion": "v1", "kind": n.MEMBER_CLUSTER},
        placement,
    ]
    assert parts._routed(stubs) == ("fleet", [0, 3, 4, 6], [1, 2, 5])
    assert parts._routed([None, {"apiVersion": "v1", "kind": "ConfigMap"}]) is None
    with pytest.raises(TypeError):  # an unhashable kind: _planned then reads the file as ever
        parts._routed([{"apiVersion": "v1", "kind": ["a"]}])


# ------------------------------------------------------------------------ a search the clock cut


def cut_parts(path: str, cut: bool) -> list[Any]:
    """Whether the parts' run says the wall clock cut a search, the solves of the parts a forked
    child makes (it sees the same patch) made to report `cut` and this process's not, and whether
    its output's bytes are unchanged."""
    real = parts.schedule_part
    here = os.getpid()

    def reported(*args: Any, **kwargs: Any) -> Any:
        outcome = real(*args, **kwargs)
        outcome.summary["time_limited"] = cut and os.getpid() != here
        return outcome

    fleet_load.CUT_PLACEMENTS = 2
    fleet_load.CUT_CLUSTERS_PER_PLACEMENT = 1 << 30
    parts.schedule_part = reported
    parted = parts.schedule_in_parts(
        from_objects(_read(path), "hub"), now=NOW_TIME, options=SolveOptions(), config=None, output=_JSON
    )
    out: list[bytes] = []
    parted.write(out.append)
    return [parted.time_limited, b"".join(bytes(piece) for piece in out) == _whole(_read(path), "json")]


@pytest.mark.parametrize("cut", [True, False])
def test_the_parts_say_whether_the_wall_clock_cut_a_search(tmp_path, cut):
    # The objects to write (YAML, JSON) cannot say it; the command's note reads Parted.time_limited.
    assert _fresh("cut_parts", _written(tmp_path, _hub(3)), cut) == [cut, True]
