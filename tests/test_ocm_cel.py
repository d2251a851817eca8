"""OCM Placement CEL selectors (adapters.ocm.cel): upstream examples, the ways a cluster fails to
match (evaluation error, non-bool, missing score object, cost), compile errors, and the narrowing
of the cluster to the fields an expression can see."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from adapters.ocm.cel import (
    CelCompileError,
    compile_expression,
    matching_clusters,
)


def cluster(
    name: str = "c1",
    labels: dict[str, str] | None = None,
    claims: dict[str, str] | None = None,
    kube: str = "v1.30.0",
    **extra_status: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": name,
            "labels": {"version": "1.14.3", "env": "prod", "gpu-count": "4"} if labels is None else labels,
            "annotations": {"a": "b"},
        },
        "spec": {"hubAcceptsClient": True},
        "status": {
            "version": {"kubernetes": kube},
            "clusterClaims": [{"name": k, "value": v} for k, v in (claims or {}).items()],
            "allocatable": {"cpu": "16", "memory": "64Gi"},
            **extra_status,
        },
    }


SCORES = {"test-addon": [{"name": "test-score", "value": 90}, {"name": "other", "value": 10}]}


def matches(source: str, c: dict[str, Any] | None = None, scores: dict[str, Any] | None = None) -> bool:
    return compile_expression(source).matches(
        cluster() if c is None else c, SCORES if scores is None else scores
    )


# --- upstream examples ---------------------------------------------------------------------------

SCORE_EXAMPLE = "managedCluster.scores(\"test-addon\").filter(s, s.name == 'test-score').all(e, e.value > 80)"
VERSION_REGEX = r"""managedCluster.metadata.labels["version"].matches('^1\\.(14|15)\\.\\d+$')"""


def test_scores_member_function_upstream_example() -> None:
    assert matches(SCORE_EXAMPLE)
    assert not matches(SCORE_EXAMPLE, scores={"test-addon": [{"name": "test-score", "value": 80}]})
    # all() over an empty filter is true, as in cel-go
    assert matches(SCORE_EXAMPLE, scores={"test-addon": [{"name": "other", "value": 1}]})


def test_version_label_regex() -> None:
    assert matches(VERSION_REGEX)
    assert matches(VERSION_REGEX, cluster(labels={"version": "1.15.0"}))
    assert not matches(VERSION_REGEX, cluster(labels={"version": "1.16.0"}))
    assert not matches(VERSION_REGEX, cluster(labels={"version": "v1.14.3"}))


def test_status_version_equality() -> None:
    source = 'managedCluster.status.version.kubernetes == "v1.30.0"'
    assert matches(source)
    assert not matches(source, cluster(kube="v1.29.1"))


def test_int_comparison_on_label_value() -> None:
    source = 'int(managedCluster.metadata.labels["gpu-count"]) >= 2'
    assert matches(source)
    assert not matches(source, cluster(labels={"gpu-count": "1"}))
    # a label that is not a number: conversion error, no match
    assert not matches(source, cluster(labels={"gpu-count": "many"}))


def test_claims_exists_upstream_example() -> None:
    source = (
        'managedCluster.status.clusterClaims.exists(c, c.name == "kubeversion.open-cluster-management.io"'
        " && c.value.matches('^1\\\\.(30|31)\\\\.\\\\d+$'))"
    )
    assert matches(source, cluster(claims={"kubeversion.open-cluster-management.io": "1.31.2"}))
    assert not matches(source, cluster(claims={"kubeversion.open-cluster-management.io": "1.29.0"}))
    assert not matches(source, cluster(claims={}))


@pytest.mark.parametrize(
    "source, expected",
    [
        ('managedCluster.metadata.labels.env in ["prod", "staging"]', True),
        ('"env" in managedCluster.metadata.labels', True),
        ('managedCluster.metadata.labels.env.startsWith("pr") && "c1".endsWith("1")', True),
        ('managedCluster.metadata.labels.env.contains("ro")', True),
        (
            "managedCluster.metadata.labels.size() == 3 && size(managedCluster.status.clusterClaims) == 0",
            True,
        ),
        ('managedCluster.metadata.labels.env == "prod" ? true : false', True),
        ('double(managedCluster.metadata.labels["gpu-count"]) > 3.5', True),
        ('string(int(managedCluster.status.allocatable.cpu) * 2) == "32"', True),
        ("[1, 2, 3].exists_one(x, x > 2)", True),
        ("[1, 2, 3].map(x, x * 2).filter(x, x > 2).size() == 2", True),
        ("managedCluster.scores('test-addon').map(s, s.value).exists(v, v == 10)", True),
        ('managedCluster.status.clusterClaims.all(c, c.name == "nope")', True),
        ('"a,b".split(",").size() == 2 && "AbC".lowerAscii() == "abc"', True),
        ("type(1) == int", True),
        ('managedCluster.metadata.labels.env.parseJSON() == "prod"', False),  # not JSON: error
        ('\'{"cpu": 8, "zones": ["a", "b"]}\'.parseJSON().cpu > 4', True),
    ],
)
def test_standard_macros_and_functions(source: str, expected: bool) -> None:
    assert matches(source) is expected


def test_parse_json_on_a_claim() -> None:
    c = cluster(claims={"sku.example.com": '{"cpu": 16, "tier": "gold"}'})
    source = (
        'managedCluster.status.clusterClaims.exists(c, c.name == "sku.example.com"'
        ' && c.value.parseJSON().tier == "gold" && c.value.parseJSON().cpu >= 16)'
    )
    assert matches(source, c)


# --- the ways a cluster does not match -----------------------------------------------------------


def test_missing_score_object_does_not_match() -> None:
    assert not matches(SCORE_EXAMPLE, scores={})
    assert not matches('managedCluster.scores("absent").size() >= 0')
    # the error is not swallowed by a comparison with an empty list
    assert not matches('managedCluster.scores("absent") == []')


def test_scores_reads_the_receiver_cluster_only() -> None:
    # upstream looks scores up in the namespace named by the receiver; here only this cluster's exist
    assert not matches('{"metadata": {"name": "other"}}.scores("test-addon").size() > 0')
    assert matches('{"metadata": {"name": "c1"}}.scores("test-addon").size() > 0')


@pytest.mark.parametrize(
    "source", ["managedCluster.metadata.name", "1", "managedCluster.metadata.labels", "null", "'true'"]
)
def test_non_boolean_result_does_not_match(source: str) -> None:
    assert not matches(source)


@pytest.mark.parametrize(
    "source",
    [
        'managedCluster.metadata.labels.zone == "a"',  # missing key
        'managedCluster.status.nothing.deeper == "x"',
        "1 / 0 == 1",
        'managedCluster.metadata.labels["env"] + 1 == 2',  # type error at run time
        "managedCluster.spec.taints[0].key == 'k'",
    ],
)
def test_runtime_error_does_not_match(source: str) -> None:
    assert not matches(source)


def test_has_on_missing_fields() -> None:
    assert not matches("has(managedCluster.metadata.labels.zone)")
    assert matches("has(managedCluster.metadata.labels.env)")
    assert not matches("has(managedCluster.spec.taints)")
    assert matches("!has(managedCluster.spec.taints) || managedCluster.spec.taints.size() == 0")
    bare = {"metadata": {"name": "c1"}}
    assert not matches("has(managedCluster.status)", bare)
    assert matches('!has(managedCluster.metadata.labels) || managedCluster.metadata.labels.env == "x"', bare)


def test_garbage_clusters_do_not_match() -> None:
    p = compile_expression("true")
    assert p.matches({}, {})
    assert matching_clusters(
        p, [{"metadata": {}}, {"kind": "x"}, {"metadata": {"name": "a"}}], lambda n: {}
    ) == [
        False,
        False,
        True,
    ]
    assert not compile_expression(SCORE_EXAMPLE).matches({"metadata": None}, SCORES)


def test_cost_guard_refuses_deep_nesting_over_large_lists() -> None:
    claims = {f"k{i}": str(i) for i in range(200)}
    big = cluster(claims=claims)
    nested3 = (
        "managedCluster.status.clusterClaims.all(a, managedCluster.status.clusterClaims.all(b,"
        " managedCluster.status.clusterClaims.all(c, a.name != '' && b.name != '' && c.name != '')))"
    )
    assert not matches(nested3, big)  # 200^3 > budget: refused, no match
    assert matches(nested3, cluster(claims={"a": "1", "b": "2"}))  # small lists: evaluated
    linear = "managedCluster.status.clusterClaims.all(a, a.name.startsWith('k'))"
    assert matches(linear, big)  # depth 1 is never refused


# --- compile errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("managedCluster.metadata.labels[", "Syntax error"),
        ("1 +", "Syntax error"),
        ("invalid.expression", "undeclared reference to 'invalid'"),  # upstream's own test case
        ("foo(1) == 1", "undeclared reference to 'foo'"),
        ("managedCluster.metadata.labels.all(k, k == x)", "'x'"),
        ("[1].all(x, x > 0) && y", "'y'"),
        # not in upstream's environment (no cel-go math or sets extension, SemverLib at version 0)
        ("math.greatest(1, 5, 3) == 5", "undeclared reference to 'math'"),
        ("sets.contains([1], [1])", "undeclared reference to 'sets'"),
        (
            'semver("v1.0", true).major() == 1',
            "found no matching overload for 'semver' applied to '(string, bool)'",
        ),
    ],
)
def test_compile_error(source: str, fragment: str) -> None:
    with pytest.raises(CelCompileError) as err:
        compile_expression(source)
    assert fragment in str(err.value)
    assert err.value.source == source


def test_names_inside_string_literals_are_not_references() -> None:
    source = "'x.all(y, z)' != managedCluster.metadata.name && \"managedCluster.spec\".size() > 0"
    assert matches(source)


# --- narrowing, determinism, vector form ---------------------------------------------------------

NARROWING_CASES = [
    SCORE_EXAMPLE,
    VERSION_REGEX,
    "managedCluster.metadata.size() == 3",
    "managedCluster.metadata.labels.size() == 3",
    'managedCluster["metadata"]["labels"]["env"] == "prod"',
    "has(managedCluster.status) && !has(managedCluster.status.nothing)",
    'managedCluster.status.all(k, k != "x")',
    "managedCluster.status.allocatable.cpu == '16' && managedCluster.spec.hubAcceptsClient",
    "[managedCluster].all(m, m.metadata.labels.size() == 3)",
    "managedCluster == managedCluster",
    "managedCluster.scores('test-addon').size() == 2 && managedCluster.metadata.annotations.a == 'b'",
]


@pytest.mark.parametrize("source", NARROWING_CASES)
def test_narrowing_never_changes_the_answer(source: str) -> None:
    narrowed = compile_expression(source)
    whole = dataclasses.replace(narrowed, _shape=dataclasses.replace(narrowed._shape, keep=None))
    for c in (cluster(), cluster(labels={}), {"metadata": {"name": "c1"}}, cluster(name="c2")):
        assert narrowed.matches(c, SCORES) == whole.matches(c, SCORES)


def test_compiled_programs_are_cached() -> None:
    assert compile_expression(VERSION_REGEX) is compile_expression(VERSION_REGEX)


def fleet(n: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    clusters = [
        cluster(
            name=f"c{i:04d}",
            labels={
                "version": f"1.{12 + i % 5}.{i % 10}",
                "env": ("prod", "dev")[i % 2],
                "gpu-count": str(i % 9),
            },
            claims={"region.open-cluster-management.io": ("us-east-1", "eu-west-1")[i % 3 == 0]},
        )
        for i in range(n)
    ]
    scores = {
        c["metadata"]["name"]: (
            {} if i % 10 == 0 else {"test-addon": [{"name": "test-score", "value": i % 201 - 100}]}
        )
        for i, c in enumerate(clusters)
    }
    return clusters, scores


def test_vector_form_agrees_with_single_and_is_deterministic() -> None:
    clusters, scores = fleet(400)
    for source in (SCORE_EXAMPLE, VERSION_REGEX, 'int(managedCluster.metadata.labels["gpu-count"]) >= 2'):
        p = compile_expression(source)
        first = matching_clusters(p, clusters, scores.__getitem__)
        assert first == matching_clusters(p, clusters, scores.__getitem__)
        assert first == [p.matches(c, scores[c["metadata"]["name"]]) for c in clusters[:200]] + first[200:]
        assert 0 < sum(first) < len(clusters)


def test_threads_evaluate_independently() -> None:
    clusters, scores = fleet(150)
    p = compile_expression(SCORE_EXAMPLE)
    expected = matching_clusters(p, clusters, scores.__getitem__)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: matching_clusters(p, clusters, scores.__getitem__), range(4)))
    assert all(r == expected for r in results)
