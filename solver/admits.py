"""Whether a cluster admits a request: the one rule set every use but the independent checker shares.

The rules, in the order upstream's filter plugins run them, so that the first a cluster fails is
the reason it is reported with (model.FilterKind):

1. scope (SCOPE): outside every pool the request may draw from; never reported, the request
   cannot see the cluster;
2. required terms (AFFINITY): one of the ORed terms matches the cluster's labels, properties,
   claims and traits;
3. eligibility (INELIGIBLE, with the cluster's reason): nothing new lands on an ineligible or
   leaving cluster;
4. taints (TAINT, with the first taint left untolerated): judged at the batch's clock, a
   toleration with seconds holding only that long after the taint was added; a cluster the request
   already holds ignores the taints that keep out only newcomers.

A request for named clusters (FIXED) is judged by two rules only: the cluster is named
(NOT_LISTED), and eligibility.

The rules are written twice, from this one place: compiled to polars expressions over the
cluster table (solver.table evaluates every distinct policy of a batch in one select: the scope
and the required terms; eligibility and taints are per-cluster columns and lists there;
solver.table.rule_masks gives each rule's verdict on every cluster), and as a
scalar check of one cluster (`refusals`, `admits`: explain, tenancy and the long-lived
scheduler). The independent checker (solver.checker) keeps its own plain rules; a property test
holds the two equal on generated batches.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import polars as pl

from model import (
    Cluster,
    ClusterTerm,
    FilterKind,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    PlacementRequest,
    PropertyOperator,
    PropertyRequirement,
    SelectionMode,
    Taint,
    Toleration,
    first_untolerated,
)

__all__ = [
    "RULES",
    "FIXED_RULES",
    "admits",
    "first_refusal",
    "refusals",
    "takes_new",
    "untolerated",
    "selector_expression",
    "required_expression",
    "scope_expression",
]

# The rules in plugin order, for a request that filters and for one of named clusters.
RULES = (FilterKind.SCOPE, FilterKind.AFFINITY, FilterKind.INELIGIBLE, FilterKind.TAINT)
FIXED_RULES = (FilterKind.NOT_LISTED, FilterKind.INELIGIBLE)


# -- the scalar check -----------------------------------------------------------------------------


def in_scope(request: PlacementRequest, cluster: Cluster) -> bool:
    return request.scope is None or within(request.scope, cluster)


def within(scope: tuple[str, ...], cluster: Cluster) -> bool:
    """Whether the cluster holds one of the scope's traits (rule 1 of a scoped request)."""
    return not cluster.traits.isdisjoint(scope)


def matches_required(request: PlacementRequest, cluster: Cluster) -> bool:
    return not request.required or matches_terms(request.required, cluster)


def matches_terms(terms: tuple[ClusterTerm, ...], cluster: Cluster) -> bool:
    """Whether the cluster matches one of the terms (rule 2 of a request that has some)."""
    labels, properties, claims, traits = cluster.labels, cluster.properties, cluster.claims, cluster.traits
    # A plain loop, not any() over a generator: the live checks ask it thousands of times an event.
    for t in terms:  # noqa: SIM110
        if t.matches(labels, properties, claims, traits):
            return True
    return False


def takes_new(cluster: Cluster) -> bool:
    """Eligibility: the cluster may take something new."""
    return cluster.eligible and not cluster.leaving


def untolerated(
    cluster: Cluster, tolerations: tuple[Toleration, ...], now: datetime | None, *, held: bool = False
) -> Taint | None:
    """The first taint of the cluster the tolerations leave untolerated at `now` (the reason it is
    reported with), None when they tolerate them all."""
    if not cluster.taints:
        return None
    return first_untolerated(cluster.taints, tolerations, now, held=held)


def refusals(
    request: PlacementRequest, cluster: Cluster, now: datetime | None, *, held: bool = False
) -> tuple[FilterKind, ...]:
    """Every rule the cluster fails for the request, in plugin order (the first is the reason it is
    reported with); empty when it admits the request. `held`: the request already holds it."""
    if request.mode is SelectionMode.FIXED:
        named = (cluster.name in request.cluster_names, takes_new(cluster))
        return tuple(kind for kind, passed in zip(FIXED_RULES, named, strict=True) if not passed)
    checks = (
        in_scope(request, cluster),
        matches_required(request, cluster),
        takes_new(cluster),
        untolerated(cluster, request.tolerations, now, held=held) is None,
    )
    return tuple(kind for kind, passed in zip(RULES, checks, strict=True) if not passed)


