"""End to end through the command line: fleets in, the objects the KubeFleet scheduler writes out.

Every expectation is computed by hand from /work/shared/semantics/fleet.md, in both modes where the
modes must agree (everything without topology spread), and in greedy mode for upstream's spread scores.
"""

from __future__ import annotations

import re

import pytest

from tests.fixtures.fleet import (
    ALLOCATABLE_CPU,
    AVAILABLE_CPU,
    AVAILABLE_MEMORY,
    MODES,
    NODE_COUNT,
    NOW,
    TOTAL_CPU,
    Written,
    as_json,
    crp,
    decision,
    member_cluster,
    not_picked_reason,
    pick_all,
    pick_fixed,
    pick_n,
    picked_reason,
    preferred,
    run_solve,
    spread,
    term,
    toleration,
)

UNSCHEDULABLE = "ClusterUnschedulable, "
AFFINITY = UNSCHEDULABLE + "cluster does not match with any of the required cluster affinity terms"
NOT_CONNECTED = "cluster is not connected to the fleet: "


def not_picked(cluster: str, affinity: int, spread_score: int) -> dict:
    return {
        "clusterName": cluster,
        "selected": False,
        "clusterScore": {"affinityScore": affinity, "priorityScore": spread_score},
        "reason": not_picked_reason(cluster, affinity, spread_score),
    }


def filtered(cluster: str, reason: str) -> dict:
    return {"clusterName": cluster, "selected": False, "reason": reason}


def taint_reason(key: str, value: str) -> str:
    return f"{UNSCHEDULABLE}taint &{{Key:{key} Value:{value} Effect:NoSchedule}} cannot be tolerated"


def spread_reason(key: str, skew: int = 1) -> str:
    return f'{UNSCHEDULABLE}violated doNotSchedule topology spread constraint "{key}" (max skew {skew})'


def scores(written: Written, crp_name: str) -> dict[str, tuple[int, int]]:
    """(affinity, topology spread) of every active binding, by cluster."""
    out = {}
    for cluster, b in written.active(crp_name).items():
        score = b["spec"]["clusterDecision"]["clusterScore"]
        out[cluster] = (score["affinityScore"], score["priorityScore"])
    return out


# ------------------------------------------------------------------------------------ eligibility

ELIGIBILITY_FLEET = [
    member_cluster("ok"),
    member_cluster("hb-boundary", heartbeat=5.0),  # exactly 5 minutes is not "older than"
    member_cluster("blip", healthy="False", health_changed=2),
    member_cluster("blip-boundary", healthy="Unknown", health_changed=5.0),
    member_cluster("leaving", leaving=True, heartbeat=60, joined="False"),
    member_cluster("no-agent", agent=False),
    member_cluster("stale", heartbeat=7.5, joined="False", healthy=None),
    member_cluster("stale-odd", heartbeat=10 + 20 / 60),
    member_cluster("no-heartbeat", heartbeat=None),
    member_cluster("not-joined", joined="False", healthy=None),
    member_cluster("joined-missing", joined=None),
    member_cluster("no-health", healthy=None),
    member_cluster("unhealthy", healthy="False", health_changed=12.5),
    member_cluster("unknown-health", healthy="Unknown", health_changed=6),
]
INELIGIBLE = {
    "leaving": "cluster has left the fleet",
    "no-agent": NOT_CONNECTED + "member agent not online yet",
    "stale": NOT_CONNECTED + "no recent heartbeat signals (last received 7.50 minutes ago)",
    "stale-odd": NOT_CONNECTED + "no recent heartbeat signals (last received 10.33 minutes ago)",
    # Go's time.Since saturates at the longest Duration for a zero time.
    "no-heartbeat": NOT_CONNECTED + "no recent heartbeat signals (last received 153722867.28 minutes ago)",
    "not-joined": NOT_CONNECTED + "member agent not joined yet",
    "joined-missing": NOT_CONNECTED + "member agent not joined yet",
    "no-health": NOT_CONNECTED + "health condition from member agent is not available",
    "unhealthy": NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 12.50 minutes ago)",
    "unknown-health": NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 6.00 minutes ago)",
}
ELIGIBLE = ["blip", "blip-boundary", "hb-boundary", "ok"]


@pytest.mark.parametrize("mode", MODES)
def test_eligibility_reasons_in_pick_all_status(tmp_path, mode):
    written = Written.solve(tmp_path, [*ELIGIBILITY_FLEET, crp("everywhere")], mode)
    assert written.chosen("everywhere") == ELIGIBLE
    expected = [decision(c, (0, 0)) for c in ELIGIBLE]  # new bindings, by name
    expected += [filtered(c, UNSCHEDULABLE + INELIGIBLE[c]) for c in sorted(INELIGIBLE)]
    assert written.targets("everywhere") == expected
    assert written.condition("everywhere")["status"] == "True"
    assert written.condition("everywhere")["message"].endswith("found 4 cluster(s)")


