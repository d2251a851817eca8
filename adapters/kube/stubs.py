"""What a large file's objects are before they are parsed: each document's place in the file and
the fields a system's cut reads (apiVersion, kind, metadata's name, namespace and labels), found
by a quick look at the bytes, so that the processes scheduling parts of a large input each parse
only their own documents (adapters.run.parts.schedule_file_in_parts).

A quick look can be wrong where a text is written unusually (flow style, quoting with escapes,
comments, another indentation, a key twice): every document is compared with its stub once it is
parsed (:func:`view`), and the parts are used only where all agree; a look that finds nothing
leaves a document's stub None (its part, the first, parses it and judges it). The documents are
parsed as the whole file's reader parses them (adapters.kube.manifests: a YAML stream's documents
read by the fast reader, which is sure of them, cut at document markers; a JSON List's items by
msgspec), or not at all (:func:`parse` answers None, and the file is read the ordinary way).

    stubs = look(data, path)         # None: not a file read in parts (a directive, a BOM, ...)
    spans = [(stubs.starts[i], stubs.ends[i]) for i in (0, 5, 7)]
    documents = parse(data, spans, stubs.json)
    assert all(view(d) == stubs.objects[i] for d, i in zip(documents, (0, 5, 7)))
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import msgspec
import numpy as np

from adapters.kube import codec
from adapters.run import forked

__all__ = ["Stubs", "look", "parse", "view"]


@dataclass(frozen=True, slots=True)
class Stubs:
    """Each document's place (`starts`, `ends`: its bytes' offsets in the file, a YAML document's
    or a JSON List's item's) and stub (None where the look found none), in the file's order.
    `json`: the items of a JSON List (each read alone), else the documents of a YAML stream."""

    starts: np.ndarray
    ends: np.ndarray
    objects: list[dict[str, Any] | None]
    json: bool

    def __len__(self) -> int:
        return len(self.objects)


def look(data: Any, path: str) -> Stubs | None:
    """The stubs of a file's documents (`data`: its bytes, or a read-only mmap of them), or None
    where the file is not one to read in parts: a byte order mark, a YAML directive or a stream
    that cannot be cut at its document markers, JSON that is not one List (manifests.
    _parse_documents tells JSON from YAML as here)."""
    if data[: len(_BOM)] == _BOM:
        return None
    if path.lower().endswith(".json") or _JSON_DATA_START.match(data):
        return _json_stubs(data)
    return _yaml_stubs(data)


def view(doc: Any) -> dict[str, Any] | None:
    """A parsed document as its stub should read it (the fields a cut reads); None where it is not
    an object with a metadata object."""
    if type(doc) is not dict:
        return None
    metadata = doc.get("metadata")
    if type(metadata) is not dict:
        return None
    seen = {key: metadata[key] for key in _METADATA if key in metadata}
    return {"apiVersion": doc.get("apiVersion"), "kind": doc.get("kind"), "metadata": seen}


def parse(data: Any, spans: Sequence[tuple[int, int]], json: bool) -> list[Any] | None:
    """The documents at `spans` (ascending offsets, each a whole document of a :func:`look`), as the
    whole file's reader gives them, or None where the fast reader is not sure of them (the
    ordinary reading then decides, and words any error)."""
    if json:
        return _json_items(data, spans)
    documents: list[Any] = []
    for run in _runs(spans):  # a run at a time: the reader's work on a text is several times its size
        text = b"".join(data[start:end] for start, end in run)
        try:
            read = codec.load_yaml(text.decode("utf-8"))
        except UnicodeDecodeError:
            return None
        del text
        # A span the reader takes for no document or for two (an empty one, a bare "..."): unsure.
        if read is None or len(read) != len(run):
            return None
        documents += read
    return documents


# The bytes of documents a YAML run holds (the fast reader's work on it takes several times as much).
_RUN = 8 << 20


def _runs(spans: Sequence[tuple[int, int]]) -> list[Sequence[tuple[int, int]]]:
    """The spans in runs of about _RUN bytes, in order (a stream cut at document markers reads as
    its runs do: codec.document_runs)."""
    runs, begin, size = [], 0, 0
    for i, (start, end) in enumerate(spans):
        size += end - start
        if size >= _RUN:
            runs.append(spans[begin : i + 1])
            begin, size = i + 1, 0
    if begin < len(spans):
        runs.append(spans[begin:])
    return runs


_BOM = "\ufeff".encode()
_JSON_DATA_START = re.compile(rb"\s*\{")  # as adapters.kube.manifests tells JSON
_METADATA = ("name", "namespace", "labels")


# ------------------------------------------------------------------------------------------ YAML

# Each match's offset is that of the line break before its line (a document's first line follows
# its marker's): a literal start lets the regex engine skip ahead.
_KIND = re.compile(rb"\nkind:[ \t]*([^\n]*)")
_API_VERSION = re.compile(rb"\napiVersion:[ \t]*([^\n]*)")
_METADATA_BLOCK = re.compile(rb"\nmetadata:[ \t]*\n(?:[ \t][^\n]*\n)*")
_FIELDS = {
    "name": re.compile(rb"\n  name:[ \t]*([^\n]*)"),
    "namespace": re.compile(rb"\n  namespace:[ \t]*([^\n]*)"),
    "labels": re.compile(rb"\n  labels:[ \t]*\n((?:    [^\n]*\n)*)"),
}
_LABEL = re.compile(rb"    ([^\n:]+):[ \t]*([^\n]*)\n")
# How each field's values are read (_Scalars).
_READS: dict[str, Callable[[Any], Callable[[list[bytes]], list[Any]]]] = {
    "name": lambda scalars: scalars.unique,
    "namespace": lambda scalars: scalars.unique,
    "labels": lambda scalars: scalars.labels,
}


def _yaml_stubs(data: Any) -> Stubs | None:
    """A YAML stream's documents, cut where codec.document_starts cuts a text, and their stubs
    from the lines of their top level and of their metadata at two spaces (as kubectl and the
    generators write them). Each stub is read from its document's lines alone: the stubs of a
    stream made of some of these documents are theirs. A large stream's later documents (51% of
    them: _HERE) are looked at by a forked child meanwhile."""
    starts = codec.document_offsets(data)
    if starts is None:
        return None
    begins = np.asarray(starts, dtype=np.int64)
    ends = np.append(begins[1:], len(data))
    half = len(begins) * _HERE // 100
    if forked.workers() > 1 and len(data) >= _SPLIT_LOOK and 0 < half < len(begins):
        later = forked.background(_packed_stubs, (data, begins[half:], ends[half:]))
        objects = _stubs_in(data, begins[:half], ends[:half]) + marshal.loads(later.result())
    else:
        objects = _stubs_in(data, begins, ends)
    if starts and data[:3] != b"---":  # a first document without a marker: its lines alone
        first = _yaml_stubs(b"---\n" + bytes(data[: ends[0]]))
        objects[0] = first.objects[0] if first is not None else None
    return Stubs(begins, ends, objects, json=False)


# A stream this large is looked at by two processes, each a half.
_SPLIT_LOOK = 16 << 20
# The percentage of the documents this process looks at, the child the rest: a look's work goes
# by documents, not bytes (Fleet 10,000 x 50,000: the first half of the bytes holds 239,000 of
# the 513,000 documents). Measured there, per document: 5.9 us here, and 0.43 us more to unpack
# each of the child's stubs; 6.1 us in the child, its stubs packed. So both end together at 49%.
_HERE = 49


def _packed_stubs(task: tuple[Any, np.ndarray, np.ndarray]) -> bytes:
    return marshal.dumps(_stubs_in(*task))


def _stubs_in(data: Any, begins: np.ndarray, ends: np.ndarray) -> list[dict[str, Any] | None]:
    """The stubs of the documents at `begins` (to `ends`), from their lines alone."""
    scalars = _Scalars()
    within = (int(begins[0]), int(ends[-1])) if len(begins) else (0, 0)
    kinds, _ = _per(begins, _KIND, data, within, scalars.repeated)
    api_versions, _ = _per(begins, _API_VERSION, data, within, scalars.repeated)
    block_of, blocks = _per(begins, _METADATA_BLOCK, data, within, None)
    block_ends = np.asarray([b for _, b in blocks], dtype=np.int64)
    block_starts = np.asarray([a for a, _ in blocks], dtype=np.int64)
    fields = [
        (key, _per(block_starts, pattern, data, within, _READS[key](scalars), block_ends)[0])
        for key, pattern in _FIELDS.items()
    ]
    return [
        None
        if kind is _NONE or api_version is _NONE or block is _NONE
        else {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {key: found[block] for key, found in fields if found[block] is not _NONE},
        }
        for kind, api_version, block in zip(kinds, api_versions, block_of, strict=True)
    ]


_NONE: Any = object()  # no match, or more than one, in a document (or block)


def _per(
    begins: np.ndarray,
    pattern: re.Pattern[bytes],
    data: Any,
    within: tuple[int, int],
    read: Callable[[list[bytes]], list[Any]] | None,
    ends: np.ndarray | None = None,
) -> tuple[list[Any], list[Any]]:
    """Per span (`begins`, and `ends` where spans do not reach the next one's begin), the value
    its one match of the pattern between the `within` offsets gives (`read` of its first group;
    without `read`, the match's number), _NONE where it has none or several; and every match's
    (start, end)."""
    matches = [(m.start(), m.end(), m.group(1) if read else None) for m in pattern.finditer(data, *within)]
    offsets = np.asarray([m[0] for m in matches], dtype=np.int64)
    spans = np.searchsorted(begins, offsets, "right") - 1
    if ends is not None:  # a match outside every span
        inside = (spans >= 0) & (offsets < ends[np.maximum(spans, 0)])
        spans = np.where(inside, spans, -1)
    values = read([m[2] for m in matches]) if read else list(range(len(matches)))
    out: list[Any] = [_NONE] * len(begins)
    if len(spans) == len(begins) and np.array_equal(spans, np.arange(len(begins))):
        out = values  # one match in every span, the common case
    else:
        counts = np.bincount(spans[spans >= 0], minlength=len(begins))
        for span, value in zip(spans.tolist(), values, strict=True):
            if span >= 0 and counts[span] == 1:
                out[span] = value
    return out, [(m[0], m[1]) for m in matches]


class _Scalars:
    """Scalars' strings as their lines hold them: plain, or simply quoted (anything else stays as
    written, and its document's comparison fails). Values that repeat (kinds, label keys and
    values) are read once."""

    def __init__(self) -> None:
        self.known: dict[bytes, str] = {}

    def repeated(self, values: list[bytes]) -> list[str]:
        known = self.known
        return [known.get(v) or known.setdefault(v, _scalar(v)) for v in values]

    def unique(self, values: list[bytes]) -> list[str]:
        """Values that seldom repeat (names), decoded together."""
        if not values:
            return []
        texts = b"\n".join(values).decode("utf-8", "replace").split("\n")
        return [
            _scalar(v) if v[:1] in _QUOTES or v[-1:] in _BLANK else t
            for v, t in zip(values, texts, strict=True)
        ]

    def labels(self, blocks: list[bytes]) -> list[dict[str, str] | None]:
        return [self._labels(block) for block in blocks]

    def _labels(self, block: bytes) -> dict[str, str] | None:
        entries = _LABEL.findall(block)
        if len(entries) != block.count(b"\n"):
            return None  # lines the look does not read: the comparison fails
        known = self.known
        return {
            known.get(k) or known.setdefault(k, _scalar(k)): known.get(v) or known.setdefault(v, _scalar(v))
            for k, v in entries
        }


_QUOTES = (b"'", b'"')
_BLANK = (b" ", b"\t")


def _scalar(value: bytes) -> str:
    text = value.decode("utf-8", "replace").rstrip(" \t")
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"' and "\\" not in text:
        return text[1:-1]
    return text


# ------------------------------------------------------------------------------------------ JSON


class _Metadata(TypedDict, total=False):
    name: Any
    namespace: Any
    labels: Any


class _Item(TypedDict, total=False):
    """A List item's stub as msgspec decodes it (its other fields skipped): the dict a stub is."""

    apiVersion: Any  # noqa: N815 - the field's name
    kind: Any
    metadata: _Metadata


def _json_stubs(data: Any) -> Stubs | None:
    """A JSON List's items, known by their bytes' place (a part decodes only its own items:
    :func:`parse`), and their stubs; None where the List's own keys outside its
    items hold one twice (the whole file's check, codec.keeps_every_key, counts them with the
    items', which their parts check item by item)."""
    buffer = memoryview(data)
    try:
        top = msgspec.json.decode(buffer, type=dict[str, msgspec.Raw])
        listed = top.get("items")
        if "kind" not in top or msgspec.json.decode(top["kind"]) != "List" or listed is None:
            return None
        items = msgspec.json.decode(listed, type=list[_Item])
        at = _address(listed) - _address(buffer)
        end = at + len(listed)
        outside = _keys_in(data, 0, at) + _keys_in(data, end, len(data))
        held = len(top) + sum(
            msgspec.json.encode(msgspec.json.decode(value)).count(b'":')
            for key, value in top.items()
            if key != "items"
        )
        starts, ends = _item_spans(data, buffer, listed)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeError):
        return None
    finally:
        del buffer
    if outside != held or len(starts) != len(items):
        return None
    return Stubs(starts, ends, [_stub(item) for item in items], json=True)


