"""-o plan and -o diff match objects by workspace too: kcp objects of one name may live in several
logical clusters."""

import pytest

from adapters.kube.manifests import from_objects
from adapters.run.changes import changed_objects


def namespace(workspace: str, label: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "default", "clusterName": workspace, "labels": {"x": label}},
    }


def test_same_name_in_two_workspaces_is_two_objects():
    hub = [namespace("root:a", "1"), namespace("root:b", "2")]
    changed, unchanged = changed_objects(hub, from_objects(hub, "<hub>"))
    assert (changed, unchanged) == ([], 2)
    desired = [namespace("root:a", "1"), namespace("root:b", "3")]
    changed, unchanged = changed_objects(desired, from_objects(hub, "<hub>"))
    assert unchanged == 1 and [after["metadata"]["clusterName"] for _, after in changed] == ["root:b"]


@pytest.mark.parametrize("annotation", ["kcp.dev/cluster", "kcp.io/cluster"])  # kcp v0.7-v0.10, v0.11 on
def test_the_kcp_cluster_annotations_name_the_workspace_too(annotation):
    a = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "n", "annotations": {annotation: "w1"}},
    }
    b = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "n", "annotations": {annotation: "w2"}},
    }
    changed, unchanged = changed_objects([a, b], from_objects([a, b], "<hub>"))
    assert (changed, unchanged) == ([], 2)