@pytest.mark.parametrize("mode", MODES)
def test_eligibility_reasons_in_pick_fixed_status(tmp_path, mode):
    names = ["unhealthy", "ok", "leaving", "stale", "blip"]
    written = Written.solve(tmp_path, [*ELIGIBILITY_FLEET, crp("fixed", pick_fixed(*names))], mode)
    assert written.chosen("fixed") == ["blip", "ok"]
    assert written.targets("fixed") == [
        decision("ok"),
        decision("blip"),
        *(
            filtered(c, f'Cluster "{c}" is not eligible for resource placement yet: {INELIGIBLE[c]}')
            for c in ("unhealthy", "leaving", "stale")
        ),
    ]


# ------------------------------------------------------------------------------ placement types

BASIC_FLEET = [
    *(member_cluster(f"cluster-{i}") for i in range(1, 8)),
    member_cluster("sick", healthy="False", health_changed=30),
]


@pytest.mark.parametrize("mode", MODES)
def test_pick_all_with_nil_policy(tmp_path, mode):
    written = Written.solve(tmp_path, [*BASIC_FLEET, crp("all", None, generation=4)], mode)
    names = [f"cluster-{i}" for i in range(1, 8)]
    assert written.chosen("all") == names
    snap = written.snapshot("all")
    assert snap["metadata"]["name"] == "all-0"
    assert "policy" not in snap["spec"]
    assert snap["metadata"]["annotations"] == {"kubernetes-fleet.io/CRP-generation": "4"}
    assert snap["status"]["observedCRPGeneration"] == 4
    assert written.targets("all") == [
        *(decision(c, (0, 0)) for c in names),
        filtered(
            "sick",
            UNSCHEDULABLE + NOT_CONNECTED + "unhealthy for a prolonged period of time "
            "(last transitioned 30.00 minutes ago)",
        ),
    ]
    assert written.condition("all") == {
        "type": "Scheduled",
        "status": "True",
        "reason": "SchedulingPolicyFulfilled",
        "message": "found all cluster needed as specified by the scheduling policy, found 7 cluster(s)",
        "observedGeneration": 1,
        "lastTransitionTime": NOW,
    }


@pytest.mark.parametrize("mode", MODES)
def test_pick_all_explicit_policy_equals_nil_policy_decisions(tmp_path, mode):
    written = Written.solve(tmp_path, [*BASIC_FLEET, crp("a", None), crp("b", pick_all())], mode)
    assert written.chosen("a") == written.chosen("b")
    assert written.targets("a") == written.targets("b")


@pytest.mark.parametrize("mode", MODES)
def test_pick_n_larger_name_wins_ties(tmp_path, mode):
    # The integration test: PickN(3) over cluster-1..7 picks cluster-5, 6 and 7.
    written = Written.solve(tmp_path, [*BASIC_FLEET, crp("three", pick_n(3))], mode)
    assert written.chosen("three") == ["cluster-5", "cluster-6", "cluster-7"]
    assert written.targets("three") == [
        decision("cluster-7", (0, 0)),
        decision("cluster-6", (0, 0)),
        decision("cluster-5", (0, 0)),
        *(not_picked(f"cluster-{i}", 0, 0) for i in (4, 3, 2, 1)),
        filtered(
            "sick",
            UNSCHEDULABLE + NOT_CONNECTED + "unhealthy for a prolonged period of time "
            "(last transitioned 30.00 minutes ago)",
        ),
    ]
    snap = written.snapshot("three")
    assert snap["metadata"]["annotations"]["kubernetes-fleet.io/number-of-clusters"] == "3"
    assert written.condition("three")["message"] == (
        "found all cluster needed as specified by the scheduling policy, found 3 cluster(s)"
    )


@pytest.mark.parametrize("mode", MODES)
def test_pick_n_zero(tmp_path, mode):
    written = Written.solve(tmp_path, [*BASIC_FLEET, crp("none", pick_n(0))], mode)
    assert written.bindings("none") == []
    snap = written.snapshot("none")
    assert "targetClusters" not in snap["status"]
    assert snap["metadata"]["annotations"]["kubernetes-fleet.io/number-of-clusters"] == "0"
    assert written.condition("none")["status"] == "True"
    assert written.condition("none")["message"].endswith("found 0 cluster(s)")


@pytest.mark.parametrize("mode", MODES)
def test_pick_n_unfulfilled(tmp_path, mode):
    written = Written.solve(tmp_path, [*BASIC_FLEET, crp("many", pick_n(9))], mode)
    assert len(written.chosen("many")) == 7
    condition = written.condition("many")
    assert (condition["status"], condition["reason"]) == ("False", "SchedulingPolicyUnfulfilled")
    assert condition["message"] == (
        "could not find all clusters needed as specified by the scheduling policy, found 7 cluster(s) instead"
    )


