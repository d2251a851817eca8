"""A large file read in its parts (adapters.run.parts.schedule_file_in_parts, adapters.kube.stubs):
each part parses only its own documents, and the output is the bytes one batch writes, or the file
is read as ever (None) wherever a part's reading could differ from the whole file's."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from adapters.fleet import names as n
from adapters.fleet.generate import generate_fleet
from adapters.kube import stubs
from adapters.kube.manifests import (
    encode_json_list,
    encode_yaml_stream,
    from_objects,
    read_sources,
    write_json,
)
from adapters.registry import owned_by
from adapters.run import forked, parts
from adapters.run.changes import diff_of, plan_of
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions
from tests.fixtures.common import NOW, NOW_TIME
from tests.fixtures.parts import fresh

_HERE = "tests.test_file_parts"
fleet_load = importlib.import_module("adapters.fleet.load")  # the module (the package exports its function)


def _hub(seed: int, clusters: int = 40, placements: int = 30) -> list[dict[str, Any]]:
    return generate_fleet(clusters, placements, seed=seed, now=NOW)


def _file(tmp_path: Path, objects: list[dict[str, Any]], kind: str, name: str = "hub") -> str:
    path = tmp_path / f"{name}.{kind}"
    path.write_bytes(encode_json_list(objects) if kind == "json" else encode_yaml_stream(objects))
    return str(path)


def _text(output: str, write: Any) -> bytes:
    out: list[bytes] = []
    write(out.append)
    text = b"".join(bytes(piece) for piece in out)
    if output != "plan":
        return text
    plan = json.loads(text)
    for timing in ("wall_seconds", "build_seconds", "solve_seconds"):
        plan["summary"][timing] = 0
    return json.dumps(plan).encode()


def in_parts(path: str, output: str, mode: str) -> list[Any]:
    """[whether the file was read in parts, whether its output is one batch's bytes]"""
    importlib.import_module("adapters.fleet.load").CUT_PLACEMENTS = 2
    options = SolveOptions(mode=mode)
    parted = parts.schedule_file_in_parts(
        path, now=NOW_TIME, options=options, config=None, output=parts.FORMATS[output]
    )
    if parted is None:
        return [False, None]
    mine = _text(output, parted.write)
    manifests = read_sources([path])
    outcome = schedule_manifests(manifests, now=NOW_TIME, options=options)
    whole = {
        "yaml": lambda: _text(output, lambda w: w(encode_yaml_stream(outcome.apply))),
        "json": lambda: _text(output, lambda w: w(encode_json_list(outcome.apply))),
        "plan": lambda: _text(output, lambda w: write_json(plan_of(outcome, manifests), w)),
        "diff": lambda: diff_of(outcome, manifests).encode(),
    }[output]()
    return [True, mine == whole]


@pytest.mark.parametrize("kind", ["yaml", "json"])
@pytest.mark.parametrize(
    ("seed", "output", "mode"),
    [(1, "yaml", "optimal"), (2, "json", "greedy"), (3, "plan", "optimal"), (4, "diff", "greedy")],
)
def test_a_file_read_in_its_parts_gives_one_batchs_bytes(tmp_path, kind, seed, output, mode):
    path = _file(tmp_path, _hub(seed), kind)
    assert fresh(f"{_HERE}:in_parts", path, output, mode) == [True, True]


def in_runs(path: str, output: str, mode: str, part_bytes: int) -> list[Any]:
    """in_parts of a file cut in parts of at most `part_bytes`, and how many parts this process
    (the first worker of two) read, one after another."""
    parts._PART_BYTES = part_bytes
    read_here: list[int] = []
    file_part = parts._file_part

    def spied(*a: Any, **k: Any) -> Any:
        read_here.append(a[-1])
        return file_part(*a, **k)

    parts._file_part = spied
    return [*in_parts(path, output, mode), read_here]


@pytest.mark.parametrize(
    ("kind", "output", "mode"),
    [
        ("yaml", "yaml", "optimal"),
        ("json", "json", "greedy"),
        ("yaml", "plan", "greedy"),
        ("json", "diff", "optimal"),
    ],
)
def test_a_file_read_in_more_parts_than_workers_gives_one_batchs_bytes(tmp_path, kind, output, mode):
    path = _file(tmp_path, _hub(11, placements=60), kind)
    size = Path(path).stat().st_size
    # Six parts of the file's bytes, three a worker, each worker's made one after another.
    assert fresh(f"{_HERE}:in_runs", path, output, mode, size // 6 + 1) == [True, True, [0, 1, 2]]


def read_once(path: str, output: str, part_bytes: int) -> list[Any]:
    """in_parts of a file cut in parts of at most `part_bytes`, and how many documents and
    MemberClusters this process (the first worker of two) parsed and loaded for its parts."""
    parts._PART_BYTES = part_bytes
    parsed, loaded = [0], [0]
    parse, load_cluster = stubs.parse, fleet_load.load_cluster

    def parsing(data: Any, spans: Any, json: bool) -> Any:
        parsed[0] += len(spans)
        return parse(data, spans, json)

    def loading(*a: Any) -> Any:
        loaded[0] += 1
        return load_cluster(*a)

    stubs.parse, fleet_load.load_cluster = parsing, loading
    return [*in_parts(path, output, "optimal"), parsed[0], loaded[0]]


@pytest.mark.parametrize(("kind", "output"), [("yaml", "yaml"), ("json", "plan")])
def test_a_worker_parses_and_loads_the_shared_clusters_once_for_its_parts(tmp_path, kind, output):
    objects = _hub(11, placements=60)
    path = _file(tmp_path, objects, kind)
    size = Path(path).stat().st_size
    made, same, parsed, loaded = fresh(f"{_HERE}:read_once", path, output, size // 6 + 1)
    # Three parts here, each reading the 40 clusters: read and loaded once, not three times (the
    # whole run's reading, for the comparison, parses every document and loads every cluster).
    clusters = sum(o["kind"] == n.MEMBER_CLUSTER for o in objects)
    assert made and same and loaded == 2 * clusters
    assert parsed < len(objects) / 2 + 2 * clusters


def held_at_most(path: str, part_bytes: int) -> int:
    """The most memory this process (the first worker of two) held at once while it scheduled a
    file in its parts of at most `part_bytes` and wrote the output."""
    import tracemalloc

    importlib.import_module("adapters.fleet.load").CUT_PLACEMENTS = 2
    parts._PART_BYTES = part_bytes
    tracemalloc.start()
    parted = parts.schedule_file_in_parts(
        path, now=NOW_TIME, options=SolveOptions(), config=None, output=parts.FORMATS["yaml"]
    )
    assert parted is not None
    parted.write(lambda piece: None)
    return tracemalloc.get_traced_memory()[1]


def test_a_worker_lets_a_parts_objects_go_before_it_reads_the_next(tmp_path):
    path = _file(tmp_path, _hub(12, clusters=20, placements=160), "yaml")
    size = Path(path).stat().st_size
    half = fresh(f"{_HERE}:held_at_most", path, size)  # one part a worker, as before
    eighths = fresh(f"{_HERE}:held_at_most", path, size // 8 + 1)  # four parts a worker, in turn
    # The shared clusters, parsed and loaded once, are kept for the worker's run (heap.reusing);
    # each part's own objects go before the next is read (kept, this would near `half`).
    assert eighths < 0.62 * half


def memos_at_reading(path: str, part_bytes: int) -> list[int]:
    """How many strings the YAML writer's memos hold as this process (the first worker of two)
    reads each of its parts of a file cut in parts of at most `part_bytes`, and how many times it
    handed the allocator's free pages back (heap.trimmed)."""
    from adapters.kube import codec
    from adapters.run import heap

    trims: list[int] = []
    trimmed = heap.trimmed
    heap.trimmed = lambda: trims.append(1) or trimmed()

    importlib.import_module("adapters.fleet.load").CUT_PLACEMENTS = 2
    parts._PART_BYTES = part_bytes
    held: list[int] = []
    file_part = parts._file_part

    def reading(*a: Any, **k: Any) -> Any:
        held.append(codec._string.cache_info().currsize + len(codec._TAILS))
        return file_part(*a, **k)

    parts._file_part = reading
    parted = parts.schedule_file_in_parts(
        path, now=NOW_TIME, options=SolveOptions(), config=None, output=parts.FORMATS["yaml"]
    )
    assert parted is not None
    return [*held, len(trims)]


def test_a_worker_forgets_a_parts_text_memos_before_it_reads_the_next(tmp_path):
    # The memos hold the part's strings, which pin the allocator's pages of its objects: at
    # 10,000 x 50,000 hundreds of MB more under a worker's next part.
    path = _file(tmp_path, _hub(14, placements=60), "yaml")
    size = Path(path).stat().st_size
    # Three parts here: none of the memos' strings at each reading, the free pages handed back twice.
    assert fresh(f"{_HERE}:memos_at_reading", path, size // 6 + 1) == [0, 0, 0, 2]


def packed_held(path: str) -> list[int]:
    """How many references the look's packed answer (tens of MB at 10,000 x 50,000) has, the
    test's own aside, while the parts of a file are made: [at the first part's reading]."""
    import marshal
    import sys
    import types

    importlib.import_module("adapters.fleet.load").CUT_PLACEMENTS = 2
    packed: list[bytes] = []
    held: list[int] = []

    def loads(data: Any) -> Any:
        if not packed:
            packed.append(data)
        return marshal.loads(data)

    parts.marshal = types.SimpleNamespace(loads=loads, dumps=marshal.dumps)
    file_part = parts._file_part

    def reading(*a: Any, **k: Any) -> Any:
        if not held:  # this list, getrefcount's argument: 2 where nothing else holds it
            held.append(sys.getrefcount(packed[0]) - 2)
        return file_part(*a, **k)

    parts._file_part = reading
    parted = parts.schedule_file_in_parts(
        path, now=NOW_TIME, options=SolveOptions(), config=None, output=parts.FORMATS["yaml"]
    )
    assert parted is not None
    return held


def test_the_looks_packed_answer_is_let_go_before_the_parts_are_made(tmp_path):
    # Held while the parts are made, it is held by every forked child too: twice its size at once.
    path = _file(tmp_path, _hub(13), "yaml")
    assert fresh(f"{_HERE}:packed_held", path) == [0]


def test_a_stream_whose_first_document_has_no_marker(tmp_path):
    path = tmp_path / "hub.yaml"
    text = encode_yaml_stream(_hub(5)).decode()
    path.write_text("# a hub\n" + text.removeprefix("---\n"), encoding="utf-8")
    assert fresh(f"{_HERE}:in_parts", str(path), "yaml", "optimal") == [True, True]


def _binding(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == n.BINDING)


def _edited(tmp_path: Path, variant: str) -> str:
    objects = _hub(6)
    if variant == "bad object":  # a part fails: the file's reading words the error
        _binding(objects)["spec"]["state"] = 7
    if variant == "second system":
        objects.append(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": "c1"},
            }
        )
    path = Path(_file(tmp_path, objects, "yaml"))
    text = path.read_text(encoding="utf-8")
    name = _binding(objects)["metadata"]["name"]
    parent = _binding(objects)["metadata"]["labels"][n.PARENT_LABEL]
    labels = f"  name: {name}\n  labels:\n    {n.PARENT_LABEL}: {parent}\n"
    assert labels in text
    if variant == "labels in flow style":  # the look reads none: the stub differs from the object
        text = text.replace(labels, f"  name: {name}\n  labels: {{{n.PARENT_LABEL}: {parent}}}\n")
    elif variant == "kind with a comment":  # the look reads no system's kind: it is one's after all
        text = text.replace(
            f"kind: {n.BINDING}\nmetadata:\n{labels}", f"kind: {n.BINDING} # c\nmetadata:\n{labels}"
        )
    elif variant == "directive":
        text = "%YAML 1.1\n" + text
    elif variant == "duplicate key":  # the look reads one name; the reader refuses the document
        text = text.replace(
            labels, f"  name: {name}\n  name: {name}\n  labels:\n    {n.PARENT_LABEL}: {parent}\n"
        )
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "variant",
    [
        "bad object",
        "second system",
        "labels in flow style",
        "kind with a comment",
        "directive",
        "duplicate key",
    ],
)
def test_a_file_whose_parts_could_read_otherwise_is_read_as_ever(tmp_path, variant):
    assert fresh(f"{_HERE}:in_parts", _edited(tmp_path, variant), "yaml", "optimal") == [False, None]


def test_a_json_item_holding_a_key_twice_is_read_as_ever(tmp_path):
    path = Path(_file(tmp_path, _hub(7), "json"))
    text = path.read_text(encoding="utf-8")
    first = re.search(r'"kind": "ClusterResourceBinding"', text)
    assert first is not None
    path.write_text(
        text[: first.end()] + ', "kind": "ClusterResourceBinding"' + text[first.end() :], encoding="utf-8"
    )
    assert fresh(f"{_HERE}:in_parts", str(path), "json", "optimal") == [False, None]


def file_command(args: list[str]) -> list[Any]:
    """[whether the file was read in its parts, the exit status, stdout, stderr] of the command
    line, any file read in its parts."""
    from click.testing import CliRunner

    from adapters.cli import main as cli

    importlib.import_module("adapters.fleet.load").CUT_PLACEMENTS = 2
    cli._FILE_PARTS = 0
    used: list[bool] = []
    scheduled = parts.schedule_file_in_parts

    def spied(*a: Any, **k: Any) -> Any:
        parted = scheduled(*a, **k)
        used.append(parted is not None)
        return parted

    parts.schedule_file_in_parts = spied
    forked.allow()
    result = CliRunner().invoke(cli.main, args, catch_exceptions=True)
    return [used, result.exit_code, result.stdout, result.stderr]


@pytest.mark.parametrize("bad", [False, True])
def test_the_command_reads_a_large_file_in_its_parts_or_as_ever(tmp_path, monkeypatch, bad):
    objects = _hub(8)
    if bad:
        _binding(objects)["spec"]["state"] = 7
    args = ["solve", "-f", _file(tmp_path, objects, "yaml"), "--now", NOW, "-q"]
    used, code, stdout, stderr = fresh(f"{_HERE}:file_command", args)
    assert used == [not bad]
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    from tests.fixtures.common import run_cli

    whole = run_cli(args)
    assert (code, stdout, stderr) == (whole.exit_code, whole.stdout, whole.stderr)
    assert code == (2 if bad else 0)


# ------------------------------------------------------------------------------------- the look


def _looked(text: bytes) -> list[Any] | None:
    """Each document's stub and view, as keys; None where the fast reader is not sure of the file
    (its parts would then read it as ever)."""
    found = stubs.look(text, "x.yaml")
    assert found is not None
    spans = list(zip(found.starts.tolist(), found.ends.tolist(), strict=True))
    parsed = stubs.parse(text, spans, found.json)
    if parsed is None:
        return None
    return [[stub, stubs.view(doc)] for stub, doc in zip(found.objects, parsed, strict=True)]


def test_the_look_reads_what_the_reader_reads_or_nothing():
    text = (
        b"# comment\n"
        b"apiVersion: v1\nkind: A\nmetadata:\n  name: first\n  labels:\n    k: 'v'\n    q: \"w\"\n"
        b"---\napiVersion: v1\nkind: B\nspec:\n  name: not-this\nmetadata:\n  namespace: ns\n  name: b\n"
        b"---\napiVersion: v1\nkind: C\nmetadata:\n  labels: {a: b}\n  name: c\n"
        b"---\n{apiVersion: v1, kind: D, metadata: {name: d}}\n"
    )
    looked = _looked(text)
    assert looked is not None
    first = {"apiVersion": "v1", "kind": "A", "metadata": {"name": "first", "labels": {"k": "v", "q": "w"}}}
    assert looked[0][0] == looked[0][1] == first
    assert (
        looked[1][0]
        == looked[1][1]
        == {"apiVersion": "v1", "kind": "B", "metadata": {"name": "b", "namespace": "ns"}}
    )
    assert looked[2][0] != looked[2][1]  # flow-style labels: the look reads none, and the parts see it
    assert looked[3][0] is None  # flow style: no stub


def test_the_bundled_fleet_hub_read_in_its_parts_gives_one_batchs_bytes(tmp_path):
    # Written by hand: flow-style lists and maps, comments, quoting; wherever the look misreads a
    # document its part says so, and the file is read as ever.
    example = Path(__file__).parents[1] / "adapters" / "examples" / "fleet-demo.yaml"
    assert fresh(f"{_HERE}:in_parts", str(example), "plan", "optimal") in ([True, True], [False, None])


def test_a_parts_documents_read_run_by_run_are_the_streams(monkeypatch):
    text = encode_yaml_stream(_hub(9, clusters=12, placements=10))
    found = stubs.look(text, "x.yaml")
    assert found is not None
    spans = list(zip(found.starts.tolist(), found.ends.tolist(), strict=True))
    whole = stubs.parse(text, spans, json=False)
    monkeypatch.setattr(stubs, "_RUN", 700)  # a few documents a run
    assert len(stubs._runs(spans)) > 5
    assert stubs.parse(text, spans, json=False) == whole is not None
    assert stubs.parse(text, spans[3:9:2], json=False) == [whole[i] for i in range(3, 9, 2)]


def _looked_in_halves(monkeypatch, text: bytes) -> tuple[Any, list[Any]]:
    """The stream's look with two workers and no least size to split at, and the children it
    started (forked.background's arguments)."""
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(stubs, "_SPLIT_LOOK", 0)
    started: list[Any] = []
    background = forked.background
    monkeypatch.setattr(forked, "background", lambda *a: started.append(a) or background(*a))
    return stubs.look(text, "x.yaml"), started


def test_a_large_streams_halves_looked_at_apart_are_its_look(monkeypatch):
    text = encode_yaml_stream(_hub(10, clusters=30, placements=25))
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    alone = stubs.look(text, "x.yaml")
    halves, started = _looked_in_halves(monkeypatch, text)
    assert alone is not None and halves is not None and len(started) == 1
    assert halves.objects == alone.objects and all(o is not None for o in alone.objects)


def test_a_large_streams_look_is_shared_by_documents_not_bytes(monkeypatch):
    """A look's work goes by documents: this process looks at 49% of them (it also unpacks the
    child's stubs), the child at the rest, however the documents' bytes fall."""
    small = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"s{i}"}} for i in range(40)]
    large = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"l{i}"}, "data": {"x": "y" * 5000}}
        for i in range(10)
    ]
    text = encode_yaml_stream(small + large)
    found, started = _looked_in_halves(monkeypatch, text)
    assert found is not None and [o["metadata"]["name"] for o in found.objects] == [
        o["metadata"]["name"] for o in small + large
    ]
    ((_, (_, begins, _)),) = started
    assert len(begins) == 50 - 50 * 49 // 100 == 26


