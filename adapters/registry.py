"""The systems placement-solver speaks: one record each (adapters.contract.System, defined in the
system's own folder), listed here and nowhere else. Adding a system is its folder plus one line in
:func:`_builtin`.

The pipeline routes every input object to the system whose kinds it is, so one input may hold the
objects of several systems; each system's placements are solved as their own batch (their cluster
inventories are distinct). The command line, explain, plan, the generators and the benchmarks ask
the registry for what they need of a system; the records are light, and each facet imports its
system's code on first use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from adapters.contract import Adapter, Identity, System, resolve
from adapters.errors import InputError
from adapters.kube.manifests import Manifest
from adapters.kube.validation import annotations_problem, judged_metadata, label_problem, name_problem

__all__ = [
    "System",
    "adapter",
    "emit_part",
    "facet",
    "first_misjudged",
    "identity",
    "judge_one",
    "names",
    "owned_by",
    "read_config",
    "reads",
    "register",
    "remember_judged",
    "routed",
    "scope_of",
    "scope_rule",
    "system",
    "systems",
]


def _builtin() -> tuple[System, ...]:
    """The bundled systems, in registry order (the order of outputs and summaries)."""
    from adapters.fleet.system import SYSTEM as fleet
    from adapters.karmada.system import SYSTEM as karmada
    from adapters.kcp.system import SYSTEM as kcp
    from adapters.ocm.system import SYSTEM as ocm
    from adapters.openmcp.system import SYSTEM as openmcp

    return (fleet, ocm, openmcp, kcp, karmada)


_RECORDS: dict[str, System] = {}


def _records() -> dict[str, System]:
    if not _RECORDS:
        _RECORDS.update((record.name, record) for record in _builtin())
    return _RECORDS


def register(record: System) -> None:
    """Add a system after the bundled ones (a plugin, a test's toy system); its name must be new."""
    records = _records()
    if record.name in records:
        raise ValueError(f"a system named {record.name!r} is registered already")
    records[record.name] = record
    for facet in (adapter, identity, _scope):
        facet.cache_clear()
    _rules.clear()


def systems() -> tuple[System, ...]:
    """Every registered system, in registry order."""
    return tuple(_records().values())


def names() -> tuple[str, ...]:
    return tuple(_records())


def system(name: str) -> System:
    """The named system's record."""
    return _records()[name]


@cache
def adapter(name: str) -> Adapter:
    """The named system's load, emit and cut, imported on first use."""
    record = system(name)
    return Adapter(resolve(record.load), resolve(record.emit), resolve(record.cut) if record.cut else None)


def emit_part(name: str) -> Callable[..., Any] | None:
    """The named system's emit of a part of its objects (adapters.contract.System.emit_part), or
    None where it has none."""
    record = system(name)
    return resolve(record.emit_part) if record.emit_part else None


@cache
def identity(name: str) -> Identity:
    """How the named system names its objects."""
    record = system(name)
    scope = resolve(record.scope) if record.scope else _no_workspace
    return Identity(resolve(record.fields), scope, record.scope_word)


def _no_workspace(obj: Mapping[str, Any]) -> str:
    return ""


def facet(name: str, reference: str | None) -> Any:
    """What one of the named system's code facets names (its explainer, generator, writes, a
    command: adapters.contract.System), imported on first use; None where the system has none."""
    return None if reference is None else resolve(reference)


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def reads(kind: str, api_version: str) -> bool:
    """Whether any system reads objects of this kind in this apiVersion's group (as its own or as
    a shared kind), whatever the version: manifests.from_objects leaves the others unvalidated."""
    group = _group(api_version)
    return any(group in s.kinds.get(kind, ()) or group in s.shared.get(kind, ()) for s in systems())


def scope_of(obj: Mapping[str, Any]) -> str:
    """The logical workspace an object lives in, by the rule of the system that reads its kind
    ("" for systems without workspaces and for kinds no system reads)."""
    scope = _scope(obj.get("kind", ""), _group(str(obj.get("apiVersion", ""))))
    return "" if scope is None else scope(obj)


def scope_rule(kind: str, api_version: str) -> tuple[str, Callable[[Mapping[str, Any]], str]]:
    """The API group of objects of this kind and apiVersion, and the rule :func:`scope_of` reads
    their workspace by: asked once per type of a hub's tens of thousands of objects (plans key
    every object), not once per object."""
    rule = _rules.get((kind, api_version))
    if rule is None:
        group = _group(api_version)
        scope = _scope(kind, group)
        rule = _rules[kind, api_version] = (group, _no_workspace if scope is None else scope)
    return rule


# scope_rule's answers, by (kind, apiVersion): as few as the types the inputs hold.
_rules: dict[tuple[str, str], tuple[str, Callable[[Mapping[str, Any]], str]]] = {}


@cache
def _scope(kind: str, group: str) -> Callable[[Mapping[str, Any]], str] | None:
    for s in systems():
        if group in s.kinds.get(kind, ()) or group in s.shared.get(kind, ()):
            return identity(s.name).scope
    return None


def owned_by(manifests: Sequence[Manifest]) -> dict[str, list[Manifest]]:
    """The manifests each system reads, for every system owning at least one object of the input
    (its shared kinds aside), in registry order. Objects no system reads are left out (ignored);
    an object of a kind a system reads, in a version upstream does not serve or under a name the
    API server refuses, is an InputError."""
    return _route(manifests, judged=True)


def routed(manifests: Sequence[Manifest]) -> dict[str, list[Manifest]]:
    """:func:`owned_by` without the checks of the objects' metadata, which the caller makes
    elsewhere (:func:`first_misjudged`: a forked child's verdict). An unserved version is an
    InputError still, though not always owned_by's: there an earlier system's bad metadata comes
    first."""
    return _route(manifests, judged=False)


def _route(manifests: Sequence[Manifest], *, judged: bool) -> dict[str, list[Manifest]]:
    # One pass over the input: a large hub holds tens of thousands of objects of a few types.
    types = [(m.obj["kind"], m.obj["apiVersion"]) for m in manifests]
    present = {t: t[1].rpartition("/") for t in set(types)}  # (kind, apiVersion) -> (group, /, version)
    groups = {split[0] for split in present.values()}
    out: dict[str, list[Manifest]] = {}
    for s in systems():
        if groups.isdisjoint(s.groups):
            continue
        owns = {t for t, split in present.items() if split[0] in s.kinds.get(t[0], ())}
        if owns:
            reading = owns | {t for t, split in present.items() if split[0] in s.shared.get(t[0], ())}
            unserved = {t for t in reading if present[t][2] not in s.served[t[0]]}
            if unserved:
                raise _unserved(next(m for m, t in zip(manifests, types, strict=True) if t in unserved), s)
            out[s.name] = [m for m, t in zip(manifests, types, strict=True) if t in reading]
            if judged:
                _check_metadata(out[s.name], s)
    return out


def first_misjudged(owned: Mapping[str, Sequence[Manifest]]) -> tuple[str, int] | None:
    """Where :func:`owned_by` would refuse a routed object (:func:`routed`) for its metadata
    first: the object's system and place there; None where it refuses none. A verdict alone, which
    a forked child can give: :func:`judge_one` has the error again from that one object."""
    for name, manifests in owned.items():
        read = system(name)
        try:
            _check_metadata(manifests, read)
        except InputError:
            return name, next(i for i, m in enumerate(manifests) if _refused(m, read))
    return None


def _refused(manifest: Manifest, read: System) -> bool:
    try:
        _check_metadata((manifest,), read)
    except InputError:
        return True
    return False


def judge_one(owned: Mapping[str, Sequence[Manifest]], name: str, index: int) -> None:
    """The InputError :func:`owned_by` gives when :func:`first_misjudged` names this object: its
    metadata checked alone."""
    _check_metadata((owned[name][index],), system(name))


def remember_judged(owned: Mapping[str, Sequence[Manifest]]) -> None:
    """Judge (and so remember: adapters.kube.validation) each distinct label and annotation key of
    the routed objects, as their checks would, raising nothing: the readers that take an object's
    metadata at a glance (validation.judged_metadata) then do so as after owned_by's checks, at
    a set update an object."""
    pairs: set[tuple[Any, Any]] = set()
    keys: set[Any] = set()
    for manifests in owned.values():
        for m in manifests:
            metadata = m.obj["metadata"]
            labels, annotations = metadata.get("labels"), metadata.get("annotations")
            if type(labels) is dict:
                with contextlib.suppress(TypeError):  # an unhashable value: its checks say so
                    pairs.update(labels.items())
            if type(annotations) is dict:
                keys.update(annotations)
    for key, value in pairs:
        if type(key) is str and type(value) is str:
            label_problem(key, value)
    for key in keys:
        if type(key) is str:
            annotations_problem({key: ""})


def _unserved(manifest: Manifest, read: System) -> InputError:
    """The error of an object whose version is not one upstream serves of its kind."""
    kind, api_version = manifest.obj["kind"], manifest.obj["apiVersion"]
    versions = ", ".join(read.served[kind])
    return (
        identity(read.name)
        .fields(manifest)
        .fail(f"{api_version} is not a served version of {kind} (served: {versions})", "apiVersion")
    )


def _check_metadata(manifests: Sequence[Manifest], read: System) -> None:
    """Every object's metadata as the API server takes it (ValidateObjectMeta): its name and
    namespace, labels, annotation keys, finalizers, generation and uid (a string), whichever kind
    it is and whether or not its adapter reads them."""
    fields = identity(read.name).fields
    for m in manifests:
        metadata = m.obj["metadata"]
        problem = name_problem(m.obj["kind"], metadata["name"], metadata.get("namespace"))
        if problem is not None:
            field, message = problem
            raise fields(m).fail(f"invalid name {message}", field)
        uid = metadata.get("uid")
        if uid is not None and type(uid) is not str:
            fields(m).string(uid, "metadata.uid")
        labels, annotations = metadata.get("labels"), metadata.get("annotations")
        finalizers, generation = metadata.get("finalizers"), metadata.get("generation")
        if judged_metadata(labels, annotations, finalizers, generation):
            continue
        f = fields(m)
        f.metadata(metadata)
        if generation is not None:
            f.integer(generation, "metadata.generation", minimum=0)


def read_config(paths: Sequence[str]) -> dict[str, Any]:
    """The scheduler config files merged (later ones override), checked by every system that reads
    one: a bad config is an error whether or not the input holds the objects it is for."""
    readers = [s for s in systems() if s.config_read is not None]
    if not readers:
        raise InputError("no system reads a scheduler config", field="--config")
    document = resolve(readers[0].config_read)(list(paths))
    for s in readers:
        if s.config_check is not None:
            resolve(s.config_check)(document, ", ".join(paths))
    return document
