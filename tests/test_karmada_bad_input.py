"""Karmada objects at the edges of what the API server and the policy webhook take, each a defect
the bad-input fuzz (tests/test_bad_input_fuzz.py, the Karmada hub) found: refused in one line
naming the object and field where upstream refuses them, taken where upstream takes them."""

from __future__ import annotations

import pytest

from adapters.kube.fields import INT32, INT64
from tests.fixtures.karmada import binding, cluster, divided, solve, written

DYNAMIC = divided(dynamic="AvailableReplicas")
RB = "ResourceBinding/default/rb"


def _refusal(tmp_path, objects) -> str:
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert (result.exit_code, result.stdout) == (2, ""), (result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("placement", "field"),
    [
        ({"replicaScheduling": {"replicaSchedulingType": ""}}, "replicaScheduling.replicaSchedulingType"),
        (
            {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": ""}},
            "replicaScheduling.replicaDivisionPreference",
        ),
        (
            {"replicaScheduling": {**divided(), "weightPreference": {"dynamicWeight": ""}}},
            "replicaScheduling.weightPreference.dynamicWeight",
        ),
        (
            {"replicaScheduling": DYNAMIC, "spreadConstraints": [{"spreadByField": "", "minGroups": 1}]},
            "spreadConstraints[0].spreadByField",
        ),
    ],
)
def test_an_empty_string_is_outside_the_crds_enum(tmp_path, placement, field):
    # The CRD's enums hold no "": the API server refuses it (only omitting the field is taken).
    line = _refusal(tmp_path, [cluster("m1"), binding(placement=placement)])
    assert line.startswith(f"error: {RB}: spec.placement.{field}: "), line


@pytest.mark.parametrize("groups", [INT32 + 1, INT64])
@pytest.mark.parametrize("bound", ["minGroups", "maxGroups"])
def test_group_counts_past_int32_are_taken_as_upstreams_int(tmp_path, bound, groups):
    # minGroups and maxGroups are Go ints (the CRD: an integer, no format): any int64 not below
    # 0 is taken; past every cluster it means what INT32 means.
    spread = {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2, bound: groups}
    if bound == "minGroups":
        spread["maxGroups"] = 0
    placement = {"replicaScheduling": DYNAMIC, "spreadConstraints": [spread]}
    clusters = [cluster(f"m{i}", allocatable={"cpu": "4", "pods": "10"}) for i in (1, 2)]
    result = solve(tmp_path, [*clusters, binding(placement=placement)], "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    status = written(result.stdout)[RB]["status"]["conditions"][0]
    if bound == "minGroups":
        expected = "the number of feasible clusters is less than spreadConstraint.MinGroups"
        assert status["reason"] == "SchedulerError"
        assert status["message"] == f"failed to select clusters: {expected}"
    else:
        assert status["reason"] == "Success"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (("spec", "conflictResolution"), "Replace"),
        (("spec", "failover", "application", "purgeMode"), "Later"),
        (("spec", "failover", "application", "decisionConditions", "tolerationSeconds"), -1),
        (("spec", "failover", "application", "gracePeriodSeconds"), 0),
        (("spec", "failover", "cluster", "purgeMode"), "Never"),
        (("spec", "requiredBy"), [{"name": "x", "clusters": [{"name": "m1", "replicas": INT32 + 1}]}]),
        (("status", "aggregatedStatus"), [{"clusterName": "m1", "health": "Fine"}]),
        (
            ("spec", "clusters"),
            [{"name": "m1", "replicas": 1, "components": [{"name": "c", "replicas": -INT32 - 2}]}],
        ),
    ],
)
def test_unread_fields_the_crd_or_webhook_refuses(tmp_path, field, value):
    # Fields the scheduler does not read, refused as the binding CRD (or, for failover, copied from
    # the policy, the webhook) refuses them: no hub holds such a binding.
    rb = binding(placement={"replicaScheduling": DYNAMIC})
    node = rb
    for key in field[:-1]:
        node = node.setdefault(key, {})
    node[field[-1]] = value
    line = _refusal(tmp_path, [cluster("m1"), rb])
    assert line.startswith(f"error: {RB}: {'.'.join(field)}"), line


