"""A Placement's explanation in Open Cluster Management's words, shaped like upstream's debug
endpoint (/debug/placements/<ns>/<name>): the filter that dropped each cluster (the cluster sets,
then the Predicate and TaintToleration plugins), each prioritizer with its weight and raw score,
the total, and the smallest change that would let a cluster in (a ManagedClusterSetBinding, a
label or claim, a toleration, score points)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adapters.cli.words import Target, cell, flow, grid, label_changes, toleration
from adapters.kube.manifests import Manifest
from adapters.ocm import names as n
from adapters.ocm.load import cel_trait
from adapters.run.pipeline import SystemOutcome
from model import Cluster, FilterKind, Preference, SelectionMode, Taint
from solver.explain import ClusterExplanation, Explanation, Verdict

__all__ = ["document", "table"]

_SET = n.SET_TRAIT.format("")
_RESULTS = {
    Verdict.CHOSEN: "selected",
    Verdict.KEPT: "selected",
    Verdict.RELEASED: "released",
    Verdict.FILTERED: "filtered",
    Verdict.OUT_OF_SCOPE: "not in sets",
    Verdict.BELOW_CUT: "not selected",
    Verdict.SPREAD: "spread",
    Verdict.JOINT: "not selected",
    Verdict.FULL: "not selected",
    Verdict.NOT_LISTED: "not selected",
}
_PLUGINS = {
    FilterKind.SCOPE: "ClusterSets",
    FilterKind.AFFINITY: n.PREDICATE,
    FilterKind.TAINT: n.TAINT_TOLERATION,
}


def document(
    target: Target,
    e: Explanation | None,
    part: SystemOutcome,
    owned: Sequence[Manifest],
    applied: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    hub = _Hub(owned, target)
    placement: dict[str, Any] = {"kind": n.PLACEMENT, "namespace": target.namespace, "name": target.name}
    spec = hub.placement.obj.get("spec") or {}
    placement["numberOfClusters"] = spec.get("numberOfClusters")
    placement["prioritizerPolicy"] = ((spec.get("prioritizerPolicy") or {}).get("mode")) or n.ADDITIVE
    placement["clusterSets"] = {
        "bound": hub.bound,
        "requested": list(spec.get("clusterSets") or []),
        "eligible": hub.eligible(e),
    }
    doc: dict[str, Any] = {"system": "ocm", "placement": placement}
    status = _status(applied, target)
    if e is None:
        placement["scheduled"] = False
        placement["why"] = _unscheduled(hub.placement, status)
        placement["conditions"] = status
        doc["clusters"] = []
        return doc
    placement["mode"] = e.mode
    placement["selected"] = list(e.chosen)
    placement["released"] = list(e.released)
    placement["conditions"] = status
    balance = (
        "judged on the batch's final decisions"
        if e.mode == "optimal"
        else "as greedy saw it: the placements before this one with their new decisions, "
        "those after it with their old"
    )
    doc["prioritizers"] = [
        {
            "id": f"P{i + 1}",
            **_prioritizer(pref),
            "weight": pref.weight,
            **({"balance": balance} if pref.balance else {}),
        }
        for i, pref in enumerate(e.request.preferences)
    ]
    if e.request.spread:
        doc["spreadConstraints"] = [
            {
                "topologyKey": s.topology_key,
                "topologyKeyType": "Claim" if s.claims else "Label",
                "maxSkew": s.max_skew,
                "whenUnsatisfiable": "DoNotSchedule" if s.hard else "ScheduleAnyway",
            }
            for s in e.request.spread
        ]
    clusters = {c.name: c for c in part.batch.clusters}
    by_name = {c.cluster: c for c in e.clusters}
    doc["clusters"] = [_record(c, e, clusters[c.cluster], by_name, hub) for c in e.clusters]
    return doc


class _Hub:
    """What the renderer reads of the hub around the placement: its sets and CEL sources."""

    def __init__(self, owned: Sequence[Manifest], target: Target) -> None:
        (self.placement,) = [
            m
            for m in owned
            if m.kind == n.PLACEMENT and m.name == target.name and m.namespace == target.namespace
        ]
        self.namespace = target.namespace
        sets = {m.name: m for m in owned if m.kind == n.CLUSTER_SET}
        self.exclusive = sorted(
            name
            for name, m in sets.items()
            if ((m.obj.get("spec") or {}).get("clusterSelector") or {}).get("selectorType", n.EXCLUSIVE)
            in (n.EXCLUSIVE, "")
        )
        self.bound = sorted(
            {
                m.name
                for m in owned
                if m.kind == n.SET_BINDING and m.namespace == target.namespace and m.name in sets
            }
        )
        self.requested = list((self.placement.obj.get("spec") or {}).get("clusterSets") or [])
        # Context only: the scheduler reads spec.taints, never the condition behind the built-in ones.
        self.available = {m.name: _available(m) for m in owned if m.kind == n.MANAGED_CLUSTER}
        self.cel: dict[str, str] = {}
        for predicate in (self.placement.obj.get("spec") or {}).get("predicates") or []:
            selector = (predicate or {}).get("requiredClusterSelector") or {}
            for src in (selector.get("celSelector") or {}).get("celExpressions") or []:
                self.cel[cel_trait(src)] = src

    def eligible(self, e: Explanation | None) -> list[str]:
        if e is not None and e.request.scope is not None:
            return [t[len(_SET) :] for t in e.request.scope]
        if self.requested:
            return sorted(set(self.bound) & set(self.requested))
        return self.bound

    def scope_fix(self, c: ClusterExplanation) -> dict[str, Any] | None:
        """The fewest changes that bring the cluster into the placement's sets."""
        options = []
        for name in sorted(t[len(_SET) :] for t in c.traits if t.startswith(_SET)):
            steps = []
            if name not in self.bound:
                steps.append(
                    f"bind ManagedClusterSet {name} into namespace {self.namespace} "
                    f"(a ManagedClusterSetBinding {name})"
                )
            if self.requested and name not in self.requested:
                steps.append(f"add {name} to spec.clusterSets")
            options.append((len(steps), name, steps))
        if options:
            _, name, steps = min(options)
            return {"clusterSet": name, "change": "; ".join(steps)}
        eligible = [s for s in self.eligible(None) if s in self.exclusive]
        if eligible:
            label = f"{n.CLUSTERSET_LABEL}={eligible[0]}"
            return {
                "labels": {n.CLUSTERSET_LABEL: eligible[0]},
                "change": f"label the ManagedCluster {label}",
            }
        return None


