"""`placement-solver explain` on OCM placements: what the explanation says beyond the shared
explain tests (tests/test_explain.py)."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from tests.fixtures import ocm as oc
from tests.fixtures.common import MODES


def explain(tmp_path, objects, target: str, mode: str) -> dict[str, dict]:
    path = tmp_path / "ocm.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    args = ["explain", "-f", str(path), target, "--now", oc.NOW, "--mode", mode, "-o", "yaml"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {r["cluster"]: r for r in yaml.safe_load(result.stdout)["clusters"]}


@pytest.mark.parametrize("mode", MODES)
def test_registration_taint_is_explained_with_the_condition_as_context(tmp_path, mode):
    unreachable = [oc.taint(oc.UNREACHABLE, added=oc.ago(5))]
    objects = oc.hub(
        oc.managed_cluster("c1", available="Unknown", taints=unreachable),
        oc.managed_cluster("c2", available=None, taints=unreachable),
        oc.managed_cluster("c3", available="Unknown"),  # no taint yet: selectable
        oc.placement("p"),
    )
    by = explain(tmp_path, objects, "placement/ns1/p", mode)
    assert by["c1"]["filter"]["reason"] == (
        f"TaintToleration: taint {oc.UNREACHABLE}:NoSelect is not tolerated "
        "(hub registration's taint; the cluster's Available condition is Unknown)"
    )
    assert by["c2"]["filter"]["reason"].endswith("the cluster's Available condition is missing)")
    assert by["c3"]["selected"] and "filter" not in by["c3"]
