"""-o apply-script: a POSIX shell script that makes exactly the writes the upstream schedulers make.

Each system's scenario holds creations, changes (spec, status, labels, annotations, finalizers) and
deletions where upstream makes them (kcp creates and deletes nothing). The script is run by the
system's `sh` with a stand-in `kubectl` that records each call; a hub replays the calls against the
input objects, as the API server would (preconditions checked, status only through the status
subresource). Checked against data written here from the upstream sources (not from the
declarations under test): what each controller owns, which requests carry preconditions, the field
managers, and kubectl's flags.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.cli.writeback import apply_script
from adapters.kube.manifests import parse_text
from adapters.run.changes import changed_objects, object_key
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions
from tests.fixtures import fleet as fl
from tests.fixtures import kcp as kc
from tests.fixtures import ocm as oc
from tests.fixtures import openmcp as om

# --------------------------------------------------------------------------- kubectl's contract
# The flags the scripts use, as kubectl defines them in kubernetes/kubernetes v1.36.2
# (staging/src/k8s.io/kubectl/pkg/cmd/..., read in its published copy kubernetes/kubectl at tag
# kubernetes-1.36.2, commit 7f7757ab161bd61696d81c3a7d06db1d854f8ba5), and the global ones from
# staging/src/k8s.io/cli-runtime/pkg/genericclioptions/config_flags.go (kubernetes/cli-runtime at
# kubernetes-1.36.2, c97bc2fe537b7780b37b8390a6b1e767b046f695).
KUBECTL_RELEASE = "v1.36.2"


def _bool(value: str) -> bool:
    return value in ("true", "false")


def _jsonpath(value: str) -> bool:
    # cli-runtime pkg/genericclioptions/jsonpath_flags.go: "jsonpath=<template>"
    return value.startswith("jsonpath=") and len(value) > len("jsonpath=")


def _manager(value: str) -> bool:
    # apiserver: a field manager is at most 128 printable characters (FieldManagerMaxLength)
    return 0 < len(value) <= 128 and value.isprintable()


FLAGS: dict[str, dict[str, Callable[[str], bool]]] = {
    # pkg/cmd/create/create.go NewCmdCreate: AddFilenameOptionFlags (-f, --filename),
    # AddFieldManagerFlagVar (--field-manager, default "kubectl-create"), PrintFlags (-o, --output)
    "create": {"--filename": "-".__eq__, "--field-manager": _manager, "--output": _jsonpath},
    # pkg/cmd/patch/patch.go NewCmdPatch: --type (json, merge, strategic; default strategic),
    # --patch-file (read with os.ReadFile), AddSubresourceFlags (--subresource),
    # AddFieldManagerFlagVar (default "kubectl-patch"), PrintFlags (-o)
    "patch": {
        "--type": {"json", "merge", "strategic"}.__contains__,
        "--patch-file": "/dev/stdin".__eq__,
        "--subresource": "status".__eq__,
        "--field-manager": _manager,
        "--output": _jsonpath,
    },
    # pkg/cmd/delete/delete_flags.go: --ignore-not-found (bool), --wait (bool, default true)
    "delete": {"--ignore-not-found": _bool, "--wait": _bool},
    # pkg/cmd/config/view.go: --minify (bool), PrintFlags (-o)
    "config view": {"--minify": lambda v: v == "", "--output": _jsonpath},
}
# config_flags.go: -n, --namespace; -s, --server
GLOBAL_FLAGS: dict[str, Callable[[str], bool]] = {
    "--namespace": lambda v: bool(v),
    "--server": lambda v: v.startswith("https://"),
}
# pkg/cmd/apply/apply.go is not used: a server-side apply records the fields it sends under the
# Apply operation for its manager (upstream's requests are Update operations), takes every field in
# the object sent, and --subresource there writes a whole subresource object; patch carries exactly
# the changed fields.
POSITIONAL = {"create": 0, "patch": 2, "delete": 2, "config view": 0}

# ---------------------------------------------------------------- what upstream's controllers write
# Per kind, the fields its upstream controller writes ("path", or "path[key]" for one map entry,
# "path[prefix*]" for the entries of a prefix); read from the sources the writes modules cite.
OWNED: dict[tuple[str, str], tuple[str, ...]] = {
    # kubefleet pkg/scheduler/{scheduler.go,framework/framework.go,framework/frameworkutils.go},
    # pkg/controllers/placement/controller.go
    ("placement.kubernetes-fleet.io", "ClusterResourcePlacement"): ("metadata.finalizers",),
    ("placement.kubernetes-fleet.io", "ClusterResourceBinding"): (
        "metadata.finalizers",
        "metadata.annotations",
        "spec.state",
        "spec.schedulingPolicySnapshotName",
        "spec.clusterDecision",
    ),
    ("placement.kubernetes-fleet.io", "ClusterSchedulingPolicySnapshot"): (
        "metadata.labels[kubernetes-fleet.io/is-latest-snapshot]",
        "metadata.annotations[kubernetes-fleet.io/CRP-generation]",
        "metadata.annotations[kubernetes-fleet.io/number-of-clusters]",
        "status.observedCRPGeneration",
        "status.conditions",
        "status.targetClusters",
    ),
    # ocm pkg/placement/controllers/scheduling/scheduling_controller.go
    ("cluster.open-cluster-management.io", "PlacementDecision"): ("metadata.labels", "status.decisions"),
    ("cluster.open-cluster-management.io", "Placement"): (
        "status.numberOfSelectedClusters",
        "status.decisionGroups",
        "status.conditions",
    ),
    # openmcp-operator internal/controllers/scheduler/controller.go, controller-utils status_updater.go
    ("clusters.openmcp.cloud", "Cluster"): (
        "metadata.finalizers",
        "metadata.labels",
        "metadata.annotations",
        "spec",
    ),
    ("clusters.openmcp.cloud", "ClusterRequest"): (
        "metadata.finalizers",
        "metadata.annotations[openmcp.cloud/operation]",
        "status.observedGeneration",
        "status.phase",
        "status.cluster",
    ),
    # kcp v0.8 pkg/reconciler/{scheduling,workload}/placement, workload/namespace
    ("scheduling.kcp.dev", "Placement"): (
        "metadata.annotations[internal.workload.kcp.dev/synctarget]",
        "status.phase",
        "status.selectedLocation",
        "status.conditions",
    ),
}
# kcp's Namespaces: v0.5 pkg/reconciler/scheduling/placement; v0.8 pkg/reconciler/workload/namespace
NAMESPACE_OWNED = {
    "v0.5": (
        "metadata.annotations[scheduling.kcp.dev/placement]",
        "metadata.annotations[internal.scheduling.kcp.dev/negotiation-workspace]",
        "status.conditions",
    ),
    "v0.8": (
        "metadata.annotations[scheduling.kcp.dev/placement]",
        "metadata.annotations[deletion.internal.workload.kcp.dev/*]",
        "metadata.labels[state.workload.kcp.dev/*]",
        "status.conditions",
    ),
}
RESOURCES = {
    ("placement.kubernetes-fleet.io", "ClusterResourcePlacement"): "clusterresourceplacements",
    ("placement.kubernetes-fleet.io", "ClusterResourceBinding"): "clusterresourcebindings",
    ("placement.kubernetes-fleet.io", "ClusterSchedulingPolicySnapshot"): "clusterschedulingpolicysnapshots",
    ("cluster.open-cluster-management.io", "PlacementDecision"): "placementdecisions",
    ("cluster.open-cluster-management.io", "Placement"): "placements",
    ("clusters.openmcp.cloud", "Cluster"): "clusters",
    ("clusters.openmcp.cloud", "ClusterRequest"): "clusterrequests",
    ("scheduling.kcp.dev", "Placement"): "placements",
    ("", "Namespace"): "namespaces",
}
# The field manager: the binary's name, from client-go's default user agent (kubefleet
# docker/hub-agent.Dockerfile; ocm build/Dockerfile.placement; openmcp-operator's image; kcp cmd/kcp).
MANAGERS = {"fleet": "hubagent", "ocm": "placement", "openmcp": "openmcp-operator", "kcp": "kcp"}

BOTH = frozenset({"uid", "resourceVersion"})
NONE: frozenset[str] = frozenset()


def fleet_preconditions(kind: str, status: bool, body: Mapping[str, Any]) -> frozenset[str]:
    """Updates carry the object as read (uid and resourceVersion); the binding patch is
    MergeFromWithOptimisticLock (resourceVersion only)."""
    spec = body.get("spec") or {}
    metadata = body.get("metadata") or {}
    if kind == "ClusterResourceBinding" and not metadata and spec.get("state") != "Unscheduled":
        return frozenset({"resourceVersion"})
    return BOTH


def openmcp_preconditions(kind: str, status: bool, body: Mapping[str, Any]) -> frozenset[str]:
    """Merge patches (client.MergeFrom) carry none; recovering a cluster is an Update."""
    return BOTH if kind == "Cluster" and "spec" in body else NONE


def kcp_preconditions(kind: str, status: bool, body: Mapping[str, Any]) -> frozenset[str]:
    """v0.5: the placement annotation patch and the status patch carry both; v0.8: only the status
    patches (a Placement's, a Namespace's) carry them."""
    if status:
        return BOTH
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    placement = annotations.get("scheduling.kcp.dev/placement")
    return BOTH if isinstance(placement, str) and placement.startswith("{") else NONE


PRECONDITIONS = {
    "fleet": fleet_preconditions,
    "ocm": lambda kind, status, body: BOTH,  # sdk-go patcher: uid and resourceVersion in every patch
    "openmcp": openmcp_preconditions,
    "kcp": kcp_preconditions,
}


# ----------------------------------------------------------------------------------------- scenarios


def versioned(objects: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The objects as `kubectl get -o yaml` gives them: each with a uid and a resourceVersion."""
    out = []
    for i, obj in enumerate(objects):
        obj = copy.deepcopy(dict(obj))
        metadata = obj["metadata"]
        metadata.setdefault(
            "uid", f"uid-{obj['kind'].lower()}-{metadata.get('namespace', '')}-{metadata['name']}"
        )
        metadata.setdefault("resourceVersion", str(100 + i))
        out.append(obj)
    return out


