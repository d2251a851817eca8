"""The index simulation (bench.ocm_index_sim) on a small generated OCM hub: its counts are
consistent (every visit it charges has a pair; the enqueued and today's proofs counted on cluster
events; a threat within its answer's slack visits nothing) and the model's methods are put back
after the run."""

from datetime import datetime

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.ocm import reach
from bench import ocm_index_sim


def test_the_index_simulation_counts_each_visit_against_a_pair_and_puts_the_model_back():
    names = ("_log_moved", "_checked", "_stands", "_quiet", "_quiet_left")
    methods = {name: getattr(reach.OcmLive, name) for name in names}
    objects = generate("ocm", 80, 120, seed=3, now=datetime.fromisoformat(DEFAULT_NOW))
    per_kind, counts = ocm_index_sim.simulate(objects, 30, "optimal", 3)
    assert sum(per_kind.values()) == 30
    assert {name: getattr(reach.OcmLive, name) for name in methods} == methods
    cluster_kinds = [k for k in per_kind if k.startswith("cluster-")]
    assert cluster_kinds and all(counts[k]["enqueued"] > 0 for k in cluster_kinds)
    charged = rose = reached = 0
    for row in counts.values():
        visits = row["not_strict"] + row["pick_fell"] + row["slack_reached"]
        assert row["visits"] >= visits
        assert row["pairs"] >= visits  # each answer visited for a move had one in its scope
        if not row["whole_pass"]:
            assert row["visits"] == visits
        charged += row["pairs"]
        rose, reached = rose + row["rose"], reached + row["slack_reached"]
    assert charged > 0  # the stream moved counts the index would have read
    assert reached < rose  # some threats stayed within their slack: those answers were not visited
