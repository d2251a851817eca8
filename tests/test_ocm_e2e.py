"""End to end through the command line: OCM hubs in, the objects OCM's placement controller writes out.

Expectations are computed by hand from /work/shared/semantics/ocm.md (upstream's unit and
integration data where it exists), in both modes: each placement here is uncoupled from the
others or its answer is forced, so the optimum is upstream's greedy pick.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.fixtures.ocm import (
    DISABLE,
    MODES,
    NOW,
    REGION,
    SPREADS,
    UNREACHABLE,
    Written,
    addon,
    ago,
    builtin,
    decision,
    group,
    hub,
    later,
    managed_cluster,
    placement,
    predicate,
    score,
    solve_cli,
    taint,
    toleration,
)
from tests.fixtures.pipeline import GREEDY, OPTIMAL, Hub, run

RESOURCE_HUB = [
    managed_cluster("a", allocatable={"cpu": 10, "memory": 50}, capacity={"cpu": 10, "memory": 100}),
    managed_cluster("b", allocatable={"cpu": 7, "memory": 90}, capacity={"cpu": 10, "memory": 100}),
    managed_cluster("c", allocatable={"cpu": 9, "memory": 80}, capacity={"cpu": 10, "memory": 100}),
]
THREE = [managed_cluster(c) for c in ("c1", "c2", "c3")]


def exact(*configurations, **kwargs):
    return placement("p", mode="Exact", prioritizers=list(configurations), **kwargs)


# ---------------------------------------------------------------------------------- prioritizers


@pytest.mark.parametrize("mode", MODES)
def test_resource_integration_example(tmp_path, mode):
    # cpu 100/-100/33, memory -100/100/50: totals 0/0/83, so c then a (a before b by name).
    p = exact(builtin("ResourceAllocatableCPU"), builtin("ResourceAllocatableMemory"), n=2)
    written = Written.solve(tmp_path, hub(*RESOURCE_HUB, p), mode)
    assert written.chosen() == ["a", "c"]
    assert written.satisfied() == ("True", "AllDecisionsScheduled", "All cluster decisions scheduled")


@pytest.mark.parametrize("mode", MODES)
def test_resource_truncation(tmp_path, mode):
    # Memory 50/80/100: ratio 0.6 gives trunc(19.999...) = 19, not 20; x has no memory: 0.
    clusters = [
        managed_cluster("m50", allocatable={"memory": 50}, capacity={"memory": 50}),
        managed_cluster("m80", allocatable={"memory": 80}, capacity={"memory": 80}),
        managed_cluster("m100", allocatable={"memory": 100}, capacity={"memory": 100}),
        managed_cluster("x", allocatable={"cpu": 1}, capacity={"cpu": 1}),  # no memory: 0
    ]
    # x scoring 19 ties with m80 (19 + 0) and loses on the name; 20 beats it.
    p = exact(builtin("ResourceAllocatableMemory"), addon("demo", "s"), n=2)
    objects = hub(*clusters, p, score("x", "demo", {"s": 19}))
    assert Written.solve(tmp_path, objects, mode).chosen() == ["m100", "m80"]
    objects = hub(*clusters, p, score("x", "demo", {"s": 20}))
    assert Written.solve(tmp_path, objects, mode).chosen() == ["m100", "x"]


@pytest.mark.parametrize("mode", MODES)
def test_additive_balance_memory_addon_totals(tmp_path, mode):
    # Balance 100 x3, memory 100/0/-100, addon 30/40/50 (Steady 1 holds nothing): 430/340/250.
    clusters = [
        managed_cluster(name, allocatable={"memory": m}, capacity={"memory": m})
        for name, m in (("c1", 100), ("c2", 80), ("c3", 60))
    ]
    scores = [score(c, "demo", {"s": v}) for c, v in (("c1", 30), ("c2", 40), ("c3", 50))]
    p = placement(
        "p",
        n=2,
        prioritizers=[builtin("Balance", 3), builtin("ResourceAllocatableMemory"), addon("demo", "s")],
    )
    assert Written.solve(tmp_path, hub(*clusters, *scores, p), mode).chosen() == ["c1", "c2"]
    # Exact Balance 3 + Memory 1: 400/300/200.
    p = exact(builtin("Balance", 3), builtin("ResourceAllocatableMemory"), n=1)
    assert Written.solve(tmp_path, hub(*clusters, p), mode).chosen() == ["c1"]


@pytest.mark.parametrize("mode", MODES)
def test_balance_counts_other_placements_decisions(tmp_path, mode):
    # Other placements hold {c1, c2} and {c1, c3}: c1 -100, c2 0, c3 0.
    others = [decision("x", 1, ["c1", "c2"]), decision("y", 1, ["c1", "c3"], namespace="ns2")]
    p = exact(builtin("Balance"), n=1)
    assert Written.solve(tmp_path, hub(*THREE, p, *others), mode).chosen() == ["c2"]


@pytest.mark.parametrize("mode", MODES)
def test_balance_and_steady(tmp_path, mode):
    # Others on {c2, c3} and {c1, c2}; this placement on {c3}: Balance 0/-100/0, Steady 0/0/100.
    others = [decision("x", 1, ["c2", "c3"]), decision("y", 1, ["c1", "c2"])]
    mine = decision("p", 1, ["c3"])
    written = Written.solve(tmp_path, hub(*THREE, placement("p", n=1), *others, mine), mode)
    assert written.chosen() == ["c3"]
    # Without Steady, c1 and c3 tie at 0: the smaller name wins.
    p = placement("p", n=1, prioritizers=[builtin("Steady", 0)])
    assert Written.solve(tmp_path, hub(*THREE, p, *others, mine), mode).chosen() == ["c1"]


@pytest.mark.parametrize("mode", MODES)
def test_disabled_placements_decisions_count_for_balance(tmp_path, mode):
    off = placement("off", annotations={DISABLE: "true"})
    objects = hub(*THREE, off, decision("off", 1, ["c1"]), exact(builtin("Balance"), n=1))
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen() == ["c2"]
    assert [o["metadata"]["name"] for o in written.apply] == ["p-decision-1", "p"]  # "off" untouched


@pytest.mark.parametrize("mode", MODES)
def test_addon_scores_positive_negative_expired_missing(tmp_path, mode):
    scores = [score("c1", "demo", {"s": 30}), score("c2", "demo", {"s": 40}), score("c3", "demo", {"s": 50})]
    assert Written.solve(tmp_path, hub(*THREE, *scores, exact(addon("demo", "s"), n=1)), mode).chosen() == [
        "c3"
    ]
    assert Written.solve(
        tmp_path, hub(*THREE, *scores, exact(addon("demo", "s", -1), n=1)), mode
    ).chosen() == ["c1"]
    expired = [*scores[:2], score("c3", "demo", {"s": 50}, valid_until=ago(0.5))]
    assert Written.solve(tmp_path, hub(*THREE, *expired, exact(addon("demo", "s"), n=1)), mode).chosen() == [
        "c2"
    ]
    at_expiry = [*scores[:2], score("c3", "demo", {"s": 50}, valid_until=NOW)]
    assert Written.solve(
        tmp_path, hub(*THREE, *at_expiry, exact(addon("demo", "s"), n=1)), mode
    ).chosen() == ["c3"]
    # Missing objects and a missing score name are 0: -5 on c1 puts it last.
    partial = [score("c1", "demo", {"s": -5}), score("c2", "demo", {"other": 90})]
    assert Written.solve(tmp_path, hub(*THREE, *partial, exact(addon("demo", "s"), n=2)), mode).chosen() == [
        "c2",
        "c3",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_additive_default_and_exact(tmp_path, mode):
    # No history: every cluster 100 (Balance 100, Steady 0): the smallest names.
    assert Written.solve(tmp_path, hub(*THREE, placement("p", n=2)), mode).chosen() == ["c1", "c2"]
    # Steady keeps a held cluster: c3 200, the others 100.
    held = decision("p", 1, ["c3"])
    assert Written.solve(tmp_path, hub(*THREE, placement("p", n=2), held), mode).chosen() == ["c1", "c3"]
    # Exact with nothing listed: all 0, names decide, held or not.
    assert Written.solve(tmp_path, hub(*THREE, exact(n=2), held), mode).chosen() == ["c1", "c2"]


# ---------------------------------------------------------------------------------- selection


@pytest.mark.parametrize("mode", MODES)
def test_nil_and_zero_number_of_clusters(tmp_path, mode):
    written = Written.solve(tmp_path, hub(*THREE, placement("p")), mode)
    assert written.chosen() == ["c1", "c2", "c3"]
    assert written.satisfied()[1] == "AllDecisionsScheduled"
    written = Written.solve(tmp_path, hub(*THREE, placement("p", n=0)), mode)
    assert written.chosen() == []
    assert len(written.decision_objects()) == 1
    assert written.satisfied() == (
        "False",
        "NoManagedClusterMatched",
        "No ManagedCluster matches any of the cluster predicate",
    )
    assert written.placement()["status"]["numberOfSelectedClusters"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_predicates_and_unsatisfied(tmp_path, mode):
    clusters = [
        managed_cluster("c1", {"env": "prod"}),
        managed_cluster("c2", {"env": "dev"}, claims={"region": "eu"}),
        managed_cluster("c3", {"env": "dev"}),
    ]
    predicates = [
        predicate({"matchLabels": {"env": "prod"}}),
        predicate(claims=[{"key": "region", "operator": "In", "values": ["eu"]}]),
    ]
    written = Written.solve(tmp_path, hub(*clusters, placement("p", n=3, predicates=predicates)), mode)
    assert written.chosen() == ["c1", "c2"]
    assert written.satisfied() == ("False", "NotAllDecisionsScheduled", "1 cluster decisions unscheduled")


@pytest.mark.parametrize("mode", MODES)
def test_cel_predicate_with_scores(tmp_path, mode):
    pytest.importorskip("adapters.ocm.cel")
    expression = (
        "managedCluster.scores(\"test-addon\").filter(s, s.name == 'test-score').all(e, e.value > 80)"
    )
    objects = hub(
        *THREE,
        score("c1", "test-addon", {"test-score": 90}, valid_until=ago(60)),  # CEL ignores validUntil
        score("c2", "test-addon", {"test-score": 70}),
        placement("p", predicates=[predicate(cel=[expression])]),
    )
    assert Written.solve(tmp_path, objects, mode).chosen() == ["c1"]  # c3 has no object: no match


@pytest.mark.parametrize("mode", MODES)
def test_cluster_sets_scope(tmp_path, mode):
    from tests.fixtures.ocm import CLUSTERSET_LABEL, binding, cluster_set

    objects = [
        cluster_set("dev", exclusive=True),
        cluster_set("prod", exclusive=True),
        binding("dev"),
        binding("prod"),
        managed_cluster("c1", {CLUSTERSET_LABEL: "dev"}),
        managed_cluster("c2", {CLUSTERSET_LABEL: "prod"}),
        managed_cluster("c3"),
        managed_cluster("c4", {CLUSTERSET_LABEL: "prod"}, terminating=True),
        placement("p", cluster_sets=["prod", "other"]),
    ]
    assert Written.solve(tmp_path, objects, mode).chosen() == ["c2"]


# ---------------------------------------------------------------------------------- taints


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("seconds", "kept"),
    [
        (None, True),
        (900, True),
        (600, False),
        (300, False),
        # Upstream's time.Duration(seconds) * time.Second wraps around int64 nanoseconds: 292 years
        # hold, a second more is a negative duration, 2**62 seconds none at all.
        (9_223_372_036, True),
        (9_223_372_037, False),
        (2**62, False),
        (2**63 - 1, False),
    ],
)
def test_toleration_seconds(tmp_path, mode, seconds, kept):
    clusters = [managed_cluster("c1", taints=[taint("maint", added=ago(10))]), managed_cluster("c2")]
    p = placement("p", tolerations=[toleration("maint", "Exists", seconds=seconds)])
    assert Written.solve(tmp_path, hub(*clusters, p), mode).chosen() == (["c1", "c2"] if kept else ["c2"])


@pytest.mark.parametrize("mode", MODES)
def test_untolerated_and_prefer_no_select_taints(tmp_path, mode):
    clusters = [
        managed_cluster("c1", taints=[taint("gpu", value="a100")]),
        managed_cluster("c2", taints=[taint("soft", "PreferNoSelect")]),
        managed_cluster("c3", taints=[taint("gpu", value="t4")]),
    ]
    p = placement("p", tolerations=[toleration("gpu", value="a100")])
    assert Written.solve(tmp_path, hub(*clusters, p), mode).chosen() == ["c1", "c2"]
    # A finite toleration of a taint with no timeAdded has long expired.
    p = placement("p", tolerations=[toleration("gpu", "Exists", seconds=10**9)])
    assert Written.solve(tmp_path, hub(*clusters, p), mode).chosen() == ["c2"]


@pytest.mark.parametrize("mode", MODES)
def test_builtin_unreachable_taint(tmp_path, mode):
    # As hub registration writes it: the taint in spec.taints, added when Available turned Unknown.
    unreachable = [taint(UNREACHABLE, added=ago(2))]
    clusters = [
        managed_cluster("c1", available="Unknown", available_since=ago(2), taints=unreachable),
        managed_cluster("c2"),
    ]
    plain = Written.solve(tmp_path, hub(*clusters, placement("p")), mode)
    assert plain.chosen() == ["c2"]
    for seconds, expected in ((300, ["c1", "c2"]), (60, ["c2"])):
        p = placement("p", tolerations=[toleration(UNREACHABLE, "Exists", seconds=seconds)])
        assert Written.solve(tmp_path, hub(*clusters, p), mode).chosen() == expected


@pytest.mark.parametrize("mode", MODES)
def test_no_condition_and_no_taint_is_selectable(tmp_path, mode):
    # Upstream's own scheduling tests build clusters with neither conditions nor taints; the
    # scheduler never reads the Available condition, so they are selected.
    clusters = [
        managed_cluster("c1", available=None),
        managed_cluster("c2", available="Unknown"),
        managed_cluster("c3", available="False"),
    ]
    written = Written.solve(tmp_path, hub(*clusters, placement("p")), mode)
    assert written.chosen() == ["c1", "c2", "c3"]
    assert written.satisfied()[:2] == ("True", "AllDecisionsScheduled")


@pytest.mark.parametrize("mode", MODES)
def test_no_select_if_new(tmp_path, mode):
    clusters = [
        managed_cluster("c1"),
        managed_cluster("c2", taints=[taint("new", "NoSelectIfNew", added=ago(1))]),
    ]
    objects = hub(*clusters, placement("held"), placement("fresh"), decision("held", 1, ["c2"]))
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen("held") == ["c1", "c2"]
    assert written.chosen("fresh") == ["c1"]


# ---------------------------------------------------------------------------------- spread


@pytest.mark.parametrize("mode", MODES)
def test_hard_spread(tmp_path, mode):
    clusters = [managed_cluster(f"c{i}", {"zone": z}) for i, z in enumerate("aabb", 1)]
    spread = [{"topologyKey": "zone", "topologyKeyType": "Label", "whenUnsatisfiable": "DoNotSchedule"}]
    assert Written.solve(tmp_path, hub(*clusters, placement("p", n=2, spread=spread)), mode).chosen() == [
        "c1",
        "c3",
    ]


# ---------------------------------------------------------------------------------- writing


@pytest.mark.parametrize("mode", MODES)
def test_decision_groups_canary(tmp_path, mode):
    clusters = [managed_cluster(c, {"cloud": cloud}) for c, cloud in (("c1", "Amazon"), ("c2", "Amazon"))]
    clusters += [managed_cluster(c, {"cloud": "Azure"}) for c in ("c3", "c4")]
    p = placement("placement1", groups=[group("canary", {"cloud": "Azure"})], per_group="25%")
    written = Written.solve(tmp_path, hub(*clusters, p), mode)
    groups = written.placement("placement1")["status"]["decisionGroups"]
    assert [(g["decisionGroupIndex"], g["decisionGroupName"], g["decisions"]) for g in groups] == [
        (0, "canary", ["placement1-decision-1"]),
        (1, "canary", ["placement1-decision-2"]),
        (2, "", ["placement1-decision-3"]),
        (3, "", ["placement1-decision-4"]),
    ]
    assert written.chosen("placement1") == ["c3", "c4", "c1", "c2"]


@pytest.mark.parametrize("mode", MODES)
def test_101_clusters_two_objects_and_surplus_deleted(tmp_path, mode):
    names = [f"cluster{i}" for i in range(1, 102)]
    objects = hub(*[managed_cluster(c) for c in names], placement("p"), decision("p", 3, ["cluster1"]))
    written = Written.solve(tmp_path, objects, mode)
    objs = written.decision_objects()
    assert [o["metadata"]["name"] for o in objs] == ["p-decision-1", "p-decision-2"]
    assert [d["clusterName"] for d in objs[1]["status"]["decisions"]] == ["cluster99"]
    assert written.delete == [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "namespace": "ns1",
            "name": "p-decision-3",
        }
    ]


@pytest.mark.parametrize("mode", MODES)
def test_misconfigured_placement(tmp_path, mode):
    objects = hub(*THREE, placement("p", n=1, prioritizers=[builtin("Spread", 2)]), decision("p", 1, ["c1"]))
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen() == []
    assert written.misconfigured() == ("True", "Misconfigured", ":incorrect builtin prioritizer: Spread")
    assert written.satisfied()[1] == "NoManagedClusterMatched"


@pytest.mark.parametrize("mode", MODES)
def test_no_bindings(tmp_path, mode):
    written = Written.solve(tmp_path, [*THREE, placement("p")], mode)
    assert written.satisfied() == (
        "False",
        "NoManagedClusterSetBindings",
        "No valid ManagedClusterSetBindings found in placement namespace",
    )
    assert written.misconfigured()[1] == "Succeedconfigured"


def test_yaml_output_matches_plan(tmp_path):
    objects = hub(*THREE, placement("p", n=2))
    result = solve_cli(tmp_path, objects, "-o", "yaml")
    assert result.exit_code == 0, result.output
    applied = list(yaml.safe_load_all(result.stdout))
    plan = solve_cli(tmp_path, objects, "-o", "plan")
    assert applied == json.loads(plan.stdout)["apply"]


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"prioritizers": [builtin("Balance", 11)]}, "spec.prioritizerPolicy.configurations[0].weight"),
        ({"n": -1}, "spec.numberOfClusters"),
        ({"per_group": "1.5"}, "spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup"),
    ],
)
def test_bad_input_exits_2(tmp_path, spec, field):
    result = solve_cli(tmp_path, hub(*THREE, placement("p", **spec)))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"Placement/ns1/p: {field}: " in result.stderr


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_name_no_decision_label_takes_exits_2(tmp_path, mode):
    """Over 63 characters the name is no label value: upstream's every sync fails at its
    PlacementDecisions (ocm pkg/placement/controllers/scheduling/scheduling_controller.go, bind).
    Before, exit 0 and a PlacementDecision the API server refuses."""
    name = "q" * 64
    result = solve_cli(tmp_path, hub(*THREE, placement(name, n=1)), "--mode", mode)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert f"Placement/ns1/{name}: metadata.name: must be no more than 63 characters" in result.stderr


def test_expired_scores_between_runs(tmp_path):
    objects = hub(
        *THREE, score("c3", "demo", {"s": 50}, valid_until=later(1)), exact(addon("demo", "s"), n=1)
    )
    assert Written.solve(tmp_path, objects, "greedy").chosen() == ["c3"]
    assert Written.solve(tmp_path, objects, "greedy", now="2026-11-21T12:02:00Z").chosen() == ["c1"]


@pytest.mark.parametrize("mode", MODES)
def test_balance_counts_decisions_on_clusters_that_are_gone(tmp_path, mode):
    # Upstream counts every PlacementDecision entry toward the busiest count, whatever cluster it
    # names: "ghost" (deleted) holds 2, a 1, so maxCount is 2 and a's Balance is 0, not -100.
    # Totals (Balance 1, Steady 1, AddOn x2): a 0, b and c 100 - 120 = -20: a wins.
    objects = [
        *hub(
            managed_cluster("a"),
            managed_cluster("b"),
            managed_cluster("c"),
            managed_cluster("t", terminating=True),
        ),
        score("a", "res", {"x": 0}),
        score("b", "res", {"x": -60}),
        score("c", "res", {"x": -60}),
        placement("p", n=1, mode="Additive", prioritizers=[addon("res", "x", 2)]),
        decision("gone", 1, ["ghost", "a"]),
        decision("gone2", 1, ["ghost"]),
        decision("p", 1, ["t"]),  # its own decision on a terminating cluster: released, not counted
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen() == ["a"]
    assert written.summary["clusters"] == 3  # gone and terminating clusters are not clusters of the batch


@pytest.mark.parametrize("mode", MODES)
def test_summary_counts_placements_as_their_status_does(tmp_path, mode):
    # All clusters wanted but none matches: PlacementSatisfied False, so the summary counts it
    # unsatisfied; a misconfigured placement never reaches the solver but is a placement too.
    objects = [
        *hub(managed_cluster("a", {"env": "prod"})),
        placement("none", predicates=[predicate({"matchLabels": {"env": "dev"}})]),
        placement("bad", n=1, mode="Exact", prioritizers=[builtin("Spread", 2)]),
        placement("ok", n=1),
    ]
    summary = Written.solve(tmp_path, objects, mode).summary
    assert (summary["requests"], summary["unsatisfied"]) == (3, 2)
    assert summary["systems"]["ocm"] == {"requests": 3, "clusters": 1, "unsatisfied": 2}


# ------------------------------------------------------------------ optimal never below greedy


def bystander_hub() -> list[dict]:
    """p0 weighs Balance (Additive by default) and can only take c3; p1 (Exact, no prioritizer,
    N=2, spread over the region claim that only c3 carries) does not."""
    return [
        *hub(managed_cluster("c0"), managed_cluster("c3", {"env": "prod"}, claims={REGION: "eu"})),
        managed_cluster("c4"),
        placement("p0", "ns1", n=2, predicates=[predicate({"matchLabels": {"env": "prod"}})]),
        placement(
            "p1",
            "ns1",
            n=2,
            mode="Exact",
            prioritizers=[],
            spread=[{**SPREADS[1], "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}],
        ),
    ]


def test_optimal_is_not_below_greedy_when_a_bystander_feeds_balance() -> None:
    # A placement that does not weigh Balance still moves the Balance of those that do, so it
    # takes part in the joint search. It was once solved apart: p1 moved to its own optimum
    # {c0, c3} (one name rank better) and p0 lost 200 Balance points on c3, objective 1780 against
    # greedy's 3379 (p0 {c3}, p1 {c0, c4}).
    greedy = run(Hub(bystander_hub()), GREEDY)
    optimal = run(Hub(bystander_hub()), OPTIMAL)
    assert optimal.summary["objective"] >= greedy.summary["objective"]
