"""clean / clean_or_same: what is written back of an object read from the hub; the annotations
the placement controller keeps on the latest policy snapshot."""

from __future__ import annotations

import pytest

from adapters.fleet.snapshots import clean, clean_or_same
from tests.fleet_fixtures import (
    CRP_GENERATION,
    HELD,
    MODES,
    NUMBER,
    Written,
    binding,
    crp,
    member_cluster,
    pick_all,
    pick_fixed,
    pick_n,
    snapshot,
)


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


# ensureLatestPolicySnapshot (pkg/controllers/placement/controller.go) never removes an annotation
# and rewrites a number only where the one it reads (strconv.Atoi) differs.


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("policy", [pick_all(), pick_fixed("a"), None], ids=["PickAll", "PickFixed", "none"])
def test_a_number_of_clusters_annotation_off_pick_n_stays(tmp_path, mode, policy):
    stale = snapshot("web", 0, policy, n=3)
    objects = [
        member_cluster("a"),
        crp("web", policy, finalizers=HELD),
        stale,
        binding("web", "a", score=None),
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.snapshot("web")["metadata"]["annotations"] == {CRP_GENERATION: "1", NUMBER: "3"}


@pytest.mark.parametrize("mode", MODES)
def test_numbers_read_equal_are_not_rewritten(tmp_path, mode):
    policy = pick_n(1)
    held = snapshot("web", 0, policy, generation=1)
    held["metadata"]["annotations"] = {CRP_GENERATION: "+2", NUMBER: "01"}
    objects = [member_cluster("a"), crp("web", policy, generation=2), held]
    written = Written.solve(tmp_path, objects, mode)
    assert written.snapshot("web")["metadata"]["annotations"] == {CRP_GENERATION: "+2", NUMBER: "01"}
    held["metadata"]["annotations"] = {CRP_GENERATION: "2 ", NUMBER: "1_0"}  # not numbers to Atoi
    written = Written.solve(tmp_path, objects, mode)
    assert written.snapshot("web")["metadata"]["annotations"] == {CRP_GENERATION: "2", NUMBER: "1"}
