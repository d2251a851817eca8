"""OCM's optimal answers settle: solving the hub an answer leaves keeps it. The hubs are the ones
tests/test_properties_systems.py::test_the_declared_applies_reach_the_fixed_point found, made
deterministic."""

from __future__ import annotations

from solver import SolveOptions
from tests.fixtures.ocm import binding, builtin, cluster_set, managed_cluster, placement
from tests.fixtures.pipeline import Hub, assert_fixed_point, run, selections

OPTIMAL = SolveOptions(mode="optimal")


def _chasing() -> Hub:
    """Two placements on the two clusters ns1 may use (c0 and c2; c1 is being deleted): p0 with
    Balance -2 (it wants to be where the others are), p1 with OCM's default prioritizers
    (Balance +1, Steady +1: it wants to be apart, and to stay) and a zone spread the clusters'
    missing zone label leaves neutral. The batch is worth most with both on one cluster."""
    return Hub(
        [
            cluster_set("global"),
            binding("global", "ns1"),
            managed_cluster("c0"),
            managed_cluster("c1", terminating=True),
            managed_cluster("c2"),
            placement(
                "p0",
                "ns1",
                n=1,
                mode="Additive",
                prioritizers=[
                    builtin("Balance", -2),
                    builtin("Steady", 0),
                    builtin("ResourceAllocatableCPU", 0),
                ],
                uid="uid-ns1-p0",
            ),
            placement(
                "p1",
                "ns1",
                n=1,
                spread=[
                    {
                        "topologyKey": "zone",
                        "topologyKeyType": "Label",
                        "maxSkew": 1,
                        "whenUnsatisfiable": "DoNotSchedule",
                    }
                ],
                groups=[],
                uid="uid-ns1-p1",
            ),
        ]
    )


def test_placements_chasing_each_others_balance_settle_together() -> None:
    # They used to flip between {c2, c2} and {c0, c0} on every apply: p1, under spread, was started
    # from greedy's answer, which leaves what it holds, and p0 followed it.
    hub = _chasing()
    first = selections(run(hub, OPTIMAL))
    assert first["ns1/p0"] == first["ns1/p1"]
    assert_fixed_point(hub, OPTIMAL)
