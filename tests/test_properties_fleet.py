"""Properties of the whole Fleet pipeline on random small hubs, given as upstream objects.

Each example is a KubeFleet hub of at most 8 MemberClusters (random labels, properties, taints,
heartbeat and health) and at most 4 ClusterResourcePlacements (PickAll, PickN, PickFixed with
required and preferred affinity, property sorters, topology spread, tolerations), with the state
an earlier run may have left: policy snapshots (current or superseded) and bindings (Scheduled,
Bound, Unscheduled, current or obsolete). The pipeline runs the independent checker on every
result (`verify=True` raises AssertionError when it objects).

The example counts come from the hypothesis profile (tests/conftest.py): `ci` by default,
`HYPOTHESIS_PROFILE=thorough` for a longer local run.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from solver import SolveOptions
from tests.fleet_fixtures import (
    AVAILABLE_CPU,
    NODE_COUNT,
    binding,
    crp,
    member_cluster,
    pick_all,
    pick_n,
    preferred,
    snapshot,
    spread,
    term,
    toleration,
)
from tests.pipeline_properties import (
    assert_fixed_point,
    assert_same_bytes_across_processes,
    run,
    written,
)

GREEDY = SolveOptions(mode="greedy")
OPTIMAL = SolveOptions(mode="optimal")
TINY = SolveOptions(mode="optimal", time_limit=0.001)

NAMES = tuple(f"member-{i}" for i in range(8))
PLACEMENTS = ("alpha", "beta", "gamma", "delta")
GHOST = "member-gone"  # named by a PickFixed policy or a binding, but no such MemberCluster

# ----------------------------------------------------------------------------------- clusters

TAINTS = ({"key": "gpu", "effect": "NoSchedule"}, {"key": "team", "value": "x", "effect": "NoSchedule"})


@st.composite
def member_clusters(draw, least: int = 1) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=least, max_size=8, unique=True))
    out = []
    for name in sorted(names):
        labels = {}
        for key, values in (("zone", ("a", "b", "c")), ("env", ("prod", "dev")), ("tier", ("1", "2"))):
            value = draw(st.sampled_from((None, *values)))
            if value is not None:
                labels[key] = value
        properties = {}
        if draw(st.booleans()):
            properties[NODE_COUNT] = draw(st.sampled_from(("1", "3", "5", "8")))
        available = {}
        if draw(st.booleans()):
            available = {"cpu": draw(st.sampled_from(("500m", "2", "4", "16"))), "memory": "8Gi"}
        # Mostly healthy; otherwise a stale heartbeat, an unhealthy agent, not joined, or leaving.
        health = draw(st.sampled_from(("ok", "ok", "ok", "ok", "stale", "unhealthy", "left", "leaving")))
        out.append(
            member_cluster(
                name,
                labels,
                properties=properties,
                available=available,
                allocatable=available,
                taints=draw(some_of(TAINTS)) or (),
                heartbeat=20.0 if health == "stale" else draw(st.sampled_from((0.2, 1.0))),
                healthy="False" if health == "unhealthy" else "True",
                joined="False" if health == "left" else "True",
                leaving=health == "leaving",
            )
        )
    return out


# ----------------------------------------------------------------------------------- policies

REQUIRED_TERMS = (
    term({"env": "prod"}),
    term(expressions=[("zone", "In", ["a", "b"])]),
    term(expressions=[("tier", "NotIn", ["2"])]),
    term(expressions=[("zone", "Exists", [])]),
    term(properties=[(NODE_COUNT, "Ge", "3")]),
    term({"env": "dev"}, properties=[(AVAILABLE_CPU, "Gt", "1")]),
)
TOLERATIONS = (toleration("gpu", operator="Exists"), toleration("team", "x"), toleration(operator="Exists"))


def some_of(options: Sequence[dict[str, Any]], max_size: int = 2) -> st.SearchStrategy:
    """None, or 1 to `max_size` distinct entries of `options` (in options order)."""
    picks = st.lists(st.sampled_from(range(len(options))), min_size=1, max_size=max_size, unique=True)
    return st.none() | picks.map(lambda ix: [copy.deepcopy(options[i]) for i in sorted(ix)])


required = some_of(REQUIRED_TERMS)
tolerations = some_of(TOLERATIONS)
weights = st.integers(-100, 100)
preferences = st.lists(
    st.one_of(
        st.builds(preferred, weights, st.sampled_from(({"env": "prod"}, {"zone": "a"}, {"tier": "1"}))),
        st.builds(
            lambda w, m, s, o: preferred(w, m, sort=s, order=o),
            weights,
            st.sampled_from((None, {"env": "prod"})),
            st.sampled_from((NODE_COUNT, AVAILABLE_CPU)),
            st.sampled_from(("Ascending", "Descending")),
        ),
    ),
    max_size=2,
)


def spreads(least: int = 0) -> st.SearchStrategy:
    return st.lists(
        st.builds(
            spread,
            st.sampled_from(("zone", "env", "tier")),
            st.integers(1, 2),
            st.sampled_from(("DoNotSchedule", "ScheduleAnyway")),
        ),
        min_size=least,
        max_size=2,
        unique_by=lambda s: s["topologyKey"],
    )


@st.composite
def policies(draw, names: Sequence[str], busy: bool = False) -> dict[str, Any] | None:
    """A placement policy; `busy`: PickN with topology spread, where greedy can get stuck."""
    if busy:
        return pick_n(
            draw(st.integers(2, 6)),
            required=draw(st.none() | required),
            prefer=draw(preferences) or None,
            spread_by=draw(spreads(1)),
            tolerations=draw(tolerations),
        )
    kind = draw(st.sampled_from(("none", "PickAll", "PickN", "PickN", "PickN", "PickFixed")))
    if kind == "none":
        return None
    if kind == "PickAll":
        return pick_all(required=draw(required), tolerations=draw(tolerations))
    if kind == "PickFixed":
        chosen = draw(st.lists(st.sampled_from([*names, GHOST]), min_size=1, max_size=3, unique=True))
        return {"placementType": "PickFixed", "clusterNames": chosen}
    return pick_n(
        draw(st.integers(0, 5)),
        required=draw(required),
        prefer=draw(preferences) or None,
        spread_by=draw(spreads()) or None,
        tolerations=draw(tolerations),
    )


# ------------------------------------------------------------------------------------------ hubs


@st.composite
def hubs(draw, busy: bool = False) -> list[dict[str, Any]]:
    """MemberClusters, placements, and for some placements the snapshots and bindings of an
    earlier run: the latest snapshot holds the placement's policy (possibly with another N) or an
    older policy (the bindings become obsolete); bindings point at the latest snapshot or at an
    older one. `busy`: at least 5 clusters and every placement PickN with topology spread."""
    clusters = draw(member_clusters(5 if busy else 1))
    names = [c["metadata"]["name"] for c in clusters]
    objects: list[dict[str, Any]] = [*clusters]
    for name in draw(st.lists(st.sampled_from(PLACEMENTS), min_size=1, max_size=4, unique=True)):
        policy = draw(policies(names, busy))
        generation = draw(st.integers(1, 3))
        objects.append(crp(name, policy, generation=generation))
        history = draw(st.sampled_from(("fresh", "same", "same", "changed")))
        if history == "fresh":
            continue
        if history == "same":
            stored = copy.deepcopy(policy)
            if stored is not None and stored.get("placementType") == "PickN" and draw(st.booleans()):
                stored["numberOfClusters"] = draw(st.integers(0, 5))  # scaled since
        else:
            stored = draw(policies(names))
            if stored == policy:
                stored = {"placementType": "PickFixed", "clusterNames": [GHOST]}
        n = stored.get("numberOfClusters") if stored else None
        latest = 1 if draw(st.booleans()) else 0
        if latest:
            objects.append(snapshot(name, 0, draw(policies(names)), latest=False))
        objects.append(snapshot(name, latest, stored, n=n, crp_generation=max(1, generation - 1)))
        for target in draw(st.lists(st.sampled_from([*names, GHOST]), max_size=4, unique=True)):
            state = draw(st.sampled_from(("Scheduled", "Bound", "Bound", "Unscheduled")))
            policy_snapshot = f"{name}-{draw(st.integers(0, latest))}"
            score = draw(st.none() | st.tuples(st.integers(-50, 50), st.integers(-2, 1)))
            objects.append(binding(name, target, state=state, policy_snapshot=policy_snapshot, score=score))
    return objects


# -------------------------------------------------------------------------------------- helpers


# ----------------------------------------------------------------------------------- properties


@given(hubs() | hubs(busy=True))
def test_both_modes_pass_the_checker_repeat_byte_for_byte_and_optimal_is_never_below_greedy(
    objects,
) -> None:
    greedy = run(objects, GREEDY)
    optimal = run(objects, OPTIMAL)
    assert optimal.summary["objective"] >= greedy.summary["objective"]
    event("optimal above greedy" if optimal.summary["objective"] > greedy.summary["objective"] else "tie")
    event(f"CP-SAT models: {min(optimal.summary['models'], 2)}")
    for options, before in ((GREEDY, greedy), (OPTIMAL, optimal)):
        again = run(objects, options)
        assert written(again) == written(before)


# One apply reaches the fixed point: bindings are sticky, and a policy snapshot's status is left as
# it is where upstream skips the write (the same decisions as a set, an equal condition, the same
# observed generation) or starts no cycle (a fully scheduled PickN).
@given(hubs() | hubs(busy=True), st.sampled_from((GREEDY, OPTIMAL)))
def test_feeding_the_output_back_changes_nothing(objects, options) -> None:
    assert_fixed_point(objects, options)


@given(hubs(busy=True))
def test_a_tiny_time_limit_still_gives_a_valid_answer_no_worse_than_greedy(objects) -> None:
    greedy = run(objects, GREEDY)
    rushed = run(objects, TINY)
    assert rushed.summary["objective"] >= greedy.summary["objective"]
    event(
        f"time limited: {rushed.summary['time_limited']}, CP-SAT models: {min(rushed.summary['models'], 2)}"
    )


# Two runs in one process share the string hash seed; the byte-identity the command line promises
# holds across processes too. A handful of hubs is solved in two interpreters with different
# PYTHONHASHSEEDs (one process each, both at once: an interpreter start costs more than a solve).
@settings(max_examples=max(1, settings().max_examples // 100))
@given(st.lists(hubs(), min_size=6, max_size=6))
def test_identical_bytes_across_processes(many) -> None:
    assert_same_bytes_across_processes(many)