def fleet_hub() -> list[dict[str, Any]]:
    a = fl.pick_n(2)
    old = {"placementType": "PickN", "numberOfClusters": 1}
    everywhere = {"placementType": "PickAll"}
    stale = {"observedCRPGeneration": 1, "conditions": [fl.scheduled_condition("False", 1, when=fl.ago(10))]}
    b = fl.crp("crp-b", everywhere, generation=2)
    b["spec"]["revisionHistoryLimit"] = 2
    return [
        *(fl.member_cluster(f"m{i}") for i in range(1, 5)),
        fl.crp("crp-a", a),
        fl.snapshot("crp-a", 0, a, n=2, status=stale),
        fl.binding("crp-a", "m1", policy_snapshot="crp-a-0"),  # kept
        # its cluster is gone: marked Unscheduled, its annotations replaced
        fl.binding("crp-a", "m9", policy_snapshot="crp-a-0", annotations={"note": "x"}),
        # picked again: restored to the state it had
        fl.binding(
            "crp-a",
            "m4",
            state="Unscheduled",
            policy_snapshot="crp-a-0",
            annotations={fl.PREVIOUS_STATE: "Bound"},
        ),
        # a new policy: snapshot 1 is no longer the latest, 0 goes (history 2), 2 is made
        b,
        fl.snapshot("crp-b", 0, old, latest=False, n=1),
        fl.snapshot("crp-b", 1, old, n=1),
        fl.binding("crp-b", "m2", policy_snapshot="crp-b-1"),  # obsolete: moved onto crp-b-2
        # the same policy, a newer generation: the CRP-generation annotation follows
        fl.crp("crp-c", everywhere, generation=3),
        fl.snapshot("crp-c", 0, everywhere, crp_generation=2, status=stale),
        fl.binding("crp-c", "m3", policy_snapshot="crp-c-0", deleting=True, name="crp-c-m3-gone"),
        # being deleted: its binding released and deleted, its snapshot deleted, then its finalizer
        fl.crp("crp-d", everywhere, finalizers=fl.HELD, deleting=True),
        fl.snapshot("crp-d", 0, everywhere),
        fl.binding("crp-d", "m1", policy_snapshot="crp-d-0"),
    ]


