"""Builders for openMCP objects and configs as plain dicts, and helpers that run the command line
on them and read what it writes. (A module of helpers: the few tests here check the helpers.)

Every request's uid is `uid-<namespace>-<name>`, so a cluster finalizer names its request
readably: `fin("foo", "a")` is the finalizer request foo/a puts on its cluster. Creation times
count minutes from a fixed start, so `request(..., at=3)` is created three minutes after `at=0`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.run.pipeline import Outcome

NOW = "2026-11-21T12:00:00Z"
NOW_TIME = datetime(2026, 11, 21, 12, tzinfo=UTC)
MODES = ("greedy", "optimal")
API = "clusters.openmcp.cloud/v1alpha1"
REQUEST_FINALIZER = "clusters.openmcp.cloud/request"
DELETE_LABEL = "clusters.openmcp.cloud/delete-without-requests"
RANDOMIZE = "clusters.openmcp.cloud/randomize-cluster-name"
OPERATION = "openmcp.cloud/operation"
PROPAGATED = "metadata.open-control-plane.io/"
_START = datetime(2026, 11, 21, 9, tzinfo=UTC)


def uid(namespace: str, name: str) -> str:
    return f"uid-{namespace}-{name}"


def fin(namespace: str, name: str) -> str:
    """The finalizer request namespace/name puts on its cluster."""
    return f"request.clusters.openmcp.cloud/{uid(namespace, name)}"


def stale(tag: str) -> str:
    """A cluster finalizer of a request that does not exist."""
    return f"request.clusters.openmcp.cloud/gone-{tag}"


def at(minutes: float) -> str:
    return (_START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------------------------ objects


def cluster(
    namespace: str,
    name: str,
    *purposes: str,
    labels: Mapping[str, str] | None = None,
    finalizers: Sequence[str] = (),
    tenancy: str = "Shared",
    deleting: bool = False,
    annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    if deleting:
        metadata["deletionTimestamp"] = at(100)
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    return {
        "apiVersion": API,
        "kind": "Cluster",
        "metadata": metadata,
        "spec": {"profile": "test-profile", "tenancy": tenancy, "purposes": list(purposes)},
    }


def request(
    namespace: str,
    name: str,
    purpose: str,
    *,
    at_minute: float = 0,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    granted: tuple[str, str] | None = None,
    deleting: bool = False,
    finalizers: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A ClusterRequest; `granted` = (namespace, name) of its cluster (status.cluster, Granted)."""
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": uid(namespace, name),
        "creationTimestamp": at(at_minute),
        "generation": 1,
    }
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    if deleting:
        metadata["deletionTimestamp"] = at(120)
    if finalizers is None:
        finalizers = [REQUEST_FINALIZER] if granted or deleting else []
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    obj: dict[str, Any] = {"apiVersion": API, "kind": "ClusterRequest", "metadata": metadata}
    obj["spec"] = {"purpose": purpose}
    if granted is not None:
        obj["status"] = {
            "observedGeneration": 1,
            "phase": "Granted",
            "cluster": {"name": granted[1], "namespace": granted[0]},
        }
    return obj


# ------------------------------------------------------------------------------------------- config


def purpose(
    tenancy: str = "Shared",
    *,
    count: int | None = None,
    namespace: str | None = None,
    name: str | None = None,
    generate_name: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    purposes: Sequence[str] | None = None,
    selector: Mapping[str, Any] | None = None,
    profile: str | None = "test-profile",
) -> dict[str, Any]:
    """One purpose mapping."""
    metadata: dict[str, Any] = {}
    for key, value in (
        ("name", name),
        ("generateName", generate_name),
        ("namespace", namespace),
        ("labels", labels),
        ("annotations", annotations),
    ):
        if value is not None:
            metadata[key] = dict(value) if isinstance(value, Mapping) else value
    spec: dict[str, Any] = {}
    if profile is not None:
        spec["profile"] = profile
    if tenancy:
        spec["tenancy"] = tenancy
    if purposes is not None:
        spec["purposes"] = list(purposes)
    out: dict[str, Any] = {}
    if count is not None:
        out["tenancyCount"] = count
    if selector is not None:
        out["selector"] = dict(selector)
    out["template"] = {"metadata": metadata, "spec": spec} if metadata else {"spec": spec}
    return out


def config(
    *,
    scope: str | None = None,
    strategy: str | None = None,
    clusters: Mapping[str, Any] | None = None,
    requests: Mapping[str, Any] | None = None,
    **purposes: Mapping[str, Any],
) -> dict[str, Any]:
    """An operator config document; purposes by keyword (underscores become dashes)."""
    scheduler: dict[str, Any] = {}
    if scope is not None:
        scheduler["scope"] = scope
    if strategy is not None:
        scheduler["strategy"] = strategy
    selectors = {k: dict(v) for k, v in (("clusters", clusters), ("requests", requests)) if v is not None}
    if selectors:
        scheduler["selectors"] = selectors
    scheduler["purposeMappings"] = {key.replace("_", "-"): dict(value) for key, value in purposes.items()}
    return {"scheduler": scheduler}


# The config of upstream's testdata test-01: Namespaced, clusters in the purpose's namespace.
TEST_01 = config(
    scope="Namespaced",
    exclusive=purpose("Exclusive", namespace="exclusive"),
    shared_unlimited=purpose(namespace="shared-unlimited"),
    shared_twice=purpose(count=2, namespace="shared-twice"),
)


# ------------------------------------------------------------------------------------------ running


def write_yaml(path: Path, documents: Iterable[Any]) -> str:
    path.write_text(yaml.safe_dump_all(list(documents), sort_keys=False), encoding="utf-8")
    return str(path)


