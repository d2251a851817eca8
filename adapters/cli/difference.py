"""What optimal mode chose differently from greedy, and what it gained, placement by placement:
for people (the table under `solve -o table` and `demo`), so the reason the optimizer exists can
be seen in one command."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from adapters.cli.words import counted
from adapters.registry import facet, system
from adapters.run.pipeline import Outcome, SystemOutcome
from model import Batch, Division, PlacementRequest, RequestResult
from solver.replicas.estimate import Estimator, footprint

__all__ = ["Difference", "added", "capacity_summary", "differences", "render_differences"]


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
        capacity = _Capacity(part, other) if _divides(part.batch) else None
        for got in part.result.requests:
            was = before.get(got.request)
            if was is None:
                continue
            request = requests[got.request]
            divides = request.replicas is not None
            chosen, had = _names(got, divides), _names(was, divides)
            if chosen == had and got.failure == was.failure:
                continue
            if request.tenancy is not None:
                gains = tenancy.gains(got, was)
            elif divides and capacity is not None:
                gains = capacity.gains(request, got, was)
            else:
                gains = _gains(request, part.batch, got, was)
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
    count = dict(zip((c.name for c in batch.clusters), batch.cluster_loads(), strict=True))
    for r in results:
        for c in r.selected:
            if c.cluster in count:
                count[c.cluster] += 1
    return count


def _names(got: RequestResult, replicas: bool = False) -> tuple[str, ...]:
    """The chosen clusters, sorted; with `replicas`, each with the replicas it runs (`name: n`)."""
    return tuple(
        sorted(
            c.cluster if not replicas or c.replicas is None else f"{c.cluster}: {c.replicas}"
            for c in got.selected
        )
    )


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


def _divides(batch: Batch) -> bool:
    """Whether the batch holds a request whose replicas draw on the clusters' capacity."""
    return any(r.replicas is not None and not r.replicas.idle for r in batch.requests)


@dataclass(frozen=True, slots=True)
class Overcommit:
    """A cluster asked for more than it has free: per resource over (resource, asked, free), and
    the replicas that cannot run there."""

    cluster: str
    over: tuple[tuple[str, int, int], ...]
    cut: int


