"""The shared fixtures (tests/fixtures) build what the programme reads, and the test modules use
them rather than one another."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.fixtures import kcp, openmcp
from tests.fixtures.common import NOW, solve_cli
from tests.fixtures.pipeline import applied

TESTS = Path(__file__).resolve().parent


def test_kcp_builders_make_valid_objects(tmp_path) -> None:
    objects = [*kcp.compute_v05(kcp.cluster("c1", "us"), locations=["us"]), kcp.namespace("default")]
    result = solve_cli(tmp_path, objects, "-o", "plan")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["systems"]["kcp"] == {
        "requests": 1,
        "clusters": 1,
        "unsatisfied": 0,
    }


def test_openmcp_builders_make_valid_objects(tmp_path) -> None:
    objects = [openmcp.cluster("ns", "c", "p"), openmcp.request("ns", "r", "p", granted=("ns", "c"))]
    result = solve_cli(tmp_path, objects, "-o", "plan", config=openmcp.config(p=openmcp.purpose()))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["systems"]["openmcp"]["requests"] == 1


def test_applied_replaces_by_workspace() -> None:
    a, b = kcp.namespace("default"), kcp.namespace("default", workspace="root:org:other")
    changed = kcp.namespace("default", labels={"x": "y"})
    assert applied([a, b], [changed]) == [changed, b]


def test_applied_keeps_server_fields_and_deletes_as_the_api_server_does() -> None:
    cluster = openmcp.cluster("ns", "c", "p", finalizers=["x"])
    cluster["metadata"]["uid"] = "uid-c"
    objects = [
        cluster,
        openmcp.request("ns", "r", "p", deleting=True, finalizers=[openmcp.REQUEST_FINALIZER]),
    ]
    gone = openmcp.request("ns", "r", "p", deleting=True, finalizers=[])
    gone["metadata"].pop("uid")
    written = {**cluster, "metadata": {k: v for k, v in cluster["metadata"].items() if k != "uid"}}
    reference = {"apiVersion": openmcp.API, "kind": "Cluster", "namespace": "ns", "name": "c"}
    after = applied(objects, [written, gone], [reference])
    assert [o["kind"] for o in after] == ["Cluster"]  # the request, its finalizers gone, went
    assert after[0]["metadata"]["deletionTimestamp"] == NOW  # the cluster holds a finalizer
    assert after[0]["metadata"]["uid"] == "uid-c"  # kept by the server across the write


# ------------------------------------------------------------------------- no test imports another


def _imported(path: Path) -> set[str]:
    """The modules a file imports, as written (`from tests import x` counts as tests.x)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _test_modules() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def test_no_test_module_imports_another() -> None:
    tests = {f"tests.{p.stem}" for p in _test_modules()} | {p.stem for p in _test_modules()}
    offending = {
        f"{path.name} imports {module}"
        for path in [*_test_modules(), *sorted((TESTS / "fixtures").glob("*.py"))]
        for module in _imported(path) & tests
    }
    assert not offending, sorted(offending)


def test_the_fixtures_hold_no_tests() -> None:
    """A test in a module pytest does not collect never runs."""
    defined = {
        f"{path.name}: {node.name}"
        for path in sorted((TESTS / "fixtures").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }
    assert not defined, sorted(defined)
