"""bench.ocm_balance: the joint Balance against greedy on a small generated OCM hub."""

from __future__ import annotations

import json

import numpy as np
import pytest

from adapters.generate.common import DEFAULT_NOW, parse_now
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.ocm import api as ocm
from bench import ocm_balance as ob
from solver import SolveOptions, solve


@pytest.fixture(scope="module", params=[0, 1])
def report(request):
    return ob.measure_balance(200, 50, seed=request.param)


def test_optimal_never_below_greedy(report):
    assert report.greedy.status == "GREEDY" and report.optimal.status in ("OPTIMAL", "FEASIBLE")
    assert report.optimal.objective >= report.greedy.objective
    assert report.optimal.bound >= report.optimal.objective and report.greedy.bound is None


def test_report_numbers_are_consistent(report):
    assert 0 < report.coupled <= report.scored <= report.batch_placements <= report.placements
    assert 0 < report.batch_clusters <= report.clusters
    assert (report.differing == 0) == (report.differing_decisions == 0)
    assert report.differing <= report.scored
    for mode in (report.greedy, report.optimal):
        assert mode.total_score == mode.static_score + mode.balance_score
        # The judged scores are the ones the solver reports as final (every placement in optimal
        # mode, the uncoupled ones in greedy mode).
        assert mode.choice_mismatches == 0
        assert 0 <= mode.idle_clusters < report.batch_clusters
        assert mode.busiest >= 1 and mode.std > 0 and mode.solve_s > 0
    assert report.greedy.unsatisfied == report.optimal.unsatisfied


def test_judge_counts_every_decision_and_scores_balance_on_the_final_ones():
    now = parse_now(DEFAULT_NOW)
    batch, _ = ocm.load(from_objects(generate("ocm", 120, 30, seed=2, now=now), "<g>"), now=now)
    for mode in ("greedy", "optimal"):
        result = solve(batch, SolveOptions(mode=mode))
        judged = ob.judge(batch, result)
        outside = sum(c.load for c in batch.clusters)
        assert int(judged.counts.sum()) == sum(len(r.selected) for r in result.requests) + outside
        assert len(judged.counts) == len(batch.clusters)
        assert judged.choice_mismatches == 0


def test_balance_formula_is_upstreams():
    # balance_test.go: others {c1, c2} and {c1, c3} give c1 -100, c2 0, c3 0.
    assert ob._balance(np.array([2, 1, 1]), 2).tolist() == [-100, 0, 0]
    # Truncation before doubling: 1/3 -> 32, 2/3 -> -32; no decisions anywhere -> 100 everywhere.
    assert ob._balance(np.array([1, 2, 0, 3]), 3).tolist() == [32, -32, 100, -100]
    assert ob._balance(np.array([0, 0]), 0).tolist() == [100, 100]


def test_entry_point_prints_one_report_per_seed(capsys):
    assert ob.main(["--clusters", "60", "--placements", "15", "--seed", "3", "4", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["seed"] for line in lines] == [3, 4]
    assert ob.main(["--clusters", "60", "--placements", "15"]) == 0
    text = capsys.readouterr().out
    assert "| batch objective |" in text and "Placements whose decisions differ" in text
