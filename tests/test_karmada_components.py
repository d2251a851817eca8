"""Multi-component workloads (spec.components; gate MultiplePodTemplatesScheduling, on: the detector
fills components only then), upstream's own cases (karmada-io/karmada at v1.19, f8fdd02df) each
written as a whole hub and run through the command line.

- pkg/scheduler/core/estimation.go isMultiTemplateSchedulingApplicable: components and a cluster
  spread constraint of exactly one cluster; then capacity is counted in whole component sets
  (pkg/estimator/client/general.go MaxAvailableComponentSets, resource models included), read here
  from `explain`'s AVAILABLE column, and selection asks room for one set (common.go
  SelectClusters' needReplicas 1; -1, none, under a duplicating placement);
- common.go AssignReplicas: components past one run whole on every selected cluster, written with
  no replicas and, where the conditions hold, each component per cluster (buildTargetComponents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model import Batch, Choice, Division, GroupSpread, NodeClass, Part
from solver import SolveOptions, check
from solver import solve as solve_batch
from solver.replicas.estimate import Estimator, set_demand
from tests.fixtures import replicas as replicas_fixture
from tests.fixtures.common import NOW, run_cli, write_yaml
from tests.fixtures.karmada import applied, binding, cluster, divided, solve, written

ONE_CLUSTER = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]
AS_SETS = {"spreadConstraints": ONE_CLUSTER, "replicaScheduling": divided("Aggregated")}
MAX = "9223372036854775807"
FLINK = [("jobmanager", 1, {"cpu": "2"}), ("taskmanager", 4, {"cpu": "1"})]  # 6 cpus a set


def _components(parts: Sequence[tuple[str, int, Mapping[str, str]]]) -> list[dict[str, Any]]:
    return [
        {"name": name, "replicas": count, "replicaRequirements": {"resourceRequest": dict(request)}}
        for name, count, request in parts
    ]


def _flink(name: str = "rb", placement: Mapping[str, Any] = AS_SETS, parts=FLINK, **kw) -> dict[str, Any]:
    """A FlinkDeployment's binding as the detector writes it under the gate: components only."""
    out = binding(
        name, placement=placement, replicas=None, kind="FlinkDeployment", api_version="flink/v1", **kw
    )
    out["spec"]["components"] = _components(parts)
    return out


FLINK_API = {
    "groupVersion": "flink/v1",
    "resources": [{"name": "flinkdeployments", "kind": "FlinkDeployment"}],
}


def _cluster(name: str, **kw) -> dict[str, Any]:
    return cluster(name, apis=(FLINK_API,), **kw)


def _models(grades: Sequence[tuple[Mapping[str, str], int]]) -> tuple[list[dict], list[dict]]:
    """spec.resourceModels and allocatableModelings from each grade's `min` vector and node count,
    contiguous as the API server requires (each max the next min, the last MaxInt64)."""
    models, modelings = [], []
    for g, (low, count) in enumerate(grades):
        high = grades[g + 1][0] if g + 1 < len(grades) else dict.fromkeys(low, MAX)
        ranges = [{"name": r, "min": low[r], "max": high[r]} for r in low]
        models.append({"grade": g, "ranges": ranges})
        modelings.append({"grade": g, "count": count})
    return models, modelings


def _available(tmp_path, objects, target: str = "rb/default/rb") -> dict[str, int]:
    path = write_yaml(tmp_path / "hub.yaml", objects)
    got = run_cli(["explain", target, "-f", path, "--now", NOW, "--mode", "greedy", "-o", "yaml"])
    assert got.exit_code == 0, (got.output, got.exception)
    return {row["cluster"]: row["available"] for row in yaml.safe_load(got.stdout)["clusters"]}


def _run(tmp_path, objects, mode: str = "greedy") -> dict[str, dict[str, Any]]:
    result = solve(tmp_path, objects, mode, "-o", "yaml")
    assert result.exit_code == 0, result.output
    return written(result.stdout)


def _condition(obj: Mapping[str, Any]) -> tuple[str, str]:
    (c,) = obj["status"]["conditions"]
    return c["reason"], c["message"]


# ------------------------------------------------------- TestGetMaxAvailableComponentSetsGeneral

