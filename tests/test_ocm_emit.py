"""adapters.ocm.emit from hand-made results: decision groups, paging, deletions, conditions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adapters.ocm import api as ocm
from model import Choice, RequestResult, Result, SolveStats
from tests.fixtures.ocm import (
    GROUP_INDEX_LABEL,
    GROUP_NAME_LABEL,
    NOW,
    PLACEMENT_LABEL,
    V1BETA1,
    ago,
    binding,
    cluster_set,
    decision,
    group,
    hub,
    load,
    managed_cluster,
    placement,
    toleration,
)


def emit(objects: Sequence[dict], chosen: Mapping[str, Sequence[str]]):
    """Load `objects` and emit as if the solver chose `chosen` (request key -> cluster names)."""
    batch, context = load(objects)
    requests = tuple(
        RequestResult(request=r.key, selected=tuple(Choice(c) for c in chosen.get(r.key, ())))
        for r in batch.requests
    )
    return ocm.emit(context, Result(requests, SolveStats(mode="greedy", status="GREEDY")))


def by_kind(emitted, kind):
    return [o for o in emitted.apply if o["kind"] == kind]


def groups_of(emitted):
    """(name, [decision object names], clusterCount) of each status group, and each object's clusters."""
    (p,) = by_kind(emitted, "Placement")
    status = [
        (g["decisionGroupIndex"], g["decisionGroupName"], g["decisions"], g["clusterCount"])
        for g in p["status"].get("decisionGroups", [])
    ]
    objects = {
        o["metadata"]["name"]: (
            o["metadata"]["labels"][GROUP_NAME_LABEL],
            o["metadata"]["labels"][GROUP_INDEX_LABEL],
            [d["clusterName"] for d in o["status"]["decisions"]],
        )
        for o in by_kind(emitted, "PlacementDecision")
    }
    return status, objects


CLOUDS = [
    managed_cluster("c1", {"cloud": "Amazon"}),
    managed_cluster("c2", {"cloud": "Amazon"}),
    managed_cluster("c3", {"cloud": "Azure"}),
    managed_cluster("c4", {"cloud": "Azure"}),
]


def test_canary_group_by_percentage():
    objects = hub(
        *CLOUDS, placement("placement1", groups=[group("canary", {"cloud": "Azure"})], per_group="25%")
    )
    status, objects_ = groups_of(emit(objects, {"ns1/placement1": ["c1", "c2", "c3", "c4"]}))
    assert status == [
        (0, "canary", ["placement1-decision-1"], 1),
        (1, "canary", ["placement1-decision-2"], 1),
        (2, "", ["placement1-decision-3"], 1),
        (3, "", ["placement1-decision-4"], 1),
    ]
    assert objects_ == {
        "placement1-decision-1": ("canary", "0", ["c3"]),
        "placement1-decision-2": ("canary", "1", ["c4"]),
        "placement1-decision-3": ("", "2", ["c1"]),
        "placement1-decision-4": ("", "3", ["c2"]),
    }


def test_groups_in_spec_order_with_the_default_size():
    objects = hub(
        *CLOUDS,
        placement("p", groups=[group("group1", {"cloud": "Amazon"}), group("group2", {"cloud": "Azure"})]),
    )
    status, _ = groups_of(emit(objects, {"ns1/p": ["c3", "c2", "c1"]}))
    assert status == [(0, "group1", ["p-decision-1"], 2), (1, "group2", ["p-decision-2"], 1)]


def test_first_matching_group_wins():
    objects = hub(*CLOUDS, placement("p", groups=[group("all1"), group("amazon", {"cloud": "Amazon"})]))
    status, _ = groups_of(emit(objects, {"ns1/p": ["c1", "c2", "c3"]}))
    assert status == [(0, "all1", ["p-decision-1"], 3)]


def test_percentage_rounds_up():
    objects = hub(*CLOUDS, placement("p", per_group="25%"))
    status, _ = groups_of(emit(objects, {"ns1/p": ["c1", "c2", "c3"]}))
    assert [s[3] for s in status] == [1, 1, 1]


def test_groups_by_count():
    clusters = [managed_cluster(f"k{i}", {"canary": "true"} if i < 2 else {}) for i in range(5)]
    objects = hub(*clusters, placement("p", groups=[group("canary", {"canary": "true"})], per_group=2))
    status, objects_ = groups_of(emit(objects, {"ns1/p": [f"k{i}" for i in range(5)]}))
    assert [(s[1], s[3]) for s in status] == [("canary", 2), ("", 2), ("", 1)]
    assert objects_["p-decision-3"] == ("", "2", ["k4"])
    # one canary and one other cluster gone
    status, _ = groups_of(emit(objects, {"ns1/p": ["k1", "k2", "k3"]}))
    assert [(s[1], s[3]) for s in status] == [("canary", 1), ("", 2)]


