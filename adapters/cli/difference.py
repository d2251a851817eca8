"""What optimal mode chose differently from greedy, and what it gained, placement by placement:
for people (the table under `solve -o table` and `demo`), so the reason the optimizer exists can
be seen in one command."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from adapters.cli.words import counted
from adapters.run.pipeline import Outcome
from model import Batch, PlacementRequest, RequestResult

__all__ = ["Difference", "differences", "render_differences"]


@dataclass(frozen=True, slots=True)
class Difference:
    system: str
    request: str
    greedy: tuple[str, ...]  # chosen clusters, sorted
    optimal: tuple[str, ...]
    gains: tuple[str, ...]  # what changed, in words: what optimal gained and what it paid for it


def differences(optimal: Outcome, greedy: Outcome) -> list[Difference]:
    """One entry per placement whose chosen clusters differ between the two outcomes."""
    out: list[Difference] = []
    greedy_parts = {part.system: part for part in greedy.parts}
    for part in optimal.parts:
        other = greedy_parts.get(part.system)
        if other is None:
            continue
        requests = {r.key: r for r in part.batch.requests}
        before = other.result.by_request()
        tenancy = _Tenancy(part.batch, part.result.requests, other.result.requests)
        for got in part.result.requests:
            was = before.get(got.request)
            if was is None:
                continue
            chosen, had = _names(got), _names(was)
            if chosen == had:
                continue
            request = requests[got.request]
            gains = (
                tenancy.gains(got, was)
                if request.tenancy is not None
                else _gains(request, part.batch, got, was)
            )
            out.append(Difference(part.system, got.request, had, chosen, gains))
    return out


class _Tenancy:
    """The batch-wide figures a tenancy placement's difference is told by: clusters created and
    tenants per existing cluster, in each mode."""

    def __init__(self, batch: Batch, optimal, greedy) -> None:
        self.created = [_created(results) for results in (optimal, greedy)]
        self.tenants = [_tenants(batch, results) for results in (optimal, greedy)]

    def gains(self, got: RequestResult, was: RequestResult) -> tuple[str, ...]:
        mine, theirs = (r.selected[0] if r.selected else None for r in (got, was))
        n = self.created[0]
        created = f"the batch creates {counted(n, 'new cluster')}, greedy {self.created[1]}"
        if not any(self.created):  # a system that creates none (kcp) or a batch that needed none
            created = "no new clusters in either mode"
        if mine is None or theirs is None:
            return ("placed where greedy found no cluster",) if mine else ("left unplaced; " + created,)
        if theirs.created and not mine.created:
            return (f"joins an existing cluster where greedy created {theirs.cluster}; {created}",)
        if mine.created and not theirs.created:
            return (
                f"a new cluster leaves {theirs.cluster}'s slots to placements with nowhere else; {created}",
            )
        if mine.created:
            return (f"new clusters shared differently; {created}",)
        ends = self.tenants[0].get(mine.cluster, 0), self.tenants[1].get(theirs.cluster, 0)
        busiest = [max(t.values(), default=0) for t in self.tenants]
        tenants = counted(ends[0], "tenant")
        return (
            f"{mine.cluster} ends with {tenants} (greedy's {theirs.cluster}: {ends[1]}); the busiest "
            f"cluster holds {busiest[0]} (greedy {busiest[1]}); {created}",
        )


def _created(results) -> int:
    return len({c.cluster for r in results for c in r.selected if c.created and not c.kept})


def _tenants(batch: Batch, results) -> dict[str, int]:
    count = {c.name: c.load for c in batch.clusters}
    for r in results:
        for c in r.selected:
            if c.cluster in count:
                count[c.cluster] += 1
    return count


def _names(got: RequestResult) -> tuple[str, ...]:
    return tuple(sorted(c.cluster for c in got.selected))


def _gains(
    request: PlacementRequest, batch: Batch, got: RequestResult, was: RequestResult
) -> tuple[str, ...]:
    gains: list[str] = []
    if len(got.selected) != len(was.selected):
        gains.append(f"{counted(len(got.selected), 'cluster')} where greedy found {len(was.selected)}")
    if got.satisfied and not was.satisfied:
        gains.append("the policy is satisfied, greedy's answer is not")
    by_name = {c.name: c for c in batch.clusters}
    for constraint in request.spread:
        skews = [
            _skew(batch, by_name, names, constraint.topology_key, constraint.claims) for names in (got, was)
        ]
        if skews[0] != skews[1]:
            kind = "within" if skews[0] <= constraint.max_skew else "over"
            gains.append(
                f"skew over {constraint.topology_key} {skews[0]} ({kind} maxSkew {constraint.max_skew}; "
                f"greedy {skews[1]})"
            )
    moved = len(got.released), len(was.released)
    if moved[0] != moved[1]:
        gains.append(f"releases {counted(moved[0], 'existing decision')} (greedy {moved[1]})")
    if request.coupled:
        gains.append(
            "Balance judged on the batch's final decisions, not on the order placements are visited in"
        )
    if not gains:
        scores = [sum(c.score.affinity for c in r.selected if c.score is not None) for r in (got, was)]
        if scores[0] != scores[1]:
            gains.append(f"score {scores[0]} where greedy's scores {scores[1]}")
        else:
            gains.append("as good on every level; the tie goes the upstream way")
    return tuple(gains)


def _skew(batch: Batch, by_name, got: RequestResult, key: str, claims: bool) -> int:
    def value(cluster):
        return (cluster.claims if claims else cluster.labels).get(key)

    domains = {value(c) for c in batch.clusters} - {None}
    if not domains:
        return 0
    counts = Counter(value(by_name[c.cluster]) for c in got.selected if c.cluster in by_name)
    values = [counts.get(d, 0) for d in domains]
    return max(values) - min(values)


def render_differences(found: list[Difference]) -> str:
    """The table's closing section, or "" when optimal chose as greedy did everywhere."""
    if not found:
        return "Optimal chose as greedy did for every placement.\n"
    several = len({d.system for d in found}) > 1
    lines = [f"Where optimal chose differently from greedy ({counted(len(found), 'placement')}):"]
    for d in found:
        name = f"{d.system} {d.request}" if several else d.request
        lines.append(f"  {name}: greedy [{', '.join(d.greedy)}] -> optimal [{', '.join(d.optimal)}]")
        lines += [f"    {gain}" for gain in d.gains]
    return "\n".join(lines) + "\n"