class _Charged:
    """One mode's answer charged against the clusters' free capacity as solver.replicas.joint's
    `charge` charges greedy's (what a request adds beyond what it holds on a cluster; requests
    placed as the user fixed them, whatever the capacity, first; then upstream's queue order:
    priority, then queue position), but replica by replica, since a workload's pods run where
    they fit and the rest stay pending: on each cluster the replicas that fit run, those that
    come after the room is gone cannot."""

    def __init__(self, batch: Batch, results: Sequence[RequestResult]) -> None:
        estimator = Estimator(batch.clusters)
        by_key = {r.request: r for r in results}
        requests = [r for r in batch.requests if r.replicas is not None and not r.replicas.idle]
        requests.sort(key=lambda r: (not _fixed(r), -r.replicas.priority, r.replicas.order))
        names = {c.name: i for i, c in enumerate(batch.clusters)}
        free = np.where(estimator.reports[:, None], estimator.free, 0)
        room = free.copy()
        asked: dict[int, dict[str, int]] = {}
        cut: dict[int, int] = {}
        self.cut: dict[str, dict[str, int]] = {}  # request -> cluster -> its replicas that cannot run
        for request in requests:
            got = by_key.get(request.key)
            if got is None:
                continue
            demand = {k: v for k, v in footprint(request.replicas).items() if v > 0}
            for cluster, adds in added(request, got) if demand else ():
                row = names.get(cluster)
                if row is None:
                    continue
                fits = adds
                for resource, amount in demand.items():
                    j = estimator.column.get(resource)
                    have = 0 if j is None else int(room[row, j])
                    fits = min(fits, max(have, 0) // amount)
                    asked.setdefault(row, {}).setdefault(resource, 0)
                    asked[row][resource] += adds * amount
                for resource, amount in demand.items():
                    j = estimator.column.get(resource)
                    if j is not None:
                        room[row, j] -= fits * amount
                if fits < adds:
                    cut[row] = cut.get(row, 0) + adds - fits
                    self.cut.setdefault(request.key, {})[cluster] = adds - fits
        self.clusters = [
            _overcommit(batch.clusters[row].name, asked[row], free[row], estimator.column, n)
            for row, n in sorted(cut.items(), key=lambda item: batch.clusters[item[0]].name)
        ]

    @property
    def replicas(self) -> int:
        """The replicas that cannot run, over every cluster."""
        return sum(c.cut for c in self.clusters)


def _overcommit(
    name: str, asked: Mapping[str, int], free: np.ndarray, column: Mapping[str, int], cut: int
) -> Overcommit:
    """The cluster's resources asked beyond what it has free (below 0 counts as none)."""
    over = []
    for resource, total in sorted(asked.items()):
        have = int(free[column[resource]]) if resource in column else 0
        if total > have:
            over.append((resource, total, max(have, 0)))
    return Overcommit(name, tuple(over), cut)


def _fixed(request: PlacementRequest) -> bool:
    """Placed as the user fixed it, whatever the capacity: the joint solve charges it first."""
    return request.replicas.division not in (Division.AVAILABLE, Division.AGGREGATED)


def added(request: PlacementRequest, got: RequestResult) -> list[tuple[str, int]]:
    """(cluster, replicas) the request's result adds beyond what it holds there (a request
    divided over every cluster runs one on each; a failed one keeps what it holds, adding
    nothing; one that runs none, nothing): what it asks of the clusters' free capacity."""
    if got.failure is not None or request.replicas is None or request.replicas.idle:
        return []
    held = _held(request)
    out = []
    for choice in got.selected:
        adds = (1 if choice.replicas is None else choice.replicas) - held.get(choice.cluster, 0)
        if adds > 0:
            out.append((choice.cluster, adds))
    return out


def _held(request: PlacementRequest) -> dict[str, int]:
    """What the request holds now, per cluster (a cluster listed twice: its first entry); a
    request divided over every cluster holds one on each."""
    every = request.replicas.division is Division.EVERY
    out: dict[str, int] = {}
    for name, n in request.replicas.current:
        out.setdefault(name, 1 if every else n)
    return out


Amount = Callable[[str, int], str]


def _amount(name: str) -> Amount:
    """How the system writes an amount of a resource (its table's `amount`), else the number."""
    found = facet(name, system(name).table.amount)
    return found if found is not None else (lambda resource, n: str(n))


def _over_text(c: Overcommit, amount: Amount) -> str:
    return ", ".join(f"{r} {amount(r, asked)} asked, {amount(r, free)} free" for r, asked, free in c.over)


class _Capacity:
    """A system's requests that divide replicas, each mode's answer charged (_Charged): what
    optimal gained, request by request."""

    def __init__(self, optimal: SystemOutcome, greedy: SystemOutcome) -> None:
        self.charged = (
            _Charged(optimal.batch, optimal.result.requests),
            _Charged(greedy.batch, greedy.result.requests),
        )
        self.amount = _amount(optimal.system)
        self.failures: Mapping[str, str] = system(optimal.system).table.failures
        self.over = {c.cluster: c for c in self.charged[1].clusters}

    def _over(self, cluster: str) -> str:
        resources = " and ".join(r for r, _, _ in self.over[cluster].over)
        return f"over-committed in {resources}"

    def _failure(self, got: RequestResult) -> str:
        return self.failures.get(got.failure, str(got.failure))

    def gains(self, request: PlacementRequest, got: RequestResult, was: RequestResult) -> tuple[str, ...]:
        replicas = request.replicas
        count = replicas.count
        gains: list[str] = []
        mine, theirs = (c.cut.get(request.key, {}) for c in self.charged)
        for cluster, n in sorted(theirs.items()):
            which = f"{n} of its {count} replicas" if n < count else f"all {count} of its replicas"
            if count == 1:
                which = "its replica"
            gains.append(f"{which} cannot run on greedy's {cluster} ({self._over(cluster)})")
        crowded = sorted({c.cluster for c in was.selected} & self.over.keys() - theirs.keys())
        for cluster in crowded:
            gains.append(
                f"greedy's {cluster} is {self._over(cluster)}; this request's replicas come first there"
            )
        if was.failure is not None and got.failure is None:
            gains.append(f"greedy leaves it {self._failure(was)}; optimal schedules it")
        elif got.failure is not None and was.failure is None:
            gains.append(
                f"optimal leaves it {self._failure(got)}: the others' replicas take the room it needs"
            )
        if got.failure is None and (theirs or crowded or was.failure is not None):
            if mine:
                gains.append(f"optimal: {sum(mine.values())} of its replicas cannot run either")
            else:
                gains.append("optimal: every replica fits its clusters' free capacity")
        moved = [_moved(request, r) for r in (got, was)]
        if moved[0] != moved[1]:
            gains.append(f"moves {counted(moved[0], 'replica')} off clusters it runs on (greedy {moved[1]})")
        if got.tier != was.tier:
            gains.append(f"affinity term {got.tier} (greedy {was.tier})")
        both = got.failure is None and was.failure is None
        if both and len(got.selected) != len(was.selected) and replicas.division is Division.AGGREGATED:
            gains.append(f"{counted(len(got.selected), 'cluster')} where greedy used {len(was.selected)}")
        if not gains:
            # Greedy's split is the division's own aim: a request optimal divides otherwise, with
            # nothing else to tell, pays for what the batch gains.
            gains.append("divided away from upstream's split (the division's aim): the batch's gain")
        return tuple(gains)


def _moved(request: PlacementRequest, got: RequestResult) -> int:
    """The replicas taken off clusters the request runs on now."""
    if got.failure is not None:
        return 0
    now = {c.cluster: 1 if c.replicas is None else c.replicas for c in got.selected}
    return sum(max(0, n - now.get(cluster, 0)) for cluster, n in _held(request).items())


def capacity_summary(optimal: Outcome, greedy: Outcome) -> str:
    """For each system with requests that divide replicas: the clusters each mode over-commits
    and the replicas that cannot run there, greedy's clusters one a line ("" where no system
    divides replicas)."""
    lines = []
    several = len(optimal.parts) > 1
    greedy_parts = {part.system: part for part in greedy.parts}
    for part in optimal.parts:
        other = greedy_parts.get(part.system)
        if other is None or not _divides(part.batch):
            continue
        capacity = _Capacity(part, other)
        mine, theirs = capacity.charged
        lead = f"{part.system}: " if several else ""
        said = "optimal: none"
        if mine.clusters:
            said = (
                f"optimal: {counted(len(mine.clusters), 'cluster')}, {counted(mine.replicas, 'replica')} "
                "(divisions that never read capacity: static weights, duplicated)"
            )
        line = f"{lead}greedy over-commits no cluster; {said}"
        if theirs.clusters:
            line = (
                f"{lead}greedy over-commits {counted(len(theirs.clusters), 'cluster')}; "
                f"{counted(theirs.replicas, 'replica')} cannot run; {said}"
            )
        failed = [sum(1 for r in p.result.requests if r.failure is not None) for p in (part, other)]
        if failed[0] != failed[1]:
            line += f"; {counted(failed[0], 'placement')} unscheduled (greedy {failed[1]})"
        lines.append(line)
        lines += [
            f"  {c.cluster}: {_over_text(c, capacity.amount)}; {counted(c.cut, 'replica')} cannot run"
            for c in theirs.clusters
        ]
    return "".join(line + "\n" for line in lines) + ("\n" if lines else "")


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
