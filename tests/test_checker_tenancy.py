"""The checker's tenancy verdicts, judged once per filters, cluster and held (solver.checker
_Passing): requests sharing their filters' objects are still judged each as its own case."""

from __future__ import annotations

from datetime import UTC, datetime

from model import (
    Batch,
    Choice,
    Cluster,
    ClusterTerm,
    ExistingDecision,
    PlacementRequest,
    RequestResult,
    Result,
    SelectionMode,
    SolveStats,
    Taint,
    Tenancy,
)
from solver import check

NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)
CORDONED = Taint("kcp/unschedulable", "", "NoSchedule", new_only=True)
EAST = (ClusterTerm(traits=("location:east",)),)  # one object, shared by every request below


def _site(name: str, *, taints: tuple[Taint, ...] = ()) -> Cluster:
    return Cluster(f"ws/{name}", traits=frozenset({"location:east"}), taints=taints)


def _unit(name: str, order: int, *, held: str | None = None) -> PlacementRequest:
    return PlacementRequest(
        name,
        "ws",
        mode=SelectionMode.N,
        count=1,
        required=EAST,
        existing=(ExistingDecision(held),) if held else (),
        tenancy=Tenancy(order=order, movable=True, balance=True),
    )


def _on(request: PlacementRequest, cluster: str) -> RequestResult:
    return RequestResult(request.key, (Choice(cluster),))


def test_a_cluster_that_passes_for_its_holder_still_fails_a_newcomer_with_the_same_filters():
    holder, newcomer = _unit("n1", 1, held="ws/c"), _unit("n2", 2)
    assert holder.required is newcomer.required
    batch = Batch((_site("a"), _site("c", taints=(CORDONED,))), (holder, newcomer), now=NOW)
    stats = SolveStats(mode="greedy", status="GREEDY")
    sound = Result((_on(holder, "ws/c"), _on(newcomer, "ws/a")), stats)
    assert check(batch, sound) == []
    cordoned = Result((_on(holder, "ws/c"), _on(newcomer, "ws/c")), stats)
    assert check(batch, cordoned) == ["ws/n2: selected ws/c, which fails the request's filters"]
    # The other way round: the newcomer judged first, then the holder's hold still valid.
    first = Result((_on(newcomer, "ws/c"), _on(holder, "ws/c")), stats)
    assert check(Batch(batch.clusters, (newcomer, holder), now=NOW), first) == [
        "ws/n2: selected ws/c, which fails the request's filters"
    ]
