"""Karmada as the registry sees it: every facet, as data."""

from __future__ import annotations

from adapters.contract import ExplainKind, System, Table
from adapters.karmada import names as n
from model import Failure

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="karmada",
    title="Karmada",
    kinds={kind: frozenset(groups) for kind, groups in n.KINDS.items()},
    served=n.SERVED_VERSIONS,
    load="adapters.karmada.load:load",
    emit="adapters.karmada.emit:emit",
    targets=(
        ExplainKind(n.RB, n.WORK_GROUP, ("resourcebinding", "rb")),
        ExplainKind(n.CRB, n.WORK_GROUP, ("clusterresourcebinding", "crb"), namespaced=False),
    ),
    explainer="adapters.karmada.explain",
    generator="adapters.karmada.generate:generate_karmada",
    demo=("karmada-demo.yaml",),
    table=Table(
        score=None,
        alone=True,
        replicas=True,
        failures={
            Failure.NO_FIT: n.NO_CLUSTER_FIT,
            Failure.SHORT: n.UNSCHEDULABLE,
            Failure.SELECTION: n.SCHEDULER_ERROR,
        },
        amount="adapters.karmada.clusters:amount_text",
    ),
    writes="adapters.karmada.writes:writes",
    reach="adapters.karmada.reach:live",
)
