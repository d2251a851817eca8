"""A binding's explanation in Karmada's words: why the scheduler looked at it (or not), its
division, its Scheduled condition, and per cluster:

- the first filter that drops it, in upstream's words (names.FILTERS' order);
- AVAILABLE: the replicas the general estimator finds room for on the snapshot (what upstream
  divides by), and TAKEN: how many of them the batch's other bindings take in this run (what they
  add beyond what they hold there);
- HELD and ASSIGNED: the replicas it held and those the run gives it (`all` where a binding
  divided over every cluster is placed whole);
- what would let more replicas in: on a candidate, the replicas still room for once the whole
  batch has taken its share (this binding's own included), the resource that runs out first and
  how much more of it one more replica needs past them (a node with room,
  where the cluster's resource models bind; a resourceSummary, where it reports none); on a
  filtered cluster, each change that would admit it: the API it must serve, the toleration of
  each untolerated taint, the labels, clusterNames, exclude or fields of the affinity term
  nearest to matching, the spread field it must report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adapters.cli.difference import added
from adapters.cli.words import Target, cell, flow, grid, label_changes, toleration
from adapters.karmada import names as n
from adapters.karmada.bindings import Binding, read_binding
from adapters.karmada.clusters import amount_text
from adapters.karmada.filters import reason
from adapters.karmada.placement import Affinity, ClusterFacts, field_matches
from adapters.kube.manifests import Manifest
from adapters.run.pipeline import SystemOutcome
from model import Cluster, NodeClass, PlacementRequest, first_untolerated
from solver.explain import selector_changes
from solver.replicas.estimate import Estimator, available_replicas, footprint, node_bound

__all__ = ["document", "table"]

_SPEC_FIELD = {n.PROVIDER: "spec.provider", n.REGION: "spec.region", n.ZONE: "spec.zones"}


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
    clusters = part.batch.clusters
    available = available_replicas(Estimator(clusters), replicas)
    left = available_replicas(Estimator(_after(part, request, own=False)), replicas)
    after = _after(part, request, own=True)
    more = available_replicas(Estimator(after), replicas)
    assigned = {c.cluster: c.replicas for c in got.selected}
    held = dict(replicas.current)
    tier = next((i for i, t in enumerate(replicas.tiers) if t.name == got.tier), replicas.tier)
    b = _binding(owned, target)
    rows = []
    for i, c in enumerate(clusters):
        row: dict[str, Any] = {"cluster": c.name}
        said = "being deleted: never a candidate" if c.leaving else reason(c, request, tier)
        if said is not None:
            row["filter"] = said
        row["available"] = int(available[i])
        row["taken"] = max(0, int(available[i]) - int(left[i]))
        row["held"] = held.get(c.name, 0)
        row["assigned"] = None
        if c.name in assigned:
            row["assigned"] = "all" if assigned[c.name] is None else assigned[c.name]
        if said is not None:
            row["admittedBy"] = _admitted_by(c, request, b, tier)
        elif not replicas.idle and any(v > 0 for v in footprint(replicas).values()):
            row["room"] = int(more[i])
            row["oneMoreNeeds"] = _one_more(after[i], footprint(replicas), int(more[i]))
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


def _binding(owned: Sequence[Manifest], target: Target) -> Binding:
    (m,) = [
        m
        for m in owned
        if m.kind == target.kind and m.name == target.name and m.namespace == target.namespace
    ]
    return read_binding(m)


def _after(part: SystemOutcome, request: PlacementRequest, *, own: bool) -> list[Cluster]:
    """The clusters with what the batch's other bindings (and, with `own`, this one) add in this
    run taken off their free capacity (below 0 where they over-commit it) and off their resource
    models' nodes."""
    take: dict[str, list[tuple[Mapping[str, int], int]]] = {}
    results = part.result.by_request()
    for other in part.batch.requests:
        if (other.key == request.key and not own) or other.replicas is None or other.replicas.idle:
            continue
        got = results.get(other.key)
        for cluster, adds in added(other, got) if got is not None else ():
            take.setdefault(cluster, []).append((footprint(other.replicas), adds))
    out = []
    for c in part.batch.clusters:
        if c.capacity is None or c.name not in take:
            out.append(c)
            continue
        free = dict(c.capacity.free)
        nodes = list(c.capacity.nodes)
        for demand, adds in take[c.name]:
            for resource, amount in demand.items():
                free[resource] = free.get(resource, 0) - adds * amount
            nodes = _placed_on_nodes(nodes, demand, adds)
        out.append(replace(c, capacity=replace(c.capacity, free=free, nodes=tuple(nodes))))
    return out


