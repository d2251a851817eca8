"""`placement-solver explain`: why each cluster was or was not chosen for one placement, in the
words of the placement's own system.

The input is scheduled exactly as `solve` schedules it (adapters.run.pipeline); solver.explain reads
the placement's request back against the cluster table and the result, and the system's renderer
(adapters/<system>/explain.py) words the records as upstream does: Fleet's reason strings and
scores, OCM's plugins and prioritizers, openMCP's candidate rules, tenancy counts and strategies.
The renderer gives a document (the records as data, what `-o yaml` prints) and words it as a
table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.errors import InputError
from adapters.kube.manifests import Manifest, dump_yaml_stream
from adapters.registry import owned_by
from adapters.run.pipeline import schedule_manifests
from model import LabelOperator, LabelSelector, Taint
from solver import SolveOptions
from solver.explain import LabelChange, explain

__all__ = ["Target", "counted", "parse_target", "explain_document", "render", "OUTPUTS"]

OUTPUTS = ("table", "yaml")

# Every spelling of a placement kind: (system, kind, namespaced). kcp's objects live in logical
# workspaces: KIND/WORKSPACE/NAME, the workspace where others have a namespace.
_KINDS: dict[str, tuple[str, str, bool]] = {
    **{k: ("fleet", "ClusterResourcePlacement", False) for k in ("clusterresourceplacement", "crp")},
    **{k: ("ocm", "Placement", True) for k in ("placement", "placement.cluster.open-cluster-management.io")},
    **{k: ("openmcp", "ClusterRequest", True) for k in ("clusterrequest", "cr", "creq")},
    **{k: ("kcp", "Placement", True) for k in ("placement.scheduling.kcp.dev",)},
    **{k: ("kcp", "Namespace", True) for k in ("namespace", "ns")},
}
_AMBIGUOUS = {"placement": ("ocm", "kcp")}  # a bare kind two systems spell alike: where the object is


@dataclass(frozen=True, slots=True)
class Target:
    system: str
    kind: str
    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def parse_target(text: str) -> Target:
    """KIND/NAME or KIND/NAMESPACE/NAME; the kind as upstream spells it, in any case, plural or short."""
    parts = text.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise InputError(f"expected KIND/[NAMESPACE/]NAME, got {text!r}", field="PLACEMENT")
    kind = _singular(parts[0].lower())
    known = _KINDS.get(kind)
    if known is None:
        expected = "ClusterResourcePlacement (crp), Placement, ClusterRequest (cr) or Namespace (ns)"
        raise InputError(f"unknown kind {parts[0]!r}; expected {expected}", field="PLACEMENT")
    system, upstream_kind, namespaced = known
    if len(parts) == 3 and not namespaced:
        raise InputError(f"a {upstream_kind} is cluster-scoped: give {parts[0]}/NAME", field="PLACEMENT")
    namespace = parts[1] if len(parts) == 3 else ""
    return Target(system, upstream_kind, namespace, parts[-1])


def _singular(kind: str) -> str:
    """kubectl's spellings: plural, and resource.group (placements.scheduling.kcp.dev)."""
    resource, dot, group = kind.partition(".")
    if resource not in _KINDS and f"{resource}{dot}{group}" not in _KINDS and resource.endswith("s"):
        resource = resource[:-1]
    return f"{resource}{dot}{group}"


def _scope(system: str, m: Manifest) -> str:
    """Where the object lives: its namespace, or for kcp its logical workspace."""
    if system == "kcp":
        from adapters.kcp.workspace import workspace_of

        return workspace_of(m.obj)
    return m.namespace


def _find(owned: Sequence[Manifest], target: Target) -> Target:
    """The placement the target names (a namespaced one given without its namespace: the only
    one of that name); InputError when there is none or several."""
    found = _matches(owned, target)
    where = f"{target.kind} {target.key}"
    if not found:
        raise InputError(f"{where} is not in the input", field="PLACEMENT")
    namespaces = sorted(found)
    if len(namespaces) > 1:
        listed = ", ".join(namespaces)
        scope = "workspaces" if target.system == "kcp" else "namespaces"
        raise InputError(
            f"{where} is in several {scope} ({listed}): give KIND/{scope[:-1].upper()}/NAME",
            field="PLACEMENT",
        )
    return Target(target.system, target.kind, namespaces[0], target.name)


def _matches(owned: Sequence[Manifest], target: Target) -> set[str]:
    """The namespaces (workspaces) of the objects the target may name."""
    return {
        _scope(target.system, m)
        for m in owned
        if m.kind == target.kind
        and m.name == target.name
        and (not target.namespace or _scope(target.system, m) == target.namespace)
    }


