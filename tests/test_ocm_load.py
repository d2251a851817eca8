"""adapters.ocm.load: what the batch holds for each OCM field and rule, bad input, misconfiguration."""

from __future__ import annotations

from datetime import datetime

import pytest

from adapters.errors import InputError
from adapters.ocm.load import cel_trait
from model import (
    ClusterTerm,
    ExistingDecision,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    Preference,
    PropertySorter,
    SelectionMode,
    SpreadConstraint,
    Taint,
    TieBreak,
    Toleration,
    TolerationOperator,
    parse_quantity,
)
from tests.fixtures.ocm import (
    CLUSTERSET_LABEL,
    DISABLE,
    NOW_TIME,
    UNAVAILABLE,
    addon,
    ago,
    binding,
    builtin,
    cluster_set,
    decision,
    group,
    hub,
    later,
    load,
    managed_cluster,
    placement,
    predicate,
    score,
    taint,
    toleration,
)


def cluster_of(objects, name):
    batch, _ = load(objects)
    return {c.name: c for c in batch.clusters}[name]


def request_of(objects, key="ns1/p"):
    batch, _ = load(objects)
    return {r.key: r for r in batch.requests}[key]


def misconfigured(objects, key="ns1/p"):
    batch, context = load(objects)
    assert key not in {r.key for r in batch.requests}
    return context.placements[key].misconfigured


def input_error(objects) -> InputError:
    with pytest.raises(InputError) as caught:
        load(objects)
    return caught.value


# ------------------------------------------------------------------------------------- clusters


def test_properties_need_both_allocatable_and_capacity():
    c = cluster_of(
        hub(
            managed_cluster(
                "a",
                allocatable={"cpu": "10", "memory": "16Gi", "pods": "110"},
                capacity={"cpu": "12", "pods": "110"},
            )
        ),
        "a",
    )
    assert c.properties == {"cpu": parse_quantity("10")}  # memory lacks a capacity, pods is not read


def test_bad_quantity_names_object_and_field():
    err = input_error(hub(managed_cluster("a", allocatable={"cpu": "ten"}, capacity={"cpu": "1"})))
    assert err.where == "ManagedCluster/a" and err.field == "status.allocatable.cpu"


def test_claims_labels_and_terminating_clusters():
    objects = hub(
        managed_cluster("a", {"env": "prod"}, claims={"region": "eu", "zone": "eu-1"}),
        managed_cluster("gone", terminating=True),
    )
    batch, _ = load(objects)
    assert [c.name for c in batch.clusters] == ["a"]
    assert batch.clusters[0].claims == {"region": "eu", "zone": "eu-1"}
    assert batch.clusters[0].labels == {"env": "prod"}


def test_taints_effects_and_times():
    c = cluster_of(
        hub(
            managed_cluster(
                "a",
                taints=[
                    taint("gpu", value="yes", added=ago(10)),
                    taint("soft", "PreferNoSelect"),
                    taint("fresh", "NoSelectIfNew", added=None),
                ],
            )
        ),
        "a",
    )
    assert c.taints == (
        Taint("gpu", "yes", "NoSelect", added=datetime.fromisoformat(ago(10))),
        Taint("fresh", "", "NoSelectIfNew", added=None, new_only=True),
    )


@pytest.mark.parametrize("available", ["True", "False", "Unknown", None])
def test_taints_are_spec_taints_only_whatever_the_available_condition(available):
    # Upstream's scheduler reads spec.taints; the registration controller writes the built-in
    # taints there. A cluster without them is selectable, whatever its conditions say.
    assert cluster_of(hub(managed_cluster("a", available=available)), "a").taints == ()
    tainted = managed_cluster("a", available=available, taints=[taint(UNAVAILABLE, added=ago(3))])
    c = cluster_of(hub(tainted), "a")
    assert c.taints == (Taint(UNAVAILABLE, "", "NoSelect", added=datetime.fromisoformat(ago(3))),)


def test_bad_taint_effect_is_input_error():
    err = input_error(hub(managed_cluster("a", taints=[taint("k", "NoSchedule")])))
    assert err.where == "ManagedCluster/a" and err.field == "spec.taints[0].effect"


