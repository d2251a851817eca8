"""A long-lived OCM scheduler's decision lists read off the lists it made before where they slid
by one place (adapters.ocm.reach `_slid`, `_Entries.listed`'s `last`; emit's `_last_list`)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from operator import is_
from typing import Any

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from solver import SolveOptions
from tests.fixtures.live import world_deltas


def _chunks(names: list[str], size: int) -> list[list[str]]:
    return [names[i : i + size] for i in range(0, len(names), size)]


def test_a_list_slid_by_one_reads_its_entries_off_the_list_made_before() -> None:
    """Generated name lists cut in chunks, then one name put in or taken out (anywhere, at the
    ends too) and cut again: each new chunk listed with the chunk made before under its place
    (`last`) gives the very entries each name's lookup gives, in order, and reads back as its
    names (`_own_names`); the slid chunks (after the change) are read off the old ones, the others
    (the chunk changed in the middle, one unrelated) looked up. Fails where the slide to the
    back keeps the old list's last entry too (`made[:size]` for `made[: size - 1]`), or where the
    names put at the end of a list slid forward are not looked up (its `out += map(...)` dropped)."""
    rng = random.Random(7)
    universe = [f"c{i:03d}" for i in range(120)]
    entries = reach_module._Entries()
    slid = Counter()
    original = reach_module._slid

    def counted(names, last, where):
        out = original(names, last, where)
        slid[out is not None] += 1
        return out

    reach_module._slid, saved = counted, original
    try:
        for _ in range(300):
            base = sorted(rng.sample(universe, rng.randint(3, 60)))
            size = rng.randint(2, 12)
            if rng.random() < 0.5 or len(base) < 4:
                new = sorted({*base, rng.choice(universe)})
            else:
                new = [c for c in base if c != rng.choice(base)]
            before = [(chunk, entries.listed(chunk)) for chunk in _chunks(base, size)]
            if rng.random() < 0.2:  # lists unrelated to those before them
                before = [
                    (chunk, entries.listed(chunk))
                    for chunk in _chunks(sorted(rng.sample(universe, 30)), size)
                ]
            for k, chunk in enumerate(_chunks(new, size)):
                last = before[k] if k < len(before) else None
                got = entries.listed(chunk, last) if last is not None else entries.listed(chunk)
                expected = [entries[c] for c in chunk]
                assert len(got) == len(expected) and all(map(is_, got, expected)), (base, new, size, k)
                assert reach_module._own_names({"status": {"decisions": got}}, entries) == chunk
    finally:
        reach_module._slid = saved
    assert slid[True] > 300 and slid[False] > 300, slid


def _stream(events: int) -> list[tuple[Any, ...]]:
    """The deltas of an 800-cluster OCM hub's generated events (its PickAlls list hundreds of
    clusters: decisions of 100 that slide where a cluster comes or goes)."""
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(
        generate("ocm", 800, 30, seed=3, now=now), now=now, options=SolveOptions(mode="optimal")
    )
    return [(d.apply, d.delete, d.requests) for _, d in world_deltas(hub, "ocm", 3, events, now)]


def test_emits_lists_read_off_those_made_before_are_the_deltas_of_each_name_looked_up(monkeypatch) -> None:
    """Over an 800-cluster hub's 60 generated events, emit's decision lists read off the lists it
    made last under the same names (`_slid` taken more than 10 times, both ways) give the deltas of
    every list looked up name by name (`_slid` never taken). Fails where a list slid forward
    takes the old list's entries one place off (`made[:kept]` for `made[1 : kept + 1]`)."""
    taken = Counter()
    original = reach_module._slid

    def counted(names, last, where):
        out = original(names, last, where)
        if out is not None:
            taken["back" if names[1] == last[0][0] else "forward"] += 1
        return out

    monkeypatch.setattr(reach_module, "_slid", counted)
    fast = _stream(60)
    assert taken["back"] + taken["forward"] > 10 and taken["back"] and taken["forward"], taken
    monkeypatch.setattr(reach_module, "_slid", lambda names, last, where: None)
    assert fast == _stream(60)
