"""openMCP in the benchmarks: the generated hub's config and what a plan did to the hub.

    objects = generate("openmcp", 300, 1250, seed=0)     # 1,000 pending ClusterRequests
    document = config(300, 1250, 0)                      # the scheduler config made for it
    outcome = schedule(objects, now=NOW, options=options, config=document)
    created(objects, outcome), granted(objects, outcome)

The figure that matters for openMCP is how many new Clusters a plan makes: each is a cluster a
ClusterProvider has to build and someone pays for. Optimal mode minimises it first (after the
requests it leaves waiting); greedy is upstream's one-at-a-time queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from adapters.generate.common import DEFAULT_NOW
from adapters.openmcp import names as n
from adapters.openmcp.generate import generate_config

__all__ = ["NOW", "config", "created", "created_by_tenancy", "granted", "new_clusters", "pending"]

NOW = datetime.fromisoformat(DEFAULT_NOW)
MANUAL = ("openmcp.cloud/scheduler", "manual")  # the generated request selector leaves these out


def config(clusters: int, placements: int, seed: int) -> dict[str, Any]:
    """The scheduler config the generated hub of this size is made for."""
    return generate_config(clusters, placements, seed=seed)


def _key(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = obj["metadata"]
    return meta.get("namespace") or "", meta.get("name") or ""


def new_clusters(objects: Iterable[Mapping[str, Any]], outcome: Any) -> list[Mapping[str, Any]]:
    """Clusters the plan makes: applied Clusters that are not in the hub (new ones, some named
    from generateName, and lost ones made again)."""
    existing = {_key(o) for o in objects if o["kind"] == n.CLUSTER}
    return [o for o in outcome.apply if o["kind"] == n.CLUSTER and _key(o) not in existing]


def created(objects: Iterable[Mapping[str, Any]], outcome: Any) -> int:
    """How many clusters the plan makes (:func:`new_clusters`)."""
    return len(new_clusters(objects, outcome))


def created_by_tenancy(objects: Iterable[Mapping[str, Any]], outcome: Any) -> tuple[int, int]:
    """(Exclusive, Shared) clusters the plan makes: one per Exclusive request in every mode; the
    Shared ones are where modes differ."""
    new = new_clusters(objects, outcome)
    exclusive = sum((o.get("spec") or {}).get("tenancy") == n.EXCLUSIVE for o in new)
    return exclusive, len(new) - exclusive


def pending(objects: Iterable[Mapping[str, Any]]) -> int:
    """ClusterRequests waiting for a cluster that the scheduler reconciles: no status.cluster, not
    being deleted, not ignored, admitted by the generated request selector."""
    return sum(
        1
        for o in objects
        if o["kind"] == n.REQUEST
        and "cluster" not in (o.get("status") or {})
        and "deletionTimestamp" not in o["metadata"]
        and (o["metadata"].get("annotations") or {}).get(n.OPERATION) != n.IGNORE
        and (o["metadata"].get("labels") or {}).get(MANUAL[0]) != MANUAL[1]
    )


def granted(objects: Iterable[Mapping[str, Any]], outcome: Any) -> tuple[int, int]:
    """(requests the plan grants that had no cluster before, of those the ones on a cluster that
    already exists)."""
    objects = list(objects)
    before = {_key(o) for o in objects if o["kind"] == n.REQUEST and "cluster" in (o.get("status") or {})}
    existing = {_key(o) for o in objects if o["kind"] == n.CLUSTER}
    total = on_existing = 0
    for o in outcome.apply:
        status = o.get("status") or {}
        if o["kind"] != n.REQUEST or status.get("phase") != n.GRANTED or _key(o) in before:
            continue
        total += 1
        target = status.get("cluster") or {}
        on_existing += (target.get("namespace") or "", target.get("name") or "") in existing
    return total, on_existing
