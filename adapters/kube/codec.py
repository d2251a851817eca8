"""Fast codecs for manifests, each exact or silent.

The reference behaviour is adapters.kube.manifests': ``json`` and PyYAML's safe loader (YAML 1.1 scalars,
timestamps kept as strings) for reading, PyYAML's safe dumper and ``json.dumps(indent=2)`` for
writing. On a 27 MB hub they take most of a command's time. The functions here reach the same
result several times faster, or return ``None`` when they cannot be sure, and the caller then runs
the reference code (which also words every error message):

- :func:`load_json`: orjson; the only difference orjson could hide, a duplicate key, is detected
  by counting keys before and after.
- :func:`load_yaml`: rapidyaml (C++) parses the stream and writes it as JSON, msgspec reads that.
  rapidyaml writes a plain scalar bare only when it reads as a JSON number, ``true``, ``false`` or
  ``null``, and everything else as a string; PyYAML resolves plain scalars by YAML 1.1 rules. The
  answer is used only when nothing in the text or in that JSON could read differently: no tags,
  anchors, aliases, block scalars, directives, unusual escapes or control characters; every bare
  number a plain decimal integer; no string (value or key) that YAML 1.1 would resolve to something
  else had it been plain (``yes``, ``on``, ``0123``, ``0x1F``, ``1_000``, ``12:30``, ``~`` ...);
  no key that YAML 1.1 would resolve as a number, boolean or null; no duplicate key.
- :func:`dump_yaml`: writes JSON-like data in the very bytes PyYAML's dumper writes (block style,
  indent 2, keys in order, width 65536); each distinct string's style is decided once. Anything
  else (multi-line or very long strings, non-string keys, other types) is handed back to PyYAML.
  One deliberate difference: strings Kubernetes' YAML reader (go-yaml v2, YAML 1.1) would read as
  a number or boolean while PyYAML writes them plain (``y``, ``n``, ``1e3``, ``0o17``) are quoted,
  so that ``kubectl apply`` reads back exactly the strings written.
- :func:`encode_json`: orjson with 2-space indentation, the bytes ``json.dumps(indent=2,
  ensure_ascii=False)`` writes for strings, integers, booleans and null.
"""

from __future__ import annotations

import json
import marshal
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import msgspec
import orjson
import yaml

try:  # rapidyaml is a wheel per platform; without it YAML is read by PyYAML alone.
    import ryml as _ryml
except ImportError:  # pragma: no cover - depends on the platform
    _ryml = None

__all__ = [
    "DuplicateKey",
    "Shaped",
    "Template",
    "decode_json",
    "document_runs",
    "document_starts",
    "dump_yaml",
    "encode_json",
    "keeps_every_key",
    "load_json",
    "load_json_checked",
    "load_yaml",
    "load_yaml_by_document",
    "runs_of_lines",
]


class DuplicateKey(ValueError):
    """A key given twice in one JSON object."""

    def __init__(self, key: str, line: int) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key
        self.line = line


# ============================================================================================ JSON


def load_json(text: str | bytes) -> Any | None:
    """The document ``json.loads`` gives, or None when msgspec cannot tell (then use the reference)."""
    doc = decode_json(text)
    return doc if doc is not None and keeps_every_key(text, doc) else None


def decode_json(text: str | bytes) -> Any | None:
    """msgspec's document, duplicate keys not yet judged (:func:`keeps_every_key`); None when
    msgspec cannot read it (malformed, NaN, lone surrogates) or it is JSON's null."""
    try:
        return _JSON_DECODER.decode(text)
    except (msgspec.DecodeError, UnicodeError):
        return None


def keeps_every_key(text: str | bytes, doc: Any) -> bool:
    """Whether `doc`, decoded from `text`, holds every key of it (no duplicate dropped)."""
    return _no_duplicates(text, doc)


_JSON_DECODER = msgspec.json.Decoder()


def _no_duplicates(text: str | bytes, doc: Any) -> bool:
    """Whether the decoder kept every key of `text`: it keeps the last of duplicates, as json does;
    the project refuses them. Every key is followed by `":`, and a `":` inside a string is escaped
    the same way by both encoders; a JSON text spaced otherwise is left to the reference. (In UTF-8
    no other character's bytes hold those two.)"""
    keys = text.count(b'":') if isinstance(text, bytes) else text.count('":')
    return keys == msgspec.json.encode(doc).count(b'":')


