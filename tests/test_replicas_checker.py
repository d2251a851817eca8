"""The checker's replica rules catch what they must (each a defect a solver could have)."""

from __future__ import annotations

from dataclasses import replace

from model import Batch, Choice, Division, Failure, GroupSpread, Result, Taint
from solver import check, solve
from tests.fixtures.replicas import GREEDY, request, room


def _checked(batch: Batch, got) -> list[str]:
    result = solve(batch, GREEDY)
    return check(batch, Result((got(result.requests[0]),), result.stats))


def _batch(*requests) -> Batch:
    clusters = (room("a", 5), room("b", 5), room("c", 5, taints=[Taint("k", "v")]))
    return Batch(clusters, tuple(requests))


def test_sound_answer_passes():
    batch = _batch(request("w", 6))
    assert check(batch, solve(batch, GREEDY)) == []


def test_wrong_sum():
    batch = _batch(request("w", 6))
    problems = _checked(
        batch, lambda r: replace(r, selected=(replace(r.selected[0], replicas=1), *r.selected[1:]))
    )
    assert any("replicas placed, not 6" in p for p in problems)


def test_duplicated_must_run_the_count_everywhere():
    batch = _batch(request("w", 3, Division.DUPLICATED))
    problems = _checked(
        batch, lambda r: replace(r, selected=(replace(r.selected[0], replicas=2), *r.selected[1:]))
    )
    assert any("not 3 on each" in p for p in problems)


def test_filtered_cluster_selected():
    batch = _batch(request("w", 6))
    problems = _checked(batch, lambda r: replace(r, selected=(*r.selected, Choice("c", replicas=0))))
    assert any("fails the request's filters" in p for p in problems)


def test_every_has_no_numbers():
    batch = _batch(request("w", 0, Division.EVERY, demand={}, unlimited=True))
    problems = _checked(
        batch, lambda r: replace(r, selected=(replace(r.selected[0], replicas=1), *r.selected[1:]))
    )
    assert any("none to count" in p for p in problems)


def test_group_maximum():
    batch = _batch(request("w", 4, groups=[GroupSpread("", 1, 1)]))
    problems = _checked(batch, lambda r: replace(r, selected=(*r.selected, Choice("b", replicas=1))))
    assert any("not within the cluster spread" in p for p in problems)


def test_failure_must_leave_the_assignment():
    batch = _batch(request("w", 60, current=[("a", 2)]))
    assert solve(batch, GREEDY).requests[0].failure is Failure.SHORT
    problems = _checked(batch, lambda r: replace(r, selected=(Choice("b", replicas=2),)))
    assert any("changed the current assignment" in p for p in problems)


def test_released_must_be_what_is_no_longer_held():
    batch = _batch(request("w", 4, current=[("a", 2)]))
    problems = _checked(batch, lambda r: replace(r, released=("a",)))
    assert any(p.startswith("w: released") for p in problems)