def ocm_hub() -> list[dict[str, Any]]:
    web_status = {"numberOfSelectedClusters": 2, "conditions": []}
    return [
        *oc.hub(*(oc.managed_cluster(f"c{i}") for i in range(1, 5))),
        oc.placement("web", n=2, uid="uid-web", status=web_status),
        # its decisions change (status), then its labels (an old group index) are put right
        oc.decision("web", 1, ["c4"], index=3),
        oc.decision("web", 2, ["c3"]),  # one too many: deleted
        oc.placement("api", uid="uid-api"),  # new: its decision is created
    ]


OPENMCP_CONFIG = om.config(
    shared=om.purpose(count=2, namespace="pool"),
    exclusive=om.purpose("Exclusive", namespace="mcp", labels={"team": "platform"}),
    single=om.purpose(name="single", namespace="solo", labels={"tier": "one"}, purposes=["single"]),
)


def openmcp_hub() -> list[dict[str, Any]]:
    propagated = om.PROPAGATED + "owner"
    return [
        om.cluster(
            "pool", "legacy", "legacy", finalizers=[om.fin("team", "old")], labels={om.DELETE_LABEL: "true"}
        ),
        om.cluster("pool", "shared-2", "shared"),
        om.cluster("mcp", "held", "exclusive", tenancy="Exclusive", finalizers=[om.fin("team", "held")]),
        om.cluster("solo", "single", "other", finalizers=[om.stale("z")], labels={"kept": "yes"}),
        om.request("team", "a", "shared", at_minute=1),  # placed on shared-2
        om.request(  # a new Exclusive cluster, the reconcile annotation taken off
            "team",
            "x",
            "exclusive",
            at_minute=2,
            labels={propagated: "x"},
            annotations={om.OPERATION: "reconcile"},
        ),
        om.request(  # granted: its propagated annotation follows onto its cluster
            "team", "held", "exclusive", at_minute=3, annotations={propagated: "new"}, granted=("mcp", "held")
        ),
        om.request("team", "s", "single", at_minute=4),  # takes over solo/single (a stale finalizer only)
        om.request("team", "r", "exclusive", at_minute=5, labels={om.RANDOMIZE: "true"}),  # generateName
        om.request("team", "old", "legacy", deleting=True),  # leaves its cluster, which goes
    ]