def load_json_checked(text: str) -> Any:
    """``json.loads``, refusing duplicate keys with the line of the second one."""
    decoder = json.JSONDecoder()
    plain = json.decoder.JSONObject

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo=None):
        s, start = s_and_end
        pairs, end = plain(s_and_end, strict, scan_once, None, lambda p: p, memo if memo is not None else {})
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                found = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:")
                hits = [m.start() for m in found.finditer(s, start - 1, end)]
                at = hits[1] if len(hits) > 1 else start
                raise DuplicateKey(key, s.count("\n", 0, at) + 1)
            seen.add(key)
        return dict(pairs), end

    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    return decoder.decode(text)


_INDENT = orjson.OPT_INDENT_2


def encode_json(obj: Any) -> bytes | None:
    """``json.dumps(obj, indent=2, ensure_ascii=False)`` in UTF-8 (orjson's own output), or None
    when orjson cannot write it (integers beyond 64 bits, non-string keys, other types). Strings,
    integers, booleans, null and plain fractions are the same bytes; a float json spells with an
    exponent is spelled orjson's way (``1e-5`` for ``1e-05``: the same number), and NaN or
    infinity, which JSON has not, is written ``null`` (json writes the invalid ``NaN``)."""
    try:
        return orjson.dumps(obj, option=_INDENT)
    except (orjson.JSONEncodeError, TypeError):
        return None


# ============================================================================================ YAML

# PyYAML's own implicit resolvers: what a plain scalar reads as under YAML 1.1.
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


@lru_cache(maxsize=65536)
def _plain_tag(value: str) -> str:
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))


# Characters which, where a node may begin (see _starts_node), the fast reader leaves to PyYAML:
# tags, anchors, aliases, block scalars, directives, explicit keys, reserved indicators.
_INDICATORS = b"!&*|>%?@`"
_NOT_INDICATORS = bytes(b for b in range(256) if b not in _INDICATORS)
# The indicator first, then what precedes it: the engine then skips ahead to each indicator (a
# lookbehind first is tried at every position: 0.39 s against 0.05 s over a 24 MB hub of CEL).
_INDICATOR_AT_TOKEN = re.compile(r"[!&*|>%?@`](?<=(?:^|(?<=[\s\[\]{},]))[!&*|>%?@`])", re.MULTILINE)
_PRINTABLE_ASCII_BYTES = bytes([10, *range(0x20, 0x7F)])
# Besides what YAML cannot hold, its 1.1 line breaks NEL, LS and PS: PyYAML folds them in scalars,
# rapidyaml (YAML 1.2) reads them as characters.
_UNPRINTABLE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|\ufeff")
_ESCAPE = re.compile(r'\\[^"\\nt]')
# Every JSON string (key or value) that YAML 1.1 might read as another type when plain (a superset:
# bool and null words, numbers in every YAML 1.1 spelling, merge and value keys).
_MAYBE_TYPED = re.compile(
    r'"([-+.~<=0-9][-+.0-9_:xobeEa-fA-FinfaINFA]*|[yYnNtTfFoO][a-zA-Z]{0,4}|~|<<|=)"(:?)'
)
_MAYBE_TYPED_BYTES = re.compile(_MAYBE_TYPED.pattern.encode("ascii"))
# What rapidyaml writes bare when plain: a string with that text was quoted.
_BARE_SAFE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|true|false|null")


def _float(_: str) -> Any:
    raise ValueError("a float")  # PyYAML and rapidyaml read some floats differently: let PyYAML


_YAML_JSON_DECODER = msgspec.json.Decoder(float_hook=_float)


def _unjudged(text: str, data: bytes) -> bool:
    """Whether the text holds anything the fast reader leaves to PyYAML."""
    if data.translate(None, _NOT_INDICATORS) and any(
        _starts_node(text, m.start()) for m in _INDICATOR_AT_TOKEN.finditer(text)
    ):
        return True
    if "<<" in text or "\t" in text or "\r" in text or text.startswith("...") or "\n..." in text:
        return True
    if "\\" in text and _ESCAPE.search(text):
        return True
    return bool(data.translate(None, _PRINTABLE_ASCII_BYTES)) and bool(_UNPRINTABLE.search(text))


def _starts_node(text: str, at: int) -> bool:
    """Whether the indicator at `at` (after a space or a flow character) may begin a node, a tag,
    anchor, alias, block scalar or directive: at the start of a line, after a key's colon, a
    sequence dash, an explicit key, a flow character or a quoted scalar. Otherwise it stands
    inside a plain scalar (``e.value > 0``, ``c.name == "x" && y``) or a comment, where both
    parsers read it as a character. Conservative: a doubt answers True."""
    line = text.rfind("\n", 0, at) + 1
    before = text[line:at].rstrip(" ")
    if not before or before[-1] in _NODE_OPENERS or not _FLOW.isdisjoint(before):
        return True
    if before[-1] not in "'\"":
        return False
    # After a quote: only inside a plain scalar (one that does not begin with a quote).
    node = before.lstrip(" ")
    while node.startswith("- "):
        node = node[2:].lstrip(" ")
    if node[:1] in ("'", '"'):
        return True
    _, colon, value = node.partition(": ")
    return bool(colon) and value.lstrip(" ")[:1] in ("", "'", '"')


