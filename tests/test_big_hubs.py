"""What lets a large hub's command run in bounded memory, each exact: the input's text let go once
parsed, the YAML writer's memo of shared dicts let go between pieces, a part's text held in a
temporary file (not in memory) until the parent takes it."""

from __future__ import annotations

import mmap
import os
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from adapters.kube import codec
from adapters.kube.manifests import encode_yaml_stream, start_reading, yaml_items
from adapters.run import forked, parts


def _objects(count: int) -> list[dict[str, Any]]:
    """Objects that share dicts (as Fleet's decisions stand in a binding and in a status) and hold
    dicts of their own, large enough that the writer keeps their text by identity."""
    shared = [
        {"name": f"c{i}", "selected": True, "score": {"a": i, "b": -i}, "reason": f"r {i}"} for i in range(7)
    ]
    return [
        {
            "kind": "K",
            "metadata": {"name": f"o{i}", "labels": {"p": f"p{i // 3}"}},
            "decision": shared[i % 7],
            "own": {"w": i, "x": "y", "z": [i, "q"], "v": {"k": str(i)}},
            "list": [shared[(i + 1) % 7], {"only": i}],
        }
        for i in range(count)
    ]


def _text(objects: list[dict[str, Any]]) -> bytes:
    return b"".join(yaml_items(objects))


def test_the_writers_memo_let_go_between_pieces_writes_the_same_bytes(monkeypatch):
    objects = _objects(3000)
    kept = _text(objects)
    monkeypatch.setattr(codec, "_MEMO_LIMIT", 0)  # let go after every piece
    assert _text(objects) == kept == encode_yaml_stream(objects)


def _peak(objects: list[dict[str, Any]]) -> int:
    """The most memory writing the objects' stream held at once (its caches of strings warm)."""
    tracemalloc.start()
    try:
        for _ in codec.dump_yaml_pieces(objects, lambda obj: pytest.fail("no fallback"), 1024):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_writers_memo_stays_bounded_over_a_long_stream(monkeypatch):
    objects = _objects(12_000)  # six times the limit below (40,000 took 12 s under tracemalloc)
    _text(objects)  # the bounded caches of strings and keys filled
    monkeypatch.setattr(codec, "_MEMO_LIMIT", 1 << 40)  # never let go, as before
    unbounded = _peak(objects)
    monkeypatch.setattr(codec, "_MEMO_LIMIT", 2048)
    bounded = _peak(objects)
    # Kept whole, the memo holds a text for each object's own dicts: some 12,000 x 300 bytes.
    assert unbounded - bounded > 12_000 * 150


