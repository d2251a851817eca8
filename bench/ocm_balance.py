"""What the joint Balance changes on a generated OCM hub, measured against greedy.

    from bench.ocm_balance import measure_balance, render
    report = measure_balance(500, 100, seed=0)
    print(render(report))

    python -m bench.ocm_balance --clusters 500 --placements 100 --seed 0 [1 2 ...] [--json]

One generated hub (``generate("ocm", ...)``, judged at the generator's clock), loaded once and solved
in both modes. Greedy is upstream's walk: one placement at a time in batch order, each seeing the
others' decisions as they stand at that moment. Optimal judges Balance on the batch's own final
decisions. The report gives, per mode:

- the batch objective (the summary's `objective`; both modes are evaluated on the same scale);
- the **total score** of every decision, judged on the batch's final decisions: for each
  placement with numberOfClusters (placements without it take every feasible cluster, so their
  scores choose nothing), the sum over its decisions of its prioritizers' weighted scores, Balance
  computed here, independently of the solver, from the final decisions of every placement
  (upstream's ``2 * trunc(100 * (0.5 - n / max))``, 100 where n is 0; n counts every other
  placement's decisions on the cluster, and the decisions of placements outside the batch). The
  other prioritizers' scores (Steady on the hub's earlier decisions, resources, AddOn) are the
  solver's prepared scores, which do not depend on the answer. Reported apart: the static part
  and the weighted Balance part;
- how decisions spread over the clusters (what Balance sees: the batch's decisions plus the
  outside ones): the busiest cluster's count, the standard deviation, and clusters with none;
- wall seconds of ``solver.solve`` (the load, shared, is timed once).

Plus the placements whose decisions differ between the modes. Every result is passed through the
independent checker first.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import numpy as np

from adapters.generate.common import DEFAULT_NOW, parse_now
from adapters.generate.hubs import generate
from adapters.kube.fields import time_text
from adapters.kube.manifests import from_objects
from adapters.ocm import api as ocm
from model import Batch, Result, SelectionMode
from solver import SolveOptions, check, solve
from solver.prepare import prepare
from solver.table import ClusterTable

__all__ = ["BalanceReport", "Judged", "ModeReport", "judge", "main", "measure_balance", "render"]

BALANCE_BEST = 100


@dataclass(frozen=True, slots=True)
class Judged:
    """One result judged on its own final decisions."""

    scored_placements: int  # placements with numberOfClusters (their scores choose)
    static_score: int  # their decisions' prioritizer scores but Balance
    balance_score: int  # their decisions' Balance scores x weight, on the final decisions
    counts: np.ndarray  # per cluster (batch order): decisions Balance sees (batch + outside)
    choice_mismatches: int  # reported scores that differ from the judged ones (see judge)

    @property
    def total_score(self) -> int:
        return self.static_score + self.balance_score


@dataclass(frozen=True, slots=True)
class ModeReport:
    mode: str
    status: str
    objective: int
    bound: int | None
    solve_s: float
    decisions: int
    unsatisfied: int
    static_score: int
    balance_score: int
    total_score: int
    busiest: int
    std: float
    idle_clusters: int
    choice_mismatches: int


@dataclass(frozen=True, slots=True)
class BalanceReport:
    clusters: int  # ManagedClusters generated
    placements: int  # Placements generated
    seed: int
    now: str
    batch_clusters: int  # clusters in the batch (terminating ones left out)
    batch_placements: int  # placements solved (misconfigured ones left out)
    coupled: int  # placements with numberOfClusters and a non-zero Balance weight
    scored: int  # placements with numberOfClusters
    load_s: float
    differing: int  # placements whose decisions differ between the modes
    differing_decisions: int  # (placement, cluster) decisions in one mode's answer only
    greedy: ModeReport
    optimal: ModeReport

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _balance(others: np.ndarray, most: int) -> np.ndarray:
    """Upstream's Balance score for clusters with `others` decisions of other placements."""
    if most <= 0:
        return np.full(len(others), BALANCE_BEST, dtype=np.int64)
    scores = 2 * np.trunc(100.0 * (0.5 - others.astype(np.float64) / float(most))).astype(np.int64)
    return np.where(others == 0, BALANCE_BEST, scores)


def _weight(request) -> int:
    return sum(pref.weight for pref in request.preferences if pref.balance)


def judge(batch: Batch, result: Result, table: ClusterTable | None = None, prepared=None) -> Judged:
    """The total score of the result's decisions judged on its own final decisions, and the
    per-cluster counts Balance sees. `choice_mismatches` counts the selected clusters whose
    reported score (Choice.score.affinity) is not the judged one, among the placements whose
    reported scores are meant to be final: every placement in optimal mode, the uncoupled ones in
    greedy mode (greedy reports a coupled placement's scores as it saw them when it was decided)."""
    table = table or ClusterTable(batch)
    prepared = prepared if prepared is not None else prepare(batch, table)
    by_key = {p.request.key: p for p in prepared}
    rows_of = {
        got.request: np.asarray([table.index[c.cluster] for c in got.selected], dtype=np.int64)
        for got in result.requests
    }
    counts = table.load.astype(np.int64).copy()
    for rows in rows_of.values():
        np.add.at(counts, rows, 1)
    static = balance = mismatches = scored = 0
    final_scores = result.stats.mode == "optimal"
    for got in result.requests:
        p = by_key[got.request]
        if p.request.mode is not SelectionMode.N:
            continue
        scored += 1
        rows = rows_of[got.request]
        others = counts.copy()
        np.subtract.at(others, rows, 1)
        weight = _weight(p.request)
        parts = p.affinity[rows]
        bonus = weight * _balance(others[rows], int(others.max()) if len(others) else 0)
        static += int(parts.sum())
        balance += int(bonus.sum())
        if final_scores or weight == 0:
            reported = np.asarray([c.score.affinity for c in got.selected], dtype=np.int64)
            mismatches += int((reported != parts + bonus).sum())
    return Judged(scored, static, balance, counts, mismatches)


