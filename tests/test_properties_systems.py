"""Properties of every registered system's whole pipeline on random small hubs, given as upstream
objects (and, for a system that reads one, a scheduler config).

Each system gives its hubs in its fixtures module (tests/fixtures/<system>.py, PROPERTY_HUBS:
tests.fixtures.pipeline.PropertyHubs), with the hubs a property holds on where that is not every
hub, and why; a system added to the registry gets every property here, and fails until it gives
its hubs. The pipeline runs the independent checker on every result (`verify=True` raises
AssertionError when it objects), so every property below also asserts the checker's verdict.

The solver's own properties, on neutral batches, are in tests/test_properties.py; kcp's state
machine on random v0.5 hubs in tests/test_kcp_legality.py.

The example counts come from the hypothesis profile (tests/conftest.py): `ci` by default,
`HYPOTHESIS_PROFILE=thorough` for a longer local run.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from adapters import registry
from adapters.karmada.generate import generate_karmada
from adapters.run.pipeline import Outcome
from solver import SolveOptions
from tests.fixtures.common import NOW_TIME
from tests.fixtures.pipeline import (
    GREEDY,
    OPTIMAL,
    TINY,
    Hub,
    PropertyHubs,
    assert_fixed_point,
    assert_same_bytes_across_processes,
    run,
    written,
)

SYSTEMS = registry.names()


def examples(system: str) -> PropertyHubs:
    return importlib.import_module(f"tests.fixtures.{system}").PROPERTY_HUBS


def _created(outcome: Outcome) -> int:
    return sum(1 for _, got in outcome.requests() for c in got.selected if c.created and not c.kept)


@pytest.mark.parametrize("system", SYSTEMS)
@given(data=st.data())
def test_both_modes_pass_the_checker_repeat_byte_for_byte_and_optimal_is_never_below_greedy(
    system, data
) -> None:
    hub = data.draw(examples(system).hubs, label="hub")
    greedy = run(hub, GREEDY)
    optimal = run(hub, OPTIMAL)
    assert optimal.summary["objective"] >= greedy.summary["objective"]
    event("optimal above greedy" if optimal.summary["objective"] > greedy.summary["objective"] else "tie")
    event(f"CP-SAT models: {min(optimal.summary['models'], 2)}")
    if _created(optimal) < _created(greedy):
        event("optimal created fewer clusters")
    for options, before in ((GREEDY, greedy), (OPTIMAL, optimal)):
        assert written(run(hub, options)) == written(before)


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
@pytest.mark.parametrize("system", SYSTEMS)
@given(data=st.data())
def test_the_declared_applies_reach_the_fixed_point(system, mode, data) -> None:
    """Solving the hub the first run's output leaves (applied as the API server applies it) keeps
    every decision and, after the applies the system's upstream needs to settle (one but where
    the system says why), writes nothing."""
    hub = data.draw(examples(system).settling(mode), label="hub")
    changed = assert_fixed_point(hub, SolveOptions(mode=mode), examples(system).applies)
    event(f"objects the first run changes: {min(changed, 3)}")


@pytest.mark.parametrize("system", SYSTEMS)
@given(data=st.data())
def test_a_tiny_time_limit_still_answers_validly_and_no_worse_than_greedy(system, data) -> None:
    hub = data.draw(examples(system).hard(), label="hub")
    greedy = run(hub, GREEDY)
    rushed = run(hub, TINY)
    assert rushed.summary["objective"] >= greedy.summary["objective"]
    event(
        f"time limited: {rushed.summary['time_limited']}, CP-SAT models: {min(rushed.summary['models'], 2)}"
    )


# Two runs in one process share the string hash seed; the byte-identity the command line promises
# holds across processes too. A handful of hubs is solved in two interpreters with different
# PYTHONHASHSEEDs (one process each, both at once: an interpreter start costs more than a solve).
@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=max(1, settings().max_examples // 100))
@given(data=st.data())
def test_identical_bytes_across_processes(system, data) -> None:
    many = data.draw(st.lists(examples(system).hubs, min_size=6, max_size=6), label="hubs")
    assert_same_bytes_across_processes(many)


def test_karmada_needs_the_two_applies_it_declares() -> None:
    """The hub that shows why (tests/fixtures/karmada.py PROPERTY_HUBS.applies_why): one apply
    leaves a non-workload's spec.clusters to reorder, two settle, in both modes; every other
    system settles in one."""
    hub = Hub(generate_karmada(3, 8, seed=2321, now=NOW_TIME))
    assert examples("karmada").applies == 2
    for options in (GREEDY, OPTIMAL):
        with pytest.raises(AssertionError):
            assert_fixed_point(hub, options, applies=1)
        assert_fixed_point(hub, options, applies=2)
    assert all(examples(system).applies == 1 for system in SYSTEMS if system != "karmada")
