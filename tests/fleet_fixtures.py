"""Builders for KubeFleet objects (MemberCluster, ClusterResourcePlacement, ClusterResourceBinding,
ClusterSchedulingPolicySnapshot) as plain dicts, and helpers that run the command line on them.

Every time is relative to NOW, the `--now` the tests pass: `heartbeat=0.5` means "half a minute
before NOW". Every solve also runs the independent checker on the batch and result.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from adapters.cli.main import main
from adapters.fleet.policy import policy_hash
from adapters.kube.manifests import parse_text
from adapters.run.pipeline import Outcome, schedule_manifests
from solver import SolveOptions, check

NOW = "2026-11-21T12:00:00Z"
NOW_TIME = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
MODES = ("greedy", "optimal")

CLUSTER_API = "cluster.kubernetes-fleet.io/v1beta1"
PLACEMENT_API = "placement.kubernetes-fleet.io/v1beta1"

PARENT = "kubernetes-fleet.io/parent-CRP"
LATEST = "kubernetes-fleet.io/is-latest-snapshot"
INDEX = "kubernetes-fleet.io/policy-index"
NUMBER = "kubernetes-fleet.io/number-of-clusters"
CRP_GENERATION = "kubernetes-fleet.io/CRP-generation"
PREVIOUS_STATE = "kubernetes-fleet.io/previous-binding-state"
FINALIZER = "kubernetes-fleet.io/scheduler-crb-cleanup"
SCHEDULER_CLEANUP = "kubernetes-fleet.io/scheduler-cleanup"
PLACEMENT_CLEANUP = "kubernetes-fleet.io/crp-cleanup"
# A placement's finalizers once the placement controller and the scheduler have acted on it.
HELD = (PLACEMENT_CLEANUP, SCHEDULER_CLEANUP)

TOTAL_CPU = "resources.kubernetes-fleet.io/total-cpu"
ALLOCATABLE_CPU = "resources.kubernetes-fleet.io/allocatable-cpu"
AVAILABLE_CPU = "resources.kubernetes-fleet.io/available-cpu"
AVAILABLE_MEMORY = "resources.kubernetes-fleet.io/available-memory"
NODE_COUNT = "kubernetes-fleet.io/node-count"


def ago(minutes: float) -> str:
    """An RFC 3339 time `minutes` before NOW."""
    return (NOW_TIME - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


# -------------------------------------------------------------------------------------- clusters


def member_cluster(
    name: str,
    labels: Mapping[str, str] | None = None,
    *,
    properties: Mapping[str, str] | None = None,
    capacity: Mapping[str, str] | None = None,
    allocatable: Mapping[str, str] | None = None,
    available: Mapping[str, str] | None = None,
    taints: Iterable[tuple[str, str] | Mapping[str, str]] = (),
    heartbeat: float | None = 0.5,
    agent: bool = True,
    joined: str | None = "True",
    healthy: str | None = "True",
    health_changed: float = 120.0,
    leaving: bool = False,
) -> dict[str, Any]:
    """A MemberCluster. Times are minutes before NOW; None leaves the field or condition out.

    `agent=False` leaves out the MemberAgent entry (another agent still reports); `joined` and
    `healthy` are the status strings of the agent's conditions.
    """
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    if leaving:
        metadata["deletionTimestamp"] = ago(30)
    spec: dict[str, Any] = {
        "identity": {"kind": "ServiceAccount", "name": "fleet-member-agent", "namespace": "fleet-system"}
    }
    taint_list = []
    for taint in taints:
        if isinstance(taint, Mapping):
            taint_list.append(dict(taint))
        else:
            key, value = taint
            taint_list.append({"key": key, **({"value": value} if value else {}), "effect": "NoSchedule"})
    if taint_list:
        spec["taints"] = taint_list
    status: dict[str, Any] = {}
    if properties:
        status["properties"] = {k: {"value": v, "observationTime": ago(1)} for k, v in properties.items()}
    usage = {
        key: dict(value)
        for key, value in (("capacity", capacity), ("allocatable", allocatable), ("available", available))
        if value
    }
    if usage:
        status["resourceUsage"] = {**usage, "observationTime": ago(1)}
    conditions = []
    if joined is not None:
        conditions.append(agent_condition("Joined", joined, ago(60 * 24)))
    if healthy is not None:
        conditions.append(agent_condition("Healthy", healthy, ago(health_changed)))
    agents: list[dict[str, Any]] = [
        {
            "type": "AppliedWorkAgent",
            "lastReceivedHeartbeat": ago(0.1),
            "conditions": [agent_condition("Joined", "True", ago(600))],
        }
    ]
    if agent:
        member: dict[str, Any] = {"type": "MemberAgent", "conditions": conditions}
        if heartbeat is not None:
            member["lastReceivedHeartbeat"] = ago(heartbeat)
        agents.insert(0, member)
    status["agentStatus"] = agents
    # The top-level conditions are never consulted: say the opposite of the agent on purpose.
    status["conditions"] = [agent_condition("Joined", "Unknown", ago(600))]
    return {
        "apiVersion": CLUSTER_API,
        "kind": "MemberCluster",
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }


def agent_condition(kind: str, status: str, when: str) -> dict[str, Any]:
    """A condition as the member agent reports one (a reason, an empty message)."""
    reason = {"True": "InternalMemberCluster" + kind, "False": "InternalMemberClusterNot" + kind}
    if kind == "Healthy":
        reason["False"] = "InternalMemberClusterUnhealthy"
    return {
        "type": kind,
        "status": status,
        "lastTransitionTime": when,
        "reason": reason.get(status, "InternalMemberClusterUnknown"),
        "message": "",
    }


# -------------------------------------------------------------------------------------- policies


def label_selector(
    match: Mapping[str, str] | None = None, expressions: Sequence[tuple[str, str, Sequence[str]]] = ()
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if match:
        out["matchLabels"] = dict(match)
    if expressions:
        out["matchExpressions"] = [
            {"key": k, "operator": op, **({"values": list(v)} if v else {})} for k, op, v in expressions
        ]
    return out


def term(
    match: Mapping[str, str] | None = None,
    *,
    expressions: Sequence[tuple[str, str, Sequence[str]]] = (),
    properties: Sequence[tuple[str, str, str]] = (),
) -> dict[str, Any]:
    """A required clusterSelectorTerm: labels AND properties (name, operator, value)."""
    out: dict[str, Any] = {}
    if match or expressions:
        out["labelSelector"] = label_selector(match, expressions)
    if properties:
        out["propertySelector"] = {
            "matchExpressions": [{"name": n, "operator": op, "values": [v]} for n, op, v in properties]
        }
    return out


def preferred(
    weight: int, match: Mapping[str, str] | None = None, *, sort: str | None = None, order: str = "Descending"
) -> dict[str, Any]:
    preference: dict[str, Any] = {}
    if match:
        preference["labelSelector"] = label_selector(match)
    if sort:
        preference["propertySorter"] = {"name": sort, "sortOrder": order}
    return {"weight": weight, "preference": preference}


def spread(key: str, max_skew: int = 1, when: str = "DoNotSchedule") -> dict[str, Any]:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}


def toleration(key: str = "", value: str = "", operator: str = "Equal") -> dict[str, Any]:
    out: dict[str, Any] = {"operator": operator}
    if key:
        out["key"] = key
    if value:
        out["value"] = value
    return out


def _affinity(required: Sequence[dict] | None, prefer: Sequence[dict] | None) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    if required:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"clusterSelectorTerms": list(required)}
    if prefer:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = list(prefer)
    return {"clusterAffinity": affinity} if affinity else {}


def pick_all(
    *, required: Sequence[dict] | None = None, tolerations: Sequence[dict] | None = None
) -> dict[str, Any]:
    policy: dict[str, Any] = {"placementType": "PickAll"}
    if affinity := _affinity(required, None):
        policy["affinity"] = affinity
    if tolerations:
        policy["tolerations"] = list(tolerations)
    return policy


def pick_n(
    n: int,
    *,
    required: Sequence[dict] | None = None,
    prefer: Sequence[dict] | None = None,
    spread_by: Sequence[dict] | None = None,
    tolerations: Sequence[dict] | None = None,
) -> dict[str, Any]:
    policy: dict[str, Any] = {"placementType": "PickN", "numberOfClusters": n}
    if affinity := _affinity(required, prefer):
        policy["affinity"] = affinity
    if spread_by:
        policy["topologySpreadConstraints"] = list(spread_by)
    if tolerations:
        policy["tolerations"] = list(tolerations)
    return policy


def pick_fixed(*names: str) -> dict[str, Any]:
    return {"placementType": "PickFixed", "clusterNames": list(names)}


def crp(
    name: str,
    policy: Mapping[str, Any] | None = None,
    *,
    generation: int = 1,
    finalizers: Sequence[str] = (),
    deleting: bool = False,
) -> dict[str, Any]:
    """A placement; `finalizers=HELD` as a hub's once it was scheduled, `deleting` being deleted."""
    spec: dict[str, Any] = {
        "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": name}]
    }
    if policy is not None:
        spec["policy"] = copy.deepcopy(dict(policy))
    metadata: dict[str, Any] = {"name": name, "generation": generation}
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    if deleting:
        metadata["deletionTimestamp"] = ago(2)
    kind = "ClusterResourcePlacement"
    return {"apiVersion": PLACEMENT_API, "kind": kind, "metadata": metadata, "spec": spec}


