"""model.Batch's checks refuse exactly what they refused, at less cost: the external affinity
bound first with the fleet's highest score magnitude of any name (one pass over every score), each
name's own highest (a pass over the fleet per name) only for a request the bound does not clear."""

from __future__ import annotations

import pytest

from model import Batch, Cluster, PlacementRequest, Preference, SelectionMode, Tenancy
from model import types as model_types

I32 = 2**31 - 1


def _request(name: str, *preferences: Preference) -> PlacementRequest:
    return PlacementRequest(name, mode=SelectionMode.N, count=1, preferences=preferences)


@pytest.fixture
def passes(monkeypatch) -> list[str]:
    """The names whose highest score a batch's check looked up (model.types._Magnitudes.highest:
    kept between batches, found over the fleet the first time), one per lookup."""
    seen: list[str] = []
    highest = model_types._Magnitudes.highest

    def counted(self, name):
        seen.append(name)
        return highest(self, name)

    monkeypatch.setattr(model_types._Magnitudes, "highest", counted)
    return seen


CLUSTERS = (
    Cluster("a", scores={"x": 5, "y": -7}),
    Cluster("b", scores={"x": -3}),
    Cluster("c"),
)


def test_a_batch_within_the_bound_reads_no_name_alone(passes) -> None:
    Batch(CLUSTERS, (_request("r", Preference(I32 // 7, external="x"), Preference(0, external="y")),))
    assert passes == []


def test_a_name_read_alone_where_the_bound_fails_and_the_batch_still_passes(passes) -> None:
    # The bound (7, from y) fails; x's own highest (5) clears: accepted, as before.
    Batch(CLUSTERS, (_request("r"), _request("s", Preference(I32 // 5, external="x"))))
    assert sorted(passes) == ["x"]


def test_the_first_request_over_is_refused_with_its_exact_affinity(passes) -> None:
    held = Preference(2, held=True)  # 200, fixed
    over = (I32 // 5 + 1) * 5 + 200
    requests = (
        _request("ok", Preference(I32 // 7, external="y")),
        _request("p", Preference(I32 // 5 + 1, external="x"), held),
        _request("q", Preference(I32, external="y")),
    )
    message = f"request 'p': preferences can give a cluster {over} affinity, more than {I32}"
    with pytest.raises(ValueError, match=f"^{message}$"):
        Batch(CLUSTERS, requests)
    assert sorted(passes) == ["x", "y"]


@pytest.mark.parametrize("sign", [1, -1])
def test_a_score_magnitude_counts_whatever_its_sign(sign) -> None:
    clusters = (Cluster("a", scores={"x": sign * 2}),)
    Batch(clusters, (_request("r", Preference(I32 // 2, external="x")),))
    with pytest.raises(ValueError, match=f"can give a cluster {(I32 // 2 + 1) * 2} affinity"):
        Batch(clusters, (_request("r", Preference(-(I32 // 2 + 1), external="x")),))


def test_requests_without_preferences_read_no_score(passes) -> None:
    clusters = (Cluster("a", scores={"x": I32}),)
    Batch(clusters, tuple(PlacementRequest(f"r{i}") for i in range(3)))
    Batch(clusters, (_request("r", Preference(I32)),))  # a fixed preference alone: checked when made
    assert passes == []


def test_the_tenancy_check_is_unchanged() -> None:
    requests = (
        PlacementRequest("a", tenancy=Tenancy(order=0, demand=2)),
        PlacementRequest("b"),
        PlacementRequest("c", tenancy=Tenancy(order=1, demand=3)),
    )
    Batch((Cluster("x", load=I32 - 5),), requests)
    message = f"batch: a cluster's load ({I32 - 4}) and the requests' demand (5) exceed {I32} tenants"
    with pytest.raises(ValueError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
        Batch((Cluster("x", load=I32 - 4), Cluster("y")), requests)


# ------------------------------------------------------------- the per-value checks, inline
# Each check spells its bounds inline and fails through model.types._within (its message): the
# same values are refused with the same message, and a value that passes spells no owner's name.

I32_MIN = -(2**31)


class _Spelt(str):
    """A name that counts how often it is spelt into text."""

    spelt = 0

    def __format__(self, spec: str) -> str:
        _Spelt.spelt += 1
        return str.__format__(self, spec)

    def __repr__(self) -> str:
        _Spelt.spelt += 1
        return str.__repr__(self)


def _term():
    from model import ClusterTerm

    return ClusterTerm()


CHECKS = [
    # (make from the value, owner, field, low, high)
    (lambda v: Preference(v), "preference", "weight", I32_MIN, I32),
    (lambda v: model_types.SpreadConstraint("zone", v), "spread constraint 'zone'", "max_skew", 1, I32),
    (lambda v: Tenancy(order=0, demand=v), "tenancy", "demand", 1, I32),
    (lambda v: model_types.StaticWeight(_term(), v), "static weight", "weight", 1, I32),
    (lambda v: model_types.GroupSpread("zone", min_groups=v), "group spread 'zone'", "min_groups", 0, I32),
    (lambda v: model_types.GroupSpread("zone", max_groups=v), "group spread 'zone'", "max_groups", 0, I32),
    (lambda v: model_types.Part(v), "part", "count", I32_MIN, I32),
    (lambda v: model_types.Replicas(v), "replicas", "count", I32_MIN, I32),
    (lambda v: model_types.Replicas(1, priority=v), "replicas", "priority", I32_MIN, I32),
    (lambda v: model_types.Replicas(1, current=(("c", v),)), "replicas on 'c'", "replicas", I32_MIN, I32),
    (lambda v: Cluster("c", scores={"s": v}), "cluster 'c'", "scores['s']", I32_MIN, I32),
    (lambda v: Cluster("c", load=v), "cluster 'c'", "load", 0, I32),
]


def _check_id(value: object) -> str | None:
    """A case's id from its values, the maker left to pytest's own (a lambda's repr holds its
    address, which differs between processes: pytest-xdist's workers must collect the same ids)."""
    return None if callable(value) else str(value)[:30]


@pytest.mark.parametrize(("make", "owner", "field", "low", "high"), CHECKS, ids=_check_id)
def test_a_value_check_refuses_what_it_refused(make, owner, field, low, high) -> None:
    for value in (low, high, (low + high) // 2):
        make(value)
    for value in (low - 1, high + 1, float(high), str(high), True, 2**80):
        message = f"{owner}: {field} must be an integer between {low} and {high}, got {value!r}"
        with pytest.raises(ValueError) as refused:
            make(value)
        assert str(refused.value) == message


def test_a_check_that_passes_spells_no_name() -> None:
    _Spelt.spelt = 0
    model_types.SpreadConstraint(_Spelt("zone"), 2)
    model_types.GroupSpread(_Spelt("zone"), 1, 2)
    Cluster(_Spelt("c"), scores={_Spelt("s"): 3}, load=4)
    assert _Spelt.spelt == 0
    with pytest.raises(ValueError, match="spread constraint 'zone'"):
        model_types.SpreadConstraint(_Spelt("zone"), 0)
    assert _Spelt.spelt == 1
