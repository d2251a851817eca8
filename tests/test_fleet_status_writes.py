"""When the scheduler writes a policy snapshot's status, and what it leaves as it was.

Upstream (pkg/scheduler/framework/framework.go, updatePolicySnapshotStatusFromBindings and
updatePolicySnapshotStatusForPickFixedPlacementType) skips the write when the observed placement
generation is the same, the decisions are equal as a set (frameworkutils.go equalDecisions: by
cluster name, in any order) and the Scheduled condition is equal by
pkg/utils/condition.EqualCondition (type, status, reason, and an observedGeneration at least as new;
message and lastTransitionTime ignored). When it writes, meta.SetStatusCondition replaces the
Scheduled condition in place and keeps the others. A fully scheduled PickN needs no cycle at all
(pkg/scheduler/watchers: cluster changes only reach PickAll and placements not fully scheduled), so
the status its last scheduling cycle wrote, unselected entries included, stays while it holds.
"""

from __future__ import annotations

import copy
from datetime import datetime
from importlib import resources

import pytest
import yaml

from adapters.cli.main import DEMO_NOW
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.fleet import (
    HELD,
    MODES,
    NOW,
    Written,
    ago,
    as_json,
    binding,
    crp,
    decision,
    member_cluster,
    not_picked_reason,
    pick_all,
    pick_fixed,
    pick_n,
    preferred,
    run_solve,
    scheduled_condition,
    snapshot,
    spread,
    term,
)
from tests.fixtures.pipeline import applied, changes

AFFINITY = "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"


def _plan_changes(tmp_path, objects, mode) -> list[str]:
    """What `solve -o plan` would write to a hub holding `objects` as the scheduler wrote them
    (without the metadata the API server adds, which the scheduler never writes back)."""
    objects = [_as_written(o) for o in objects]
    plan = as_json(run_solve(tmp_path, objects, mode, "plan"))
    return [f"{o['kind']}/{o['metadata']['name']}" for o in plan["apply"]] + [
        f"delete {ref['kind']}/{ref['name']}" for ref in plan["delete"]
    ]


def _as_written(obj: dict) -> dict:
    out = copy.deepcopy(obj)
    for key in ("resourceVersion", "uid", "generation"):
        out["metadata"].pop(key, None)
    return out


def _status(*decisions, found: int, satisfied: str = "True", when: str = "2026-11-01T00:00:00Z"):
    return {
        "observedCRPGeneration": 1,
        "conditions": [scheduled_condition(satisfied, found, when=when)],
        "targetClusters": list(decisions),
    }


def _unselected(cluster: str, affinity: int = 0) -> dict:
    return {
        "clusterName": cluster,
        "selected": False,
        "clusterScore": {"affinityScore": affinity, "priorityScore": 0},
        "reason": not_picked_reason(cluster, affinity, 0),
    }