@pytest.mark.parametrize(
    "summary",
    [
        {"allocatable": {"cpu": str(INT64), "pods": "10"}},
        {"allocatable": {"cpu": "8Ei", "pods": "10"}},
        {"allocatable": {"cpu": "64", "pods": "10"}, "allocated": {"cpu": str(-INT64 - 1)}},
        {"allocatable": {"cpu": "64", "pods": "9223372036854775807k"}},
    ],
)
def test_a_resource_summary_past_int64_in_the_estimators_units_is_taken(tmp_path, summary):
    # Quantities the API server takes whose free room, in millicores (or whole units), passes
    # int64: as much room as the estimator can count, not a crash.
    c = cluster("m1", allocatable={"cpu": "1"})
    c["status"]["resourceSummary"] = summary
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=3, requests={"cpu": "1"})
    for mode in ("greedy", "optimal"):
        result = solve(tmp_path, [c, rb], mode, "-o", "yaml")
        assert result.exit_code == 0, result.output
        got = written(result.stdout)[RB]
        assert got["spec"]["clusters"] == [{"name": "m1", "replicas": 3}]


def test_requests_and_models_past_int64_in_the_estimators_units_are_taken(tmp_path):
    # A request of about 2**63 cores (past int64 in millicores), against a resource model whose
    # top grade starts there: taken; one replica fits each node of that grade.
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": str(INT64 - 1)}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": str(INT64 - 1), "max": str(INT64)}]},
    ]
    modelings = [{"grade": 0, "count": 1}, {"grade": 1, "count": 3}]
    c = cluster("m1", allocatable={"cpu": str(INT64), "pods": "110"}, models=models, modelings=modelings)
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=3, requests={"cpu": str(INT64 - 1)})
    for mode in ("greedy", "optimal"):
        result = solve(tmp_path, [c, rb], mode, "-o", "yaml")
        assert result.exit_code == 0, result.output
        assert written(result.stdout)[RB]["spec"]["clusters"] == [{"name": "m1", "replicas": 3}]


def test_a_grade_is_a_go_uint(tmp_path):
    # resourceModels[].grade and allocatableModelings[].grade are Go uints: any up to 2**64-1.
    top = 2**64 - 1
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": top, "ranges": [{"name": "cpu", "min": "2", "max": str(INT64)}]},
    ]
    c = cluster(
        "m1", allocatable={"cpu": "64", "pods": "110"}, models=models, modelings=[{"grade": top, "count": 2}]
    )
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=4, requests={"cpu": "1"})
    result = solve(tmp_path, [c, rb], "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    assert written(result.stdout)[RB]["spec"]["clusters"] == [{"name": "m1", "replicas": 4}]
    c["spec"]["resourceModels"][1]["grade"] = top + 1
    assert _refusal(tmp_path, [c, rb]).startswith("error: Cluster/m1: spec.resourceModels[1].grade: ")


def test_a_component_sets_demand_past_int64_is_taken(tmp_path):
    # A multi-component workload's set demand (each component's replicas times its request,
    # summed) may pass int64 in the estimator's units: taken; no cluster has room for it.
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=1)
    request = {"replicaRequirements": {"resourceRequest": {"memory": "1Ei"}}}
    rb["spec"]["components"] = [{"name": n, "replicas": INT32, **request} for n in ("a", "b")]
    c = cluster("m1", allocatable={"memory": "4Ei", "pods": "110"})
    for mode in ("greedy", "optimal"):
        result = solve(tmp_path, [c, rb], mode, "-o", "yaml")
        assert result.exit_code == 0, result.output


NULLABLE = [
    ("binding", ("metadata", "generation")),
    ("binding", ("spec", "replicas")),
    ("binding", ("spec", "schedulePriority", "priority")),
    ("binding", ("status", "schedulerObservedGeneration")),
    ("binding", ("spec", "clusters", 0, "replicas")),
    ("cluster", ("spec", "resourceModels", 0, "grade")),
    ("cluster", ("status", "resourceSummary", "allocatableModelings", 0, "grade")),
    ("cluster", ("status", "resourceSummary", "allocatableModelings", 0, "count")),
]