def _resolve(target_text: str, owned: Mapping[str, Sequence[Manifest]]) -> Target:
    """The target, a bare kind two systems share (Placement: OCM's and kcp's) given to the
    system that has such an object."""
    target = parse_target(target_text)
    systems = _AMBIGUOUS.get(_singular(target_text.split("/")[0].lower()))
    if systems is None:
        return target
    having = [
        s
        for s in systems
        if _matches(owned.get(s, []), Target(s, target.kind, target.namespace, target.name))
    ]
    if len(having) > 1:
        raise InputError(
            f"both OCM and kcp have a Placement {target.key}: give "
            "placement.cluster.open-cluster-management.io/... or placement.scheduling.kcp.dev/...",
            field="PLACEMENT",
        )
    return Target(having[0] if having else target.system, target.kind, target.namespace, target.name)


def explain_document(
    manifests: Sequence[Manifest],
    target_text: str,
    *,
    cluster: str | None = None,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The explanation of one placement (and one cluster, when given) as data; `config`: the
    openMCP scheduler config, as for solve."""
    by_system = owned_by(list(manifests))
    target = _resolve(target_text, by_system)
    owned = by_system.get(target.system, [])
    target = _find(owned, target)
    outcome = schedule_manifests(manifests, now=now, options=options, config=config)
    (part,) = [p for p in outcome.parts if p.system == target.system]
    names = {c.name for c in part.batch.clusters}
    if cluster is not None and cluster not in names:
        raise InputError(f"no cluster {cluster!r} in the {target.system} input", field="--cluster")
    keys = {r.key for r in part.batch.requests}
    explanation = explain(part.batch, part.result, target.key) if target.key in keys else None
    document = _renderer(target.system).document(target, explanation, part, owned, outcome.apply)
    if cluster is not None:  # ranked and compared against the others, shown alone
        document["clusters"] = [r for r in document["clusters"] if r["cluster"] == cluster]
    return document


def render(document: dict[str, Any], output: str) -> str:
    if output == "yaml":
        return dump_yaml_stream([document])
    return _renderer(document["system"]).table(document)


@dataclass(frozen=True, slots=True)
class _Renderer:
    document: Callable[..., dict[str, Any]]
    table: Callable[[dict[str, Any]], str]


def _renderer(system: str) -> _Renderer:
    if system == "fleet":
        from adapters.fleet import explain as fleet

        return _Renderer(fleet.document, fleet.table)
    if system == "openmcp":
        from adapters.openmcp import explain as openmcp

        return _Renderer(openmcp.document, openmcp.table)
    if system == "kcp":
        from adapters.kcp import explain as kcp

        return _Renderer(kcp.document, kcp.table)
    from adapters.ocm import explain as ocm

    return _Renderer(ocm.document, ocm.table)


def grid(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart, trailing blanks trimmed."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def cell(value: Any) -> str:
    """A table cell: '-' for nothing."""
    return "-" if value is None else str(value)


# -- words the systems' renderers share -------------------------------------------------------------


def selector_text(selector: LabelSelector) -> str:
    """A label selector as kubectl writes one: k=v, k in (a,b), k notin (a), k, !k."""
    parts = []
    for r in selector.requirements():
        if r.operator is LabelOperator.IN:
            parts.append(
                f"{r.key}={r.values[0]}" if len(r.values) == 1 else f"{r.key} in ({','.join(r.values)})"
            )
        elif r.operator is LabelOperator.NOT_IN:
            parts.append(f"{r.key} notin ({','.join(r.values)})")
        elif r.operator is LabelOperator.EXISTS:
            parts.append(r.key)
        else:
            parts.append(f"!{r.key}")
    return ",".join(parts) or "(everything)"


def toleration(taint: Taint) -> dict[str, str]:
    """The toleration of exactly this taint."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def counted(number: int, noun: str) -> str:
    """`1 cluster`, `2 clusters`: a count and its noun, in the plural but for one."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def flow(mapping: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in mapping.items()) + "}"


def label_changes(changes: Sequence[LabelChange]) -> tuple[dict[str, Any], list[str]]:
    """As data ({key: value, None to remove, or {"anyValueExcept": [...]} where any value but
    those will do: not a value a user could apply by mistake}) and as words."""
    data: dict[str, Any] = {}
    words = []
    for ch in changes:
        was = "" if ch.was is None else f" (was {ch.was})"
        if ch.remove:
            data[ch.key] = None
            words.append(f"remove {ch.key}{was}")
        elif ch.any_value:
            data[ch.key] = {"anyValueExcept": list(ch.excluded)}
            but = f" but {', '.join(ch.excluded)}" if ch.excluded else ""
            words.append(f"{ch.key}=<any value{but}>{was}")
        else:
            data[ch.key] = ch.value
            words.append(f"{ch.key}={ch.value}{was}")
    return data, words
