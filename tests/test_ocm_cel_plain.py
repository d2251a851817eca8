"""Plain CEL selectors answered in Python (adapters.ocm.cel_fast) give the interpreter's answer on
every cluster they answer, whatever the cluster holds: wrong types, missing keys, nulls,
integers past int64, floats, non-ASCII and unencodable strings, values the interpreter cannot
convert; and they leave to the interpreter what they cannot answer."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.ocm import cel
from adapters.ocm.cel import compile_expression, matching_clusters
from adapters.ocm.cel_fast import Unsure, converts

# The hub generator's seven, and the rest of the subset in the shapes selectors take.
PLAIN = [
    'managedCluster.metadata.labels["environment"] == "prod"',
    'managedCluster.metadata.labels["region"].startsWith("us-")',
    'managedCluster.metadata.labels["tier"] in ["gold", "silver"]',
    'managedCluster.scores("usage").filter(s, s.name == "cpu").all(e, e.value > 0)',
    'managedCluster.scores("usage").filter(s, s.name == "mem").all(e, e.value > -50)',
    'managedCluster.status.clusterClaims.exists(c, c.name == "product" && c.value == "OpenShift")',
    'managedCluster.status.version.kubernetes.startsWith("v1.3")',
    'managedCluster.metadata.labels.region != "us-east" || !(managedCluster.metadata.labels.tier == "gold")',
    'managedCluster.status.clusterClaims.all(c, c.value.endsWith("1") || c.name.contains("id"))',
    'managedCluster.status.clusterClaims.exists_one(c, c.value == "a")',
    'managedCluster.scores("usage").exists(s, s.value >= 10 && s.value < 70 && s.value <= 20)',
    'managedCluster.scores("usage").filter(s, s.value != 0).all(s, s.name in ["cpu", "mem"])',
    "managedCluster.status.clusterClaims.filter(c, c.name == 'id').exists(c, c.value == 'x')",
    "managedCluster.metadata.labels.count == 3 && true",
    "[managedCluster.metadata.labels.region, 'b'].exists(x, x == 'us-east')",
    '"gold" == managedCluster.metadata.labels.tier || "prod" != managedCluster.metadata.labels["region"]',
    "(managedCluster.metadata.labels.count == 3) != false && 0 < managedCluster.metadata.labels.count",
    'managedCluster.scores("usage").exists(s, s.value != 7 && s.name != "cpu" && 20 >= s.value)',
]
# Outside the subset: the interpreter alone answers them.
OUTSIDE = [
    "managedCluster.metadata.labels.size() == 3",
    "has(managedCluster.metadata.labels.zone)",
    "managedCluster.scores(managedCluster.metadata.labels.region).size() > 0",
    'managedCluster.scores("usage").exists(s, managedCluster.scores("usage").all(t, t.value >= s.value))',
    "managedCluster.metadata.labels.count + 1 == 4",
    'managedCluster.metadata.labels.region.matches("^us")',
]

_TEXT = st.sampled_from(["us-east", "eu-west", "gold", "prod", "v1.31.0", "v1.2", "a", "x1", "OpenShift", ""])
_ODD_TEXT = st.sampled_from(["\u00e9t\u00e9", "\ud800", "us-\udfff", "\u65e5\u672c"])
_SCALAR = st.one_of(
    _TEXT,
    _ODD_TEXT,
    st.integers(-200, 200),
    st.sampled_from([2**63, -(2**63) - 1, 2**64 + 3]),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.sampled_from([{1, 2}, b"x", (1,)]),
)
_VALUE = st.recursive(
    _SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3)
)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(value, value, value, _VALUE)  # mostly well formed


_LABELS = st.dictionaries(
    st.sampled_from(["region", "tier", "environment", "count"]) | _ODD_TEXT | st.just(7),
    _maybe(_TEXT),
    max_size=4,
)
_CLAIM = _maybe(
    st.fixed_dictionaries(
        {"name": _maybe(st.sampled_from(["product", "id", "region"])), "value": _maybe(_TEXT)},
        optional={"extra": _VALUE},
    )
)
_CLUSTER = st.fixed_dictionaries(
    {
        "metadata": st.fixed_dictionaries(
            {"name": st.sampled_from(["c1", "c2"])}, optional={"labels": _maybe(_LABELS)}
        )
    },
    optional={
        "status": _maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "version": _maybe(st.fixed_dictionaries({"kubernetes": _maybe(_TEXT)})),
                    "clusterClaims": _maybe(st.lists(_CLAIM, max_size=4)),
                },
            )
        )
    },
)
_SCORE = st.fixed_dictionaries(
    {"name": _maybe(st.sampled_from(["cpu", "mem"])), "value": _maybe(st.integers(-100, 100))}
)
_SCORES = st.dictionaries(
    st.sampled_from(["c1", "c2"]), st.dictionaries(st.just("usage"), st.lists(_SCORE, max_size=3))
)


def interpreted(program: cel.CelProgram) -> cel.CelProgram:
    return dataclasses.replace(program, _plain=None)


@pytest.mark.parametrize("source", PLAIN)
def test_plain_selectors_are_compiled(source: str) -> None:
    assert compile_expression(source)._plain is not None


@pytest.mark.parametrize("source", OUTSIDE)
def test_the_rest_is_left_to_the_interpreter(source: str) -> None:
    assert compile_expression(source)._plain is None


@given(cluster=_CLUSTER, scores=_SCORES, source=st.sampled_from(PLAIN))
def test_a_plain_answer_is_the_interpreters(
    cluster: dict[str, Any], scores: dict[str, Any], source: str
) -> None:
    program = compile_expression(source)
    scores_of = lambda name: scores.get(name, {})  # noqa: E731
    expected = cel._evaluate(program, cel._bound(), cluster, scores_of)
    assert matching_clusters(program, [cluster], scores_of) == [expected]
    if cel._converts_seen(cluster, program._shape.keep):
        with contextlib.suppress(Unsure):
            assert program._plain(cluster, scores_of) is expected


@given(clusters=st.lists(_CLUSTER, max_size=6), scores=_SCORES, source=st.sampled_from(PLAIN))
def test_a_fleet_is_matched_as_the_interpreter_matches_it(
    clusters: list[dict[str, Any]], scores: dict[str, Any], source: str
) -> None:
    program = compile_expression(source)
    scores_of = lambda name: scores.get(name, {})  # noqa: E731
    assert matching_clusters(program, clusters, scores_of) == matching_clusters(
        interpreted(program), clusters, scores_of
    )


def test_well_formed_clusters_are_answered_in_python() -> None:
    """The point of it: a hub's clusters are answered without the interpreter."""
    cluster = {
        "metadata": {"name": "c1", "labels": {"region": "us-east", "tier": "gold", "environment": "prod"}},
        "status": {
            "version": {"kubernetes": "v1.31.0"},
            "clusterClaims": [{"name": "product", "value": "OpenShift"}, {"name": "id", "value": "x1"}],
        },
    }
    scores = {"usage": [{"name": "cpu", "value": 20}, {"name": "mem", "value": -60}]}
    for source in PLAIN[:7]:
        program = compile_expression(source)
        assert program._plain(cluster, lambda name: scores) is cel._evaluate(
            program, cel._bound(), cluster, lambda name: scores
        )


