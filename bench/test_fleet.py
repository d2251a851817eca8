"""pytest-benchmark: the KubeFleet pipeline (load, solve, emit) on pre-generated hubs.

One test per (size, mode), ids like `fleet-1000x1000-optimal`; three rounds each. Only run
explicitly, e.g. `python -m pytest bench -k 1000x1000` (see bench/conftest.py). The hub is
generated once per size, outside the timing; the checker runs once, on the last round's result.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.run.pipeline import schedule
from bench.suite import DEFAULT_SIZES
from solver import SolveOptions, check

NOW = datetime.fromisoformat(DEFAULT_NOW)
CASES = [
    (clusters, placements, mode) for clusters, placements in DEFAULT_SIZES for mode in ("greedy", "optimal")
]


@cache
def hub(clusters: int, placements: int) -> tuple[dict, ...]:
    return tuple(generate("fleet", clusters, placements, seed=0))


@pytest.mark.parametrize(
    ("clusters", "placements", "mode"), CASES, ids=[f"fleet-{c}x{p}-{m}" for c, p, m in CASES]
)
def test_fleet_pipeline(benchmark, clusters, placements, mode):
    objects = hub(clusters, placements)
    options = SolveOptions(mode=mode, time_limit=60.0, seed=0)
    outcomes = []

    def run():
        outcomes.append(schedule(objects, now=NOW, options=options, verify=False))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    last = outcomes[-1]
    assert check(last.batch, last.result) == []
    assert len({o.summary["objective"] for o in outcomes}) == 1  # deterministic across rounds
    benchmark.extra_info.update(
        {k: last.summary[k] for k in ("status", "objective", "bound", "gap", "models", "unsatisfied")}
    )