PICK_FIXED_FLEET = [
    member_cluster("alpha"),
    member_cluster("tainted", taints=[("dedicated", "gpu")], labels={"env": "dev"}),
    member_cluster("down", healthy="False", health_changed=10),
]


@pytest.mark.parametrize("mode", MODES)
def test_pick_fixed_valid_invalid_and_not_found(tmp_path, mode):
    names = ["ghost", "down", "tainted", "alpha"]
    written = Written.solve(tmp_path, [*PICK_FIXED_FLEET, crp("fixed", pick_fixed(*names))], mode)
    # Taints are never checked for PickFixed.
    assert written.chosen("fixed") == ["alpha", "tainted"]
    for cluster in ("alpha", "tainted"):
        b = written.binding("fixed", cluster)
        assert b["spec"]["clusterDecision"] == decision(cluster)
        assert "clusterScore" not in b["spec"]["clusterDecision"]
        assert b["spec"]["clusterDecision"]["reason"] == picked_reason(cluster)
    # Upstream order: valid (in clusterNames order), then invalid, then not found.
    assert written.targets("fixed") == [
        decision("tainted"),
        decision("alpha"),
        filtered(
            "down",
            'Cluster "down" is not eligible for resource placement yet: '
            + NOT_CONNECTED
            + "unhealthy for a prolonged period of time (last transitioned 10.00 minutes ago)",
        ),
        filtered("ghost", 'Specified cluster "ghost" is not found'),
    ]
    condition = written.condition("fixed")
    assert (condition["status"], condition["reason"]) == ("False", "SchedulingPolicyUnfulfilled")
    assert condition["message"] == (
        "could not find all clusters needed as specified by the scheduling policy, found 2 cluster(s) instead"
    )
    assert (
        "kubernetes-fleet.io/number-of-clusters" not in written.snapshot("fixed")["metadata"]["annotations"]
    )


@pytest.mark.parametrize("mode", MODES)
def test_pick_fixed_all_valid(tmp_path, mode):
    written = Written.solve(tmp_path, [*PICK_FIXED_FLEET, crp("fixed", pick_fixed("tainted", "alpha"))], mode)
    assert written.chosen("fixed") == ["alpha", "tainted"]
    condition = written.condition("fixed")
    assert (condition["status"], condition["reason"]) == ("True", "SchedulingPolicyFulfilled")
    assert condition["message"].endswith("found 2 cluster(s)")


# ---------------------------------------------------------------------------- required affinity

AFFINITY_FLEET = [
    member_cluster(
        "p1",
        {"env": "prod", "region": "east"},
        properties={NODE_COUNT: "4"},
        capacity={"cpu": "40", "memory": "128Gi"},
        allocatable={"cpu": "32", "memory": "120Gi"},
        available={"cpu": "19200m", "memory": "64Gi"},
    ),
    member_cluster(
        "p2",
        {"env": "prod", "region": "west"},
        properties={NODE_COUNT: "2"},
        capacity={"cpu": "20", "memory": "64Gi"},
        allocatable={"cpu": "16", "memory": "60Gi"},
        available={"cpu": "12", "memory": "32Gi"},
    ),
    member_cluster(
        "s1",
        {"env": "staging", "region": "west"},
        capacity={"cpu": "80"},
        allocatable={"cpu": "64"},
        available={"cpu": "2"},
    ),
    member_cluster("d1", {"env": "dev"}),  # no properties at all
    member_cluster("x"),
]
AFFINITY_NAMES = ["d1", "p1", "p2", "s1", "x"]

