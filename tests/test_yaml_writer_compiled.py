"""The compiled YAML writer (adapters/kube/_yamlout.c): exactly the Python writer's bytes, and the
Python writer wherever the module is not built."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.cli.main import main
from adapters.kube import codec
from adapters.kube.manifests import _dump_yaml, encode_yaml_stream

compiled = pytest.mark.skipif(codec._yamlout is None, reason="adapters.kube._yamlout is not built")


def pure_bytes(objects, size=0):
    return [text.encode("utf-8") for text in codec.dump_yaml_pieces(objects, _dump_yaml, size)]


def compiled_bytes(objects, size=0):
    return list(codec.encode_yaml_pieces(objects, _dump_yaml, size))


# Strings of every class the writer judges: YAML 1.1's typed words and numbers, go-yaml's, the
# indicators first, last and inside, spaces at the ends, quotes, non-ASCII, control characters,
# YAML's other line breaks, the empty string, and long ones (plain up to codec._MAX_PLAIN, then
# left to PyYAML).
AWKWARD = [
    *("y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "False", "null", "Null", "~", "", " "),
    *("0o17", "0x1F", "0b101", "1e3", "1E-3", "1_000", "12:30", "12:30:45", "190:20:30", ".5", "-.inf"),
    *(".NaN", "+12", "-0", "00", "0123", "08", "1.", "2024-01-02", "2024-01-02T03:04:05Z", "<<", "="),
    *(" lead", "trail ", "a: b", "a:", ":a", "a:b", "a #b", "a#b", "#c", "- x", "-", "--- x", "...", "?"),
    *("? x", "'q'", "it's", '"dq"', "x'y'z", "[a]", "{b}", "a, b", "&anchor", "*alias", "!tag", "|", ">"),
    *("%p", "@at", "`bt", ",c", "café", "ünï", "✓ ok", "日本", "\U0001f600", "a\tb", "a\nb", "\x07"),
    *("a\rb", "a\x85b", "a\u2028b", "\ufeffx", "\x00", "e.value > 0 && x", 'Picked "c-1" (score: 0)'),
    *("a" * 200, "word " * 40 + "end", "x" * 61_000, "x y" * 21_000, "S-x", "_x", "O", "t", "Tx"),
]
strings = (
    st.sampled_from(AWKWARD)
    | st.text(max_size=12)
    | st.text(alphabet="aSyNtO_0-+.: #'\"?!&*|>%@`,[]{}~=<\t\n", max_size=10)
)
written = st.none() | st.booleans() | st.integers() | st.integers(-(2**200), 2**200) | strings
# What either writer writes itself; floats (and a few of the strings) are PyYAML's: a document
# holding one is left by the compiled writer to the Python one, which leaves it to PyYAML.
trees = st.recursive(
    written,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=5),
    max_leaves=24,
)
mixed = st.recursive(
    written | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=5),
    max_leaves=8,
)
documents = st.dictionaries(strings, trees, max_size=6) | st.dictionaries(strings, mixed, max_size=3) | mixed


@compiled
@settings(max_examples=600, deadline=None)
@given(st.lists(documents, max_size=5), st.integers(min_value=0, max_value=3))
def test_the_compiled_writer_writes_the_python_writers_bytes(objects, size):
    assert compiled_bytes(objects, size) == pure_bytes(objects, size)


@compiled
def test_every_awkward_string_as_the_python_writer_writes_it() -> None:
    """Each string alone in its document (one left to Python leaves no other): as a value, an item,
    a key, a template's hole, and with each printable ASCII character before and after it."""
    hole = codec.Template(lambda value: {"kind": "K", "spec": {"value": value}})
    around = [chr(c) for c in range(0x20, 0x7F)]
    values = AWKWARD + [f"{c}{v}" for c in around for v in ("", "x", " x")] + [f"x{c}" for c in around]
    for value in values:
        objects = [{"k": value}, {"l": [value, [value]]}, {value: {"a": "b"}}, hole.fill(value)]
        assert compiled_bytes(objects) == pure_bytes(objects), value