_NODE_OPENERS = frozenset(":-?,!&*|>%@`")
_FLOW = frozenset("[]{}")


def _plain_somewhere(text: str, token: str) -> bool:
    """Whether `token` stands in `text` as a whole plain scalar (not inside quotes or a longer
    scalar); conservative: a doubt answers True."""
    for match in re.finditer(re.escape(token), text):
        start, end = match.span()
        before = text[max(0, start - 64) : start].rstrip(" ")
        after = text[end : end + 64].lstrip(" ")
        opens = not before or before[-1] in "\n[{,:-?"
        closes = not after or after[0] in "\n,]}#:"
        if opens and closes:
            return True
    return False


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 sent to /dev/null for the duration (C++ code writes to it directly)."""
    try:
        saved = os.dup(2)
    except OSError:  # pragma: no cover - no standard error at all
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def load_yaml(text: str) -> list[Any] | None:
    """The documents PyYAML's loader (manifests._Loader) gives, or None when unsure."""
    return _judged_yaml(text)


def load_yaml_packed(text: str) -> bytes:
    """The documents :func:`load_yaml` gives, packed for :func:`unpack_documents`; empty when
    unsure. Meant for a forked child: what it sends back is bytes. The child has built the
    documents anyway (to judge them), and marshal's bytes are read back in two thirds of the time
    msgspec takes for the JSON (and are half its size: repeated keys are written once)."""
    documents = _judged_yaml(text)
    return b"" if documents is None else marshal.dumps(documents)


def unpack_documents(data: bytes) -> list[Any]:
    """The documents of :func:`load_yaml_packed`'s answer, from a child of this same process
    (marshal's format is the running interpreter's own)."""
    return marshal.loads(data)  # type: ignore[no-any-return]


def _emit_json(tree: Any, size_hint: int) -> bytes:
    """rapidyaml's JSON of the tree as UTF-8 bytes, written straight into a buffer (a third faster
    than its text, which would then be encoded again)."""
    buffer = bytearray(2 * size_hint + 4096)
    failed, size = _ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
    if failed:
        buffer = bytearray(size)
        failed, size = _ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
    return bytes(memoryview(buffer)[:size])


def _nodes_at_most(data: bytes) -> int:
    """About as many nodes as rapidyaml makes of a block-style text, a little more: one a line (a
    key and its value are one node), one more a sequence item (`- `), and a hundredth. Reserved
    before the parse, the tree is allocated once: grown as it parses, its capacity doubled again
    and again (to 1,048,576 nodes), each time a new allocation the kernel zero-fills and the old
    one copied into it (Fleet 10,000 x 2,000, each of the two runs of about 520,000 nodes: the
    parse 0.18 to 0.22 -> 0.12 CPU s, 41,000 to 76,000 -> 22,000 page faults). A text that makes
    more (flow style) is parsed all the same: the tree grows from there, as it did from nothing."""
    estimate = data.count(b"\n") + data.count(b"- ")
    return estimate + estimate // 100 + 64


def _judged_yaml(text: str) -> list[Any] | None:
    """The documents of the text, read by rapidyaml through its JSON; None when anything could read
    differently from PyYAML."""
    if _ryml is None:
        return None
    data = text.encode("utf-8")
    if _unjudged(text, data):
        return None
    try:
        tree = _ryml.Tree()
        tree.reserve(_nodes_at_most(data))
        with _quiet_stderr():  # rapidyaml prints its parse errors; PyYAML words them for us
            _ryml.parse_in_arena(data, tree)
        if tree.size() == 0:
            return None
        as_json = _emit_json(tree, len(data))
        is_stream = tree.is_stream(tree.root_id())
    except Exception:  # noqa: BLE001 - rapidyaml's own exceptions: PyYAML words the error
        return None
    if not as_json:
        return None
    for token_bytes, is_key in set(_MAYBE_TYPED_BYTES.findall(as_json)):
        token = token_bytes.decode("ascii")  # the pattern's characters are ASCII
        if _plain_tag(token) in (_STR, _TIMESTAMP):
            continue
        if is_key:  # JSON keys are strings; PyYAML's plain keys of this text are not
            return None
        # rapidyaml's JSON does not say whether this string was quoted: unless rapidyaml would have
        # written it bare had it been plain, the text must show it never stands plain.
        if not _BARE_SAFE.fullmatch(token) and _plain_somewhere(text, token):
            return None
    try:
        doc = _YAML_JSON_DECODER.decode(as_json)
    except (msgspec.DecodeError, ValueError):  # not JSON (e.g. +12 written bare), or a float
        return None
    if not _no_duplicates(as_json, doc):  # rapidyaml keeps duplicate keys; PyYAML here refuses them
        return None
    documents = doc if is_stream else [doc]
    if not isinstance(documents, list) or any(d is None for d in documents):
        return None  # empty documents: PyYAML numbers them, let it
    return documents