def test_count_zero_or_too_large_means_everything():
    for per_group in (0, -3, 50):
        status, _ = groups_of(
            emit(hub(*CLOUDS, placement("p", per_group=per_group)), {"ns1/p": ["c1", "c2"]})
        )
        assert [s[3] for s in status] == [2]


def test_101_clusters_paging():
    names = [f"cluster{i}" for i in range(1, 102)]
    objects = hub(*[managed_cluster(c) for c in names], placement("p"))
    emitted = emit(objects, {"ns1/p": names})
    status, objects_ = groups_of(emitted)
    assert status == [(0, "", ["p-decision-1", "p-decision-2"], 101)]
    assert len(objects_["p-decision-1"][2]) == 100
    assert objects_["p-decision-2"] == ("", "0", ["cluster99"])
    assert objects_["p-decision-1"][2] == sorted(names)[:100]
    (p,) = by_kind(emitted, "Placement")
    assert p["status"]["numberOfSelectedClusters"] == 101


def test_decision_object_shape_and_surplus_deletion():
    old = decision("p", 1, ["c1"])
    old["metadata"]["annotations"] = {"note": "kept"}
    objects = hub(
        *CLOUDS,
        placement("p", uid="uid-p"),
        old,
        decision("p", 2, ["c2"]),
        decision("p", 3, ["c3"]),
        decision("q", 1, ["c3"]),  # another placement's
    )
    emitted = emit(objects, {"ns1/p": ["c2", "c1"]})
    (d,) = by_kind(emitted, "PlacementDecision")
    assert d == {
        "apiVersion": V1BETA1,
        "kind": "PlacementDecision",
        "metadata": {
            "name": "p-decision-1",
            "namespace": "ns1",
            "labels": {PLACEMENT_LABEL: "p", GROUP_NAME_LABEL: "", GROUP_INDEX_LABEL: "0"},
            "annotations": {"note": "kept"},
            "ownerReferences": [
                {
                    "apiVersion": V1BETA1,
                    "kind": "Placement",
                    "name": "p",
                    "uid": "uid-p",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "status": {"decisions": [{"clusterName": "c1", "reason": ""}, {"clusterName": "c2", "reason": ""}]},
    }
    assert emitted.delete == [
        {"apiVersion": V1BETA1, "kind": "PlacementDecision", "namespace": "ns1", "name": f"p-decision-{k}"}
        for k in (2, 3)
    ]
    assert [o["kind"] for o in emitted.apply] == ["PlacementDecision", "Placement"]


def test_empty_decision_object_when_nothing_is_selected():
    emitted = emit(hub(*CLOUDS, placement("p", n=0)), {})
    status, objects_ = groups_of(emitted)
    assert status == [(0, "", ["p-decision-1"], 0)]
    assert objects_ == {"p-decision-1": ("", "0", [])}
    (p,) = by_kind(emitted, "Placement")
    assert p["status"]["numberOfSelectedClusters"] == 0


def conditions(emitted, name="p"):
    (p,) = [o for o in by_kind(emitted, "Placement") if o["metadata"]["name"] == name]
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in p["status"]["conditions"]}


def test_satisfied_rows_in_order():
    no_binding = emit([cluster_set("global"), managed_cluster("c1"), placement("p")], {})
    assert conditions(no_binding)["PlacementSatisfied"] == (
        "False",
        "NoManagedClusterSetBindings",
        "No valid ManagedClusterSetBindings found in placement namespace",
    )
    no_intersection = emit(hub(managed_cluster("c1"), placement("p", cluster_sets=["b", "a"])), {})
    assert conditions(no_intersection)["PlacementSatisfied"] == (
        "False",
        "NoIntersection",
        "None of ManagedClusterSets [b,a] is bound to placement namespace",
    )
    empty = [cluster_set("s2", {"matchLabels": {"x": "y"}}), cluster_set("s1", exclusive=True)]
    empty += [binding("s2"), binding("s1"), managed_cluster("c1"), placement("p")]
    assert conditions(emit(empty, {}))["PlacementSatisfied"] == (
        "False",
        "AllManagedClusterSetsEmpty",
        "All ManagedClusterSets [s1,s2] have no member ManagedCluster",
    )
    none = emit(hub(*CLOUDS, placement("p", n=2)), {})
    assert conditions(none)["PlacementSatisfied"] == (
        "False",
        "NoManagedClusterMatched",
        "No ManagedCluster matches any of the cluster predicate",
    )
    all_ = emit(hub(*CLOUDS, placement("p", n=2)), {"ns1/p": ["c1", "c2"]})
    assert conditions(all_)["PlacementSatisfied"] == (
        "True",
        "AllDecisionsScheduled",
        "All cluster decisions scheduled",
    )
    assert conditions(all_)["PlacementMisconfigured"] == (
        "False",
        "Succeedconfigured",
        "Placement configurations check pass",
    )
    short = emit(hub(*CLOUDS, placement("p", n=5)), {"ns1/p": ["c1", "c2"]})
    assert conditions(short)["PlacementSatisfied"] == (
        "False",
        "NotAllDecisionsScheduled",
        "3 cluster decisions unscheduled",
    )
    every = emit(hub(*CLOUDS, placement("p")), {"ns1/p": ["c1"]})
    assert conditions(every)["PlacementSatisfied"][1] == "AllDecisionsScheduled"


def test_misconfigured_placement_gets_one_empty_decision():
    objects = hub(
        *CLOUDS,
        placement("p", tolerations=[toleration()]),
        decision("p", 1, ["c1"]),
        decision("p", 2, ["c2"]),
    )
    emitted = emit(objects, {})
    _, objects_ = groups_of(emitted)
    assert objects_ == {"p-decision-1": ("", "0", [])}
    assert [d["name"] for d in emitted.delete] == ["p-decision-2"]
    assert conditions(emitted) == {
        "PlacementMisconfigured": (
            "True",
            "Misconfigured",
            "TaintToleration:If the key is empty, operator must be Exists.",
        ),
        "PlacementSatisfied": (
            "False",
            "NoManagedClusterMatched",
            "No ManagedCluster matches any of the cluster predicate",
        ),
    }


def test_group_misconfiguration_writes_no_decisions_but_counts_them():
    objects = hub(*CLOUDS, placement("p", per_group="2"), decision("p", 1, ["c1"]))
    emitted = emit(objects, {"ns1/p": ["c1", "c2"]})
    assert by_kind(emitted, "PlacementDecision") == []
    assert [d["name"] for d in emitted.delete] == ["p-decision-1"]
    (p,) = by_kind(emitted, "Placement")
    assert p["status"]["numberOfSelectedClusters"] == 2
    assert "decisionGroups" not in p["status"]
    assert conditions(emitted)["PlacementMisconfigured"] == (
        "True",
        "Misconfigured",
        ":2 invalid type: string is not a percentage",
    )
    assert conditions(emitted)["PlacementSatisfied"][1] == "AllDecisionsScheduled"


def test_transition_times_and_server_fields():
    previous = {
        "conditions": [
            {"type": "Other", "status": "True", "lastTransitionTime": ago(60), "reason": "X", "message": ""},
            {
                "type": "PlacementSatisfied",
                "status": "True",
                "lastTransitionTime": ago(30),
                "reason": "AllDecisionsScheduled",
                "message": "All cluster decisions scheduled",
            },
            {
                "type": "PlacementMisconfigured",
                "status": "True",
                "lastTransitionTime": ago(30),
                "reason": "Misconfigured",
                "message": "x",
            },
        ],
        "lastScoreUpdateTime": ago(5),
    }
    emitted = emit(hub(*CLOUDS, placement("p", n=1, status=previous)), {"ns1/p": ["c1"]})
    (p,) = by_kind(emitted, "Placement")
    assert "resourceVersion" not in p["metadata"]
    assert p["status"]["lastScoreUpdateTime"] == ago(5)
    assert [(c["type"], c["lastTransitionTime"]) for c in p["status"]["conditions"]] == [
        ("Other", ago(60)),
        ("PlacementSatisfied", ago(30)),  # status unchanged: kept
        ("PlacementMisconfigured", NOW),  # True -> False
    ]


def test_placements_sorted_and_disabled_ones_untouched():
    objects = hub(
        *CLOUDS,
        binding("global", "ns0"),
        placement("z"),
        placement("a", "ns0"),
        placement(
            "off", annotations={"cluster.open-cluster-management.io/experimental-scheduling-disable": "true"}
        ),
        decision("off", 1, ["c1"]),
    )
    emitted = emit(objects, {"ns1/z": ["c1"], "ns0/a": ["c2"]})
    assert [(o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in emitted.apply] == [
        ("PlacementDecision", "ns0", "a-decision-1"),
        ("Placement", "ns0", "a"),
        ("PlacementDecision", "ns1", "z-decision-1"),
        ("Placement", "ns1", "z"),
    ]
    assert emitted.delete == []
