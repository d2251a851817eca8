"""ManagedClusterSets and ManagedClusterSetBindings: which clusters a placement may see.

A set's members become the cluster trait `set:<name>`; a placement's scope is the traits of its
eligible sets (the valid bindings of its namespace, intersected with spec.clusterSets when that is
non-empty). A set upstream cannot list (an unknown selector type, a selector Kubernetes refuses)
fails every sync upstream, so here it is bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from adapters.kube.fields import Fields
from adapters.kube.manifests import Manifest
from adapters.kube.selectors import SelectorError, label_selector
from adapters.ocm import names as n
from adapters.ocm.checks import conditions, enum
from adapters.ocm.clusters import ManagedCluster
from model import LabelSelector

__all__ = ["ClusterSet", "Bindings", "read_set", "read_bindings"]


@dataclass(frozen=True, slots=True)
class ClusterSet:
    name: str
    exclusive: bool  # members carry the clusterset label; else `selector` picks them
    selector: LabelSelector | None = None  # None: every cluster (LabelSelector type)
    nothing: bool = False  # a LabelSelector set without a selector: no members

    def contains(self, cluster: ManagedCluster) -> bool:
        if self.exclusive:
            return cluster.labels.get(n.CLUSTERSET_LABEL) == self.name
        if self.nothing:
            return False
        return self.selector is None or self.selector.matches(cluster.labels)

    @property
    def trait(self) -> str:
        return n.SET_TRAIT.format(self.name)


def read_set(manifest: Manifest) -> ClusterSet:
    f = Fields(manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    selector = f.mapping(spec.get("clusterSelector"), "spec.clusterSelector")
    conditions(f, f.mapping(manifest.obj.get("status"), "status"))
    path = "spec.clusterSelector.selectorType"
    kind = enum(f, selector, "selectorType", path, (n.EXCLUSIVE, n.LABEL_SELECTOR), n.EXCLUSIVE)
    if kind == n.EXCLUSIVE:
        return ClusterSet(manifest.name, exclusive=True)
    raw = selector.get("labelSelector")
    if raw is None:
        return ClusterSet(manifest.name, exclusive=False, nothing=True)
    path = "spec.clusterSelector.labelSelector"
    try:
        return ClusterSet(manifest.name, exclusive=False, selector=label_selector(f, raw, path))
    except SelectorError as err:
        raise f.fail(str(err), path) from None


@dataclass(frozen=True, slots=True)
class Bindings:
    """The names of the valid bindings (whose set exists) of each namespace."""

    by_namespace: Mapping[str, tuple[str, ...]]

    def valid(self, namespace: str) -> tuple[str, ...]:
        return self.by_namespace.get(namespace, ())

    def eligible(self, namespace: str, wanted: Sequence[str]) -> tuple[str, ...]:
        """Upstream's eligible sets, sorted: the valid bindings, intersected with `wanted`."""
        bound = set(self.valid(namespace))
        if wanted:
            bound &= set(wanted)
        return tuple(sorted(bound))


def read_bindings(manifests: Iterable[Manifest], sets: Mapping[str, ClusterSet]) -> Bindings:
    out: dict[str, list[str]] = {}
    for m in manifests:
        f = Fields(m)
        if not m.namespace:
            raise f.fail("a ManagedClusterSetBinding is namespaced", "metadata.namespace")
        conditions(f, f.mapping(m.obj.get("status"), "status"))
        spec = f.mapping(m.obj.get("spec"), "spec")
        target = f.string(spec.get("clusterSet"), "spec.clusterSet")
        if target != m.name:
            raise f.fail(
                f"the binding's name must equal the set it binds; spec.clusterSet is {target!r}",
                "spec.clusterSet",
            )
        if m.name in sets:  # a binding to a missing set is ignored, as upstream does
            out.setdefault(m.namespace, []).append(m.name)
    return Bindings({ns: tuple(sorted(names)) for ns, names in out.items()})
