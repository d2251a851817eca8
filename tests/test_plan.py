"""-o plan holds only what changes; -o diff shows it as kubectl diff does."""

from __future__ import annotations

import json

import yaml

from adapters.kube.manifests import from_objects
from adapters.run.changes import changed_objects, served
from adapters.run.changes import object_key as key
from tests.fixtures.fleet import PLACEMENT_API, SAMPLE, run_cli, solve_args, write_yaml
from tests.fixtures.pipeline import applied

PLACEMENT_GROUP = PLACEMENT_API.rpartition("/")[0]


def solve(tmp_path, objects, output):
    path = write_yaml(tmp_path / f"hub-{output}.yaml", objects)
    result = run_cli(solve_args([path], "optimal", output))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_plan_lists_only_new_or_changed_objects(tmp_path):
    full = list(yaml.safe_load_all(solve(tmp_path, SAMPLE, "yaml")))
    plan = json.loads(solve(tmp_path, SAMPLE, "plan"))
    inputs = {key(o): o for o in SAMPLE}
    # An object equal to its input but for the server's metadata (resourceVersion) is unchanged.
    assert plan["apply"] == [o for o in full if served(o, inputs.get(key(o))) != inputs.get(key(o))]
    kept = (PLACEMENT_GROUP, "ClusterResourceBinding", "", "", "one-c3-0000abcd")
    assert kept in {key(o) for o in full} and kept not in {key(o) for o in plan["apply"]}
    assert plan["summary"]["unchanged"] == len(full) - len(plan["apply"])
    assert plan["summary"]["changed"] == len(plan["apply"])


def test_a_settled_hub_plans_nothing(tmp_path):
    full = list(yaml.safe_load_all(solve(tmp_path, SAMPLE, "yaml")))
    settled = applied(SAMPLE, full)
    plan = json.loads(solve(tmp_path, settled, "plan"))
    assert plan["apply"] == []
    assert plan["summary"]["unchanged"] == len(full)
    assert solve(tmp_path, settled, "diff") == ""
    # -o yaml stays the complete desired state
    assert list(yaml.safe_load_all(solve(tmp_path, settled, "yaml"))) == full


def test_diff_shows_each_changed_object(tmp_path):
    plan = json.loads(solve(tmp_path, SAMPLE, "plan"))
    diff = solve(tmp_path, SAMPLE, "diff")
    headers = [line for line in diff.splitlines() if line.startswith("diff -u -N ")]
    assert len(headers) == len(plan["apply"]) + len(plan["delete"])
    first = plan["apply"][0]
    namespace = first["metadata"].get("namespace", "")  # kubectl diff: empty for a cluster-scoped object
    path = f"{first['apiVersion'].replace('/', '.')}.{first['kind']}.{namespace}.{first['metadata']['name']}"
    assert f"--- live/{path}\n+++ merged/{path}\n" in diff
    assert diff == solve(tmp_path, SAMPLE, "diff")  # deterministic


def as_served(objects, written):
    """The hub after `kubectl apply` of the written objects, read back with `kubectl get`: every
    object carries the metadata the API server owns, kept across writes (resourceVersion bumped)."""
    state = {}
    for i, o in enumerate(objects):
        meta = {**o["metadata"], "uid": f"uid-{i}", "resourceVersion": str(100 + i), "generation": 1}
        state[key(o)] = {**o, "metadata": {**meta, "creationTimestamp": "2026-11-01T00:00:00Z"}}
    for i, o in enumerate(written):
        old = state.get(key(o), {"metadata": {"uid": f"new-{i}", "resourceVersion": "0", "generation": 1}})
        kept = {
            k: old["metadata"][k] for k in ("uid", "generation", "creationTimestamp") if k in old["metadata"]
        }
        version = str(int(old["metadata"]["resourceVersion"]) + 1000)
        state[key(o)] = {**o, "metadata": {**o["metadata"], **kept, "resourceVersion": version}}
    return list(state.values())


def test_a_settled_hub_read_with_its_server_metadata_plans_nothing(tmp_path):
    """A desired object leaves out what the API server owns (uid, resourceVersion, generation,
    creationTimestamp); a hub read with `kubectl get` carries it. Compared whole, every object the
    scheduler writes back looked changed, and -o diff showed its metadata removed."""
    full = list(yaml.safe_load_all(solve(tmp_path, SAMPLE, "yaml")))
    settled = as_served(SAMPLE, full)
    plan = json.loads(solve(tmp_path, settled, "plan"))
    assert (plan["apply"], plan["summary"]["unchanged"]) == ([], len(full))
    assert solve(tmp_path, settled, "diff") == ""
    # A real change still shows, and its diff does not show the server's metadata going away.
    changed = [
        {**o, "spec": {**o["spec"], "policy": {"placementType": "PickN", "numberOfClusters": 2}}}
        if o["kind"] == "ClusterResourcePlacement" and o["metadata"]["name"] == "one"
        else o
        for o in settled
    ]
    diff = solve(tmp_path, changed, "diff")
    assert diff and "-  uid:" not in diff and "-  resourceVersion:" not in diff


class _CountedEquality(dict):
    """A desired object that counts how often it is compared (Python asks a dict subclass's own
    __eq__ first, on either side of ==)."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        type(self).compared += 1
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


def test_a_changed_object_is_compared_with_its_input_once() -> None:
    """`served` gives a desired object back as it is where the input keeps no server metadata it
    leaves out: the comparison just made is not made again (tens of thousands of changed objects
    on a large hub's plan)."""
    stored = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}, "spec": {"x": 1}}
    desired = _CountedEquality({**stored, "spec": {"x": 2}})
    _CountedEquality.compared = 0
    changed, unchanged = changed_objects([desired], from_objects([stored], "<hub>"))
    assert (len(changed), unchanged) == (1, 0)
    assert _CountedEquality.compared == 1
