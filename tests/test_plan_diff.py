"""-o diff headers name every object fully, as `kubectl diff` names its files
(`[group.]version.Kind.namespace.name`, the namespace empty for a cluster-scoped object;
staging/src/k8s.io/kubectl/pkg/cmd/diff/diff.go, InfoObject.Name), a kcp object under a directory
of its workspace (kubectl diffs one workspace at a time), and never twice for two objects."""

from __future__ import annotations

import re

from tests.fixtures import kcp
from tests.fixtures import openmcp as mcp

HEADER = re.compile(r"^diff -u -N live/(\S+) merged/(\S+)$", re.M)


def headers(diff: str) -> list[str]:
    found = HEADER.findall(diff)
    assert all(live == merged for live, merged in found)
    return [live for live, _ in found]


def test_a_deleted_object_is_named_by_namespace_and_name(tmp_path) -> None:
    cfg = mcp.config(
        clusters={"matchLabels": {"live": "yes"}}, p=mcp.purpose(count=5, labels={"live": "yes"})
    )
    live = {"live": "yes"}
    hub = [
        mcp.cluster(
            "ns", "alone", "p", labels={**live, mcp.DELETE_LABEL: "true"}, finalizers=[mcp.fin("foo", "gone")]
        ),
        mcp.request(
            "foo", "gone", "p", granted=("ns", "alone"), deleting=True, finalizers=[mcp.REQUEST_FINALIZER]
        ),
    ]
    result = mcp.solve_cli(tmp_path, hub, "-o", "diff", config=cfg)
    assert result.exit_code == 0, result.output
    named = headers(result.stdout)
    assert "clusters.openmcp.cloud.v1alpha1.Cluster.ns.alone" in named  # deleted: against nothing
    assert "clusters.openmcp.cloud.v1alpha1.ClusterRequest.foo.gone" in named
    assert len(named) == len(set(named))
    deleted = result.stdout.split("diff -u -N live/clusters.openmcp.cloud.v1alpha1.Cluster.ns.alone ")[-1]
    assert "+++ merged/clusters.openmcp.cloud.v1alpha1.Cluster.ns.alone\n@@ -1," in deleted


def test_kcp_objects_are_named_with_their_workspace_and_never_twice(tmp_path) -> None:
    teams = ["root:org:team", "root:org:other"]
    hub = [
        *kcp.compute_v05(kcp.cluster("c1", "us"), locations=["us"]),
        kcp.binding("root:org:other"),
        *(kcp.namespace("default", workspace=team) for team in teams),
    ]
    result = kcp.solve_cli(tmp_path, hub, "-o", "diff")
    assert result.exit_code == 0, result.output
    assert sorted(headers(result.stdout)) == sorted(f"{team}/v1.Namespace..default" for team in teams)


def test_a_cluster_scoped_object_has_an_empty_namespace_part(tmp_path) -> None:
    placement = kcp.placement("web")
    hub = [*kcp.compute_v08(kcp.sync_target("s1", "us"), locations=["us"]), placement]
    result = kcp.solve_cli(tmp_path, hub, "-o", "diff")
    assert result.exit_code == 0, result.output
    assert headers(result.stdout) == [f"{kcp.TEAM}/scheduling.kcp.dev.v1alpha1.Placement..web"]
