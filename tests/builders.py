"""Small helpers to build model objects concisely in tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from model import (
    Batch,
    Cluster,
    ClusterScore,
    ClusterTerm,
    ExistingDecision,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    PlacementRequest,
    Preference,
    PropertyOperator,
    PropertyRequirement,
    PropertySorter,
    RequestResult,
    Result,
    SelectionMode,
    SpreadConstraint,
    Taint,
    Toleration,
    TolerationOperator,
    parse_quantity,
)
from solver import SolveOptions, check, solve
from solver.prepare import prepare
from solver.table import ClusterTable

GREEDY = SolveOptions(mode="greedy")
OPTIMAL = SolveOptions(mode="optimal")


def cluster(
    name: str,
    labels: Mapping[str, str] | None = None,
    props: Mapping[str, str] | None = None,
    taints: Iterable[Taint] = (),
    *,
    eligible: bool = True,
    reason: str = "",
    leaving: bool = False,
) -> Cluster:
    """A cluster; property values are quantity strings."""
    return Cluster(
        name,
        labels=dict(labels or {}),
        properties={k: parse_quantity(v) for k, v in (props or {}).items()},
        taints=tuple(taints),
        eligible=eligible,
        ineligible_reason=reason if reason or eligible else "not eligible",
        leaving=leaving,
    )


def req(key: str, op: str, *values: str) -> LabelRequirement:
    return LabelRequirement(key, LabelOperator(op), tuple(values))


def sel(match: Mapping[str, str] | None = None, *exprs: LabelRequirement) -> LabelSelector:
    return LabelSelector(tuple(sorted((match or {}).items())), tuple(exprs))


def prop(name: str, op: str, value: str) -> PropertyRequirement:
    return PropertyRequirement(name, PropertyOperator(op), parse_quantity(value))


def term(match: Mapping[str, str] | None = None, *exprs: LabelRequirement, props=()) -> ClusterTerm:
    return ClusterTerm(sel(match, *exprs) if match is not None or exprs else None, tuple(props))


def pref(weight: int, match: Mapping[str, str] | None = None, *exprs, sort: str | None = None, asc=False):
    """A preference; `sort` names a property to interpolate (Ascending when `asc`)."""
    return Preference(
        weight,
        labels=sel(match, *exprs) if match is not None or exprs else None,
        sorter=PropertySorter(sort, asc) if sort else None,
    )


def spread(key: str, skew: int = 1, hard: bool = True) -> SpreadConstraint:
    return SpreadConstraint(key, skew, hard)


def taint(key: str, value: str = "") -> Taint:
    return Taint(key, value)


def tol(key: str = "", value: str = "", *, exists: bool = False, effect: str = "") -> Toleration:
    op = TolerationOperator.EXISTS if exists else TolerationOperator.EQUAL
    return Toleration(key, op, value, effect)


def held(
    name: str, *, current=True, committed=False, score: tuple[int, int] | None = None
) -> ExistingDecision:
    return ExistingDecision(name, current, committed, None if score is None else ClusterScore(*score))


def pick_n(n: int, name: str = "p", **kw) -> PlacementRequest:
    return PlacementRequest(name, mode=SelectionMode.N, count=n, **_tuples(kw))


def pick_all(name: str = "p", **kw) -> PlacementRequest:
    return PlacementRequest(name, mode=SelectionMode.ALL, **_tuples(kw))


def pick_fixed(*names: str, name: str = "p", **kw) -> PlacementRequest:
    return PlacementRequest(name, mode=SelectionMode.FIXED, cluster_names=tuple(names), **_tuples(kw))


def _tuples(kw: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


def batch(clusters: Iterable[Cluster], *requests: PlacementRequest, explain_limit: int = 20) -> Batch:
    """A batch with clusters sorted by name and requests by key, as the model requires."""
    return Batch(
        tuple(sorted(clusters, key=lambda c: c.name)),
        tuple(sorted(requests, key=lambda r: r.key)),
        explain_limit=explain_limit,
    )


def numbered(n: int, prefix: str = "cluster-", **kw) -> list[Cluster]:
    return [cluster(f"{prefix}{i}", **kw) for i in range(1, n + 1)]


def run(b: Batch, mode: str = "greedy") -> Result:
    """Solve and assert the independent checker accepts the result."""
    result = solve(b, SolveOptions(mode=mode))
    problems = check(b, result)
    assert problems == [], problems
    return result


def only(result: Result) -> RequestResult:
    (rr,) = result.requests
    return rr


def chosen(rr: RequestResult) -> list[str]:
    """Selected cluster names in decision order."""
    return [c.cluster for c in rr.selected]


def scores(rr: RequestResult) -> dict[str, tuple[int, int] | None]:
    """Selected cluster -> (spread, affinity), or None when unscored."""
    return {c.cluster: None if c.score is None else (c.score.spread, c.score.affinity) for c in rr.selected}


def prepared(b: Batch) -> tuple[Any, list[Any]]:
    """The batch's cluster table and its prepared requests: the solver's first step, for tests
    of what comes after it."""
    table = ClusterTable(b)
    return table, prepare(b, table)
