"""`-o table`, for people: one row per placement and chosen cluster, the counts, every unsatisfied
placement with its reason, and, for an optimal run, where optimal chose differently from greedy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.cli.words import counted
from adapters.registry import system

if TYPE_CHECKING:
    from adapters.contract import Table
    from adapters.run.pipeline import Outcome, SystemOutcome
    from model import Choice, ClusterScore

__all__ = ["greedy_beside", "render_table"]


def greedy_beside(outcome: Outcome) -> Outcome | None:
    """For people: an optimal answer is shown beside what greedy (upstream) would have done, each
    system's batch with greedy's answer (no objects: the table reads only the decisions). That is
    the answer the optimal solve kept (SolveOptions.beside_greedy: its searches' hints, and its
    own answer where greedy's is optimal); only a batch decided jointly, which keeps none, is
    solved again, in greedy mode, as loaded."""
    from adapters.run.pipeline import Outcome, SystemOutcome
    from model import Result, SolveStats
    from solver import SolveOptions, solve

    if outcome.summary.get("mode") != "optimal" or not outcome.parts:
        return None
    parts = []
    for part in outcome.parts:
        kept = part.result.greedy
        if kept is None:
            result = solve(part.batch, SolveOptions(mode="greedy", seed=part.batch.seed))
        else:
            result = Result(kept, SolveStats(mode="greedy", status="GREEDY"))
        parts.append(SystemOutcome(part.system, part.batch, result))
    return Outcome([], [], tuple(parts), {})


def render_table(outcome: Outcome, greedy: Outcome | None = None) -> str:
    """One row per placement and chosen cluster. A system alone in the input whose table says so
    (adapters.contract.Table) keeps its own words (its score column or none, no SYSTEM column);
    otherwise a SYSTEM column leads and the score is the system's total score. Where a system
    divides replicas, a REPLICAS column, and a row naming each failed request's failure in its
    upstream's word. Then the counts,
    and every unsatisfied placement with the reason (adapters.cli.unsatisfied), those the solver never
    saw included. With `greedy`, the placements where optimal chose differently follow, with
    what it gained."""
    from adapters.cli.unsatisfied import Reasons

    present = {part.system for part in outcome.parts}
    layouts = {name: system(name).table for name in present}
    layout = layouts[next(iter(present))] if len(present) == 1 else None
    alone = layout is not None and layout.alone
    columns = _Columns(not alone or layout.score is not None, any(t.replicas for t in layouts.values()))
    head = ("PLACEMENT", "CLUSTER", "DECISION")
    if columns.scored:
        head += (layout.score if alone else "SCORE", "SPREAD")
    if columns.replicas:
        head += ("REPLICAS",)
    rows = [head if alone else ("SYSTEM", *head)]
    unsatisfied: list[tuple[SystemOutcome, str]] = []
    for part in outcome.parts:
        own = layouts[part.system]
        prefix = () if alone else (part.system,)
        held = {r.key: {d.cluster for d in r.existing} for r in part.batch.requests}
        for got in part.result.requests:
            lead = (*prefix, got.request)
            had = held.get(got.request, set())
            for choice in got.selected:
                cells = (*lead, choice.cluster, _decision(choice, had))
                rows.append(columns.row(own, cells, choice.score, choice.replicas))
            rows += [columns.row(own, (*lead, cluster, "released")) for cluster in got.released]
            failed = own.failures.get(got.failure) if got.failure is not None else None
            if failed is not None:
                rows.append(columns.row(own, (*lead, "-", failed)))
            elif not got.selected and not got.released:
                rows.append(columns.row(own, (*lead, "-", "none")))
        keys = part.unsatisfied
        if keys is None:
            keys = tuple(got.request for got in part.result.requests if not got.satisfied)
        unsatisfied += [(part, key) for key in keys]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    s = outcome.summary
    lines.append("")
    lines.append(
        f"{counted(s['requests'], 'placement')}, {counted(s['clusters'], 'cluster')}; mode {s['mode']}, "
        f"status {s['status']}; {len(unsatisfied)} unsatisfied{':' if unsatisfied else ''}"
    )
    if unsatisfied:
        reasons = Reasons(outcome.apply)
        several = len(outcome.parts) > 1
        lines += [
            f"  {part.system + ' ' if several else ''}{key}: {reasons.why(part, key)}"
            for part, key in unsatisfied
        ]
    text = "\n".join(lines) + "\n"
    if greedy is not None:
        from adapters.cli.difference import capacity_summary, differences, render_differences

        text += "\n" + capacity_summary(outcome, greedy) + render_differences(differences(outcome, greedy))
        text += _created_beside(outcome, greedy)
    return text


@dataclass(frozen=True, slots=True)
class _Columns:
    """The table's optional columns: the score and spread, the replicas."""

    scored: bool
    replicas: bool

    def row(
        self,
        own: Table,
        cells: tuple[str, ...],
        score: ClusterScore | None = None,
        replicas: int | None = None,
    ) -> tuple[str, ...]:
        """The cells, then the optional columns' (a system whose scores mean nothing: `-`)."""
        if self.scored:
            shown = score is not None and own.score is not None
            cells += (str(score.affinity), str(score.spread)) if shown else ("-", "-")
        if self.replicas:
            cells += ("-" if replicas is None else str(replicas),)
        return cells


def _decision(choice: Choice, had: set[str]) -> str:
    """kept, new (an existing cluster), created (a new one), recreated (a held one that is gone)."""
    if choice.created:
        return "recreated" if choice.kept else "created"
    return "kept" if choice.kept or choice.cluster in had else "new"


def _created(outcome: Outcome) -> dict[str, int]:
    """New clusters per system, where a system creates any."""
    out: dict[str, int] = {}
    for part in outcome.parts:
        names = {c.cluster for got in part.result.requests for c in got.selected if c.created and not c.kept}
        if names or any(r.tenancy is not None and r.tenancy.pool is not None for r in part.batch.requests):
            out[part.system] = len(names)
    return out


def _created_beside(optimal: Outcome, greedy: Outcome) -> str:
    """Systems that create clusters: how many each mode creates."""
    mine, theirs = _created(optimal), _created(greedy)
    return "".join(
        f"{name}: optimal creates {counted(count, 'new cluster')}, greedy {theirs.get(name, 0)}\n"
        for name, count in mine.items()
    )