REQUIRED_CASES = {
    "ored-terms": ([term({"env": "prod"}), term({"region": "west"})], ["p1", "p2", "s1"]),
    "labels-and-properties": ([term({"env": "prod"}, properties=[(ALLOCATABLE_CPU, "Ge", "32")])], ["p1"]),
    "expressions": (
        [term(expressions=[("env", "In", ["prod", "dev"]), ("region", "NotIn", ["west"])])],
        ["d1", "p1"],
    ),
    "exists": ([term(expressions=[("region", "Exists", [])])], ["p1", "p2", "s1"]),
    "does-not-exist": ([term(expressions=[("region", "DoesNotExist", [])])], ["d1", "x"]),
    "total-from-capacity": ([term(properties=[(TOTAL_CPU, "Gt", "30")])], ["p1", "s1"]),
    "allocatable": ([term(properties=[(ALLOCATABLE_CPU, "Le", "32")])], ["p1", "p2"]),
    "available-millis": ([term(properties=[(AVAILABLE_CPU, "Gt", "19")])], ["p1"]),
    "available-equal": ([term(properties=[(AVAILABLE_CPU, "Eq", "19.2")])], ["p1"]),
    "available-memory": ([term(properties=[(AVAILABLE_MEMORY, "Lt", "40Gi")])], ["p2"]),
    "non-resource": ([term(properties=[(NODE_COUNT, "Ge", "3")])], ["p1"]),
    "missing-never-matches": ([term(properties=[(NODE_COUNT, "Ne", "100")])], ["p1", "p2"]),
    "unknown-property": ([term(properties=[("test.only/energy-efficiency-rating", "Ne", "0")])], []),
    "all-expressions-anded": (
        [term(properties=[(AVAILABLE_CPU, "Ge", "10"), (TOTAL_CPU, "Lt", "30")])],
        ["p2"],
    ),
    "or-of-properties": (
        [term(properties=[(AVAILABLE_CPU, "Lt", "5")]), term(properties=[(NODE_COUNT, "Eq", "2")])],
        ["p2", "s1"],
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(REQUIRED_CASES))
def test_required_affinity(tmp_path, mode, case):
    terms, expected = REQUIRED_CASES[case]
    written = Written.solve(tmp_path, [*AFFINITY_FLEET, crp("req", pick_all(required=terms))], mode)
    assert written.chosen("req") == expected
    assert written.reasons("req") == {c: AFFINITY for c in AFFINITY_NAMES if c not in expected}


@pytest.mark.parametrize("mode", MODES)
def test_required_affinity_pick_n(tmp_path, mode):
    policy = pick_n(5, required=[term({"env": "prod"}), term(properties=[(TOTAL_CPU, "Ge", "80")])])
    written = Written.solve(tmp_path, [*AFFINITY_FLEET, crp("req", policy)], mode)
    assert written.chosen("req") == ["p1", "p2", "s1"]
    assert written.targets("req")[3:] == [filtered("d1", AFFINITY), filtered("x", AFFINITY)]
    assert written.condition("req")["status"] == "False"


# --------------------------------------------------------------------------- preferred affinity


def node_fleet() -> list[dict]:
    """The integration tests' node counts: {1 (unhealthy), 2, 2, 2, 4, 6, 8, 8}."""
    counts = {"n1": "1", "n2a": "2", "n2b": "2", "n2c": "2", "n4": "4", "n6": "6", "n8a": "8", "n8b": "8"}
    return [
        member_cluster(
            name,
            properties={NODE_COUNT: value},
            **({"healthy": "False", "health_changed": 60} if name == "n1" else {}),
        )
        for name, value in counts.items()
    ]


N1_REASON = (
    UNSCHEDULABLE
    + NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 60.00 minutes ago)"
)


@pytest.mark.parametrize("mode", MODES)
def test_property_sorter_ascending_over_all_clusters(tmp_path, mode):
    policy = pick_n(3, prefer=[preferred(100, sort=NODE_COUNT, order="Ascending")])
    written = Written.solve(tmp_path, [*node_fleet(), crp("asc", policy)], mode)
    assert written.targets("asc") == [
        decision("n2c", (86, 0)),
        decision("n2b", (86, 0)),
        decision("n2a", (86, 0)),
        not_picked("n4", 57, 0),
        not_picked("n6", 29, 0),
        not_picked("n8b", 0, 0),
        not_picked("n8a", 0, 0),
        filtered("n1", N1_REASON),
    ]
    assert scores(written, "asc") == {"n2a": (86, 0), "n2b": (86, 0), "n2c": (86, 0)}


@pytest.mark.parametrize("mode", MODES)
def test_property_sorter_descending_over_all_clusters(tmp_path, mode):
    policy = pick_n(3, prefer=[preferred(100, sort=NODE_COUNT, order="Descending")])
    written = Written.solve(tmp_path, [*node_fleet(), crp("desc", policy)], mode)
    assert written.targets("desc") == [
        decision("n8b", (100, 0)),
        decision("n8a", (100, 0)),
        decision("n6", (71, 0)),
        not_picked("n4", 43, 0),
        not_picked("n2c", 14, 0),
        not_picked("n2b", 14, 0),
        not_picked("n2a", 14, 0),
        filtered("n1", N1_REASON),
    ]


RATING = "test.only/energy-efficiency-rating"


@pytest.mark.parametrize("mode", MODES)
def test_sorter_rounds_half_away_from_zero_per_term(tmp_path, mode):
    fleet = [member_cluster(f"r{v}", properties={RATING: str(v)}) for v in range(5)]
    policies = {
        # (v - 0) / 4 * 2: 0, .5, 1, 1.5, 2 -> 0, 1, 1, 2, 2 (half away from zero, not to even)
        "up": pick_n(5, prefer=[preferred(2, sort=RATING)]),
        "down": pick_n(5, prefer=[preferred(-2, sort=RATING)]),
        # Rounded per term, then summed: r1 = round(.5) + round(1.5) = 3, not round(2) = 2.
        "both": pick_n(5, prefer=[preferred(2, sort=RATING), preferred(2, sort=RATING, order="Ascending")]),
    }
    written = Written.solve(tmp_path, [*fleet, *(crp(k, p) for k, p in policies.items())], mode)
    assert scores(written, "up") == {"r0": (0, 0), "r1": (1, 0), "r2": (1, 0), "r3": (2, 0), "r4": (2, 0)}
    assert scores(written, "down") == {
        "r0": (0, 0),
        "r1": (-1, 0),
        "r2": (-1, 0),
        "r3": (-2, 0),
        "r4": (-2, 0),
    }
    assert scores(written, "both") == {"r0": (2, 0), "r1": (3, 0), "r2": (2, 0), "r3": (3, 0), "r4": (2, 0)}
    order = [t["clusterName"] for t in written.targets("both")]
    assert order == ["r3", "r1", "r4", "r2", "r0"]


