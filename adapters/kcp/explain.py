"""A kcp placement's explanation in kcp's words: a Namespace (both generations) or a v0.8
Placement. Per unit (a namespace in one location; a Placement), what the scheduler did with it
(kept, moved within its location, placed afresh, revived) and per cluster of its location's
workspace the rule that keeps it out (evicting, not Ready, cordoned, outside the
location, already in the namespace's placement annotation) or what chose among the candidates
(greedy: upstream's random draw; optimal: the location's loads levelled).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.cli.words import Target, cell, grid
from adapters.kcp import names as n
from adapters.kcp import v05, v08
from adapters.kcp.load import KcpContext, load
from adapters.kcp.workspace import workspace_of
from adapters.kube.manifests import Manifest
from adapters.run.pipeline import SystemOutcome
from model import Batch, FilterKind, Result
from solver.explain import ClusterExplanation, Verdict, explain

__all__ = ["document", "table"]

_RESULTS = {
    Verdict.CHOSEN: "chosen",
    Verdict.KEPT: "kept",
    Verdict.RELEASED: "given up",
    Verdict.FILTERED: "not a candidate",
    Verdict.BELOW_CUT: "not drawn",
    Verdict.JOINT: "not chosen",
    Verdict.FULL: "not considered",
}
_KIND_WORDS = {
    v05.KEPT: "keeps its cluster",
    v05.RESCHEDULE: "its cluster is replaced in the same location",
    v05.NEW: "placed in a location drawn at random among those with a schedulable cluster",
    v05.REVIVE: "revives a cluster it was leaving, under this location",
}
_STATUS_WORDS = {
    v05.OUTSIDE: "its workspace is not under root: only the status reconciler runs",
    v05.DISABLED: "scheduling is disabled by its label: only the status reconciler runs",
    v05.UNBOUND: "no workload binding: upstream's removal patch is not valid JSON, nothing is written",
    v05.CRASHED: "a location's schedulable clusters are all in its annotation: upstream's draw panics",
}
_TAINTS = {
    n.NOT_READY_TAINT: "not Ready: takes no new namespace (keeps those it holds)",
    n.UNSCHEDULABLE_TAINT: "cordoned (spec.unschedulable): takes no new namespace (keeps those it holds)",
}


def document(
    target: Target,
    e: object,
    part: SystemOutcome,
    owned: Sequence[Manifest],
    applied: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    del e  # a kcp target may stand for several requests: explained here, unit by unit
    batch = part.batch
    assert batch.now is not None
    _, context = load(owned, now=batch.now, seed=batch.seed)
    written = _written(applied, target)
    doc: dict[str, Any] = {"system": "kcp", "generation": str(context.world.generation)}
    if target.kind == n.PLACEMENT:
        doc.update(_placement(context, target, batch, part.result, written))
    elif isinstance(context.plan, v05.Plan):
        doc.update(_namespace_v05(context, target, batch, part.result, written))
    else:
        doc.update(_namespace_v08(context, target, batch, part.result, written))
    return doc


def _written(applied: Sequence[Mapping[str, Any]], target: Target) -> Mapping[str, Any]:
    for obj in applied:
        if (
            obj.get("kind") == target.kind
            and (obj.get("metadata") or {}).get("name") == target.name
            and workspace_of(obj) == target.namespace
        ):
            return obj
    return {}


def _namespace_entry(entries: Sequence[Any], target: Target, absent: str) -> tuple[Any, dict[str, Any]]:
    """The plan's entry for the target namespace (None when it is not under placement, with
    `absent` as its status) and the explanation begun for it."""
    found = [
        e for e in entries if e.namespace.workspace == target.namespace and e.namespace.name == target.name
    ]
    out: dict[str, Any] = {"namespace": {"workspace": target.namespace, "name": target.name}}
    if not found:
        out["namespace"]["status"] = absent
        out["clusters"] = []
        return None, out
    (entry,) = found
    return entry, out


# -------------------------------------------------------------------------------------------- v0.5


def _namespace_v05(
    context: KcpContext, target: Target, batch: Batch, result: Result, written: Mapping[str, Any]
) -> dict[str, Any]:
    plan: v05.Plan = context.plan
    absent = "not under placement (no workload binding, placement annotation or disabled label)"
    p, out = _namespace_entry(plan.namespaces, target, absent)
    if p is None:
        return out
    out["namespace"]["status"] = p.status
    if p.status in _STATUS_WORDS:
        out["namespace"]["why"] = _STATUS_WORDS[p.status]
    if p.negotiation:
        out["namespace"]["negotiationWorkspace"] = p.negotiation
    before = p.namespace.annotations.get(n.PLACEMENT_ANNOTATION)
    after = ((written.get("metadata") or {}).get("annotations") or {}).get(n.PLACEMENT_ANNOTATION)
    out["placement"] = {"before": _as_map(before), "after": _as_map(after)}
    if p.parsed.invalid:
        out["placement"]["invalid"] = f"{p.parsed.invalid}: read as an empty map"
    if p.parsed.malformed:
        out["placement"]["malformed"] = sorted(p.parsed.malformed)  # dropped by a write
    out["condition"] = _condition(written, n.NAMESPACE_SCHEDULED)
    by_request = result.by_request()
    units, records = [], []
    for u in p.units:
        got = by_request[u.key]
        unit = {"location": u.location, "request": u.key, "action": _KIND_WORDS[u.kind]}
        if u.held is not None:
            unit["held"] = u.held.neutral
        unit["cluster"] = got.selected[0].cluster if got.selected else None
        if got.released:
            unit["released"] = list(got.released)
        units.append(unit)
        records += _records(batch, result, u.key, u.location, p.negotiation)
    if p.unchanged:
        units.append({"location": None, "action": "nothing to reschedule: the annotation stays as read"})
    if p.unplaced:
        units.append({"location": None, "action": "a location found no cluster to take", "cluster": None})
    out["units"] = units
    out["clusters"] = records
    return out


def _as_map(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


# -------------------------------------------------------------------------------------------- v0.8


def _placement(
    context: KcpContext, target: Target, batch: Batch, result: Result, written: Mapping[str, Any]
) -> dict[str, Any]:
    plan: v08.Plan = context.plan
    (pp,) = [pp for pp in plan.placements if pp.placement.key == target.key]
    status = written.get("status") or {}
    out: dict[str, Any] = {
        "placement": {
            "workspace": target.namespace,
            "name": target.name,
            "phase": pp.phase,
            "locationWorkspace": pp.placement.location_workspace,
            "validLocations": list(pp.valid_locations),
            "selectedLocation": status.get("selectedLocation"),
            "ready": _condition(written, n.READY),
            "syncTarget": ((written.get("metadata") or {}).get("annotations") or {}).get(
                n.SYNC_TARGET_ANNOTATION
            ),
            "namespaces": list(pp.namespaces),
        }
    }
    if pp.key is None:
        why = "no location selected: Controller B chooses no SyncTarget"
        if pp.failed:
            why = f"Controller B fails ({pp.failed}): the SyncTarget annotation stays as it is"
        out["placement"]["why"] = why
        out["clusters"] = []
        return out
    got = result.by_request()[pp.key]
    out["placement"]["cluster"] = got.selected[0].cluster if got.selected else None
    if got.released:
        out["placement"]["released"] = list(got.released)
    if pp.lost:
        out["placement"]["lost"] = f"the annotation named {pp.lost}, which no SyncTarget of the input has"
    assert pp.selected is not None
    out["clusters"] = _records(batch, result, pp.key, pp.selected[1], pp.selected[0])
    return out


def _namespace_v08(
    context: KcpContext, target: Target, batch: Batch, result: Result, written: Mapping[str, Any]
) -> dict[str, Any]:
    plan: v08.Plan = context.plan
    state, out = _namespace_entry(
        plan.namespaces, target, "not reconciled (blocklisted, no Placement beside it)"
    )
    if state is None:
        return out
    metadata = written.get("metadata") or {}
    out["namespace"]["marked"] = state.marked
    out["namespace"]["labels"] = {
        k: v for k, v in (metadata.get("labels") or {}).items() if k.startswith(n.STATE_LABEL)
    }
    out["namespace"]["removing"] = {
        k: v for k, v in (metadata.get("annotations") or {}).items() if k.startswith(n.DELETION_ANNOTATION)
    }
    by_request = result.by_request()
    out["placements"] = []
    records = []
    for pp in state.placements:
        got = by_request.get(pp.key) if pp.key else None
        cluster = got.selected[0].cluster if got and got.selected else None
        out["placements"].append({"name": pp.placement.name, "cluster": cluster})
        if pp.key is not None and pp.selected is not None:
            records += _records(batch, result, pp.key, pp.placement.name, pp.selected[0])
    out["clusters"] = records
    return out


# ----------------------------------------------------------------------------------------- records


def _records(batch: Batch, result: Result, key: str, unit: str, workspace: str) -> list[dict[str, Any]]:
    """The clusters of the location's workspace for one request."""
    e = explain(batch, result, key)
    clusters = {c.name: c for c in batch.clusters}
    trait = n.WORKSPACE_TRAIT.format(workspace)
    out = []
    for c in e.clusters:
        cluster = clusters[c.cluster]
        if trait not in cluster.traits:
            continue
        result_word, why = _why(c)
        record: dict[str, Any] = {
            "unit": unit,
            "cluster": c.cluster,
            "result": result_word,
            "load": c.tenants,
        }
        if why:
            record["why"] = why
        out.append(record)
    return out


