"""CEL predicates end to end through the command line: what upstream's environment compiles is
scheduled (not Misconfigured), what it refuses is Misconfigured, and scores() reads the namespace
its receiver names."""

from __future__ import annotations

import pytest

from tests.fixtures.ocm import MODES, Written, hub, managed_cluster, placement, predicate, score

SEMVER = 'semver(managedCluster.metadata.labels["version"]).isLessThan(semver("1.31.0"))'


@pytest.mark.parametrize("mode", MODES)
def test_semver_predicate_is_scheduled(tmp_path, mode):
    clusters = [
        managed_cluster("c1", {"version": "1.30.4"}),
        managed_cluster("c2", {"version": "1.31.0"}),
        managed_cluster("c3", {"version": "v1.29"}),  # not a semantic version: an evaluation error
    ]
    written = Written.solve(
        tmp_path, hub(*clusters, placement("p", predicates=[predicate(cel=[SEMVER])])), mode
    )
    assert written.misconfigured() == ("False", "Succeedconfigured", "Placement configurations check pass")
    assert written.chosen() == ["c1"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ('quantity(managedCluster.status.allocatable.memory).isGreaterThan(quantity("32Gi"))', ["c2"]),
        ('cidr("10.0.0.0/8").containsIP(managedCluster.metadata.labels["ip"])', ["c1"]),
        ("managedCluster.metadata.?labels.?tier.orValue('bronze') == 'bronze'", ["c1"]),
        ("managedCluster.metadata.labels.region.find('[a-z]+') == 'eu'", ["c2"]),
        (
            'url("https://" + managedCluster.metadata.labels["api"] + ":6443/").getPort() == "6443"',
            ["c1", "c2"],
        ),
    ],
)
def test_kubernetes_libraries_in_predicates(tmp_path, mode, expression, selected):
    resources = {"c1": "16Gi", "c2": "64Gi"}
    clusters = [
        managed_cluster(
            name,
            {
                "ip": ip,
                "region": region,
                "api": f"{name}.example.com",
                **({"tier": "gold"} if name == "c2" else {}),
            },
            allocatable={"memory": resources[name]},
            capacity={"memory": resources[name]},
        )
        for name, ip, region in (("c1", "10.1.2.3", "us-east"), ("c2", "192.168.0.1", "eu-west"))
    ]
    written = Written.solve(
        tmp_path, hub(*clusters, placement("p", predicates=[predicate(cel=[expression])])), mode
    )
    assert written.misconfigured()[0] == "False"
    assert written.chosen() == selected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("math.greatest(1, 2) == 2", "undeclared reference to 'math' (in container '')"),
        ('semver("v1.0", true).major() == 1', "found no matching overload for 'semver'"),
    ],
)
def test_what_upstream_does_not_compile_is_misconfigured(tmp_path, mode, expression, fragment):
    objects = hub(managed_cluster("c1"), placement("p", predicates=[predicate(cel=[expression])]))
    written = Written.solve(tmp_path, objects, mode)
    status, reason, message = written.misconfigured()
    assert (status, reason) == ("True", "Misconfigured")
    assert message.startswith("Predicate:compilation failed: ERROR: <input>:1:")
    assert fragment in message
    assert written.chosen() == []


@pytest.mark.parametrize("mode", MODES)
def test_scores_reads_the_namespace_its_receiver_names(tmp_path, mode):
    # sdk-go's clusterScores looks the object up in the namespace of the receiver's metadata.name,
    # whichever cluster is being evaluated.
    expression = '{"metadata": {"name": "c2"}}.scores("usage").exists(s, s.value > 50)'
    objects = hub(
        managed_cluster("c1"),
        managed_cluster("c2"),
        score("c2", "usage", {"cpu": 90}),
        placement("p", predicates=[predicate(cel=[expression])]),
    )
    assert Written.solve(tmp_path, objects, mode).chosen() == ["c1", "c2"]


@pytest.mark.parametrize("mode", MODES)
def test_the_variable_has_no_type_meta_as_upstream_converts_its_typed_cluster(tmp_path, mode):
    expressions = [
        "has(managedCluster.kind) || has(managedCluster.apiVersion)",
        'managedCluster.metadata.name == "c1"',
    ]
    objects = hub(
        managed_cluster("c1"),
        placement("p", predicates=[predicate(cel=[expressions[0]]), predicate(cel=[expressions[1]])]),
    )
    assert Written.solve(tmp_path, objects, mode).chosen() == ["c1"]  # by the second predicate only
    objects = hub(managed_cluster("c1"), placement("p", predicates=[predicate(cel=[expressions[0]])]))
    assert Written.solve(tmp_path, objects, mode).chosen() == []