def kcp_v05_hub() -> list[dict[str, Any]]:
    return [
        *kc.compute_v05(
            kc.cluster("east-1", "us-east"), kc.cluster("east-2", "us-east"), locations=["us-east"]
        ),
        kc.namespace("fresh"),  # placed: annotation and condition
        kc.namespace(  # its cluster is gone: the entry is dropped, a new one placed
            "moving",
            placement={kc.key(kc.COMPUTE, "us-east", "gone"): "Bound"},
            annotations={kc.NEGOTIATION: kc.COMPUTE},
        ),
        kc.namespace(  # no binding in its workspace: alpha.1's removal patch is refused, nothing written
            "orphan",
            workspace="root:org:other",
            placement={kc.key(kc.COMPUTE, "us-east", "east-1"): "Bound"},
            annotations={kc.NEGOTIATION: kc.COMPUTE},
        ),
    ]


def kcp_v08_hub() -> list[dict[str, Any]]:
    stale_key = "a" * 38
    return [
        *kc.compute_v08(kc.sync_target("t1", "eu"), locations=["eu"]),
        kc.placement("p1"),  # Pending: a location, a target
        kc.namespace("apps"),  # marked, synced to the target
        kc.namespace(  # holds a target no placement schedules any more: removing
            "old",
            labels={kc.STATE + stale_key: "Sync"},
        ),
    ]


@dataclass
class Scenario:
    system: str
    objects: list[dict[str, Any]]
    config: Mapping[str, Any] | None = None
    owned: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=lambda: OWNED)


SCENARIOS = {
    "fleet": Scenario("fleet", versioned(fleet_hub())),
    "ocm": Scenario("ocm", versioned(ocm_hub())),
    "openmcp": Scenario("openmcp", versioned(openmcp_hub()), OPENMCP_CONFIG),
    "kcp-v0.5": Scenario(
        "kcp", versioned(kcp_v05_hub()), owned={**OWNED, ("", "Namespace"): NAMESPACE_OWNED["v0.5"]}
    ),
    "kcp-v0.8": Scenario(
        "kcp", versioned(kcp_v08_hub()), owned={**OWNED, ("", "Namespace"): NAMESPACE_OWNED["v0.8"]}
    ),
}


@dataclass
class Run:
    scenario: Scenario
    manifests: list[Any]
    outcome: Any
    script: str


def solved(name: str) -> Run:
    scenario = SCENARIOS[name]
    text = yaml.safe_dump_all(scenario.objects, sort_keys=False)
    manifests = parse_text(text, f"{name}.yaml")
    options = SolveOptions(mode="greedy", seed=0)
    outcome = schedule_manifests(manifests, now=fl.NOW_TIME, options=options, config=scenario.config)
    return Run(scenario, manifests, outcome, apply_script(outcome, manifests))


# ------------------------------------------------------------------ running a script, replaying it

FAKE_KUBECTL = """\
import json, os, sys
log, known = os.environ["FAKE_KUBECTL_LOG"], os.environ["FAKE_KUBECTL_UIDS"]
args = sys.argv[1:]
reads = any(a in ("--patch-file=/dev/stdin", "--filename=-") for a in args)
data = sys.stdin.read() if reads else None
with open(log, "a") as f:
    f.write(json.dumps({"argv": args, "stdin": data}) + "\\n")
n = sum(1 for _ in open(log))
flags = dict((a.split("=", 1) + [""])[:2] for a in args if a.startswith("--"))
with open(known) as f:
    uids = json.load(f)
if args[0] == "create":  # the uid of what it makes, for later writes of the same object
    obj = json.loads(data)
    group, _, version = obj["apiVersion"].rpartition("/")
    plural = uids["plurals"][group + "/" + obj["kind"]]
    resource = f"{plural}.{version}.{group}" if group else plural
    name = obj["metadata"].get("name") or obj["metadata"]["generateName"]
    where = [resource, obj["metadata"].get("namespace", ""), name, flags.get("--server", "")]
    uids["uids"]["|".join(where)] = uid = f"uid-written-{n}"
    with open(known, "w") as f:
        json.dump(uids, f)
elif args[0] == "patch":
    where = [args[1], flags.get("--namespace", ""), args[2], flags.get("--server", "")]
    uid = uids["uids"]["|".join(where)]
if args[:2] == ["config", "view"]:
    sys.stdout.write("https://kcp.example:6443/clusters/root:org")
elif "--output" in flags:
    sys.stdout.write(f"{uid} {1000 + n}")
"""
SERVER = "https://kcp.example:6443"


@dataclass
class Call:
    number: int
    command: str  # create, patch, delete, config view
    positional: list[str]
    flags: dict[str, str]
    stdin: str | None

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(self.stdin)


