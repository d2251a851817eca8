"""Upstream's filter plugins in its words, over the neutral request and clusters: the reason the
first failing filter gives a cluster (in names.FILTERS' order: upstream runs them in Go map order,
so a cluster failing several gets a random one there), and the FitError message of a binding no
cluster fits (pkg/scheduler/framework/types.go FitError.Error). The solver decides the same
feasibility; these words are what the NoClusterFit condition and explain say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from adapters.karmada import names as n
from model import Cluster, ClusterTerm, FilterKind, PlacementRequest, Taint, Unselected, first_untolerated

__all__ = ["filter_reason", "fit_error", "reason", "taint_text", "terms"]


def taint_text(t: Taint) -> str:
    """corev1.Taint.ToString with an effect: key=value:Effect, or key:Effect without a value."""
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def terms(request: PlacementRequest, tier: int) -> tuple[ClusterTerm, ...]:
    """The affinity terms a cluster must match one of: the clusterAffinity, or the tier's term
    and its overflow terms; () for none."""
    replicas = request.replicas
    if replicas is not None and replicas.tiers:
        chosen = replicas.tiers[tier]
        return (chosen.term, *chosen.overflow)
    return request.required


def reason(c: Cluster, request: PlacementRequest, tier: int) -> str | None:
    """The first failing filter's reason for the cluster, or None when it passes them all."""
    replicas = request.replicas
    held = any(e.cluster == c.name for e in request.existing)
    if replicas is not None and replicas.needs and replicas.needs not in c.traits and not held:
        return n.NO_API
    taint = first_untolerated(c.taints, request.tolerations, held=held)
    if taint is not None:
        return n.UNTOLERATED.format(taint_text(taint))
    required = terms(request, tier)
    if required and not any(t.matches(c.labels, {}, c.claims, c.traits) for t in required):
        return n.NO_AFFINITY
    for group in replicas.groups if replicas is not None else ():
        if group.claim and group.claim not in c.claims:
            return n.NO_FIELD[group.claim]
    if replicas is not None and c.name in replicas.evicted:
        return n.EVICTING
    return None


def fit_error(clusters: Sequence[Cluster], request: PlacementRequest, tier: int) -> str | None:
    """FitError's message when no cluster being kept passes the filters (clusters being deleted
    are skipped, yet counted in N), else None."""
    reasons = Counter()
    for c in clusters:
        if c.leaving:
            continue
        said = reason(c, request, tier)
        if said is None:
            return None
        reasons[said] += 1
    if not clusters or not reasons:
        return n.FIT_ERROR.format(len(clusters), n.NO_CLUSTER_EXISTS)
    histogram = sorted(f"{count} {said}" for said, count in reasons.items())
    return n.FIT_ERROR.format(len(clusters), ", ".join(histogram))


def filter_reason(u: Unselected) -> str | None:
    """Upstream's reason for a cluster the solver filtered out (None for one it skips: being
    deleted, or not filtered at all)."""
    if u.kind is FilterKind.MISSING:
        return n.NO_API
    if u.kind is FilterKind.TAINT and u.taint is not None:
        return n.UNTOLERATED.format(taint_text(u.taint))
    if u.kind is FilterKind.AFFINITY:
        return n.NO_AFFINITY
    if u.kind is FilterKind.SPREAD:
        return n.NO_FIELD.get(u.detail)
    if u.kind is FilterKind.EVICTED:
        return n.EVICTING
    return None
