"""pytest-benchmark: the Open Cluster Management pipeline on pre-generated hubs, end to end and per
phase, as the suite's rows split it.

One test per (size, mode, phase), ids like `ocm-1000x1000-optimal-solve`; read and load do not
depend on the mode (`ocm-1000x1000-read`). Three rounds each. Only run explicitly, e.g.
`python -m pytest bench -k "ocm and 1000x1000"` (see bench/conftest.py). The phases:

- read: the hub's YAML text parsed and validated (`parse_text`);
- load: `adapters.ocm.load` (manifests -> Batch);
- solve: `solver.solve`;
- emit: `adapters.ocm.emit` (Result -> PlacementDecisions and Placement status);
- write: the YAML stream of the objects to apply;
- e2e: read, the library pipeline (load, solve, emit) and write: what `placement-solver solve -f
  hub.yaml` spends on the hub.

The hub, its text and every phase's input are made once per size (and mode), outside the timing.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

import pytest

from adapters import ocm
from adapters.generate import DEFAULT_NOW, generate
from adapters.manifests import dump_yaml_stream, from_objects, parse_text
from adapters.pipeline import schedule_manifests
from bench.suite import DEFAULT_SIZES
from solver import SolveOptions, check, solve

NOW = datetime.fromisoformat(DEFAULT_NOW)
MODES = ("greedy", "optimal")
SHARED_PHASES = ("read", "load")
MODE_PHASES = ("solve", "emit", "write", "e2e")
CASES = [
    (clusters, placements, mode, phase)
    for clusters, placements in DEFAULT_SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES] + [(m, p) for m in MODES for p in MODE_PHASES]
]


def _id(clusters: int, placements: int, mode: str | None, phase: str) -> str:
    return f"ocm-{clusters}x{placements}-" + (f"{mode}-" if mode else "") + phase


def _options(mode: str) -> SolveOptions:
    return SolveOptions(mode=mode, time_limit=60.0, seed=0)


@cache
def hub(clusters: int, placements: int) -> tuple[dict, ...]:
    return tuple(generate("ocm", clusters, placements, seed=0))


@cache
def text(clusters: int, placements: int) -> str:
    return dump_yaml_stream(list(hub(clusters, placements)))


@cache
def loaded(clusters: int, placements: int):
    return ocm.load(from_objects(hub(clusters, placements), "<generated>"), now=NOW, seed=0)


@cache
def solved(clusters: int, placements: int, mode: str):
    batch, _ = loaded(clusters, placements)
    result = solve(batch, _options(mode))
    assert check(batch, result) == []
    return result


@cache
def emitted(clusters: int, placements: int, mode: str):
    _, context = loaded(clusters, placements)
    return ocm.emit(context, solved(clusters, placements, mode))


@pytest.mark.parametrize(("clusters", "placements", "mode", "phase"), CASES, ids=[_id(*c) for c in CASES])
def test_ocm_phase(benchmark, clusters, placements, mode, phase):
    size = (clusters, placements)
    outputs = []
    if phase == "read":
        source = text(*size)

        def run():
            outputs.append(parse_text(source, "hub.yaml"))
    elif phase == "load":
        manifests = from_objects(hub(*size), "<generated>")

        def run():
            outputs.append(ocm.load(manifests, now=NOW, seed=0))
    elif phase == "solve":
        batch, _ = loaded(*size)
        options = _options(mode)

        def run():
            outputs.append(solve(batch, options))
    elif phase == "emit":
        _, context = loaded(*size)
        result = solved(*size, mode)

        def run():
            outputs.append(ocm.emit(context, result))
    elif phase == "write":
        apply = emitted(*size, mode).apply

        def run():
            outputs.append(dump_yaml_stream(apply))
    else:
        source = text(*size)
        options = _options(mode)

        def run():
            manifests = parse_text(source, "hub.yaml")
            outcome = schedule_manifests(manifests, now=NOW, options=options, verify=False)
            outputs.append((outcome, dump_yaml_stream(outcome.apply)))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    last = outputs[-1]
    if phase == "solve":
        batch, _ = loaded(*size)
        assert check(batch, last) == []
        assert len({r.stats.objective for r in outputs}) == 1  # deterministic across rounds
        stats = last.stats
        benchmark.extra_info.update(
            {
                "status": stats.status,
                "objective": stats.objective,
                "bound": stats.bound,
                "gap": stats.gap,
                "unsatisfied": sum(1 for r in last.requests if not r.satisfied),
            }
        )
    elif phase == "e2e":
        outcome, stream = last
        assert check(outcome.batch, outcome.result) == []
        assert len({o[1] for o in outputs}) == 1  # the same bytes every round
        benchmark.extra_info.update({k: outcome.summary[k] for k in ("status", "objective", "unsatisfied")})
