"""Builders for kcp objects of both generations as plain dicts, and helpers that run the command
line on them and read what it writes. (A module of helpers: the few tests here check the helpers.)

Workspaces: users live in `root:org:team` (TEAM), the compute service in `root:org:compute`
(COMPUTE). Every object names its workspace as its generation's kcp marks it
(adapters.kcp.workspace.mark): v0.5 objects with `metadata.clusterName`, v0.8 ones with the
annotation `kcp.dev/cluster`. The kinds of one generation (WorkloadCluster; SyncTarget, Placement)
carry its marker; the others take `generation=` (v0.5 by default), and the `*_v08` builders are
those of v0.8.
Creation times count minutes from a fixed start: `namespace(..., at=3)` is created three minutes
after `at=0`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.kcp.names import V08_WORKSPACE_ANNOTATION, Generation
from adapters.kcp.workspace import mark, workspace_of

NOW = "2026-11-21T12:00:00Z"
NOW_TIME = datetime(2026, 11, 21, 12, tzinfo=UTC)
MODES = ("greedy", "optimal")
TEAM = "root:org:team"
COMPUTE = "root:org:compute"
PLACEMENT = "scheduling.kcp.dev/placement"
NEGOTIATION = "internal.scheduling.kcp.dev/negotiation-workspace"
DISABLED = "experimental.workloads.kcp.dev/scheduling-disabled"
SYNCTARGET = "internal.workload.kcp.dev/synctarget"
STATE = "state.workload.kcp.dev/"
DELETION = "deletion.internal.workload.kcp.dev/"
_START = datetime(2026, 11, 21, 9, tzinfo=UTC)


def at(minutes: float) -> str:
    return (_START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def ago(seconds: float) -> str:
    """RFC 3339, `seconds` before NOW."""
    return (NOW_TIME - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _metadata(
    workspace: str, name: str, generation: str, labels=None, annotations=None, created: float | None = None
) -> dict:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    if created is not None:
        metadata["creationTimestamp"] = at(created)
    return mark(metadata, workspace, Generation(generation))


# ------------------------------------------------------------------------------------------ objects


def namespace(
    name: str,
    *,
    workspace: str = TEAM,
    labels: Mapping[str, str] | None = None,
    placement: Mapping[str, str] | str | None = None,
    annotations: Mapping[str, str] | None = None,
    created: float = 0,
    generation: str = "v0.5",
) -> dict[str, Any]:
    """A Namespace; `placement` is the v0.5 annotation's map (or its raw text)."""
    notes = dict(annotations or {})
    if placement is not None:
        notes[PLACEMENT] = placement if isinstance(placement, str) else json.dumps(placement)
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": _metadata(workspace, name, generation, labels, notes, created),
    }


def binding(
    workspace: str = TEAM,
    export_workspace: str = COMPUTE,
    *,
    name: str = "kubernetes",
    export: str = "kubernetes",
    ready: bool = True,
    generation: str = "v0.5",
) -> dict[str, Any]:
    """An APIBinding to `export` in `export_workspace`, its conditions True when `ready`."""
    status = "True" if ready else "False"
    return {
        "apiVersion": "apis.kcp.dev/v1alpha1",
        "kind": "APIBinding",
        "metadata": _metadata(workspace, name, generation),
        "spec": {"reference": {"workspace": {"path": export_workspace, "exportName": export}}},
        "status": {
            "conditions": [
                {"type": "APIExportValid", "status": status, "lastTransitionTime": at(0)},
                {"type": "InitialBindingCompleted", "status": status, "lastTransitionTime": at(0)},
            ]
        },
    }


