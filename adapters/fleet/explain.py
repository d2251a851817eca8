"""A ClusterResourcePlacement's explanation in KubeFleet's words: the reason strings its scheduler
writes (names.py), affinity and topology spread scores, each preferred term with its weight, and
the smallest change to the policy or the MemberCluster that would let a cluster in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.cli.words import Target, cell, flow, grid, label_changes, selector_text, toleration
from adapters.fleet import names as n
from adapters.run.pipeline import SystemOutcome
from model import (
    Cluster,
    FilterKind,
    PropertyRequirement,
    SelectionMode,
)
from solver.explain import ClusterExplanation, Explanation, TermFix, Verdict

__all__ = ["document", "table"]

_TYPES = {SelectionMode.ALL: "PickAll", SelectionMode.N: "PickN", SelectionMode.FIXED: "PickFixed"}
_RESULTS = {
    Verdict.CHOSEN: "selected",
    Verdict.KEPT: "kept",
    Verdict.RELEASED: "released",
    Verdict.FILTERED: "filtered",
    Verdict.OUT_OF_SCOPE: "filtered",
    Verdict.BELOW_CUT: "not picked",
    Verdict.SPREAD: "spread",
    Verdict.JOINT: "not picked",
    Verdict.FULL: "not needed",
    Verdict.NOT_LISTED: "not listed",
}


def document(
    target: Target, e: Explanation | None, part: SystemOutcome, owned: Sequence[Any], applied: Sequence[Any]
) -> dict[str, Any]:
    if e is None:  # the only ClusterResourcePlacement that is no request
        return _being_deleted(target, owned)
    request = e.request
    clusters = {c.name: c for c in part.batch.clusters}
    placement: dict[str, Any] = {
        "kind": n.PLACEMENT,
        "name": target.name,
        "placementType": _TYPES[request.mode],
    }
    if request.mode is SelectionMode.N:
        placement["numberOfClusters"] = request.count
    if request.mode is SelectionMode.FIXED:
        placement["clusterNames"] = list(request.cluster_names)
    placement["mode"] = e.mode
    placement["selected"] = list(e.chosen)
    placement["released"] = list(e.released)
    message = n.FULFILLED_MESSAGE if e.satisfied else n.UNFULFILLED_MESSAGE
    placement["scheduled"] = {
        "status": "True" if e.satisfied else "False",
        "reason": n.FULFILLED if e.satisfied else n.UNFULFILLED,
        "message": message.format(len(e.chosen)),
    }
    if e.missing:
        placement["notFound"] = [n.FIXED_NOT_FOUND.format(cluster=c) for c in e.missing]
    doc: dict[str, Any] = {"system": "fleet", "placement": placement}
    if request.preferences:
        doc["preferences"] = [_preference(i, p) for i, p in enumerate(request.preferences)]
    if request.spread:
        doc["topologySpreadConstraints"] = [
            {
                "topologyKey": s.topology_key,
                "maxSkew": s.max_skew,
                "whenUnsatisfiable": "DoNotSchedule" if s.hard else "ScheduleAnyway",
            }
            for s in request.spread
        ]
    by_name = {c.cluster: c for c in e.clusters}
    doc["clusters"] = [_record(c, e, clusters[c.cluster], by_name) for c in e.clusters]
    return doc


def _being_deleted(target: Target, owned: Sequence[Any]) -> dict[str, Any]:
    """A placement being deleted: no cycle runs for it; what the scheduler's clean-up does."""
    crp = next(m for m in owned if m.kind == n.PLACEMENT and m.name == target.name)
    bindings = sorted(
        m.name
        for m in owned
        if m.kind == n.BINDING and (m.obj["metadata"].get("labels") or {}).get(n.PARENT_LABEL) == target.name
    )
    if n.SCHEDULER_CLEANUP_FINALIZER in (crp.obj["metadata"].get("finalizers") or ()):
        cleanup = (
            f"the scheduler takes its finalizer off the placement's {len(bindings)} binding(s), deletes "
            "them, then takes its own finalizer off the placement"
        )
    else:
        cleanup = "it does not hold the scheduler's finalizer: the scheduler writes nothing for it"
    placement = {"kind": n.PLACEMENT, "name": target.name, "deleting": True, "cleanup": cleanup}
    return {"system": "fleet", "placement": placement, "bindings": bindings, "clusters": []}


def _preference(i: int, pref) -> dict[str, Any]:
    out: dict[str, Any] = {"id": f"P{i + 1}", "term": i, "weight": pref.weight}
    if pref.labels is not None:
        out["labelSelector"] = selector_text(pref.labels)
    if pref.sorter is not None:
        order = "Ascending" if pref.sorter.ascending else "Descending"
        out["propertySorter"] = {"name": pref.sorter.name, "sortOrder": order}
    return out


