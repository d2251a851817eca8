"""`placement-solver explain`: why each cluster was or was not chosen for one placement, in the
words of the placement's own system.

The input is scheduled exactly as `solve` schedules it (adapters.run.pipeline); solver.explain reads
the placement's request back against the cluster table and the result, and the system's renderer
(its record's explainer: adapters/<system>/explain.py) words the records as upstream does. The
renderer gives a document (the records as data, what `-o yaml` prints) and words it as a table.
The kinds a target may name, and how, are the registry's (each system's ExplainKinds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from adapters.cli.words import Target
from adapters.contract import ExplainKind, System
from adapters.errors import InputError
from adapters.kube.manifests import Manifest, dump_yaml_stream
from adapters.registry import facet, identity, owned_by, system, systems
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions
from solver.explain import explain

__all__ = ["OUTPUTS", "explain_document", "parse_target", "render"]

OUTPUTS = ("table", "yaml")


def _spellings() -> dict[str, list[tuple[System, ExplainKind]]]:
    """Every spelling of every kind explain takes -> the systems' kinds so spelt: as each system
    declares them, the kind itself, and `kind.group` (placement.scheduling.kcp.dev)."""
    out: dict[str, list[tuple[System, ExplainKind]]] = {}
    for s in systems():
        for k in s.targets:
            lower = k.kind.lower()
            for spelling in dict.fromkeys((*k.spellings, lower, f"{lower}.{k.group}" if k.group else lower)):
                out.setdefault(spelling, []).append((s, k))
    return out


def _expected() -> str:
    """The kinds explain takes, for a message: `Kind (short, ...)` each."""
    kinds: dict[str, list[str]] = {}
    for s in systems():
        for k in s.targets:
            short = [x for x in k.spellings if x not in (k.kind.lower(), f"{k.kind.lower()}.{k.group}")]
            kinds.setdefault(k.kind, [])
            kinds[k.kind] += [x for x in short if x not in kinds[k.kind]]
    words = [f"{kind} ({', '.join(short)})" if short else kind for kind, short in kinds.items()]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)


def _candidates(text: str) -> tuple[list[tuple[System, ExplainKind]], list[str]]:
    """The systems' kinds the target's KIND may name, and its other parts."""
    parts = text.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise InputError(f"expected KIND/[NAMESPACE/]NAME, got {text!r}", field="PLACEMENT")
    spellings = _spellings()
    spelt = parts[0].lower()
    resource, dot, group = spelt.partition(".")
    if spelt not in spellings and resource.endswith("s"):  # kubectl's plural
        spelt = f"{resource[:-1]}{dot}{group}"
    found = spellings.get(spelt)
    if not found:
        raise InputError(f"unknown kind {parts[0]!r}; expected {_expected()}", field="PLACEMENT")
    return found, parts


def parse_target(text: str) -> Target:
    """KIND/NAME or KIND/NAMESPACE/NAME; the kind as upstream spells it, in any case, plural or
    short. A kind two systems spell alike is given to the first in registry order (explain gives it
    to the one that has the object)."""
    found, parts = _candidates(text)
    s, kind = found[0]
    if len(parts) == 3 and not kind.namespaced:
        raise InputError(f"a {kind.kind} is cluster-scoped: give {parts[0]}/NAME", field="PLACEMENT")
    namespace = parts[1] if len(parts) == 3 else ""
    return Target(s.name, kind.kind, namespace, parts[-1])


def _scope(name: str, m: Manifest) -> str:
    """Where the object lives: its namespace, or its logical workspace where its system has them."""
    return identity(name).scope(m.obj) or m.namespace


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
        word = identity(target.system).word
        raise InputError(
            f"{where} is in several {word}s ({listed}): give KIND/{word.upper()}/NAME", field="PLACEMENT"
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
    """The target; a kind several systems spell alike (OCM's and kcp's Placement) is given to the
    system that has such an object."""
    target = parse_target(target_text)
    found, _ = _candidates(target_text)
    if len(found) == 1:
        return target
    having = [
        (s, kind)
        for s, kind in found
        if _matches(owned.get(s.name, []), Target(s.name, kind.kind, target.namespace, target.name))
    ]
    if len(having) > 1:
        titles = " and ".join(s.title for s, _ in having)
        spelt = " or ".join(f"{kind.kind.lower()}.{kind.group}/..." for _, kind in having)
        raise InputError(f"both {titles} have a {target.kind} {target.key}: give {spelt}", field="PLACEMENT")
    if not having:
        return target
    s, kind = having[0]
    return Target(s.name, kind.kind, target.namespace, target.name)


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


def _renderer(name: str) -> Any:
    """The named system's explain renderer (a module with `document` and `table`)."""
    explainer = facet(name, system(name).explainer)
    if explainer is None:
        raise InputError(f"the {name} system explains nothing", field="PLACEMENT")
    return explainer