def location(
    name: str,
    *,
    workspace: str = COMPUTE,
    labels: Mapping[str, str] | None = None,
    selector: Mapping[str, Any] | None = None,
    generation: str = "v0.5",
) -> dict[str, Any]:
    """A Location over the clusters labelled `location: <name>` (or `selector`)."""
    resource = "workloadclusters" if generation == "v0.5" else "synctargets"
    spec = {
        "resource": {"group": "workload.kcp.dev", "version": "v1alpha1", "resource": resource},
        "instanceSelector": dict(selector) if selector is not None else {"matchLabels": {"location": name}},
    }
    return {
        "apiVersion": "scheduling.kcp.dev/v1alpha1",
        "kind": "Location",
        "metadata": _metadata(workspace, name, generation, labels),
        "spec": spec,
    }


def cluster(
    name: str,
    where: str | None = None,
    *,
    workspace: str = COMPUTE,
    kind: str = "WorkloadCluster",
    labels: Mapping[str, str] | None = None,
    ready: bool | None = True,
    unschedulable: bool = False,
    evict_after: str | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    """A WorkloadCluster (or, `kind="SyncTarget"`, a SyncTarget) in location `where` (its label)."""
    all_labels = dict(labels or {})
    if where is not None:
        all_labels["location"] = where
    metadata = _metadata(workspace, name, "v0.5" if kind == "WorkloadCluster" else "v0.8", all_labels)
    if deleting:
        metadata["deletionTimestamp"] = at(100)
    spec: dict[str, Any] = {}
    if unschedulable:
        spec["unschedulable"] = True
    if evict_after is not None:
        spec["evictAfter"] = evict_after
    obj: dict[str, Any] = {"apiVersion": "workload.kcp.dev/v1alpha1", "kind": kind, "metadata": metadata}
    obj["spec"] = spec
    if ready is not None:
        obj["status"] = {
            "conditions": [
                {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": at(0)}
            ]
        }
    return obj


def sync_target(name: str, where: str | None = None, **kwargs: Any) -> dict[str, Any]:
    return cluster(name, where, kind="SyncTarget", **kwargs)


def namespace_v08(name: str, **kwargs: Any) -> dict[str, Any]:
    return namespace(name, generation="v0.8", **kwargs)


def binding_v08(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return binding(*args, generation="v0.8", **kwargs)


def placement(
    name: str,
    *,
    workspace: str = TEAM,
    locations: Sequence[Mapping[str, Any]] | None = ({},),
    namespaces: Mapping[str, Any] | None = None,
    location_workspace: str | None = COMPUTE,
    phase: str | None = None,
    selected: str | None = None,
    target: str | None = None,
    ready: str | None = None,
    created: float = 0,
) -> dict[str, Any]:
    """A v0.8 Placement; `namespaces` its namespaceSelector (default {}: every namespace),
    `selected` the location name in its status, `target` the SyncTargetKey annotation."""
    annotations = {SYNCTARGET: target} if target else None
    spec: dict[str, Any] = {
        "locationResource": {"group": "workload.kcp.dev", "version": "v1alpha1", "resource": "synctargets"},
        "namespaceSelector": dict(namespaces) if namespaces is not None else {},
    }
    if locations is not None:
        spec["locationSelectors"] = [dict(s) for s in locations]
    if location_workspace is not None:
        spec["locationWorkspace"] = location_workspace
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.kcp.dev/v1alpha1",
        "kind": "Placement",
        "metadata": _metadata(workspace, name, "v0.8", None, annotations, created),
        "spec": spec,
    }
    status: dict[str, Any] = {}
    if phase is not None:
        status["phase"] = phase
    if selected is not None:
        status["selectedLocation"] = {"path": location_workspace or workspace, "locationName": selected}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready, "lastTransitionTime": at(0)}]
    if status:
        obj["status"] = status
    return obj