def _item_spans(data: Any, buffer: memoryview, listed: msgspec.Raw) -> tuple[np.ndarray, np.ndarray]:
    """Each item's bytes' offsets in the file (the List's `listed` items, as msgspec decodes them).
    Where every two items stand apart by the same bytes (a writer's indentation), the offsets
    follow from the items' lengths, each checked in the bytes; else each item's own (slower)."""
    raws = msgspec.json.decode(listed, type=list[msgspec.Raw])
    lengths = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
    if len(raws) >= 2:
        first, second = (_address(raw) - _address(buffer) for raw in raws[:2])
        gap = bytes(data[first + int(lengths[0]) : second])
        starts = first + np.concatenate(([0], np.cumsum(lengths[:-1] + len(gap))))
        ends = starts + lengths
        view = np.frombuffer(buffer, dtype=np.uint8)
        between = view[ends[:-1, None] + np.arange(len(gap))]
        # The gap, then no blank: the next item begins right after it, where its bytes begin.
        if (between == np.frombuffer(gap, dtype=np.uint8)).all() and not np.isin(view[starts], _BLANKS).any():
            return starts, ends
    starts = np.asarray([_address(raw) - _address(buffer) for raw in raws], dtype=np.int64)
    return starts, starts + lengths


_BLANKS = np.frombuffer(b" \t\r\n", dtype=np.uint8)  # JSON's whitespace


def _stub(item: dict[str, Any]) -> dict[str, Any] | None:
    """The item's stub: itself, where it has the fields a stub has (else None: not read)."""
    return item if "apiVersion" in item and "kind" in item and "metadata" in item else None


def _keys_in(data: Any, start: int, end: int, size: int = 1 << 26) -> int:
    """How many `":` the bytes hold between `start` and `end`, a bounded piece at a time (each
    piece with the next one's first byte: a pair across two pieces is counted in the first)."""
    return sum(bytes(data[at : min(at + size + 1, end)]).count(b'":') for at in range(start, end, size))


def _address(buffer: Any) -> int:
    return int(np.frombuffer(buffer, dtype=np.uint8).__array_interface__["data"][0])


def _json_items(data: Any, spans: Sequence[tuple[int, int]]) -> list[Any] | None:
    """The List's items at the spans (a look's: the List is whole), each decoded alone as msgspec
    decodes the whole List's; None where one holds a key twice (the file's reader refuses them:
    codec.keeps_every_key)."""
    out = []
    for start, end in spans:
        text = bytes(data[start:end])
        item = codec.decode_json(text)
        if item is None or not codec.keeps_every_key(text, item):
            return None
        out.append(item)
    return out
