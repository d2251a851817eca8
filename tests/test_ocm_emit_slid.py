"""A long-lived OCM scheduler's decision lists read off the lists it made before where they slid
by one place (adapters.ocm.reach `_slid`, `_Entries.listed`'s `last`; emit's `_last_list`)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from operator import is_
from typing import Any

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import reach as reach_module
from bench.hub_soak import _World
from solver import SolveOptions


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
    world = _World("ocm", hub, 3)
    out = []
    for _ in range(events):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        delta = hub.handle(event, now=now)
        out.append((delta.apply, delta.delete, delta.requests))
    return out


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


def test_groups_claimed_off_their_members_are_those_each_cluster_matched_gives() -> None:
    """`decision_groups` with each group's members known (`members`: emit's in a long-lived
    scheduler, `_claimed`) gives what the names' sets met with the members' gave (`_by_sets`, the
    code it replaced) and, the names each once, what matching each cluster against each group
    gives (`members` None), for overlapping groups (a cluster claimed by the first group matching
    it), names in any order, twice or in order, and every group size. Fails where a group claims among all the
    names rather than those left (`filter(inside, ordered)`), or where a name given twice is kept
    twice (the adjacent names' check dropped)."""
    from adapters.ocm.groups import DecisionGroup, GroupStrategy, decision_groups
    from model import Cluster, LabelSelector

    rng = random.Random(11)
    clusters = {
        f"c{i:03d}": Cluster(f"c{i:03d}", labels={"a": str(i % 2), "b": str(i % 3), "c": str(i % 5)})
        for i in range(150)
    }
    groups = [DecisionGroup(f"g{key}", LabelSelector(match_labels=((key, "0"),))) for key in "abc"]
    members = {g: frozenset(c for c, cluster in clusters.items() if g.matches(cluster)) for g in groups}
    asked = Counter()
    for _ in range(200):
        chosen = rng.sample(groups, rng.randint(0, 3))
        strategy = GroupStrategy(rng.choice([3, 10, 100, "30%", "100%"]), tuple(chosen))
        names = rng.sample(sorted(clusters), rng.randint(0, 150))
        in_order = rng.random() < 0.3
        if in_order:
            names.sort()
        elif names and rng.random() < 0.3:
            names += rng.sample(names, rng.randint(1, len(names)))  # names given twice
        got = decision_groups(strategy, names, clusters, members.__getitem__, in_order=in_order)
        assert got == _by_sets(strategy, names, members.__getitem__), (strategy, names)
        if len(set(names)) == len(names):
            assert got == decision_groups(strategy, list(names), clusters), (strategy, names)
        asked[len(chosen) > 1 and len(names) > 0] += 1
    assert asked[True] > 50, asked


def _by_sets(strategy, selected, members):
    """`decision_groups`' answer with `members` as 9a36f78 made it: a set of the names met with
    each group's members, what it claims sorted."""
    length = strategy.length(len(selected))
    remaining = set(selected)
    ordered = sorted(selected)
    if len(ordered) != len(remaining):
        ordered = sorted(remaining)
    out = []
    for group in strategy.groups:
        matched = sorted(remaining.intersection(members(group)))
        remaining.difference_update(matched)
        out += _chunks_of(group.name, matched, length)
    rest = ordered if len(remaining) == len(ordered) else [c for c in ordered if c in remaining]
    out += _chunks_of("", rest, length)
    return out or [("", [])]


def _chunks_of(name, members, length):
    return [(name, members[i : i + length]) for i in range(0, len(members), length)] if members else []
