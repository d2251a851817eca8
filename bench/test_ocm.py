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

The hub, its text and every phase's input are made once per size (and mode), outside the timing
(bench/phases.py runs and checks each phase).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.ocm import api as ocm
from bench.phases import MODE_PHASES, MODES, SHARED_PHASES, PhaseHub, case_id, run_phase
from bench.suite import DEFAULT_SIZES

NOW = datetime.fromisoformat(DEFAULT_NOW)
CASES = [
    (clusters, placements, mode, phase)
    for clusters, placements in DEFAULT_SIZES
    for mode, phase in [(None, p) for p in SHARED_PHASES] + [(m, p) for m in MODES for p in MODE_PHASES]
]


@cache
def hub(clusters: int, placements: int) -> PhaseHub:
    return PhaseHub(
        tuple(generate("ocm", clusters, placements, seed=0)),
        load=lambda manifests: ocm.load(manifests, now=NOW, seed=0),
        emit=ocm.emit,
        now=NOW,
    )


@pytest.mark.parametrize(
    ("clusters", "placements", "mode", "phase"), CASES, ids=[case_id("ocm", *c) for c in CASES]
)
def test_ocm_phase(benchmark, clusters, placements, mode, phase):
    run_phase(benchmark, hub(clusters, placements), mode, phase)
