"""Reading and writing Kubernetes manifests, independent of any scheduler.

Reading turns files, directories and standard input (multi-document YAML or JSON, ``kind: List``
expanded) into validated :class:`Manifest` objects; writing turns plain objects into byte-identical
YAML streams or JSON. Every bad input raises :class:`adapters.errors.InputError`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from adapters.errors import InputError
from adapters.kube import codec
from adapters.run import forked

__all__ = [
    "Manifest",
    "dump_json",
    "dump_json_list",
    "dump_yaml_stream",
    "encode_json",
    "encode_json_list",
    "encode_yaml_stream",
    "json_items",
    "json_lead_list",
    "orjson_items",
    "write_json",
    "write_json_list",
    "write_json_list_runs",
    "write_yaml_runs",
    "write_yaml_stream",
    "yaml_items",
    "from_numbered",
    "from_objects",
    "index_by_kind",
    "object_reference",
    "parse_text",
    "read_sources",
    "start_reading",
    "Reading",
]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
STDIN_SOURCE = "<stdin>"

_YAML_WIDTH = 2**16
_JSON_OBJECT_START = re.compile(r"\s*\{")
_JSON_DATA_START = re.compile(rb"\s*\{")  # ASCII white space: a subset of the text's (above)
_BOM = "\ufeff".encode()
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


# --------------------------------------------------------------------------------------------- model


@dataclass(frozen=True, slots=True)
class Manifest:
    """One Kubernetes object as read: the parsed object, its file and 1-based document number.

    ``obj`` is shared with the parser's output and must be treated as read-only.
    """

    obj: dict[str, Any]
    source: str
    index: int

    @property
    def kind(self) -> str:
        """The object's ``kind``."""
        return self.obj["kind"]

    @property
    def api_version(self) -> str:
        """The object's ``apiVersion``, e.g. ``apps/v1``."""
        return self.obj["apiVersion"]

    @property
    def group(self) -> str:
        """The API group: the part of apiVersion before ``/``; ``""`` for the core group."""
        return self.api_version.rpartition("/")[0]

    @property
    def version(self) -> str:
        """The API version without the group, e.g. ``v1``."""
        return self.api_version.rpartition("/")[2]

    @property
    def name(self) -> str:
        """``metadata.name``."""
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str:
        """``metadata.namespace``, or ``""`` for cluster-scoped objects."""
        return self.obj["metadata"].get("namespace") or ""

    @property
    def ref(self) -> str:
        """``Kind/name`` or ``Kind/namespace/name``, for error messages."""
        obj = self.obj
        metadata = obj["metadata"]
        namespace = metadata.get("namespace")
        if namespace:
            return f"{obj['kind']}/{namespace}/{metadata['name']}"
        return f"{obj['kind']}/{metadata['name']}"

    @property
    def location(self) -> str:
        """``file: document N``, for error messages."""
        return f"{self.source}: document {self.index}"


# ------------------------------------------------------------------------------------------- reading


