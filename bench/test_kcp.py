"""pytest-benchmark: kcp's placement pipeline on generated workspace sets, both API generations, end
to end and per phase, as the suite's rows split it; and the eviction experiment.

One test per (generation, size, mode, phase), ids like `kcp-v0.8-500x2000-optimal-solve`; read and
load do not depend on the mode (`kcp-v0.8-500x2000-read`). Three rounds each. Only run explicitly,
e.g. `python -m pytest bench -k "kcp and 500x2000"` (see bench/conftest.py). The sizes are the
suite's grid plus the issue's set (2,000 namespaces over 50 Locations and 500 clusters). Phases:

- read: the set's YAML text parsed and validated (`parse_text`);
- load: `adapters.kcp.load` (manifests -> Batch);
- solve: `solver.solve`;
- emit: `adapters.kcp.emit` (Result -> Namespaces and Placements to write);
- write: the YAML stream of the objects to apply;
- e2e: read, the library pipeline (load, solve, emit) and write: what `placement-solver solve -f
  set.yaml` spends on the set;
- simulate: `adapters.kcp.simulate.run_simulation` from the generated set to its fixed point.

The set, its text and every phase's input are made once per size (and mode), outside the timing.
The solve and e2e phases record the namespace moves of the plan (`extra_info`).
"""

from __future__ import annotations

from functools import cache

import pytest

from adapters import kcp
from adapters.kcp.simulate import run_simulation
from adapters.manifests import dump_yaml_stream, from_objects, parse_text
from adapters.pipeline import schedule_manifests
from bench import kcp_hub
from bench.suite import DEFAULT_SIZES
from solver import SolveOptions, check, solve

NOW = kcp_hub.NOW
MODES = ("greedy", "optimal")
GENERATIONS = ("v0.5", "v0.8")
SIZES = (*DEFAULT_SIZES, (500, 2000))
SHARED_PHASES = ("read", "load")
MODE_PHASES = ("solve", "emit", "write", "e2e", "simulate")
CASES = [
    (generation, clusters, placements, mode, phase)
    for generation in GENERATIONS
    for clusters, placements in SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES] + [(m, p) for m in MODES for p in MODE_PHASES]
]


def _id(generation: str, clusters: int, placements: int, mode: str | None, phase: str) -> str:
    return f"kcp-{generation}-{clusters}x{placements}-" + (f"{mode}-" if mode else "") + phase


def _options(mode: str) -> SolveOptions:
    return SolveOptions(mode=mode, time_limit=60.0, seed=0)


@cache
def workspace_set(generation: str, clusters: int, placements: int) -> tuple[dict, ...]:
    return tuple(kcp_hub.workspace_set(clusters, placements, 0, generation))


@cache
def text(generation: str, clusters: int, placements: int) -> str:
    return dump_yaml_stream(list(workspace_set(generation, clusters, placements)))


@cache
def loaded(generation: str, clusters: int, placements: int):
    return kcp_hub.load(list(workspace_set(generation, clusters, placements)), NOW, 0)


@cache
def solved(generation: str, clusters: int, placements: int, mode: str):
    batch, _ = loaded(generation, clusters, placements)
    result = solve(batch, _options(mode))
    assert check(batch, result) == []
    return result


@cache
def emitted(generation: str, clusters: int, placements: int, mode: str):
    _, context = loaded(generation, clusters, placements)
    return kcp.emit(context, solved(generation, clusters, placements, mode))


@pytest.mark.parametrize(
    ("generation", "clusters", "placements", "mode", "phase"), CASES, ids=[_id(*c) for c in CASES]
)
def test_kcp_phase(benchmark, generation, clusters, placements, mode, phase):
    size = (generation, clusters, placements)
    outputs = []
    if phase == "read":
        source = text(*size)

        def run():
            outputs.append(parse_text(source, "set.yaml"))
    elif phase == "load":
        objects = list(workspace_set(*size))

        def run():
            outputs.append(kcp_hub.load(objects, NOW, 0))
    elif phase == "solve":
        batch, _ = loaded(*size)
        options = _options(mode)

        def run():
            outputs.append(solve(batch, options))
    elif phase == "emit":
        _, context = loaded(*size)
        result = solved(*size, mode)

        def run():
            outputs.append(kcp.emit(context, result))
    elif phase == "write":
        apply = emitted(*size, mode).apply

        def run():
            outputs.append(dump_yaml_stream(apply))
    elif phase == "e2e":
        source = text(*size)
        options = _options(mode)

        def run():
            manifests = parse_text(source, "set.yaml")
            outcome = schedule_manifests(manifests, now=NOW, options=options, verify=False)
            outputs.append((outcome, dump_yaml_stream(outcome.apply)))
    else:
        manifests = from_objects(list(workspace_set(*size)), "<generated>")
        options = _options(mode)

        def run():
            outputs.append(run_simulation(manifests, now=NOW, options=options))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    last = outputs[-1]
    objects = list(workspace_set(*size))
    if phase == "solve":
        batch, _ = loaded(*size)
        assert check(batch, last) == []
        assert len({r.stats.objective for r in outputs}) == 1  # deterministic across rounds
        _, context = loaded(*size)
        moved, forced = kcp_hub.moves(objects, kcp_hub.advance(objects, kcp.emit(context, last)))
        stats = last.stats
        benchmark.extra_info.update(
            {
                "status": stats.status,
                "objective": stats.objective,
                "gap": stats.gap,
                "moves": moved,
                "forced": forced,
            }
        )
    elif phase == "e2e":
        outcome, stream = last
        assert check(outcome.batch, outcome.result) == []
        assert len({o[1] for o in outputs}) == 1  # the same bytes every round
        moved, forced = kcp_hub.moves(objects, kcp_hub.advance(objects, outcome))
        benchmark.extra_info.update({k: outcome.summary[k] for k in ("status", "objective", "unsatisfied")})
        benchmark.extra_info.update({"moves": moved, "forced": forced})
    elif phase == "simulate":
        assert last.converged and last.violations == []
        benchmark.extra_info.update({"steps": last.steps, "transitions": len(last.log)})
