"""Every integer and enum of the scheduler config, the Cluster and the ClusterRequest, at and past
the edge its API declares (the config's tenancyCount is a Go int, int64; the CRDs' int64 fields;
ObjectMeta's generation): refused with exit status 2 and one line naming the file or object and
the field, as the API server (or upstream's config loading) refuses it; accepted at the edge,
where a solve must still work: numbers that reach CP-SAT (a limit, the seed) are kept to what it
takes."""

from __future__ import annotations

import pytest

from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.openmcp import (
    MODES,
    NOW_TIME,
    TEST_01,
    Written,
    cluster,
    config,
    purpose,
    request,
    solve_cli,
)

INT64 = 2**63 - 1


def refused(tmp_path, objects, cfg, *needles: str) -> str:
    result = solve_cli(tmp_path, objects, config=cfg)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    return result.stderr


def accepted(tmp_path, objects, cfg) -> None:
    result = solve_cli(tmp_path, objects, "-o", "plan", config=cfg)
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------------------- the config


def _balance_hub() -> list[dict]:
    """c1 lists p and q, c2 only p: the queue puts both requests on c1, the joint answer one on each."""
    return [
        cluster("ns", "c1", "p", "q"),
        cluster("ns", "c2", "p"),
        request("foo", "p1", "p", at_minute=0),
        request("foo", "q1", "q", at_minute=1),
    ]


@pytest.mark.parametrize("count", [5, 2**31, INT64])
def test_tenancy_count_up_to_int64_solves_as_a_small_one(tmp_path, count) -> None:
    # Any count the hub cannot fill binds nothing; at int64's edge CP-SAT's model was invalid and
    # optimal mode fell back to the queue's answer (status FEASIBLE).
    cfg = config(p=purpose(count=count), q=purpose(count=count))
    written = Written.solve(tmp_path, _balance_hub(), cfg, "optimal")
    assert written.assignments() == {"foo/p1": "ns/c2", "foo/q1": "ns/c1"}
    assert written.plan["summary"]["status"] == "OPTIMAL"


def test_tenancy_count_past_int64_is_refused(tmp_path) -> None:
    hub = _balance_hub()
    for count in (INT64 + 1, 100000000000000000000):
        stderr = refused(
            tmp_path, hub, config(p=purpose(count=count)), "scheduler.purposeMappings[p].tenancyCount"
        )
        assert "config-0.yaml: " in stderr and str(count) in stderr
    accepted(tmp_path, hub, config(p=purpose(count=0), q=purpose(count=0)))
    refused(tmp_path, hub, config(p=purpose(count=-1)), "tenancyCount: Invalid value: -1")
    refused(tmp_path, hub, config(p=purpose(count=1.5)), "tenancyCount: expected an integer")


@pytest.mark.parametrize("mode", MODES)
def test_any_seed_fixes_a_run(tmp_path, mode) -> None:
    # CP-SAT's random_seed is an int32: a seed past it was a TypeError from ortools.
    cfg = config(p=purpose(count=1), q=purpose(count=1))
    outputs = []
    for seed in (str(2**31 - 1), str(2**31), "100000000000000000000", "-100000000000000000000"):
        result = solve_cli(tmp_path, _balance_hub(), "--mode", mode, "--seed", seed, "-o", "json", config=cfg)
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout)
    again = solve_cli(
        tmp_path, _balance_hub(), "--mode", mode, "--seed", "100000000000000000000", "-o", "json", config=cfg
    )
    assert again.stdout == outputs[2]
    outcome = schedule(_balance_hub(), now=NOW_TIME, config=cfg, options=SolveOptions(mode=mode, seed=10**30))
    assert outcome.summary["unsatisfied"] == 0