_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The safe loader, with timestamps kept as strings and duplicate keys refused (as kubectl does)."""

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    typed = (type(key), key)  # 1 and true are different keys
                    duplicate = typed in seen
                    seen.add(typed)
                except TypeError:
                    continue  # an unhashable key: the base constructor reports it
                if duplicate:
                    raise ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


# Kubernetes decodes YAML through JSON, so an unquoted timestamp is a string there; a datetime here
# would also break JSON output.
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_str)


# Whether a reader reads objects of a kind and apiVersion at all (adapters.registry.reads).
Reads = Callable[[str, str], bool]


def read_sources(
    paths: Sequence[str], stdin: TextIO | None = None, *, reads: Reads | None = None
) -> list[Manifest]:
    """Read every manifest in ``paths``: files, directories (recursively) or ``-`` for standard input.

    Directories contribute every ``*.yaml``, ``*.yml`` and ``*.json`` file below them, in path order,
    skipping hidden files and directories. A file reached twice is read once. With `reads`, an
    object of a kind it does not read is not validated (from_objects); a directory's documents
    that are not Kubernetes objects are left out (:attr:`Reading.notes` says which).
    """
    return start_reading(paths, stdin, reads=reads).manifests()


class Reading:
    """Sources read, their parsing under way: a large text is parsed by forked children (adapters.
    forked) while the caller does something else, such as importing the scheduler. Errors come
    from :meth:`manifests`, in the order of the sources, as :func:`read_sources` raises them;
    `notes`, once it has run, say what a directory held that was left out."""

    def __init__(self, steps: list[Callable[[], list[Manifest]]], notes: list[str]) -> None:
        self._steps = steps
        self.notes = notes

    def manifests(self) -> list[Manifest]:
        """Every manifest, validated; InputError for the first source that has a problem (the
        children still parsing later sources are then stopped). Once: each step is let go as it
        is taken, and with it its source's text (a large hub's is hundreds of MB, and its parsed
        objects are all a run keeps)."""
        manifests: list[Manifest] = []
        steps, self._steps = self._steps, []
        steps.reverse()
        while steps:
            step = steps.pop()
            try:
                manifests.extend(step())
            except BaseException:
                for later in steps:
                    _cancel(later)
                raise
            del step
        return manifests


def start_reading(
    paths: Sequence[str], stdin: TextIO | None = None, *, reads: Reads | None = None
) -> Reading:
    """:func:`read_sources`, begun: the files are read and the parsing of large ones started. A
    file named is read strictly; one found in a directory may hold other tools' YAML (a Helm
    values file), whose documents without apiVersion and kind are left out with a note."""
    steps: list[Callable[[], list[Manifest]]] = []
    notes: list[str] = []
    seen: set[str] = set()
    try:
        for path in paths:
            if path == "-":
                if "-" in seen:
                    raise InputError("standard input given more than once", where="-")
                seen.add("-")
                text = _read_stream(stdin if stdin is not None else sys.stdin)
                steps.append(_start_parsing(text, STDIN_SOURCE, reads))
                continue
            found = os.path.isdir(path)
            for file in _walk(path) if found else _named(path):
                real = os.path.realpath(file)
                if real in seen:
                    continue
                seen.add(real)
                begun = None if found else _begun.pop(file, None)
                if begun is not None:  # read, and its parsing started, as the command began
                    steps.append(functools.partial(_parsed, *begun, reads, None))
                    continue
                steps.append(_start_parsing(_read_file(file), file, reads, notes if found else None))
    except InputError as err:  # raised after whatever the sources before it raise
        steps.append(functools.partial(_raise, err))
    return Reading(steps, notes)


def _cancel(step: Callable[[], list[Manifest]]) -> None:
    """Stop the children working for a step that will not run."""
    if isinstance(step, functools.partial) and step.func is _parsed and step.args[2] is not None:
        step.args[2].cancel()


def _raise(err: InputError) -> list[Manifest]:
    raise err


def parse_text(text: str, source: str, *, reads: Reads | None = None) -> list[Manifest]:
    """Parse one file's text (YAML stream or JSON document) into validated manifests."""
    return _start_parsing(text, source, reads)()


def _start_parsing(
    text: str | bytes, source: str, reads: Reads | None = None, skipped: list[str] | None = None
) -> Callable[[], list[Manifest]]:
    """The manifests of one text, as a call; the work on a large text already under way. `reads`
    and `skipped` as for from_objects."""
    return functools.partial(_parsed, *_prepared(text, source), reads, skipped)


def _prepared(text: str | bytes, source: str) -> tuple[str | bytes, str, _Early | None]:
    """The text as it is parsed, its source, and the forked children's work on it begun where it
    is large. A file's bytes that look like JSON stay bytes: msgspec reads them as they are (only
    valid UTF-8), and the text is made of them only if it cannot; any other bytes are decoded
    here (InputError where they are not UTF-8)."""
    if isinstance(text, bytes):
        start = len(_BOM) if text.startswith(_BOM) else 0
        if not (source.lower().endswith(".json") or _JSON_DATA_START.match(text, start)):
            text = _utf8(text, source)
    if isinstance(text, str):
        text = text.removeprefix("\ufeff")
    early = _start_early(text, source) if len(text) >= _SPLIT_READ and forked.workers() > 1 else None
    return text, source, early


# Files read, their parsing begun, before the command that reads them knew it would (begin_file):
# taken by start_reading where it reads such a file by its name.
_begun: dict[str, tuple[str | bytes, str, _Early | None]] = {}


def begin_file(path: str) -> None:
    """Read the file named `path` and begin its parsing now, for a later start_reading of that
    name (adapters.cli.early: the console script's input parsed while the command imports). A
    file that cannot be read, or is not UTF-8, is left alone: its reading then fails where the
    command reads it, in the order of its sources, as it would have."""
    if path in _begun:
        return
    with contextlib.suppress(InputError):
        _begun[path] = _prepared(_read_file(path), path)