# A document start marker: "---" at the start of a line, then a space, a line break or the end. It
# ends whatever precedes it (PyYAML closes every open block there, and refuses one inside a
# quoted or flow scalar), so the documents between two markers may be read apart.
# Searched after a line break rather than with ^ in multiline mode: a literal start lets the regex
# engine skip ahead, ten times faster on a large stream.
_DOCUMENT_START = re.compile(r"---(?=[ \t\r\n]|\Z)")  # matched at the text's start
_LATER_DOCUMENT_START = re.compile(r"\n---(?=[ \t\r\n]|\Z)")
_LATER_DIRECTIVE = re.compile(r"\n%")
_DOCUMENT_START_BYTES = re.compile(rb"---(?=[ \t\r\n]|\Z)")
_LATER_DOCUMENT_START_BYTES = re.compile(rb"\n---(?=[ \t\r\n]|\Z)")
_LATER_DIRECTIVE_BYTES = re.compile(rb"\n%")


def _comments_only(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def document_runs(text: str) -> list[str] | None:
    """The text cut before each document start marker (a first part without one kept when it
    holds more than comments); None when it cannot be cut safely (no markers, directives)."""
    starts = document_starts(text)
    if starts is None:
        return None
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def document_starts(text: str) -> list[int] | None:
    """Where :func:`document_runs` cuts the text (the first at 0: text before the first marker is
    comments, kept with it, or a document of its own)."""
    return _starts(text, _DOCUMENT_START, _LATER_DOCUMENT_START, _LATER_DIRECTIVE, "%", str)


def runs_of_lines(text: str, parts: int) -> list[str] | None:
    """The text cut before some of its document start markers into at most `parts` runs of about
    equal lines, or None where :func:`document_starts` gives None (where it cannot be cut). Parsing
    time follows the number of lines: measured on generated hubs, runs of equal lines took within
    3% of each other, runs of equal colons (nodes) up to 20%, of equal bytes more (a cluster's
    status has twice the keys per byte of a binding). The lines are counted a block at a time and
    the cut's place within its block taken in proportion (off by a block's lines at most): where
    each run ends changes how soon it is parsed, never what is read. Without the list of every
    document's start (30,000 at 10,000 x 2,000), it takes two fifths of that list's time (0.018
    against 0.044 CPU s), on the way to the forked children's parsing."""
    if text[:1] == "%" or _LATER_DIRECTIVE.search(text):
        return None
    if not _DOCUMENT_START.match(text) and not _LATER_DOCUMENT_START.search(text):
        return None
    counts = [text.count("\n", at, at + _COUNTED) for at in range(0, len(text), _COUNTED)]
    total = sum(counts)
    cuts = [0]
    block = before = 0  # the block the next cut's line is in, and the lines before it
    for run in range(1, parts):
        line = total * run // parts
        while block < len(counts) - 1 and before + counts[block] < line:
            before += counts[block]
            block += 1
        share = (line - before) / counts[block] if counts[block] else 0.0
        marker = _LATER_DOCUMENT_START.search(text, block * _COUNTED + int(share * _COUNTED))
        if marker is None:
            break
        if marker.start() + 1 > cuts[-1]:
            cuts.append(marker.start() + 1)
    return [text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)]


_COUNTED = 1 << 16  # the characters whose lines runs_of_lines counts at a time


def document_offsets(data: Any) -> list[int] | None:
    """:func:`document_starts` of a text's UTF-8 bytes (bytes or a read-only mmap of them), as
    offsets in the bytes: the markers and directives are ASCII."""
    return _starts(
        data, _DOCUMENT_START_BYTES, _LATER_DOCUMENT_START_BYTES, _LATER_DIRECTIVE_BYTES, b"%", _text
    )


def _text(data: Any) -> str:
    return bytes(data).decode("utf-8", "replace")


