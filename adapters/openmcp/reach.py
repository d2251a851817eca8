"""openMCP's Cluster Scheduler for the long-lived scheduler (adapters.live.hub, through the System
record's `reach`): the model it keeps between events, and which ClusterRequests an event takes up.

What upstream reconciles (openmcp-operator internal/controllers/scheduler/controller.go,
SetupWithManager): it watches ClusterRequests only, never Clusters, and its event filter passes
a request matching `selectors.requests`, not annotated `openmcp.cloud/operation: ignore`, that
is created, or updated with a new metadata.generation, a deletionTimestamp set or changed, the
operation annotation turned to `reconcile` or an `ignore` taken off. So:

- a request created is taken up; a request's labels or annotations changed (its spec is
  immutable) are taken up only through the operation annotation, or when they bring it under the
  requests selector together with one of those; a user's deletion (its deletionTimestamp) takes
  it up, and it lets its clusters go (emit); a request gone from the hub takes up nothing;
- a Cluster joining, leaving, relabelled or otherwise changed takes up nothing: the next
  reconcile of a request lists the clusters as they then stand;
- a request that a reconcile left Pending with a mapping for its purpose (it could not be
  placed: its cluster name taken by another request's cluster) failed, and upstream retries it
  with a rate-limited backoff: it is taken up again with every event, as its retry would be.
  Requests that can never be placed (no mapping for their purpose, a status.cluster upstream
  cannot look up) fail the same way whenever they are retried: their retries write nothing new.
- the scheduler's own writes (a request's finalizer and status, finalizers on Clusters, a new
  Cluster) take up nothing.

A request taken up is decided as one reconcile decides it against the hub as it stands: every
Cluster with every other request's finalizers as they are (their tenancy counted), in upstream's
queue order among those taken up together (creationTimestamp, then namespace/name); greedy mode
is upstream's answer, optimal re-optimises the requests taken up with the rest held fixed. A
granted request is never moved (status.cluster is sticky and immutable), so nothing moves that
the event does not force, and a full solve of the hub (every request reconciled, as after a
restart) moves nothing either: it can only write what a reconcile would also write when the
request is next reconciled: an Exclusive cluster's `metadata.open-control-plane.io/*` labels and
annotations copied again from its request's (changed) metadata, a request finalizer restored
on a cluster a user stripped it from.

The model: every Cluster and ClusterRequest read once (again only when its object changes), the
request uids each Cluster's finalizers carry, and the model clusters with their tenancy count
(every request finalizer on them, stale ones included); a batch takes them all, moved by the
requests taken up as load.py counts them (a request holding a cluster counts through its
decision; one being deleted lets its finalizers go first). It keeps no journal
(adapters.live.kept.Journal): an event is refused only by the reading of its changed objects,
which `take` does before it changes anything, as nothing after can refuse it (the load and emit of
the requests taken up refuse nothing, and what they write, read back when the hub hears it, is
made of objects already read, a template the config checked and names the API server takes).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any

from adapters.contract import Change, Taken
from adapters.kube.manifests import Manifest
from adapters.live.kept import ClusterPool, generation_changed, manifest
from adapters.openmcp import names as n
from adapters.openmcp.config import SchedulerConfig, required_config
from adapters.openmcp.load import (
    OpenMcpContext,
    RequestContext,
    _listed,
    _lost,
    _model_cluster,
    _model_request,
    _name_by_server,
    _plan_new_cluster,
    reconciles,
    selected,
)
from adapters.openmcp.objects import ClusterObject, RequestObject, read_cluster, read_request
from model import Batch, Result

__all__ = ["OpenMcpLive", "live"]

Obj = Mapping[str, Any]


def live(
    manifests: Sequence[Manifest],
    *,
    now: datetime,
    seed: int,
    result: Result | None = None,
    config: Mapping[str, Any] | None = None,
) -> OpenMcpLive:
    return OpenMcpLive(manifests, seed=seed, config=config)


class OpenMcpLive:
    def __init__(self, manifests: Sequence[Manifest], *, seed: int, config: Mapping[str, Any] | None) -> None:
        self.seed = seed
        self._document = config
        self._cfg: SchedulerConfig | None = None
        self.clusters: dict[str, ClusterObject] = {}
        self.requests: dict[str, RequestObject] = {}
        self.pool = ClusterPool()
        self._carrying: dict[str, set[str]] = defaultdict(set)  # request uid -> cluster keys
        self._uids: Counter[str] = Counter()  # of every request
        self._retry: set[str] = set()  # requests a reconcile left Pending that may yet be placed
        self._retried_at: datetime | None = None
        for m in manifests:
            if m.kind == n.CLUSTER:
                self._put_cluster(read_cluster(m))
            elif m.kind == n.REQUEST:
                self._put_request(read_request(m))

    @property
    def cfg(self) -> SchedulerConfig:
        """The config (refused when missing, as load refuses ClusterRequests without one)."""
        if self._cfg is None:
            self._cfg = required_config(self._document)
        return self._cfg

    # -- what changes reach ---------------------------------------------------------------------

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        clusters: list[tuple[str, ClusterObject | None]] = []
        requests: list[tuple[str, RequestObject | None]] = []
        taken: set[str] = set()
        for before, after in changes:  # read first: a refusal keeps nothing
            obj = after if after is not None else before
            assert obj is not None
            key = f"{obj['metadata'].get('namespace') or ''}/{obj['metadata']['name']}"
            if obj["kind"] == n.CLUSTER:
                clusters.append((key, self._cluster(key, after)))
            elif obj["kind"] == n.REQUEST:
                request = self._request(key, after)
                requests.append((key, request))
                if request is not None and self._reconciles(before, after, request):
                    taken.add(key)
        for key, cluster in clusters:
            self._drop_cluster(key)
            if cluster is not None:
                self._put_cluster(cluster)
        for key, request in requests:
            self._drop_request(key)
            if request is not None:
                self._put_request(request)
        if self._retry and self._retried_at != now:  # their retries: once a moment
            self._retried_at = now
            taken |= self._retry
        if not taken:
            return None
        return self._taken([self.requests[key] for key in sorted(taken)], now)

    def _cluster(self, key: str, obj: Obj | None) -> ClusterObject | None:
        kept = self.clusters.get(key)
        if obj is None or (kept is not None and kept.manifest.obj is obj):
            return kept if obj is not None else None
        return read_cluster(manifest(obj))

    def _request(self, key: str, obj: Obj | None) -> RequestObject | None:
        kept = self.requests.get(key)
        if obj is None or (kept is not None and kept.manifest.obj is obj):
            return kept if obj is not None else None
        return read_request(manifest(obj))

    def _reconciles(self, before: Obj | None, after: Obj, request: RequestObject) -> bool:
        """Whether upstream's event filter passes the request's creation or update, and its
        reconcile takes it up (one without a uid is refused, as load refuses it)."""
        if not reconciles(self.cfg, request):
            return False
        if before is None:
            return True
        old = (before.get("metadata") or {}).get("annotations") or {}
        operation = old.get(n.OPERATION)
        return (
            generation_changed(before, after)
            or (before.get("metadata") or {}).get("deletionTimestamp")
            != after["metadata"].get("deletionTimestamp")
            or (request.annotations.get(n.OPERATION) == n.RECONCILE and operation != n.RECONCILE)
            or (operation == n.IGNORE and request.annotations.get(n.OPERATION) != n.IGNORE)
        )

    # -- the model ------------------------------------------------------------------------------

    def _put_cluster(self, c: ClusterObject) -> None:
        self.clusters[c.key] = c
        for uid in c.uids:
            self._carrying[uid].add(c.key)
        self.pool.put(_model_cluster(c, len(c.uids)))

    def _drop_cluster(self, key: str) -> None:
        c = self.clusters.pop(key, None)
        if c is None:
            return
        for uid in c.uids:
            held = self._carrying[uid]
            held.discard(key)
            if not held:
                del self._carrying[uid]
        self.pool.drop(key)

    def _put_request(self, r: RequestObject) -> None:
        self.requests[r.key] = r
        if r.uid:
            self._uids[r.uid] += 1
        if self._retried(r):
            self._retry.add(r.key)

    def _drop_request(self, key: str) -> None:
        r = self.requests.pop(key, None)
        if r is None:
            return
        self._retry.discard(key)
        if r.uid:
            self._uids[r.uid] -= 1
            if not self._uids[r.uid]:
                del self._uids[r.uid]

    def _retried(self, r: RequestObject) -> bool:
        """Left Pending by a reconcile that failed, with a mapping: its retry may place it."""
        status = r.manifest.obj.get("status") or {}
        if status.get("phase") != n.PENDING or r.deleting or r.lookup_fails or not r.uid:
            return False
        if self._document is None or r.purpose not in self.cfg.purposes:
            return False
        return reconciles(self.cfg, r)

    # -- the batch ------------------------------------------------------------------------------

    def _taken(self, taken: list[RequestObject], now: datetime) -> Taken:
        """The requests taken up, loaded as load.py loads a hub's (the same steps, over these
        requests only), every Cluster with every other request held as it stands."""
        cfg = self.cfg
        deleting = [r for r in taken if r.deleting]
        gone = frozenset(r.uid for r in deleting)
        context = OpenMcpContext(cfg, self.clusters, {}, deleting, live_uids=_Live(self._uids, gone), now=now)
        tenants = _Tenants(context, gone)
        loads: Counter[str] = Counter()
        for r in deleting:  # their finalizers come off first
            for key in self._carrying.get(r.uid, ()):
                if selected(cfg.clusters, self.clusters[key].labels):
                    loads[key] -= 1
        for r in taken:
            if r.deleting:
                continue
            mapping = None if r.lookup_fails else cfg.purposes.get(r.purpose)
            ctx = context.requests[r.key] = RequestContext(r, mapping)
            if mapping is None:
                continue
            if r.cluster is None:
                carrying = sorted(self._carrying.get(r.uid, ()))
                ctx.recovered = next(
                    (k for k in carrying if _listed(cfg, mapping, r, self.clusters[k])), None
                )
            _plan_new_cluster(context, ctx, tenants)
        solved = sorted(
            (ctx for ctx in context.requests.values() if ctx.mapping is not None),
            key=lambda ctx: (ctx.request.created, ctx.request.key),
        )
        for order, ctx in enumerate(solved):
            ctx.order = order
            held = ctx.held
            if held in self.clusters and ctx.request.uid in tenants[held]:
                loads[held] -= 1  # counted through its decision
            elif held is not None and held not in self.clusters:
                context.new_clusters.setdefault(held, _lost(ctx, held))
        for ctx in solved:
            if ctx.generate_name and ctx.held is None:
                _name_by_server(context, ctx, self.seed)
        for ctx in context.requests.values():
            held = ctx.request.cluster_key
            if ctx.mapping is None and held in self.clusters and ctx.request.uid not in tenants[held]:
                loads[held] += 1  # emit restores its finalizer
        joins: dict[tuple[str, str], tuple[str, ...]] = {}  # as load's: one per purpose and namespace
        requests = sorted((_model_request(cfg, ctx, joins) for ctx in solved), key=lambda r: r.key)
        batch = Batch(self.pool.clusters(loads, within=requests), tuple(requests), now=now, seed=self.seed)
        return Taken(batch, context)


class _Live(AbstractSet[str]):
    """The uids of the requests that still exist once this run's deletions are done, asked only
    whether they hold one uid or which of a few they hold (OpenMcpContext.live_uids): a view
    of the model's count of uids, never copied."""

    def __init__(self, uids: Mapping[str, int], gone: frozenset[str]) -> None:
        self._uids = uids
        self._gone = gone

    def __contains__(self, uid: object) -> bool:
        return uid in self._uids and uid not in self._gone

    def __iter__(self) -> Iterator[str]:
        return (uid for uid in self._uids if uid not in self._gone)

    def __len__(self) -> int:
        return len(self._uids) - len(self._gone & self._uids.keys())

    @classmethod
    def _from_iterable(cls, it: Iterable[str]) -> frozenset[str]:
        return frozenset(it)  # what `tenants & live` gives: the uids of the few asked that live


class _Tenants(Mapping[str, frozenset[str]]):
    """A cluster's tenants once this run's deletions took theirs off, asked of the few clusters
    a run looks at (OpenMcpContext.tenants)."""

    def __init__(self, context: OpenMcpContext, gone: frozenset[str]) -> None:
        self._context = context
        self._gone = gone

    def __getitem__(self, key: str) -> frozenset[str]:
        return self._context.tenants(self._context.clusters[key], self._gone)

    def __iter__(self) -> Iterator[str]:
        return iter(self._context.clusters)

    def __len__(self) -> int:
        return len(self._context.clusters)