@pytest.mark.parametrize("mode", MODES)
def test_sorter_range_includes_ineligible_and_filtered_clusters(tmp_path, mode):
    fleet = [
        member_cluster("a", {"env": "prod"}, properties={RATING: "2"}),
        member_cluster("b", {"env": "prod"}, properties={RATING: "4"}),
        member_cluster("c", {"env": "prod"}, properties={RATING: "6"}),
        member_cluster("no-prop", {"env": "prod"}),  # scores 0, and is not part of the range
        member_cluster("gone", {"env": "prod"}, properties={RATING: "10"}, leaving=True),
        member_cluster("sick", {"env": "prod"}, properties={RATING: "0"}, healthy="False", health_changed=9),
        member_cluster("staging", {"env": "staging"}, properties={RATING: "12"}),
    ]
    policy = pick_n(3, required=[term({"env": "prod"})], prefer=[preferred(100, sort=RATING)])
    written = Written.solve(tmp_path, [*fleet, crp("range", policy)], mode)
    # min 0 (sick), max 12 (staging): 2 -> 16.67, 4 -> 33.33, 6 -> 50
    assert scores(written, "range") == {"a": (17, 0), "b": (33, 0), "c": (50, 0)}
    assert written.targets("range")[3] == not_picked("no-prop", 0, 0)
    assert [t["clusterName"] for t in written.targets("range")[4:]] == ["gone", "sick", "staging"]


@pytest.mark.parametrize("mode", MODES)
def test_sorter_with_label_selector_and_equal_values(tmp_path, mode):
    fleet = [
        member_cluster("p-low", {"env": "prod"}, properties={RATING: "1", NODE_COUNT: "3"}),
        member_cluster("p-high", {"env": "prod"}, properties={RATING: "3", NODE_COUNT: "3"}),
        member_cluster("dev-top", {"env": "dev"}, properties={RATING: "5", NODE_COUNT: "3"}),
    ]
    policy = pick_n(
        3,
        prefer=[
            preferred(40, {"env": "prod"}, sort=RATING),  # the range spans dev-top too: 1..5
            preferred(100, sort=NODE_COUNT),  # min == max: 0 for everyone
        ],
    )
    written = Written.solve(tmp_path, [*fleet, crp("sel", policy)], mode)
    assert scores(written, "sel") == {"p-high": (20, 0), "p-low": (0, 0), "dev-top": (0, 0)}


@pytest.mark.parametrize("mode", MODES)
def test_label_weights_and_negative_weights(tmp_path, mode):
    fleet = [
        member_cluster("g1", {"tier": "gold", "env": "prod"}),
        member_cluster("g2", {"tier": "gold", "env": "dev"}),
        member_cluster("d1", {"env": "dev"}),
        member_cluster("p1", {"env": "prod"}),
        member_cluster("p2"),
    ]
    policy = pick_n(
        2,
        prefer=[
            preferred(30, {"tier": "gold"}),
            preferred(-20, {"env": "dev"}),
            preferred(0, {"env": "prod"}),
        ],
    )
    written = Written.solve(tmp_path, [*fleet, crp("w", policy)], mode)
    assert written.targets("w") == [
        decision("g1", (30, 0)),
        decision("g2", (10, 0)),
        not_picked("p2", 0, 0),
        not_picked("p1", 0, 0),
        not_picked("d1", -20, 0),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_pick_all_scores_are_zero(tmp_path, mode):
    fleet = [member_cluster("a", {"tier": "gold"}), member_cluster("b")]
    written = Written.solve(tmp_path, [*fleet, crp("all", pick_all())], mode)
    assert scores(written, "all") == {"a": (0, 0), "b": (0, 0)}


# ------------------------------------------------------------------------- taints and tolerations

TAINT_FLEET = [
    member_cluster("clean", {"env": "prod"}),
    member_cluster("t1", {"env": "prod"}, taints=[("k", "v")]),
    member_cluster("t2", {"env": "prod"}, taints=[("k", "")]),
    member_cluster("t3", {"env": "prod"}, taints=[("a", "1"), ("b", "2")]),
    member_cluster("t-sick", {"env": "prod"}, taints=[("k", "v")], healthy="False", health_changed=20),
    member_cluster("t-dev", {"env": "dev"}, taints=[("k", "v")]),
]
SICK = (
    UNSCHEDULABLE
    + NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 20.00 minutes ago)"
)