def forget_begun() -> None:
    """Stop the work begun on files no command took (the command failed before its reading)."""
    for _, _, early in _begun.values():
        if early is not None:
            early.cancel()
    _begun.clear()


def _parsed(
    text: str, source: str, early: _Early | None, reads: Reads | None, skipped: list[str] | None
) -> list[Manifest]:
    return from_objects(_parse_documents(text, source, early), source, reads=reads, skipped=skipped)


def from_objects(
    documents: Iterable[Any], source: str, *, reads: Reads | None = None, skipped: list[str] | None = None
) -> list[Manifest]:
    """Validate already parsed documents, numbered from 1; ``None`` is skipped, Lists are expanded.

    `reads(kind, apiVersion)`: whether the caller reads such objects at all. An object it does not
    read, of a kind and apiVersion given as strings, is left out where it would fail validation
    (a kustomization.yaml has no metadata): only the objects read must be well formed.
    `skipped`: where a document that is not a Kubernetes object (neither apiVersion nor kind: a
    Helm values file, a tool's config) is noted as left out, for a directory's files; without
    it such a document is an error.
    """
    return from_numbered(enumerate(documents, 1), source, reads=reads, skipped=skipped)


def from_numbered(
    documents: Iterable[tuple[int, Any]],
    source: str,
    *,
    reads: Reads | None = None,
    skipped: list[str] | None = None,
) -> list[Manifest]:
    """:func:`from_objects` of documents given with their numbers in their file (some of a file's
    documents: adapters.run.parts reads a large file's in its parts)."""
    manifests: list[Manifest] = []
    others: list[int] = []
    for index, doc in documents:
        if doc is None:
            continue
        if skipped is not None and _not_an_object(doc):
            others.append(index)
            continue
        if not isinstance(doc, dict):
            raise InputError(f"document {index} is not an object", where=source)
        _collect(doc, source, index, "", manifests, reads)
    if others:
        listed = ", ".join(map(str, others))
        skipped.append(
            f"{source}: document{'s' if len(others) > 1 else ''} {listed} left out: "
            "neither apiVersion nor kind, not a Kubernetes object"
        )
    return manifests


def _not_an_object(doc: Any) -> bool:
    """A document with neither apiVersion nor kind: another tool's YAML."""
    return not isinstance(doc, dict) or (doc.get("apiVersion") is None and doc.get("kind") is None)


def _named(path: str) -> list[str]:
    """A command-line path that is not a directory: the file itself."""
    if not os.path.exists(path):
        raise InputError("no such file or directory", where=path)
    return [path]


def _walk(root: str) -> list[str]:
    """Every manifest file below ``root``, hidden entries skipped, sorted by path components."""

    def fail(err: OSError) -> None:
        raise InputError(f"cannot read directory: {err.strerror}", where=err.filename or root)

    found: list[tuple[tuple[str, ...], str]] = []
    for directory, dirs, files in os.walk(root, onerror=fail):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith(".") or not name.lower().endswith(MANIFEST_SUFFIXES):
                continue
            file = os.path.join(directory, name)
            found.append((tuple(os.path.relpath(file, root).split(os.sep)), file))
    found.sort()
    return [file for _, file in found]


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", where=path) from None


def _utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", where=where) from None


def _read_stream(stream: TextIO) -> str | bytes:
    """Standard input: its bytes, judged as a file's are (the text layer's own decoding would let
    undecodable bytes through as surrogates that fail later with a traceback)."""
    raw = getattr(stream, "buffer", None)
    try:
        if raw is not None:
            return raw.read()
        text = stream.read()
    except OSError as err:
        raise InputError(f"cannot read: {err}", where=STDIN_SOURCE) from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InputError(f"not UTF-8 text (character {err.start})", where=STDIN_SOURCE) from None
    return text