def _placed_on_nodes(nodes: list[NodeClass], demand: Mapping[str, int], count: int) -> list[NodeClass]:
    """The node classes once `count` replicas of `demand` are placed first fit, each node filled
    as far as it holds them (as the estimator counts them); replicas no node holds are left out."""
    wanted = {r: d for r, d in demand.items() if d > 0}
    out = []
    for node in nodes:
        each = min((node.capacity.get(r, 0) // d for r, d in wanted.items()), default=0)
        if count <= 0 or each <= 0:
            out.append(node)
            continue
        full, rest = divmod(min(count, each * node.count), each)
        count -= full * each + rest

        def less(k: int, node: NodeClass = node) -> dict[str, int]:
            return {r: a - k * wanted.get(r, 0) for r, a in node.capacity.items()}

        out += [NodeClass(full, less(each))] if full else []
        out += [NodeClass(1, less(rest))] if rest else []
        if node.count - full - (1 if rest else 0):
            out.append(NodeClass(node.count - full - (1 if rest else 0), node.capacity))
    return [node for node in out if node.count]


def _one_more(c: Cluster, demand: Mapping[str, int], left: int) -> dict[str, str]:
    """What one more replica than the `left` the run leaves room for needs on the cluster: per
    resource that runs out, how much more of it."""
    if c.capacity is None:
        return {"resourceSummary": "none reported: the estimator finds room for nothing"}
    wanted = {r: d for r, d in demand.items() if d > 0}
    short = {r: (left + 1) * d - c.capacity.free.get(r, 0) for r, d in wanted.items()}
    short = {r: more for r, more in short.items() if more > 0}
    if not short and c.capacity.nodes:
        key = tuple(sorted(wanted.items()))
        if node_bound(c.capacity, key) <= left:
            return {"nodes": f"a node with {flow(_amounts(wanted))} free"}
    return _amounts(short)


def _amounts(amounts: Mapping[str, int]) -> dict[str, str]:
    return {r: amount_text(r, amount) for r, amount in sorted(amounts.items())}


def _admitted_by(c: Cluster, request: PlacementRequest, b: Binding, tier: int) -> list[str]:
    """Every change that would let the binding pass the cluster's filters."""
    if c.leaving:
        return ["nothing: it is being deleted"]
    replicas = request.replicas
    held = any(e.cluster == c.name for e in request.existing)
    out = []
    if replicas.needs and replicas.needs not in c.traits and not held:
        resource = (b.manifest.obj.get("spec") or {}).get("resource") or {}
        out.append(f"serving the API {resource.get('apiVersion')} {resource.get('kind')}")
    for taint in c.taints:
        if first_untolerated((taint,), request.tolerations, held=held) is not None:
            out.append(f"the toleration {flow(toleration(taint))}")
    if b.placement is not None:
        out += _affinity_changes(_affinities(b, tier), c)
    for group in replicas.groups:
        if group.claim and group.claim not in c.claims:
            out.append(f"{_SPEC_FIELD[group.claim]} set (spreadByField {group.claim})")
    if c.name in replicas.evicted:
        out.append("nothing while the binding's graceful eviction from it is under way")
    return out


def _affinities(b: Binding, tier: int) -> tuple[Affinity, ...]:
    """The affinity terms a cluster must match one of (filters.terms, as the binding spells them)."""
    p = b.placement
    if p.terms is not None:
        term = p.terms[tier]
        return (term.affinity, *term.overflow)
    return () if p.affinity is None else (p.affinity,)


def _affinity_changes(terms: Sequence[Affinity], c: Cluster) -> list[str]:
    """The fewest changes that make one of the terms match the cluster (none where one matches)."""
    claims = c.claims
    zones = claims.get(n.ZONE, "")
    facts = ClusterFacts(
        c.name,
        c.labels,
        claims.get(n.PROVIDER, ""),
        claims.get(n.REGION, ""),
        tuple(zones.split(",") if zones else ()),
    )
    if not terms:
        return []
    best: list[str] | None = None
    for term in terms:
        if term.matches(facts):
            return []
        changes = _term_changes(term, facts)
        if changes is not None and (best is None or len(changes) < len(best)):
            best = changes
    return best if best is not None else ["no change to the cluster: its affinity term matches no cluster"]


def _term_changes(term: Affinity, c: ClusterFacts) -> list[str] | None:
    """What makes one term match the cluster, or None when nothing can (a broken selector,
    contradictory requirements)."""
    out = []
    if c.name in term.exclude:
        out.append(f"{c.name} taken out of the term's exclude")
    if term.names and c.name not in term.names:
        out.append(f"{c.name} listed in the term's clusterNames")
    if "labelSelector" in term.form:
        if term.labels_broken:
            return None
        changes = selector_changes(term.labels, c.labels)
        if changes is None:
            return None
        _, words = label_changes(changes)
        out += [f"the label {word}" for word in words]
    for key, operator, values in term.fields:
        if not field_matches(key, operator, values, c):
            out.append(f"{_SPEC_FIELD[key]} {operator} ({', '.join(values)})")
    return out


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
    rows = [["CLUSTER", "AVAILABLE", "TAKEN", "HELD", "ASSIGNED", "FILTER", "WHAT LETS MORE IN"]]
    for r in doc["clusters"]:
        rows.append(
            [
                r["cluster"],
                cell(r["available"]),
                cell(r["taken"]),
                cell(r["held"]),
                cell(r["assigned"]),
                r.get("filter", "-"),
                _let_in(r),
            ]
        )
    return "\n".join([*lines, "", *grid(rows)]) + "\n"


def _let_in(row: Mapping[str, Any]) -> str:
    if "admittedBy" in row:
        return "; ".join(row["admittedBy"]) or "-"
    needs = row.get("oneMoreNeeds")
    if not needs:
        return "-"
    if "resourceSummary" in needs:
        return f"a resourceSummary ({needs['resourceSummary']})"
    short = needs.get("nodes") or ", ".join(f"{r} +{more}" for r, more in needs.items())
    room = row["room"]
    return f"room for {room} more; one past them needs {short}" if room else f"one more replica needs {short}"
