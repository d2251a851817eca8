"""The fast codecs (adapters.kube.codec): exactly the reference's result, or no answer."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.errors import InputError
from adapters.fleet.generate import generate_fleet
from adapters.karmada.generate import generate_karmada
from adapters.kube import codec
from adapters.kube.manifests import (
    _dump_yaml,
    _Loader,
    _parse_documents,
    dump_json,
    dump_yaml_stream,
    parse_text,
)
from adapters.ocm.generate import generate_ocm
from tests.fixtures.common import NOW_TIME

TRICKY_YAML = [
    "a: on\nb: yes\nc: 0123\nd: 1e3\n",
    "a: 'on'\nb: 'yes'\nc: '0123'\nd: '1e3'\ne: 'True'\nf: \"12:30\"\n",
    "status: 'True'\nother: True\n",
    "t: 2024-01-02T03:04:05Z\nd: 2024-01-02\nq: '2024-01-02'\n",
    "a: 0x1F\nb: 1_000\nc: 12:30\nd: .inf\ne: ~\nf: null\ng:\nh: ''\n",
    "a: +12\nb: -0\nc: 1.5\nd: .5\ne: 1.\nf: 00\n",
    "1: a\ntrue: b\n'2': c\n",
    "a: !!str 12\nb: &x {c: 1}\nd: *x\n",
    "a: |\n  text\n  more\nb: >\n  folded\n",
    "a: [x, 'y', 3, on]\nb: {c: d, e: 'f'}\n",
    "---\n---\na: 1\n---\n# only a comment\n",
    "- a\n- b\n",
    'a: \'it\'\'s\'\nb: "q\\"r\\n"\nc: "tab\\there"\nd: café ✓\n',
    "a: plain text, with: colon\n",
    "a: 1\nb: 2\na: 3\n",
    "a: [unclosed\n",
    "a: multi\n  line plain\nb: x\n",
    'a: "\\x41\\u00e9"\n',
    "key with spaces: value # a comment\n",
    "a: e.value > 0\nb: x && y\nc: b |\nd: v # > c\n",
    'a: x "y" && z\n- a "b" &c\n',
    'a: "x" && y\n',
    'a: "b" &c\n',
    "a: [x, y &z]\n",
    "a: >-\n  x\nb:  |2\n   y\n",
    "a: foo\n  > bar\n",
    "- &a x\n- *a\n",
    # YAML 1.1's other line breaks (NEL, LS, PS), which PyYAML folds and rapidyaml (YAML 1.2) keeps
    "a: 'x\u2028  y'\n",
    'a: "x\u2029  y"\n',
    "a: x\x85  y\n",
    "a: 'x\x85\n  y'\n",
]


@pytest.mark.parametrize("text", TRICKY_YAML)
def test_fast_yaml_is_exact_or_silent(text):
    fast = codec.load_yaml(text)
    try:
        reference = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError:
        assert fast is None
        return
    assert fast is None or fast == reference


def test_fast_yaml_answers_for_plain_manifests():
    text = (
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n    n: '3'\n"
        "status:\n  conditions:\n  - type: Ready\n    status: 'True'\n    generation: 2\n"
    )
    assert codec.load_yaml(text) == list(yaml.load_all(text, Loader=_Loader))


@pytest.mark.parametrize("generate", [generate_fleet, generate_ocm, generate_karmada])
def test_a_stream_is_parsed_into_a_tree_allocated_once(monkeypatch, generate):
    """rapidyaml's tree is reserved before the parse, enough for a generated hub's stream (its
    capacity is what was reserved, not grown), and the documents are PyYAML's."""
    objects = generate(60, 40, seed=5, now=NOW_TIME)
    text = dump_yaml_stream(objects)
    trees = []
    parse = codec._ryml.parse_in_arena

    def spied(data, tree=None):
        reserved = None if tree is None else tree.capacity()
        parsed = parse(data, tree)
        trees.append((reserved, parsed.capacity(), parsed.size()))
        return parsed

    monkeypatch.setattr(codec._ryml, "parse_in_arena", spied)
    assert codec.load_yaml(text) == list(yaml.load_all(text, Loader=_Loader))
    ((reserved, capacity, size),) = trees
    assert reserved == capacity >= size > 1000


def test_fast_yaml_answers_for_indicators_inside_plain_scalars():
    """A CEL expression's `>` or `&&` inside a plain scalar is no block scalar or anchor: the
    fast reader answers (an OCM hub fell back to PyYAML whole for it)."""
    text = (
        "kind: Placement\nspec:\n  celSelector:\n    celExpressions:\n"
        '    - managedCluster.scores("s").all(e, e.value > 0)\n'
        '    - c.name == "product.example.io" && c.value == "OpenShift"\n'
    )
    fast = codec.load_yaml(text)
    assert fast is not None
    assert fast == list(yaml.load_all(text, Loader=_Loader))


