"""pytest-benchmark: one event handled by the long-lived scheduler on a 10,000 x 2,000 hub.
Run explicitly: python -m pytest bench -k incremental"""

from __future__ import annotations

import copy
from datetime import datetime

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.incremental import ClusterChanged, FleetScheduler


@pytest.fixture(scope="module")
def hub():
    objects = generate("fleet", 10000, 2000, seed=0)
    now = datetime.fromisoformat(DEFAULT_NOW)
    return objects, FleetScheduler(objects, now=now), now


def test_incremental_label_change(benchmark, hub) -> None:
    objects, scheduler, now = hub
    member = copy.deepcopy(next(o for o in objects if o["kind"] == "MemberCluster"))
    regions = iter(f"region-moved-{i}" for i in range(10**6))

    def event():
        member["metadata"]["labels"]["region"] = next(regions)
        before = scheduler.selected()
        scheduler.handle(ClusterChanged(copy.deepcopy(member)), now=now)
        assert scheduler.selected() == before  # a label change moves nothing

    benchmark.pedantic(event, rounds=5)
