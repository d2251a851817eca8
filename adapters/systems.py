"""The systems placement-solver speaks, each as one adapter that declares the kinds it owns.

The pipeline routes every input object to the adapter whose kinds it is, so one input may hold the
objects of several systems; each system's placements are solved as their own batch (their cluster
inventories are distinct). Adding a system is one entry in :data:`SYSTEMS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.cut import Cut
from adapters.errors import InputError
from adapters.fields import Fields
from adapters.manifests import Manifest
from adapters.validation import judged_metadata, name_problem
from model import Batch, Result

__all__ = ["GROUPS", "SHARED_GROUPS", "System", "SYSTEMS", "owned_by", "reads"]


@dataclass(frozen=True, slots=True)
class System:
    """One upstream system: the kinds it reads (kind -> API groups), its apply (`load`) and its
    invert (`emit`). A system `configured` by a scheduler config document (openMCP's) gets it as
    `load(..., config=document)`. `shared` kinds (core ones, such as kcp's Namespaces) are read
    too, but only beside at least one object of its own kinds: alone they make no input of it.
    `served` gives the API versions upstream serves of each kind it reads (its own and shared):
    an object of another version is refused, as the API server would refuse it, as is a name or
    namespace it would refuse. `fields` makes the typed reader of one object, whose errors name it
    as the system names its objects (kcp: with the workspace).

    A system that can `cut` its input into up to N parts returns a Cut: objects every part reads
    (the clusters) and each part's own, such that, when each part's batch is separable
    (model.Batch.separable) and no part writes an object another part reads or writes, the
    parts loaded and emitted on their own give, joined in order, the whole input's applies
    (adapters.parts checks the rest); None where a cut is not worth it."""

    name: str
    kinds: Mapping[str, set[str]]
    load: Callable[..., tuple[Batch, Any]]  # (manifests, *, now, seed[, config]) -> (batch, context)
    emit: Callable[[Any, Result], Any]  # (context, result) -> .apply, .delete
    served: Mapping[str, tuple[str, ...]]
    configured: bool = False
    shared: Mapping[str, set[str]] = field(default_factory=dict)
    cut: Callable[[list[Manifest], int], Cut | None] | None = None
    fields: Callable[[Manifest], Fields] = Fields


def _fleet() -> System:
    from adapters import fleet
    from adapters.fleet import names

    return System("fleet", fleet.KINDS, fleet.load, fleet.emit, names.SERVED_VERSIONS, cut=fleet.cut)


def _ocm() -> System:
    from adapters import ocm
    from adapters.ocm import names

    return System("ocm", ocm.KINDS, ocm.load, ocm.emit, names.SERVED_VERSIONS)


def _openmcp() -> System:
    from adapters import openmcp
    from adapters.openmcp import names

    return System(
        "openmcp", openmcp.KINDS, openmcp.load, openmcp.emit, names.SERVED_VERSIONS, configured=True
    )


def _kcp() -> System:
    from adapters import kcp
    from adapters.kcp import names
    from adapters.kcp.workspace import kcp_fields

    return System(
        "kcp",
        kcp.KINDS,
        kcp.load,
        kcp.emit,
        names.SERVED_VERSIONS,
        shared=kcp.SHARED_KINDS,
        fields=kcp_fields,
    )


_FACTORIES: dict[str, Callable[[], System]] = {"fleet": _fleet, "ocm": _ocm, "openmcp": _openmcp, "kcp": _kcp}
SYSTEMS: tuple[str, ...] = tuple(_FACTORIES)
# The API groups of each system's own kinds (tests hold them equal to its adapter's): an input
# with no object of these groups needs not import that adapter (a tenth of a second each).
GROUPS: dict[str, frozenset[str]] = {
    "fleet": frozenset({"placement.kubernetes-fleet.io", "cluster.kubernetes-fleet.io"}),
    "ocm": frozenset({"cluster.open-cluster-management.io"}),
    "openmcp": frozenset({"clusters.openmcp.cloud"}),
    "kcp": frozenset({"apis.kcp.dev", "scheduling.kcp.dev", "workload.kcp.dev", "workloads.kcp.dev"}),
}
# The API groups of the kinds each system reads without owning them (tests hold them equal too).
SHARED_GROUPS: dict[str, frozenset[str]] = {"kcp": frozenset({""})}
_LOADED: dict[str, System] = {}


def system(name: str) -> System:
    """The named system's adapter, imported on first use."""
    loaded = _LOADED.get(name)
    if loaded is None:
        loaded = _LOADED[name] = _FACTORIES[name]()
    return loaded


def reads(kind: str, api_version: str) -> bool:
    """Whether any system reads objects of this kind in this apiVersion's group (as its own or as
    a shared kind), whatever the version: manifests.from_objects leaves the others unvalidated.
    Only the adapters whose groups match are imported."""
    group = api_version.rpartition("/")[0]
    for name in SYSTEMS:
        if group in GROUPS[name] or group in SHARED_GROUPS.get(name, ()):
            read = system(name)
            if group in read.kinds.get(kind, ()) or group in read.shared.get(kind, ()):
                return True
    return False


def owned_by(manifests: Sequence[Manifest]) -> dict[str, list[Manifest]]:
    """The manifests each system owns, for every system owning at least one object of the input
    (its shared kinds aside), in registry order. Objects no system owns are left out (ignored);
    an object of a kind a system reads, in a version upstream does not serve, is an InputError."""
    # One pass over the input: a large hub holds tens of thousands of objects of a few types.
    types = [(m.obj["kind"], m.obj["apiVersion"]) for m in manifests]
    present = {t: t[1].rpartition("/") for t in set(types)}  # (kind, apiVersion) -> (group, /, version)
    groups = {split[0] for split in present.values()}
    out: dict[str, list[Manifest]] = {}
    for name in SYSTEMS:
        if groups.isdisjoint(GROUPS[name]):
            continue
        kinds, shared = system(name).kinds, system(name).shared
        owns = {t for t, split in present.items() if split[0] in kinds.get(t[0], ())}
        if owns:
            reads = owns | {t for t, split in present.items() if split[0] in shared.get(t[0], ())}
            served = system(name).served
            unserved = {t for t in reads if present[t][2] not in served[t[0]]}
            if unserved:
                raise _unserved(
                    next(m for m, t in zip(manifests, types, strict=True) if t in unserved), system(name)
                )
            out[name] = [m for m, t in zip(manifests, types, strict=True) if t in reads]
            _check_metadata(out[name], system(name))
    return out


def _unserved(manifest: Manifest, read: System) -> InputError:
    """The error of an object whose version is not one upstream serves of its kind."""
    kind, api_version = manifest.obj["kind"], manifest.obj["apiVersion"]
    versions = ", ".join(read.served[kind])
    return read.fields(manifest).fail(
        f"{api_version} is not a served version of {kind} (served: {versions})", "apiVersion"
    )


def _check_metadata(manifests: Sequence[Manifest], read: System) -> None:
    """Every object's metadata as the API server takes it (ValidateObjectMeta): its name and
    namespace, labels, annotation keys, finalizers, generation and uid (a string), whichever kind
    it is and whether or not its adapter reads them."""
    for m in manifests:
        metadata = m.obj["metadata"]
        problem = name_problem(m.obj["kind"], metadata["name"], metadata.get("namespace"))
        if problem is not None:
            field, message = problem
            raise read.fields(m).fail(f"invalid name {message}", field)
        uid = metadata.get("uid")
        if uid is not None and type(uid) is not str:
            read.fields(m).string(uid, "metadata.uid")
        labels, annotations = metadata.get("labels"), metadata.get("annotations")
        finalizers, generation = metadata.get("finalizers"), metadata.get("generation")
        if judged_metadata(labels, annotations, finalizers, generation):
            continue
        f = read.fields(m)
        f.labels(labels, "metadata.labels")
        f.annotations(annotations, "metadata.annotations")
        f.finalizers(finalizers, "metadata.finalizers")
        if generation is not None:
            f.integer(generation, "metadata.generation", minimum=0)