def test_what_the_interpreter_may_not_convert_is_left_to_it() -> None:
    """Only what a YAML or JSON reader makes is taken as converting (bytes do, but are left)."""
    assert converts({"a": [1, 2.5, None, True, "\u00e9"]})
    assert not converts({"a": "\ud800"})
    assert not converts({1: "a"})
    assert not converts([{1, 2}])
    assert not converts(b"x")


@pytest.mark.parametrize("odd", ["\ud800", {1, 2}])
def test_a_value_the_interpreter_cannot_convert_is_no_match_there_too(odd: Any) -> None:
    """The interpreter converts all it is given of the cluster first, the part the answer does not
    read too: where that fails, it is no match, however the rest reads."""
    claims = [{"name": "product", "value": "OpenShift"}, {"name": "id", "value": odd}]
    cluster = {"metadata": {"name": "c1"}, "status": {"clusterClaims": claims}}
    scores = {"usage": [{"name": "cpu", "value": 5}, {"name": "\ud800", "value": 1}]}
    for source in (PLAIN[5], PLAIN[3]):
        program = compile_expression(source)
        assert matching_clusters(program, [cluster], lambda name: scores) == [False]
        assert cel._evaluate(program, cel._bound(), cluster, lambda name: scores) is False


@given(clusters=st.lists(_CLUSTER, max_size=6), scores=_SCORES)
def test_expressions_sharing_the_scores_lists_answer_as_the_interpreter(
    clusters: list[dict[str, Any]], scores: dict[str, Any]
) -> None:
    """One `lists` for every expression over the same clusters (adapters.ocm.load._cel_flags):
    each scores() list made once, and every answer the interpreter's."""
    scores_of = lambda name: scores.get(name, {})  # noqa: E731
    lists: dict[int, Any] = {}
    for source in PLAIN:
        program = compile_expression(source)
        assert matching_clusters(program, clusters, scores_of, lists) == matching_clusters(
            interpreted(program), clusters, scores_of
        )


def _calls(work: Any) -> int:
    """How many Python functions work() calls."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event == "call"

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count - 1  # work itself


def test_a_select_chain_and_its_comparison_with_a_literal_are_a_call_or_two() -> None:
    """What an evaluation costs is mostly its calls: a chain of selects from the variable is one
    closure, a comparison with a literal another, `&&` one more; a scores() list is made once for
    the expressions sharing `lists`."""
    cluster = {"metadata": {"name": "c1", "labels": {"environment": "prod"}}, "status": {"clusterClaims": []}}
    for source, most in (
        ('managedCluster.metadata.labels["environment"] == "prod"', 4),
        ('managedCluster.metadata.labels["environment"] == "prod" && true', 6),
    ):
        program = compile_expression(source)
        assert _calls(lambda: program._plain(cluster, lambda name: {})) <= most  # noqa: B023
    scores = {"usage": [{"name": "cpu", "value": 20}]}
    lists: dict[int, Any] = {}
    made: list[int] = []
    for source in PLAIN[3:5]:
        program = compile_expression(source)
        made.append(_calls(lambda: program._plain(cluster, lambda name: scores, lists)))  # noqa: B023
    assert made[1] < made[0]