def run_cli(
    tmp_path: Path,
    objects: Sequence[dict[str, Any]],
    cfg: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    *args: str,
):
    """`solve -f <objects> --config <cfg>... --now NOW <args>`; `cfg` may be several documents."""
    hub = write_yaml(tmp_path / "hub.yaml", objects)
    command = ["solve", "-f", hub, "--now", NOW, *args]
    documents = [] if cfg is None else [cfg] if isinstance(cfg, Mapping) else list(cfg)
    for i, document in enumerate(documents):
        command += ["--config", write_yaml(tmp_path / f"config-{i}.yaml", [document])]
    return CliRunner().invoke(main, command)


class Written:
    """What one `solve -o plan` run writes: the objects (desired state) and the deletions."""

    def __init__(self, plan: dict[str, Any], apply: list[dict[str, Any]], stdout: str) -> None:
        self.plan = plan
        self.apply = apply
        self.delete = plan["delete"]
        self.stdout = stdout

    @classmethod
    def solve(
        cls,
        tmp_path: Path,
        objects: Sequence[dict[str, Any]],
        cfg: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
        mode: str,
        *args: str,
    ) -> Written:
        result = run_cli(tmp_path, objects, cfg, "--mode", mode, "-o", "json", *args)
        assert result.exit_code == 0, result.output
        apply = json.loads(result.stdout)["items"]
        plan = run_cli(tmp_path, objects, cfg, "--mode", mode, "-o", "plan", *args)
        assert plan.exit_code == 0, plan.output
        return cls(json.loads(plan.stdout), apply, result.stdout)

    def clusters(self) -> dict[str, dict[str, Any]]:
        """Written Clusters by namespace/name."""
        return {
            f"{o['metadata']['namespace']}/{o['metadata']['name']}": o
            for o in self.apply
            if o["kind"] == "Cluster"
        }

    def requests(self) -> dict[str, dict[str, Any]]:
        return {
            f"{o['metadata']['namespace']}/{o['metadata']['name']}": o
            for o in self.apply
            if o["kind"] == "ClusterRequest"
        }

    def phase(self, key: str) -> str | None:
        return (self.requests()[key].get("status") or {}).get("phase")

    def granted(self, key: str) -> str | None:
        """namespace/name of the request's status.cluster."""
        ref = (self.requests()[key].get("status") or {}).get("cluster")
        return None if ref is None else f"{ref['namespace']}/{ref['name']}"

    def assignments(self) -> dict[str, str | None]:
        return {key: self.granted(key) for key in self.requests()}

    def finalizers(self, key: str) -> list[str]:
        return list(self.clusters()[key]["metadata"].get("finalizers") or [])

    def new_clusters(self, before: Sequence[dict[str, Any]]) -> list[str]:
        had = {
            f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in before if o["kind"] == "Cluster"
        }
        return sorted(k for k in self.clusters() if k not in had)

    def deleted(self) -> list[str]:
        return sorted(f"{ref['namespace']}/{ref['name']}" for ref in self.delete)


def apply_output(
    objects: Sequence[dict[str, Any]], delete: Sequence[dict[str, str]], apply: Sequence[dict]
) -> list:
    """The hub after the output is applied, as the API server would leave it: written objects
    replace the stored ones (the server keeps uid and creationTimestamp; a new object gets a uid),
    deleted ones go (one with finalizers left only gets a deletionTimestamp), and an object being
    deleted whose finalizers are all gone disappears."""
    hub = {_key(o): copy.deepcopy(o) for o in objects}
    for obj in apply:
        new = copy.deepcopy(obj)
        metadata = new["metadata"]
        key = _key(new)
        old = hub.get(key)
        if old is not None:
            for field in ("uid", "creationTimestamp"):
                if field in old["metadata"]:
                    metadata[field] = old["metadata"][field]
        else:
            metadata.setdefault("uid", f"uid-{metadata['namespace']}-{metadata['name']}")
        hub[key] = new
    for ref in delete:
        key = ("Cluster", ref["namespace"], ref["name"])
        obj = hub.get(key)
        if obj is not None and obj["metadata"].get("finalizers"):
            obj["metadata"]["deletionTimestamp"] = NOW
        else:
            hub.pop(key, None)
    for key, obj in list(hub.items()):
        metadata = obj["metadata"]
        if metadata.get("deletionTimestamp") and not metadata.get("finalizers"):
            del hub[key]
    return list(hub.values())


def _key(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    metadata = obj["metadata"]
    return obj["kind"], metadata["namespace"], metadata["name"]


def outcome_bytes(outcome: Outcome) -> str:
    return yaml.safe_dump_all(outcome.apply, sort_keys=False) + json.dumps(outcome.delete)


# ------------------------------------------------------------------------------- the helpers' tests


def test_builders_make_valid_objects(tmp_path) -> None:
    objects = [cluster("ns", "c", "p"), request("ns", "r", "p", granted=("ns", "c"))]
    result = run_cli(tmp_path, objects, config(p=purpose()), "-o", "plan")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["systems"]["openmcp"]["requests"] == 1


def test_apply_output_keeps_server_fields_and_deletes() -> None:
    objects = [
        cluster("ns", "c", "p", finalizers=["x"]),
        request("ns", "r", "p", deleting=True, finalizers=[REQUEST_FINALIZER]),
    ]
    gone = request("ns", "r", "p", deleting=True, finalizers=[])
    gone["metadata"].pop("uid")
    after = apply_output(objects, [{"namespace": "ns", "name": "c"}], [gone])
    assert [o["kind"] for o in after] == ["Cluster"]
    assert after[0]["metadata"]["deletionTimestamp"] == NOW