@pytest.mark.parametrize(
    ("which", "path"), NULLABLE, ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else v
)
def test_a_null_integer_is_the_absent_one(tmp_path, which, path):
    # The API server prunes a null field of a binding (a custom resource), and decodes a Cluster's
    # into Go's zero value: either way the object is taken, as if the field were absent (0).
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": str(INT64)}]},
    ]
    modelings = [{"grade": 0, "count": 4}]
    status = {"schedulerObservedGeneration": 1}
    outputs = []
    for value in (None, "absent"):
        c = cluster("m1", allocatable={"cpu": "64", "pods": "110"}, models=models, modelings=modelings)
        rb = binding(
            placement={"replicaScheduling": DYNAMIC},
            requests={"cpu": "1"},
            clusters=[("m1", 1)],
            status=status,
        )
        rb["spec"]["schedulePriority"] = {"priority": 0}
        node = rb if which == "binding" else c
        for key in path[:-1]:
            node = node[key]
        if value == "absent":
            del node[path[-1]]
        else:
            node[path[-1]] = None
        result = solve(tmp_path, [c, rb], "greedy", "-o", "yaml")
        assert result.exit_code == 0, result.output
        got = written(result.stdout)[RB]
        outputs.append(
            _pruned((got["spec"].get("clusters"), got["status"], got["metadata"].get("annotations")))
        )
    assert outputs[0] == outputs[1]


def _pruned(value):
    """`value` without null fields (the output echoes the input's)."""
    if isinstance(value, dict):
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_pruned(v) for v in value]
    return value


@pytest.mark.parametrize(
    "status",
    [
        {"conditions": [{"type": "Ready", "status": "Maybe"}]},
        {"conditions": [{"type": "not a type!", "status": "True", "reason": "", "message": "x"}] * 2},
        {"conditions": [None]},
        {"apiEnablements": [None, {"groupVersion": "apps/v1", "resources": [None, {"kind": "Deployment"}]}]},
    ],
)
def test_a_cluster_status_is_only_decoded(tmp_path, status):
    # The aggregated API server never validates a Cluster's status (its status strategy's
    # ValidateUpdate returns nothing): conditions of any strings, a type twice, and null items
    # (the zero value, as encoding/json decodes them) are taken.
    c = cluster("m1", allocatable={"cpu": "4", "pods": "10"})
    c["status"].update(status)
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=2, requests={"cpu": "1"})
    result = solve(tmp_path, [c, rb], "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    assert written(result.stdout)[RB]["spec"]["clusters"] == [{"name": "m1", "replicas": 2}]


def test_a_null_modeling_is_grade_0_with_no_nodes(tmp_path):
    # A null allocatableModelings item decodes as {grade: 0, count: 0}: the summary then counts
    # by the models, whose graded nodes number 0, so the cluster holds no replica (upstream's
    # model estimate).
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": str(INT64)}]},
    ]
    c = cluster("m1", allocatable={"cpu": "64", "pods": "110"}, models=models, modelings=[])
    c["status"]["resourceSummary"]["allocatableModelings"] = [None]
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=2, requests={"cpu": "1"})
    got = written(solve(tmp_path, [c, rb], "greedy", "-o", "yaml").stdout)[RB]
    assert got["status"]["conditions"][0]["reason"] == "Unschedulable"


def test_a_null_applied_placement_is_an_empty_one(tmp_path):
    # metadata.annotations is a map of strings: the API server decodes a null value as "", so the
    # placement counts as changed (it was a TypeError traceback; found by test_bad_input_fuzz).
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=1, annotations={"x": "y"})
    rb["metadata"]["annotations"]["policy.karmada.io/applied-placement"] = None
    result = solve(tmp_path, [cluster("m1", allocatable={"pods": "110"}), rb], "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    assert written(result.stdout)[RB]["spec"]["clusters"] == [{"name": "m1", "replicas": 1}]