TOLERATION_CASES = {
    "none": (
        [],
        ["clean"],
        {"t1": taint_reason("k", "v"), "t2": taint_reason("k", ""), "t3": taint_reason("a", "1")},
    ),
    "first-of-two-tolerated": (
        [toleration("a", "1")],
        ["clean"],
        {"t1": taint_reason("k", "v"), "t2": taint_reason("k", ""), "t3": taint_reason("b", "2")},
    ),
    "exists-key": (
        [toleration("k", operator="Exists")],
        ["clean", "t1", "t2"],
        {"t3": taint_reason("a", "1")},
    ),
    "exists-everything": ([toleration(operator="Exists")], ["clean", "t1", "t2", "t3"], {}),
    "equal-wrong-value": (
        [toleration("k", "w")],
        ["clean"],
        {"t1": taint_reason("k", "v"), "t2": taint_reason("k", ""), "t3": taint_reason("a", "1")},
    ),
    "equal-empty-value": (
        [toleration("k")],
        ["clean", "t2"],
        {"t1": taint_reason("k", "v"), "t3": taint_reason("a", "1")},
    ),
    "equal-both": (
        [toleration("a", "1"), toleration("b", "2"), toleration("k", "v")],
        ["clean", "t1", "t3"],
        {"t2": taint_reason("k", "")},
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(TOLERATION_CASES))
def test_taints_and_tolerations(tmp_path, mode, case):
    tolerations, chosen, reasons = TOLERATION_CASES[case]
    required = [term({"env": "prod"})]
    objects = [
        *TAINT_FLEET,
        crp("all", pick_all(required=required, tolerations=tolerations)),
        crp("n", pick_n(6, required=required, tolerations=tolerations)),
    ]
    written = Written.solve(tmp_path, objects, mode)
    # Filter order: affinity, then eligibility, then taints.
    expected = {**reasons, "t-sick": SICK, "t-dev": AFFINITY}
    for name in ("all", "n"):
        assert written.chosen(name) == chosen
        assert written.reasons(name) == expected


@pytest.mark.parametrize("mode", MODES)
def test_taints_never_apply_to_pick_fixed(tmp_path, mode):
    written = Written.solve(tmp_path, [*TAINT_FLEET, crp("f", pick_fixed("t1", "t2", "t3", "t-dev"))], mode)
    assert written.chosen("f") == ["t-dev", "t1", "t2", "t3"]
    assert written.condition("f")["status"] == "True"


# ------------------------------------------------------------------------------- topology spread

SPREAD_A = [
    member_cluster("a1", {"zone": "a"}),
    member_cluster("a2", {"zone": "a"}),
    member_cluster("a3", {"zone": "a"}),
    member_cluster("b1", {"zone": "b"}),
    member_cluster("b2", {"zone": "b"}),
    member_cluster("nokey"),
]


@pytest.mark.parametrize("mode", MODES)
def test_spread_do_not_schedule_with_a_cluster_without_the_key(tmp_path, mode):
    written = Written.solve(tmp_path, [*SPREAD_A, crp("s", pick_n(3, spread_by=[spread("zone")]))], mode)
    assert written.chosen("s") == ["a3", "b2", "nokey"]
    assert written.condition("s")["status"] == "True"
    if mode == "greedy":
        # Cycle 1: keyless 0 beats -1 everywhere; 2: all equal, b2 by name; 3: zone a is the unique min.
        assert scores(written, "s") == {"nokey": (0, 0), "b2": (0, -1), "a3": (0, 1)}
        # The last cycle's report.
        assert written.targets("s")[3:] == [
            not_picked("a2", 0, 1),
            not_picked("a1", 0, 1),
            filtered("b1", spread_reason("zone")),
        ]


SPREAD_B = [
    member_cluster("a1", {"zone": "a"}, healthy="False", health_changed=60),  # holds zone a at 0
    member_cluster("b1", {"zone": "b"}),
    member_cluster("b2", {"zone": "b"}),
    member_cluster("b3", {"zone": "b"}),
]
A1_REASON = (
    UNSCHEDULABLE
    + NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 60.00 minutes ago)"
)


@pytest.mark.parametrize("mode", MODES)
def test_spread_schedule_anyway_scores_minus_1000(tmp_path, mode):
    policy = pick_n(2, spread_by=[spread("zone", when="ScheduleAnyway")])
    written = Written.solve(tmp_path, [*SPREAD_B, crp("s", policy)], mode)
    assert written.chosen("s") == ["b2", "b3"]
    assert written.condition("s")["status"] == "True"
    if mode == "greedy":
        assert scores(written, "s") == {"b3": (0, -1), "b2": (0, -1000)}
        targets = written.targets("s")
        assert sorted(targets[:2], key=lambda t: t["clusterName"]) == [
            decision("b2", (0, -1000)),
            decision("b3", (0, -1)),
        ]
        assert targets[2:] == [not_picked("b1", 0, -1000), filtered("a1", A1_REASON)]