def run_script(
    tmp_path: Path, script: str, objects: Sequence[Mapping[str, Any]], env: Mapping[str, str] | None = None
) -> list[Call]:
    """Run the script with the system's sh and a kubectl that records its calls and answers a
    write's `-o jsonpath` with the object's uid (the input's, or its own for what it made) and a
    resourceVersion of 1000 + the call's number."""
    uids = tmp_path / "uids.json"
    server = (env or {}).get("HUB_SERVER", "https://kcp.example:6443")
    known = {"|".join(_address(obj, server)): obj["metadata"]["uid"] for obj in objects if Hub.known(obj)}
    plurals = {f"{group}/{kind}": plural for (group, kind), plural in RESOURCES.items()}
    uids.write_text(json.dumps({"uids": known, "plurals": plurals}), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "kubectl"
    fake.write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}", encoding="utf-8")
    fake.chmod(0o755)
    path = tmp_path / "apply.sh"
    path.write_text(script, encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    log.unlink(missing_ok=True)
    environ = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "FAKE_KUBECTL_LOG": str(log),
        "FAKE_KUBECTL_UIDS": str(uids),
        **(env or {}),
    }
    done = subprocess.run(["sh", str(path)], env=environ, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = []
    for number, line in enumerate(log.read_text(encoding="utf-8").splitlines() if log.exists() else (), 1):
        record = json.loads(line)
        argv = record["argv"]
        command = "config view" if argv[:2] == ["config", "view"] else argv[0]
        rest = argv[2:] if command == "config view" else argv[1:]
        flags = dict((a.split("=", 1) + [""])[:2] for a in rest if a.startswith("--"))
        positional = [a for a in rest if not a.startswith("--")]
        calls.append(Call(number, command, positional, flags, record["stdin"]))
    return calls


def _address(obj: Mapping[str, Any], server: str) -> list[str]:
    """How the script's kubectl addresses an object: resource.version.group, namespace, name,
    and the workspace's server."""
    group, kind, workspace, namespace, name = object_key(obj)
    version = obj["apiVersion"].rpartition("/")[2]
    resource = f"{RESOURCES[group, kind]}.{version}.{group}" if group else RESOURCES[group, kind]
    return [resource, namespace, name, f"{server}/clusters/{workspace}" if workspace else ""]


def _path(spec: str) -> tuple[tuple[str, ...], str | None]:
    """ "a.b[key]" -> (("a", "b"), "key"); "a.b" -> (("a", "b"), None)."""
    path, _, key = spec.partition("[")
    return tuple(path.split(".")), key.removesuffix("]") or None


def _get(obj: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return None
        obj = obj[key]
    return obj


def _matches(key: str, pattern: str) -> bool:
    return key.startswith(pattern[:-1]) if pattern.endswith("*") else key == pattern


def owned_part(obj: Mapping[str, Any] | None, owned: Sequence[str]) -> dict[str, Any]:
    """The owned fields' values: {spec: value}, a map entry's value, or a prefix's entries."""
    out: dict[str, Any] = {}
    for spec in owned:
        path, key = _path(spec)
        value = _get(obj, path)
        if key is None:
            out[spec] = value
        else:
            out[spec] = {k: v for k, v in (value or {}).items() if _matches(k, key)}
    return out


def unowned_part(obj: Mapping[str, Any], owned: Sequence[str]) -> dict[str, Any]:
    """The object without its owned fields, uid and resourceVersion."""
    out = copy.deepcopy(dict(obj))
    for spec in owned:
        path, key = _path(spec)
        parent = _get(out, path[:-1]) if len(path) > 1 else out
        if not isinstance(parent, dict) or path[-1] not in parent:
            continue
        if key is None:
            del parent[path[-1]]
        else:
            parent[path[-1]] = {k: v for k, v in parent[path[-1]].items() if not _matches(k, key)}
            if not parent[path[-1]]:
                del parent[path[-1]]
    for name in ("uid", "resourceVersion"):
        out.get("metadata", {}).pop(name, None)
    return {k: v for k, v in out.items() if v not in ({}, None)}


def merge(target: Any, patch: Any) -> Any:
    """RFC 7386 applied."""
    if not isinstance(patch, Mapping):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge(out.get(key), value)
    return out


Key = tuple[str, str, str, str, str]  # group, resource, workspace, namespace, name


@dataclass
class Recorded:
    """One patch as the hub took it."""

    call: Call
    key: Key
    kind: str
    before: dict[str, Any]
    after: dict[str, Any]
    patch: dict[str, Any]  # without its preconditions
    preconditions: dict[str, str]


class Hub:
    """The input objects, changed as the API server changes them for each call."""

    def __init__(self, objects: Sequence[Mapping[str, Any]]) -> None:
        self.objects = {self.key_of(obj): copy.deepcopy(dict(obj)) for obj in objects if self.known(obj)}
        self.writes: list[Recorded] = []
        self.generated = 0

    @staticmethod
    def known(obj: Mapping[str, Any]) -> bool:
        return object_key(obj)[:2] in RESOURCES

    @staticmethod
    def key_of(obj: Mapping[str, Any]) -> Key:
        group, kind, workspace, namespace, name = object_key(obj)
        return group, RESOURCES[group, kind], workspace, namespace, name

    @staticmethod
    def target(call: Call) -> Key:
        resource, name = call.positional
        plural, _, rest = resource.partition(".")
        group = rest.partition(".")[2]
        server = call.flags.get("--server", "")
        workspace = server.partition("/clusters/")[2]
        return group, plural, workspace, call.flags.get("--namespace", ""), name

    def replay(self, calls: Sequence[Call]) -> None:
        for call in calls:
            getattr(self, call.command.replace(" ", "_"))(call)

    def config_view(self, call: Call) -> None:
        pass

    def create(self, call: Call) -> None:
        obj = call.body
        assert "status" not in obj, "a create carries no status: the API server drops it"
        metadata = obj["metadata"]
        if "name" not in metadata:
            self.generated += 1
            metadata["name"] = f"{metadata['generateName']}srv{self.generated}"
        metadata["uid"] = f"uid-written-{call.number}"
        metadata["resourceVersion"] = str(1000 + call.number)
        key = self.key_of(obj)
        if "--server" in call.flags:
            key = (*key[:2], call.flags["--server"].partition("/clusters/")[2], *key[3:])
        assert key not in self.objects, f"{key} exists"
        self.objects[key] = obj

    def patch(self, call: Call) -> None:
        key = self.target(call)
        obj = self.objects[key]
        body = call.body
        metadata = dict(body.get("metadata") or {})
        preconditions = {name: metadata.pop(name) for name in ("uid", "resourceVersion") if name in metadata}
        for name, value in preconditions.items():
            assert obj["metadata"][name] == value, f"{key}: precondition {name} {value} fails"
        patch = (
            {**body, "metadata": metadata} if metadata else {k: v for k, v in body.items() if k != "metadata"}
        )
        if call.flags.get("--subresource") == "status":
            assert set(patch) == {"status"}, f"{key}: a status patch carries {sorted(patch)}"
        else:
            assert "status" not in patch, f"{key}: status outside the status subresource"
        after = merge(obj, patch)
        after["metadata"]["resourceVersion"] = str(1000 + call.number)
        self.writes.append(Recorded(call, key, obj["kind"], obj, after, patch, preconditions))
        self.objects[key] = after

    def delete(self, call: Call) -> None:
        self.objects.pop(self.target(call), None)


# --------------------------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return {name: solved(name) for name in SCENARIOS}


@pytest.fixture(scope="module")
def replays(runs, tmp_path_factory) -> dict[str, tuple[list[Call], Hub]]:
    """Each scenario's script run (HUB_SERVER set) and replayed on its input."""
    out = {}
    for name, run in runs.items():
        calls = run_script(
            tmp_path_factory.mktemp(name), run.script, run.scenario.objects, {"HUB_SERVER": SERVER}
        )
        hub = Hub(run.scenario.objects)
        hub.replay(calls)
        out[name] = calls, hub
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_hub_ends_as_the_run_leaves_it_in_what_upstream_owns_and_nothing_else(runs, replays, name):
    run = runs[name]
    _, hub = replays[name]
    changed, _ = changed_objects(run.outcome.apply, run.manifests)
    deleted = {
        Hub.key_of({"apiVersion": r["apiVersion"], "kind": r["kind"], "metadata": r})
        for r in run.outcome.delete
    }
    assert bool(deleted) != name.startswith("kcp")  # kcp deletes nothing
    assert not deleted & hub.objects.keys()
    touched = set()
    for before, after in changed:
        owned = run.scenario.owned[object_key(after)[:2]]
        key = Hub.key_of(after) if after["metadata"].get("name") else None
        if key is None:  # a generated name: the one the hub gave
            key = next(k for k, o in hub.objects.items() if o["metadata"].get("generateName"))
        touched.add(key)
        if key in deleted:  # written (its finalizers), then deleted
            continue
        live = hub.objects[key]
        assert owned_part(live, owned) == owned_part(after, owned), key
        if before is None:
            assert unowned_part(live, owned) == unowned_part(_named(after, live), owned), key
        else:
            assert unowned_part(live, owned) == unowned_part(before, owned), key
    for obj in run.scenario.objects:
        key = Hub.key_of(obj) if Hub.known(obj) else None
        if key is not None and key not in touched and key not in deleted:
            assert hub.objects[key] == obj, f"{key} was written, the run does not change it"


def _named(after: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The object as made, with the name the API server gave it where it asked for one."""
    out = copy.deepcopy(dict(after))
    out["metadata"]["name"] = live["metadata"]["name"]
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_patch_carries_only_changed_owned_fields(runs, replays, name):
    run = runs[name]
    _, hub = replays[name]
    assert hub.writes
    for write in hub.writes:
        owned = run.scenario.owned[write.key[0], write.kind]
        for path, value in _leaves(write.patch):
            assert _is_owned(path, owned), f"{write.key}: {'.'.join(path)} is not the scheduler's"
            assert _get(write.before, path) != value or value is None, f"{write.key}: {path} unchanged"
            if value is None:
                assert _get(write.before, path) is not None, f"{write.key}: nulls {path}, which is absent"


def _leaves(patch: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = []
    for key, value in patch.items():
        if isinstance(value, Mapping) and value:
            out += _leaves(value, (*path, key))
        else:
            out.append(((*path, key), value))
    return out


def _is_owned(path: tuple[str, ...], owned: Sequence[str]) -> bool:
    for spec in owned:
        prefix, key = _path(spec)
        if path[: len(prefix)] != prefix:
            continue
        if key is None or (len(path) > len(prefix) and _matches(path[len(prefix)], key)):
            return True
    return False


@pytest.mark.parametrize("name", SCENARIOS)
def test_status_only_through_the_subresource_and_preconditions_as_upstream(runs, replays, name):
    run = runs[name]
    calls, hub = replays[name]
    expected = PRECONDITIONS[run.scenario.system]
    for write in hub.writes:
        status = write.call.flags.get("--subresource") == "status"
        assert status == ("status" in write.patch)
        assert set(write.preconditions) == expected(write.kind, status, write.patch), write.key
    # the hub held each precondition to the live object: the version an earlier write of the
    # script returned where there was one (1000 and up, from the stand-in kubectl), else the input's
    chained = {w.key for w in hub.writes if int(w.preconditions.get("resourceVersion", "0")) > 1000}
    assert bool(chained) == (name in CHAINED)


# Where upstream writes an object twice in a row, the second conditional on the first's version:
# Fleet's new snapshot then its status, OCM's new decision then its status and an existing
# decision's status then labels, kcp v0.5's placement annotation then the namespace's status, kcp
# v0.8's mark or state labels then the namespace's status.
CHAINED = {"fleet", "ocm", "kcp-v0.5", "kcp-v0.8"}


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenarios_hold_every_kind_of_write_upstream_makes(replays, name):
    calls, hub = replays[name]
    made = {call.command for call in calls}
    touched = {
        part
        for write in hub.writes
        for path, _ in _leaves(write.patch)
        for part in (path[0] if path[0] != "metadata" else f"metadata.{path[1]}",)
    }
    expected = {
        "fleet": (
            {"create", "patch", "delete"},
            {"spec", "status", "metadata.labels", "metadata.annotations", "metadata.finalizers"},
        ),
        "ocm": ({"create", "patch", "delete"}, {"status", "metadata.labels"}),
        "openmcp": (
            {"create", "patch", "delete"},
            {"spec", "status", "metadata.labels", "metadata.annotations", "metadata.finalizers"},
        ),
        "kcp-v0.5": ({"patch"}, {"status", "metadata.annotations"}),
        "kcp-v0.8": ({"patch"}, {"status", "metadata.labels", "metadata.annotations"}),
    }[name]
    assert made - {"config view"} == expected[0]
    assert touched == expected[1]


@pytest.mark.parametrize("name", SCENARIOS)
def test_command_lines_keep_kubectls_contract(tmp_path, runs, name):
    run = runs[name]
    calls = run_script(tmp_path, run.script, run.scenario.objects)  # kcp: the server from config view
    assert calls
    manager = MANAGERS[run.scenario.system]
    for call in calls:
        allowed = {**FLAGS[call.command], **GLOBAL_FLAGS}
        for flag, value in call.flags.items():
            assert flag in allowed, f"{call.command} has no {flag}"
            assert allowed[flag](value), f"{call.command} {flag}={value!r}"
        assert len(call.positional) == POSITIONAL[call.command], call
        if call.command in ("create", "patch"):
            assert call.flags["--field-manager"] == manager
        if call.command == "patch":
            assert call.flags["--type"] == "merge"
        if call.command == "delete":
            assert call.flags == {"--ignore-not-found": "true", "--wait": "false", **_scope(call)}
    if name.startswith("kcp"):
        assert calls[0].command == "config view"
        servers = {c.flags["--server"] for c in calls[1:]}
        assert servers and all(s.startswith("https://kcp.example:6443/clusters/root:org:") for s in servers)
    assert "kubectl apply" not in run.script


def _scope(call: Call) -> dict[str, str]:
    return {k: v for k, v in call.flags.items() if k in GLOBAL_FLAGS}


@pytest.mark.parametrize("name", SCENARIOS)
def test_same_run_same_bytes(runs, name):
    assert solved(name).script == runs[name].script


def test_the_command_line_prints_the_script(tmp_path, runs):
    path = fl.write_yaml(tmp_path / "hub.yaml", SCENARIOS["fleet"].objects)
    result = fl.run_cli([*fl.solve_args([path], "greedy", "apply-script")])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == runs["fleet"].script
    assert result.stdout.startswith("#!/bin/sh\n") and "\nset -eu\n" in result.stdout


def test_a_write_conditional_on_a_version_the_input_lacks_is_refused(tmp_path):
    objects = SCENARIOS["fleet"].objects
    bare = [copy.deepcopy(o) for o in objects]
    for obj in bare:
        if obj["kind"] == "ClusterSchedulingPolicySnapshot":
            obj["metadata"].pop("resourceVersion")
    path = fl.write_yaml(tmp_path / "hub.yaml", bare)
    result = fl.run_cli(fl.solve_args([path], "greedy", "apply-script"))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "ClusterSchedulingPolicySnapshot/" in result.stderr
    assert "metadata.resourceVersion" in result.stderr


def test_names_the_api_server_would_refuse_are_refused(tmp_path):
    objects = [copy.deepcopy(o) for o in SCENARIOS["ocm"].objects]
    for obj in objects:
        if obj["kind"] == "Placement" and obj["metadata"]["name"] == "api":
            obj["metadata"]["name"] = "api';touch x;'"
    result = oc.solve_cli(tmp_path, objects, "-o", "apply-script")
    assert result.exit_code == 2, result.output
    assert "metadata.name" in result.stderr and result.stdout == ""


def test_contents_reach_kubectl_unchanged_whatever_they_hold(tmp_path):
    hostile = "it's $(touch pwned) `touch pwned` \\ \"q\"\nEOF\n'EOF'\n%s %%"
    objects = [copy.deepcopy(o) for o in SCENARIOS["openmcp"].objects]
    for obj in objects:
        if obj["kind"] == "ClusterRequest" and obj["metadata"]["name"] == "x":
            obj["metadata"]["annotations"][om.PROPAGATED + "note"] = hostile
    manifests = parse_text(yaml.safe_dump_all(objects), "hostile.yaml")
    outcome = schedule_manifests(
        manifests, now=fl.NOW_TIME, options=SolveOptions(mode="greedy"), config=OPENMCP_CONFIG
    )
    script = apply_script(outcome, manifests)
    calls = run_script(tmp_path, script, objects)
    created = [c.body for c in calls if c.command == "create" and "note" in c.stdin]
    assert [c["metadata"]["annotations"][om.PROPAGATED + "note"] for c in created] == [hostile]
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    assert script.isascii()


def test_nothing_to_write_is_a_script_that_writes_nothing(tmp_path, runs):
    run = runs["ocm"]
    settled = _settled(run)
    manifests = parse_text(yaml.safe_dump_all(settled, sort_keys=False), "settled.yaml")
    outcome = schedule_manifests(manifests, now=fl.NOW_TIME, options=SolveOptions(mode="greedy"))
    script = apply_script(outcome, manifests)
    assert script.endswith("set -eu\n# nothing to write\n")
    assert run_script(tmp_path, script, settled) == []


def _settled(run: Run) -> list[dict[str, Any]]:
    """The hub after the run's objects are written: each written object as the run leaves it,
    keeping the uid and resourceVersion it had (new objects get their own)."""
    hub = {Hub.key_of(o) if Hub.known(o) else id(o): o for o in run.scenario.objects}
    for obj in run.outcome.apply:
        key = Hub.key_of(obj)
        had = (hub.get(key) or {}).get("metadata", {})
        metadata = {
            **obj["metadata"],
            "uid": had.get("uid", "uid-new"),
            "resourceVersion": had.get("resourceVersion", "9"),
        }
        hub[key] = {**obj, "metadata": metadata}
    for ref in run.outcome.delete:
        hub.pop(Hub.key_of({"apiVersion": ref["apiVersion"], "kind": ref["kind"], "metadata": ref}), None)
    return list(hub.values())


# ------------------------------------------------------------------------- kubectl itself, if here

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


def _kubectl(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    # No kubeconfig: nothing here may reach for a server.
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "no-kubeconfig")}
    return subprocess.run([KUBECTL, *args], env=env, input=stdin, capture_output=True, text=True, timeout=60)


@needs_kubectl
def test_kubectl_help_lists_every_flag_the_scripts_use(tmp_path):
    for command, flags in FLAGS.items():
        shown = _kubectl(tmp_path, *command.split(), "--help")
        assert shown.returncode == 0, shown.stderr
        for flag in flags:
            assert f"{flag}=" in shown.stdout, f"kubectl {command} --help: no {flag}"
    options = _kubectl(tmp_path, "options")
    for flag in GLOBAL_FLAGS:
        assert f"{flag}=" in options.stdout


@needs_kubectl
@pytest.mark.parametrize("name", SCENARIOS)
def test_kubectl_applies_each_patch_as_the_hub_does(tmp_path, replays, name):
    """`kubectl patch --local` (no server) applies the script's patch bodies with its own merge
    patch code, with the script's flags: the objects it prints are the hub's."""
    _, hub = replays[name]
    for i, write in enumerate(hub.writes):
        before = tmp_path / f"before-{i}.json"
        before.write_text(json.dumps(write.before), encoding="utf-8")
        flags = [
            f"{k}={v}"
            for k, v in write.call.flags.items()
            if k not in ("--output", "--server", "--namespace")
        ]
        done = _kubectl(
            tmp_path,
            "patch",
            "--local",
            f"--filename={before}",
            *flags,
            "--output=json",
            stdin=write.call.stdin,
        )
        assert done.returncode == 0, done.stderr
        printed = json.loads(done.stdout)
        for obj in (printed, write.after):
            obj["metadata"].pop("resourceVersion", None)
        assert printed == write.after, write.key
