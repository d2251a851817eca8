"""OCM's emit in the long-lived scheduler hands back a Placement's stored objects where the objects
it makes equal them as the server takes the write (adapters/ocm/emit.py, `OcmContext.wrote`),
and makes nothing where it made them from equal inputs before. The hub's comparison is the
oracle: every event writes what it writes with every object made and compared."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest

from adapters import registry
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live import hub as hub_module
from adapters.live.hub import Applied, HubScheduler
from adapters.ocm import emit as emit_module
from adapters.ocm.load import load
from adapters.run.changes import object_key, served
from bench.hub_soak import _World
from solver import SolveOptions, solve
from tests.fixtures import ocm


def _deltas(mode: str, seed: int, events: int) -> list[tuple[Any, ...]]:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 80, 120, seed=seed, now=now), now=now, options=SolveOptions(mode=mode))
    world = _World("ocm", hub, seed)
    out = []
    for _ in range(events):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        delta = hub.handle(event, now=now)
        out.append((delta.apply, delta.delete, delta.requests, sorted(hub.objects(), key=object_key)))
    return out


class _Checked:
    """emit wrapped: each live emit's output against the same context's with every object made
    (`wrote` None): the same objects but where a stored one is handed back, which is the very
    stored object and equals the made one as served; the same deletions and satisfaction."""

    def __init__(self, original) -> None:
        self.original = original
        self.hub: HubScheduler | None = None
        self.counted: Counter[str] = Counter()

    def __call__(self, context, result):
        if context.wrote is None:
            return self.original(context, result)
        hits = {k for k, p in context.placements.items() if k in context.wrote}
        out = self.original(context, result)
        made = self.original(replace(context, wrote=None), result)
        assert (out.delete, out.placements, out.unsatisfied) == (
            made.delete,
            made.placements,
            made.unsatisfied,
        )
        assert len(out.apply) == len(made.apply)
        unheld = {id(o) for o in self.hub._store.unheld(out.apply)}
        for handed, fresh in zip(out.apply, made.apply, strict=True):
            assert object_key(handed) == object_key(fresh)
            if id(handed) in unheld:
                assert handed == fresh
                self.counted["made"] += 1
            else:
                assert self.hub._store.get(object_key(handed)) is handed
                assert served(fresh, handed) == handed
                self.counted["stored"] += 1
        self.counted["hits"] += len(hits & set(context.wrote))
        return out


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_the_stored_objects_handed_back_are_what_the_hub_would_keep(mode, monkeypatch) -> None:
    """Over 60 generated events: every object handed back as stored is the stored object and
    equals the one made (the hub compares nothing of it), and the deltas and the hub after each
    event are those of a run making and comparing every object. (Fails with the answer's names,
    the stored decisions or the counts left out of `_inputs`; and, for the counts of what is
    handed back, without the stored objects handed back.)"""
    check = _Checked(emit_module.emit)
    ocm_adapter = registry.adapter("ocm")
    monkeypatch.setattr(hub_module, "adapter", lambda name: replace(ocm_adapter, emit=check))
    solved = HubScheduler._solve

    def solving(hub, *args):  # the hub whose store the emit's objects are checked against
        check.hub = hub
        return solved(hub, *args)

    monkeypatch.setattr(HubScheduler, "_solve", solving)
    fast = _deltas(mode, 0, 60)
    assert check.counted["stored"] > 300
    assert check.counted["hits"] > 20
    monkeypatch.setattr(hub_module, "adapter", registry.adapter)
    monkeypatch.setattr(emit_module, "_as_stored", lambda key, p, objects, *rest: objects)
    assert fast == _deltas(mode, 0, 60)


def _as_made(out, fresh) -> bool:
    """Whether an emit's objects are the ones made (`fresh`), each as the server takes it over the
    object handed back, with the same deletions."""
    return out.delete == fresh.delete and all(
        served(made, handed) == handed for handed, made in zip(out.apply, fresh.apply, strict=True)
    )


def _grouped_hub() -> HubScheduler:
    objects = [
        *ocm.hub(*(ocm.managed_cluster(f"c{i}", {"tier": "a" if i < 2 else "b"}) for i in range(4))),
        ocm.placement("g", n=2, mode="Exact", groups=[ocm.group("ga", {"tier": "a"})]),
        ocm.placement("all"),
    ]
    return HubScheduler(objects, now=ocm.NOW_TIME)


def test_a_placement_emitted_from_equal_inputs_makes_nothing_and_a_relabelled_group_member_remakes(
    monkeypatch,
) -> None:
    """A fixed point's objects are each handed back as stored; emitted again from the same
    context, none is made (`_objects` refused); a selected cluster relabelled out of its decision
    group (its labels read by the groups alone) makes them again, as a context without `wrote`
    does; so does an available count falling to 0 (but not one moving above it)."""
    hub = _grouped_hub()
    manifests = from_objects(hub.objects(), "<hub>")
    batch, context = load(manifests, now=ocm.NOW_TIME)
    result = solve(batch)
    wrote: dict[str, Any] = {}
    context = replace(context, wrote=wrote)
    first = emit_module.emit(context, result)
    assert first.apply and not hub._store.unheld(first.apply) and not first.delete
    assert set(wrote) == set(context.placements)

    made = emit_module._objects
    monkeypatch.setattr(emit_module, "_objects", lambda *a: pytest.fail("made again from equal inputs"))
    again = emit_module.emit(context, result)
    assert list(map(id, again.apply)) == list(map(id, first.apply))
    g = context.placements[f"{ocm.NS}/g"]
    context.placements[f"{ocm.NS}/g"] = replace(g, available=g.available + 3)  # still some: the same
    assert list(map(id, emit_module.emit(context, result).apply)) == list(map(id, first.apply))
    monkeypatch.setattr(emit_module, "_objects", made)

    clusters = dict(context.clusters)
    (held,) = [
        c for c in ("c0", "c1") if c in {s.cluster for s in result.by_request()[f"{ocm.NS}/g"].selected}
    ][:1]
    clusters[held] = replace(clusters[held], labels={"tier": "b"})
    relabelled = replace(context, clusters=clusters)
    out = emit_module.emit(relabelled, result)
    fresh = emit_module.emit(replace(relabelled, wrote=None), result)
    assert _as_made(out, fresh)
    assert hub._store.unheld(out.apply)  # the group's decisions differ from the stored ones

    none = replace(context, wrote=wrote)
    none.placements = {**context.placements, f"{ocm.NS}/g": replace(g, available=0)}
    out = emit_module.emit(none, result)
    assert _as_made(out, emit_module.emit(replace(none, wrote=None), result))
    assert out.unsatisfied == (f"{ocm.NS}/g",)


def test_a_stored_object_changed_by_another_writer_is_made_and_compared_again() -> None:
    """A Placement's stored decision replaced by an equal copy is still handed back as stored
    (equal inputs); one another writer changed is made again and the hub writes it back."""
    hub = _grouped_hub()
    decision = next(o for o in hub.objects("PlacementDecision") if o["metadata"]["name"].startswith("all-"))
    status = {"decisions": [{"clusterName": "c3", "reason": ""}]}
    delta = hub.handle(Applied({**decision, "status": status}), now=ocm.NOW_TIME)
    written = [o for o in delta.apply if o["kind"] == "PlacementDecision"]
    assert [d["clusterName"] for d in written[0]["status"]["decisions"]] == ["c0", "c1", "c2", "c3"]
    assert not hub.resolve(now=ocm.NOW_TIME).apply
