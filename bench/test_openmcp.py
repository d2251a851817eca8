"""pytest-benchmark: the openMCP Cluster Scheduler pipeline on pre-generated hubs, end to end and per
phase, as the suite's rows split it.

One test per (size, mode, phase), ids like `openmcp-300x1250-optimal-solve`; read and load do not
depend on the mode (`openmcp-300x1250-read`). Three rounds each. Only run explicitly, e.g.
`python -m pytest bench -k "openmcp and 300x1250"` (see bench/conftest.py). The sizes are the
suite's grid plus the issue's two openMCP cases (1,000 pending requests over 300 clusters, 10,000
over 3,000: 1,250 and 12,500 ClusterRequests, 80% of them pending). The phases:

- read: the hub's YAML text parsed and validated (`parse_text`);
- load: `adapters.openmcp.load` (manifests and the scheduler config -> Batch);
- solve: `solver.solve`;
- emit: `adapters.openmcp.emit` (Result -> Clusters and ClusterRequests to write, deletions);
- write: the YAML stream of the objects to apply;
- e2e: read, the library pipeline (load, solve, emit) and write: what `placement-solver solve -f
  hub.yaml --config config.yaml` spends on the hub (the config taken already parsed).

The hub, its config, its text and every phase's input are made once per size (and mode), outside
the timing. The solve and e2e phases record the clusters each plan creates in `extra_info`.
"""

from __future__ import annotations

from functools import cache

import pytest

from adapters import openmcp
from adapters.generate import generate
from adapters.manifests import dump_yaml_stream, from_objects, parse_text
from adapters.pipeline import schedule_manifests
from bench import openmcp_hub
from bench.suite import DEFAULT_SIZES
from solver import SolveOptions, check, solve

NOW = openmcp_hub.NOW
MODES = ("greedy", "optimal")
SIZES = (*DEFAULT_SIZES, (300, 1250), (3000, 12_500))
SHARED_PHASES = ("read", "load")
MODE_PHASES = ("solve", "emit", "write", "e2e")
CASES = [
    (clusters, placements, mode, phase)
    for clusters, placements in SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES] + [(m, p) for m in MODES for p in MODE_PHASES]
]


def _id(clusters: int, placements: int, mode: str | None, phase: str) -> str:
    return f"openmcp-{clusters}x{placements}-" + (f"{mode}-" if mode else "") + phase


def _options(mode: str) -> SolveOptions:
    return SolveOptions(mode=mode, time_limit=60.0, seed=0)


@cache
def hub(clusters: int, placements: int) -> tuple[dict, ...]:
    return tuple(generate("openmcp", clusters, placements, seed=0))


@cache
def config(clusters: int, placements: int) -> dict:
    return openmcp_hub.config(clusters, placements, 0)


@cache
def text(clusters: int, placements: int) -> str:
    return dump_yaml_stream(list(hub(clusters, placements)))


@cache
def loaded(clusters: int, placements: int):
    manifests = from_objects(hub(clusters, placements), "<generated>")
    return openmcp.load(manifests, now=NOW, seed=0, config=config(clusters, placements))


@cache
def solved(clusters: int, placements: int, mode: str):
    batch, _ = loaded(clusters, placements)
    result = solve(batch, _options(mode))
    assert check(batch, result) == []
    return result


@cache
def emitted(clusters: int, placements: int, mode: str):
    _, context = loaded(clusters, placements)
    return openmcp.emit(context, solved(clusters, placements, mode))


@pytest.mark.parametrize(("clusters", "placements", "mode", "phase"), CASES, ids=[_id(*c) for c in CASES])
def test_openmcp_phase(benchmark, clusters, placements, mode, phase):
    size = (clusters, placements)
    outputs = []
    if phase == "read":
        source = text(*size)

        def run():
            outputs.append(parse_text(source, "hub.yaml"))
    elif phase == "load":
        manifests = from_objects(hub(*size), "<generated>")
        document = config(*size)

        def run():
            outputs.append(openmcp.load(manifests, now=NOW, seed=0, config=document))
    elif phase == "solve":
        batch, _ = loaded(*size)
        options = _options(mode)

        def run():
            outputs.append(solve(batch, options))
    elif phase == "emit":
        _, context = loaded(*size)
        result = solved(*size, mode)

        def run():
            outputs.append(openmcp.emit(context, result))
    elif phase == "write":
        apply = emitted(*size, mode).apply

        def run():
            outputs.append(dump_yaml_stream(apply))
    else:
        source = text(*size)
        options = _options(mode)
        document = config(*size)

        def run():
            manifests = parse_text(source, "hub.yaml")
            outcome = schedule_manifests(manifests, now=NOW, options=options, verify=False, config=document)
            outputs.append((outcome, dump_yaml_stream(outcome.apply)))

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    last = outputs[-1]
    if phase == "solve":
        batch, _ = loaded(*size)
        assert check(batch, last) == []
        assert len({r.stats.objective for r in outputs}) == 1  # deterministic across rounds
        stats = last.stats
        _, context = loaded(*size)
        benchmark.extra_info.update(
            {
                "status": stats.status,
                "objective": stats.objective,
                "bound": stats.bound,
                "gap": stats.gap,
                "unsatisfied": sum(1 for r in last.requests if not r.satisfied),
                "created": openmcp_hub.created(hub(*size), openmcp.emit(context, last)),
            }
        )
    elif phase == "e2e":
        outcome, stream = last
        assert check(outcome.batch, outcome.result) == []
        assert len({o[1] for o in outputs}) == 1  # the same bytes every round
        benchmark.extra_info.update({k: outcome.summary[k] for k in ("status", "objective", "unsatisfied")})
        benchmark.extra_info["created"] = openmcp_hub.created(hub(*size), outcome)
