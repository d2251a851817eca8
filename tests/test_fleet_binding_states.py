"""Bindings of any state: the CRD gives spec.state and spec.targetCluster no enum and no pattern,
so the API server takes any string, and the scheduler classifies what it finds
(kubefleet pkg/scheduler/framework/frameworkutils.go classifyBindings, in this order): being
deleted; Unscheduled; dangling (its target cluster is not there, or is leaving), whatever else its
state; obsolete (another policy snapshot's), whatever else its state; Scheduled; Bound. A binding
of any other state on the current snapshot and a cluster that is there falls in no group: the
cycle passes it by, so its cluster is free to pick. A binding marked Unscheduled remembers the
state it had in its previous-state annotation, and is restored to that state, whatever it is."""

from __future__ import annotations

import pytest

from tests.fixtures.fleet import (
    HELD,
    MODES,
    PREVIOUS_STATE,
    Written,
    binding,
    crp,
    member_cluster,
    pick_n,
    snapshot,
    term,
)

POLICY = pick_n(1, required=[term({"env": "prod"})])
CLUSTERS = [member_cluster("a", {"env": "prod"}), member_cluster("b", {"env": "dev"})]


def _hub(*bindings: dict, policy: dict = POLICY) -> list[dict]:
    return [*CLUSTERS, crp("web", policy, finalizers=HELD), snapshot("web", 1, policy, n=1), *bindings]


def _named(written: Written, name: str) -> dict:
    (found,) = [b for b in written.bindings("web") if b["metadata"]["name"] == name]
    return found


@pytest.mark.parametrize("mode", MODES)
def test_a_current_binding_of_another_state_is_passed_by_and_its_cluster_picked(tmp_path, mode):
    odd = binding("web", "a", state="Pending", policy_snapshot="web-1", name="web-a-odd")
    written = Written.solve(tmp_path, _hub(odd), mode)
    assert _named(written, "web-a-odd")["spec"] == odd["spec"]  # written back as it is
    (new,) = [b for b in written.bindings("web") if b["metadata"]["name"] != "web-a-odd"]
    assert (new["spec"]["targetCluster"], new["spec"]["state"]) == ("a", "Scheduled")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", ["gone", ""], ids=["missing cluster", "no cluster"])
def test_a_binding_of_another_state_on_no_cluster_dangles(tmp_path, mode, target):
    odd = binding("web", "a", state="Pending", policy_snapshot="web-1", name="web-odd")
    odd["spec"]["targetCluster"] = target
    written = Written.solve(tmp_path, _hub(odd), mode)
    marked = _named(written, "web-odd")
    assert marked["spec"]["state"] == "Unscheduled"
    assert marked["metadata"]["annotations"] == {PREVIOUS_STATE: "Pending"}
    assert written.chosen("web") == ["a"]


@pytest.mark.parametrize("mode", MODES)
def test_an_obsolete_binding_of_another_state_picked_again_keeps_it(tmp_path, mode):
    odd = binding("web", "a", state="Pending", policy_snapshot="web-0", name="web-a-odd")
    written = Written.solve(tmp_path, _hub(odd), mode)
    patched = _named(written, "web-a-odd")
    assert patched["spec"]["state"] == "Pending"
    assert patched["spec"]["schedulingPolicySnapshotName"] == "web-1"
    assert len(written.bindings("web")) == 1  # patched, not made anew


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("previous", ["Pending", "", "Bound"])
def test_an_unscheduled_binding_is_restored_to_the_state_its_annotation_names(tmp_path, mode, previous):
    held = binding(
        "web", "a", state="Unscheduled", policy_snapshot="web-0", annotations={PREVIOUS_STATE: previous}
    )
    written = Written.solve(tmp_path, _hub(held), mode)
    (restored,) = written.bindings("web")
    assert restored["spec"]["state"] == previous
    assert restored["spec"]["schedulingPolicySnapshotName"] == "web-1"
    assert restored["metadata"]["annotations"] == {PREVIOUS_STATE: previous}