def _parse_documents(text: str | bytes, source: str, early: _Early | None = None) -> list[Any]:
    """The raw documents of one file: JSON when it looks like JSON, YAML otherwise.

    Each format has a fast path (adapters.kube.codec) that answers only when it is sure to give exactly
    what the reference parser (json, PyYAML with the rules above) gives; otherwise, and for every
    error message, the reference parser decides. `early`: the fast path's work already started.
    `text` as bytes: a JSON file as read, made text only when the fast path cannot read it.
    """
    if isinstance(text, bytes):
        fast = _fast_json(text, early)
        if fast is not None:
            return [fast]
        return _parse_documents(_utf8(text, source).removeprefix("\ufeff"), source)
    if not text or text.isspace():
        return []
    is_json_file = source.lower().endswith(".json")
    if _looks_like_json(text, source):
        fast = _fast_json(text, early)
        if fast is not None:
            return [fast]
        try:
            return [_load_json_strict(text)]
        except json.JSONDecodeError as err:
            if is_json_file:
                raise InputError(
                    f"malformed JSON at line {err.lineno}, column {err.colno}: {err.msg}", where=source
                ) from None
            # Not JSON after all: flow-style YAML or several documents, which YAML reads.
        except codec.DuplicateKey as err:
            raise InputError(f"malformed JSON at line {err.line}: {err}", where=source) from None
    if early is not None and early.yaml_runs is not None:
        fast = _yaml_of_runs(early.yaml_runs)
    else:
        fast = codec.load_yaml(text)
    if fast is not None:
        return fast
    try:  # document by document: only those that need PyYAML go to it
        fast = codec.load_yaml_by_document(text, _load_all)
    except (yaml.YAMLError, RecursionError):
        fast = None  # the whole text, below, words the error with its line
    if fast is not None:
        return fast
    try:
        return _load_all(text)
    except yaml.YAMLError as err:
        raise InputError(_yaml_problem(err), where=source) from None
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", where=source) from None


def _fast_json(text: str | bytes, early: _Early | None) -> Any | None:
    """The JSON document by msgspec, or None when it cannot tell (codec.load_json)."""
    text = _without_bom(text)
    if early is not None and early.json_keys is not None:
        doc = codec.decode_json(text)
        kept = early.json_keys.result() == _YES  # the child's verdict, reaped either way
        return doc if doc is not None and kept else None
    return codec.load_json(text)


def _without_bom(text: str | bytes) -> str | bytes:
    """A file's bytes as msgspec reads them: without the byte order mark (kept until then, so that
    an error's byte offset counts from the file's start)."""
    return text.removeprefix(_BOM) if isinstance(text, bytes) else text


def _looks_like_json(text: str | bytes, source: str) -> bool:
    if isinstance(text, bytes):
        return True  # kept as bytes only when it looks like JSON (_start_parsing)
    return source.lower().endswith(".json") or bool(_JSON_OBJECT_START.match(text))


# A text this long (a few thousand objects) is parsed with forked children's help: a YAML stream
# cut at its document markers, each run judged and parsed by rapidyaml in its own process; a JSON
# text's keys counted by a child (duplicates are refused) while this process decodes it.
_SPLIT_READ = 4 << 20
_YES = b"1"


@dataclass(frozen=True, slots=True)
class _Early:
    """The fast path's work on one large text, under way in forked children."""

    json_keys: forked.Pending | None = None  # _YES when decoding keeps every key
    yaml_runs: list[forked.Pending] | None = None  # each run's documents, packed; b"" if refused

    def cancel(self) -> None:
        for pending in [self.json_keys, *(self.yaml_runs or [])]:
            if pending is not None:
                pending.cancel()


def _start_early(text: str, source: str) -> _Early | None:
    if _looks_like_json(text, source):
        return _Early(json_keys=forked.background(_json_keys_kept, text))
    runs = codec.runs_of_lines(text, forked.workers())
    if runs is None:
        return None
    return _Early(yaml_runs=[forked.background(codec.load_yaml_packed, run) for run in runs])


def _json_keys_kept(text: str | bytes) -> bytes:
    text = _without_bom(text)
    doc = codec.decode_json(text)
    return _YES if doc is not None and codec.keeps_every_key(text, doc) else b"0"


def _yaml_of_runs(runs: list[forked.Pending]) -> list[Any] | None:
    """The documents of every run, or None when any run was refused. Each run is decoded as soon
    as it comes, while later ones may still be parsed."""
    documents: list[Any] = []
    refused = False
    for run in runs:
        answer = run.result()  # every child reaped, whatever the others answered
        refused = refused or not answer
        if not refused:
            documents += codec.unpack_documents(answer)
    return None if refused else documents


# What one document may stand for once its aliases are expanded (Kubernetes converts YAML to JSON,
# expanding them): past this it is an alias bomb, refused before anything is built.
MAX_EXPANDED_NODES = 1_000_000


