"""The pure-Python matching rules of model/selectors.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from model import (
    ClusterTerm,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    PropertyOperator,
    PropertyRequirement,
    Taint,
    Toleration,
    TolerationOperator,
    first_untolerated,
    parse_quantity,
)
from tests.fixtures.builders import prop, req, sel, taint, tol

LABELS = {"env": "prod", "zone": "east", "gpu": ""}


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        (req("env", "In", "prod", "dev"), True),
        (req("env", "In", "dev"), False),
        (req("missing", "In", "prod"), False),
        (req("gpu", "In", ""), True),  # an empty value is still a value
        (req("env", "NotIn", "dev"), True),
        (req("env", "NotIn", "prod"), False),
        (req("missing", "NotIn", "prod"), True),  # NotIn matches a missing key
        (req("env", "Exists"), True),
        (req("gpu", "Exists"), True),
        (req("missing", "Exists"), False),
        (req("env", "DoesNotExist"), False),
        (req("missing", "DoesNotExist"), True),
    ],
)
def test_label_requirement(requirement: LabelRequirement, expected: bool) -> None:
    assert requirement.matches(LABELS) is expected


def test_match_labels() -> None:
    assert sel({"env": "prod"}).matches(LABELS)
    assert sel({"env": "prod", "zone": "east"}).matches(LABELS)
    assert not sel({"env": "prod", "zone": "west"}).matches(LABELS)
    assert not sel({"missing": ""}).matches(LABELS)
    assert sel({"gpu": ""}).matches(LABELS)


def test_match_labels_and_expressions_are_anded() -> None:
    assert sel({"env": "prod"}, req("zone", "In", "east")).matches(LABELS)
    assert not sel({"env": "prod"}, req("zone", "In", "west")).matches(LABELS)
    assert not sel({"env": "dev"}, req("zone", "In", "east")).matches(LABELS)
    assert not sel(None, req("zone", "Exists"), req("env", "DoesNotExist")).matches(LABELS)


def test_empty_selector_matches_everything() -> None:
    assert LabelSelector().matches({})
    assert LabelSelector().matches(LABELS)


def test_requirements_turn_match_labels_into_in() -> None:
    s = sel({"env": "prod"}, req("zone", "Exists"))
    assert s.requirements() == (
        LabelRequirement("env", LabelOperator.IN, ("prod",)),
        LabelRequirement("zone", LabelOperator.EXISTS),
    )


PROPS = {"cpu": parse_quantity("4"), "mem": parse_quantity("4Gi")}


@pytest.mark.parametrize(
    ("op", "value", "expected"),
    [
        ("Gt", "3", True),
        ("Gt", "4", False),
        ("Gt", "4000m", False),
        ("Ge", "4000m", True),
        ("Ge", "4001m", False),
        ("Eq", "4000m", True),  # quantity equality, not text equality
        ("Eq", "4.000000001", False),
        ("Ne", "4000m", False),
        ("Ne", "5", True),
        ("Lt", "5", True),
        ("Lt", "4", False),
        ("Le", "4", True),
        ("Le", "3999m", False),
    ],
)
def test_property_operators(op: str, value: str, expected: bool) -> None:
    assert prop("cpu", op, value).matches(PROPS) is expected


def test_property_compares_binary_and_decimal() -> None:
    assert prop("mem", "Gt", "4G").matches(PROPS)
    assert prop("mem", "Eq", "4096Mi").matches(PROPS)


@pytest.mark.parametrize("op", list(PropertyOperator))
def test_missing_property_never_matches(op: PropertyOperator) -> None:
    # Not even Ne: a cluster without the property matches no expression on it.
    assert not PropertyRequirement("gpus", op, parse_quantity("1")).matches(PROPS)
    assert not PropertyRequirement("cpu", op, parse_quantity("1")).matches({})


def test_cluster_term_ands_labels_and_properties() -> None:
    both = ClusterTerm(sel({"env": "prod"}), (prop("cpu", "Ge", "4"),))
    assert both.matches(LABELS, PROPS)
    assert not both.matches({"env": "dev"}, PROPS)
    assert not both.matches(LABELS, {"cpu": parse_quantity("3")})
    assert not both.matches(LABELS, {})
    two = ClusterTerm(None, (prop("cpu", "Ge", "4"), prop("mem", "Lt", "1Gi")))
    assert not two.matches(LABELS, PROPS)


def test_cluster_term_without_selector_matches_everything() -> None:
    assert ClusterTerm().matches({}, {})
    assert ClusterTerm(None, (prop("cpu", "Gt", "1"),)).matches({}, PROPS)
    assert ClusterTerm(LabelSelector()).matches({}, {})


@pytest.mark.parametrize(
    ("toleration", "t", "expected"),
    [
        (tol("a", "1"), taint("a", "1"), True),
        (tol("a", "1"), taint("a", "2"), False),
        (tol("a", "1"), taint("b", "1"), False),
        (tol("a"), taint("a"), True),  # Equal with both values empty
        (tol("a"), taint("a", "1"), False),
        (tol("a", exists=True), taint("a", "anything"), True),
        (tol("a", exists=True), taint("b"), False),
        (tol("", exists=True), taint("whatever", "x"), True),  # empty key with Exists: everything
        (tol("", "x"), taint("", "x"), True),  # Equal on empty key compares keys literally
        (tol("a", "1", effect="NoSchedule"), taint("a", "1"), True),
        (tol("a", "1", effect="NoExecute"), taint("a", "1"), False),
        (tol("", exists=True, effect="NoExecute"), taint("a"), False),
        (tol("a", exists=True, effect="NoSchedule"), taint("a", "v"), True),
    ],
)
def test_toleration(toleration: Toleration, t: Taint, expected: bool) -> None:
    assert toleration.tolerates(t) is expected


def test_toleration_effect_must_equal_taint_effect() -> None:
    t = Taint("a", "1", "PreferNoSchedule")
    assert not Toleration("a", TolerationOperator.EQUAL, "1", "NoSchedule").tolerates(t)
    assert Toleration("a", TolerationOperator.EQUAL, "1", "PreferNoSchedule").tolerates(t)
    assert Toleration("a", TolerationOperator.EQUAL, "1").tolerates(t)


def test_a_timed_toleration_holds_strictly_before_its_end_at_any_size() -> None:
    added = datetime(2026, 11, 21, 12, tzinfo=UTC)
    t = Taint("a", "", "NoSelect", added=added)
    timed = Toleration("a", TolerationOperator.EXISTS, "", "", 60)
    assert timed.tolerates(t, added + timedelta(seconds=59, microseconds=999999))
    assert not timed.tolerates(t, added + timedelta(seconds=60))
    # past datetime's and timedelta's ranges: added + seconds was an OverflowError
    for seconds, held in ((2**63 - 1, True), (-(2**63), False), (10**12, True)):
        assert Toleration("a", TolerationOperator.EXISTS, seconds=seconds).tolerates(t, added) is held
    late = Taint("a", "", "NoSelect", added=datetime(9999, 12, 31, tzinfo=UTC))
    assert timed.tolerates(late, added)


def test_first_untolerated_in_taint_order() -> None:
    taints = (taint("a", "1"), taint("b", "2"), taint("c", "3"))
    assert first_untolerated(taints, ()) == taint("a", "1")
    assert first_untolerated(taints, (tol("a", "1"),)) == taint("b", "2")
    assert first_untolerated(taints, (tol("b", "2"),)) == taint("a", "1")
    assert first_untolerated(taints, (tol("a", "1"), tol("b", exists=True))) == taint("c", "3")
    assert first_untolerated(taints, (tol("a", "1"), tol("b", "2"), tol("c", "3"))) is None
    assert first_untolerated(taints, (tol(exists=True),)) is None
    assert first_untolerated((), ()) is None
