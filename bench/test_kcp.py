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

from adapters.kcp import api as kcp
from adapters.kcp.simulate import run_simulation
from bench import kcp_hub
from bench.phases import MODE_PHASES, MODES, SHARED_PHASES, PhaseHub, case_id, options, run_phase
from bench.suite import DEFAULT_SIZES

NOW = kcp_hub.NOW
GENERATIONS = ("v0.5", "v0.8")
SIZES = (*DEFAULT_SIZES, (500, 2000))
CASES = [
    (generation, clusters, placements, mode, phase)
    for generation in GENERATIONS
    for clusters, placements in SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES]
    + [(m, p) for m in MODES for p in (*MODE_PHASES, "simulate")]
]


@cache
def workspace_set(generation: str, clusters: int, placements: int) -> PhaseHub:
    return PhaseHub(
        tuple(kcp_hub.workspace_set(clusters, placements, 0, generation)),
        load=lambda manifests: kcp.load(manifests, now=NOW, seed=0),
        emit=kcp.emit,
        now=NOW,
    )


@pytest.mark.parametrize(
    ("generation", "clusters", "placements", "mode", "phase"),
    CASES,
    ids=[case_id(f"kcp-{c[0]}", *c[1:]) for c in CASES],
)
def test_kcp_phase(benchmark, generation, clusters, placements, mode, phase):
    hub = workspace_set(generation, clusters, placements)
    objects = list(hub.objects)
    if phase == "simulate":
        manifests = hub.manifests()
        outputs = []
        chosen = options(mode)

        def run():
            outputs.append(run_simulation(manifests, now=NOW, options=chosen))

        benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
        last = outputs[-1]
        assert last.converged and last.violations == []
        benchmark.extra_info.update({"steps": last.steps, "transitions": len(last.log)})
        return
    last, _ = run_phase(benchmark, hub, mode, phase)
    if phase == "solve":
        _, context = hub.loaded()
        moved, forced = kcp_hub.moves(objects, kcp_hub.advance(objects, kcp.emit(context, last)))
        benchmark.extra_info.update({"moves": moved, "forced": forced})
    elif phase == "e2e":
        moved, forced = kcp_hub.moves(objects, kcp_hub.advance(objects, last[0]))
        benchmark.extra_info.update({"moves": moved, "forced": forced})