def _starts(
    text: Any,
    start: re.Pattern,
    later: re.Pattern,
    directive: re.Pattern,
    percent: Any,
    as_text: Callable[[Any], str],
) -> list[int] | None:
    if text[:1] == percent or directive.search(text):
        return None
    starts = [0] if start.match(text) else []
    starts += [m.start() + 1 for m in later.finditer(text)]
    if not starts:
        return None
    if starts[0] and not _comments_only(as_text(text[: starts[0]])):
        return [0, *starts]  # a first document without a marker
    starts[0] = 0
    return starts


def load_yaml_by_document(text: str, reference: Callable[[str], list[Any]]) -> list[Any] | None:
    """The documents of a stream :func:`load_yaml` refused as a whole: each run of documents it
    can judge is read fast, the others by ``reference`` (PyYAML). None when the stream cannot be
    cut safely (no markers, directives). An error of ``reference`` is raised as it comes; the
    caller then reads the whole text with the reference, which words it with the right line."""
    chunks = document_runs(text) if _ryml is not None else None
    if chunks is None:
        return None
    runs: list[tuple[bool, list[str]]] = []
    for chunk in chunks:
        fast = not _unjudged(chunk, chunk.encode("utf-8"))
        if runs and runs[-1][0] == fast:
            runs[-1][1].append(chunk)
        else:
            runs.append((fast, [chunk]))
    documents: list[Any] = []
    for fast, run in runs:
        joined = "".join(run)
        got = load_yaml(joined) if fast else None
        if got is None:
            got = reference(joined)
        if len(got) != len(run):
            return None
        documents += got
    return documents


# ======================================================================================= writing


class Unhandled(Exception):
    """Raised inside :func:`dump_yaml` for data it leaves to PyYAML."""


_GO_YAML_TYPED = re.compile(
    r"[yYnN]|[-+]?(?:0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?)"
)
_SIMPLE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*")
_WORDS = frozenset(
    {
        *("yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE"),
        *("on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL"),
    }
)
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_MAX_PLAIN = 60_000  # below PyYAML's width (65536) with any indentation: never folded
# The printable ASCII characters a plain scalar may begin with and still read as a string whatever
# follows: PyYAML picks its implicit resolvers by the first character (were any kept for every
# character, under a None key, this set would be empty), and go-yaml's typing (_GO_YAML_TYPED)
# begins with one of yYnN+-. or a digit. A string beginning with another needs neither look.
_UNTYPED_STARTS = (
    frozenset()
    if None in _RESOLVER.yaml_implicit_resolvers
    else frozenset(map(chr, range(0x21, 0x7F)))
    - set(_RESOLVER.yaml_implicit_resolvers)
    - set("yYnN+-.0123456789")
)


def _block_indicated(value: str) -> bool:
    """Whether a non-empty printable ASCII value holds what PyYAML's analysis of a scalar finds
    unfit for a plain one in block context: an indicator first (`#`, a flow or node character, a
    quote, a space; `?`, `:` or `-` followed by a space or nothing), `---` or `...` first, `: ` or
    ` #` anywhere, or `:` or a space last. (Was one regular expression, tried at every position.)"""
    first = value[0]
    return (
        first in _LEADING_INDICATORS
        or (first in "?:-" and value[1:2] in " ")
        or value[-1] in ": "
        or ": " in value
        or " #" in value
        or value.startswith(("---", "..."))
    )


_LEADING_INDICATORS = frozenset("#,[]{}&*!|>'\"%@` ")


@lru_cache(maxsize=1 << 18)
def _string(value: str) -> str:
    """The text PyYAML writes for a string value (block context), or raise Unhandled."""
    if _SIMPLE.fullmatch(value):
        if value[0] in _UNTYPED_STARTS:
            return value
        if value[0].isdigit() or value[0] == "_":
            tag = _plain_tag(value)
            plain = tag == _STR and not _GO_YAML_TYPED.fullmatch(value)
        else:
            plain = value not in _WORDS and not _GO_YAML_TYPED.fullmatch(value)
        return value if plain else f"'{value}'"
    if len(value) > _MAX_PLAIN:
        raise Unhandled
    if _PRINTABLE_ASCII.fullmatch(value):
        plain = (
            value != ""
            and not _block_indicated(value)
            and (value[0] in _UNTYPED_STARTS or _plain_untyped(value))
        )
        return value if plain else "'" + value.replace("'", "''") + "'"
    # Non-ASCII or control characters: PyYAML decides, for this one string.
    text = yaml.dump([value], Dumper=_dumper(), allow_unicode=True, width=2**16, default_flow_style=False)
    if not text.startswith("- ") or text.count("\n") != 1:
        raise Unhandled
    body = text[2:-1]
    if body == value and _GO_YAML_TYPED.fullmatch(value):
        return f"'{value}'"
    return body