@pytest.mark.parametrize(
    ("text", "source", "expected"),
    [
        ("a: 1\nb: 2\na: 3\n", "d.yaml", "d.yaml: malformed YAML at line 3, column 1: duplicate key 'a'"),
        (
            '{\n  "a": 1,\n  "b": {"c": 1,\n "c": 2}\n}\n',
            "d.json",
            "d.json: malformed JSON at line 4: duplicate key 'c'",
        ),
    ],
)
def test_duplicate_keys_are_refused_with_the_line(text, source, expected):
    with pytest.raises(InputError) as info:
        parse_text(text, source)
    assert str(info.value) == expected


def test_fast_json_matches_json():
    text = json.dumps({"a": [1, 2.5, "x", None, True], "b": {"c": "é"}, "big": 2**70}, indent=2)
    got = codec.load_json(text)
    assert got is None or got == json.loads(text)


def reference_yaml(obj):
    return _dump_yaml(obj)


GO_TYPED = {"y", "Y", "n", "N"}


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12))
def test_yaml_strings_as_pyyaml_writes_them(value):
    obj = {"k": value, "l": [value, {"m": value}]}
    ours = dump_yaml_stream([obj])
    if codec._GO_YAML_TYPED.fullmatch(value):
        # Quoted where PyYAML writes plain: Kubernetes' reader would see a number or a boolean.
        assert yaml.safe_load(ours) == obj
        assert f"k: '{value}'" in ours
    else:
        assert ours == "---\n" + reference_yaml(obj)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=12,
    )
)
def test_yaml_and_json_structures(value):
    obj = {"v": value}
    text = dump_yaml_stream([obj])
    assert list(yaml.safe_load_all(text)) == [obj]
    assert dump_json(obj) == json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("key", ["\u2028", "a\u2029b", "\x85", "a\nb", "x\r", "\u2028" * 3])
def test_a_key_holding_a_line_break_is_written_as_pyyaml_writes_it(key):
    """YAML counts NEL, LS and PS as line breaks: PyYAML writes such a key as an explicit "? key".
    Written as a simple key, it could not be read back (a ScannerError)."""
    obj = {key: None, "a": {key: 1}}
    text = dump_yaml_stream([obj])
    assert text == "---\n" + reference_yaml(obj)
    assert list(yaml.safe_load_all(text)) == [obj]


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(alphabet="a \n\r\x85\u2028\u2029\u00e9\ufeff'\":#-", max_size=5), st.none(), max_size=3
    )
)
def test_keys_of_any_characters_are_written_as_pyyaml_writes_them(obj):
    text = dump_yaml_stream([obj])
    assert list(yaml.safe_load_all(text)) == [obj]


# The writer's rules before it looked at a string's first character (aedf444): PyYAML's analysis
# as one regular expression, and both typings asked for every string.
_BLOCK_INDICATORS_REGEX = re.compile(r"^[#,\[\]{}&*!|>'\"%@`]|^[?:-](?: |$)|: |:$| #|^---|^\.\.\.|^ | $")


def _string_by_regexes(value: str) -> str:
    if codec._SIMPLE.fullmatch(value):
        if value[0].isdigit() or value[0] == "_":
            plain = codec._plain_tag(value) == codec._STR and not codec._GO_YAML_TYPED.fullmatch(value)
        else:
            plain = value not in codec._WORDS and not codec._GO_YAML_TYPED.fullmatch(value)
        return value if plain else f"'{value}'"
    plain = (
        value != ""
        and not _BLOCK_INDICATORS_REGEX.search(value)
        and codec._plain_tag(value) == codec._STR
        and not codec._GO_YAML_TYPED.fullmatch(value)
    )
    return value if plain else "'" + value.replace("'", "''") + "'"


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="aSyNtO_0-+.: #'\"?!&*|>%@`,[]{}~=<", max_size=8))
def test_yaml_strings_by_their_first_character_as_by_the_regexes(value):
    """The first-character look (codec._UNTYPED_STARTS, _block_indicated) decides every printable
    string as the regular expressions and both typings did: the indicators and typed starts in
    every place, and the letters that begin no typed scalar."""
    assert codec._string(value) == _string_by_regexes(value)


@pytest.mark.parametrize(
    "value",
    ['Picked "c-1" (affinity score: 0): ok', "a #b", "a:", "a ", "a:b", "S-x", "e'x", "x: y'z", "_x", "ab#c"],
)
def test_strings_beginning_with_an_untyped_letter_are_judged_in_full(value):
    assert codec._string(value) == _string_by_regexes(value)


