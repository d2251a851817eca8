"""A binding's explanation in Karmada's words: why the scheduler looked at it (or not), its
division, its Scheduled condition, and per cluster the first filter that drops it in upstream's
words (names.FILTERS' order), the replicas the general estimator finds room for, the replicas the
run gave it and those it held before."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.cli.words import Target, cell, grid
from adapters.karmada.filters import reason
from adapters.kube.manifests import Manifest
from adapters.run.pipeline import SystemOutcome
from solver.replicas.estimate import Estimator, available_replicas

__all__ = ["document", "table"]


def document(
    target: Target,
    e: Any,
    part: SystemOutcome,
    owned: Sequence[Manifest],
    applied: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    binding: dict[str, Any] = {"kind": target.kind, "namespace": target.namespace, "name": target.name}
    doc: dict[str, Any] = {"system": "karmada", "binding": binding}
    written = _written(applied, target)
    binding["conditions"] = [
        {k: c.get(k) for k in ("type", "status", "reason", "message")}
        for c in (written.get("status") or {}).get("conditions") or []
    ]
    binding["clusters"] = list((written.get("spec") or {}).get("clusters") or [])
    requests = {r.key: r for r in part.batch.requests}
    request = requests.get(target.key)
    if request is None:
        binding["scheduled"] = False
        binding["why"] = "not scheduled in this run: the scheduler looks at it only to record its generation"
        doc["clusters"] = []
        return doc
    replicas = request.replicas
    got = part.result.by_request()[target.key]
    binding["scheduled"] = True
    binding["replicas"] = replicas.count
    binding["division"] = str(replicas.division)
    if replicas.tiers:
        binding["affinityTerm"] = got.tier or replicas.tiers[replicas.tier].name
    available = available_replicas(Estimator(part.batch.clusters), replicas)
    assigned = {c.cluster: c.replicas for c in got.selected}
    held = dict(replicas.current)
    tier = next((i for i, t in enumerate(replicas.tiers) if t.name == got.tier), replicas.tier)
    rows = []
    for i, c in enumerate(part.batch.clusters):
        row: dict[str, Any] = {"cluster": c.name}
        if c.leaving:
            row["filter"] = "being deleted: never a candidate"
        elif (said := reason(c, request, tier)) is not None:
            row["filter"] = said
        row["available"] = int(available[i])
        row["held"] = held.get(c.name, 0)
        row["assigned"] = assigned.get(c.name, 0) if c.name in assigned else None
        rows.append(row)
    doc["clusters"] = rows
    return doc


def _written(applied: Sequence[Mapping[str, Any]], target: Target) -> Mapping[str, Any]:
    for obj in applied:
        metadata = obj.get("metadata") or {}
        if (
            obj.get("kind") == target.kind
            and metadata.get("name") == target.name
            and (metadata.get("namespace") or "") == target.namespace
        ):
            return obj
    return {}


def table(doc: dict[str, Any]) -> str:
    b = doc["binding"]
    head = f"{b['kind']} {b['namespace'] + '/' if b['namespace'] else ''}{b['name']}"
    lines = [head]
    if "division" in b:
        lines.append(f"replicas {b['replicas']}, division {b['division']}")
    if "affinityTerm" in b:
        lines.append(f"affinity term: {b['affinityTerm']}")
    for c in b["conditions"]:
        lines.append(f"{c['type']} {c['status']}, {c['reason']}: {c['message']}")
    if "why" in b:
        return "\n".join([*lines, b["why"]]) + "\n"
    rows = [["CLUSTER", "AVAILABLE", "HELD", "ASSIGNED", "FILTER"]]
    for r in doc["clusters"]:
        assigned = "-" if r["assigned"] is None else cell(r["assigned"])
        rows.append([r["cluster"], cell(r["available"]), cell(r["held"]), assigned, r.get("filter", "-")])
    return "\n".join([*lines, "", *grid(rows)]) + "\n"
