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

from adapters.generate.hubs import generate
from adapters.openmcp import api as openmcp
from bench import openmcp_hub
from bench.phases import MODE_PHASES, MODES, SHARED_PHASES, PhaseHub, case_id, run_phase
from bench.suite import DEFAULT_SIZES

NOW = openmcp_hub.NOW
SIZES = (*DEFAULT_SIZES, (300, 1250), (3000, 12_500))
CASES = [
    (clusters, placements, mode, phase)
    for clusters, placements in SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES] + [(m, p) for m in MODES for p in MODE_PHASES]
]


@cache
def hub(clusters: int, placements: int) -> PhaseHub:
    config = openmcp_hub.config(clusters, placements, 0)
    return PhaseHub(
        tuple(generate("openmcp", clusters, placements, seed=0)),
        load=lambda manifests: openmcp.load(manifests, now=NOW, seed=0, config=config),
        emit=openmcp.emit,
        now=NOW,
        config=config,
    )


@pytest.mark.parametrize(
    ("clusters", "placements", "mode", "phase"), CASES, ids=[case_id("openmcp", *c) for c in CASES]
)
def test_openmcp_phase(benchmark, clusters, placements, mode, phase):
    this = hub(clusters, placements)
    last, _ = run_phase(benchmark, this, mode, phase)
    if phase == "solve":
        _, context = this.loaded()
        benchmark.extra_info["created"] = openmcp_hub.created(this.objects, openmcp.emit(context, last))
    elif phase == "e2e":
        benchmark.extra_info["created"] = openmcp_hub.created(this.objects, last[0])