def _available(cluster: Manifest) -> str:
    """The status of a ManagedCluster's Available condition, or "missing"."""
    for condition in (cluster.obj.get("status") or {}).get("conditions") or []:
        if isinstance(condition, Mapping) and condition.get("type") == n.AVAILABLE_CONDITION:
            return str(condition.get("status"))
    return "missing"


def _status(applied: Sequence[Mapping[str, Any]], target: Target) -> list[dict[str, Any]]:
    for obj in applied:
        metadata = obj.get("metadata") or {}
        if (
            obj.get("kind") == n.PLACEMENT
            and metadata.get("name") == target.name
            and metadata.get("namespace") == target.namespace
        ):
            return [
                {k: c.get(k) for k in ("type", "status", "reason", "message")}
                for c in (obj.get("status") or {}).get("conditions") or []
            ]
    return []


def _unscheduled(placement: Manifest, status: list[dict[str, Any]]) -> str:
    metadata = placement.obj.get("metadata") or {}
    if metadata.get("deletionTimestamp") is not None:
        return "the Placement is being deleted: the scheduler leaves it alone"
    if (metadata.get("annotations") or {}).get(n.DISABLE_ANNOTATION) == "true":
        return f"{n.DISABLE_ANNOTATION} is true: the scheduler leaves it alone"
    for c in status:
        if c["type"] == n.MISCONFIGURED and c["status"] == "True":
            return f"misconfigured ({c['message']}): no cluster is selected"
    return "not scheduled"


def _prioritizer(pref: Preference) -> dict[str, Any]:
    if pref.balance:
        return {"name": n.BALANCE}
    if pref.held:
        return {"name": n.STEADY}
    if pref.external is not None:
        _, resource, score = pref.external.split("/", 2)
        return {"name": n.ADD_ON, "resourceName": resource, "scoreName": score}
    resource = pref.sorter.name if pref.sorter is not None else ""
    for built_in, name in n.RESOURCES.items():
        if name == resource:
            return {"name": built_in}
    return {"name": resource}


def _prioritizer_text(p: Mapping[str, Any]) -> str:
    if p["name"] == n.ADD_ON:
        return f"AddOn {p['resourceName']}/{p['scoreName']}"
    return p["name"]