def _pick_all_hub(status: dict) -> list[dict]:
    policy = pick_all(required=[term({"env": "prod"})])
    return [
        member_cluster("a", {"env": "prod"}),
        member_cluster("b", {"env": "prod"}),
        member_cluster("c", {"env": "dev"}),
        crp("web", policy, finalizers=HELD),
        snapshot("web", 0, policy, status=status),
        binding("web", "a", state="Bound"),
        binding("web", "b"),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_the_same_decisions_in_another_order_are_not_rewritten(tmp_path, mode):
    # A PickAll cycle lists its selected entries from the bindings (here b, scheduled, then a,
    # bound) and then the filtered c; the hub holds them in another order.
    status = _status(
        {"clusterName": "c", "selected": False, "reason": AFFINITY},
        decision("a", (0, 0)),
        decision("b", (0, 0)),
        found=2,
    )
    assert _plan_changes(tmp_path, _pick_all_hub(status), mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_condition_equal_but_for_message_and_transition_time_is_not_rewritten(tmp_path, mode):
    status = _status(decision("b", (0, 0)), decision("a", (0, 0)), found=2)
    status["targetClusters"].append({"clusterName": "c", "selected": False, "reason": AFFINITY})
    status["conditions"][0]["message"] = "written by an older scheduler"
    status["conditions"][0]["observedGeneration"] = 2  # newer than the snapshot's: still equal
    assert _plan_changes(tmp_path, _pick_all_hub(status), mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_rewrite_keeps_the_other_conditions_in_place(tmp_path, mode):
    other = {
        "type": "Reviewed",
        "status": "True",
        "reason": "ByHand",
        "message": "",
        "observedGeneration": 1,
        "lastTransitionTime": ago(60),
    }
    status = _status(decision("a", (0, 0)), found=1, satisfied="False")
    status["conditions"].insert(0, other)
    written = Written.solve(tmp_path, _pick_all_hub(status), mode)
    conditions = written.snapshot("web")["status"]["conditions"]
    assert conditions == [other, scheduled_condition("True", 2, when=NOW)]


def _pick_n_hub(status: dict | None, *, crp_generation: int = 1) -> list[dict]:
    policy = pick_n(2, prefer=[preferred(10, {"tier": "1"})])
    return [
        member_cluster("a", {"tier": "1"}),
        member_cluster("b", {"tier": "1"}),
        member_cluster("c"),
        crp("web", policy, generation=crp_generation, finalizers=HELD),
        snapshot("web", 0, policy, n=2, status=status),
        binding("web", "a", state="Bound", score=(10, 0)),
        binding("web", "b", score=(10, 0)),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_fully_scheduled_pick_n_keeps_the_status_its_scheduling_cycle_wrote(tmp_path, mode):
    status = _status(decision("b", (10, 0)), decision("a", (10, 0)), _unselected("c"), found=2)
    assert _plan_changes(tmp_path, _pick_n_hub(status), mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_fully_scheduled_pick_n_of_a_newer_generation_is_refreshed_from_its_bindings(tmp_path, mode):
    # The placement changed outside its policy (the CRP-generation annotation moves): upstream's
    # snapshot watcher starts a cycle, which needs no pick and lists the selected clusters only.
    status = _status(decision("b", (10, 0)), decision("a", (10, 0)), _unselected("c"), found=2)
    written = Written.solve(tmp_path, _pick_n_hub(status, crp_generation=2), mode)
    assert written.snapshot("web")["status"] == {
        "observedCRPGeneration": 2,
        "conditions": [scheduled_condition("True", 2, when="2026-11-01T00:00:00Z")],
        "targetClusters": [decision("a", (10, 0)), decision("b", (10, 0))],
    }


@pytest.mark.parametrize("mode", MODES)
def test_pick_fixed_in_another_order_is_not_rewritten(tmp_path, mode):
    policy = pick_fixed("a", "b")
    status = _status(decision("b"), decision("a"), found=2)
    objects = [
        member_cluster("a"),
        member_cluster("b"),
        crp("web", policy, finalizers=HELD),
        snapshot("web", 0, policy, status=status),
        binding("web", "a", score=None),
        binding("web", "b", score=None),
    ]
    assert _plan_changes(tmp_path, objects, mode) == []


@pytest.mark.parametrize("mode", MODES)
def test_the_demo_reaches_its_fixed_point_in_one_apply(mode):
    text = resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(encoding="utf-8")
    objects = [o for o in yaml.safe_load_all(text) if o is not None]
    options, now = SolveOptions(mode=mode), datetime.fromisoformat(DEMO_NOW)  # when its heartbeats are fresh
    first = schedule(copy.deepcopy(objects), now=now, options=options)
    assert changes(objects, first)  # the demo holds work to do
    hub = applied(objects, first.apply, first.delete)
    assert changes(hub, schedule(copy.deepcopy(hub), now=now, options=options)) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_pick_n_needing_no_pick_after_a_dangling_binding_lists_bound_first(tmp_path, mode):
    # The binding on the cluster gone is marked Unscheduled before the cycle (classifyBindings:
    # dangling); two remain for N=2, so no scale-down and no pick: the status is written from the
    # bound bindings, then the scheduled ones (runSchedulingCycleForPickNPlacementType's
    # no-scheduling path). A scale-down lists the scheduled first.
    policy = pick_n(2)
    stale = {"observedCRPGeneration": 1, "conditions": [scheduled_condition("True", 2, when=NOW)]}
    objects = [
        member_cluster("a"),
        member_cluster("b"),
        crp("web", policy, generation=2, finalizers=HELD),
        snapshot("web", 0, policy, n=2, status=stale),
        binding("web", "a", state="Bound"),
        binding("web", "b"),
        binding("web", "gone"),
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert [t["clusterName"] for t in written.targets("web")] == ["a", "b"]
    objects[2] = crp("web", pick_n(1), generation=2, finalizers=HELD)  # now a scale-down: b goes
    objects[4] = binding("web", "a", state="Bound")
    objects.append(binding("web", "z"))  # scheduled, kept
    objects.append(member_cluster("z"))
    written = Written.solve(tmp_path, objects, mode)
    assert [t["clusterName"] for t in written.targets("web")] == ["a"]


# The order of the selected entries: the last cycle's made bindings (in pick order), its patched
# ones (obsolete, then restored, by binding name: ListBindingsFromKey sorts by name), then the
# scheduled and bound ones it found (by binding name). Order matters once the status is written.


def _order(tmp_path, objects, mode, name="web") -> list[str]:
    return [t["clusterName"] for t in Written.solve(tmp_path, objects, mode).targets(name) if t["selected"]]


@pytest.mark.parametrize("mode", MODES)
def test_patched_bindings_are_listed_by_binding_name_not_by_pick(tmp_path, mode):
    policy = pick_n(2, prefer=[preferred(10, {"tier": "1"})])
    objects = [
        member_cluster("a"),
        member_cluster("b", {"tier": "1"}),
        member_cluster("c"),
        crp("web", policy, finalizers=HELD),
        snapshot("web", 0, pick_n(2), n=2),
        binding("web", "a", policy_snapshot="web-0"),
        binding("web", "b", policy_snapshot="web-0"),
    ]
    assert _order(tmp_path, objects, mode) == ["a", "b"]  # b is picked first (affinity 10)


@pytest.mark.parametrize("mode", MODES)
def test_found_bindings_are_listed_by_binding_name(tmp_path, mode):
    policy = pick_n(3)
    objects = [
        *(member_cluster(c) for c in "abc"),
        crp("web", policy, finalizers=HELD),
        snapshot("web", 0, policy, n=3),
        binding("web", "a", name="web-2"),
        binding("web", "b", name="web-1"),
    ]
    assert _order(tmp_path, objects, mode) == ["c", "b", "a"]


@pytest.mark.parametrize("mode", MODES)
def test_under_topology_spread_the_last_cycles_pick_comes_first(tmp_path, mode):
    # One cluster per cycle: the status is written by the second cycle, which made the binding on
    # its pick and found the first cycle's. With a third cluster wanted and none left, the third
    # cycle picks nothing and finds both.
    clusters = [member_cluster("a", {"zone": "1"}), member_cluster("b", {"zone": "2"})]
    for wanted, listed in ((2, 2), (3, 2)):
        policy = pick_n(wanted, spread_by=[spread("zone")])
        written = Written.solve(tmp_path, [*clusters, crp("web", policy)], mode)
        entries = [t for t in written.targets("web") if t["selected"]]
        names = {b["spec"]["targetCluster"]: b["metadata"]["name"] for b in written.bindings("web")}
        assert len(entries) == listed
        first, second = (e["clusterName"] for e in entries)
        if wanted == 2:
            assert (first, second) == ("a", "b")  # b picked first (the larger name), a last
        else:
            assert names[first] < names[second]


@pytest.mark.parametrize("mode", MODES)
def test_a_scale_down_lists_the_ones_left_in_its_trimming_order(tmp_path, mode):
    policy = pick_n(2)
    objects = [
        *(member_cluster(c) for c in "abc"),
        crp("web", policy, generation=2, finalizers=HELD),
        snapshot("web", 0, policy, n=3),
        binding("web", "a", score=(10, 0)),
        binding("web", "b", score=(5, 0)),
        binding("web", "c", score=(7, 0)),
    ]
    assert _order(tmp_path, objects, mode) == ["c", "a"]  # b trimmed; the rest by score
