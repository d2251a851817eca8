"""Properties of the whole kcp pipeline on random small workspace sets, both generations, given as
upstream objects.

Each example: a compute workspace with up to 3 Locations and up to 6 clusters (WorkloadClusters for
v0.5, SyncTargets for v0.8) labelled into them, each Ready, unready or without conditions, maybe
cordoned (spec.unschedulable), evicting (evictAfter past or future) or being deleted; a team
workspace bound to the compute `kubernetes` export with up to 6 Namespaces. v0.5: namespaces carry
placement annotations as earlier runs left them (entries in any state on any cluster, some
malformed). v0.8: up to 3 Placements (location selectors, namespace selectors, Bound with a
selected location and a sync target, or new) over labelled namespaces. The pipeline runs the
independent checker on every result (`verify=True` raises AssertionError when it objects).

Asserted: the checker in both modes; v0.5 entries move only as the state machine lets the
scheduler move them (adapters.kcp.legality); optimal's objective never below greedy's; the same bytes
twice; applying the output and solving again changes nothing (idempotence); a tiny time limit
still answers validly and no worse than greedy.

The example counts come from the hypothesis profile (tests/conftest.py): `ci` by default,
`HYPOTHESIS_PROFILE=thorough` for a longer local run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from adapters.kcp.keys import sync_target_key
from adapters.run.pipeline import Outcome, schedule
from solver import SolveOptions
from tests.pipeline_properties import changes, written
from tests.test_kcp_fixtures import (
    COMPUTE,
    NOW_TIME,
    ago,
    apply_output,
    binding,
    cluster,
    key,
    location,
    namespace,
    placement,
)

GREEDY = SolveOptions(mode="greedy")
OPTIMAL = SolveOptions(mode="optimal")
TINY = SolveOptions(mode="optimal", time_limit=0.001)
LOCATIONS = ("east", "west", "north")
STATES = ("Pending", "Bound", "Removing", "Unbound")


def run(objects: Sequence[dict[str, Any]], options: SolveOptions) -> Outcome:
    return schedule(copy.deepcopy(list(objects)), now=NOW_TIME, options=options)


@st.composite
def clusters(draw, kind: str) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(0, 6))):
        out.append(
            cluster(
                f"c{i}",
                draw(st.sampled_from([*LOCATIONS, None])),
                kind=kind,
                ready=draw(st.sampled_from([True, True, True, False, None])),
                unschedulable=draw(st.integers(0, 4)) == 0,
                evict_after=draw(st.sampled_from([None, None, None, ago(60), ago(-3600)])),
                deleting=draw(st.integers(0, 8)) == 0,
            )
        )
    return out


@st.composite
def hubs_v05(draw) -> list[dict[str, Any]]:
    compute = draw(clusters("WorkloadCluster"))
    names = [c["metadata"]["name"] for c in compute] + ["gone"]
    locations = draw(st.lists(st.sampled_from(LOCATIONS), unique=True, max_size=3))
    objects: list[dict[str, Any]] = [binding(), *(location(n) for n in locations), *compute]
    for i in range(draw(st.integers(1, 6))):
        entries: dict[str, str] | str | None = None
        shape = draw(st.sampled_from(["none", "none", "entries", "entries", "empty", "malformed"]))
        if shape == "entries":
            entries = {
                key(COMPUTE, draw(st.sampled_from(LOCATIONS)), draw(st.sampled_from(names))): draw(
                    st.sampled_from(STATES)
                )
                for _ in range(draw(st.integers(1, 2)))
            }
        elif shape == "empty":
            entries = {}
        elif shape == "malformed":
            entries = draw(
                st.sampled_from(
                    ['{"x":', '{"a+b": "Bound"}', json.dumps({key(COMPUTE, "east", "c0"): "Odd"})]
                )
            )
        objects.append(namespace(f"ns{i}", placement=entries, created=i))
    event(f"v0.5 {len(compute)} clusters")
    return objects


@st.composite
def hubs_v08(draw) -> list[dict[str, Any]]:
    compute = draw(clusters("SyncTarget"))
    names = [c["metadata"]["name"] for c in compute] + ["gone"]
    locations = draw(st.lists(st.sampled_from(LOCATIONS), unique=True, max_size=3))
    objects: list[dict[str, Any]] = [
        binding(generation="v0.8"),
        *(location(n, labels={"region": n}, generation="v0.8") for n in locations),
        *compute,
    ]
    for i in range(draw(st.integers(0, 3))):
        bound = draw(st.booleans())
        selected = draw(st.sampled_from(LOCATIONS)) if bound else None
        target = draw(st.sampled_from([None, *names])) if bound else None
        objects.append(
            placement(
                f"p{i}",
                locations=draw(st.sampled_from([({},), ({"matchLabels": {"region": "east"}},), None])),
                namespaces=draw(st.sampled_from([{}, {"matchLabels": {"team": "a"}}, None])),
                phase="Bound" if bound else None,
                selected=selected,
                target=sync_target_key(COMPUTE, target) if target else None,
                created=i,
            )
        )
    for i in range(draw(st.integers(1, 6))):
        labels = draw(st.sampled_from([None, {"team": "a"}, {"team": "b"}]))
        objects.append(namespace(f"ns{i}", labels=labels, created=i, generation="v0.8"))
    event(f"v0.8 {len(compute)} clusters")
    return objects


hubs = st.one_of(hubs_v05(), hubs_v08())


@given(hubs)
def test_checker_passes_and_optimal_is_never_below_greedy(objects):
    greedy = run(objects, GREEDY)
    optimal = run(objects, OPTIMAL)
    assert optimal.summary["objective"] >= greedy.summary["objective"]


@given(hubs_v05())
def test_the_scheduler_takes_only_its_own_state_steps(objects):
    """Every v0.5 annotation entry moves only as the state machine lets the scheduler move it."""
    from adapters.kcp.legality import illegal_transitions

    annotation = "scheduling.kcp.dev/placement"
    before = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Namespace"}
    for options in (GREEDY, OPTIMAL):
        for obj in run(objects, options).apply:
            if obj["kind"] != "Namespace":
                continue
            was = (before[obj["metadata"]["name"]]["metadata"].get("annotations") or {}).get(annotation)
            now = (obj["metadata"].get("annotations") or {}).get(annotation)
            assert illegal_transitions(was, now, actor="scheduler") == []


@given(hubs)
def test_same_bytes_twice(objects):
    for options in (GREEDY, OPTIMAL):
        assert written(run(objects, options)) == written(run(objects, options))


@given(hubs)
def test_solving_the_applied_output_again_changes_nothing(objects):
    for options in (GREEDY, OPTIMAL):
        first = run(objects, options)
        after = apply_output(objects, first.apply)
        second = run(after, options)
        assert changes(after, second) == []


@given(hubs)
def test_a_tiny_time_limit_still_answers_validly_and_no_worse_than_greedy(objects):
    tiny = run(objects, TINY)
    greedy = run(objects, GREEDY)
    assert tiny.summary["objective"] >= greedy.summary["objective"]