@compiled
@settings(max_examples=200, deadline=None)
@given(trees, trees, st.lists(trees, max_size=3))
def test_shared_mappings_templates_and_deep_nesting_as_the_python_writer(one, two, items):
    shared = {"a": one, "b": two, "c": "x", "d": 1}  # rendered once by identity
    template = codec.Template(lambda name, value, extra: {"m": {"name": name}, "v": value, "e": extra})
    deep: object = items
    for _ in range(150):  # past the compiled writer's depth: left to Python
        deep = {"k": deep}
    objects = [
        {"s": shared, "l": [shared, [shared, []], {}], "t": shared},
        template.fill("n", one, shared),
        template.fill(two, shared, items),
        {"deep": deep},
        shared,
        codec.Shaped({"x": 1}),  # no template: Python's own error
    ]
    with pytest.raises(AttributeError):
        pure_bytes(objects)
    with pytest.raises(AttributeError):
        compiled_bytes(objects)
    objects.pop()
    assert compiled_bytes(objects, 2) == pure_bytes(objects, 2)


@compiled
def test_documents_the_compiled_writer_leaves_are_written_by_python(monkeypatch) -> None:
    objects = [{"a": "plain"}, {"f": 1.5}, {"b": ["x", {"c": "y"}]}, {"long key " * 20: 1}, [1], {"d": "n"}]
    seen = []
    render = codec._yamlout.render

    def spy(objects, start, stop, *rest):
        data, at = render(objects, start, stop, *rest)
        seen.append((start, at))
        return data, at

    monkeypatch.setattr(codec._yamlout, "render", spy)
    assert compiled_bytes(objects) == pure_bytes(objects)
    assert seen == [(0, 1), (2, 3), (4, 4), (5, 6)]  # the float, the long key and the list left


_HIDDEN = """
import sys

class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "adapters.kube._yamlout":
            raise ImportError("not built")

sys.meta_path.insert(0, Hide())
from adapters.cli.main import main
from adapters.kube import codec
from adapters.kube.manifests import encode_yaml_stream

assert codec._yamlout is None
sys.stdout.write(encode_yaml_stream(%r * 3000).hex())
"""


def test_without_the_module_the_python_writer_is_used() -> None:
    """Where the module is not built, codec imports without it and its Python writer writes."""
    objects = [{"a": "y", "b": [1, {"c": None}], "d": "café"}, {"f": 1.5}, {}]  # 9,000: forked too
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(codec.__file__))))
    env = {**os.environ, "PYTHONPATH": tree}
    run = subprocess.run(
        [sys.executable, "-c", _HIDDEN % (objects,)], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert bytes.fromhex(run.stdout) == b"".join(pure_bytes(objects * 3000))


def test_without_the_module_the_bytes_are_the_same(monkeypatch) -> None:
    objects = [{"a": "y", "b": [1, {"c": None}], "d": "café"}, {"f": 1.5}, {}]
    with_module = b"".join(codec.encode_yaml_pieces(objects, _dump_yaml, 2))
    monkeypatch.setattr(codec, "_yamlout", None)
    assert b"".join(codec.encode_yaml_pieces(objects, _dump_yaml, 2)) == with_module
    assert with_module == "".join(codec.dump_yaml_pieces(objects, _dump_yaml, 0)).encode()


@compiled
def test_a_solve_writes_the_same_yaml_with_the_module_and_without(monkeypatch) -> None:
    def run() -> bytes:
        args = ["solve", "-q", "-f", _example("fleet"), "--now", "2026-11-24T03:00:00Z"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0
        return result.stdout_bytes

    calls = []
    render = codec._yamlout.render
    monkeypatch.setattr(codec._yamlout, "render", lambda *a: calls.append(1) or render(*a))
    with_module = run()
    assert calls  # the compiled writer wrote it
    monkeypatch.setattr(codec, "_yamlout", None)
    without = run()
    assert with_module == without and with_module.count(b"\n---\n") > 3
    print(hashlib.md5(with_module).hexdigest())


def _example(system: str) -> str:
    folder = os.path.join(os.path.dirname(codec.__file__), "..", "examples")
    names = sorted(name for name in os.listdir(folder) if name.startswith(system) and name.endswith(".yaml"))
    return os.path.join(folder, names[0])


@pytest.mark.skipif(os.environ.get("PLACEMENT_SOLVER_REQUIRE_COMPILED") != "1", reason="CI only")
def test_ci_built_the_compiled_writer() -> None:
    """.ci/run builds the module in place and sets PLACEMENT_SOLVER_REQUIRE_COMPILED=1."""
    assert codec._yamlout is not None
    objects = [{"kind": "K", "at": datetime(2026, 1, 1, tzinfo=UTC).isoformat()}]
    assert encode_yaml_stream(objects) == b"---\nkind: K\nat: '2026-01-01T00:00:00+00:00'\n"
