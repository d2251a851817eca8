"""What the property tests of every system's pipeline share: running it, applying its output to
the hub, what that changes, and the bytes it writes (in this and other interpreters)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import event

from adapters.kube.manifests import dump_yaml_stream, from_objects
from adapters.run.changes import changed_objects, served
from adapters.run.pipeline import Outcome, schedule
from solver import SolveOptions
from tests.fleet_fixtures import NOW, NOW_TIME


def run(objects: Sequence[dict[str, Any]], options: SolveOptions) -> Outcome:
    """The library pipeline, checker included (it raises AssertionError on any violation)."""
    return schedule(copy.deepcopy(list(objects)), now=NOW_TIME, options=options)


def object_key(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return group, obj.get("kind", ""), metadata.get("namespace") or "", metadata.get("name", "")


def applied(objects: Sequence[dict[str, Any]], outcome: Outcome) -> list[dict[str, Any]]:
    """The hub after `kubectl apply` of the output, then deletion of what it names: the objects the
    scheduler writes replaced by the desired ones, keeping the metadata the API server owns (a
    placement's generation among it), the rest as it was."""
    hub = {object_key(o): o for o in objects}
    for obj in outcome.apply:
        key = object_key(obj)
        hub[key] = served(copy.deepcopy(obj), hub.get(key))
    for ref in outcome.delete:  # after the writes: an object may be written (its finalizers), then deleted
        hub.pop(object_key({"apiVersion": ref["apiVersion"], "kind": ref["kind"], "metadata": ref}), None)
    return list(hub.values())


def changes(objects: Sequence[dict[str, Any]], outcome: Outcome) -> list[str]:
    """What applying `outcome` to `objects` would change: changed objects and deletions."""
    changed, _ = changed_objects(outcome.apply, from_objects(objects, "<hub>"))
    return [f"{after['kind']}/{after['metadata']['name']}" for _, after in changed] + [
        f"delete {ref['kind']}/{ref['name']}" for ref in outcome.delete
    ]


def assert_fixed_point(objects: Sequence[dict[str, Any]], options: SolveOptions) -> None:
    """One apply reaches the fixed point: solving the hub the first run's output leaves keeps
    every decision and writes nothing (`-o plan`: nothing to apply, nothing to delete)."""
    first = run(objects, options)
    hub = applied(objects, first)
    second = run(hub, options)
    event(f"objects the first run changes: {min(len(changes(objects, first)), 3)}")
    assert selections(second) == selections(first)
    assert changes(hub, second) == []


def selections(outcome: Outcome) -> dict[str, list[str]]:
    return {got.request: sorted(c.cluster for c in got.selected) for _, got in outcome.requests()}


def written(outcome: Outcome) -> str:
    """The bytes `solve -o yaml` prints, and the deletions."""
    return dump_yaml_stream(outcome.apply) + json.dumps(outcome.delete)


_SOLVE_EACH = """
import json, sys
from click.testing import CliRunner
from adapters.cli.main import main
for objects in json.load(open(sys.argv[1])):
    for mode in ("greedy", "optimal"):
        result = CliRunner().invoke(
            main, ["solve", "-f", "-", "--now", sys.argv[2], "--mode", mode, "-o", "yaml"],
            input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}),
        )
        assert result.exit_code == 0, (result.output, result.exception)
        sys.stdout.write(result.stdout + "\\n=====\\n")
"""


def assert_same_bytes_across_processes(hubs_: Sequence[Sequence[dict[str, Any]]]) -> None:
    """`solve -o yaml` in both modes on every hub, in two interpreters with different string hash
    seeds: the same bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hubs.json"
        path.write_text(json.dumps([list(h) for h in hubs_]), encoding="utf-8")
        root = str(Path(__file__).resolve().parent.parent)
        runs = [
            subprocess.Popen(
                [sys.executable, "-c", _SOLVE_EACH, str(path), NOW],
                cwd=root,
                env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for seed in ("1", "2")
        ]
        outputs = [run_.communicate(timeout=120) for run_ in runs]
    for run_, (_, err) in zip(runs, outputs, strict=True):
        assert run_.returncode == 0, err.decode()
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][0].count(b"=====") == 2 * len(hubs_)