@pytest.mark.parametrize(
    "gaps",
    [[b",\n    "] * 4, [b",", b" ,\n", b",\t", b"\n,"], [b",\n "] * 3 + [b",\n  "]],
    ids=["one indentation", "every gap its own", "the last gap wider"],
)
def test_a_lists_items_are_found_by_their_own_bytes(gaps):
    items = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}, "data": {"k": "v" * i}}
        for i in range(5)
    ]
    texts = [json.dumps(item).encode() for item in items]
    data = b'{"apiVersion": "v1", "kind": "List", "items": [ ' + texts[0]
    data += b"".join(gap + text for gap, text in zip(gaps, texts[1:], strict=True)) + b"\n]}\n"
    looked = stubs.look(data, "list.json")
    assert looked is not None and looked.json
    spans = list(zip(looked.starts.tolist(), looked.ends.tolist(), strict=True))
    assert [data[start:end] for start, end in spans] == texts
    assert stubs.parse(data, spans[1:4], True) == items[1:4]


def lighter(path: str, output: str, pieces: int) -> list[Any]:
    """in_parts of a file in six parts (three a worker), made of a finer cut of `pieces` a run,
    and how many objects each of this process's parts owns."""
    parts._PART_BYTES = Path(path).stat().st_size // 6 + 1
    parts._PIECES = pieces
    owned: list[int] = []
    file_part = parts._file_part

    def counted(*a: Any, **k: Any) -> Any:
        read, own = file_part(*a, **k)
        owned.append(len(own))
        return read, own

    parts._file_part = counted
    result = in_parts(path, output, "optimal")
    objects = owned_by(read_sources([path]))["fleet"]
    fine, plain = fleet_load.cut(list(objects), 8), fleet_load.cut(list(objects), 6)
    return [*result, owned, [sum(map(len, cut.own[:3])) for cut in (fine, plain)]]


