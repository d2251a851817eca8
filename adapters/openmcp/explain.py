"""A ClusterRequest's explanation in the openMCP Cluster Scheduler's words: per Cluster, the
candidate rule that drops it (namespace by scope, the purpose's completed selector, the purpose
missing from spec.purposes, being deleted), whether a tenancy slot was left for the request
(request finalizers against tenancyCount), what the strategy preferred (Balanced: fewest requests,
then list order; Simple: list order; Random: the seeded draw) and the smallest change that would
make the cluster a candidate (a label, the purpose in spec.purposes, a higher tenancyCount)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.cli.words import Target, cell, counted, grid, label_changes
from adapters.kube.manifests import Manifest
from adapters.openmcp import names as n
from adapters.run.pipeline import SystemOutcome
from model import FilterKind, Packing
from solver.explain import ClusterExplanation, Explanation, Verdict

__all__ = ["document", "table"]

_STRATEGY = {Packing.FEWEST: n.BALANCED, Packing.FIRST: n.SIMPLE, Packing.RANDOM: n.RANDOM}
_PURPOSE = n.PURPOSE_TRAIT.format("")
_NAMESPACE = n.NAMESPACE_TRAIT.format("")


def document(
    target: Target,
    e: Explanation | None,
    part: SystemOutcome,
    owned: Sequence[Manifest],
    applied: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    (request,) = [
        m for m in owned if m.kind == n.REQUEST and m.name == target.name and m.namespace == target.namespace
    ]
    purpose = str((request.obj.get("spec") or {}).get("purpose", ""))
    out: dict[str, Any] = {"kind": n.REQUEST, "namespace": target.namespace, "name": target.name}
    out["purpose"] = purpose
    status = _status(applied, target) or (request.obj.get("status") or {})
    doc: dict[str, Any] = {"system": "openmcp", "request": out}
    if e is None:
        out["scheduled"] = False
        out["why"] = _unscheduled(request, purpose)
        out["status"] = status
        doc["clusters"] = []
        return doc
    tenancy = e.request.tenancy
    assert tenancy is not None
    out["mode"] = e.mode
    out["strategy"] = _STRATEGY[tenancy.packing]
    out["tenancy"] = n.EXCLUSIVE if tenancy.exclusive else n.SHARED
    out["tenancyCount"] = tenancy.limit
    out["granted"] = bool(e.request.existing)
    out["cluster"] = _cluster_ref(e.chosen[0]) if e.chosen else None
    created = [c for c in part.result.by_request()[e.request.key].selected if c.created]
    if created:
        out["creates" if not created[0].kept else "recreates"] = _cluster_ref(created[0].cluster)
    out["status"] = status
    doc["clusters"] = [_record(c, e, purpose) for c in e.clusters]
    return doc


def _cluster_ref(neutral: str) -> dict[str, str]:
    namespace, _, name = neutral.partition("/")
    return {"namespace": namespace, "name": name}


def _status(applied: Sequence[Mapping[str, Any]], target: Target) -> dict[str, Any]:
    for obj in applied:
        metadata = obj.get("metadata") or {}
        if (
            obj.get("kind") == n.REQUEST
            and metadata.get("name") == target.name
            and metadata.get("namespace") == target.namespace
        ):
            return dict(obj.get("status") or {})
    return {}


def _unscheduled(request: Manifest, purpose: str) -> str:
    metadata = request.obj.get("metadata") or {}
    if metadata.get("deletionTimestamp"):
        return "being deleted: its finalizers are taken off its clusters"
    if ((metadata.get("annotations") or {}).get(n.OPERATION)) == n.IGNORE:
        return f"annotated {n.OPERATION}: {n.IGNORE}"
    reference = (request.obj.get("status") or {}).get("cluster")
    if reference is not None and not (reference.get("name") and reference.get("namespace")):
        return "its status.cluster has an empty name or namespace: upstream cannot look it up (Pending)"
    return f"no cluster definition found for purpose {purpose!r} (no purposeMappings entry)"


_RESULTS = {
    Verdict.CHOSEN: "chosen",
    Verdict.KEPT: "granted",
    Verdict.FILTERED: "not a candidate",
    Verdict.NO_ROOM: "full",
    Verdict.EXCLUSIVE: "exclusive",
    Verdict.BELOW_CUT: "not chosen",
    Verdict.JOINT: "not chosen",
    Verdict.FULL: "not considered",
}


def _record(c: ClusterExplanation, e: Explanation, purpose: str) -> dict[str, Any]:
    namespace, _, name = c.cluster.partition("/")
    record: dict[str, Any] = {
        "cluster": c.cluster,
        "result": _RESULTS.get(c.verdict, c.verdict.value),
        "requests": c.tenants,
    }
    reasons, fixes = _why(c, e, purpose, namespace)
    if reasons:
        record["why"] = reasons
    if fixes:
        record["wouldLetIn"] = fixes
    if c.rank is not None:
        record["rank"] = c.rank
    return record


def _why(c: ClusterExplanation, e: Explanation, purpose: str, namespace: str) -> tuple[list[str], list[str]]:
    tenancy = e.request.tenancy
    assert tenancy is not None
    reasons: list[str] = []
    fixes: list[str] = []
    if c.verdict is Verdict.FILTERED:
        if FilterKind.INELIGIBLE in c.filters:
            reasons.append("being deleted (deletionTimestamp set)")
        fix = c.term_fix
        if FilterKind.AFFINITY in c.filters and fix is not None:
            for trait in fix.traits:
                if trait.startswith(_PURPOSE):
                    reasons.append(f"spec.purposes does not list {purpose!r}")
                    fixes.append(f"add {purpose!r} to spec.purposes")
                elif trait.startswith(_NAMESPACE):
                    wanted = trait[len(_NAMESPACE) :]
                    reasons.append(f"in namespace {namespace!r}; Namespaced scope lists {wanted!r} only")
            if fix.labels:
                reasons.append(f"labels do not match purpose {purpose!r}'s selector")
                changed, words = label_changes(fix.labels)
                del changed
                fixes += words
    elif c.verdict is Verdict.NO_ROOM:
        reasons.append(f"{counted(c.tenants, 'request')} of tenancyCount {c.limit} (request finalizers)")
        fixes.append(f"tenancyCount {c.tenants + 1} for purpose {purpose!r}, or fewer requests on it")
    elif c.verdict is Verdict.EXCLUSIVE:
        reasons.append("an Exclusive purpose never reuses a cluster: each request gets a new one")
    elif c.verdict is Verdict.BELOW_CUT:
        chosen = c.last_chosen or "a new cluster"
        if tenancy.packing is Packing.FEWEST:
            if c.gap:
                reasons.append(f"Balanced: {chosen} had {c.gap} fewer requests when its turn came")
            else:
                reasons.append(f"Balanced: as many requests as {chosen}, which comes first in list order")
        elif tenancy.packing is Packing.FIRST:
            reasons.append(f"Simple: {chosen} comes first in list order")
        else:
            reasons.append(f"Random: the seeded draw picked {chosen}")
    elif c.verdict is Verdict.JOINT:
        reasons.append(
            f"the joint answer placed the request on {c.last_chosen or 'a new cluster'} "
            "(fewest new clusters, then the strategy's aim over the whole batch)"
        )
    elif c.verdict is Verdict.FULL:
        reasons.append("the request is granted: it never moves")
    return reasons, fixes


def table(doc: dict[str, Any]) -> str:
    request = doc["request"]
    lines = [f"{n.REQUEST} {request['namespace']}/{request['name']} (purpose {request['purpose']})"]
    if "why" in request:
        lines.append(f"not scheduled: {request['why']}")
        return "\n".join(lines) + "\n"
    cluster = request.get("cluster")
    where = f"{cluster['namespace']}/{cluster['name']}" if cluster else "none (Pending)"
    made = request.get("creates") or request.get("recreates")
    # The run makes the cluster; the request may be the one it is made for or one that joins it.
    verb = "creates" if "creates" in request else "makes again"
    lines.append(
        f"mode {request['mode']}, strategy {request['strategy']}, tenancy {request['tenancy']}"
        f" (tenancyCount {request['tenancyCount']}): cluster {where}"
        + (f", which the run {verb}" if made else "")
    )
    rows = [("CLUSTER", "RESULT", "REQUESTS", "RANK", "WHY", "WOULD LET IN")]
    for record in doc["clusters"]:
        rows.append(
            (
                record["cluster"],
                record["result"],
                cell(record.get("requests")),
                cell(record.get("rank")),
                "; ".join(record.get("why", [])) or "-",
                "; ".join(record.get("wouldLetIn", [])) or "-",
            )
        )
    return "\n".join([*lines, *grid(rows)]) + "\n"