def test_kubectl_ambiguous_strings_are_quoted():
    text = dump_yaml_stream([{"a": "y", "b": "1e3", "c": "0o17", "d": "plain"}])
    assert text == "---\na: 'y'\nb: '1e3'\nc: '0o17'\nd: plain\n"


MIXED_STREAMS = [
    "---\na: 1\n---\nb: &x {c: 1}\nd: *x\n---\ne: 'on'\n",
    "# preamble\n---\na: 1\n---\nb: |\n  text\n---\nc: 2\n",
    "a: 1\n---\nb: !!str 3\n---\n---\nc: x\n",
    "---\na: 1\n---\nb: [1, &y 2]\n...\n---\nc: 3\n",
    "\ufeff---\na: 1\n---\nb: &z 1\n",
    "%YAML 1.1\n---\na: 1\n---\nb: &z 1\n",
    "---\na: 1\n---\nb: &z 1\nc: 'unclosed\n---\nd: 2\n",
    "---\na: 1\n---\nb: &z 1\n---\na: 1\na: 2\n",
]


@pytest.mark.parametrize("text", MIXED_STREAMS)
def test_streams_are_read_document_by_document_exactly(text):
    try:
        reference = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as err:
        with pytest.raises(InputError) as info:
            _parse_documents(text, "s.yaml")
        mark = err.problem_mark
        assert f"line {mark.line + 1}, column {mark.column + 1}" in str(info.value)
        return
    assert _parse_documents(text, "s.yaml") == reference


def test_only_the_documents_that_need_pyyaml_go_to_it():
    plain = "".join(f"---\nkind: K\nmetadata:\n  name: n{i}\n" for i in range(50))
    text = plain + "---\nkind: K\nmetadata:\n  name: a\n  labels: &l {x: y}\n" + plain.replace("n", "m")
    seen: list[str] = []

    def reference(chunk: str) -> list:
        seen.append(chunk)
        return list(yaml.load_all(chunk, Loader=_Loader))

    assert codec.load_yaml(text) is None
    got = codec.load_yaml_by_document(text, reference)
    assert got == list(yaml.load_all(text, Loader=_Loader))
    assert len(seen) == 1 and seen[0].count("---") == 1


# ------------------------------------------------------------------------------------- templates


def _shape(name, value, item):
    return {
        "kind": "Thing",
        "metadata": {"name": name, "labels": {"app": "x"}},
        "spec": {"value": value, "list": [{"first": item, "second": "fixed"}], "after": "tail"},
    }


@pytest.mark.parametrize(
    "values",
    [
        {"name": "plain", "value": "v", "item": "i"},
        {"name": "0123", "value": "true", "item": "a: b"},  # quoted as the walk quotes them
        {"name": "ünïcode", "value": "'quote'", "item": "y"},
        {"name": "n", "value": 12, "item": None},
        {"name": "n", "value": True, "item": False},
        {"name": "n", "value": {"a": "1", "b": {"c": 2}}, "item": {"k": "v", "l": "w", "m": "x", "n": "y"}},
        {"name": "n", "value": [1, 2], "item": {}},  # the walk writes these
        {"name": "n", "value": 1.5, "item": "i"},  # PyYAML writes this one
    ],
)
def test_a_template_fills_to_the_walks_bytes(values) -> None:
    template = codec.Template(_shape)
    filled = template.fill(*values.values())
    assert filled == _shape(**values) and isinstance(filled, dict)
    expected = dump_yaml_stream([_shape(**values)] * 2)
    assert dump_yaml_stream([filled, filled]) == expected
    assert json.loads(dump_json(filled)) == _shape(**values)


def test_a_template_refuses_holes_it_cannot_fill() -> None:
    with pytest.raises(ValueError, match="mapping value"):
        codec.Template(lambda key: {key: "value"})
    with pytest.raises(ValueError, match="once"):
        codec.Template(lambda name: {"a": name, "b": name})
    with pytest.raises(ValueError, match="mapping value"):
        codec.Template(lambda item: {"list": [item]})


def test_rapidyaml_json_is_written_into_a_buffer_of_any_first_size() -> None:
    text = "items:\n" + "".join(f"- name: n{i}\n  value: '{i}'\n" for i in range(500))
    tree = codec._ryml.parse_in_arena(text.encode())
    expected = codec._ryml.emit_json_malloc(tree, tree.root_id()).encode()
    assert len(expected) > 4096
    assert codec._emit_json(tree, 0) == expected  # too small at first: written again
    assert codec._emit_json(tree, len(text)) == expected