def test_set_traits_exclusive_and_label_selector():
    objects = [
        cluster_set("dev", exclusive=True),
        cluster_set("prod", {"matchLabels": {"env": "prod"}}),
        cluster_set("everything"),
        managed_cluster("a", {CLUSTERSET_LABEL: "dev"}),
        managed_cluster("b", {"env": "prod"}),
    ]
    batch, _ = load(objects)
    traits = {c.name: c.traits for c in batch.clusters}
    assert traits == {
        "a": frozenset({"set:dev", "set:everything"}),
        "b": frozenset({"set:prod", "set:everything"}),
    }


def test_bad_set_selector_type_is_input_error():
    bad = cluster_set("s")
    bad["spec"]["clusterSelector"]["selectorType"] = "Other"
    err = input_error([bad])
    assert err.where == "ManagedClusterSet/s" and err.field == "spec.clusterSelector.selectorType"


def test_binding_name_must_equal_its_set():
    err = input_error([cluster_set("a"), binding("a", target="b")])
    assert err.where == "ManagedClusterSetBinding/ns1/a" and err.field == "spec.clusterSet"


def test_scores_validity():
    objects = hub(
        managed_cluster("a"),
        managed_cluster("b"),
        managed_cluster("c"),
        score("a", "demo", {"cpu": 30, "mem": 5}),
        score("b", "demo", {"cpu": 40}, valid_until=NOW_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")),  # still valid
        score("c", "demo", {"cpu": 50}, valid_until=ago(0.5)),  # expired
        score("c", "other", {"x": 1, "y": 2}, valid_until=later(5)),
    )
    batch, _ = load(objects)
    scores = {c.name: dict(c.scores) for c in batch.clusters}
    assert scores == {
        "a": {"addon/demo/cpu": 30, "addon/demo/mem": 5},
        "b": {"addon/demo/cpu": 40},
        "c": {"addon/other/x": 1, "addon/other/y": 2},
    }


def test_duplicate_score_name_last_wins_and_range_checked():
    obj = score("a", "demo", {})
    obj["status"]["scores"] = [{"name": "s", "value": 1}, {"name": "s", "value": 9}]
    assert cluster_of(hub(managed_cluster("a"), obj), "a").scores == {"addon/demo/s": 9}
    err = input_error(hub(managed_cluster("a"), score("a", "demo", {"s": 101})))
    assert err.where == "AddOnPlacementScore/a/demo" and err.field == "status.scores[0].value"


def test_load_counts_decisions_of_placements_outside_the_batch():
    objects = hub(
        managed_cluster("a"),
        managed_cluster("b"),
        placement("p"),
        placement("off", annotations={DISABLE: "true"}),
        decision("p", 1, ["a"]),  # in the batch: the solver counts it
        decision("off", 1, ["a", "b"]),  # disabled: counted
        decision("gone", 1, ["a"], namespace="ns2"),  # no such placement: counted
    )
    batch, context = load(objects)
    assert {c.name: c.load for c in batch.clusters} == {"a": 2, "b": 1}
    assert set(context.placements) == {"ns1/p"}


def test_deleting_placement_is_skipped():
    batch, context = load(hub(managed_cluster("a"), placement("p", deleting=True)))
    assert batch.requests == () and context.placements == {}


def test_a_placement_named_past_a_label_value_is_refused():
    """Upstream labels each PlacementDecision with its Placement's name and lists them by that
    label (ocm pkg/placement/controllers/scheduling/scheduling_controller.go, generateDecision and
    bind): over 63 characters the API server refuses the create and labels.NewRequirement refuses
    the selector, so every sync fails before the status is written; no webhook or CRD rule refuses
    the name itself (a custom resource's name may be a 253-character subdomain). Bad input here,
    as a set upstream cannot list is. Before, the decision was written with a label the API
    server refuses."""
    err = input_error(hub(managed_cluster("a"), placement("q" * 64, n=1)))
    assert err.where == f"Placement/ns1/{'q' * 64}" and err.field == "metadata.name"
    assert "no more than 63 characters" in str(err)


def test_a_placement_named_as_long_as_a_label_value_is_taken():
    batch, context = load(hub(managed_cluster("a"), placement("q" * 63, n=1)))
    assert [r.key for r in batch.requests] == [f"ns1/{'q' * 63}"]


@pytest.mark.parametrize("left_alone", [{"deleting": True}, {"annotations": {DISABLE: "true"}}])
def test_a_long_named_placement_upstream_leaves_alone_is_skipped(left_alone):
    """A deleting or disabled Placement returns before upstream's bind: its name is never a label."""
    batch, context = load(hub(managed_cluster("a"), placement("q" * 64, **left_alone)))
    assert batch.requests == () and context.placements == {}


# ------------------------------------------------------------------------------------- requests


def test_default_request():
    r = request_of(
        hub(managed_cluster("a"), placement("p"), decision("p", 1, ["b", "a"]), decision("p", 2, ["a"]))
    )
    assert r.mode is SelectionMode.ALL
    assert r.required == ()
    assert r.preferences == (Preference(1, balance=True), Preference(1, held=True))
    assert r.scope == ("set:global",)
    assert r.existing == (ExistingDecision("a", current=False), ExistingDecision("b", current=False))
    assert r.tie_break is TieBreak.SMALLER_NAME and r.prefer_held is False


def test_number_of_clusters():
    assert request_of(hub(placement("p", n=3))).mode is SelectionMode.N
    assert request_of(hub(placement("p", n=3))).count == 3
    assert request_of(hub(placement("p", n=0))).count == 0


def test_predicates_become_ored_terms():
    r = request_of(
        hub(
            placement(
                "p",
                predicates=[
                    predicate(
                        {"matchLabels": {"env": "prod"}}, claims=[{"key": "region", "operator": "Exists"}]
                    ),
                    predicate({}),
                ],
            )
        )
    )
    assert r.required == (
        ClusterTerm(
            labels=LabelSelector((("env", "prod"),)),
            claims=LabelSelector((), (LabelRequirement("region", LabelOperator.EXISTS),)),
        ),
        ClusterTerm(),
    )


def test_prioritizers_additive_exact_and_weights():
    additive = request_of(
        hub(
            placement(
                "p",
                prioritizers=[
                    builtin("Balance", 3),
                    builtin("Steady", 0),
                    builtin("ResourceAllocatableCPU", -2),
                    addon("demo", "cpu", 5),
                    addon("demo", "cpu", 1),  # an addOn coordinate never overrides another upstream
                    builtin("Spread", 0),  # unknown, but disabled
                ],
            )
        )
    )
    assert additive.preferences == (
        Preference(3, balance=True),
        Preference(-2, sorter=PropertySorter("cpu", ascending=False, centered=True)),
        Preference(5, external="addon/demo/cpu"),
        Preference(1, external="addon/demo/cpu"),
    )
    exact = request_of(hub(placement("p", mode="Exact", prioritizers=[builtin("ResourceAllocatableMemory")])))
    assert exact.preferences == (
        Preference(1, sorter=PropertySorter("memory", ascending=False, centered=True)),
    )
    assert request_of(hub(placement("p", mode="Exact"))).preferences == ()
    assert request_of(hub(placement("p", mode=""))).preferences == (
        Preference(1, balance=True),
        Preference(1, held=True),
    )


def test_tolerations_and_spread():
    r = request_of(
        hub(
            managed_cluster("a"),
            placement(
                "p",
                tolerations=[
                    toleration("k", value="v", effect="NoSelect", seconds=300),
                    toleration("u", "Exists"),
                    toleration("x", "Greater"),  # never matches upstream: left out
                ],
                spread=[
                    {"topologyKey": "zone", "topologyKeyType": "Label"},
                    {
                        "topologyKey": "region",
                        "topologyKeyType": "Claim",
                        "maxSkew": 2,
                        "whenUnsatisfiable": "DoNotSchedule",
                    },
                ],
            ),
        )
    )
    assert r.tolerations == (
        Toleration("k", TolerationOperator.EQUAL, "v", "NoSelect", 300),
        Toleration("u", TolerationOperator.EXISTS),
    )
    assert r.spread == (
        SpreadConstraint("zone", 1, hard=False, claims=False),
        SpreadConstraint("region", 2, hard=True, claims=True),
    )


def test_scope_intersects_bound_sets_with_spec():
    objects = [
        cluster_set("a"),
        cluster_set("b"),
        cluster_set("c"),
        binding("a"),
        binding("b"),
        binding("missing"),  # its set does not exist: ignored
        managed_cluster("x"),
        placement("p", cluster_sets=["b", "c"]),
    ]
    batch, context = load(objects)
    assert batch.requests[0].scope == ("set:b",)
    p = context.placements["ns1/p"]
    assert (p.bindings, p.eligible, p.available) == (2, ("b",), 1)


# ------------------------------------------------------------------------------ misconfiguration


def test_bad_toleration_is_misconfigured_when_a_cluster_passes():
    assert (
        misconfigured(hub(managed_cluster("a"), placement("p", tolerations=[toleration(operator="Equal")])))
        == "TaintToleration:If the key is empty, operator must be Exists."
    )
    assert (
        misconfigured(
            hub(managed_cluster("a"), placement("p", tolerations=[toleration("k", "Exists", value="v")]))
        )
        == "TaintToleration:If the operator is Exists, the value should be empty."
    )
    # No cluster passes the predicates: upstream's filter never looks at the tolerations.
    objects = hub(
        managed_cluster("a"),
        placement("p", predicates=[predicate({"matchLabels": {"x": "y"}})], tolerations=[toleration()]),
    )
    batch, context = load(objects)
    assert [r.key for r in batch.requests] == ["ns1/p"] and context.placements["ns1/p"].misconfigured is None


def test_bad_toleration_is_judged_on_the_clusters_a_cel_predicate_passes():
    """A placement whose tolerations upstream refuses is judged once the CEL verdicts are known
    (the other placements' requests are made before them): misconfigured where a cluster passes
    its CEL predicate, not where none does; the placements beside it as ever."""
    pytest.importorskip("adapters.ocm.cel")
    bad = [toleration(operator="Equal")]
    objects = hub(
        managed_cluster("a", {"env": "prod"}),
        managed_cluster("b", {"env": "dev"}),
        placement(
            "some",
            predicates=[predicate(cel=['managedCluster.metadata.labels["env"] == "prod"'])],
            tolerations=bad,
        ),
        placement(
            "none",
            predicates=[predicate(cel=['managedCluster.metadata.labels["env"] == "qa"'])],
            tolerations=bad,
        ),
        placement("fine", predicates=[predicate(cel=['managedCluster.metadata.labels["env"] == "qa"'])]),
    )
    batch, context = load(objects)
    assert (
        context.placements["ns1/some"].misconfigured
        == "TaintToleration:If the key is empty, operator must be Exists."
    )
    assert context.placements["ns1/none"].misconfigured is None
    assert context.placements["ns1/fine"].misconfigured is None
    assert [r.key for r in batch.requests] == ["ns1/fine", "ns1/none"]


def test_bad_selectors_are_misconfigured():
    bad_op = predicate({"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]})
    assert misconfigured(hub(managed_cluster("a"), placement("p", predicates=[bad_op]))) == (
        'Predicate:"Gt" is not a valid label selector operator'
    )
    empty_in = predicate(claims=[{"key": "k", "operator": "In"}])
    assert misconfigured(hub(managed_cluster("a"), placement("p", predicates=[empty_in]))) == (
        "Predicate:values: Invalid value: []string(nil): "
        "for 'in', 'notin' operators, values set can't be empty"
    )
    # Without clusters upstream builds no selector, so nothing is misconfigured.
    batch, _ = load(hub(placement("p", predicates=[bad_op])))
    assert [r.key for r in batch.requests] == ["ns1/p"]


def test_prioritizer_misconfiguration():
    unknown = misconfigured(hub(placement("p", prioritizers=[builtin("Spread", 2)])))
    assert unknown == ":incorrect builtin prioritizer: Spread"
    no_add_on = misconfigured(
        hub(placement("p", prioritizers=[{"scoreCoordinate": {"type": "AddOn"}, "weight": 1}]))
    )
    assert no_add_on == ":addOn should not be empty"


def test_group_misconfiguration_is_kept_for_emit():
    _, context = load(hub(placement("p", per_group="3")))
    assert context.placements["ns1/p"].groups.error == "3 invalid type: string is not a percentage"
    bad = group("g1")
    bad["groupClusterSelector"] = {"labelSelector": {"matchExpressions": [{"key": "k", "operator": "Bad"}]}}
    _, context = load(hub(placement("p", groups=[bad])))
    assert context.placements["ns1/p"].groups.error == '"Bad" is not a valid label selector operator'


def test_cel_traits_and_compile_errors():
    pytest.importorskip("adapters.ocm.cel")
    expression = 'managedCluster.metadata.labels["env"] == "prod"'
    objects = hub(
        managed_cluster("a", {"env": "prod"}),
        managed_cluster("b", {"env": "dev"}),
        placement("p", predicates=[predicate(cel=[expression])]),
    )
    batch, _ = load(objects)
    trait = cel_trait(expression)
    assert trait in batch.clusters[0].traits and trait not in batch.clusters[1].traits
    assert batch.requests[0].required == (ClusterTerm(traits=(trait,)),)
    broken = misconfigured(hub(managed_cluster("a"), placement("p", predicates=[predicate(cel=["1 +"])])))
    assert broken.startswith("Predicate:compilation failed: ")


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"prioritizers": [builtin("Balance", 11)]}, "spec.prioritizerPolicy.configurations[0].weight"),
        ({"prioritizers": [builtin("Balance", -11)]}, "spec.prioritizerPolicy.configurations[0].weight"),
        ({"n": -1}, "spec.numberOfClusters"),
        ({"prioritizers": [{"weight": 1}]}, "spec.prioritizerPolicy.configurations[0].scoreCoordinate"),
        (
            {"prioritizers": [{"scoreCoordinate": {"type": "Other"}}]},
            "spec.prioritizerPolicy.configurations[0].scoreCoordinate.type",
        ),
        (
            {"spread": [{"topologyKey": "zone", "topologyKeyType": "Label", "maxSkew": 0}]},
            "spec.spreadPolicy.spreadConstraints[0].maxSkew",
        ),
        (
            {"spread": [{"topologyKey": "zone", "topologyKeyType": "Label"}] * 9},
            "spec.spreadPolicy.spreadConstraints",
        ),
        ({"per_group": "abc"}, "spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup"),
        ({"per_group": "0%"}, "spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup"),
        ({"tolerations": [toleration("k", effect="NoSchedule")]}, "spec.tolerations[0].effect"),
        (
            {"groups": [{"groupName": "-bad-", "groupClusterSelector": {}}]},
            "spec.decisionStrategy.groupStrategy.decisionGroups[0].groupName",
        ),
    ],
)
def test_crd_violations_are_input_errors(spec, field):
    err = input_error(hub(managed_cluster("a"), placement("p", **spec)))
    assert err.where == "Placement/ns1/p" and err.field == field


