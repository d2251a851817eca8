"""Reading and writing manifests: adapters.kube.manifests."""

from __future__ import annotations

import collections
import enum
import io
import json
from pathlib import Path

import pytest
import yaml

from adapters.errors import InputError
from adapters.kube import manifests
from adapters.kube.manifests import (
    Manifest,
    dump_json,
    dump_json_list,
    dump_yaml_stream,
    from_objects,
    index_by_kind,
    object_reference,
    parse_text,
    read_sources,
)

CRP = """\
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata:
  name: {name}
"""

PLACEMENT = """\
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata:
  name: {name}
  namespace: {namespace}
"""


def write(root: Path, rel: str, text: str) -> str:
    """Write ``text`` to ``root/rel`` (creating directories) and return the path as a string."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def names(manifests: list[Manifest]) -> list[str]:
    return [m.name for m in manifests]


def read_error(paths: list[str], stdin: io.StringIO | None = None) -> InputError:
    with pytest.raises(InputError) as info:
        read_sources(paths, stdin=stdin)
    return info.value


def text_error(text: str, source: str = "in.yaml") -> str:
    with pytest.raises(InputError) as info:
        parse_text(text, source)
    return str(info.value)


# ------------------------------------------------------------------------------------------- reading


def test_multi_document_yaml_file(tmp_path: Path) -> None:
    path = write(
        tmp_path, "a.yaml", CRP.format(name="one") + "---\n" + PLACEMENT.format(name="p", namespace="ns")
    )
    first, second = read_sources([path])
    assert (first.source, first.index, second.index) == (path, 1, 2)
    assert first.kind == "ClusterResourcePlacement"
    assert first.api_version == "placement.kubernetes-fleet.io/v1beta1"
    assert (first.group, first.version) == ("placement.kubernetes-fleet.io", "v1beta1")
    assert (first.name, first.namespace, first.ref) == ("one", "", "ClusterResourcePlacement/one")
    assert (second.namespace, second.ref) == ("ns", "Placement/ns/p")
    assert second.location == f"{path}: document 2"
    assert first.obj["metadata"] == {"name": "one"}


def test_core_group_is_empty() -> None:
    (m,) = parse_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n", "ns.yaml")
    assert (m.group, m.version) == ("", "v1")


def test_directory_recursive_sorted_and_filtered(tmp_path: Path) -> None:
    write(tmp_path, "b.yml", CRP.format(name="b"))
    write(
        tmp_path, "a.json", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    )
    write(tmp_path, "sub/deeper/c.yaml", CRP.format(name="c"))
    write(tmp_path, "sub/a.YAML", CRP.format(name="sub-a"))
    write(tmp_path, "README.md", "# not a manifest: {\n")
    write(tmp_path, "notes.txt", "kind: [\n")
    write(tmp_path, ".hidden.yaml", "not: [valid\n")
    write(tmp_path, ".git/x.yaml", "not: [valid\n")
    write(tmp_path, "sub/.cache/y.yaml", "not: [valid\n")
    got = read_sources([str(tmp_path)])
    assert names(got) == ["a", "b", "sub-a", "c"]
    assert got[0].source == str(tmp_path / "a.json")


def test_explicit_file_with_any_extension_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "objects.txt", CRP.format(name="x"))
    assert names(read_sources([path])) == ["x"]


def test_same_file_twice_is_read_once(tmp_path: Path) -> None:
    path = write(tmp_path, "d/a.yaml", CRP.format(name="a"))
    assert names(read_sources([path, str(tmp_path / "d"), path])) == ["a"]


def test_stdin(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", CRP.format(name="file"))
    got = read_sources([path, "-"], stdin=io.StringIO(CRP.format(name="piped")))
    assert names(got) == ["file", "piped"]
    assert got[1].source == "<stdin>"


def test_stdin_json() -> None:
    doc = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}
    (m,) = read_sources(["-"], stdin=io.StringIO(json.dumps(doc)))
    assert m.obj == doc


def test_stdin_twice_is_an_error() -> None:
    err = read_error(["-", "-"], stdin=io.StringIO(""))
    assert "standard input" in str(err)


def test_json_object_file(tmp_path: Path) -> None:
    doc = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", "labels": {"a": "b"}}}
    path = write(tmp_path, "ns.json", json.dumps(doc, indent=2))
    (m,) = read_sources([path])
    assert m.obj == doc


def test_brace_content_that_is_not_json_falls_back_to_yaml() -> None:
    got = parse_text(
        "{apiVersion: v1, kind: Namespace, metadata: {name: a}}\n---\n"
        '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}\n',
        "x.yaml",
    )
    assert names(got) == ["a", "b"]


def test_list_expanded_recursively() -> None:
    text = """\
apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: Namespace
    metadata: {name: b}
  - {apiVersion: v1, kind: List, items: []}
  - {apiVersion: v1, kind: List}
- apiVersion: v1
  kind: Namespace
  metadata: {name: c}
---
apiVersion: v1
kind: Namespace
metadata: {name: d}
"""
    got = parse_text(text, "list.yaml")
    assert names(got) == ["a", "b", "c", "d"]
    assert [m.index for m in got] == [1, 1, 1, 2]


def test_json_list_expanded() -> None:
    text = dump_json_list([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}])
    assert names(parse_text(text, "list.json")) == ["a"]


def test_empty_documents_skipped_and_counted() -> None:
    got = parse_text(
        "---\n---\n" + CRP.format(name="a") + "---\n# only a comment\n---\n" + CRP.format(name="b"), "e.yaml"
    )
    # The leading "---" opens an empty first document; numbers are the parser's, empties included.
    assert [(m.name, m.index) for m in got] == [("a", 2), ("b", 4)]


@pytest.mark.parametrize("name", ["empty.yaml", "empty.json"])
def test_empty_file(tmp_path: Path, name: str) -> None:
    assert read_sources([write(tmp_path, name, "\n  \n")]) == []


def test_timestamps_stay_strings() -> None:
    (m,) = parse_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  creationTimestamp: 2024-01-02T03:04:05Z\n"
        "status: {day: 2024-01-02}\n",
        "t.yaml",
    )
    assert m.obj["metadata"]["creationTimestamp"] == "2024-01-02T03:04:05Z"
    assert m.obj["status"]["day"] == "2024-01-02"


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}).encode()
    )
    assert names(read_sources([str(path)])) == ["a"]


def test_from_objects_for_library_callers() -> None:
    docs = [None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]
    (m,) = from_objects(docs, "api")
    assert (m.source, m.index, m.name) == ("api", 2, "a")


# ------------------------------------------------------------------------------------- reading errors


def test_missing_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.yaml")
    err = read_error([missing])
    assert missing in str(err)
    assert err.where == missing


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", CRP.format(name="ok") + "---\nkind: [unclosed\nmetadata: x\n")
    err = read_error([path])
    assert err.where == path
    assert "malformed YAML at line" in str(err)
    assert "Traceback" not in str(err)


def test_malformed_yaml_line_number() -> None:
    assert text_error("a: 1\nb: 2\n c: 3\n").startswith("in.yaml: malformed YAML at line 3, column 3: ")


def test_control_character_is_an_input_error() -> None:
    assert text_error("a: \x07\n") == (
        "in.yaml: malformed YAML at character 4: control characters are not allowed"
    )


def test_unknown_yaml_tag_is_an_input_error() -> None:
    assert "malformed YAML" in text_error("a: !!python/object:os.system x\n")


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", '{\n  "kind": "Namespace",\n  "apiVersion": v1\n}\n')
    err = read_error([path])
    assert err.where == path
    assert "malformed JSON at line 3" in str(err)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))
    err = read_error([str(path)])
    assert err.where == str(path)
    assert "UTF-8" in str(err)


@pytest.mark.parametrize(
    ("text", "source", "expected"),
    [
        ('[{"apiVersion": "v1"}]', "arr.json", "document 1 is not an object"),
        (CRP.format(name="a") + "---\n- a\n- b\n", "arr.yaml", "document 2 is not an object"),
        ("just a string\n", "s.yaml", "document 1 is not an object"),
        ("42\n", "n.json", "document 1 is not an object"),
    ],
)
def test_document_not_an_object(text: str, source: str, expected: str) -> None:
    message = text_error(text, source)
    assert message.startswith(source)
    assert expected in message


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ("apiVersion: v1\nmetadata: {name: a}\n", "kind", "missing"),
        ("kind: Namespace\nmetadata: {name: a}\n", "apiVersion", "missing"),
        ("apiVersion: v1\nkind: ''\nmetadata: {name: a}\n", "kind", "non-empty string"),
        ("apiVersion: 1\nkind: Namespace\nmetadata: {name: a}\n", "apiVersion", "non-empty string"),
        ("apiVersion: a/b/v1\nkind: Namespace\nmetadata: {name: a}\n", "apiVersion", "invalid apiVersion"),
        ("apiVersion: /v1\nkind: Namespace\nmetadata: {name: a}\n", "apiVersion", "invalid apiVersion"),
        ("apiVersion: v1\nkind: Namespace\n", "metadata", "missing"),
        ("apiVersion: v1\nkind: Namespace\nmetadata: [a]\n", "metadata", "must be an object"),
        ("apiVersion: v1\nkind: Namespace\nmetadata: {labels: {}}\n", "metadata.name", "missing"),
        ("apiVersion: v1\nkind: Namespace\nmetadata: {name: ''}\n", "metadata.name", "non-empty string"),
        ("apiVersion: v1\nkind: Namespace\nmetadata: {name: 7}\n", "metadata.name", "non-empty string"),
        (
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, namespace: [x]}\n",
            "metadata.namespace",
            "must be a string",
        ),
    ],
)
def test_required_fields(text: str, field: str, problem: str) -> None:
    with pytest.raises(InputError) as info:
        parse_text(CRP.format(name="ok") + "---\n" + text, "objs.yaml")
    err = info.value
    assert err.field == field
    assert err.where == "objs.yaml: document 2"
    assert problem in str(err)
    assert str(err).startswith(f"objs.yaml: document 2: {field}: ")


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ("- {apiVersion: v1, metadata: {name: a}}\n", "items[0].kind"),
        (
            "- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n"
            "- {kind: Namespace, metadata: {name: b}}\n",
            "items[1].apiVersion",
        ),
        (
            "- {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Namespace}]}\n",
            "items[0].items[0].metadata",
        ),
        ("- just a string\n", "items[0]"),
    ],
)
def test_list_item_errors(items: str, field: str) -> None:
    with pytest.raises(InputError) as info:
        parse_text("apiVersion: v1\nkind: List\nitems:\n" + items, "list.yaml")
    assert info.value.field == field
    assert info.value.where == "list.yaml: document 1"


def test_list_items_not_a_list() -> None:
    with pytest.raises(InputError) as info:
        parse_text("apiVersion: v1\nkind: List\nitems: {a: b}\n", "list.yaml")
    assert info.value.field == "items"


# ------------------------------------------------------------------------------------------- indexing


KINDS = {
    "ClusterResourcePlacement": {"placement.kubernetes-fleet.io"},
    "Placement": {"cluster.open-cluster-management.io"},
    "MemberCluster": {"cluster.kubernetes-fleet.io"},
}


def test_index_by_kind_groups_sorts_and_ignores(tmp_path: Path) -> None:
    kcp_placement = "apiVersion: scheduling.kcp.io/v1alpha1\nkind: Placement\nmetadata: {name: kcp}\n"
    write(
        tmp_path,
        "a.yaml",
        "\n---\n".join(
            [
                CRP.format(name="z"),
                PLACEMENT.format(name="b", namespace="ns2"),
                PLACEMENT.format(name="c", namespace="ns1"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns1}\n",
                kcp_placement,
            ]
        ),
    )
    write(tmp_path, "b.yaml", CRP.format(name="a") + "---\n" + PLACEMENT.format(name="a", namespace="ns2"))
    index = index_by_kind(read_sources([str(tmp_path)]), KINDS)
    assert list(index) == list(KINDS)
    assert names(index["ClusterResourcePlacement"]) == ["a", "z"]
    assert [m.ref for m in index["Placement"]] == ["Placement/ns1/c", "Placement/ns2/a", "Placement/ns2/b"]
    assert index["MemberCluster"] == []


def test_same_name_in_other_namespace_is_not_a_duplicate() -> None:
    got = parse_text(
        PLACEMENT.format(name="p", namespace="a") + "---\n" + PLACEMENT.format(name="p", namespace="b"),
        "x.yaml",
    )
    assert len(index_by_kind(got, KINDS)["Placement"]) == 2


def test_duplicate_across_files(tmp_path: Path) -> None:
    first = write(tmp_path, "one.yaml", CRP.format(name="dup"))
    second = write(tmp_path, "two/two.yaml", CRP.format(name="dup"))
    manifests = read_sources([first, second])
    with pytest.raises(InputError) as info:
        index_by_kind(manifests, KINDS)
    assert str(info.value) == f"duplicate object ClusterResourcePlacement/dup (in {first} and {second})"


def test_duplicate_in_one_file_across_versions() -> None:
    other_version = CRP.format(name="dup").replace("v1beta1", "v1")
    manifests = parse_text(CRP.format(name="dup") + "---\n" + other_version, "one.yaml")
    with pytest.raises(
        InputError, match=r"duplicate object ClusterResourcePlacement/dup \(in one.yaml, documents 1 and 2\)"
    ):
        index_by_kind(manifests, KINDS)


def test_duplicates_of_ignored_kinds_are_ignored() -> None:
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
    manifests = parse_text(cm + "---\n" + cm, "x.yaml")
    assert index_by_kind(manifests, KINDS)["Placement"] == []


# ------------------------------------------------------------------------------------------- writing


def sample_objects() -> list[dict]:
    reason = "picked by the scheduling policy because " + " ".join(["every cluster was scored"] * 40)
    labels = {"app": "web", "tier": "front"}
    return [
        {
            "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
            "kind": "ClusterResourceBinding",
            "metadata": {"name": "b-1", "labels": labels},
            "spec": {
                "state": "Scheduled",
                "targetCluster": "member-1",
                "clusterDecision": {
                    "clusterName": "member-1",
                    "selected": True,
                    "clusterScore": {"affinityScore": 3, "priorityScore": -1},
                    "reason": reason,
                },
            },
        },
        {
            "kind": "PlacementDecision",
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "metadata": {"namespace": "ns", "name": "p-decision-1", "labels": labels},
            "status": {
                "decisions": [{"clusterName": "c1", "reason": ""}],
                "strings": ["true", "123", "1.5", "null", "~", "2024-01-02T03:04:05Z", "yes", "a: b", "# x"],
                "unicode": "café ✓",
                "multiline": "line one\nline two",
                "empty": {},
                "none": None,
                "float": 0.25,
            },
        },
    ]


def test_yaml_round_trip() -> None:
    objects = sample_objects()
    text = dump_yaml_stream(objects)
    assert list(yaml.safe_load_all(text)) == objects
    assert [m.obj for m in parse_text(text, "out.yaml")] == objects


def test_yaml_stream_shape() -> None:
    objects = sample_objects()
    text = dump_yaml_stream(objects)
    assert text.startswith(
        "---\napiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceBinding\n"
    )
    assert text.count("---\n") == len(objects)
    assert "\n---\nkind: PlacementDecision\napiVersion:" in text  # key order kept, not sorted
    assert "café ✓" in text
    assert "&id" not in text and "*id" not in text  # shared labels dict written out twice
    assert text.endswith("\n")
    assert dump_yaml_stream([]) == ""
    assert dump_yaml_stream([{}]) == "---\n{}\n"


def test_yaml_is_deterministic() -> None:
    assert dump_yaml_stream(sample_objects()) == dump_yaml_stream(sample_objects())


def test_long_strings_not_folded() -> None:
    objects = sample_objects()
    reason = objects[0]["spec"]["clusterDecision"]["reason"]
    assert len(reason) > 1000
    assert f"    reason: {reason}\n" in dump_yaml_stream(objects)


def test_yaml_matches_the_plain_safe_dumper() -> None:
    # The fast representation path must not change a byte of the output.
    objects = sample_objects()
    objects[1]["metadata"]["labels"] = dict(objects[1]["metadata"]["labels"])  # no aliases in the reference
    reference = "".join(
        "---\n"
        + yaml.dump(
            obj,
            Dumper=yaml.SafeDumper,
            sort_keys=False,
            default_flow_style=False,
            allow_unicode=True,
            width=2**16,
        )
        for obj in objects
    )
    assert dump_yaml_stream(objects) == reference


class State(enum.StrEnum):
    SCHEDULED = "Scheduled"


class Rank(enum.IntEnum):
    FIRST = 1


def test_yaml_and_json_accept_the_same_values() -> None:
    obj = collections.OrderedDict(state=State.SCHEDULED, rank=Rank.FIRST, pair=("a", "b"), flag=False)
    expected = {"state": "Scheduled", "rank": 1, "pair": ["a", "b"], "flag": False}
    (loaded,) = yaml.safe_load_all(dump_yaml_stream([obj]))
    assert loaded == expected
    assert json.loads(dump_json(obj)) == expected


def test_json_list_shape() -> None:
    objects = sample_objects()
    text = dump_json_list(objects)
    assert text.endswith("}\n")
    assert text.startswith('{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n')
    assert json.loads(text) == {"apiVersion": "v1", "kind": "List", "items": objects}
    assert "café ✓" in text
    assert text == dump_json_list(sample_objects())


@pytest.mark.parametrize("piece", [1, 2, 3])
def test_a_json_list_written_in_pieces_is_the_whole_document(monkeypatch, piece) -> None:
    # Each piece is the List's items rendered at their own depth: joined, the document json writes
    objects = sample_objects() * 3 + [{"big": 2**70, "float": 1.5}]  # orjson refuses 2**70
    monkeypatch.setattr(manifests, "_JSON_PIECE", piece)
    pieces: list[bytes] = []
    manifests.write_json_list(objects, pieces.append)
    whole = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=2, ensure_ascii=False)
    assert b"".join(pieces).decode("utf-8") == whole + "\n"
    assert len(pieces) > 3  # it was written in pieces
    assert manifests.encode_json_list(objects) == b"".join(pieces)


def test_write_json_is_encode_json() -> None:
    for obj in ({"b": 1, "a": "é"}, {"big": 2**70}):
        pieces: list[bytes] = []
        manifests.write_json(obj, pieces.append)
        assert b"".join(pieces) == manifests.encode_json(obj)


@pytest.mark.parametrize("piece", [1, 2, 1024])
def test_a_yaml_stream_written_in_pieces_is_the_whole_stream(monkeypatch, piece) -> None:
    objects = sample_objects() * 3 + [{"odd": {1: "a non-string key, left to PyYAML"}}]
    expected = dump_yaml_stream(objects)
    monkeypatch.setattr(manifests, "_YAML_PIECE", piece)
    pieces: list[bytes] = []
    manifests.write_yaml_stream(objects, pieces.append)
    assert b"".join(pieces).decode("utf-8") == expected
    assert len(pieces) == -(-len(objects) // piece)
    assert manifests.encode_yaml_stream([]) == b""


def test_dump_json() -> None:
    assert dump_json({"b": 1, "a": "é"}) == '{\n  "b": 1,\n  "a": "é"\n}\n'


def test_object_reference() -> None:
    cluster_scoped, namespaced = sample_objects()
    assert object_reference(cluster_scoped) == {
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourceBinding",
        "name": "b-1",
    }
    ref = object_reference(namespaced)
    assert ref == {
        "apiVersion": "cluster.open-cluster-management.io/v1beta1",
        "kind": "PlacementDecision",
        "namespace": "ns",
        "name": "p-decision-1",
    }
    (manifest,) = parse_text(dump_json(namespaced), "d.json")
    assert object_reference(manifest) == ref


# ------------------------------------------------------------------------- other tools' YAML


KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- hub.yaml\n"
VALUES = "replicas: 3\nimage:\n  tag: v1\n"


def _reads(kind: str, api_version: str) -> bool:
    from adapters.registry import reads

    return reads(kind, api_version)


def test_objects_of_kinds_no_system_reads_are_not_validated() -> None:
    # A kustomization.yaml has apiVersion and kind, no metadata; a ConfigMap in a List neither.
    text = (
        KUSTOMIZATION + "---\n" + "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n"
    )
    assert parse_text(text + "---\n" + CRP.format(name="a"), "x.yaml", reads=_reads)[0].name == "a"
    with pytest.raises(InputError, match="metadata: required field is missing"):
        parse_text(text, "x.yaml")  # without a reader's kinds, every object is validated
    # A kind a system reads is validated as ever, whatever its version.
    with pytest.raises(InputError, match="document 1: metadata: required field is missing"):
        parse_text(
            "apiVersion: cluster.kubernetes-fleet.io/v1beta1\nkind: MemberCluster\n", "x", reads=_reads
        )
    with pytest.raises(InputError, match="metadata: required field is missing"):
        parse_text("apiVersion: v1\nkind: Namespace\n", "x", reads=_reads)  # kcp reads Namespaces


def test_a_directory_leaves_out_documents_that_are_not_kubernetes_objects(tmp_path: Path) -> None:
    root = tmp_path / "chart"
    write(root, "values.yaml", VALUES)
    write(root, "kustomization.yaml", KUSTOMIZATION)
    write(root, "list.yaml", "- a\n- b\n")
    write(root, "hub.yaml", "kind: null\nnote: x\n---\n" + CRP.format(name="a") + "---\nreplicas: 1\n")
    reading = manifests.start_reading([str(root)], reads=_reads)
    assert names(reading.manifests()) == ["a"]
    assert reading.notes == [
        f"{root / 'hub.yaml'}: documents 1, 3 left out: neither apiVersion nor kind, not a Kubernetes object",
        f"{root / 'list.yaml'}: document 1 left out: neither apiVersion nor kind, not a Kubernetes object",
        f"{root / 'values.yaml'}: document 1 left out: neither apiVersion nor kind, not a Kubernetes object",
    ]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (VALUES, "apiVersion"),
        ("kind: MemberCluster\nmetadata: {name: a}\n", "apiVersion"),
        ("apiVersion: v1\n", "kind"),
    ],
)
def test_a_file_named_is_read_strictly(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path, "values.yaml", text)
    err = read_error_with(path)
    assert str(err) == f"{path}: document 1: {field}: required field is missing"
    # In a directory, only a document with neither is left out: one with either is validated.
    if text != VALUES:
        assert str(read_error_with(str(tmp_path))) == str(err)


def read_error_with(path: str) -> InputError:
    with pytest.raises(InputError) as info:
        read_sources([path], reads=_reads)
    return info.value
