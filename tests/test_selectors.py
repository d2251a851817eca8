"""The pure-Python matching rules of model/selectors.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model import (
    Cluster,
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
from solver.admits import matches_terms
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


# -- the plain loops against the all()/any() they replace ---------------------------------------------

_KEYS = st.sampled_from(["env", "zone", "gpu"])
_VALUES = st.sampled_from(["prod", "dev", "east", ""])
_REQUIREMENTS = st.builds(
    LabelRequirement, _KEYS, st.sampled_from(list(LabelOperator)), st.lists(_VALUES, max_size=2).map(tuple)
)
_SELECTORS = st.builds(
    LabelSelector,
    st.lists(st.tuples(_KEYS, _VALUES), max_size=2).map(tuple),
    st.lists(_REQUIREMENTS, max_size=2).map(tuple),
)
_MAPS = st.dictionaries(_KEYS, _VALUES, max_size=3)
_PROPS = st.builds(
    PropertyRequirement,
    st.sampled_from(["cpu", "memory"]),
    st.sampled_from(list(PropertyOperator)),
    st.sampled_from(["1", "2", "500m"]).map(parse_quantity),
)
_TERMS = st.builds(
    ClusterTerm,
    st.none() | _SELECTORS,
    st.lists(_PROPS, max_size=2).map(tuple),
    st.none() | _SELECTORS,
    st.lists(st.sampled_from(["t1", "t2"]), max_size=2).map(tuple),
)
_EFFECTS = st.sampled_from(["NoSelect", "PreferNoSelect"])
_TAINTS = st.builds(Taint, _KEYS, _VALUES, _EFFECTS, st.none(), st.booleans())
_TOLERATIONS = st.builds(
    Toleration, st.sampled_from(["", "env", "zone"]), st.sampled_from(list(TolerationOperator)), _VALUES
)


@given(_SELECTORS, _MAPS)
def test_a_selector_matches_as_all_of_its_conditions(selector: LabelSelector, labels: dict[str, str]) -> None:
    """`LabelSelector.matches` (a plain loop, for the live checks' thousands of asks an event) says
    exactly what every match label and every expression ANDed say."""
    every = all(labels.get(k) == v for k, v in selector.match_labels) and all(
        r.matches(labels) for r in selector.match_expressions
    )
    assert selector.matches(labels) is every


@given(
    st.lists(_TERMS, max_size=3),
    _MAPS,
    st.dictionaries(st.sampled_from(["cpu", "memory"]), st.sampled_from(["1", "2"]).map(parse_quantity)),
    st.none() | _MAPS,
    st.frozensets(st.sampled_from(["t1", "t2"])),
)
def test_terms_match_as_any_term_of_all_its_parts(
    terms: list[ClusterTerm], labels: dict, properties: dict, claims: dict | None, traits: frozenset[str]
) -> None:
    """`ClusterTerm.matches` and `solver.admits.matches_terms` (plain loops) say what all of a
    term's parts and any of the terms say."""

    def whole(t: ClusterTerm) -> bool:
        return (
            (t.labels is None or t.labels.matches(labels))
            and all(p.matches(properties) for p in t.properties)
            and (t.claims is None or t.claims.matches(claims or {}))
            and all(x in traits for x in t.traits)
        )

    for t in terms:
        assert t.matches(labels, properties, claims, traits) is whole(t)
    c = Cluster("a", labels=labels, properties=properties, claims=claims or {}, traits=traits)
    assert matches_terms(tuple(terms), c) is any(whole(t) for t in terms)


@given(st.lists(_TAINTS, max_size=3), st.lists(_TOLERATIONS, max_size=3), st.booleans())
def test_the_first_untolerated_taint_is_the_first_no_toleration_tolerates(
    taints: list[Taint], tolerations: list[Toleration], held: bool
) -> None:
    """`first_untolerated` (a plain loop over the tolerations) gives the first taint, skipping a
    new-only one the request holds, that no toleration tolerates."""
    kept = [t for t in taints if not (held and t.new_only)]
    first = next((t for t in kept if not any(x.tolerates(t) for x in tolerations)), None)
    assert first_untolerated(tuple(taints), tuple(tolerations), None, held=held) is first


def test_an_operator_given_as_its_string_matches_as_its_member() -> None:
    """Equal requirements and tolerations match alike (the live OCM checks share one verdict
    between equal ones, and `matches`/`tolerates` tell operators apart by identity): an operator
    given as its string is its member, an unknown one refused. Fails where the string is kept
    (an "In" requirement then matches as DoesNotExist; an "Exists" toleration as Equal)."""
    as_text = LabelRequirement("zone", "In", ("a",))  # type: ignore[arg-type]
    member = LabelRequirement("zone", LabelOperator.IN, ("a",))
    assert as_text == member and as_text.operator is LabelOperator.IN
    assert as_text.matches({"zone": "a"}) and not as_text.matches({})
    assert LabelRequirement("zone", "NotIn", ("a",)).matches({"zone": "b"})  # type: ignore[arg-type]
    tolerated = Toleration(key="gpu", operator="Exists")  # type: ignore[arg-type]
    assert tolerated.operator is TolerationOperator.EXISTS
    assert tolerated.tolerates(Taint("gpu", "yes"), datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(ValueError):
        LabelRequirement("zone", "Near", ("a",))  # type: ignore[arg-type]
