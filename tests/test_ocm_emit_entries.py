"""OCM's emit in the long-lived scheduler writes each cluster's decision entry as one shared object
(adapters/ocm/reach.py `OcmLive._entries`, `OcmContext.entries`): a decision written again holds
the very entries the stored one holds, so the hub's comparison finds them equal by identity.
The objects are equal to those made entry by entry, and so are the deltas."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.ocm import emit as emit_module
from solver import SolveOptions
from tests.fixtures.live import world_deltas


def _run(mode: str, events: int) -> tuple[HubScheduler, list[tuple[Any, ...]]]:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 80, 120, seed=0, now=now), now=now, options=SolveOptions(mode=mode))
    return hub, [(d.apply, d.delete, d.requests) for _, d in world_deltas(hub, "ocm", 0, events, now)]


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_the_decision_entries_written_are_shared_and_the_deltas_those_made_entry_by_entry(
    mode, monkeypatch
) -> None:
    """Over 40 generated events, every PlacementDecision the events wrote holds the model's one
    entry object per cluster (fails with each entry made: none is shared), and the deltas equal a
    run making each entry."""
    hub, shared = _run(mode, 40)
    entries = hub._live["ocm"]._entries
    written = [o for apply, _, _ in shared for o in apply if o["kind"] == "PlacementDecision"]
    assert sum(len(o["status"]["decisions"]) for o in written) > 100
    for obj in written:
        for entry in obj["status"]["decisions"]:
            assert entry is entries[entry["clusterName"]]
            assert entry == {"clusterName": entry["clusterName"], "reason": ""}
    monkeypatch.setattr(
        emit_module, "_entries", lambda chunk, entries: [{"clusterName": c, "reason": ""} for c in chunk]
    )
    assert _run(mode, 40)[1] == shared