class AliasBomb(yaml.YAMLError):
    pass


def _load_all(text: str) -> list[Any]:
    if "*" not in text:  # no alias can stand in the text
        return list(yaml.load_all(text, Loader=_Loader))
    loader = _Loader(text)
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            _check_expansion(node)
            documents.append(loader.construct_document(node))
        return documents
    finally:
        loader.dispose()


def _check_expansion(root: Node) -> None:
    """Refuse a document whose aliases would expand past MAX_EXPANDED_NODES, or refer to
    themselves (no JSON can hold that). Each node's expanded size is counted once."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            children = _children(node)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] > MAX_EXPANDED_NODES:
                raise AliasBomb(
                    f"a document standing for more than {MAX_EXPANDED_NODES:,} values "
                    "once its aliases are expanded"
                )
            continue
        if key in size:
            continue
        if key in open_:
            raise AliasBomb("an alias refers to a node that contains it")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _load_json_strict(text: str) -> Any:
    """json.loads, refusing duplicate keys (codec.DuplicateKey, with the line)."""
    return codec.load_json_checked(text)


def _yaml_problem(err: yaml.YAMLError) -> str:
    if isinstance(err, AliasBomb):
        return f"refused YAML: {err}"
    if isinstance(err, yaml.MarkedYAMLError) and err.problem_mark is not None:
        mark = err.problem_mark
        what = ", ".join(p for p in (err.context, err.problem) if p) or "syntax error"
        return f"malformed YAML at line {mark.line + 1}, column {mark.column + 1}: {what}"
    if isinstance(err, yaml.reader.ReaderError):
        return f"malformed YAML at character {err.position + 1}: {err.reason}"
    return f"malformed YAML: {err}"


def _collect(
    obj: dict[str, Any], source: str, index: int, path: str, out: list[Manifest], reads: Reads | None
) -> None:
    """Append ``obj`` (or, for a List, its items recursively) to ``out`` after validation; an
    object `reads` does not read is left out instead where it is not well formed.

    ``path`` is the field path of ``obj`` inside its document ("" or e.g. ``items[3].``).
    """
    if obj.get("kind") == "List":
        items = obj.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError("must be a list", where=_document(source, index), field=f"{path}items")
        for i, item in enumerate(items):
            if _well_formed(item):  # the common case, without spelling its path
                out.append(Manifest(item, source, index))
                continue
            if not isinstance(item, dict):
                where = _document(source, index)
                raise InputError("is not an object", where=where, field=f"{path}items[{i}]")
            _collect(item, source, index, f"{path}items[{i}].", out, reads)
        return
    if not _well_formed(obj):
        if reads is not None and _foreign(obj, reads):
            return
        _validate(obj, _document(source, index), path)
    out.append(Manifest(obj, source, index))


def _foreign(obj: dict[str, Any], reads: Reads) -> bool:
    """An object of a kind and apiVersion (both strings) no reader reads: never validated."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    return type(kind) is str and type(api_version) is str and not reads(kind, api_version)


def _document(source: str, index: int) -> str:
    return f"{source}: document {index}"


def _well_formed(obj: Any) -> bool:
    """Whether `obj` is an object _validate accepts and not a List, by a quick look: a subset
    of what it accepts, so that a hub's tens of thousands of objects need not be validated
    field by field (nor their paths spelt)."""
    if type(obj) is not dict:
        return False
    api_version, kind, metadata = obj.get("apiVersion"), obj.get("kind"), obj.get("metadata")
    if type(api_version) is not str or type(kind) is not str or type(metadata) is not dict:
        return False
    name, namespace = metadata.get("name"), metadata.get("namespace")
    return (
        kind != ""
        and kind != "List"
        and type(name) is str
        and name != ""
        and (namespace is None or type(namespace) is str)
        and api_version != ""
        and api_version[0] != "/"
        and api_version[-1] != "/"
        and api_version.count("/") <= 1
    )


