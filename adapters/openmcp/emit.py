"""model.Result -> the objects openMCP's Cluster Scheduler writes: Clusters (new ones, and the
request finalizers on existing ones) and the ClusterRequests' finalizer and status.

Written as upstream's queue would leave them after one reconcile of every request:

- requests being deleted first: their finalizer comes off every cluster the global selector
  admits, and a cluster left with no request finalizer whose `delete-without-requests` label is
  exactly "true" is written so and deleted (unless a request of this run took it); the request
  is written without its own finalizer;
- then every other reconciled request in queue order: it gets the finalizer
  `clusters.openmcp.cloud/request`; its cluster carries `request.clusters.openmcp.cloud/<uid>`
  (restored when lost; a lost cluster is made again under the same name); a new cluster takes the
  purpose's template (labels, annotations, spec with the purpose appended to spec.purposes,
  `delete-without-requests: "true"` unless the template sets it) and the finalizers of every
  request placed on it. A name already taken by a cluster no live request uses is taken over, as
  upstream does: stale request finalizers dropped, labels and annotations merged, spec replaced;
- an Exclusive cluster also gets the request's `metadata.open-control-plane.io/*` labels and
  annotations, when made and whenever the request that holds it is reconciled;
- status: observedGeneration, phase Granted with status.cluster {name, namespace}, or Pending;
  an `openmcp.cloud/operation: reconcile` annotation, having done its job, is taken off.
  A cluster made for a request with the randomize label carries its generateName beside the
  name the API server would give it (load.py), and the request is granted with that name.

Every written object keeps the rest of its metadata and status as read. Output: the Clusters by
namespace and name, then the ClusterRequests by namespace and name; deletions as references.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from adapters.contract import Emitted
from adapters.kube.fields import whole
from adapters.kube.manifests import object_reference
from adapters.openmcp import names as n
from adapters.openmcp.load import NewCluster, OpenMcpContext, selected
from adapters.openmcp.objects import ClusterObject, RequestObject, request_uids
from model import Result

__all__ = ["emit"]


def emit(context: OpenMcpContext, result: Result) -> Emitted:
    writes: dict[str, _ClusterWrite] = {}

    def existing(key: str) -> _ClusterWrite:
        write = writes.get(key)
        if write is None:
            write = writes[key] = _ClusterWrite.of(context.clusters[key])
        return write

    # Deletions first: the requests they free count for nobody.
    touched: set[str] = set()
    gone = {r.uid: r for r in context.deleting}
    for key in sorted(context.clusters) if gone else ():
        c = context.clusters[key]
        leaving = [gone[uid] for uid in sorted(c.uids & gone.keys())]
        if leaving and selected(context.config.clusters, c.labels):
            for r in leaving:
                existing(key).remove(r.finalizer)
            touched.add(key)

    by_request = result.by_request()
    statuses: dict[str, tuple[str, tuple[str, str] | None]] = {}
    solved = sorted((c for c in context.requests.values() if c.mapping is not None), key=lambda c: c.order)
    for ctx in solved:
        r = ctx.request
        got = by_request.get(r.key)
        if got is None:
            raise ValueError(f"the result has no answer for ClusterRequest {r.key!r}")
        if not got.selected:
            statuses[r.key] = (n.PENDING, r.cluster)
            continue
        choice = got.selected[0]
        if choice.created:
            write = writes.get(choice.cluster)
            if write is None:
                write = writes[choice.cluster] = _ClusterWrite.new(
                    context.new_clusters[choice.cluster], r, context.clusters, context.live_uids
                )
            write.add(r.finalizer)
            if write.exclusive:
                write.propagate(r)
        else:
            write = existing(choice.cluster)
            write.add(r.finalizer)
            if r.cluster is not None and write.exclusive:
                write.propagate(r)
        statuses[r.key] = (n.GRANTED, write.reference)

    for ctx in context.requests.values():
        if ctx.mapping is not None:
            continue
        r = ctx.request  # no mapping for its purpose: only a cluster it holds keeps it Granted
        held = r.cluster_key
        if held in context.clusters:
            write = existing(held)
            write.add(r.finalizer)
            if write.exclusive:
                write.propagate(r)
            statuses[r.key] = (n.GRANTED, r.cluster)
        else:
            statuses[r.key] = (n.PENDING, r.cluster)

    # A cluster left without requests is written without their finalizers (or its deletion would
    # wait on them for ever), then deleted.
    delete = [
        object_reference(context.clusters[key].manifest)
        for key in sorted(touched)
        if not writes[key].created and not request_uids(writes[key].finalizers) and writes[key].deletable
    ]

    apply = [w.render() for w in sorted(writes.values(), key=lambda w: w.reference)]
    requests = [*((ctx.request, statuses[key]) for key, ctx in context.requests.items())]
    requests += [(r, None) for r in context.deleting]
    apply += [_request(r, status) for r, status in sorted(requests, key=lambda item: item[0].key)]
    unsatisfied = tuple(sorted(key for key, (phase, _) in statuses.items() if phase != n.GRANTED))
    return Emitted(apply, delete, tuple(sorted(context.requests)), unsatisfied)


def _request(r: RequestObject, status: tuple[str, tuple[str, str] | None] | None) -> dict[str, Any]:
    """The request with its finalizer (removed when it is being deleted) and its status."""
    obj = r.manifest.obj
    metadata = obj["metadata"]
    read = metadata.get("finalizers") or []
    finalizers = None  # as read
    if status is None:
        if n.REQUEST_FINALIZER in read:
            finalizers = [f for f in read if f != n.REQUEST_FINALIZER]
    elif n.REQUEST_FINALIZER not in read:
        finalizers = [*read, n.REQUEST_FINALIZER]
    out = dict(obj)
    if finalizers is not None:
        out["metadata"] = {**metadata, "finalizers": finalizers}
    if r.annotations.get(n.OPERATION) == n.RECONCILE:  # done: upstream takes the annotation off
        annotations = {k: v for k, v in r.annotations.items() if k != n.OPERATION}
        out["metadata"] = {**out["metadata"], "annotations": annotations}
    if status is None:
        return out  # upstream writes no status for a request it lets go
    phase, cluster = status
    written = dict(obj.get("status") or {})
    # The updater sets ObservedGeneration to GetGeneration() (controller-utils status_updater.go),
    # an int64 the status always carries (`json:"observedGeneration"`, no omitempty): 0 for a
    # request without a generation. 2.0 is the API server's 2.
    generation = whole(metadata.get("generation"))
    written["observedGeneration"] = 0 if generation is None else generation
    written["phase"] = phase
    if cluster is not None:
        written["cluster"] = {"name": cluster[1], "namespace": cluster[0]}
    if written != (obj.get("status") or {}):
        out["status"] = written
    return out


class _ClusterWrite:
    """One Cluster as it will be written: the object read (or a new one) and what changes."""

    def __init__(self, obj: Mapping[str, Any], tenancy: str, *, created: bool) -> None:
        self.obj = obj
        metadata = obj["metadata"]
        # (namespace, name): what a request's status points to, and the output's order.
        self.reference: tuple[str, str] = (metadata["namespace"], metadata["name"])
        self.finalizers: list[str] = list(metadata.get("finalizers") or [])
        self.labels: dict[str, str] = dict(metadata.get("labels") or {})
        self.annotations: dict[str, str] = dict(metadata.get("annotations") or {})
        self.spec: Any = obj.get("spec")
        self.tenancy = tenancy
        self.created = created

    @classmethod
    def of(cls, cluster: ClusterObject) -> _ClusterWrite:
        return cls(cluster.manifest.obj, cluster.tenancy, created=False)

    @classmethod
    def new(
        cls,
        plan: NewCluster,
        opener: RequestObject,
        clusters: Mapping[str, ClusterObject],
        live: frozenset[str],
    ) -> _ClusterWrite:
        """A cluster made from the purpose's template for the request that opens it; one of that
        name that exists already is taken over."""
        template = plan.mapping.template
        labels = dict(template.labels)
        labels.setdefault(n.DELETE_WITHOUT_REQUESTS, "true")
        spec = copy.deepcopy(dict(template.spec))
        purposes = list(spec.get("purposes") or [])
        if opener.purpose not in purposes:
            purposes.append(opener.purpose)
        spec["purposes"] = purposes
        found = clusters.get(f"{plan.namespace}/{plan.name}")
        if found is not None:
            write = cls.of(found)
            write.finalizers = sorted(
                f
                for f in write.finalizers
                if not f.startswith(n.ON_CLUSTER_PREFIX) or f.removeprefix(n.ON_CLUSTER_PREFIX) in live
            )
            write.labels.update(labels)
            write.annotations.update(template.annotations)
            write.spec = spec
            write.tenancy = template.tenancy
            return write
        metadata: dict[str, Any] = {"name": plan.name}
        if plan.generate_name:
            metadata["generateName"] = plan.generate_name
        metadata["namespace"] = plan.namespace
        obj = {"apiVersion": n.API_VERSION, "kind": n.CLUSTER, "metadata": metadata, "spec": spec}
        write = cls(obj, template.tenancy, created=True)
        write.labels = labels
        write.annotations = dict(template.annotations)
        return write

    @property
    def exclusive(self) -> bool:
        return self.tenancy == n.EXCLUSIVE

    @property
    def deletable(self) -> bool:
        return self.labels.get(n.DELETE_WITHOUT_REQUESTS) == "true"

    def add(self, finalizer: str) -> None:
        if finalizer not in self.finalizers:
            self.finalizers.append(finalizer)

    def remove(self, finalizer: str) -> None:
        self.finalizers = [f for f in self.finalizers if f != finalizer]

    def propagate(self, r: RequestObject) -> None:
        """The request's metadata.open-control-plane.io/* labels and annotations."""
        for source, target in ((r.labels, self.labels), (r.annotations, self.annotations)):
            for key, value in sorted(source.items()):
                if key.startswith(n.PROPAGATED_PREFIX):
                    target[key] = value

    def render(self) -> dict[str, Any]:
        obj = self.obj
        metadata = dict(obj["metadata"])
        for key, value in (("labels", self.labels), ("annotations", self.annotations)):
            if value != (metadata.get(key) or {}):
                metadata[key] = value
        if self.finalizers != list(metadata.get("finalizers") or []) or self.created:
            metadata["finalizers"] = self.finalizers
        out = {**obj, "metadata": metadata}
        if self.spec is not obj.get("spec"):
            out["spec"] = self.spec
        return out
