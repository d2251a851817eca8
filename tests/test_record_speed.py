"""The records kcp's and openMCP's loads make once per object of a hub are plain (not frozen)
dataclasses: a frozen dataclass's __init__ sets each field through object.__setattr__, about
1.3 us more for eight fields, and a 10,000 x 50,000 hub makes 60,000 to 80,000 of them (kcp's
read_namespace of 50,000 Namespaces 0.323 -> 0.250 s, openMCP's read_request of 50,000
ClusterRequests 0.373 -> 0.283 s, paired medians in process). Nothing changes one once made."""

from __future__ import annotations

import dataclasses

import pytest

from adapters.kcp import objects as kcp_objects
from adapters.openmcp import load as openmcp_load
from adapters.openmcp import objects as openmcp_objects

RECORDS = [
    kcp_objects._Meta,
    kcp_objects.NamespaceObject,
    kcp_objects.ClusterObject,
    kcp_objects.PlacementObject,
    openmcp_objects.ClusterObject,
    openmcp_objects.RequestObject,
    openmcp_load.NewCluster,
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r.__module__}.{r.__name__}")
def test_a_record_made_per_object_is_not_frozen(record) -> None:
    params = record.__dataclass_params__
    assert not params.frozen
    assert params.eq  # compared by value as before
    assert "__slots__" in record.__dict__


def test_records_read_alike_compare_equal() -> None:
    from adapters.kube.manifests import from_objects
    from adapters.openmcp.generate import generate
    from adapters.registry import reads
    from tests.fixtures.common import NOW_TIME

    manifests = from_objects(generate(5, 12, seed=1, now=NOW_TIME), "<objects>", reads=reads)
    requests = [m for m in manifests if m.kind == "ClusterRequest"]
    first = [openmcp_objects.read_request(m) for m in requests]
    assert first == [openmcp_objects.read_request(m) for m in requests]
    assert dataclasses.replace(first[0], name="other") != first[0]
