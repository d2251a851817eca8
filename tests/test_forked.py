"""Work split over forked processes: the same bytes as in one process, and a failed child redone."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import pytest
import yaml

from adapters.fleet.generate import generate_fleet
from adapters.kube import manifests
from adapters.run import forked


def _double(value: int) -> bytes:
    return str(value * 2).encode()


def _fails_in_a_child(value: int) -> bytes:
    if os.getpid() != PARENT:
        raise RuntimeError("a child failed")
    return str(value).encode()


PARENT = os.getpid()


def _answers(func, items) -> list[bytes]:
    """Every item's answer, all started before any is awaited (children at once)."""
    pending = [forked.background(func, item) for item in items]
    return [p.result() for p in pending]


def test_answers_come_in_order(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    assert _answers(_double, [1, 2, 3, 4]) == [b"2", b"4", b"6", b"8"]


def test_a_failed_child_is_redone_here(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")  # children, whichever tests ran before
    assert _answers(_fails_in_a_child, [1, 2, 3]) == [b"1", b"2", b"3"]


def _pieces(value: int) -> list[bytes]:
    return [f"{value}-{i};".encode() for i in range(value)]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_write_each_writes_every_piece_in_order(monkeypatch, workers) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    written: list[bytes] = []
    forked.write_each(_pieces, [3, 1, 4, 2], written.append)
    assert b"".join(written) == b"".join(p for v in (3, 1, 4, 2) for p in _pieces(v))
    assert written[:3] == _pieces(3)  # the first item's pieces are passed on one by one
    written.clear()
    forked.write_each(_pieces, [], written.append)
    assert written == []


def _half_then_fail(func, item):
    """A child that announces its answer, sends the first half of it and then dies."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        answer = func(item)
        os.write(write, len(answer).to_bytes(forked._HEADER, "little") + answer[: len(answer) // 2])
        os._exit(1)
    os.close(write)
    return pid, read


def test_a_child_failing_part_way_is_finished_here(monkeypatch) -> None:
    monkeypatch.setattr(forked, "_allowed", True)
    monkeypatch.delenv(forked.ENVIRONMENT, raising=False)
    monkeypatch.setattr(forked, "_start", _half_then_fail)
    if forked.workers() < 2:
        monkeypatch.setenv(forked.ENVIRONMENT, "2")
    big = b"".join(_pieces(200))
    written: list[bytes] = []
    forked.background(lambda item: b"".join(_pieces(item)), 200).write_to(written.append)
    assert len(written) >= 2  # the child's half, then the rest made here
    assert b"".join(written) == big
    assert forked.background(lambda item: b"".join(_pieces(item)), 200).result() == big


def test_split_evenly_keeps_order_and_drops_nothing() -> None:
    items = list(range(11))
    runs = forked.split_evenly(items, 3)
    assert [len(r) for r in runs] == [4, 4, 3]
    assert [x for r in runs for x in r] == items
    assert forked.split_evenly([1], 4) == [[1]]


@pytest.mark.parametrize("setting, expected", [("1", 1), ("3", 3), ("0", None), ("x", None)])
def test_workers_setting(monkeypatch, setting, expected) -> None:
    monkeypatch.setattr(forked, "_allowed", True)  # as the command line allows it
    monkeypatch.delenv(forked.ENVIRONMENT, raising=False)
    unset = forked.workers()  # the machine's CPUs, at most MAX_WORKERS
    monkeypatch.setenv(forked.ENVIRONMENT, setting)
    assert forked.workers() == (unset if expected is None else expected)  # a bad value is ignored


def test_a_library_process_forks_only_when_allowed(monkeypatch) -> None:
    monkeypatch.delenv(forked.ENVIRONMENT, raising=False)
    monkeypatch.setattr(forked, "_allowed", False)
    assert forked.workers() == 1  # a caller's process may hold threads of its own
    forked.allow()
    assert 1 <= forked.workers() <= forked.MAX_WORKERS
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    assert forked.workers() == 1


@pytest.fixture
def hub_text() -> str:
    objects = generate_fleet(clusters=60, placements=30, seed=3)
    return yaml.safe_dump_all(objects, sort_keys=False)


def test_split_read_and_write_are_the_sequential_bytes(monkeypatch, hub_text) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    alone = manifests.parse_text(hub_text, "hub.yaml")
    written_alone = manifests.dump_yaml_stream([m.obj for m in alone])
    monkeypatch.setenv(forked.ENVIRONMENT, "3")
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    monkeypatch.setattr(manifests, "_SPLIT_WRITE", 1)
    split = manifests.parse_text(hub_text, "hub.yaml")
    assert [m.obj for m in split] == [m.obj for m in alone]
    assert manifests.dump_yaml_stream([m.obj for m in split]) == written_alone


def test_a_split_read_with_one_run_the_fast_reader_refuses(monkeypatch, hub_text) -> None:
    # An anchor in the last document: that run goes to PyYAML, the answer is PyYAML's
    text = hub_text + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: odd\ndata: {a: '1'}\n"
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    split = manifests.parse_text(text, "hub.yaml")
    monkeypatch.setenv(forked.ENVIRONMENT, "1")
    assert [m.obj for m in split] == [m.obj for m in manifests.parse_text(text, "hub.yaml")]
    assert split[-1].obj["metadata"] == {"name": "odd"}


def _stalls_in_a_child(value: int) -> bytes:
    if os.getpid() != PARENT:
        time.sleep(300)
    return str(value).encode()


def test_a_stuck_child_is_killed_and_redone_here(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(forked, "STALL_SECONDS", 0.2)
    started = time.monotonic()
    assert _answers(_stalls_in_a_child, [1, 2]) == [b"1", b"2"]
    # Far below the child's sleep, so it was killed, not waited for; loose, for a loaded machine
    # (forking this test process and redoing the work took over 10 s at a load of 15).
    assert time.monotonic() - started < 120


@pytest.mark.parametrize("workers", ["1", "2"])
def test_background_answers_later(monkeypatch, workers) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    pending = forked.background(_double, 21)
    assert (pending._child is not None) == (workers == "2")
    assert pending.result() == b"42"


def _error_of(paths) -> str:
    with pytest.raises(manifests.InputError) as caught:
        manifests.read_sources(paths)
    return str(caught.value)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_duplicate_json_key_is_refused_alike_when_a_child_counts(monkeypatch, tmp_path, workers) -> None:
    path = tmp_path / "hub.json"
    path.write_text('{"kind": "List", "apiVersion": "v1",\n "items": [], "items": []}\n', encoding="utf-8")
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    assert _error_of([str(path)]) == f"{path}: malformed JSON at line 2: duplicate key 'items'"


def test_sources_fail_in_their_order_when_read_ahead(monkeypatch, tmp_path, hub_text) -> None:
    bad = tmp_path / "a.yaml"
    bad.write_text(hub_text + "---\nkind: [\n", encoding="utf-8")
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)
    message = _error_of([str(bad), str(tmp_path / "missing.yaml")])
    assert message.startswith(f"{bad}: malformed YAML at line")


def test_children_reading_later_sources_are_stopped_when_an_earlier_one_fails(
    monkeypatch, tmp_path, hub_text
) -> None:
    bad, good = tmp_path / "a.yaml", tmp_path / "b.yaml"
    bad.write_text("kind: [\n", encoding="utf-8")
    good.write_text(hub_text, encoding="utf-8")
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1000)  # the good file only is read ahead
    pids: list[int] = []
    real = forked._start

    def spy(func, item):
        child = real(func, item)
        pids.append(child[0])
        return child

    monkeypatch.setattr(forked, "_start", spy)
    assert _error_of([str(bad), str(good)]).startswith(f"{bad}: malformed YAML")
    assert pids  # the good file's children were started
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # and are gone, not left as zombies


def test_an_answer_is_taken_without_waiting_for_the_child_to_exit(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    real_exit = os._exit

    def slow_exit(code: int) -> None:  # a child's exit that takes long, as a large heap's does
        time.sleep(3)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", slow_exit)
    started = time.monotonic()
    pending = forked.background(_double, 21)
    monkeypatch.setattr(os, "_exit", real_exit)  # this process's own exits stay as they are
    assert pending.result() == b"42"
    assert time.monotonic() - started < 2
    pid = forked._exiting[-1]  # still exiting, reaped later
    os.waitpid(pid, 0)
    forked._exiting.remove(pid)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_large_json_file_is_read_from_its_bytes_alike(monkeypatch, tmp_path, workers) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    monkeypatch.setattr(manifests, "_SPLIT_READ", 1)  # a child counts the keys
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"n{i}"}} for i in range(3)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=2)
    path = tmp_path / "hub.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())  # a byte order mark first
    assert [m.obj for m in manifests.read_sources([str(path)])] == objects
    path.write_bytes(text.encode()[:40] + b"\xff" + text.encode()[40:])
    assert _error_of([str(path)]) == f"{path}: not UTF-8 text (byte 40)"


# -------------------------------------------------------------------------------------- streams


def _messages(count: int):
    for i in range(count):
        yield bytes([i % 251]) * (i * 997)  # up to tens of kB each: more than a pipe holds


def _dies_part_way(count: int):
    for i, message in enumerate(_messages(count)):
        if i == count // 2 and os.getpid() != PARENT:
            os._exit(3)  # gone, mid-stream, as a killed child would be
        yield message


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_stream_gives_its_messages_in_order(monkeypatch, workers) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    assert list(forked.stream(_messages, 40)) == list(_messages(40))
    assert list(forked.stream(_messages, 0)) == []


def test_a_stream_whose_child_dies_is_finished_here(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    given = []
    for message in forked.stream(_dies_part_way, 30):
        given.append(message)
    assert given == list(_messages(30))


def test_a_stream_left_part_way_stops_its_child(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    stream = forked.stream(_messages, 200)
    pid = stream._child[0]
    messages = iter(stream)
    assert next(messages) == b""
    messages.close()  # the reader gave up: the child is killed and reaped, not left behind
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    cancelled = forked.stream(_messages, 200)
    pid = cancelled._child[0]
    cancelled.cancel()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert list(cancelled) == list(_messages(200))  # forgotten: made here, if asked after all


RAN_HERE: list[int] = []


def _silent_a_while(value: int):
    if os.getpid() != PARENT:
        time.sleep(0.8)
    else:
        RAN_HERE.append(value)
    yield str(value).encode()


def test_a_patient_stream_waits_for_a_silent_child(monkeypatch) -> None:
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    monkeypatch.setattr(forked, "STALL_SECONDS", 0.2)
    # The stall bound without its floor of ten times the time already taken: on a loaded machine
    # a slow fork made that floor longer than the child's silence, and the test failed.
    monkeypatch.setattr(forked, "_stall", lambda started, patience=0.0: forked.STALL_SECONDS + patience)
    RAN_HERE.clear()
    assert list(forked.stream(_silent_a_while, 1, patience=60.0)) == [b"1"]
    assert RAN_HERE == []  # the child's answer, though it said nothing for 0.8 s
    assert list(forked.stream(_silent_a_while, 2)) == [b"2"]
    assert RAN_HERE == [2]  # without patience: taken for stuck, stopped and redone here


def _recorded(value: int) -> bytes:
    if os.getpid() == PARENT:
        RAN_HERE.append(value)
    return b"x" * 200_000


def test_a_failed_write_stops_the_child_and_redoes_nothing(monkeypatch) -> None:
    # The reader went away (| head): the answer is of no use, so it is not computed here again.
    monkeypatch.setenv(forked.ENVIRONMENT, "2")
    RAN_HERE.clear()
    pending = forked.background(_recorded, 3)
    pid = pending._child[0]

    def gone(chunk: bytes) -> None:
        raise BrokenPipeError

    with pytest.raises(BrokenPipeError):
        pending.write_to(gone)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert RAN_HERE == []


_BURNS_IN_A_CHILD = """
import os, time
from adapters.run import forked

def burn(_):
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    return b"done"

forked.allow()
assert forked.background(burn, 0).result() == b"done"
{reap}
os._exit(0)
"""


@pytest.mark.parametrize("reaped", [True, False])
def test_a_child_that_answered_is_waited_for_before_the_command_exits(reaped) -> None:
    """The command exits without waiting for a child that already sent its answer unless it reaps
    it: then that child's CPU seconds are in no measure of the command (rusage, `time`)."""
    script = _BURNS_IN_A_CHILD.format(reap="forked.reap()" if reaped else "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, forked.ENVIRONMENT: "2", "PYTHONPATH": os.getcwd()}
    subprocess.run([sys.executable, "-c", script], check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    counted = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert (counted >= 0.3) == reaped


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_child_beside_the_next_is_forked_just_before_it(monkeypatch, workers) -> None:
    """beside_next's child starts at this process's next fork, just before that child (one round
    of page faults for the two), or when started, or is made here if never started."""
    monkeypatch.setenv(forked.ENVIRONMENT, workers)
    forks: list[object] = []
    start = forked._start

    def spy(func, item, **kwargs):
        forks.append(item)
        return start(func, item, **kwargs)

    monkeypatch.setattr(forked, "_start", spy)
    first, second = forked.beside_next(_double, 1), forked.beside_next(_double, 2)
    assert forks == []
    other = forked.background(_double, 3)
    assert forks == ([1, 2, 3] if workers == "2" else [])
    assert forked._later == ([] if workers == "2" else [first, second])
    first.start()  # started already: nothing more
    assert [first.result(), second.result(), other.result()] == [b"2", b"4", b"6"]
    started = forked.beside_next(_double, 4)
    started.start()
    assert started.result() == b"8" and forks[3:] == ([4] if workers == "2" else [])
    never, stopped = forked.beside_next(_double, 5), forked.beside_next(_double, 6)
    stopped.cancel()
    assert never.result() == b"10" and forked._later == [] and forks[4:] == []
