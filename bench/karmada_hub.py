"""Karmada in the benchmarks: what a plan asks of the clusters' free capacity.

    objects = generate("karmada", 1_000, 10_000, seed=0)   # bindings asking for 75% of the free cpu
    outcome = schedule(objects, now=NOW, options=options)
    overcommit(outcome)      # (over-committed clusters, replicas they cannot run)

The figure that matters for Karmada is over-commit: upstream decides one binding at a time against
the same resourceSummary, so greedy (upstream) can place more replicas on a cluster than it has
room for; those replicas stay Pending in the member cluster. Optimal mode never over-commits.
Counted as issue 19 counts it: the replicas each binding adds beyond what it holds on a cluster are
charged to that cluster's free room in upstream's queue order (schedulePriority descending, then the
queue position), and what does not fit is what the cluster cannot run. The room is the summary's
(free per resource and pods); a cluster that reports node classes may hold fewer, so this is a
lower bound there.

From the shell, the figures of a command's output on a hub (issue 19's "Figures"):

    python -m bench.karmada_hub HUB.yaml OUT.yaml [--plan PLAN.json]

the hub's bindings by division kind and the share of the fleet's free cpu they ask; on the
output, the bindings fully scheduled (their Scheduled condition True) and the over-committed
clusters with the replicas they cannot run (in queue order), those the capacity-blind divisions
(static weights, duplicated, every cluster; and steady bindings that hold their count, which
optimal mode keeps at greedy's answer) over-commit alone, and those over-committed when
these are charged first (optimal mode's rule: none there); with `--plan` (the summary of `-o plan` of the same
run), the proven bound of the first level (the flexible bindings that can be fully scheduled).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from adapters.generate.common import DEFAULT_NOW
from model import Batch, Division, PlacementRequest, Result
from solver.replicas.estimate import footprint

__all__ = ["NOW", "charged", "figures", "note", "overcommit"]

NOW = datetime.fromisoformat(DEFAULT_NOW)
BLIND = (Division.WEIGHTED, Division.DUPLICATED, Division.EVERY)  # divisions placed capacity-blind


def overcommit(batch: Batch, result: Result) -> tuple[int, int]:
    """(clusters over-committed, replicas that do not fit) of `result`, charged in queue order."""
    answers = result.by_request()
    placed = {}
    for key, answer in answers.items():
        placed[key] = [(c.cluster, c.replicas or 0) for c in answer.selected]
    return charged(batch, placed)


def charged(
    batch: Batch,
    placed: Mapping[str, Sequence[tuple[str, int]]],
    *,
    blind_first: bool = False,
    cut: set[str] | None = None,
) -> tuple[int, int]:
    """(clusters over-committed, replicas that do not fit) of `placed` (request key -> the
    clusters and replicas it is given), charged in queue order; `blind_first`: the divisions
    that do not read capacity (static weights, duplicated, every cluster: placed as the user
    asked, whatever the room; and steady requests that hold their count) first, as optimal mode
    counts them, and only the others' replicas
    that do not fit counted; `cut` gathers the keys of the requests some of whose replicas do
    not fit."""
    room = {c.name: dict(c.capacity.free) for c in batch.clusters if c.capacity is not None}
    requests = [r for r in batch.requests if r.replicas is not None and not r.replicas.unlimited]
    later = (lambda r: not _blind(r)) if blind_first else (lambda r: False)
    requests.sort(key=lambda r: (later(r), -r.replicas.priority, r.replicas.order))
    short: dict[str, int] = defaultdict(int)
    for request in requests:
        replicas = request.replicas
        whole = _whole_set(request)  # a set of parts counts one on each cluster it runs on
        held = {name: 1 if whole else n for name, n in replicas.current}
        demand = footprint(replicas)
        for cluster, n in placed.get(request.key, ()):
            added = (1 if whole else n) - held.get(cluster, 0)
            if added <= 0:
                continue
            free = room.get(cluster, {})
            fits = min(
                (free.get(resource, 0) // amount for resource, amount in demand.items() if amount),
                default=added,
            )
            fits = max(0, min(added, fits))
            for resource, amount in demand.items():
                free[resource] = free.get(resource, 0) - fits * amount
            if fits < added and not (blind_first and not later(request)):
                short[cluster] += added - fits
                if cut is not None:
                    cut.add(request.key)
    return len(short), sum(short.values())


def _blind(request: PlacementRequest) -> bool:
    """Placed whatever the room, in optimal mode too: a capacity-blind division, or a steady
    request holding its count or more (fixed at greedy's answer, solver.replicas.capacity)."""
    replicas = request.replicas
    if _whole_set(request):
        return not replicas.spread_by_room
    steady_full = not replicas.fresh and sum(n for _, n in replicas.current) >= replicas.count
    return replicas.division in BLIND or steady_full


def _whole_set(request: PlacementRequest) -> bool:
    """A set of parts run whole (no replica count: one set on each cluster it is given)."""
    return bool(request.replicas.parts) and request.replicas.division is Division.EVERY


def blind_overcommit(batch: Batch, placed: Mapping[str, Sequence[tuple[str, int]]]) -> int:
    """Clusters the capacity-blind divisions alone over-commit (as the user asked: no mode may
    place them otherwise)."""
    blind = {r.key for r in batch.requests if r.replicas is not None and _blind(r)}
    return charged(batch, {k: v for k, v in placed.items() if k in blind})[0]


def note(objects: Any, outcome: Any) -> str:
    """The row's note: the plan's over-commit (:func:`overcommit`) over every system it solved."""
    clusters = replicas = 0
    for part in outcome.parts:
        over = overcommit(part.batch, part.result)
        clusters, replicas = clusters + over[0], replicas + over[1]
    return f"over-committed clusters {clusters}, replicas that cannot run {replicas}"


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]