@pytest.mark.parametrize(("kind", "output"), [("yaml", "yaml"), ("json", "plan")])
def test_this_processs_parts_are_a_little_lighter_and_the_output_the_same(tmp_path, kind, output):
    """This process claims the statuses and passes the child's text on: its run of parts is made of
    one piece of a finer cut fewer than the child's (here 3 of 8 pieces against 5)."""
    path = _file(tmp_path, _hub(11, placements=60), kind)
    read, same, owned, (fine, plain) = fresh(f"{_HERE}:lighter", path, output, 4)
    assert read and same and len(owned) == 3
    assert sum(owned) == fine < plain  # the first 3 of 8 pieces, not the first 3 of 6 parts


def test_a_finer_cut_joined_keeps_every_object_once_in_order(monkeypatch):
    monkeypatch.setattr(fleet_load, "CUT_PLACEMENTS", 2)
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(parts, "_PIECES", 4)
    objects = from_objects(_hub(11, placements=60), "hub")
    fine = fleet_load.cut(list(objects), 8)
    joined = parts._lighter_here(fleet_load.cut, list(objects), 4)
    assert joined is not None and len(joined.own) == 4 and joined.shared == fine.shared
    assert [m for part in joined.own for m in part] == [m for piece in fine.own for m in piece]
    placements = [sum(m.kind == n.PLACEMENT for m in part) for part in joined.own]
    assert sum(placements[:2]) < sum(placements[2:])
    # Too few placements for the finer cut: the plain one.
    few = from_objects(_hub(11, placements=6), "hub")
    assert parts._lighter_here(fleet_load.cut, list(few), 4) == fleet_load.cut(list(few), 4)