def _mode_report(batch: Batch, result: Result, judged: Judged, solve_s: float) -> ModeReport:
    stats = result.stats
    counts = judged.counts
    return ModeReport(
        mode=stats.mode,
        status=stats.status,
        objective=stats.objective,
        bound=stats.bound,
        solve_s=solve_s,
        decisions=sum(len(r.selected) for r in result.requests),
        unsatisfied=sum(1 for r in result.requests if not r.satisfied),
        static_score=judged.static_score,
        balance_score=judged.balance_score,
        total_score=judged.total_score,
        busiest=int(counts.max()) if len(counts) else 0,
        std=float(counts.std()) if len(counts) else 0.0,
        idle_clusters=int((counts == 0).sum()),
        choice_mismatches=judged.choice_mismatches,
    )


def measure_balance(
    clusters: int,
    placements: int,
    seed: int = 0,
    *,
    now: str | datetime = DEFAULT_NOW,
    time_limit: float = 60.0,
) -> BalanceReport:
    """Generate the hub, solve it in both modes, judge both answers; see the module docstring."""
    moment = parse_now(now)
    objects = generate("ocm", clusters, placements, seed=seed, now=moment)
    started = time.perf_counter()
    batch, _ = ocm.load(from_objects(objects, "<generated>"), now=moment, seed=seed)
    load_s = time.perf_counter() - started
    table = ClusterTable(batch)
    prepared = prepare(batch, table)
    reports, selections = {}, {}
    for mode in ("greedy", "optimal"):
        started = time.perf_counter()
        result = solve(batch, SolveOptions(mode=mode, time_limit=time_limit, seed=seed))
        solve_s = time.perf_counter() - started
        problems = check(batch, result)
        if problems:
            raise AssertionError(f"the checker rejected the {mode} result:\n" + "\n".join(problems))
        reports[mode] = _mode_report(batch, result, judge(batch, result, table, prepared), solve_s)
        selections[mode] = {r.request: frozenset(c.cluster for c in r.selected) for r in result.requests}
    greedy, optimal = selections["greedy"], selections["optimal"]
    differing = sum(1 for key in greedy if greedy[key] != optimal[key])
    pairs = [{(k, c) for k, s in chosen.items() for c in s} for chosen in (greedy, optimal)]
    return BalanceReport(
        clusters=clusters,
        placements=placements,
        seed=seed,
        now=time_text(moment),
        batch_clusters=len(batch.clusters),
        batch_placements=len(batch.requests),
        coupled=sum(1 for r in batch.requests if r.mode is SelectionMode.N and _weight(r) != 0),
        scored=sum(1 for r in batch.requests if r.mode is SelectionMode.N),
        load_s=load_s,
        differing=differing,
        differing_decisions=len(pairs[0] ^ pairs[1]),
        greedy=reports["greedy"],
        optimal=reports["optimal"],
    )


def render(report: BalanceReport) -> str:
    """The report as a small Markdown table."""
    g, o = report.greedy, report.optimal

    def row(label: str, a: float, b: float, form: str, diff: bool = True) -> tuple[str, ...]:
        return (label, format(a, form), format(b, form), format(b - a, "+" + form) if diff else "")

    rows = [
        ("status", g.status, o.status, ""),
        row("batch objective", g.objective, o.objective, ","),
        row("total score (final decisions)", g.total_score, o.total_score, ","),
        row("  Balance part (x weight)", g.balance_score, o.balance_score, ","),
        row("  other prioritizers", g.static_score, o.static_score, ","),
        row("decisions", g.decisions, o.decisions, "d"),
        row("unsatisfied placements", g.unsatisfied, o.unsatisfied, "d", diff=False),
        row("busiest cluster's decisions", g.busiest, o.busiest, "d"),
        row("std of decisions per cluster", g.std, o.std, ".3f"),
        row("clusters with no decision", g.idle_clusters, o.idle_clusters, "d"),
        row("solve wall s", g.solve_s, o.solve_s, ".3f", diff=False),
    ]
    head = (
        f"OCM {report.clusters} clusters x {report.placements} placements, seed {report.seed}, "
        f"now {report.now}: "
        f"{report.batch_placements} placements solved ({report.scored} with numberOfClusters, "
        f"{report.coupled} of them Balance-weighted) on {report.batch_clusters} clusters; load "
        f"{report.load_s:.3f} s. Placements whose decisions differ: {report.differing} "
        f"({report.differing_decisions} decisions in one answer only)."
    )
    lines = ["| | greedy | optimal | optimal - greedy |", "|---|---:|---:|---:|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return head + "\n\n" + "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ocm_balance", description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=500)
    parser.add_argument("--placements", type=int, default=100)
    parser.add_argument("--seed", type=int, nargs="+", default=[0], help="one report per seed")
    parser.add_argument("--now", default=DEFAULT_NOW, help="RFC 3339 clock of the hub and the solve")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--json", action="store_true", help="JSON lines instead of Markdown")
    args = parser.parse_args(argv)
    for seed in args.seed:
        report = measure_balance(
            args.clusters, args.placements, seed, now=args.now, time_limit=args.time_limit
        )
        sys.stdout.write(json.dumps(report.as_dict()) + "\n" if args.json else render(report) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