def _validate(obj: dict[str, Any], where: str, path: str) -> None:
    """Check the fields every object needs: apiVersion, kind, metadata.name (and namespace's type)."""
    for key in ("apiVersion", "kind"):
        _require_string(obj.get(key), where, f"{path}{key}")
    api_version = obj["apiVersion"]
    parts = api_version.split("/")
    if len(parts) > 2 or not all(parts):
        raise InputError(
            f"invalid apiVersion {api_version!r}: expected 'version' or 'group/version'",
            where=where,
            field=f"{path}apiVersion",
        )
    metadata = obj.get("metadata")
    if metadata is None:
        raise InputError("required field is missing", where=where, field=f"{path}metadata")
    if not isinstance(metadata, dict):
        raise InputError("must be an object", where=where, field=f"{path}metadata")
    _require_string(metadata.get("name"), where, f"{path}metadata.name")
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise InputError("must be a string", where=where, field=f"{path}metadata.namespace")


def _require_string(value: Any, where: str, field: str) -> None:
    if value is None:
        raise InputError("required field is missing", where=where, field=field)
    if not isinstance(value, str) or not value:
        raise InputError("must be a non-empty string", where=where, field=field)


def index_by_kind(manifests: Iterable[Manifest], kinds: Mapping[str, set[str]]) -> dict[str, list[Manifest]]:
    """Group the manifests of the wanted kinds, each list sorted by (namespace, name).

    ``kinds`` maps a kind to its allowed API groups (``""`` for core). Other kinds, and wanted kinds
    of another group, are ignored. Every wanted kind is a key of the result, even when none is found.
    Two objects with the same kind, namespace and name are an InputError.
    """
    buckets: dict[str, dict[tuple[str, str], Manifest]] = {kind: {} for kind in kinds}
    for manifest in manifests:
        obj = manifest.obj  # validated on reading: kind and apiVersion strings, metadata a dict
        kind = obj["kind"]
        groups = kinds.get(kind)
        if groups is None or obj["apiVersion"].rpartition("/")[0] not in groups:
            continue
        bucket = buckets[kind]
        metadata = obj["metadata"]
        key = (metadata.get("namespace") or "", metadata["name"])
        other = bucket.get(key)
        if other is not None:
            raise InputError(f"duplicate object {manifest.ref} ({_both(other, manifest)})")
        bucket[key] = manifest
    return {kind: [bucket[key] for key in sorted(bucket)] for kind, bucket in buckets.items()}


def _both(first: Manifest, second: Manifest) -> str:
    if first.source != second.source:
        return f"in {first.source} and {second.source}"
    if first.index != second.index:
        return f"in {first.source}, documents {first.index} and {second.index}"
    return f"in {first.source}, document {first.index}"


# ------------------------------------------------------------------------------------------- writing


_BaseDumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """The safe dumper without anchors/aliases, with a fast path for plain JSON-like values.

    The fast path builds the same nodes SafeRepresenter would (with ``default_flow_style=False``)
    without its per-node alias bookkeeping, a large share of dumping time on large outputs.
    """

    def ignore_aliases(self, data: Any) -> bool:
        # Shared sub-objects (e.g. one labels dict reused) must be written out in full, not as
        # &id001 / *id001, which kubectl users would not expect.
        return True

    def represent_data(self, data: Any) -> Node:
        kind = type(data)
        if kind is str:
            return ScalarNode(_STR_TAG, data)
        if kind is dict:
            represent = self.represent_data
            pairs = [(represent(k), represent(v)) for k, v in data.items()]
            return MappingNode(_MAP_TAG, pairs, flow_style=False)
        if kind is list:
            return SequenceNode(_SEQ_TAG, [self.represent_data(v) for v in data], flow_style=False)
        if kind is bool:
            return ScalarNode(_BOOL_TAG, "true" if data else "false")
        if kind is int:
            return ScalarNode(_INT_TAG, str(data))
        if data is None:
            return ScalarNode(_NULL_TAG, "null")
        return super().represent_data(data)


def _represent_tuple(dumper: _Dumper, value: tuple[Any, ...]) -> Node:
    return dumper.represent_list(list(value))


def _represent_str_subclass(dumper: _Dumper, value: str) -> Node:
    return dumper.represent_str(str.__str__(value))


def _represent_int_subclass(dumper: _Dumper, value: int) -> Node:
    return dumper.represent_int(int(value))


def _represent_float_subclass(dumper: _Dumper, value: float) -> Node:
    return dumper.represent_float(float(value))


def _represent_dict_subclass(dumper: _Dumper, value: dict[Any, Any]) -> Node:
    return dumper.represent_dict(value)


def _represent_list_subclass(dumper: _Dumper, value: list[Any]) -> Node:
    return dumper.represent_list(list(value))