def test_config_enums(tmp_path) -> None:
    hub = [request("foo", "a", "p")]
    for field, value in (("scope", "Global"), ("strategy", "Fastest")):
        refused(
            tmp_path, hub, {"scheduler": {field: value}}, f'scheduler.{field}: Unsupported value: "{value}"'
        )
    for scope in ("Cluster", "Namespaced"):
        accepted(tmp_path, hub, {"scheduler": {"scope": scope}})
    for strategy in ("Balanced", "Random", "Simple"):
        accepted(tmp_path, hub, {"scheduler": {"strategy": strategy}})
    refused(tmp_path, hub, config(p=purpose("shared")), 'template.spec.tenancy: Unsupported value: "shared"')


# --------------------------------------------------------------------------------- the objects


def _with(obj: dict, path: str, value) -> dict:
    """`obj` with `section.field` set to `value`."""
    section, field = path.split(".")
    obj.setdefault(section, {})[field] = value
    return obj


def _condition(**fields) -> dict:
    return {
        "type": "Ready",
        "status": "True",
        "reason": "Ok",
        "message": "",
        "lastTransitionTime": "2026-11-21T09:00:00Z",
        **fields,
    }


_STATUS = {"observedGeneration": 1, "phase": ""}  # a status requires both
OBJECTS = {
    "ClusterRequest/foo/a": lambda: request("foo", "a", "p") | {"status": dict(_STATUS)},
    "Cluster/ns/c": lambda: cluster("ns", "c", "p") | {"status": dict(_STATUS)},
}


@pytest.mark.parametrize("where", sorted(OBJECTS))
def test_generation_is_a_nonnegative_int64(tmp_path, where) -> None:
    cfg = config(p=purpose())
    for value in (0, INT64, 2.0):  # 2.0: the API server's 2
        accepted(tmp_path, [_with(OBJECTS[where](), "metadata.generation", value)], cfg)
    for value in (-1, INT64 + 1):
        obj = _with(OBJECTS[where](), "metadata.generation", value)
        refused(tmp_path, [obj], cfg, f"{where}: metadata.generation: must be between 0 and {INT64}")
    obj = _with(OBJECTS[where](), "metadata.generation", 1.5)
    refused(tmp_path, [obj], cfg, f"{where}: metadata.generation: expected an integer, got a number")


def test_a_whole_float_generation_is_observed_as_its_integer(tmp_path) -> None:
    asked = _with(request("foo", "a", "p"), "metadata.generation", 3.0)
    written = Written.solve(tmp_path, [cluster("ns", "c", "p"), asked], config(p=purpose()), "greedy")
    observed = written.requests()["foo/a"]["status"]["observedGeneration"]
    assert observed == 3 and type(observed) is int


@pytest.mark.parametrize("where", sorted(OBJECTS))
def test_status_integers_at_and_past_int64(tmp_path, where) -> None:
    cfg = config(p=purpose())
    for value in (-INT64 - 1, INT64):
        accepted(tmp_path, [_with(OBJECTS[where](), "status.observedGeneration", value)], cfg)
    for value in (-INT64 - 2, INT64 + 1):
        obj = _with(OBJECTS[where](), "status.observedGeneration", value)
        refused(tmp_path, [obj], cfg, f"{where}: status.observedGeneration: must be between")
    for value in (0, INT64):
        obj = _with(OBJECTS[where](), "status.conditions", [_condition(observedGeneration=value)])
        accepted(tmp_path, [obj], cfg)
    for value in (-1, INT64 + 1):
        obj = _with(
            OBJECTS[where](), "status.conditions", [_condition(), _condition(observedGeneration=value)]
        )
        refused(tmp_path, [obj], cfg, f"{where}: status.conditions[1].observedGeneration: must be between 0")


@pytest.mark.parametrize("where", sorted(OBJECTS))
def test_condition_status_is_true_false_or_unknown(tmp_path, where) -> None:
    cfg = config(p=purpose())
    for value in ("True", "False", "Unknown"):
        accepted(tmp_path, [_with(OBJECTS[where](), "status.conditions", [_condition(status=value)])], cfg)
    obj = _with(OBJECTS[where](), "status.conditions", [_condition(status="true")])
    refused(tmp_path, [obj], cfg, f"{where}: status.conditions[0].status: unsupported value 'true'")
    obj = _with(OBJECTS[where](), "status.conditions", [{"type": "Ready"}])
    refused(tmp_path, [obj], cfg, f"{where}: status.conditions[0].status: status is required")