def _plain_untyped(value: str) -> bool:
    return _plain_tag(value) == _STR and not _GO_YAML_TYPED.fullmatch(value)


_LINE_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")


@lru_cache(maxsize=1 << 16)
def _key(value: str) -> str:
    # PyYAML writes a long key, or one holding a line break (YAML's: NEL, LS and PS too, even
    # where it writes them quoted on one line), as an explicit "? key": a simple key must be one
    # line, and read back as one.
    if len(value) > 100 or _LINE_BREAKS.search(value):
        raise Unhandled
    return _string(value)


_DUMPER: list[type] = []


def _dumper() -> type:
    if not _DUMPER:
        _DUMPER.append(getattr(yaml, "CSafeDumper", yaml.SafeDumper))
    return _DUMPER[0]


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    raise Unhandled


def dump_yaml(obj: Mapping[str, Any], memo: dict[Any, str] | None = None) -> str:
    """One document's body as PyYAML writes it; Unhandled when PyYAML must write it.

    ``memo`` may be shared by the documents of one stream while they are all alive: a dict that
    several of them hold (by identity) is then rendered once.
    """
    out: list[str] = []
    _document(obj, out, {} if memo is None else memo)
    return "".join(out)


def dump_yaml_stream(objects: Iterable[Any], fallback: Callable[[Any], str]) -> str:
    """The documents of a YAML stream, each after ``---``, written into one buffer; a document
    this writer leaves to PyYAML is written by ``fallback`` instead (whatever it had written of
    that document is dropped). Dicts shared by several documents are rendered once."""
    return "".join(dump_yaml_pieces(objects, fallback, size=0))


def dump_yaml_pieces(objects: Iterable[Any], fallback: Callable[[Any], str], size: int) -> Iterator[str]:
    """:func:`dump_yaml_stream`'s text in pieces of `size` documents (0: one piece), for a writer
    that need not hold the whole text at once; the memo of shared dicts spans the pieces."""
    out: list[str] = []
    memo: dict[Any, str] = {}
    count = 0
    for obj in objects:
        _document_or(fallback, obj, out, memo)
        count += 1
        if count == size:
            yield "".join(out)
            out.clear()
            count = 0
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
    if out or not size:
        yield "".join(out)


def encode_yaml_pieces(objects: Iterable[Any], fallback: Callable[[Any], str], size: int) -> Iterator[bytes]:
    """:func:`dump_yaml_pieces`' pieces in UTF-8, the same bytes: written by the compiled writer
    (``_yamlout``, built from adapters/kube/_yamlout.c) where it is built and `objects` is a list
    or tuple; each document it leaves (anything but plain dicts, lists, strings, integers,
    booleans and None; whatever this module's writer leaves to `fallback`) is written here."""
    if _yamlout is None or type(objects) not in (list, tuple):
        for text in dump_yaml_pieces(objects, fallback, size):
            yield text.encode("utf-8")
        return
    objects = objects if type(objects) is list else list(objects)
    memo: dict[int, bytes] = {}  # the compiled writer's rendered mappings, by identity and indent
    own_memo: dict[Any, str] = {}  # this module's, for the documents it writes
    total = len(objects)
    for start in range(0, total, size) if size else (0,):
        stop = min(start + size, total) if size else total
        parts: list[bytes] = []
        at = start
        while at < stop:
            data, at = _yamlout.render(objects, at, stop, memo, _C_STRINGS, _C_KEYS)
            parts.append(data)
            if at < stop:  # a document the compiled writer leaves to this one
                out: list[str] = []
                _document_or(fallback, objects[at], out, own_memo)
                parts.append("".join(out).encode("utf-8"))
                at += 1
        yield b"".join(parts)
        for kept in (memo, own_memo):
            if len(kept) > _MEMO_LIMIT:
                kept.clear()


def _document_or(fallback: Callable[[Any], str], obj: Any, out: list[str], memo: dict) -> None:
    """``---`` and the document, or what `fallback` writes of it when this writer leaves it."""
    out.append("---\n")
    mark = len(out)
    try:
        _document(obj, out, memo)
    except Unhandled:
        del out[mark:]
        out.append(fallback(obj))


# Past this many texts kept by identity the memo is let go between pieces: a stream of a million
# objects would keep one for every shared dict it met (at 10,000 x 50,000, 0.8 GB), while sharing
# is mostly near (a decision in its binding and in its snapshot's status).
_MEMO_LIMIT = 1 << 16


