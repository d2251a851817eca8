"""Failover tiers and their overflow terms, transcribed from upstream's own tests as whole batches
(karmada-io/karmada pkg/scheduler/scheduler_test.go TestScheduleResourceBindingWithClusterAffinities)
and from the semantics (sections 4.8, 5)."""

from __future__ import annotations

from model import AffinityTier, Division, Failure, Taint
from tests.fixtures.replicas import answer, labelled, names_term, request, solve_batch, split

TIERS = (AffinityTier("affinity1", names_term("cluster1")), AffinityTier("affinity2", names_term("cluster2")))


def clusters(one: int = 5, two: int = 5, **one_kw):
    return [labelled("cluster1", free={"pods": one}, **one_kw), labelled("cluster2", free={"pods": two})]


def test_successful_scheduling_with_first_affinity():
    """TestScheduleResourceBindingWithClusterAffinities "successful scheduling with first affinity"."""
    got = answer(solve_batch(clusters(), request("b", 1, tiers=TIERS)))
    assert split(got) == [("cluster1", 1)] and got.tier == "affinity1"


def test_explicit_rescheduling_restarts_from_first_affinity():
    """... "explicit rescheduling restarts from first affinity": divided afresh, the attempts start
    at the first tier whatever was observed."""
    got = answer(solve_batch(clusters(), request("b", 1, tiers=TIERS, tier=1, fresh=True)))
    assert split(got) == [("cluster1", 1)] and got.tier == "affinity1"


def test_without_explicit_rescheduling_resumes_from_observed_affinity():
    """... "without explicit rescheduling resumes from observed affinity": never back to a tier
    that would fit now."""
    got = answer(solve_batch(clusters(), request("b", 1, tiers=TIERS, tier=1)))
    assert split(got) == [("cluster2", 1)] and got.tier == "affinity2"


def test_successful_scheduling_with_second_affinity():
    """... "successful scheduling with second affinity": any failure of a tier (here too little
    room) moves on to the next."""
    got = answer(solve_batch(clusters(one=0), request("b", 1, tiers=TIERS)))
    assert split(got) == [("cluster2", 1)] and got.tier == "affinity2"


def test_all_affinities_fail_the_first_failure_decides():
    """... "all affinities fail": the first tier's failure is reported; too little room leaves the
    assignment as it was."""
    got = answer(solve_batch(clusters(one=0, two=0), request("b", 2, tiers=TIERS, current=[("cluster1", 1)])))
    assert got.failure is Failure.SHORT and not got.satisfied
    assert got.failure_detail == (
        "failed to assign replicas: failed to scale up: "
        "Clusters available replicas 0 are not enough to schedule."
    )
    assert split(got) == [("cluster1", 1)] and got.released == ()
    assert got.tier == "affinity2"  # the tier tried last


def test_no_tier_fits_then_the_assignment_is_cleared():
    """The first tier has no cluster that passes the filters (its only cluster tainted), the second
    too little room: the first failure (NO_FIT) decides, and the assignment is cleared."""
    taint = Taint("k", "v", "NoSchedule")
    got = answer(solve_batch(clusters(two=0, taints=[taint]), request("b", 1, tiers=TIERS)))
    assert got.failure is Failure.NO_FIT and got.selected == ()
    assert [(u.cluster, u.kind.value) for u in got.unselected] == [
        ("cluster1", "taint"),
        ("cluster2", "affinity"),
    ]


def test_no_wrap_around():
    """From the last tier there is no way back to the first, even when it would fit (#4990)."""
    got = answer(solve_batch(clusters(two=0), request("b", 1, tiers=TIERS, tier=1)))
    assert got.failure is Failure.SHORT


OVERFLOW = (AffinityTier("primary", names_term("cluster1"), overflow=(names_term("cluster2"),)),)


def test_overflow_fills_the_primary_first():
    """Semantics 4.8: the tier's own clusters take what they have room for, the overflow term's
    the rest."""
    got = answer(solve_batch(clusters(one=3, two=10), request("b", 5, Division.AGGREGATED, tiers=OVERFLOW)))
    assert split(got) == [("cluster1", 3), ("cluster2", 2)] and got.tier == "primary"


def test_overflow_short_over_every_tier():
    got = answer(solve_batch(clusters(one=3, two=1), request("b", 5, Division.AGGREGATED, tiers=OVERFLOW)))
    assert got.failure is Failure.SHORT
    assert (
        got.failure_detail
        == "failed to assign replicas: Clusters available replicas are not enough to schedule."
    )


def test_overflow_scale_down_empties_the_overflow_first():
    """A tier's share is at most what its clusters can take (room plus held), so shrinking gives
    up the overflow's replicas first."""
    current = [("cluster1", 3), ("cluster2", 2)]
    got = answer(
        solve_batch(
            clusters(one=0, two=10), request("b", 3, Division.AGGREGATED, tiers=OVERFLOW, current=current)
        )
    )
    assert split(got) == [("cluster1", 3)] and got.released == ("cluster2",)


def test_overflow_terms_do_not_widen_a_request_without_replicas_to_fit():
    """Upstream's filter adds the overflow terms for workloads only."""
    got = answer(solve_batch(clusters(), request("b", 0, Division.EVERY, tiers=OVERFLOW, unlimited=True)))
    assert split(got) == [("cluster1", None)]