def compute_v05(*clusters: dict[str, Any], locations: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The compute workspace (v0.5): Locations by name, the clusters, and the team's binding."""
    return [binding(), *(location(name) for name in locations), *clusters]


def compute_v08(*clusters: dict[str, Any], locations: Iterable[str] = ()) -> list[dict[str, Any]]:
    return [binding_v08(), *(location(name, generation="v0.8") for name in locations), *clusters]


def key(workspace: str, location_name: str, cluster_name: str) -> str:
    """A v0.5 entry key."""
    return f"{workspace}+{location_name}+{cluster_name}"


# ------------------------------------------------------------------------------------------ running


def write_yaml(path: Path, documents: Iterable[Any]) -> str:
    path.write_text(yaml.safe_dump_all(list(documents), sort_keys=False), encoding="utf-8")
    return str(path)


def run_cli(tmp_path: Path, objects: Sequence[dict[str, Any]], *args: str):
    path = write_yaml(tmp_path / "kcp.yaml", objects)
    return CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW, *args])


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    return obj["kind"], workspace_of(obj), obj["metadata"]["name"]


class Written:
    """What one `solve -o json` run writes: the desired objects, by kind, workspace and name."""

    def __init__(self, apply: list[dict[str, Any]], stdout: str) -> None:
        self.apply = apply
        self.stdout = stdout
        self.objects = {_identity(o): o for o in apply}

    @classmethod
    def solve(cls, tmp_path: Path, objects: Sequence[dict[str, Any]], mode: str, *args: str) -> Written:
        result = run_cli(tmp_path, objects, "--mode", mode, "-o", "json", *args)
        assert result.exit_code == 0, result.output
        return cls(json.loads(result.stdout)["items"], result.stdout)

    def namespace(self, name: str, workspace: str = TEAM) -> dict[str, Any]:
        return self.objects[("Namespace", workspace, name)]

    def placement_map(self, name: str, workspace: str = TEAM) -> dict[str, str] | None:
        """The v0.5 annotation of a namespace, parsed (None when absent)."""
        text = (self.namespace(name, workspace)["metadata"].get("annotations") or {}).get(PLACEMENT)
        return None if text is None else json.loads(text)

    def annotation(self, name: str, workspace: str = TEAM) -> str | None:
        return (self.namespace(name, workspace)["metadata"].get("annotations") or {}).get(PLACEMENT)

    def condition(self, name: str, workspace: str = TEAM) -> dict[str, Any] | None:
        conditions = (self.namespace(name, workspace).get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == "NamespaceScheduled"), None)

    def labels(self, name: str, workspace: str = TEAM) -> dict[str, str]:
        return dict(self.namespace(name, workspace)["metadata"].get("labels") or {})

    def annotations(self, name: str, workspace: str = TEAM) -> dict[str, str]:
        """The namespace's annotations but its workspace's marker (kept as read, never asserted)."""
        annotations = dict(self.namespace(name, workspace)["metadata"].get("annotations") or {})
        annotations.pop(V08_WORKSPACE_ANNOTATION, None)
        return annotations

    def placement(self, name: str, workspace: str = TEAM) -> dict[str, Any]:
        return self.objects[("Placement", workspace, name)]

    def target(self, name: str, workspace: str = TEAM) -> str | None:
        return (self.placement(name, workspace)["metadata"].get("annotations") or {}).get(SYNCTARGET)

    def status(self, name: str, workspace: str = TEAM) -> dict[str, Any]:
        return dict(self.placement(name, workspace).get("status") or {})

    def kinds(self) -> list[tuple[str, str, str]]:
        return [_identity(o) for o in self.apply]


def apply_output(objects: Sequence[dict[str, Any]], apply: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The input after the written objects replace the ones read (matched by kind, workspace, name)."""
    written = {_identity(o): o for o in apply}
    return [written.get(_identity(o), o) for o in objects]


# ------------------------------------------------------------------------------- the helpers' tests


def test_builders_make_valid_objects(tmp_path) -> None:
    objects = [*compute_v05(cluster("c1", "us"), locations=["us"]), namespace("default")]
    result = run_cli(tmp_path, objects, "-o", "plan")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["systems"]["kcp"] == {
        "requests": 1,
        "clusters": 1,
        "unsatisfied": 0,
    }


def test_apply_output_replaces_by_workspace() -> None:
    a, b = namespace("default"), namespace("default", workspace="root:org:other")
    changed = namespace("default", labels={"x": "y"})
    assert apply_output([a, b], [changed]) == [changed, b]