def _why(c: ClusterExplanation) -> tuple[str, list[str]]:
    word = _RESULTS.get(c.verdict, c.verdict.value)
    why: list[str] = []
    if c.verdict in (Verdict.FILTERED, Verdict.RELEASED):
        if FilterKind.INELIGIBLE in c.filters:
            why.append(c.detail)
        why += [_TAINTS.get(t.key, t.key) for t in c.taints]
        fix = c.term_fix
        if FilterKind.AFFINITY in c.filters and fix is not None:
            for trait in fix.traits:
                workspace, _, location = trait.removeprefix("location:").partition("+")
                why.append(
                    f"not in location {location} of {workspace} (its instanceSelector does not select it)"
                )
            if fix.claims:
                why.append("already in the namespace's placement annotation")
        if c.verdict is Verdict.RELEASED:
            why.append("a forced move: the placement no longer holds there")
    elif c.verdict is Verdict.BELOW_CUT:
        why.append(f"upstream's random draw (seeded) picked {c.last_chosen}")
    elif c.verdict is Verdict.JOINT:
        why.append(f"optimal levelled the location's loads: {c.last_chosen} took it")
    elif c.verdict is Verdict.FULL:
        why.append("the placement keeps the cluster it holds: only forced moves")
    return word, why


def _condition(obj: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == kind:
            return {k: c[k] for k in ("status", "reason", "message") if k in c}
    return None


# ------------------------------------------------------------------------------------------- table


def table(doc: dict[str, Any]) -> str:
    lines = []
    if "placement" in doc and "name" in doc["placement"]:
        p = doc["placement"]
        where = p.get("selectedLocation") or {}
        location = f"{where.get('locationName')} of {where.get('path')}" if where else "none"
        lines.append(f"Placement {p['workspace']}|{p['name']} ({doc['generation']}): phase {p['phase']}")
        lines.append(f"location {location}; SyncTarget {p.get('cluster') or 'none'}")
        if p.get("released"):
            lines.append(f"moved off {', '.join(p['released'])}")
    else:
        ns = doc["namespace"]
        status = f": {ns['status']}" if ns.get("status") else ""
        why = f" ({ns['why']})" if ns.get("why") else ""
        lines.append(f"Namespace {ns['workspace']}|{ns['name']} ({doc['generation']}){status}{why}")
        for unit in doc.get("units", []):
            where = unit.get("location") or "-"
            lines.append(f"  {where}: {unit['action']} -> {unit.get('cluster') or 'none'}")
        for p in doc.get("placements", []):
            lines.append(f"  Placement {p['name']} -> {p.get('cluster') or 'none'}")
    rows = [("UNIT", "CLUSTER", "RESULT", "LOAD", "WHY")]
    for record in doc["clusters"]:
        rows.append(
            (
                record["unit"],
                record["cluster"],
                record["result"],
                cell(record.get("load")),
                "; ".join(record.get("why", [])) or "-",
            )
        )
    return "\n".join([*lines, *grid(rows)]) + "\n"
