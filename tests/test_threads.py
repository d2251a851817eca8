"""CP-SAT searches run side by side in threads; the answer must not depend on how many."""

from __future__ import annotations

from datetime import UTC, datetime

from adapters.fleet import api as fleet
from adapters.kube.manifests import from_objects
from bench.generate import generate
from solver import SolveOptions, solve


def _unnested(objects: list[dict]) -> list[dict]:
    """Spread over region and environment, which do not nest, so that CP-SAT has to search."""
    for obj in objects:
        constraints = ((obj.get("spec") or {}).get("policy") or {}).get("topologySpreadConstraints") or []
        if obj["kind"] == "ClusterResourcePlacement" and len(constraints) == 2:
            constraints[1]["topologyKey"] = "environment"
    return objects


def test_the_answer_does_not_depend_on_the_number_of_threads() -> None:
    objects = _unnested(generate("fleet", 400, 300, seed=5))
    batch, _ = fleet.load(from_objects(objects, "hub"), now=datetime(2026, 11, 21, 12, tzinfo=UTC))
    single = solve(batch, SolveOptions(threads=1))
    several = solve(batch, SolveOptions(threads=4))
    assert single.stats.models > 1  # CP-SAT searches to spread over threads
    assert several.requests == single.requests
    assert (several.stats.objective, several.stats.bound) == (single.stats.objective, single.stats.bound)