def _document(obj: Any, out: list[str], memo: dict) -> None:
    kind = type(obj)
    if kind is Shaped:
        try:
            out.append(obj._template.render(obj._values, memo))
            return
        except Unhandled:
            pass  # walked below, as the dict it is
    elif kind is not dict:
        raise Unhandled
    if not obj:
        out.append("{}\n")
        return
    _mapping(obj, "", out, memo)


# Per indentation, a key's rendered head (indentation and key); per string value, the rest of its
# line (": value\n"). A stream repeats the same few keys and many values; both are bounded, for
# long-lived callers.
_HEADS: dict[str, dict[str, str]] = {}
_TAILS: dict[str, str] = {}
_HEADS_LIMIT = 1 << 14
_TAILS_LIMIT = 1 << 18
# The compiled writer's: rendered strings and keys by value, in UTF-8, bounded alike.
_C_STRINGS: dict[str, bytes] = {}
_C_KEYS: dict[str, bytes] = {}


def forget_memos() -> None:
    """Empty the writer's memos of strings (up to 2^18 values each). A process that writes a large
    input's parts one after another (adapters.run.parts) lets a part's strings go with the part:
    kept, they would pin the allocator's pages that held its objects (at Fleet 10,000 x 50,000,
    hundreds of MB a worker before its next part is read)."""
    for memo in (_string, _key, _plain_tag):
        memo.cache_clear()
    for kept in (_TAILS, _HEADS, _C_STRINGS, _C_KEYS):
        kept.clear()


def _mapping(obj: dict[str, Any], indent: str, out: list[str], memo: dict) -> None:
    """Write `obj`'s entries, each line starting with `indent` (the first one's already written
    by the caller when it follows "- ")."""
    append = out.append
    heads = _HEADS.get(indent)
    if heads is None:
        heads = _HEADS[indent] = {}
    tails = _TAILS
    first = True
    deeper = ""
    for key, value in obj.items():
        if first:
            if type(key) is not str:
                raise Unhandled
            head = _key(key)
            first = False
        else:
            head = heads.get(key)  # type: ignore[assignment]
            if head is None:
                if type(key) is not str:
                    raise Unhandled
                head = indent + _key(key)
                if len(heads) < _HEADS_LIMIT:
                    heads[key] = head
        kind = type(value)
        if kind is str:
            tail = tails.get(value)
            if tail is None:
                tail = f": {_string(value)}\n"
                if len(tails) < _TAILS_LIMIT:
                    tails[value] = tail
            append(head + tail)
        elif kind is dict:
            if value:
                deeper = deeper or indent + "  "
                append(f"{head}:\n{deeper}")
                if len(value) < _SHARED_MIN:
                    _mapping(value, deeper, out, memo)
                else:
                    append(_body(value, deeper, memo))
            else:
                append(f"{head}: {{}}\n")
        elif kind is list:
            if value:
                append(f"{head}:\n")
                _sequence(value, indent, out, memo)
            else:
                append(f"{head}: []\n")
        else:
            append(f"{head}: {_scalar(value)}\n")


# A mapping of this many entries or more is rendered once per indentation and kept by identity:
# the same dict often stands in several places (a decision in its binding and in the policy
# snapshot's status, cached status entries shared by placements).
_SHARED_MIN = 4


def _body(obj: dict[str, Any], indent: str, memo: dict) -> str:
    """A non-empty mapping's entries at `indent` (its first line's indentation written by the
    caller), rendered once per object and indentation while the stream is written."""
    key = (id(obj), indent)
    text = memo.get(key)
    if text is None:
        parts: list[str] = []
        _mapping(obj, indent, parts, memo)
        text = memo[key] = "".join(parts)
    return text


def _sequence(items: list[Any], indent: str, out: list[str], memo: dict) -> None:
    append = out.append
    dash = indent + "- "
    # Mapping items, dash included, by identity (as _body keeps them): a status lists shared
    # entries by the hundred thousand.
    entries = memo.get(dash)
    if entries is None:
        entries = memo[dash] = {}
    for item in items:
        kind = type(item)
        if kind is str:
            append(f"{dash}{_string(item)}\n")
        elif kind is dict:
            if not item:
                append(f"{dash}{{}}\n")
                continue
            text = entries.get(id(item))
            if text is None:
                if len(entries) >= _MEMO_LIMIT:  # bounded as the memo is
                    entries.clear()
                text = entries[id(item)] = dash + _body(item, indent + "  ", memo)
            append(text)
        elif kind is list:
            if not item:
                append(f"{dash}[]\n")
                continue
            inner: list[str] = []
            _sequence(item, indent + "  ", inner, memo)
            append(dash + "".join(inner)[len(indent) + 2 :])
        else:
            append(f"{dash}{_scalar(item)}\n")