def _taint_text(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def _expired(t: Taint, e: Explanation) -> bool:
    """A toleration matches the taint but its tolerationSeconds have run out."""
    return any(replace(tol, seconds=None).tolerates(t) for tol in e.request.tolerations)


def _filter_reason(kind: FilterKind, c: ClusterExplanation, e: Explanation, hub: _Hub) -> str:
    if kind is FilterKind.SCOPE:
        sets = ", ".join(hub.eligible(e)) or "none"
        return f"not in the placement's cluster sets (eligible: {sets})"
    if kind is FilterKind.AFFINITY:
        return f"{n.PREDICATE}: the cluster matches none of the placement's predicates"
    if kind is FilterKind.INELIGIBLE:
        return c.detail
    said = []
    for t in c.taints:
        text = f"taint {_taint_text(t)} is not tolerated"
        if _expired(t, e):
            text += " (its toleration's tolerationSeconds have passed)"
        if t.key in n.REGISTRATION_TAINTS:
            state = hub.available.get(c.cluster, "missing")
            text += f" (hub registration's taint; the cluster's Available condition is {state})"
        said.append(text)
    return f"{n.TAINT_TOLERATION}: " + "; ".join(said)


def _record(
    c: ClusterExplanation,
    e: Explanation,
    cluster: Cluster,
    by_name: Mapping[str, ClusterExplanation],
    hub: _Hub,
) -> dict[str, Any]:
    request = e.request
    out: dict[str, Any] = {"cluster": c.cluster, "selected": c.chosen, "result": _RESULTS[c.verdict]}
    if c.filters:
        out["filter"] = {
            "plugin": _PLUGINS.get(c.filters[0], ""),
            "reason": _filter_reason(c.filters[0], c, e, hub),
        }
    out["rank"] = c.rank
    out["prioritizers"] = {
        f"P{p.index + 1}": {"weight": p.weight, "score": p.score, "points": p.points} for p in c.parts
    }
    out["total"] = c.score
    if request.spread:
        out["spreadScore"] = c.spread
    out["why"] = _why(c, e, by_name, hub)
    if c.verdict is Verdict.BELOW_CUT and c.last_chosen is not None:
        out["lastChosen"] = c.last_chosen
        out["gap"] = c.gap
    fix = _fix(c, e, cluster, hub)
    if fix is not None:
        out["fix"] = fix
    return out


def _why(c: ClusterExplanation, e: Explanation, by_name: Mapping[str, ClusterExplanation], hub: _Hub) -> str:
    request = e.request
    count = request.count
    verdict = c.verdict
    if verdict is Verdict.CHOSEN:
        if request.mode is SelectionMode.ALL:
            return "selected: numberOfClusters is not set, so every feasible cluster is"
        return f"selected: ranked {c.rank} of the feasible clusters, total score {c.score}"
    if verdict in (Verdict.FILTERED, Verdict.OUT_OF_SCOPE):
        said = _filter_reason(c.filters[0], c, e, hub)
        if len(c.filters) > 1:
            said += "; it also fails " + "; ".join(_filter_reason(k, c, e, hub) for k in c.filters[1:])
        return said
    if verdict is Verdict.BELOW_CUT:
        if c.last_chosen is None:
            return f"numberOfClusters ({count}) reached"
        last = by_name[c.last_chosen]
        tie = "; ties go to the smaller name" if c.score == last.score else ""
        return (
            f"numberOfClusters ({count}) reached: ranked {c.rank}, {c.gap} point(s) short of "
            f"{c.last_chosen}, the last selected (total {last.score}){tie}"
        )
    if verdict is Verdict.JOINT:
        return (
            f"numberOfClusters ({count}) reached: ranked {c.rank}, above {c.last_chosen} (the last selected) "
            f"on its own scores, but {_joint(request)}"
        )
    if verdict is Verdict.SPREAD and c.spread_block is not None:
        b = c.spread_block
        s = request.spread[b.constraint]
        when = "DoNotSchedule" if s.hard else "ScheduleAnyway"
        return (
            f'spread constraint "{s.topology_key}" (maxSkew {s.max_skew}, {when}): taking it would make '
            f"the skew {b.skew} (its domain {b.domain})"
        )
    if verdict is Verdict.FULL:
        return f"numberOfClusters is {count}"
    return ""


def _joint(request) -> str:
    if any(p.balance for p in request.preferences):
        return (
            "the batch's placements together score higher without it "
            "(Balance judged on every placement's final decisions)"
        )
    return "the best spread over the topology domains together is without it"


def _fix(c: ClusterExplanation, e: Explanation, cluster: Cluster, hub: _Hub) -> dict[str, Any] | None:
    request = e.request
    verdict = c.verdict
    out: dict[str, Any] = {}
    changes: list[str] = []
    if verdict is Verdict.OUT_OF_SCOPE:
        fix = hub.scope_fix(c)
        if fix is None:
            return None
        out["clusterSets"] = fix
        changes.append(fix["change"])
        if len(c.filters) > 1:
            return {**out, "change": changes[0] + "; then it must pass the filters too"}
    elif verdict is Verdict.FILTERED:
        if FilterKind.AFFINITY in c.filters:
            fix = c.term_fix
            if fix is None:
                return None
            term: dict[str, Any] = {"predicate": fix.term}
            words = []
            if fix.labels:
                term["labels"], said = label_changes(fix.labels)
                words.append("label the ManagedCluster " + ", ".join(said))
            if fix.claims:
                term["claims"], said = label_changes(fix.claims)
                words.append("ClusterClaims " + ", ".join(said).replace("remove ", "remove claim "))
            if fix.traits:
                term["celExpressions"] = [hub.cel.get(t, t) for t in fix.traits]
                words.append(
                    "it needs " + "; ".join(f"`{src}`" for src in term["celExpressions"]) + " to hold"
                )
            out["predicate"] = term
            changes.append(f"to match predicate {fix.term}: " + "; ".join(words))
        if FilterKind.TAINT in c.filters:
            tolerations = [toleration(t) for t in c.taints]
            out["tolerations"] = tolerations
            changes.append("add to spec.tolerations: " + ", ".join(flow(t) for t in tolerations))
    elif verdict is Verdict.BELOW_CUT and c.gap is not None:
        out["score"] = c.gap
        changes.append(f"{c.gap} more point(s) of total score")
    elif verdict is Verdict.SPREAD and c.spread_block is not None:
        b = c.spread_block
        key = request.spread[b.constraint].topology_key
        out["spreadConstraint"] = {"topologyKey": key, "maxSkew": b.skew}
        changes.append(f'maxSkew {b.skew} on the spread constraint "{key}"')
    elif verdict is Verdict.FULL:
        out["numberOfClusters"] = count = request.count + 1
        changes.append(f"numberOfClusters {count}")
    if not changes:
        return None
    out["change"] = "; ".join(changes)
    return out


def table(doc: dict[str, Any]) -> str:
    p = doc["placement"]
    count = p["numberOfClusters"]
    head = f"{p['kind']} {p['namespace']}/{p['name']}: numberOfClusters {'-' if count is None else count}"
    head += f", prioritizers {p['prioritizerPolicy']}"
    if "mode" in p:
        head += f"; mode {p['mode']}"
    sets = p["clusterSets"]
    lines = [
        head,
        f"cluster sets: {', '.join(sets['eligible']) or 'none'} (bound: {', '.join(sets['bound']) or 'none'}"
        + (f"; spec.clusterSets: {', '.join(sets['requested'])})" if sets["requested"] else ")"),
    ]
    if "selected" in p:
        lines.append(f"selected ({len(p['selected'])}): {', '.join(p['selected']) or '-'}")
        if p["released"]:
            lines.append(f"released: {', '.join(p['released'])}")
    for c in p["conditions"]:
        lines.append(f"{c['type']} {c['status']}, {c['reason']}: {c['message']}")
    if "why" in p:
        lines.append(p["why"])
        return "\n".join(lines) + "\n"
    prios = doc.get("prioritizers", [])
    for pr in prios:
        note = f"; Balance {pr['balance']}" if "balance" in pr else ""
        lines.append(f"{pr['id']}: {_prioritizer_text(pr)}, weight {pr['weight']}{note}")
    for sc in doc.get("spreadConstraints", []):
        lines.append(
            f'spread: "{sc["topologyKey"]}" ({sc["topologyKeyType"]}) '
            f"maxSkew {sc['maxSkew']} {sc['whenUnsatisfiable']}"
        )
    spread = "spreadConstraints" in doc
    header = [
        "CLUSTER",
        "RESULT",
        "FILTER",
        "RANK",
        *(f"{pr['id']} x{pr['weight']}" for pr in prios),
        "TOTAL",
    ]
    if spread:
        header.append("SPREAD")
    rows = [header]
    for r in doc["clusters"]:
        row = [r["cluster"], r["result"], r.get("filter", {}).get("plugin", "-"), cell(r["rank"])]
        row += [cell(r["prioritizers"][pr["id"]]["score"]) for pr in prios]
        row.append(cell(r["total"]))
        if spread:
            row.append(cell(r["spreadScore"]))
        rows.append(row)
    lines += ["", *grid(rows), ""]
    for r in doc["clusters"]:
        lines.append(f"{r['cluster']}: {r['why']}")
        if "fix" in r:
            lines.append(f"  fix: {r['fix']['change']}")
    return "\n".join(lines) + "\n"