@pytest.mark.parametrize("mode", MODES)
def test_spread_empty_domain_holds_the_minimum_down(tmp_path, mode):
    written = Written.solve(tmp_path, [*SPREAD_B, crp("s", pick_n(2, spread_by=[spread("zone")]))], mode)
    assert written.chosen("s") == ["b3"]
    condition = written.condition("s")
    assert (condition["status"], condition["reason"]) == ("False", "SchedulingPolicyUnfulfilled")
    assert condition["message"].endswith("found 1 cluster(s) instead")
    assert written.targets("s")[1:] == [
        filtered("a1", A1_REASON),
        filtered("b1", spread_reason("zone")),
        filtered("b2", spread_reason("zone")),
    ]
    if mode == "greedy":
        assert scores(written, "s") == {"b3": (0, -1)}


SPREAD_C = [
    member_cluster("w", {"zone": "z2", "region": "r2"}),
    member_cluster("x", {"zone": "z1", "region": "r1"}),
    member_cluster("y", {"zone": "z2", "region": "r1"}),
]
SPREAD_C_POLICY = pick_n(2, spread_by=[spread("zone"), spread("region")])


def test_spread_greedy_gets_stuck(tmp_path):
    written = Written.solve(tmp_path, [*SPREAD_C, crp("s", SPREAD_C_POLICY)], "greedy")
    # Cycle 1: every cluster raises both skews (-2); y wins by name. Cycle 2: w and x each violate one.
    assert scores(written, "s") == {"y": (0, -2)}
    assert written.targets("s") == [
        decision("y", (0, -2)),
        filtered("w", spread_reason("zone")),
        filtered("x", spread_reason("region")),
    ]
    assert written.condition("s")["status"] == "False"


def test_spread_optimal_finds_the_feasible_pair(tmp_path):
    written = Written.solve(tmp_path, [*SPREAD_C, crp("s", SPREAD_C_POLICY)], "optimal")
    assert written.chosen("s") == ["w", "x"]
    assert written.condition("s")["status"] == "True"


@pytest.mark.parametrize("mode", MODES)
def test_spread_max_skew_two(tmp_path, mode):
    fleet = [member_cluster(f"a{i}", {"zone": "a"}) for i in range(1, 5)] + [
        member_cluster("b1", {"zone": "b"})
    ]
    written = Written.solve(tmp_path, [*fleet, crp("s", pick_n(4, spread_by=[spread("zone", 2)]))], mode)
    # Zone b has one cluster, so zone a may hold at most 3.
    assert written.chosen("s") == ["a2", "a3", "a4", "b1"]
    assert written.condition("s")["status"] == "True"


# --------------------------------------------------------------------- ordering and report budget


def big_fleet(healthy: int, sick: int) -> list[dict]:
    return [member_cluster(f"m{i:02d}") for i in range(healthy)] + [
        member_cluster(f"z{i:02d}", healthy="False", health_changed=15) for i in range(sick)
    ]


Z_REASON = (
    UNSCHEDULABLE
    + NOT_CONNECTED
    + "unhealthy for a prolonged period of time (last transitioned 15.00 minutes ago)"
)


@pytest.mark.parametrize("mode", MODES)
def test_at_most_20_unselected_entries(tmp_path, mode):
    objects = [
        *big_fleet(30, 25),
        crp("two", pick_n(2)),
        crp("most", pick_n(25)),
        crp("nearly", pick_n(28)),
        crp("nothing", pick_all(required=[term({"env": "none"})])),
    ]
    written = Written.solve(tmp_path, objects, mode)
    two = written.targets("two")
    assert [t["clusterName"] for t in two[:2]] == ["m29", "m28"]
    assert two[2:] == [not_picked(f"m{i:02d}", 0, 0) for i in range(27, 7, -1)]  # 20, no filtered ones

    most = written.targets("most")
    assert len(most) == 25 + 20
    assert most[25:30] == [not_picked(f"m{i:02d}", 0, 0) for i in (4, 3, 2, 1, 0)]
    assert most[30:] == [filtered(f"z{i:02d}", Z_REASON) for i in range(15)]

    nearly = written.targets("nearly")
    assert nearly[28:] == [not_picked("m01", 0, 0), not_picked("m00", 0, 0)] + [
        filtered(f"z{i:02d}", Z_REASON) for i in range(18)
    ]

    nothing = written.targets("nothing")
    expected = sorted([f"m{i:02d}" for i in range(30)] + [f"z{i:02d}" for i in range(25)])[:20]
    assert nothing == [filtered(c, AFFINITY) for c in expected]
    assert written.condition("nothing")["message"].endswith("found 0 cluster(s)")


# ------------------------------------------------------------------------ greedy versus optimal


