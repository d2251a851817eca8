"""Kubernetes Fleet (KubeFleet) as the registry sees it: every facet, as data."""

from __future__ import annotations

from adapters.contract import ExplainKind, System, Table
from adapters.fleet import names as n

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="fleet",
    title="Fleet",
    kinds={kind: frozenset(groups) for kind, groups in n.KINDS.items()},
    served=n.SERVED_VERSIONS,
    load="adapters.fleet.load:load",
    emit="adapters.fleet.emit:emit",
    cut="adapters.fleet.load:cut",
    targets=(
        ExplainKind(n.PLACEMENT, n.PLACEMENT_GROUP, ("clusterresourceplacement", "crp"), namespaced=False),
    ),
    explainer="adapters.fleet.explain",
    generator="adapters.fleet.generate:generate_fleet",
    demo=("fleet-demo.yaml",),
    table=Table(score="AFFINITY", alone=True),
    writes="adapters.fleet.writes:writes",
    reach="adapters.fleet.reach:live",
)