# ------------------------------------------------------------------------- scheduler-owned objects


def snapshot(
    crp_name: str,
    index: int,
    policy: Mapping[str, Any] | None,
    *,
    latest: bool = True,
    n: int | None = None,
    crp_generation: int = 1,
    generation: int = 1,
    status: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A policy snapshot as the placement controller writes it (`n`: the number-of-clusters annotation)."""
    annotations = {CRP_GENERATION: str(crp_generation)}
    if n is not None:
        annotations[NUMBER] = str(n)
    obj: dict[str, Any] = {
        "apiVersion": PLACEMENT_API,
        "kind": "ClusterSchedulingPolicySnapshot",
        "metadata": {
            "name": f"{crp_name}-{index}",
            "generation": generation,
            "labels": {PARENT: crp_name, LATEST: "true" if latest else "false", INDEX: str(index)},
            "annotations": annotations,
        },
        "spec": {"policyHash": policy_hash_of(policy)},
    }
    if policy is not None:
        obj["spec"] = {"policy": copy.deepcopy(dict(policy)), **obj["spec"]}
    if status is not None:
        obj["status"] = copy.deepcopy(dict(status))
    return obj


def policy_hash_of(policy: Mapping[str, Any] | None) -> str:
    """spec.policyHash as the placement controller writes it: the bytes of the hex digest, base64."""
    return base64.b64encode(policy_hash(policy).encode()).decode()


def scheduled_condition(status: str, found: int, *, when: str, generation: int = 1) -> dict[str, Any]:
    if status == "True":
        reason = "SchedulingPolicyFulfilled"
        message = f"found all cluster needed as specified by the scheduling policy, found {found} cluster(s)"
    else:
        reason = "SchedulingPolicyUnfulfilled"
        message = (
            "could not find all clusters needed as specified by the scheduling policy, "
            f"found {found} cluster(s) instead"
        )
    return {
        "type": "Scheduled",
        "status": status,
        "reason": reason,
        "message": message,
        "observedGeneration": generation,
        "lastTransitionTime": when,
    }


def picked_reason(cluster: str, affinity: int | None = None, spread_score: int | None = None) -> str:
    if affinity is None:
        return f'Successfully scheduled resources for placement in "{cluster}": picked by scheduling policy'
    return (
        f'Successfully scheduled resources for placement in "{cluster}" (affinity score: {affinity}, '
        f"topology spread score: {spread_score}): picked by scheduling policy"
    )


def not_picked_reason(cluster: str, affinity: int, spread_score: int) -> str:
    return (
        f'Cluster "{cluster}" does not score high enough (affinity score: {affinity}, '
        f"topology spread score: {spread_score})"
    )


def decision(cluster: str, score: tuple[int, int] | None = None) -> dict[str, Any]:
    """A selected clusterDecision; `score` is (affinity, topology spread)."""
    out: dict[str, Any] = {"clusterName": cluster, "selected": True}
    if score is None:
        out["reason"] = picked_reason(cluster)
    else:
        out["clusterScore"] = {"affinityScore": score[0], "priorityScore": score[1]}
        out["reason"] = picked_reason(cluster, *score)
    return out


def binding(
    crp_name: str,
    cluster: str,
    *,
    state: str = "Scheduled",
    policy_snapshot: str | None = None,
    score: tuple[int, int] | None = (0, 0),
    name: str | None = None,
    annotations: Mapping[str, str] | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    """A binding as the scheduler wrote it; `score` is (affinity, topology spread), None for none."""
    metadata: dict[str, Any] = {
        "name": name or f"{crp_name}-{cluster}-0000abcd",
        "labels": {PARENT: crp_name},
        "finalizers": [FINALIZER],
        "resourceVersion": "12345",
        "uid": f"uid-{crp_name}-{cluster}",
    }
    if annotations:
        metadata["annotations"] = dict(annotations)
    if deleting:
        metadata["deletionTimestamp"] = ago(1)
    return {
        "apiVersion": PLACEMENT_API,
        "kind": "ClusterResourceBinding",
        "metadata": metadata,
        "spec": {
            "state": state,
            "resourceSnapshotName": f"{crp_name}-0-snapshot",
            "schedulingPolicySnapshotName": policy_snapshot or f"{crp_name}-0",
            "targetCluster": cluster,
            "clusterDecision": decision(cluster, score),
        },
    }


# ---------------------------------------------------------------------------------------- running


def write_yaml(path: Path, objects: Sequence[Mapping[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False), encoding="utf-8")
    return path


def run_cli(args: Sequence[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=True)


def solve_args(paths: Sequence[Path | str], mode: str, output: str = "yaml") -> list[str]:
    args = ["solve"]
    for path in paths:
        args += ["-f", str(path)]
    return [*args, "--now", NOW, "--mode", mode, "-o", output]


def checked_outcome(objects: Sequence[Mapping[str, Any]], mode: str) -> Outcome:
    """The library pipeline on `objects`, with the independent checker asserted clean."""
    text = yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False)
    manifests = parse_text(text, "fleet.yaml")
    outcome = schedule_manifests(manifests, now=NOW_TIME, options=SolveOptions(mode=mode), verify=False)
    problems = check(outcome.batch, outcome.result)
    assert problems == [], problems
    return outcome


def run_solve(tmp_path: Path, objects: Sequence[Mapping[str, Any]], mode: str, output: str = "yaml") -> str:
    """Write `objects`, run `solve` on them, assert success and a clean checker; the stdout."""
    path = write_yaml(tmp_path / f"fleet-{mode}-{output}.yaml", objects)
    result = run_cli(solve_args([path], mode, output))
    assert result.exit_code == 0, (result.exit_code, result.stderr, result.exception)
    assert result.stderr == ""
    checked_outcome(objects, mode)
    return result.stdout


class Written:
    """The objects one solve writes, with lookups by kind, placement and cluster."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects

    @classmethod
    def solve(cls, tmp_path: Path, objects: Sequence[Mapping[str, Any]], mode: str) -> Written:
        text = run_solve(tmp_path, objects, mode, "yaml")
        return cls([o for o in yaml.safe_load_all(text) if o is not None])

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def snapshots(self, crp_name: str) -> list[dict[str, Any]]:
        return [
            o
            for o in self.of_kind("ClusterSchedulingPolicySnapshot")
            if o["metadata"]["labels"][PARENT] == crp_name
        ]

    def snapshot(self, crp_name: str) -> dict[str, Any]:
        latest = [s for s in self.snapshots(crp_name) if s["metadata"]["labels"][LATEST] == "true"]
        assert len(latest) == 1, latest
        return latest[0]

    def bindings(self, crp_name: str) -> list[dict[str, Any]]:
        return [
            o for o in self.of_kind("ClusterResourceBinding") if o["metadata"]["labels"][PARENT] == crp_name
        ]

    def binding(self, crp_name: str, cluster: str, *, state: str | None = None) -> dict[str, Any]:
        found = [
            b
            for b in self.bindings(crp_name)
            if b["spec"]["targetCluster"] == cluster and (state is None or b["spec"]["state"] == state)
        ]
        assert len(found) == 1, found
        return found[0]

    def active(self, crp_name: str) -> dict[str, dict[str, Any]]:
        """Scheduled and Bound bindings by target cluster."""
        out: dict[str, dict[str, Any]] = {}
        for b in self.bindings(crp_name):
            if b["spec"]["state"] in ("Scheduled", "Bound"):
                assert b["spec"]["targetCluster"] not in out
                out[b["spec"]["targetCluster"]] = b
        return out

    def chosen(self, crp_name: str) -> list[str]:
        return sorted(self.active(crp_name))

    def targets(self, crp_name: str) -> list[dict[str, Any]]:
        return self.snapshot(crp_name).get("status", {}).get("targetClusters", [])

    def condition(self, crp_name: str) -> dict[str, Any]:
        conditions = self.snapshot(crp_name)["status"]["conditions"]
        assert [c["type"] for c in conditions] == ["Scheduled"]
        return conditions[0]

    def reasons(self, crp_name: str) -> dict[str, str]:
        """Unselected clusters' reasons by name."""
        return {t["clusterName"]: t["reason"] for t in self.targets(crp_name) if not t["selected"]}


def as_json(text: str) -> Any:
    return json.loads(text)