def test_wrong_types_are_input_errors():
    bad_label = managed_cluster("a")
    bad_label["metadata"]["labels"] = {"n": 1}
    err = input_error(hub(bad_label))
    assert err.where == "ManagedCluster/a" and err.field == "metadata.labels.n"
    p = placement("p")
    p["spec"]["predicates"] = {"not": "a list"}
    err = input_error(hub(p))
    assert err.field == "spec.predicates"


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_an_ocm_batch_explains_nothing_and_decides_as_one_that_explains(mode):
    """A PlacementDecision lists only the clusters selected (reason ""), so OCM's batch asks for no
    explanation of those left out (explain_limit 0): the same decisions, scores, releases and
    objective as a batch explaining 20 a request, without the entries."""
    from dataclasses import replace

    from adapters.generate.common import DEFAULT_NOW
    from adapters.generate.hubs import generate
    from solver import SolveOptions, solve

    now = datetime.fromisoformat(DEFAULT_NOW)
    batch, _ = load(generate("ocm", 60, 80, seed=5, now=now), now=now)
    assert batch.explain_limit == 0
    options = SolveOptions(mode=mode, time_limit=120)
    plain, explained = solve(batch, options), solve(replace(batch, explain_limit=20), options)
    assert any(r.unselected for r in explained.requests)
    assert [replace(r, unselected=()) for r in explained.requests] == list(plain.requests)
    assert not any(r.unselected for r in plain.requests)
    assert (plain.stats.objective, plain.stats.bound, plain.stats.levels) == (
        explained.stats.objective,
        explained.stats.bound,
        explained.stats.levels,
    )