def _record(
    c: ClusterExplanation, e: Explanation, cluster: Cluster, by_name: Mapping[str, ClusterExplanation]
) -> dict[str, Any]:
    request = e.request
    scored = request.mode is SelectionMode.N
    out: dict[str, Any] = {
        "cluster": c.cluster,
        "selected": c.chosen,
        "result": _RESULTS[c.verdict],
        "reason": _reason(c, e),
    }
    if scored:
        out["rank"] = c.rank
        out["affinityScore"] = c.score
        out["topologySpreadScore"] = c.spread if request.spread else (0 if c.rank is not None else None)
        out["terms"] = {f"P{p.index + 1}": p.points for p in c.parts}
    why = _why(c, e, by_name)
    if why:
        out["keptOut"] = why
    if c.last_chosen is not None and c.verdict is Verdict.BELOW_CUT:
        out["lastChosen"] = c.last_chosen
        out["gap"] = c.gap
    fix = _fix(c, e, cluster)
    if fix is not None:
        out["fix"] = fix
    return out


def _filter_reason(kind: FilterKind, c: ClusterExplanation) -> str:
    if kind is FilterKind.AFFINITY:
        return n.AFFINITY_MISMATCH
    if kind is FilterKind.INELIGIBLE:
        return c.detail
    taint = c.taints[0]
    return n.TAINT_NOT_TOLERATED.format(key=taint.key, value=taint.value, effect=taint.effect)


def _reason(c: ClusterExplanation, e: Explanation) -> str:
    request = e.request
    spread = c.spread or 0
    verdict = c.verdict
    if verdict is Verdict.CHOSEN:
        if request.mode is SelectionMode.FIXED:
            return n.PICKED_FIXED.format(cluster=c.cluster)
        return n.PICKED_SCORED.format(cluster=c.cluster, affinity=c.score or 0, spread=spread)
    if verdict is Verdict.KEPT:
        return "ClusterAlreadySelected: it holds a binding of the current policy snapshot, kept as it is"
    if verdict is Verdict.RELEASED:
        return f"its binding is released: numberOfClusters is {request.count}, below the clusters held"
    if verdict is Verdict.FILTERED:
        if request.mode is SelectionMode.FIXED:
            return n.FIXED_INVALID.format(cluster=c.cluster, reason=c.detail)
        return f"{n.UNSCHEDULABLE}, {_filter_reason(c.filters[0], c)}"
    if verdict is Verdict.SPREAD and c.spread_block is not None and c.spread_block.hard:
        constraint = request.spread[c.spread_block.constraint]
        reason = n.SPREAD_VIOLATED.format(key=constraint.topology_key, skew=constraint.max_skew)
        return f"{n.UNSCHEDULABLE}, {reason}"
    if verdict in (Verdict.BELOW_CUT, Verdict.JOINT, Verdict.SPREAD):
        return n.NOT_PICKED.format(cluster=c.cluster, affinity=c.score or 0, spread=spread)
    if verdict is Verdict.FULL:
        return f"no scheduling needed: the placement already has the {request.count} cluster(s) it asks for"
    return "not in spec.policy.clusterNames"


def _why(c: ClusterExplanation, e: Explanation, by_name: Mapping[str, ClusterExplanation]) -> str:
    """What kept it out, beyond the reason string."""
    verdict = c.verdict
    request = e.request
    if verdict is Verdict.KEPT and c.filters:
        now = _filter_reason(c.filters[0], c)
        return f"current bindings are not re-evaluated; it would now be filtered: {now}"
    if verdict is Verdict.FILTERED and len(c.filters) > 1:
        return "it also fails: " + "; ".join(_filter_reason(k, c) for k in c.filters[1:])
    if verdict is Verdict.BELOW_CUT:
        if c.last_chosen is None:
            return f"ranked {c.rank}: numberOfClusters {request.count} reached by the clusters kept"
        last = by_name[c.last_chosen]
        points = "point" if c.gap == 1 else "points"
        return (
            f"ranked {c.rank}, below the cut: {c.gap} affinity {points} short of {c.last_chosen}, "
            f"the last selected (affinity score {last.score}, topology spread score {last.spread or 0})"
            + ("; ties go to the larger name" if c.gap and last.score == c.score else "")
        )
    if verdict is Verdict.JOINT:
        return (
            f"ranked {c.rank}, above {c.last_chosen} (the last selected), but the best spread over the "
            "topology domains together is without it"
        )
    if verdict is Verdict.SPREAD and c.spread_block is not None:
        b = c.spread_block
        constraint = request.spread[b.constraint]
        text = (
            f'taking it would make the skew over "{constraint.topology_key}" {b.skew} '
            f"(domain {b.domain}; maxSkew {b.max_skew})"
        )
        if not b.hard and c.last_chosen is not None:
            last = by_name[c.last_chosen]
            text += f"; its topology spread score {c.spread} is below {c.last_chosen}'s {last.spread}"
        return text
    if c.released and verdict is not Verdict.RELEASED:
        return "it held a binding of an older policy, released"
    return ""


