"""The loader on arbitrary bytes: a result or one clean InputError, never anything else."""

from __future__ import annotations

import io
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.errors import InputError
from adapters.kube.manifests import parse_text, read_sources

YAMLISH = st.sampled_from(
    [
        b"---\n",
        b"apiVersion: v1\n",
        b"kind: List\n",
        b"items:\n",
        b"- ",
        b"metadata:\n",
        b"  name: x\n",
        b"  labels: {a: 1}\n",
        b"&a [*a]\n",
        b"{",
        b"}",
        b"[",
        b"]",
        b'"',
        b"'",
        b": ",
        b"\t",
        b"\xff",
        b"\x00",
        b"\xef\xbb\xbf",
        b"!!binary AA==\n",
        b"<<: *a\n",
        b"1e3\n",
        b"on\n",
        b"2026-11-21T12:00:00Z\n",
    ]
)


def read(data: bytes):
    return read_sources(["-"], stdin=io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=200), st.lists(YAMLISH, max_size=20).map(b"".join)))
def test_any_bytes_give_manifests_or_one_input_error(data: bytes) -> None:
    try:
        read(data)
    except InputError as err:
        assert "\n" not in str(err) and str(err)


JSONISH = st.sampled_from(
    [
        b'{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}',
        b'{"kind": "List", "apiVersion": "v1", "items": [',
        b"]}",
        b'"kind": "Namespace", ',
        b'"kind": "Namespace"',
        b", ",
        b"\n",
        " \u00a0\u2028".encode(),
        b"\xef\xbb\xbf",
        b"\xff",
        b'"\\ud800"',
        b"NaN",
        b"1e400",
    ]
)


def _outcome(read) -> tuple[str, object]:
    try:
        return "read", [(m.obj, m.index) for m in read()]
    except InputError as err:
        return "error", str(err)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.binary(max_size=100), st.lists(JSONISH, max_size=12).map(b"".join)),
    st.sampled_from(["in.json", "in.yaml"]),
)
def test_a_file_read_as_bytes_reads_as_its_text(tmp_path_factory, data: bytes, name: str) -> None:
    # JSON-looking bytes stay bytes for msgspec; whatever the bytes, the answer is the text's
    path = tmp_path_factory.mktemp("bytes") / name
    path.write_bytes(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        expected = ("error", f"{path}: not UTF-8 text (byte {err.start})")
    else:
        expected = _outcome(lambda: parse_text(text, str(path)))
    assert _outcome(lambda: read_sources([str(path)])) == expected


def test_undecodable_standard_input_exits_2_with_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from adapters.cli.main import main; main()", "solve", "-f", "-"],
        input=b"\x00\xff\xfe",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    assert done.stderr.decode() == "error: <stdin>: not UTF-8 text (byte 1)\n"


def test_alias_bombs_and_self_reference_are_refused_before_anything_is_built(tmp_path) -> None:
    lines = [
        "apiVersion: v1",
        "kind: X",
        "metadata:",
        "  name: a",
        "spec:",
        "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]",
    ]
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path, words in (
        (bomb, "more than 1,000,000 values once its aliases are expanded"),
        (tmp_path / "self.yaml", "an alias refers to a node that contains it"),
    ):
        if path.name == "self.yaml":
            path.write_text(
                "apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec: &a [*a]\n", encoding="utf-8"
            )
        try:
            read_sources([str(path)])
        except InputError as err:
            assert words in str(err) and str(path) in str(err)
        else:
            raise AssertionError("accepted")


def test_modest_aliases_still_read() -> None:
    text = b"apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  labels: &l {a: b}\nspec:\n  copy: *l\n"
    (manifest,) = read(text)
    assert manifest.obj["spec"]["copy"] == {"a": "b"}