def first_refusal(
    request: PlacementRequest, cluster: Cluster, now: datetime | None, *, held: bool = False
) -> FilterKind | None:
    """`refusals`' first (the reason the cluster is reported with), the rules judged in plugin
    order only as far as the first that fails; None when it admits the request."""
    if request.mode is SelectionMode.FIXED:
        if cluster.name not in request.cluster_names:
            return FIXED_RULES[0]
        return None if takes_new(cluster) else FIXED_RULES[1]
    if not in_scope(request, cluster):
        return RULES[0]
    if not matches_required(request, cluster):
        return RULES[1]
    if not takes_new(cluster):
        return RULES[2]
    return None if untolerated(cluster, request.tolerations, now, held=held) is None else RULES[3]


def admits(request: PlacementRequest, cluster: Cluster, now: datetime | None, *, held: bool = False) -> bool:
    """Whether the cluster passes every rule for the request: `refusals` is empty, found without
    judging the rules past the first that fails. The rules are pure and all must pass, so they are
    judged cheapest first: the required terms' label and CEL match last (a live scheduler's checks
    ask this of clusters an event moved, a third of them refused by a taint after a taint event)."""
    if request.mode is SelectionMode.FIXED:
        return cluster.name in request.cluster_names and takes_new(cluster)
    return (
        in_scope(request, cluster)
        and takes_new(cluster)
        and untolerated(cluster, request.tolerations, now, held=held) is None
        and matches_required(request, cluster)
    )


# -- compiled to polars -----------------------------------------------------------------------------


def _requirement(r: LabelRequirement, column: pl.Expr) -> pl.Expr:
    if r.operator is LabelOperator.IN:
        return column.is_in(list(r.values)).fill_null(False)
    if r.operator is LabelOperator.NOT_IN:
        return column.is_null() | ~column.is_in(list(r.values)).fill_null(False)
    if r.operator is LabelOperator.EXISTS:
        return column.is_not_null()
    return column.is_null()


def selector_expression(selector: LabelSelector | None, label: Callable[[str], pl.Expr]) -> pl.Expr:
    """Whether each cluster's labels (or claims: `label` reads the column of a key) match."""
    if selector is None:
        return pl.lit(True)
    return pl.all_horizontal(
        [pl.lit(True), *(_requirement(r, label(r.key)) for r in selector.requirements())]
    )


_COMPARE = {
    PropertyOperator.GT: pl.Expr.gt,
    PropertyOperator.GE: pl.Expr.ge,
    PropertyOperator.EQ: pl.Expr.eq,
    PropertyOperator.NE: pl.Expr.ne,
    PropertyOperator.LT: pl.Expr.lt,
    PropertyOperator.LE: pl.Expr.le,
}


def _property(r: PropertyRequirement, exact: Callable[[str], pl.Expr]) -> pl.Expr:
    compared = _COMPARE[r.operator](exact(r.name), pl.lit(r.value.nanos, dtype=pl.Int128))
    return compared.fill_null(False)  # a missing property matches nothing


def _term(
    term: ClusterTerm,
    label: Callable[[str], pl.Expr],
    claim: Callable[[str], pl.Expr],
    exact: Callable[[str], pl.Expr],
    trait: Callable[[str], pl.Expr],
) -> pl.Expr:
    return pl.all_horizontal(
        [
            selector_expression(term.labels, label),
            selector_expression(term.claims, claim),
            *(_property(p, exact) for p in term.properties),
            *(trait(t) for t in term.traits),
        ]
    )


def required_expression(
    terms: tuple[ClusterTerm, ...],
    label: Callable[[str], pl.Expr],
    claim: Callable[[str], pl.Expr],
    exact: Callable[[str], pl.Expr],
    trait: Callable[[str], pl.Expr],
) -> pl.Expr:
    """Rule 2 over the table: whether one of the ORed terms matches, given how to read a label,
    a claim, a property's exact value and a trait."""
    return pl.any_horizontal([_term(t, label, claim, exact, trait) for t in terms])


def scope_expression(scope: tuple[str, ...], trait: Callable[[str], pl.Expr]) -> pl.Expr:
    """Rule 1 over the table: whether each cluster carries one of the scope's traits."""
    return pl.any_horizontal([pl.lit(False), *(trait(t) for t in scope)])
