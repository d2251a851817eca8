"""-o plan holds only what changes; -o diff shows it as kubectl diff does."""

from __future__ import annotations

import json

import yaml

from tests.fleet_fixtures import run_cli, solve_args, write_yaml
from tests.test_cli import FLEET


def solve(tmp_path, objects, output):
    path = write_yaml(tmp_path / f"hub-{output}.yaml", objects)
    result = run_cli(solve_args([path], "optimal", output))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def key(obj):
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def applied(objects, written):
    """The hub after `kubectl apply` of the written objects."""
    state = {key(o): o for o in objects}
    state.update({key(o): o for o in written})
    return list(state.values())


def test_plan_lists_only_new_or_changed_objects(tmp_path):
    full = list(yaml.safe_load_all(solve(tmp_path, FLEET, "yaml")))
    plan = json.loads(solve(tmp_path, FLEET, "plan"))
    assert plan["apply"] == [o for o in full if o not in FLEET]
    assert plan["summary"]["unchanged"] == len(full) - len(plan["apply"])
    assert plan["summary"]["changed"] == len(plan["apply"])


def test_a_settled_hub_plans_nothing(tmp_path):
    full = list(yaml.safe_load_all(solve(tmp_path, FLEET, "yaml")))
    settled = applied(FLEET, full)
    plan = json.loads(solve(tmp_path, settled, "plan"))
    assert plan["apply"] == []
    assert plan["summary"]["unchanged"] == len(full)
    assert solve(tmp_path, settled, "diff") == ""
    # -o yaml stays the complete desired state
    assert list(yaml.safe_load_all(solve(tmp_path, settled, "yaml"))) == full


def test_diff_shows_each_changed_object(tmp_path):
    plan = json.loads(solve(tmp_path, FLEET, "plan"))
    diff = solve(tmp_path, FLEET, "diff")
    headers = [line for line in diff.splitlines() if line.startswith("diff -u -N ")]
    assert len(headers) == len(plan["apply"]) + len(plan["delete"])
    first = plan["apply"][0]
    namespace = first["metadata"].get("namespace", "")  # kubectl diff: empty for a cluster-scoped object
    path = f"{first['apiVersion'].replace('/', '.')}.{first['kind']}.{namespace}.{first['metadata']['name']}"
    assert f"--- live/{path}\n+++ merged/{path}\n" in diff
    assert diff == solve(tmp_path, FLEET, "diff")  # deterministic
