"""clean / clean_or_same: what is written back of an object read from the hub; the annotations
the placement controller keeps on the latest policy snapshot."""

from __future__ import annotations

import base64
import hashlib

import pytest

from adapters.fleet.policy import policy_hash
from adapters.fleet.snapshots import clean, clean_or_same
from tests.fixtures.fleet import (
    CRP_GENERATION,
    HELD,
    LATEST,
    MODES,
    NUMBER,
    Written,
    as_json,
    binding,
    crp,
    member_cluster,
    pick_all,
    pick_fixed,
    pick_n,
    policy_hash_of,
    run_solve,
    snapshot,
    term,
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


# The policy hash is resource.HashOf's: SHA-256 of encoding/json's bytes of the policy as the API
# server stores it (CRD defaults in), without numberOfClusters; the placement controller compares
# it, not the policy, with the latest snapshot's (getOrCreateSchedulingPolicySnapshot).

TRICKY = {
    "tolerations": [{"value": "v", "key": "k"}],
    "topologySpreadConstraints": [{"whenUnsatisfiable": "ScheduleAnyway", "topologyKey": "zone<&>\u2028"}],
    "numberOfClusters": 3,
    "affinity": {
        "clusterAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"preference": {"labelSelector": {"matchLabels": {"b": "x", "a": "y"}}}, "weight": 0}
            ],
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "clusterSelectorTerms": [
                    {
                        "labelSelector": {
                            "matchExpressions": [{"values": [], "operator": "Exists", "key": "gpu"}]
                        }
                    },
                    {},
                ]
            },
        }
    },
    "placementType": "PickN",
}
# What Go writes: struct fields in declaration order, map keys sorted, <, > and & escaped, empty
# slices left out where omitempty, defaults filled in, a term {} written whole.
TRICKY_GO = (
    '{"placementType":"PickN","affinity":{"clusterAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":'
    '{"clusterSelectorTerms":[{"labelSelector":{"matchExpressions":[{"key":"gpu","operator":"Exists"}]}},{}]},'
    '"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{"labelSelector":'
    '{"matchLabels":{"a":"y","b":"x"}}}}]}},"topologySpreadConstraints":[{"maxSkew":1,'
    '"topologyKey":"zone\\u003c\\u0026\\u003e\\u2028","whenUnsatisfiable":"ScheduleAnyway"}],"tolerations":[{"key":"k","operator":"Equal",'
    '"value":"v"}]}'
)


def test_the_policy_hash_is_gos():
    assert policy_hash(TRICKY) == hashlib.sha256(TRICKY_GO.encode()).hexdigest()
    assert policy_hash(None) == hashlib.sha256(b"null").hexdigest()
    assert (
        policy_hash({"placementType": "PickAll", "affinity": {}})
        == hashlib.sha256(b'{"placementType":"PickAll","affinity":{}}').hexdigest()
    )


def test_the_policy_hash_writes_absent_fields_as_go_does():
    """A field without omitempty is written with its zero value (a null item of a list of structs
    is the zero struct, a nil slice null); one with omitempty is left out."""
    policy = {
        "affinity": {
            "clusterAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{}, None],
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "clusterSelectorTerms": [{"propertySelector": {}}]
                },
            }
        },
        "topologySpreadConstraints": [{}],
        "tolerations": [{"key": ""}],
    }
    go = (
        '{"placementType":"PickAll","affinity":{"clusterAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":'
        '{"clusterSelectorTerms":[{"propertySelector":{"matchExpressions":null}}]},'
        '"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{}},{"weight":0,"preference":{}}]}},'
        '"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"","whenUnsatisfiable":"DoNotSchedule"}],'
        '"tolerations":[{"operator":"Equal"}]}'
    )
    assert policy_hash(policy) == hashlib.sha256(go.encode()).hexdigest()


@pytest.mark.parametrize("mode", MODES)
def test_a_new_snapshot_holds_gos_hash(tmp_path, mode):
    written = Written.solve(tmp_path, [member_cluster("a"), crp("web", TRICKY)], mode)
    stored = base64.b64decode(written.snapshot("web")["spec"]["policyHash"]).decode()
    assert stored == hashlib.sha256(TRICKY_GO.encode()).hexdigest()


@pytest.mark.parametrize("mode", MODES)
def test_the_latest_snapshot_is_the_one_whose_hash_matches(tmp_path, mode):
    policy = pick_all()
    stale = snapshot("web", 0, policy)
    stale["spec"]["policyHash"] = policy_hash_of(pick_fixed("a"))  # a hash of another policy
    objects = [member_cluster("a"), crp("web", policy, finalizers=HELD), stale, binding("web", "a")]
    written = Written.solve(tmp_path, objects, mode)
    assert [s["metadata"]["name"] for s in written.snapshots("web")] == ["web-0", "web-1"]
    assert written.snapshot("web")["metadata"]["name"] == "web-1"
    # the policy it holds aside, the same hash is the same snapshot
    other = snapshot("web", 0, pick_all(required=[term({"x": "y"})]))
    other["spec"]["policyHash"] = policy_hash_of(policy)
    written = Written.solve(tmp_path, [member_cluster("a"), crp("web", policy, finalizers=HELD), other], mode)
    assert [s["metadata"]["name"] for s in written.snapshots("web")] == ["web-0"]


def _unlabelled(obj: dict) -> dict:
    del obj["metadata"]["labels"][LATEST]
    return obj


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("changed", [False, True], ids=["same policy", "new policy"])
def test_only_the_latest_snapshot_is_relabelled(tmp_path, mode, changed):
    # getOrCreateSchedulingPolicySnapshot labels the one labelled latest "false" before it makes a
    # new one, and ensureLatestPolicySnapshot writes the latest only: an older snapshot without the
    # label (written by hand) is left as it is either way.
    policy = pick_n(1)
    objects = [
        member_cluster("a"),
        crp("web", pick_n(2) if not changed else pick_all(), finalizers=HELD),
        _unlabelled(snapshot("web", 0, pick_fixed("a"))),
        snapshot("web", 1, policy, n=1),
    ]
    plan = as_json(run_solve(tmp_path, objects, mode, "plan"))
    written = {
        o["metadata"]["name"]: o for o in plan["apply"] if o["kind"] == "ClusterSchedulingPolicySnapshot"
    }
    assert "web-0" not in written
    assert written["web-1"]["metadata"]["labels"][LATEST] == ("false" if changed else "true")
    assert ("web-2" in written) == changed
