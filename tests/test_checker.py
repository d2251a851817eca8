"""The independent checker: silent on sound results, loud on corrupted ones."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from model import (
    Batch,
    Choice,
    Cluster,
    ClusterScore,
    ClusterTerm,
    LabelSelector,
    RequestResult,
    Result,
    Taint,
    Toleration,
)
from model.quantity import parse_quantity
from solver import check
from solver.checker import _filters, _Fleet, passes
from tests.fixtures.batches import SPREAD_CASES, mixed_fleet, mixed_request, no_spread_batch, stuck_batch
from tests.fixtures.builders import (
    batch,
    cluster,
    held,
    pick_all,
    pick_fixed,
    pick_n,
    pref,
    prop,
    req,
    run,
    sel,
    spread,
    taint,
    term,
)


def _sound_batches() -> dict[str, Batch]:
    out = {f"spread-{k}": batch(c, r) for k, (c, r) in SPREAD_CASES.items()}
    out["no-spread"] = no_spread_batch()
    out["stuck"] = stuck_batch()
    out["stuck-soft"] = stuck_batch(hard=False)
    out["mixed"] = batch(mixed_fleet(), mixed_request(3), pick_all(name="all"), explain_limit=3)
    return out


SOUND = _sound_batches()


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
@pytest.mark.parametrize("name", sorted(SOUND))
def test_sound_results_pass(name: str, mode: str) -> None:
    run(SOUND[name], mode)  # run() asserts check() == []


# -- corruption -------------------------------------------------------------------------------


def _fleet():
    return [
        cluster("a", {"env": "prod", "zone": "z1"}),
        cluster("b", {"env": "prod", "zone": "z1"}),
        cluster("c", {"env": "prod", "zone": "z2"}),
        cluster("d", {"env": "dev", "zone": "z2"}),
        cluster("e", {"env": "prod", "zone": "z2"}, taints=[taint("t")]),
        cluster("f", {"env": "prod", "zone": "z3"}, eligible=False),
        cluster("g", {"env": "prod"}, leaving=True, eligible=False),
    ]


def _solved(*requests, mode: str = "greedy") -> tuple[Batch, Result]:
    b = batch(_fleet(), *requests)
    return b, run(b, mode)


def _corrupt(result: Result, key: str, **changes) -> Result:
    requests = tuple(replace(r, **changes) if r.request == key else r for r in result.requests)
    return replace(result, requests=requests)


def _picked(name: str) -> Choice:
    return Choice(name, ClusterScore(0, 0))


def _problems(b: Batch, result: Result, needle: str) -> list[str]:
    problems = check(b, result)
    assert any(needle in p for p in problems), problems
    return problems


PROD = (term({"env": "prod"}),)


@pytest.mark.parametrize("bad", ["d", "e", "f"])
def test_selected_cluster_failing_filters(bad: str) -> None:
    b, result = _solved(pick_n(2, required=PROD))
    rr = result.requests[0]
    corrupted = _corrupt(result, "p", selected=(*rr.selected[:1], _picked(bad)))
    _problems(b, corrupted, f"selected {bad}, which fails the request's filters")


def test_selected_leaving_or_unknown_cluster() -> None:
    b, result = _solved(pick_n(2))
    _problems(
        b, _corrupt(result, "p", selected=(_picked("g"),), satisfied=False), "selected leaving cluster g"
    )
    _problems(
        b, _corrupt(result, "p", selected=(_picked("zz"),), satisfied=False), "zz, which does not exist"
    )


def test_duplicates() -> None:
    b, result = _solved(pick_n(2, required=PROD))
    rr = result.requests[0]
    _problems(b, _corrupt(result, "p", selected=(rr.selected[0], rr.selected[0])), "selected 2 times")


def test_dropped_current_decision() -> None:
    b, result = _solved(pick_n(3, existing=(held("a"), held("b"))))
    rr = result.requests[0]
    assert [c.cluster for c in rr.selected][:2] == ["a", "b"]
    # Silently dropped: neither kept nor released.
    problems = _problems(b, _corrupt(result, "p", selected=rr.selected[1:], satisfied=False), "neither kept")
    assert any("dropped 1 current decisions, only 0 surplus" in p for p in problems)
    # Released without a reason to shrink.
    _problems(
        b,
        _corrupt(result, "p", selected=rr.selected[1:], released=("a",), satisfied=False),
        "dropped 1 current decisions, only 0 surplus",
    )


def test_dropped_current_decision_pick_all_and_fixed() -> None:
    b, result = _solved(
        pick_all(name="all", existing=(held("d"),)), pick_fixed("a", name="fx", existing=(held("a"),))
    )
    by = result.by_request()
    corrupted = _corrupt(result, "all", selected=by["all"].selected[1:], released=("d",))
    _problems(b, corrupted, "dropped current decisions ['d']")
    corrupted = _corrupt(result, "fx", selected=(), released=("a",))
    _problems(b, corrupted, "dropped current decisions ['a']")


def test_too_many_clusters() -> None:
    b, result = _solved(pick_n(2, required=PROD))
    rr = result.requests[0]
    assert {c.cluster for c in rr.selected} == {"b", "c"}
    _problems(
        b,
        _corrupt(result, "p", selected=(*rr.selected, _picked("a"))),
        "selected 3 clusters for a request of 2",
    )


def test_satisfied_flag() -> None:
    b, result = _solved(pick_n(2, required=PROD))
    _problems(b, _corrupt(result, "p", satisfied=False), "satisfied flag disagrees with the count")
    b, result = _solved(pick_all())
    _problems(b, _corrupt(result, "p", satisfied=False), "always satisfied")
    b, result = _solved(pick_fixed("a", "f"))
    assert not result.requests[0].satisfied
    _problems(b, _corrupt(result, "p", satisfied=True), "named clusters' validity")


def test_skew_violation() -> None:
    request = pick_n(3, spread=(spread("zone"),))
    b, result = _solved(request)
    rr = result.requests[0]
    # Greedy stops at two: the ineligible f holds zone z3 at 0.
    assert sorted(c.cluster for c in rr.selected) == ["b", "d"] and not rr.satisfied
    # Two in z1 and none in z3 (ineligible but a domain): skew 2 > 1.
    corrupted = _corrupt(result, "p", selected=(_picked("a"), _picked("b"), _picked("c")), satisfied=True)
    _problems(b, corrupted, "skew 2 over zone exceeds 1")


def test_skew_violation_found_in_optimal_results_too() -> None:
    b = stuck_batch()
    result = run(b, "optimal")
    corrupted = _corrupt(result, "p", selected=(_picked("x"), _picked("p")))
    _problems(b, corrupted, "over zone exceeds 1")


def test_soft_spread_is_not_a_hard_violation() -> None:
    b = stuck_batch(hard=False)
    result = run(b, "greedy")
    assert check(b, _corrupt(result, "p", selected=(_picked("x"), _picked("p")))) == []


def test_pick_all_missing_a_passing_cluster() -> None:
    b, result = _solved(pick_all(required=PROD))
    rr = result.requests[0]
    assert [c.cluster for c in rr.selected] == ["a", "b", "c"]
    _problems(b, _corrupt(result, "p", selected=rr.selected[:2]), "1 passing clusters not selected, e.g. c")


def test_released_a_decision_not_held() -> None:
    b, result = _solved(pick_n(2, existing=(held("a"),)))
    _problems(b, _corrupt(result, "p", released=("b",)), "released b, which the request did not hold")


def test_selected_and_released() -> None:
    b, result = _solved(pick_n(2, existing=(held("a"),)))
    _problems(b, _corrupt(result, "p", released=("a",)), "a both selected and released")


def test_fixed_selecting_an_unnamed_or_invalid_cluster() -> None:
    b, result = _solved(pick_fixed("a", "f"))
    _problems(b, _corrupt(result, "p", selected=(Choice("a"), Choice("b"))), "b, which is not a valid named")
    _problems(b, _corrupt(result, "p", selected=(Choice("a"), Choice("f"))), "f, which is not a valid named")


def test_missing_and_extra_results() -> None:
    b, result = _solved(pick_n(1), pick_all(name="q"))
    assert check(b, replace(result, requests=result.requests[:1])) == ["q: no result"]
    extra = RequestResult("ghost", ())
    problems = check(b, replace(result, requests=(*result.requests, extra)))
    assert problems == ["ghost: result for a request not in the batch"]


def test_preferences_are_not_checked_as_hard_constraints() -> None:
    b, result = _solved(pick_n(1, preferences=(pref(100, {"env": "dev"}),)))
    rr = result.requests[0]
    assert [c.cluster for c in rr.selected] == ["d"]
    # Any other passing cluster is still sound, if worse.
    assert check(b, _corrupt(result, "p", selected=(_picked("a"),))) == []


# -- the passing set of an all-clusters request, taken set by set ----------------------------


def _random_fleet(rng: random.Random, now: datetime) -> list[Cluster]:
    """Clusters with every fact a filter reads drawn at random: labels, claims, properties,
    traits, taints (some only for newcomers, some with a time), eligibility."""
    clusters = []
    for i in range(60):
        labels = {k: rng.choice("xyz") for k in ("env", "zone", "tier") if rng.random() < 0.7}
        claims = {k: rng.choice("xy") for k in ("env", "product") if rng.random() < 0.5}
        taints = tuple(
            Taint(
                rng.choice(("t1", "t2")),
                rng.choice(("", "v")),
                added=rng.choice((None, now - timedelta(seconds=30))),
                new_only=rng.random() < 0.3,
            )
            for _ in range(rng.choice((0, 0, 1, 2)))
        )
        clusters.append(
            Cluster(
                f"c{i:02d}",
                labels=labels,
                properties={"cpu": parse_quantity(str(rng.randint(1, 8)))} if rng.random() < 0.8 else {},
                taints=taints,
                eligible=rng.random() < 0.9,
                ineligible_reason="",
                claims=claims,
                traits=frozenset(t for t in ("s1", "s2", "cel") if rng.random() < 0.5),
            )
        )
    return clusters


def _random_terms(rng: random.Random) -> tuple[ClusterTerm, ...]:
    def labels() -> LabelSelector | None:
        if rng.random() < 0.3:
            return None
        pairs = tuple(
            sorted({(k, rng.choice("xyz")) for k in rng.sample(("env", "zone"), rng.randint(0, 2))})
        )
        op = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
        exprs = (req("tier", op, *(("x",) if op in ("In", "NotIn") else ())),) if rng.random() < 0.5 else ()
        return LabelSelector(pairs, exprs)

    return tuple(
        ClusterTerm(
            labels=labels(),
            properties=(prop("cpu", rng.choice(("Gt", "Le")), "4"),) if rng.random() < 0.3 else (),
            claims=sel({"product": rng.choice("xy")}) if rng.random() < 0.3 else None,
            traits=("cel",) if rng.random() < 0.3 else (),
        )
        for _ in range(rng.choice((0, 1, 1, 2)))
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_passing_set_of_an_all_clusters_request_is_every_cluster_passes_admits(seed: int) -> None:
    """_Fleet.passing composes passes' conditions as sets (scope, terms, taints), each shared by the
    requests asking it: for every request, held clusters or not, the clusters passes admits one
    by one, no more and no fewer."""
    rng = random.Random(seed)
    now = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
    clusters = _random_fleet(rng, now)
    fleet = _Fleet(tuple(clusters), now)
    for _ in range(40):
        request = pick_all(
            required=_random_terms(rng),
            tolerations=tuple(
                Toleration(rng.choice(("t1", "t2")), seconds=rng.choice((None, 10, 60)))
                for _ in range(rng.choice((0, 1, 2)))
            ),
            scope=rng.choice((None, (), ("s1",), ("s1", "s2"))),
            existing=tuple(held(c.name) for c in rng.sample(clusters, 5)),
        )
        holds = {d.cluster for d in request.existing}
        plain = {c.name for c in clusters if passes(request, c, now, held=c.name in holds)}
        assert fleet.passing(request, _filters(request)) == plain


def test_a_terms_matches_are_asked_only_of_clusters_carrying_its_pairs_and_traits(monkeypatch) -> None:
    """_Fleet._matched judges a term only on the eligible clusters carrying every pair of its
    matchLabels and every trait it names (none can match otherwise), and a term asking nothing
    more matches each of them unasked; the sets are those ClusterTerm.matches gives."""
    rng = random.Random(3)
    now = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
    clusters = _random_fleet(rng, now)
    asked: list[str] = []
    matches = ClusterTerm.matches

    def spy(term, labels, properties, claims=None, traits=frozenset()):
        asked.append(labels.get("env", "-"))
        return matches(term, labels, properties, claims, traits)

    bare = ClusterTerm(LabelSelector((("env", "x"),)), traits=("cel",))
    more = ClusterTerm(LabelSelector((("env", "x"),), (req("tier", "Exists"),)), traits=("cel",))
    eligible = [c for c in clusters if c.eligible]
    carrying = [c for c in eligible if c.labels.get("env") == "x" and "cel" in c.traits]
    assert carrying and len(carrying) < len(eligible)
    monkeypatch.setattr(ClusterTerm, "matches", spy)
    fleet = _Fleet(tuple(clusters), now)
    assert fleet._matched(bare) == {c.name for c in carrying}
    assert asked == []
    assert fleet._matched(more) == {c.name for c in carrying if "tier" in c.labels}
    assert asked == ["x"] * len(carrying)