def test_a_parts_text_is_held_in_a_file_and_comes_back_whole(monkeypatch):
    made: list[Any] = []
    temporary = tempfile.TemporaryFile

    def recorded(*args: Any, **kwargs: Any) -> Any:
        made.append(temporary(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, "TemporaryFile", recorded)
    window = mmap.ALLOCATIONGRANULARITY
    monkeypatch.setattr(parts, "_WINDOW", window)
    pieces = [b"a" * 700, b"", memoryview(b"b" * (2 * window)), b"c"]
    held = parts._held(iter(pieces))
    assert len(made) == 1 and not isinstance(held, list)
    region = next(iter(held))
    assert isinstance(region, parts._Region) and len(region) == 2 * window + 701
    back = list(region.views())
    assert b"".join(back) == b"".join(bytes(p) for p in pieces)
    assert [len(p) for p in back] == [window, window, 701]
    # The file's own pages, mapped: not read into this process first.
    assert all(isinstance(p, memoryview) and isinstance(p.obj, mmap.mmap) for p in back)
    del back
    assert not made[0].closed  # open while its region may be written
    assert list(held) == [] and made[0].closed


def _regions(tmp_path: Path, texts: list[bytes]) -> list[Any]:
    """Each text held in a file of its own, as a region of it (with a few bytes before it)."""
    out = []
    for text in texts:
        path = tmp_path / f"held{len(list(tmp_path.glob('held*')))}"
        path.write_bytes(b"xyz" + text)
        out.append(parts._Region.checked(os.open(path, os.O_RDONLY), 3, len(text)))
    return out


def test_held_regions_go_to_a_files_output_by_the_kernel_in_order(tmp_path, monkeypatch):
    sent: list[int] = []
    sendfile = os.sendfile

    def counted(out: int, fd: int, offset: int, size: int) -> int:
        sent.append(size)
        return sendfile(out, fd, offset, min(size, 1000))  # the kernel may send less than asked

    monkeypatch.setattr(os, "sendfile", counted)
    texts = [bytes(range(256)) * 20, b"b" * 3, b"c" * 70_000]
    pieces = [b"head,", *_regions(tmp_path, texts[:2]), b"mid,", *_regions(tmp_path, texts[2:]), b"end"]
    out = tmp_path / "out"
    with open(out, "wb") as file:
        parts._sending(lambda write: [write(p) for p in pieces])(file.write)
    assert out.read_bytes() == b"head," + texts[0] + texts[1] + b"mid," + texts[2] + b"end"
    assert len(sent) == 6 + 1 + 70  # every region sent (at most 1,000 bytes a call), none written
    # A writer that is no file's gets the same bytes from the mapped files.
    taken: list[bytes] = []
    sent.clear()
    parts._sending(lambda write: [write(p) for p in pieces])(lambda piece: taken.append(bytes(piece)))
    assert b"".join(taken) == out.read_bytes() and not sent


@pytest.mark.parametrize("after", [0, 1500])
def test_a_region_the_kernel_will_not_send_goes_the_mapped_way(tmp_path, monkeypatch, after):
    sendfile, calls = os.sendfile, [0]

    def refusing(out: int, fd: int, offset: int, size: int) -> int:
        calls[0] += 1
        if calls[0] > after // 1000:
            raise OSError(22, "Invalid argument")
        return sendfile(out, fd, offset, min(size, 1000))

    monkeypatch.setattr(os, "sendfile", refusing)
    texts = [bytes(range(256)) * 20, b"second"]
    out = tmp_path / "out"
    with open(out, "wb") as file:
        parts._sending(lambda write: [write(p) for p in [b"<", *_regions(tmp_path, texts), b">"]])(file.write)
    assert out.read_bytes() == b"<" + texts[0] + texts[1] + b">"
    assert calls[0] == after // 1000 + 1  # refused once, then never asked again


def test_a_region_to_a_reader_gone_is_a_broken_pipe(tmp_path):
    (region,) = _regions(tmp_path, [b"x" * 100_000])
    read, write = os.pipe()
    os.close(read)
    with open(write, "wb") as file, pytest.raises(BrokenPipeError):
        parts._sending(lambda put: put(region))(file.write)


def test_a_held_text_comes_back_from_any_place_in_its_file_or_not_at_all(tmp_path, monkeypatch):
    window = mmap.ALLOCATIONGRANULARITY
    monkeypatch.setattr(parts, "_WINDOW", window)
    text = bytes(range(256)) * (3 * window // 256 + 7)
    path = tmp_path / "spill"
    path.write_bytes(text)
    with open(path, "rb") as file:
        for offset, size in [(0, len(text)), (5, window), (window - 1, 2), (window, 0), (len(text) - 3, 3)]:
            back = list(parts._mapped(file.fileno(), offset, size))
            assert b"".join(back) == text[offset : offset + size]
            assert all(back) and all(len(p) <= window for p in back)
        with pytest.raises(OSError, match="short"):
            list(parts._mapped(file.fileno(), len(text) - 3, 4))


def test_a_parts_text_is_held_in_memory_where_no_file_can_be_had(monkeypatch):
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no room")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    assert list(parts._held(iter([b"x", b"", b"yz"]))) == [b"x", b"yz"]


def test_a_sources_text_is_let_go_once_parsed(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    document = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n{}\ndata:\n  k: '{}'\n"
    path = tmp_path / "big.yaml"
    path.write_text("".join(document.format(i, "v" * 200) for i in range(20_000)), encoding="utf-8")
    tracemalloc.start()
    try:
        reading = start_reading([str(path)])
        manifests = reading.manifests()
        held, _ = tracemalloc.get_traced_memory()
        del manifests
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reading is not None
    text = path.stat().st_size
    assert held - after > 0 and after < text // 2  # the parsed objects went; no copy of the text stayed