BASIC = {
    "allocatable": {"pods": "100", "cpu": "10", "memory": "8Gi"},
    "allocated": {"pods": "20", "cpu": "0", "memory": "2Gi"},
}


@pytest.mark.parametrize(
    ("summary", "parts", "sets"),
    [
        pytest.param(None, FLINK, 0, id="nil resource summary"),
        pytest.param(
            {"allocatable": {"pods": "10"}, "allocated": {"pods": "10"}}, FLINK, 0, id="no allowed pods"
        ),
        # a component list that holds no replica: the pods left (upstream: an empty list)
        pytest.param({"allocatable": {"pods": "10"}}, [("idle", 0, {})], 10, id="no pods in the set"),
        pytest.param(
            BASIC, [("jobmanager", 1, {"cpu": "1"}), ("taskmanager", 2, {"cpu": "1.5"})], 2, id="basic"
        ),
        pytest.param(
            BASIC,
            [
                ("jobmanager", 1, {"cpu": "1", "memory": "2Gi"}),
                ("taskmanager", 2, {"cpu": "2000m", "memory": "2Gi"}),
            ],
            1,
            id="mixed components",
        ),
        pytest.param(
            {"allocatable": {"pods": "3", "cpu": "100", "memory": "1Ti"}},
            [("small-component", 3, {"cpu": "10m", "memory": "1Mi"})],
            1,
            id="limited by pod count",
        ),
        pytest.param(
            {
                "allocatable": {"pods": "20", "cpu": "40", "memory": "64Gi", "nvidia.com/gpu": "8"},
                "allocated": {"pods": "0", "cpu": "0", "memory": "0Gi", "nvidia.com/gpu": "0"},
            },
            [("gpu-worker", 2, {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "1"})],
            4,
            id="GPUs",
        ),
    ],
)
def test_component_sets_by_the_summary(tmp_path, summary, parts, sets) -> None:
    objects = [_cluster("member1", **(summary or {})), _flink(parts=parts)]
    assert _available(tmp_path, objects) == {"member1": sets}


@pytest.mark.parametrize(
    ("parts", "sets"),
    [
        pytest.param([("jm", -1, {"cpu": "2"}), ("tm", 4, {"cpu": "1"})], 5, id="3 pods, 2 cpus a set"),
        pytest.param([("jm", -4, {"cpu": "1"}), ("tm", 2, {"cpu": "1"})], 20, id="no pods: the pods left"),
        pytest.param([("jm", -3, {"cpu": "1"}), ("tm", 4, {"memory": "1Gi"})], 2, id="cpu below 0 left out"),
    ],
)
def test_negative_component_replicas_count_as_upstream_sums_them(tmp_path, parts, sets) -> None:
    """A component's replicas are an int32 with no minimum: maxAvailableComponentSets sums the
    set's pods and each resource with the negatives (a total not above 0 left out; a set of no
    pods has the pods left as its room). 20 pods, 10 cpus, 8Gi free."""
    summary = {"allocatable": {"pods": "20", "cpu": "10", "memory": "8Gi"}}
    objects = [_cluster("member1", **summary), _flink(parts=parts)]
    assert _available(tmp_path, objects) == {"member1": sets}


# --------------------------------------------------------- TestGetMaximumSetsBasedOnResourceModels
# Upstream's grades start above 0, which the API server refuses of a Cluster: each hub's first
# grade starts at 0 with nodes that fit none of the parts, as upstream's lowest grades do.

