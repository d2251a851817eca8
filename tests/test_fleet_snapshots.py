"""clean / clean_or_same: what is written back of an object read from the hub."""

from __future__ import annotations

from adapters.fleet.snapshots import clean, clean_or_same


def _binding(**metadata):
    return {
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourceBinding",
        "metadata": {"name": "b", "labels": {"kubernetes-fleet.io/parent-CRP": "p"}, **metadata},
        "spec": {"state": "Bound", "targetCluster": "c"},
    }


def test_an_object_clean_already_is_written_as_it_is():
    obj = _binding()
    assert clean_or_same(obj) is obj
    assert clean_or_same(obj) == clean(obj)


def test_server_fields_and_status_are_still_dropped():
    for obj in (_binding(uid="u", resourceVersion="7"), {**_binding(), "status": {"conditions": []}}):
        out = clean_or_same(obj)
        assert out is not obj
        assert out == clean(obj)
        assert "status" not in out and "uid" not in out["metadata"]
