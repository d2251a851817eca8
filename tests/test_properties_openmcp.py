"""Properties of the whole openMCP pipeline on random small hubs, given as upstream objects and a
scheduler config.

Each example: a config (scope Cluster or Namespaced; strategy Balanced, Simple or Random; a Shared
purpose with tenancyCount 0 to 3 and a per-purpose selector, a second Shared purpose, an Exclusive
one; templates with or without a namespace), at most 6 Clusters in two namespaces (overlapping
purpose lists, labels, request finalizers of live, granted and stale requests, some being deleted)
and at most 8 ClusterRequests (pending, granted, being deleted, of an unknown purpose), created in
a random order. The pipeline runs the independent checker on every result (`verify=True` raises
AssertionError when it objects).

Asserted: the checker in both modes; optimal's objective never below greedy's; the same bytes
twice; applying the output and solving again changes nothing (idempotence); a tiny time limit
still answers validly and no worse than greedy.

The example counts come from the hypothesis profile (tests/conftest.py): `ci` by default,
`HYPOTHESIS_PROFILE=thorough` for a longer local run.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from adapters.run.pipeline import Outcome, schedule
from solver import SolveOptions
from tests.pipeline_properties import changes, written
from tests.test_openmcp_fixtures import (
    NOW_TIME,
    apply_output,
    cluster,
    config,
    fin,
    purpose,
    request,
    stale,
)

GREEDY = SolveOptions(mode="greedy")
OPTIMAL = SolveOptions(mode="optimal")
TINY = SolveOptions(mode="optimal", time_limit=0.001)
NAMESPACES = ("ns1", "ns2")
PURPOSES = ("web", "db", "solo")


def run(objects: Sequence[dict[str, Any]], scheduler: dict[str, Any], options: SolveOptions) -> Outcome:
    return schedule(copy.deepcopy(list(objects)), now=NOW_TIME, options=options, config=scheduler)


@st.composite
def hubs(draw) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    scope = draw(st.sampled_from(["Cluster", "Namespaced"]))
    strategy = draw(st.sampled_from(["Balanced", "Simple", "Random"]))
    web_selector = draw(st.booleans())
    scheduler = config(
        scope=scope,
        strategy=strategy,
        web=purpose(
            count=draw(st.integers(0, 3)),
            namespace=draw(st.sampled_from([None, "ns1"])),
            labels={"tier": "a"} if web_selector else None,
            selector={"matchLabels": {"tier": "a"}} if web_selector else None,
        ),
        db=purpose(count=draw(st.integers(1, 3)), purposes=draw(st.sampled_from([None, ["db", "web"]]))),
        solo=purpose("Exclusive", namespace=draw(st.sampled_from([None, "ns2"]))),
    )

    requests: list[dict[str, Any]] = []
    granted: dict[tuple[str, str], tuple[str, str]] = {}
    cluster_names = [(draw(st.sampled_from(NAMESPACES)), f"c{i}") for i in range(draw(st.integers(0, 6)))]
    for i in range(draw(st.integers(1, 8))):
        namespace = draw(st.sampled_from(NAMESPACES))
        name = f"r{i}"
        kind = draw(st.sampled_from(["pending", "pending", "pending", "granted", "deleting", "unknown"]))
        chosen = purpose_of = draw(st.sampled_from(PURPOSES))
        target = None
        if kind in ("granted", "deleting") and cluster_names:
            target = draw(st.sampled_from(cluster_names))
            granted[(namespace, name)] = target
        if kind == "unknown":
            purpose_of = "nobody"
        requests.append(
            request(
                namespace,
                name,
                purpose_of,
                at_minute=draw(st.integers(0, 30)),
                granted=target if kind == "granted" else None,
                deleting=kind == "deleting",
            )
        )
        del chosen

    clusters = []
    for namespace, name in cluster_names:
        finalizers = [fin(*key) for key, target in sorted(granted.items()) if target == (namespace, name)]
        finalizers += [stale(f"{name}-{k}") for k in range(draw(st.integers(0, 2)))]
        clusters.append(
            cluster(
                namespace,
                name,
                *sorted(draw(st.sets(st.sampled_from(PURPOSES), min_size=1))),
                labels=draw(st.sampled_from([None, {"tier": "a"}, {"tier": "b"}])),
                finalizers=finalizers,
                deleting=draw(st.integers(0, 5)) == 0,
            )
        )
    event(f"{strategy} {scope}")
    return clusters + requests, scheduler


def _created(outcome: Outcome) -> int:
    return sum(1 for _, got in outcome.requests() for c in got.selected if c.created and not c.kept)


@given(hubs())
def test_checker_passes_and_optimal_is_never_below_greedy(hub):
    objects, scheduler = hub
    greedy = run(objects, scheduler, GREEDY)
    optimal = run(objects, scheduler, OPTIMAL)
    assert optimal.summary["objective"] >= greedy.summary["objective"]
    if _created(optimal) < _created(greedy):
        event("optimal created fewer clusters")


@given(hubs())
def test_same_bytes_twice(hub):
    objects, scheduler = hub
    for options in (GREEDY, OPTIMAL):
        assert written(run(objects, scheduler, options)) == written(run(objects, scheduler, options))


@given(hubs())
def test_solving_the_applied_output_again_changes_nothing(hub):
    objects, scheduler = hub
    for options in (GREEDY, OPTIMAL):
        first = run(objects, scheduler, options)
        after = apply_output(objects, first.delete, first.apply)
        second = run(after, scheduler, options)
        assert changes(after, second) == []


@given(hubs())
def test_a_tiny_time_limit_still_answers_validly_and_no_worse_than_greedy(hub):
    objects, scheduler = hub
    tiny = run(objects, scheduler, TINY)
    greedy = run(objects, scheduler, GREEDY)
    assert tiny.summary["objective"] >= greedy.summary["objective"]
