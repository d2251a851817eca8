"""`_inside_totals`, the array form of a sorter's threats' totals, against `_inside_of`, the one
cluster at a time form, on requests the generated hubs never make: ascending centered sorters
(OCM's own ResourceAllocatable* sorters are descending), with Balance, Steady and external
scores beside them."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.ocm import reach as reach_module
from model import Cluster, PlacementRequest, Preference, SelectionMode
from model.quantity import Quantity
from model.types import PropertySorter

_PROPS = ("cpu", "memory")


@st.composite
def _cases(draw):
    sorters = draw(
        st.lists(
            st.tuples(st.sampled_from(_PROPS), st.booleans()),
            min_size=1,
            max_size=2,
            unique_by=lambda s: s[0],
        )
    )
    preferences = [
        Preference(weight=draw(st.integers(-3, 3)), sorter=PropertySorter(prop, ascending, centered=True))
        for prop, ascending in sorters
    ]
    if draw(st.booleans()):
        preferences.append(Preference(weight=draw(st.integers(-3, 3)), balance=True))
    if draw(st.booleans()):
        preferences.append(Preference(weight=draw(st.integers(0, 3)), held=True))
    if draw(st.booleans()):
        preferences.append(Preference(weight=draw(st.integers(-3, 3)), external="ext"))
    if draw(st.booleans()):
        preferences.append(Preference(weight=draw(st.integers(-3, 3))))
    request = PlacementRequest(
        name="p", namespace="ns", mode=SelectionMode.N, count=1, preferences=tuple(preferences)
    )
    ends = []
    for p in preferences:
        if p.sorter is not None:
            low = draw(st.integers(0, 50))
            high = low + draw(st.integers(1, 50))
            ends.append((p.weight, p.sorter.name, float(low), float(high), p.sorter.ascending))
    size = draw(st.integers(1, 12))
    clusters = []
    for i in range(size):
        properties = {}
        for prop in _PROPS:
            value = draw(st.none() | st.integers(-5, 105))
            if value is not None:
                properties[prop] = Quantity(value * 10**9 + draw(st.integers(0, 10**9 - 1)))
        scores = {"ext": draw(st.integers(-100, 100))} if draw(st.booleans()) else {}
        clusters.append(
            Cluster(f"c{i:02d}", properties=properties, scores=scores, load=draw(st.integers(0, 9)))
        )
    most = draw(st.integers(1, 12))
    own = {c.name: draw(st.integers(0, 2)) for c in clusters if draw(st.booleans())}
    held = frozenset(c.name for c in clusters if draw(st.booleans()))
    return request, clusters, tuple(ends), own, most, held


def _columns(clusters: list[Cluster]):
    """A take's columns (`OcmLive._column`) over the given clusters, by position."""

    def column(_drift, field, at):
        kind, key = field
        chosen = [clusters[i] for i in at.tolist()]
        if kind == "load":
            return np.asarray([c.load for c in chosen], dtype=np.int64)
        if kind == "score":
            return np.asarray([c.scores.get(key, 0) for c in chosen], dtype=np.int64)
        assert kind == "value"
        return np.asarray(
            [c.properties[key].as_float() if key in c.properties else math.nan for c in chosen],
            dtype=np.float64,
        )

    return column


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_inside_totals_are_inside_of_cluster_by_cluster(case) -> None:
    """Each cluster's array total and whether it lies at or outside an end of a sorter's range
    are `_inside_of`'s (None exactly where it lies so), ascending sorters too. Fails where the
    ascending flip (`ratio = 1.0 - ratio`) is left out of `_inside_totals`."""
    request, clusters, ends, own, most, held = case
    at = np.arange(len(clusters), dtype=np.int64)
    named = [c.name for c in clusters]
    found = reach_module._inside_totals(request, None, at, named, ends, own, most, held, _columns(clusters))
    assert found is not None
    totals, outside = found
    total_of = reach_module._total_of(request, own, most, held)
    for i, c in enumerate(clusters):
        one = reach_module._inside_of(c, ends, total_of)
        assert bool(outside[i]) == (one is None), c
        if one is not None:
            assert int(totals[i]) == one, (c, int(totals[i]), one)
