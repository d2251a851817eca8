"""kcp's Transparent Multi-Cluster placement, both API generations, as the registry sees it: every
facet, as data."""

from __future__ import annotations

from adapters.contract import ExplainKind, System
from adapters.kcp import names as n

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="kcp",
    title="kcp",
    kinds={kind: frozenset(groups) for kind, groups in n.KINDS.items()},
    served=n.SERVED_VERSIONS,
    load="adapters.kcp.load:load",
    emit="adapters.kcp.emit:emit",
    emit_part="adapters.kcp.emit:emit_part",
    shared={kind: frozenset(groups) for kind, groups in n.SHARED_KINDS.items()},
    fields="adapters.kcp.workspace:kcp_fields",
    scope="adapters.kcp.workspace:workspace_of",
    scope_word="workspace",
    targets=(
        ExplainKind(n.PLACEMENT, n.SCHEDULING_GROUP, ("placement",)),
        ExplainKind(n.NAMESPACE, "", ("namespace", "ns")),
    ),
    explainer="adapters.kcp.explain",
    generator="adapters.kcp.generate:generate",
    generations=(n.Generation.V08.value, n.Generation.V05.value),
    demo=("kcp-demo.yaml",),
    writes="adapters.kcp.writes:writes",
    commands={"simulate": "adapters.kcp.command:simulate"},
    reach="adapters.kcp.reach:live",
)
