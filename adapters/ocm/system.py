"""Open Cluster Management as the registry sees it: every facet, as data."""

from __future__ import annotations

from adapters.contract import ExplainKind, System
from adapters.ocm import names as n

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="ocm",
    title="OCM",
    kinds={kind: frozenset(groups) for kind, groups in n.KINDS.items()},
    served=n.SERVED_VERSIONS,
    load="adapters.ocm.load:load",
    emit="adapters.ocm.emit:emit",
    targets=(ExplainKind(n.PLACEMENT, n.GROUP, ("placement",)),),
    explainer="adapters.ocm.explain",
    generator="adapters.ocm.generate:generate_ocm",
    demo=("ocm-demo.yaml",),
    writes="adapters.ocm.writes:writes",
    reach="adapters.ocm.reach:live",
)