def test_cluster_spec_as_its_crd_requires(tmp_path) -> None:
    cfg = config(p=purpose())
    for tenancy in ("Exclusive", "Shared"):
        accepted(tmp_path, [cluster("ns", "c", "p", tenancy=tenancy)], cfg)
    accepted(tmp_path, [_with(cluster("ns", "c", "p"), "spec.profile", "")], cfg)  # any string, "" too
    cases = [
        ("tenancy", "shared", "spec.tenancy: unsupported value 'shared'"),
        ("profile", None, "spec.profile: required"),
        ("profile", 1, "spec.profile: expected a string"),
        ("purposes", [], "spec.purposes: must have at least 1 item"),
        ("purposes", [None], "spec.purposes[0]: expected a string, got null"),  # was read as ""
    ]
    for field, value, needle in cases:
        refused(
            tmp_path, [_with(cluster("ns", "c", "p"), f"spec.{field}", value)], cfg, "Cluster/ns/c: " + needle
        )
    no_tenancy = cluster("ns", "c", "p")
    del no_tenancy["spec"]["tenancy"]
    refused(tmp_path, [no_tenancy], cfg, "Cluster/ns/c: spec.tenancy: required")


def test_the_library_refuses_the_same() -> None:
    from adapters.errors import InputError

    obj = _with(request("foo", "a", "p"), "metadata.generation", INT64 + 1)
    with pytest.raises(InputError, match="metadata.generation"):
        schedule([obj], now=NOW_TIME, config=TEST_01)


# ------------------------------------------------------------------ names the API server refuses


@pytest.mark.parametrize("mode", MODES)
def test_a_cluster_the_api_server_would_refuse_is_not_made(tmp_path, mode) -> None:
    # Upstream's create fails (the name of a custom resource is a DNS-1123 subdomain, its
    # namespace a DNS-1123 label, a generateName a subdomain but for a trailing '-'), the
    # reconcile errs and the request waits: it is written Pending, and no Cluster is written.
    cases = {
        "purpose-as-name": (config(Upper=purpose()), request("foo", "a", "Upper"), "name 'Upper'"),
        "template-name": (config(p=purpose(name="the_one")), request("foo", "a", "p"), "name 'the_one'"),
        "prefix": (
            config(p=purpose("Exclusive", generate_name="Mcp-")),
            request("foo", "a", "p"),
            "name 'Mcp-",
        ),
        "generate-name": (
            config(p=purpose("Exclusive", generate_name="mcp_")),
            request("foo", "a", "p", labels={"clusters.openmcp.cloud/randomize-cluster-name": "true"}),
            "generateName 'mcp_'",
        ),
        "namespace": (
            config(p=purpose("Exclusive", namespace="Clusters")),
            request("foo", "a", "p"),
            "namespace",
        ),
    }
    for cfg, obj, needle in cases.values():
        written = Written.solve(tmp_path, [obj], cfg, mode)
        assert written.phase("foo/a") == "Pending" and written.clusters() == {}
        assert f"the API server would refuse a Cluster with {needle}" in _why_waiting(obj, cfg)
    # A generateName may end in '-', and a name may hold dots.
    fine = config(p=purpose("Exclusive", generate_name="mcp.v1-"))
    hub = [request("foo", "a", "p", labels={"clusters.openmcp.cloud/randomize-cluster-name": "true"})]
    assert Written.solve(tmp_path, hub, fine, mode).phase("foo/a") == "Granted"


def _why_waiting(obj: dict, cfg: dict) -> str:
    """Why the request cannot make its cluster (upstream's reconcile error)."""
    from adapters.kube.manifests import from_objects
    from adapters.openmcp import api as openmcp

    _, context = openmcp.load(from_objects([obj], "<test>"), now=NOW_TIME, config=cfg)
    return context.requests["foo/a"].conflict or ""