# ===================================================================================== templates


class Shaped(dict):  # type: ignore[type-arg]
    """A plain dict in every respect, made by :meth:`Template.fill`: the YAML writer renders it
    from its template (fixed text and a few values) instead of walking it. Like every emitted
    object it is read-only: changed after filling, its rendering would be stale."""

    __slots__ = ("_template", "_values")


class Template:
    """One document shape rendered once by this writer: what `build` returns for sentinel
    arguments, cut at each sentinel into fixed text and holes. Filling it renders each hole's
    value as the writer would there (a string or other scalar as a mapping value, a non-empty
    mapping as a nested block), so the text is the writer's own, byte for byte; any other value
    (a list, an empty mapping) sends the object to the ordinary walk.

        BINDING = Template(lambda name, cluster: {"kind": "B", "metadata": {"name": name}, ...})
        obj = BINDING.fill("b-1", "c1")   # a dict, rendered without a walk
    """

    def __init__(self, build: Callable[..., dict[str, Any]]) -> None:
        self._build = build
        code = build.__code__  # a plain function's parameters (inspect costs 6 ms to import)
        self._names = code.co_varnames[: code.co_argcount]
        sentinels = {name: f"zq{i}holefor{name}qz" for i, name in enumerate(self._names)}
        text = dump_yaml(build(**sentinels))
        found = sorted((text.find(s), name) for name, s in sentinels.items())
        self._order: list[int] = []  # each hole's argument, by position
        self._scalar_heads: list[str] = []  # the fixed text before each hole, for a scalar there
        self._mapping_heads: list[tuple[str, str]] = []  # ... and for a mapping: (text, its indent)
        start = 0
        for at, name in found:
            sentinel = sentinels[name]
            end = at + len(sentinel)
            if at < 0 or text.count(sentinel) != 1 or text[end : end + 1] != "\n":
                raise ValueError(f"hole {name!r} must stand once, as a mapping value at a line's end")
            head = text[start:at]
            line = head[head.rfind("\n") + 1 :]
            if not line.endswith(": "):
                raise ValueError(f"hole {name!r} must stand as a mapping value")
            key = line.lstrip(" ")
            while key.startswith("- "):
                key = key[2:]
            deeper = " " * (len(line) - len(key) + 2)
            self._order.append(self._names.index(name))
            self._scalar_heads.append(head)
            self._mapping_heads.append((f"{head[:-1]}\n{deeper}", deeper))
            start = end + 1  # past the hole's line break, which render writes
        self._tail = text[start:]
        # The same in UTF-8 for the compiled writer: argument positions, scalar heads, mapping
        # heads, mapping indents, tail.
        self._prepared = (
            tuple(self._order),
            tuple(head.encode() for head in self._scalar_heads),
            tuple(head.encode() for head, _ in self._mapping_heads),
            tuple(len(deeper) for _, deeper in self._mapping_heads),
            self._tail.encode(),
        )

    def fill(self, *values: Any) -> Shaped:
        """The object `build` makes of `values` (its arguments, in order), marked for rendering
        from this template."""
        obj = Shaped(self._build(*values))
        obj._template = self
        obj._values = values
        return obj

    def render(self, values: tuple[Any, ...], memo: dict) -> str:
        """The document's text; Unhandled when a value needs the ordinary walk."""
        parts: list[str] = []
        for index, head, (mapping_head, deeper) in zip(
            self._order, self._scalar_heads, self._mapping_heads, strict=True
        ):
            value = values[index]
            if type(value) is str:
                parts += (head, _string(value))
            elif type(value) is dict and value:
                parts += (mapping_head, _body(value, deeper, memo))
                continue  # a block ends with its own line break
            else:
                parts += (head, _scalar(value))
            parts.append("\n")
        parts.append(self._tail)
        return "".join(parts)


# ============================================================================ the compiled writer

try:  # built from _yamlout.c by `pip install .` or `python setup.py build_ext --inplace`
    from adapters.kube import _yamlout
except ImportError:  # no compiler where it was installed: the same bytes, written above
    _yamlout = None
else:
    _yamlout.configure(
        _string,
        _key,
        Unhandled,
        Shaped,
        "".join(sorted(_UNTYPED_STARTS)),
        _TAILS_LIMIT,
        _HEADS_LIMIT,
        _MAX_PLAIN,
        _SHARED_MIN,
    )
