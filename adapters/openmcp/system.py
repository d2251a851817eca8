"""openMCP's Cluster Scheduler as the registry sees it: every facet, as data."""

from __future__ import annotations

from adapters.contract import ExplainKind, System
from adapters.openmcp import names as n

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="openmcp",
    title="openMCP",
    kinds={kind: frozenset(groups) for kind, groups in n.KINDS.items()},
    served=n.SERVED_VERSIONS,
    load="adapters.openmcp.load:load",
    emit="adapters.openmcp.emit:emit",
    config_read="adapters.openmcp.config:read_config_files",
    config_check="adapters.openmcp.config:check_config",
    targets=(ExplainKind(n.REQUEST, n.GROUP, ("clusterrequest", "cr", "creq")),),
    explainer="adapters.openmcp.explain",
    generator="adapters.openmcp.generate:generate",
    generator_config="adapters.openmcp.generate:generate_config",
    demo=("openmcp-demo.yaml",),
    demo_config="openmcp-demo-config.yaml",
    writes="adapters.openmcp.writes:writes",
    reach="adapters.openmcp.reach:live",
)