# json.dumps accepts tuples and subclasses (StrEnum, IntEnum, OrderedDict, ...); YAML output must too.
_Dumper.add_representer(tuple, _represent_tuple)
_Dumper.add_multi_representer(str, _represent_str_subclass)
_Dumper.add_multi_representer(int, _represent_int_subclass)
_Dumper.add_multi_representer(float, _represent_float_subclass)
_Dumper.add_multi_representer(dict, _represent_dict_subclass)
_Dumper.add_multi_representer(list, _represent_list_subclass)


def dump_yaml_stream(objects: Sequence[Mapping[str, Any]]) -> str:
    """A YAML stream of ``objects``, each document starting with ``---``; keys in the given order.

    The bytes are PyYAML's safe dumper's (block style, no aliases, width 65536); adapters.kube.codec
    writes them without PyYAML for plain JSON-like data and hands anything else back.
    """
    return encode_yaml_stream(objects).decode("utf-8")


def encode_yaml_stream(objects: Sequence[Mapping[str, Any]]) -> bytes:
    """:func:`dump_yaml_stream`'s text in UTF-8."""
    pieces: list[bytes] = []
    write_yaml_stream(objects, pieces.append)
    return b"".join(pieces)


def write_yaml_stream(objects: Sequence[Mapping[str, Any]], write: Callable[[bytes], object]) -> None:
    """:func:`encode_yaml_stream`'s bytes, passed to `write` in pieces as a command writes them: a
    large stream is never held whole (its first run is written as it is made, a forked child's
    passed through), which spares the allocation and copies of its tens of MB."""
    if len(objects) < _SPLIT_WRITE:
        runs = [objects] if objects else []
    else:
        runs = forked.split_evenly(objects, forked.workers())
    # Documents are written independently of each other: the runs' texts joined are the same bytes.
    forked.write_each(yaml_items, runs, write)


# Fewer objects than this are written in one process: a fork costs milliseconds.
_SPLIT_WRITE = 4096
# Documents per piece written: about a megabyte of text, which the allocator reuses piece to piece.
_YAML_PIECE = 1024


def yaml_items(objects: Sequence[Mapping[str, Any]]) -> Iterator[bytes]:
    """The documents of `objects` in a YAML stream, in pieces, made in this process: runs of them
    joined are the stream of their objects joined (:func:`write_yaml_stream` writes its runs so)."""
    return codec.encode_yaml_pieces(objects, _dump_yaml, _YAML_PIECE)


def _dump_yaml(obj: Mapping[str, Any]) -> str:
    return yaml.dump(
        obj,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=_YAML_WIDTH,
    )


def dump_json(obj: Any) -> str:
    """One JSON document, indented by 2, non-ASCII kept, keys in the given order, newline at the end."""
    return encode_json(obj).decode("utf-8")


def encode_json(obj: Any) -> bytes:
    """:func:`dump_json`'s text in UTF-8, as a command writes it."""
    return b"".join(_json_pieces(obj))


def dump_json_list(objects: Sequence[Mapping[str, Any]]) -> str:
    """``objects`` as one ``v1`` ``List`` in JSON."""
    return encode_json_list(objects).decode("utf-8")


def encode_json_list(objects: Sequence[Mapping[str, Any]]) -> bytes:
    """:func:`dump_json_list`'s text in UTF-8."""
    pieces: list[bytes] = []
    write_json_list(objects, pieces.append)
    return b"".join(pieces)


def write_json_list(objects: Sequence[Mapping[str, Any]], write: Callable[[bytes], object]) -> None:
    """:func:`encode_json_list`'s bytes, passed to `write` in pieces as a command writes them."""
    write_json_list_runs([json_items(objects)], write)


def json_items(objects: Sequence[Mapping[str, Any]]) -> Iterator[bytes | memoryview]:
    """The items of a JSON List of `objects` as the List holds them (indented at its depth,
    separated by ",\n"), in pieces of about a megabyte; nothing for no objects."""
    for start in range(0, len(objects), _JSON_PIECE):
        if start:
            yield b",\n"
        text = encode_json({"items": objects[start : start + _JSON_PIECE]})
        yield memoryview(text)[len(_ITEMS_HEAD) : -len(_ITEMS_TAIL)]


