"""Where a kcp object lives, its logical workspace, and how messages name a kcp object.

Each kcp generation marks an object's logical workspace (its logical cluster) in its own way, as
the logicalcluster library it pins reads it (`logicalcluster.From`):

- up to v0.6 (logicalcluster v1): `metadata.clusterName`;
- v0.7 to v0.10 (logicalcluster/v2 v2.0.0-alpha.1, pinned by kcp v0.8.0's go.mod, to alpha.4):
  the annotation `kcp.dev/cluster` (`AnnotationKey`);
- v0.11 on (logicalcluster/v3 v3.0.2, after kcp.dev became kcp.io): the annotation `kcp.io/cluster`.

All three are read. A loader takes an object's workspace from `read_workspace`: exactly one name,
however many markers carry it; markers that disagree, a marker that is not a logical cluster name
(logicalcluster's IsValid: colon-separated words of lower-case letters, digits and `-`, each
starting with a letter) and an object that names no workspace are bad input. Everything else
(matching objects already read, the actors, plans) asks `workspace_of`, which never fails.

Messages name a kcp object as kcp's own logs do, `<Kind> <workspace>|<name>` (and
`<workspace>|<namespace>/<name>` for a namespaced object): `reference`, and `KcpFields` for the
field checks of one object.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from adapters.kcp import names as n
from adapters.kube.fields import Fields
from adapters.kube.manifests import Manifest

__all__ = ["KcpFields", "kcp_fields", "mark", "read_workspace", "reference", "workspace_of"]

_CLUSTER_NAME = "metadata.clusterName"
# (field path, annotation or None for metadata.clusterName), newest first.
_MARKERS: tuple[tuple[str, str | None], ...] = (
    (f"metadata.annotations[{n.WORKSPACE_ANNOTATION}]", n.WORKSPACE_ANNOTATION),
    (f"metadata.annotations[{n.V08_WORKSPACE_ANNOTATION}]", n.V08_WORKSPACE_ANNOTATION),
    (_CLUSTER_NAME, None),
)
_ANNOTATIONS = tuple(annotation for _, annotation in _MARKERS if annotation is not None)
_NEWEST, _OLDER = _ANNOTATIONS
# Workspace names read_workspace has found good (a hub's 80,000 objects name a few thousand):
# bounded, so that an input of ever new names cannot grow it without end.
_GOOD_NAMES: set[str] = set()
_GOOD_LIMIT = 100_000
_LOGICAL_CLUSTER = re.compile(r"[a-z][a-z0-9-]*[a-z0-9](:[a-z][a-z0-9-]*[a-z0-9])*")
_NOT_A_NAME = (
    "is not a logical cluster name (words of lower-case letters, digits and '-', each starting with a "
    "letter and not ending with '-', joined by ':')"
)
_UNMARKED = (
    "names no logical workspace: kcp v0.8 marks every object with the annotation kcp.dev/cluster "
    "(later kcp kcp.io/cluster, earlier metadata.clusterName)"
)


def _marked(metadata: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(field path, raw value) of every marker the object carries, newest first."""
    annotations = metadata.get("annotations")
    out = []
    for path, annotation in _MARKERS:
        if annotation is None:
            value = metadata.get("clusterName")
        else:
            value = annotations.get(annotation) if isinstance(annotations, Mapping) else None
        if value is not None and value != "":
            out.append((path, value))
    return out


def workspace_of(obj: Mapping[str, Any]) -> str:
    """The workspace an object names ("" when it names none): its newest marker that is a string.
    Never fails; what a loader reads has been checked by read_workspace, so its markers agree.
    (Asked of every object a plan compares: one look per marker, no list.)"""
    metadata = obj.get("metadata")
    # `type(...) is dict` first: a plan asks this of every object, and isinstance of an abstract
    # class is several times slower.
    if type(metadata) is not dict and not isinstance(metadata, Mapping):
        return ""
    annotations = metadata.get("annotations")
    if annotations is not None and (type(annotations) is dict or isinstance(annotations, Mapping)):
        value = annotations.get(_NEWEST)
        if value and isinstance(value, str):
            return value
        value = annotations.get(_OLDER)
        if value and isinstance(value, str):
            return value
    value = metadata.get("clusterName")
    return value if value and isinstance(value, str) else ""


def read_workspace(manifest: Manifest) -> str:
    """The workspace an object lives in, checked (InputError naming the object and the marker)."""
    metadata = manifest.obj["metadata"]
    annotations = metadata.get("annotations")
    if annotations is None or type(annotations) is dict:  # the common case, in a few lookups
        newest = older = None
        if annotations:
            newest, older = annotations.get(_NEWEST), annotations.get(_OLDER)
        legacy = metadata.get("clusterName")
        found = newest or older or legacy
        if (
            type(found) is str
            and found in _GOOD_NAMES
            and (newest is None or newest == "" or newest == found)
            and (older is None or older == "" or older == found)
            and (legacy is None or legacy == "" or legacy == found)
        ):
            return found
    f = KcpFields(manifest, None)
    metadata = manifest.obj["metadata"]
    f.mapping(metadata.get("annotations"), "metadata.annotations")
    named: dict[str, str] = {}
    for path, value in _marked(metadata):
        named[path] = f.string(value, path)
    if not named:
        raise f.fail(_UNMARKED, _MARKERS[1][0])
    (path, workspace), *others = named.items()
    for other, value in others:
        if value != workspace:
            raise f.fail(f"names workspace {workspace!r}, but {other} names {value!r}", path)
    if not _LOGICAL_CLUSTER.fullmatch(workspace):
        raise f.fail(f"{workspace!r} {_NOT_A_NAME}", path)
    if len(_GOOD_NAMES) < _GOOD_LIMIT:
        _GOOD_NAMES.add(workspace)
    return workspace


def mark(metadata: dict[str, Any], workspace: str, generation: n.Generation) -> dict[str, Any]:
    """`metadata` with the workspace marked as kcp of that generation marks it."""
    if generation is n.Generation.V05:
        metadata["clusterName"] = workspace
    else:
        metadata.setdefault("annotations", {})[n.V08_WORKSPACE_ANNOTATION] = workspace
    return metadata


def reference(kind: str, workspace: str, name: str, namespace: str = "") -> str:
    """`<Kind> <workspace>|[<namespace>/]<name>`, kcp's notation for an object in a logical cluster."""
    return f"{kind} {workspace}|{namespace + '/' if namespace else ''}{name}"


class KcpFields(Fields):
    """Fields whose failures name the object with its workspace (spelt only when a check fails);
    without one (the workspace itself is wrong), with the file and document it came from."""

    __slots__ = ("workspace",)

    def __init__(self, manifest: Manifest, workspace: str | None) -> None:
        super().__init__(manifest)
        self.workspace = workspace

    @property
    def where(self) -> str:
        m = self._manifest
        if self.workspace is None:
            return f"{m.kind} {m.namespace + '/' if m.namespace else ''}{m.name} ({m.location})"
        return reference(m.kind, self.workspace, m.name, m.namespace)


def kcp_fields(manifest: Manifest) -> KcpFields:
    """The checks of one kcp object, its workspace read first (InputError when it names none)."""
    return KcpFields(manifest, read_workspace(manifest))
