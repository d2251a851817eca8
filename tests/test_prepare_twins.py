"""Prepare's twins (requests with equal signatures, which share one answer): decisions hashed by
their number and ends alone, then compared in full."""

from __future__ import annotations

from model import ExistingDecision
from solver.prepare import _twin
from tests.fixtures.builders import pick_n


def test_twins_holding_alike_ends_are_compared_in_full() -> None:
    """Requests of one policy holding as many clusters, with the same first and last, are twins
    where every decision is equal alone. Fails where the decisions past their number and ends
    are not compared (`_twin`'s full comparison dropped)."""

    def make(name: str, *middle: str, current: bool = True):
        held = ("c00", *middle, "c09")
        return pick_n(2, name, existing=tuple(ExistingDecision(c, current=current) for c in held))

    requests = (
        make("a", "c03"),
        make("b", "c04"),
        make("c", "c03"),
        make("d", "c03", current=False),
        make("e", "c04"),
        make("f", "c03", "c04"),
    )
    first: dict = {}
    assert [_twin(requests, i, first) for i in range(len(requests))] == [0, 1, 0, 3, 1, 5]