def orjson_items(objects: Sequence[Mapping[str, Any]]) -> list[bytes | memoryview] | None:
    """:func:`json_items`' pieces, made now, where orjson writes every piece; None where json must
    write one (an integer beyond 64 bits, a key that is no string): a document holding them is
    then json's text, whose floats are spelled otherwise (:func:`write_json_lead_list`)."""
    pieces: list[bytes | memoryview] = []
    for start in range(0, len(objects), _JSON_PIECE):
        text = codec.encode_json({"items": objects[start : start + _JSON_PIECE]})
        if text is None:
            return None
        if start:
            pieces.append(b",\n")
        pieces.append(memoryview(text)[len(_ITEMS_HEAD) : 1 - len(_ITEMS_TAIL)])  # no final line break
    return pieces


def json_lead_list(
    key: str, rest: Mapping[str, Any]
) -> Callable[[Iterable[Iterable[bytes | memoryview]], Callable[[bytes], object]], None] | None:
    """The writer of the document ``{key: [items], **rest}`` as :func:`write_json` writes it where
    orjson writes all of it, given the items in runs (each :func:`orjson_items`' pieces of a run of
    objects: the list is their objects joined); None where orjson cannot write `rest` (json would
    write the whole document). `rest` holds at least one key."""
    tail = codec.encode_json(rest)
    if tail is None or not rest:
        return None
    head = b"{\n  " + codec.encode_json(key) + b": "

    def write_document(
        runs: Iterable[Iterable[bytes | memoryview]], write: Callable[[bytes], object]
    ) -> None:
        write(head)
        started = _write_joined_runs(runs, write, b"[\n")
        write(b"\n  ],\n" if started else b"[],\n")
        write(memoryview(tail)[2:])  # orjson's text of `rest` less its opening "{\n"
        write(b"\n")

    return write_document


def write_json_list_runs(
    runs: Iterable[Iterable[bytes | memoryview]], write: Callable[[bytes], object]
) -> None:
    """One JSON List of the items in `runs` (each what :func:`json_items` makes of a run of
    objects), passed to `write`: the runs' objects joined, as one List (json.dumps' bytes with
    indent 2, as :func:`encode_json` writes any document)."""
    started = _write_joined_runs(runs, write, _LIST_HEAD)
    write(_ITEMS_TAIL if started else encode_json(_json_list([])))


def _write_joined_runs(
    runs: Iterable[Iterable[bytes | memoryview]], write: Callable[[bytes], object], opening: bytes
) -> bool:
    """Every non-empty piece of the runs passed to `write`, `opening` before the first and ",\n"
    between one run's items and the next's (a run's own pieces carry their separators): whether
    any piece was written."""
    started = False
    for run in runs:
        first = True
        for piece in run:
            if not piece:
                continue
            if first:
                write(b",\n" if started else opening)
                first, started = False, True
            write(piece)
    return started


def write_yaml_runs(runs: Iterable[Iterable[bytes]], write: Callable[[bytes], object]) -> None:
    """One YAML stream of the documents in `runs` (each what :func:`yaml_items` makes of a run of
    objects), passed to `write`: documents stand alone, so the runs' texts are simply joined."""
    for run in runs:
        for piece in run:
            write(piece)


def write_json(obj: Any, write: Callable[[bytes], object]) -> None:
    """:func:`encode_json`'s bytes, passed to `write` (without copying a large text to end it)."""
    for piece in _json_pieces(obj):
        write(piece)


def _json_pieces(obj: Any) -> tuple[bytes, ...]:
    """The document, then its final line break: orjson's bytes, or json's where orjson cannot."""
    fast = codec.encode_json(obj)
    if fast is not None:
        return fast, b"\n"
    return ((json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),)


# Items per piece of a large List: each piece is rendered as the List's own "items" (at the same
# depth, so indented alike) and cut out of that, about a megabyte at a time.
_JSON_PIECE = 1024
_ITEMS_HEAD = b'{\n  "items": [\n'
_LIST_HEAD = b'{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n'
_ITEMS_TAIL = b"\n  ]\n}\n"


def _json_list(objects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(objects)}


def object_reference(obj: Mapping[str, Any] | Manifest) -> dict[str, str]:
    """``{"apiVersion", "kind", "namespace" (when set), "name"}`` of an object, for delete lists."""
    if isinstance(obj, Manifest):
        obj = obj.obj
    metadata = obj["metadata"]
    ref = {"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
    if metadata.get("namespace"):
        ref["namespace"] = metadata["namespace"]
    ref["name"] = metadata["name"]
    return ref