def _fix(c: ClusterExplanation, e: Explanation, cluster: Cluster) -> dict[str, Any] | None:
    """The smallest change that would let it in, where one can be named."""
    request = e.request
    verdict = c.verdict
    changes: list[str] = []
    out: dict[str, Any] = {}
    if verdict is Verdict.FILTERED and request.mode is not SelectionMode.FIXED:
        if FilterKind.INELIGIBLE in c.filters:
            return None  # the member cluster itself must be connected and healthy again
        if FilterKind.AFFINITY in c.filters:
            if c.term_fix is None:
                return None
            term = term_fix(c.term_fix, cluster)
            out["clusterSelectorTerm"] = term
            changes.append(term["change"])
        if FilterKind.TAINT in c.filters:
            tolerations = [toleration(t) for t in c.taints]
            out["tolerations"] = tolerations
            changes.append("add to spec.policy.tolerations: " + ", ".join(flow(t) for t in tolerations))
    elif verdict is Verdict.BELOW_CUT and c.gap is not None:
        out["affinityScore"] = c.gap
        changes.append(f"{c.gap} more affinity points (a preferred term it matches)")
    elif verdict is Verdict.SPREAD and c.spread_block is not None:
        b = c.spread_block
        key = request.spread[b.constraint].topology_key
        out["topologySpreadConstraint"] = {"topologyKey": key, "maxSkew": b.skew}
        changes.append(f'maxSkew {b.skew} on the topology spread constraint "{key}"')
    elif verdict is Verdict.FULL:
        out["numberOfClusters"] = request.count + 1
        changes.append(f"numberOfClusters {request.count + 1}")
    elif verdict is Verdict.NOT_LISTED:
        out["clusterNames"] = [*request.cluster_names, c.cluster]
        changes.append(f"add {c.cluster} to spec.policy.clusterNames")
    if not changes:
        return None
    out["change"] = "; ".join(changes)
    return out


def property_text(r: PropertyRequirement, cluster: Cluster) -> str:
    have = cluster.properties.get(r.name)
    return f"{r.name} {r.operator.value} {r.value.text} (has {'none' if have is None else have.text})"


def term_fix(fix: TermFix, cluster: Cluster) -> dict[str, Any]:
    out: dict[str, Any] = {"term": fix.term}
    words = []
    if fix.labels:
        out["labels"], said = label_changes(fix.labels)
        words.append("label the MemberCluster " + ", ".join(said))
    if fix.properties:
        out["properties"] = [property_text(r, cluster) for r in fix.properties]
        words.append("it needs " + "; ".join(out["properties"]) + " (no label change can do that)")
    out["change"] = f"to match required term {fix.term}: " + "; ".join(words)
    return out


def table(doc: dict[str, Any]) -> str:
    p = doc["placement"]
    if p.get("deleting"):
        return f"{p['kind']} {p['name']}: being deleted, no scheduling cycle runs for it; {p['cleanup']}\n"
    head = f"{p['kind']} {p['name']}: {p['placementType']}"
    if "numberOfClusters" in p:
        head += f", numberOfClusters {p['numberOfClusters']}"
    lines = [f"{head}; mode {p['mode']}"]
    lines.append(f"selected ({len(p['selected'])}): {', '.join(p['selected']) or '-'}")
    if p["released"]:
        lines.append(f"released: {', '.join(p['released'])}")
    s = p["scheduled"]
    lines.append(f"Scheduled {s['status']}, {s['reason']}: {s['message']}")
    for missing in p.get("notFound", []):
        lines.append(missing)
    prefs = doc.get("preferences", [])
    for pref in prefs:
        what = [f"weight {pref['weight']}"]
        if "labelSelector" in pref:
            what.append(f"labels {pref['labelSelector']}")
        if "propertySorter" in pref:
            sorter = pref["propertySorter"]
            what.append(f"sort {sorter['name']} {sorter['sortOrder']}")
        lines.append(f"{pref['id']}: preferred term {pref['term']}, {', '.join(what)}")
    for sc in doc.get("topologySpreadConstraints", []):
        lines.append(
            f'topology spread: "{sc["topologyKey"]}" maxSkew {sc["maxSkew"]} {sc["whenUnsatisfiable"]}'
        )
    scored = p["placementType"] == "PickN"
    header = ["CLUSTER", "RESULT"]
    if scored:
        header += ["RANK", "AFFINITY", *(pref["id"] for pref in prefs), "SPREAD"]
    rows = [header]
    for r in doc["clusters"]:
        row = [r["cluster"], r["result"]]
        if scored:
            row += [cell(r["rank"]), cell(r["affinityScore"])]
            row += [cell(r["terms"].get(pref["id"])) for pref in prefs]
            row.append(cell(r["topologySpreadScore"]))
        rows.append(row)
    lines += ["", *grid(rows), ""]
    for r in doc["clusters"]:
        lines.append(f"{r['cluster']}: {r['reason']}")
        if "keptOut" in r:
            lines.append(f"  {r['keptOut']}")
        if "fix" in r:
            lines.append(f"  fix: {r['fix']['change']}")
    return "\n".join(lines) + "\n"
