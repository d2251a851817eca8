"""The systems placement-solver speaks, each as one adapter that declares the kinds it owns.

The pipeline routes every input object to the adapter whose kinds it is, so one input may hold the
objects of several systems; each system's placements are solved as their own batch (their cluster
inventories are distinct). Adding a system is one entry in :data:`SYSTEMS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.manifests import Manifest
from model import Batch, Result

__all__ = ["System", "SYSTEMS", "owned_by"]


@dataclass(frozen=True, slots=True)
class System:
    """One upstream system: the kinds it reads (kind -> API groups), its apply (`load`) and its
    invert (`emit`). A system `configured` by a scheduler config document (openMCP's) gets it as
    `load(..., config=document)`."""

    name: str
    kinds: Mapping[str, set[str]]
    load: Callable[..., tuple[Batch, Any]]  # (manifests, *, now, seed[, config]) -> (batch, context)
    emit: Callable[[Any, Result], Any]  # (context, result) -> .apply, .delete
    configured: bool = False


def _fleet() -> System:
    from adapters import fleet

    return System("fleet", fleet.KINDS, fleet.load, fleet.emit)


def _ocm() -> System:
    from adapters import ocm

    return System("ocm", ocm.KINDS, ocm.load, ocm.emit)


def _openmcp() -> System:
    from adapters import openmcp

    return System("openmcp", openmcp.KINDS, openmcp.load, openmcp.emit, configured=True)


_FACTORIES: dict[str, Callable[[], System]] = {"fleet": _fleet, "ocm": _ocm, "openmcp": _openmcp}
SYSTEMS: tuple[str, ...] = tuple(_FACTORIES)
_LOADED: dict[str, System] = {}


def system(name: str) -> System:
    """The named system's adapter, imported on first use."""
    loaded = _LOADED.get(name)
    if loaded is None:
        loaded = _LOADED[name] = _FACTORIES[name]()
    return loaded


def owned_by(manifests: Sequence[Manifest]) -> dict[str, list[Manifest]]:
    """The manifests each system owns, for every system owning at least one object of the input,
    in registry order. Objects no system owns are left out (ignored)."""
    out: dict[str, list[Manifest]] = {}
    for name in SYSTEMS:
        kinds = system(name).kinds
        owned = [m for m in manifests if m.group in kinds.get(m.kind, ())]
        if owned:
            out[name] = owned
    return out