ROOMY = {"pods": "1000", "cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "1000"}


@pytest.mark.parametrize(
    ("grades", "parts", "allocatable", "sets"),
    [
        pytest.param(
            [({"cpu": "0"}, 5), ({"cpu": "1"}, 0), ({"cpu": "2"}, 10)],
            [("cpu-job", 1, {"cpu": "1500m"})],
            ROOMY,
            10,
            id="CPU-only, only the highest grade fits",
        ),
        pytest.param(
            [
                ({"cpu": "0", "memory": "0", "nvidia.com/gpu": "0"}, 4),
                ({"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"}, 3),
                ({"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"}, 2),
            ],
            [("gpu-worker", 2, {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"})],
            ROOMY,
            3,
            id="multi-resource with GPUs across grades",
        ),
        pytest.param(
            [({"cpu": "0"}, 10), ({"cpu": "1"}, 10), ({"cpu": "2"}, 10)],
            [("too-heavy", 1, {"cpu": "3"})],
            ROOMY,
            0,
            id="no grade fits",
        ),
        pytest.param(
            [
                ({"cpu": "0", "memory": "0"}, 0),
                ({"cpu": "1", "memory": "2Gi"}, 2),
                ({"cpu": "3", "memory": "10Gi"}, 6),
                ({"cpu": "4", "memory": "12Gi"}, 3),
            ],
            [
                ("jobmanager", 1, {"cpu": "1", "memory": "2Gi"}),
                ("taskmanager", 3, {"cpu": "3", "memory": "10Gi"}),
            ],
            ROOMY,
            3,
            id="JM/TM across grades",
        ),
        pytest.param(  # the same, under upstream's summary (28 cpus, 96Gi free): it bounds first
            [
                ({"cpu": "0", "memory": "0"}, 0),
                ({"cpu": "1", "memory": "2Gi"}, 2),
                ({"cpu": "3", "memory": "10Gi"}, 6),
                ({"cpu": "4", "memory": "12Gi"}, 3),
            ],
            [
                ("jobmanager", 1, {"cpu": "1", "memory": "2Gi"}),
                ("taskmanager", 3, {"cpu": "3", "memory": "10Gi"}),
            ],
            {"cpu": "28", "memory": "96Gi", "pods": "950"},
            2,
            id="JM/TM, the summary bounds",
        ),
    ],
)
def test_component_sets_on_resource_models(tmp_path, grades, parts, allocatable, sets) -> None:
    models, modelings = _models(grades)
    member = _cluster("member1", allocatable=allocatable, models=models, modelings=modelings)
    assert _available(tmp_path, [member, _flink(parts=parts)]) == {"member1": sets}


# ------------------------------------------------------------- Test_isMultiTemplateSchedulingApplicable


@pytest.mark.parametrize(
    ("spread", "as_sets"),
    [
        pytest.param(None, False, id="empty spread constraints"),
        pytest.param(
            [
                {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
                {"spreadByField": "cluster", "minGroups": 1},
            ],
            False,
            id="non-cluster spread",
        ),
        pytest.param(
            [{"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2}], False, id="wrong min/max"
        ),
        pytest.param(ONE_CLUSTER, True, id="valid cluster spread"),
        pytest.param(
            [{"spreadByField": "region", "minGroups": 1, "maxGroups": 1}, *ONE_CLUSTER],
            True,
            id="one of several",
        ),
    ],
)
def test_sets_only_where_the_placement_asks_one_cluster(tmp_path, spread, as_sets) -> None:
    """Counted in sets (1 on a cluster of 10 cpus for 6 a set), or, not applicable, by
    replicaRequirements (none: the pods left, 100)."""
    placement: dict[str, Any] = {"replicaScheduling": divided("Aggregated")}
    if spread is not None:
        placement["spreadConstraints"] = spread
    member = _cluster("member1", region="r1", allocatable={"pods": "100", "cpu": "10"})
    assert _available(tmp_path, [member, _flink(placement=placement)]) == {"member1": 1 if as_sets else 100}


def test_a_single_component_is_counted_in_sets_too(tmp_path) -> None:
    """upstream's "single component and valid spread constraint should be applicable"."""
    member = _cluster("member1", allocatable={"pods": "100", "cpu": "10"})
    objects = [member, _flink(parts=[("worker", 3, {"cpu": "1"})])]
    assert _available(tmp_path, objects) == {"member1": 3}


# ------------------------------------------------------------------ TestAssignComponentSchedulingResults


def test_multi_component_workload_writes_complete_result(tmp_path) -> None:
    objects = [_cluster("member1", allocatable={"pods": "100", "cpu": "10"}), _flink()]
    rb = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert rb["spec"]["clusters"] == [
        {
            "name": "member1",
            "components": [{"name": "jobmanager", "replicas": 1}, {"name": "taskmanager", "replicas": 4}],
        }
    ]
    assert _condition(rb) == ("Success", "Binding has been scheduled successfully.")


def test_unsupported_placement_keeps_legacy_result(tmp_path) -> None:
    """No cluster spread of one: every selected cluster, the name alone."""
    objects = [_cluster("member1", allocatable={"pods": "100"}), _flink(placement={})]
    assert _run(tmp_path, objects)["ResourceBinding/default/rb"]["spec"]["clusters"] == [{"name": "member1"}]


def test_ordinary_workload_keeps_scalar_result(tmp_path) -> None:
    placement = {"replicaScheduling": divided()}
    objects = [
        _cluster("member1", allocatable={"pods": "100"}),
        binding(placement=placement, replicas=3, kind="FlinkDeployment", api_version="flink/v1"),
    ]
    assert _run(tmp_path, objects)["ResourceBinding/default/rb"]["spec"]["clusters"] == [
        {"name": "member1", "replicas": 3}
    ]


def test_a_single_component_without_replicas_goes_whole(tmp_path) -> None:
    """AssignReplicas divides only with spec.replicas or replicaRequirements: a binding of one
    component (the detector's, replicas 0) goes to the selected cluster with no number and no
    components (they are written past one)."""
    objects = [
        _cluster("member1", allocatable={"pods": "100", "cpu": "10"}),
        _flink(parts=[("worker", 3, {"cpu": "1"})]),
    ]
    assert _run(tmp_path, objects)["ResourceBinding/default/rb"]["spec"]["clusters"] == [{"name": "member1"}]


# ------------------------------------------------------------------------------------- selection


def test_the_set_goes_whole_to_the_one_cluster_with_room(tmp_path) -> None:
    """member1 has room for no set (5 cpus for 6), member2 for one: selection asks room for one
    set, so member2 is swapped in (selectClustersByAvailableResource)."""
    objects = [
        _cluster("member1", allocatable={"pods": "100", "cpu": "5"}),
        _cluster("member2", allocatable={"pods": "100", "cpu": "6"}),
        _flink(),
    ]
    assert [c["name"] for c in _run(tmp_path, objects)["ResourceBinding/default/rb"]["spec"]["clusters"]] == [
        "member2"
    ]


def test_no_cluster_with_room_for_a_set_is_a_selection_error(tmp_path) -> None:
    objects = [_cluster(f"member{i}", allocatable={"pods": "100", "cpu": "5"}) for i in (1, 2)] + [_flink()]
    rb = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert "clusters" not in rb["spec"]
    assert _condition(rb) == (
        "SchedulerError",
        "failed to select clusters: no enough resource when selecting 1 clusters",
    )


def test_static_weights_ignore_the_spread_and_run_the_set_everywhere(tmp_path) -> None:
    """Weighted without a weightPreference ignores spread constraints (shouldIgnoreSpreadConstraint):
    every candidate is selected, each running the whole set."""
    placement = {"spreadConstraints": ONE_CLUSTER, "replicaScheduling": divided()}
    objects = [_cluster(f"member{i}", allocatable={"pods": "100", "cpu": "5"}) for i in (1, 2)]
    clusters = _run(tmp_path, objects + [_flink(placement=placement)])["ResourceBinding/default/rb"]["spec"][
        "clusters"
    ]
    assert [(c["name"], len(c["components"])) for c in clusters] == [("member1", 2), ("member2", 2)]


def test_a_duplicating_placement_ignores_room(tmp_path) -> None:
    """No replicaScheduling (Duplicated): needReplicas -1, the first candidate whatever its room."""
    objects = [_cluster(f"member{i}", allocatable={"pods": "100", "cpu": "5"}) for i in (1, 2)]
    objects.append(_flink(placement={"spreadConstraints": ONE_CLUSTER}))
    rb = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert [c["name"] for c in rb["spec"]["clusters"]] == ["member1"]
    assert _condition(rb)[0] == "Success"


def test_components_evicted_from_every_cluster_are_rescheduled(tmp_path) -> None:
    """IsBindingReplicasChanged under the gate: components and no clusters left (failover)."""
    rb = applied(_flink(evictions=["member1"]))
    objects = [
        _cluster("member1", allocatable={"pods": "100", "cpu": "10"}),
        _cluster("member2", allocatable={"pods": "100", "cpu": "10"}),
        rb,
    ]
    got = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert [c["name"] for c in got["spec"]["clusters"]] == ["member2"]


# ---------------------------------------------------------------------------------- optimal mode


def test_optimal_puts_two_sets_on_two_clusters_where_greedy_piles_both_on_one(tmp_path) -> None:
    """member1 (7 cpus) and member2 (6) have room for one set of 6 cpus each: greedy, each binding
    seeing the snapshot as given, sends both to member1 (the first by name among equals), which
    over-commits it; optimal puts one set on each."""
    objects = [
        _cluster("member1", allocatable={"pods": "100", "cpu": "7"}),
        _cluster("member2", allocatable={"pods": "100", "cpu": "6"}),
        _flink("a"),
        _flink("b"),
    ]
    greedy = _run(tmp_path, objects, "greedy")
    optimal = _run(tmp_path, objects, "optimal")
    assert [c["name"] for c in greedy["ResourceBinding/default/a"]["spec"]["clusters"]] == ["member1"]
    placed = sorted(
        optimal[f"ResourceBinding/default/{k}"]["spec"]["clusters"][0]["name"] for k in ("a", "b")
    )
    assert placed == ["member1", "member2"]
    assert [c["name"] for c in greedy["ResourceBinding/default/b"]["spec"]["clusters"]] == ["member1"]
    for k in ("a", "b"):
        (entry,) = optimal[f"ResourceBinding/default/{k}"]["spec"]["clusters"]
        assert "replicas" not in entry and len(entry["components"]) == 2


# ------------------------------------------------------------------------ the neutral model's rules


def _sets_batch(*sizes: int, nodes: Sequence[NodeClass] = ()) -> Batch:
    """Clusters with `sizes` cpus each; two requests of a set of parts (2 + 4 x 1 cpus), one
    cluster each (the adapter's cluster spread of one)."""
    clusters = tuple(
        replicas_fixture.cluster(f"c{i}", {"cpu": cpus, "pods": 100}, nodes=nodes)
        for i, cpus in enumerate(sizes)
    )
    parts = (Part(1, {"cpu": 2, "pods": 1}), Part(4, {"cpu": 1, "pods": 1}))
    requests = tuple(
        replace(r, replicas=replace(r.replicas, parts=parts, spread_by_room=True))
        for r in (
            replicas_fixture.request(name, 0, Division.EVERY, groups=[GroupSpread("", 1, 1)], order=k)
            for k, name in enumerate(("a", "b"))
        )
    )
    return Batch(clusters, requests)


def test_the_checker_refuses_a_set_split_or_counted() -> None:
    batch = _sets_batch(6, 6)
    result = solve_batch(batch, SolveOptions(mode="greedy"))
    assert check(batch, result) == []
    got = result.requests[0]
    split = replace(got, selected=(*got.selected, Choice("c1", replicas=None)))
    assert any(
        "not within the cluster spread" in p
        for p in check(batch, replace(result, requests=(split, *result.requests[1:])))
    )
    counted = replace(got, selected=(replace(got.selected[0], replicas=6),))
    assert any(
        "none to count" in p for p in check(batch, replace(result, requests=(counted, *result.requests[1:])))
    )


@pytest.mark.parametrize("sizes", [(6, 6), (7, 6), (12, 5), (6, 5), (18,)])
def test_optimal_never_overcommits_with_sets_and_schedules_all_that_fit(sizes) -> None:
    """Each set (6 cpus) whole on one cluster, the sets on a cluster within its free cpus, and as
    many scheduled as whole sets fit the clusters."""
    batch = _sets_batch(*sizes)
    optimal = solve_batch(batch, SolveOptions(mode="optimal"))
    assert check(batch, optimal) == []
    used: dict[str, int] = {}
    for got in optimal.requests:
        if got.failure is None:
            (choice,) = got.selected
            used[choice.cluster] = used.get(choice.cluster, 0) + 6
    free = {c.name: c.capacity.free["cpu"] for c in batch.clusters}
    assert all(used[name] <= free[name] for name in used)
    fits = sum(cpus // 6 for cpus in sizes)
    assert sum(got.failure is None for got in optimal.requests) == min(2, fits)


def test_sets_on_nodes_fill_first_fit_part_after_part() -> None:
    """Three nodes of 4 cpus (12 in all, two sets of 6 by the sum): a set of two parts of 3 cpus
    takes 3 on node 1 and 3 on node 2 (1 left on each); the next set's first part takes node 3,
    its second finds no node with 3 free: one set (SchedulingSimulator's first fit)."""
    nodes = (NodeClass(3, {"cpu": 4, "pods": 110}),)
    member = replicas_fixture.cluster("c0", {"cpu": 12, "pods": 100}, nodes=nodes)
    parts = (Part(1, {"cpu": 3, "pods": 1}), Part(1, {"cpu": 3, "pods": 1}))
    assert Estimator((member,)).sets(parts).tolist() == [1]
    assert Estimator((member,)).sets(parts[:1]).tolist() == [3]


def test_a_negative_part_places_nothing_on_nodes() -> None:
    """A part of -1 replicas takes 3 cpus off the set's summed footprint (a summary bound of 4
    sets), but places no replica on a node: the two others fill the nodes as above (one set)."""
    nodes = (NodeClass(3, {"cpu": 4, "pods": 110}),)
    member = replicas_fixture.cluster("c0", {"cpu": 12, "pods": 100}, nodes=nodes)
    part = Part(1, {"cpu": 3, "pods": 1})
    assert Estimator((member,)).sets((Part(-1, {"cpu": 3, "pods": 1}), part, part)).tolist() == [1]


@pytest.mark.parametrize(
    ("parts", "index", "message"),
    [
        ([("", 1, {})], 0, "component names must be non-empty"),
        ([("worker", 1, {}), ("worker", 2, {})], 1, "component names must be unique"),
    ],
)
def test_component_names_the_webhook_refuses(tmp_path, parts, index, message) -> None:
    """pkg/webhook/resourcebinding validateComponents (under the gate): exit 2, one line."""
    result = solve(tmp_path, [_cluster("member1"), _flink(parts=parts)], "greedy")
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: ResourceBinding/default/rb: spec.components[{index}].name"), line
    assert message in line


def _first_fit(nodes: Sequence[NodeClass], parts: Sequence[Part], limit: int) -> int:
    """SchedulingSimulator as upstream writes it: each set, each part, every node from the first."""
    free = [dict(node.capacity) for node in nodes for _ in range(node.count)]
    for placed in range(limit):
        for part in parts:
            remaining = part.count
            for node in free:
                if not remaining:
                    break
                wanted = {r: a for r, a in part.demand.items() if a > 0}
                fit = min((node.get(r, 0) // a for r, a in wanted.items()), default=remaining)
                take = min(remaining, max(fit, 0))
                for r, a in wanted.items():
                    node[r] = node.get(r, 0) - take * a
                remaining -= take
            if remaining:
                return placed
    return limit


@given(
    nodes=st.lists(
        st.builds(
            lambda k, cpu, pods: NodeClass(k, {"cpu": cpu, "pods": pods}),
            st.integers(0, 3),
            st.integers(0, 9),
            st.integers(0, 5),
        ),
        min_size=1,
        max_size=3,
    ),
    parts=st.lists(
        st.builds(lambda k, cpu: Part(k, {"cpu": cpu, "pods": 1}), st.integers(0, 4), st.integers(0, 4)),
        min_size=1,
        max_size=3,
    ),
)
@settings(max_examples=200, deadline=None)
def test_sets_on_nodes_are_upstreams_first_fit(nodes, parts) -> None:
    """Whole sets on nodes, parts alike (counted at once) or not (simulated), as upstream's
    first fit finds them, under a summary that bounds nothing."""
    assume(any(p.count for p in parts))
    member = replicas_fixture.cluster("c0", {"cpu": 10**6, "pods": 10**6}, nodes=nodes)
    summary = min(10**6 // v for v in set_demand(parts).values() if v > 0)
    assert int(Estimator((member,)).sets(parts)[0]) == _first_fit(nodes, parts, summary)


def test_the_bench_counts_a_set_greedy_over_commits() -> None:
    """bench.karmada_hub counts a set as one on its cluster, taking its whole footprint: greedy's
    two sets on c0 (room for one) over-commit it by one set; optimal's none."""
    from bench.karmada_hub import overcommit

    batch = _sets_batch(7, 6)
    assert overcommit(batch, solve_batch(batch, SolveOptions(mode="greedy"))) == (1, 1)
    assert overcommit(batch, solve_batch(batch, SolveOptions(mode="optimal"))) == (0, 0)