def rich_fleet_without_spread() -> list[dict]:
    """Every placement type, affinity, taints and earlier state; no topology spread anywhere."""
    from tests.fixtures.fleet import binding, snapshot

    stateful_policy = pick_n(3, required=[term({"env": "prod"})], prefer=[preferred(50, sort=AVAILABLE_CPU)])
    return [
        *AFFINITY_FLEET,
        *TAINT_FLEET,
        *node_fleet(),
        crp("all-prod", pick_all(required=[term({"env": "prod"})], tolerations=[toleration("k", "v")])),
        crp("fixed", pick_fixed("p1", "t3", "n1", "ghost")),
        crp("nodes", pick_n(4, prefer=[preferred(80, sort=NODE_COUNT), preferred(-10, {"env": "prod"})])),
        crp("stateful", stateful_policy, generation=2),
        snapshot("stateful", 0, {**stateful_policy, "numberOfClusters": 2}, n=2),
        binding("stateful", "p1", state="Bound", score=(50, 0)),
        binding("stateful", "gone", state="Bound", score=(10, 0)),
        crp("changed", pick_n(2, required=[term({"env": "prod"})])),
        snapshot("changed", 0, pick_n(2)),
        binding("changed", "s1", state="Bound"),
        binding("changed", "p2", state="Scheduled"),
    ]


def test_optimal_equals_greedy_without_spread(tmp_path):
    objects = rich_fleet_without_spread()
    greedy = run_solve(tmp_path, objects, "greedy")
    optimal = run_solve(tmp_path, objects, "optimal")
    assert optimal == greedy
    plan = as_json(run_solve(tmp_path, objects, "optimal", "plan"))
    assert plan["summary"]["status"] == "OPTIMAL"
    assert plan["summary"]["models"] == 0  # nothing needed a search


@pytest.mark.parametrize(
    "objects",
    [
        [*SPREAD_A, crp("s", pick_n(3, spread_by=[spread("zone")]))],
        [*SPREAD_B, crp("s", pick_n(2, spread_by=[spread("zone", when="ScheduleAnyway")]))],
        [*SPREAD_C, crp("s", SPREAD_C_POLICY)],
        [
            *SPREAD_A,
            *SPREAD_C,
            crp("s1", pick_n(4, spread_by=[spread("zone"), spread("region", when="ScheduleAnyway")])),
            crp("s2", pick_n(2, prefer=[preferred(30, {"zone": "b"})], spread_by=[spread("zone")])),
            crp("plain", pick_n(2)),
        ],
    ],
    ids=["keyless", "schedule-anyway", "stuck", "mixed"],
)
def test_optimal_objective_at_least_greedy_with_spread(tmp_path, objects):
    greedy = as_json(run_solve(tmp_path, objects, "greedy", "plan"))["summary"]
    optimal = as_json(run_solve(tmp_path, objects, "optimal", "plan"))["summary"]
    assert optimal["objective"] >= greedy["objective"]
    assert optimal["bound"] >= optimal["objective"]
    assert greedy["bound"] is None and greedy["gap"] is None


def test_optimal_objective_strictly_better_when_greedy_gets_stuck(tmp_path):
    objects = [*SPREAD_C, crp("s", SPREAD_C_POLICY)]
    greedy = as_json(run_solve(tmp_path, objects, "greedy", "plan"))["summary"]
    optimal = as_json(run_solve(tmp_path, objects, "optimal", "plan"))["summary"]
    assert optimal["objective"] > greedy["objective"]
    assert (greedy["unsatisfied"], optimal["unsatisfied"]) == (1, 0)


def test_demo_fleet_optimal_at_least_greedy(tmp_path):
    from importlib import resources

    text = resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(encoding="utf-8")
    import yaml

    objects = [o for o in yaml.safe_load_all(text) if o]
    greedy = as_json(run_solve(tmp_path, objects, "greedy", "plan"))["summary"]
    optimal = as_json(run_solve(tmp_path, objects, "optimal", "plan"))["summary"]
    assert optimal["objective"] >= greedy["objective"]


def test_binding_names_are_dns_labels(tmp_path):
    written = Written.solve(tmp_path, rich_fleet_without_spread(), "greedy")
    label = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
    for b in written.of_kind("ClusterResourceBinding"):
        assert len(b["metadata"]["name"]) <= 63
        assert label.fullmatch(b["metadata"]["name"])


def test_binding_names_refuse_what_is_no_dns_label() -> None:
    from adapters.errors import InputError
    from adapters.fleet.emit import binding_name

    name = binding_name("web", "member-1", 0, set())
    assert name.startswith("web-member-1-") and len(name) == len("web-member-1-") + 8
    with pytest.raises(InputError) as caught:
        binding_name("web", "member.one", 0, set())
    assert caught.value.where == "MemberCluster/member.one"
    with pytest.raises(InputError) as caught:
        binding_name("-web", "member-1", 0, set())
    assert caught.value.where == "ClusterResourcePlacement/-web"
    taken = {name}
    assert binding_name("web", "member-1", 0, taken) != name  # the next attempt