def _scheduled(obj: Mapping[str, Any]) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Scheduled" and c.get("status") == "True" for c in conditions)


def figures(hub: str, output: str, plan: str | None = None) -> dict[str, Any]:
    """The figures of `output` (the command's YAML or JSON) scheduled from `hub` (a file)."""
    from adapters.karmada import names as n
    from adapters.karmada.load import load
    from adapters.kube.manifests import read_sources

    batch, _ = load(read_sources([hub]), now=NOW)
    requests = [r for r in batch.requests if r.replicas is not None]
    keys = {r.key for r in requests}
    written = [m.obj for m in read_sources([output]) if m.obj["kind"] in n.BINDINGS]
    placed = {
        _key(o): [(c["name"], c.get("replicas", 0)) for c in (o.get("spec") or {}).get("clusters") or ()]
        for o in written
    }
    clusters, replicas = charged(batch, placed)
    cut: set[str] = set()
    beyond = charged(batch, placed, blind_first=True, cut=cut)
    free = sum(c.capacity.free.get("cpu", 0) for c in batch.clusters if c.capacity is not None)
    asked = sum(
        (1 if _whole_set(r) else r.replicas.count) * footprint(r.replicas).get("cpu", 0)
        for r in requests
        if not r.replicas.unlimited
    )
    out: dict[str, Any] = {
        "clusters": len(batch.clusters),
        "bindings": len(requests),
        "division": dict(sorted(Counter(r.replicas.division.name for r in requests).items())),
        "cpu_asked_of_free": round(asked / max(1, free), 4),
        "fully_scheduled": sum(1 for o in written if _key(o) in keys and _scheduled(o)),
        # fully scheduled and every replica it adds fits, charged as `beyond` (issue 19's "greedy
        # charged": a binding that does not fit where it was put counts as unscheduled)
        "fully_scheduled_and_fitting": sum(
            1 for o in written if _key(o) in keys and _scheduled(o) and _key(o) not in cut
        ),
        "overcommitted_clusters": clusters,
        "replicas_that_cannot_run": replicas,
        "overcommitted_by_capacity_blind_alone": blind_overcommit(batch, placed),
        "overcommitted_beyond_capacity_blind": beyond[0],
        "replicas_beyond_capacity_blind_that_cannot_run": beyond[1],
    }
    out["fully_scheduled_share"] = round(out["fully_scheduled"] / max(1, len(requests)), 4)
    if plan is not None:
        import json

        with open(plan, encoding="utf-8") as f:
            summary = json.load(f)["summary"]
        out |= {k: summary[k] for k in ("status", "objective", "bound", "gap", "time_limited")}
    return out


def main(argv: Sequence[str] | None = None) -> None:
    import argparse
    import json

    parser = argparse.ArgumentParser(description=figures.__doc__)
    parser.add_argument("hub")
    parser.add_argument("output")
    parser.add_argument("--plan", help="the JSON of `-o plan` of the same run (its summary's bound)")
    args = parser.parse_args(argv)
    print(json.dumps(figures(args.hub, args.output, args.plan), indent=2))


if __name__ == "__main__":
    main()
