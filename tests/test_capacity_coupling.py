"""The capacity coupling through solver.solve: optimal mode places a batch of requests that divide
replicas jointly (never over a cluster's free capacity, never worse than greedy charged in queue
order), greedy mode as upstream."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from model import Batch, Division, Failure
from solver import SolveOptions, check, solve
from solver.replicas.capacity import ReplicaCapacity
from solver.replicas.problem import ReplicaProblem
from tests.fixtures.replicas import GREEDY, PODS, as_set, cluster, request

OPTIMAL = SolveOptions(mode="optimal", threads=1)
CPU = "cpu"


def batch(clusters, *requests) -> Batch:
    return Batch(tuple(sorted(clusters, key=lambda c: c.name)), tuple(requests))


def solved(b: Batch, options: SolveOptions):
    result = solve(b, options)
    assert check(b, result) == []
    return result


def added(b: Batch, result) -> dict[str, dict[str, int]]:
    """Per cluster, per resource, what the answers add beyond what each request held there."""
    requests = {r.key: r for r in b.requests}
    out: dict[str, dict[str, int]] = {}
    for got in result.requests:
        r = requests[got.request]
        held = dict(r.replicas.current)
        for choice in got.selected:
            more = (choice.replicas or 0) - held.get(choice.cluster, 0)
            if more > 0 and not r.replicas.unlimited:
                on = out.setdefault(choice.cluster, {})
                for name, amount in r.replicas.demand.items():
                    on[name] = on.get(name, 0) + more * amount
    return out


def over(b: Batch, result) -> list[str]:
    free = {c.name: dict(c.capacity.free) if c.capacity else {} for c in b.clusters}
    return sorted(
        name
        for name, use in added(b, result).items()
        if any(v > free[name].get(k, 0) for k, v in use.items())
    )


def test_karmada_6518_fifteen_failed_over_apps_fill_b_and_c() -> None:
    clusters = [cluster("b", {CPU: 10_000, PODS: 100}), cluster("c", {CPU: 5_000, PODS: 100})]
    apps = [request(f"app-{i:02}", 1, demand={CPU: 1000, PODS: 1}, order=i) for i in range(15)]
    b = batch(clusters, *apps)
    greedy = solved(b, GREEDY)
    assert all(as_set(got) == {"b": 1} for got in greedy.requests)  # upstream piles onto b
    assert over(b, greedy) == ["b"]
    optimal = solved(b, OPTIMAL)
    assert over(b, optimal) == []
    assert all(got.satisfied for got in optimal.requests)
    on = [as_set(got) for got in optimal.requests]
    assert on.count({"b": 1}) == 10 and on.count({"c": 1}) == 5
    assert optimal.stats.status == "OPTIMAL" and optimal.stats.objective == optimal.stats.bound == 15


def test_karmada_6783_two_aggregated_deployments_go_to_different_clusters() -> None:
    clusters = [cluster("m1", {CPU: 4000, PODS: 10}), cluster("m2", {CPU: 4000, PODS: 10})]
    deployments = [
        request(name, 2, Division.AGGREGATED, demand={CPU: 2000, PODS: 1}, order=i)
        for i, name in enumerate(("first", "second"))
    ]
    b = batch(clusters, *deployments)
    assert over(b, solved(b, GREEDY)) == ["m1"]
    optimal = solved(b, OPTIMAL)
    assert [as_set(got) for got in optimal.requests] == [{"m1": 2}, {"m2": 2}]


def test_what_does_not_fit_is_unschedulable_with_upstreams_condition() -> None:
    clusters = [cluster("only", {CPU: 3000, PODS: 10})]
    b = batch(clusters, *(request(f"r{i}", 2, demand={CPU: 1000, PODS: 1}, order=i) for i in range(2)))
    optimal = solved(b, OPTIMAL)
    first, second = optimal.requests
    assert as_set(first) == {"only": 2} and first.satisfied
    assert not second.satisfied and second.failure is Failure.SHORT
    assert second.failure_detail == (
        "failed to assign replicas: Clusters available replicas 1 are not enough to schedule."
    )
    assert optimal.stats.objective == 1 and optimal.stats.bound == 1


def test_a_request_alone_gets_greedys_answer() -> None:
    clusters = [cluster("a", {CPU: 3000, PODS: 10}), cluster("b", {CPU: 7000, PODS: 10})]
    b = batch(clusters, request("alone", 5, demand={CPU: 1000, PODS: 1}, current=[("a", 1)]))
    assert solved(b, OPTIMAL).requests == solved(b, GREEDY).requests


@st.composite
def batches(draw) -> Batch:
    clusters = [
        cluster(f"c{k}", {CPU: draw(st.integers(0, 6)) * 1000, PODS: draw(st.integers(0, 6))})
        for k in range(draw(st.integers(1, 4)))
    ]
    names = [c.name for c in clusters]
    requests = []
    for i in range(draw(st.integers(1, 8))):
        count = draw(st.integers(1, 4))
        division = draw(st.sampled_from([Division.AVAILABLE, Division.AGGREGATED, Division.DUPLICATED]))
        current = []
        if draw(st.booleans()):
            current = [(draw(st.sampled_from(names)), draw(st.integers(1, count)))]
        requests.append(
            request(
                f"r{i}",
                count,
                division,
                demand={CPU: draw(st.integers(0, 2)) * 1000, PODS: 1},
                current=current,
                fresh=draw(st.booleans()),
                order=i,
                priority=draw(st.integers(0, 1)),
            )
        )
    return batch(clusters, *requests)


@settings(max_examples=40)
@given(batches())
def test_optimal_never_over_commits_and_schedules_at_least_greedy_charged(b: Batch) -> None:
    from solver.replicas.capacity import ReplicaCapacity
    from solver.replicas.capacity_units import charge, measure
    from solver.replicas.problem import ReplicaProblem

    optimal = solved(b, OPTIMAL)
    duplicated = {r.key for r in b.requests if r.replicas.division is Division.DUPLICATED}
    dynamic = [r for r in b.requests if r.key not in duplicated]
    kept = batch(b.clusters, *dynamic)
    if dynamic:  # duplicated requests are capacity-blind: only the others must fit
        assert over(kept, solved(kept, OPTIMAL)) == []
        coupling = ReplicaCapacity(ReplicaProblem(kept, kept.requests), seed=0, budget=5.0, deadline=1e18)
        greedy = coupling.greedy()
        part = list(range(len(greedy)))
        charged = measure(coupling.capacity, part, charge(coupling.capacity, part, greedy))
        first = len(coupling.capacity.priorities)
        unscheduled = [not got.satisfied for got in solved(kept, OPTIMAL).requests]
        assert sum(unscheduled) <= sum(charged[:first])
    assert solve(b, OPTIMAL).requests == optimal.requests


def test_requests_over_the_same_clusters_share_their_candidates_and_caps() -> None:
    # At 10,000 x 50,000 a tuple of a thousand ints per request and option was most of the peak:
    # requests that differ (here in their count) but see the same clusters share one of each.
    clusters = [cluster("a", {CPU: 10_000, PODS: 100}), cluster("b", {CPU: 5_000, PODS: 100})]
    demand = {CPU: 1000, PODS: 1}
    b = batch(clusters, request("x", 2, demand=demand), request("y", 3, demand=demand, order=1))
    problem = ReplicaProblem(b, b.requests)
    coupling = ReplicaCapacity(problem, seed=0, budget=1.0, deadline=float("inf"))
    coupling.greedy()
    x, y = (unit.options[0] for unit in coupling.capacity.units)
    assert x.candidates is y.candidates and x.most is y.most
    first, second = problem.candidates(0), problem.candidates(1)
    assert first.rows is second.rows and first.estimate is second.estimate
    assert not first.rows.flags.writeable  # shared, so nobody may write into them
