"""openMCP objects -> model.Batch, keeping what emit needs to write the objects back.

Clusters: every Cluster, named "<namespace>/<name>" (so the batch's name order is the API
server's list order), with its labels, `purpose:<p>` for each of its spec.purposes and
`namespace:<ns>` as traits, ineligible while being deleted. Its load is the number of distinct
requests whose finalizer it carries, stale ones included, except the batch's own requests that
hold it (they count through their decision) and the requests being deleted in this run (their
finalizers come off first).

Requests: every ClusterRequest the scheduler reconciles (it matches selectors.requests and is not
annotated `openmcp.cloud/operation: ignore`), not being deleted, whose purpose has a mapping. Each
asks for one tenancy slot on a cluster its purpose's completed selector, the purpose and (in
Namespaced scope) the list namespace admit; it holds the cluster of its status.cluster, or the
listed cluster that already carries its finalizer (a status that was lost). Its order is the
queue upstream works through: creationTimestamp, then namespace/name. It may create the cluster
its purpose's template names for it (see naming.py), unless that name is taken by a cluster
another live request uses (upstream's ClusterConflict) or no name fits. A request with the
randomize label that holds no cluster gets the name the API server would give its cluster from
generateName (naming.server_names, drawn from `seed`): the first draw that no Cluster of the input
and no cluster this run may make (named by the template, made again, or drawn for a request
earlier in the queue) already has, so every cluster the run makes can be made; its request is
granted in the same run, as upstream grants it with the name the server answered.

Requests with an unknown purpose are not solved: emit writes them Pending, or Granted when they
already hold a cluster that exists. Nor are requests whose status.cluster has an empty name or
namespace (objects.RequestObject.lookup_fails): upstream's every reconcile of one fails, Pending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adapters.kube.fields import Fields
from adapters.kube.manifests import Manifest, index_by_kind
from adapters.kube.validation import dns_label_errors, generate_name_errors, subdomain_errors
from adapters.openmcp import names as n
from adapters.openmcp.config import PurposeMapping, SchedulerConfig, parse_config, required_config
from adapters.openmcp.naming import NamingError, generated_name, server_names
from adapters.openmcp.objects import ClusterObject, RequestObject, read_cluster, read_request
from model import (
    Batch,
    Cluster,
    ClusterTerm,
    ExistingDecision,
    LabelSelector,
    Packing,
    PlacementRequest,
    SelectionMode,
    Tenancy,
)

__all__ = ["NewCluster", "OpenMcpContext", "RequestContext", "load"]

PACKING = {n.BALANCED: Packing.FEWEST, n.SIMPLE: Packing.FIRST, n.RANDOM: Packing.RANDOM}


# Not frozen (nothing changes one once made): a hub makes one per object, tens of thousands,
# and a frozen dataclass's __init__ sets each field through object.__setattr__, about 1.3 us
# more for eight fields (tests/test_record_speed.py).
@dataclass(slots=True)
class NewCluster:
    """A cluster a result may create: where, under which name, from which purpose's template;
    `generate_name` for a request with the randomize label (its name the server's draw)."""

    namespace: str
    name: str
    generate_name: str
    mapping: PurposeMapping


@dataclass(slots=True)
class RequestContext:
    """One reconciled request, not being deleted."""

    request: RequestObject
    mapping: PurposeMapping | None  # None: no mapping for its purpose, or a lookup that fails (not solved)
    order: int = -1  # its place in the queue (solved requests only)
    recovered: str | None = None  # the listed cluster carrying its finalizer, when status.cluster is unset
    new_cluster: str = ""  # the neutral name of the cluster it would create
    generate_name: str = ""  # the prefix the API server names its new cluster from (randomize label)
    conflict: str | None = None  # why it cannot create one

    @property
    def held(self) -> str | None:
        """The cluster it holds: status.cluster, else the recovered one."""
        return self.request.cluster_key or self.recovered


@dataclass(slots=True)
class OpenMcpContext:
    config: SchedulerConfig
    clusters: dict[str, ClusterObject]  # every Cluster, by namespace/name
    requests: dict[str, RequestContext]  # by namespace/name
    deleting: list[RequestObject]  # reconciled requests being deleted
    new_clusters: dict[str, NewCluster] = field(default_factory=dict)  # by neutral name
    live_uids: frozenset[str] = frozenset()  # requests that still exist after this run's deletions
    now: datetime | None = None

    def tenants(self, cluster: ClusterObject, gone: frozenset[str] | None = None) -> frozenset[str]:
        """The request uids on a cluster once this run's deletions (`gone`: their uids) took
        theirs off."""
        if gone is None:
            gone = frozenset(r.uid for r in self.deleting)
        if gone and selected(self.config.clusters, cluster.labels):
            return cluster.uids - gone
        return cluster.uids


def selected(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    return selector is None or selector.matches(labels)


def load(
    manifests: Sequence[Manifest],
    *,
    now: datetime,
    seed: int = 0,
    config: Mapping[str, Any] | SchedulerConfig | None = None,
) -> tuple[Batch, OpenMcpContext]:
    objects = index_by_kind(manifests, n.KINDS)
    if isinstance(config, SchedulerConfig):
        cfg = config
    else:  # without ClusterRequests the config decides nothing, and need not be given
        cfg = required_config(config) if objects[n.REQUEST] else parse_config(config)
    clusters = {c.key: c for c in map(read_cluster, objects[n.CLUSTER])}
    requests = [read_request(m) for m in objects[n.REQUEST]]

    reconciled = [r for r in requests if reconciles(cfg, r)]
    deleting = [r for r in reconciled if r.deleting]
    gone = frozenset(r.uid for r in deleting)
    context = OpenMcpContext(
        cfg,
        clusters,
        {},
        deleting,
        live_uids=frozenset(r.uid for r in requests if r.uid and r.uid not in gone),
        now=now,
    )
    tenants = {key: context.tenants(c, gone) for key, c in clusters.items()}
    carrying: dict[str, list[ClusterObject]] = {}  # request uid -> the clusters with its finalizer, in order
    for key in sorted(clusters):
        for uid in clusters[key].uids:
            carrying.setdefault(uid, []).append(clusters[key])

    for r in reconciled:
        if r.deleting:
            continue
        # A reference upstream cannot look up fails every reconcile first: not solved, Pending.
        mapping = None if r.lookup_fails else cfg.purposes.get(r.purpose)
        ctx = context.requests[r.key] = RequestContext(r, mapping)
        if ctx.mapping is None:
            continue
        if r.cluster is None:
            listed = (c.key for c in carrying.get(r.uid, ()) if _listed(cfg, ctx.mapping, r, c))
            ctx.recovered = next(listed, None)
        _plan_new_cluster(context, ctx, tenants)

    solved = sorted(
        (ctx for ctx in context.requests.values() if ctx.mapping is not None),
        key=lambda ctx: (ctx.request.created, ctx.request.key),
    )
    load = {key: len(uids) for key, uids in tenants.items()}
    for order, ctx in enumerate(solved):
        ctx.order = order
        held = ctx.held
        if held in clusters and ctx.request.uid in tenants[held]:
            load[held] -= 1  # counted through its decision
        elif held is not None and held not in clusters:
            context.new_clusters.setdefault(held, _lost(ctx, held))
    for ctx in solved:  # once every other new name is known; in queue order, as the server sees creates
        if ctx.generate_name and ctx.held is None:
            _name_by_server(context, ctx, seed)
    for ctx in context.requests.values():
        held = ctx.request.cluster_key
        if ctx.mapping is None and held in clusters and ctx.request.uid not in tenants[held]:
            load[held] += 1  # emit restores its finalizer

    model_clusters = tuple(_model_cluster(clusters[key], load[key]) for key in sorted(clusters))
    shared: dict[tuple[str, str], _Shared] = {}
    model_requests = sorted((_model_request(cfg, ctx, shared) for ctx in solved), key=lambda r: r.key)
    return Batch(model_clusters, tuple(model_requests), now=now, seed=seed), context


def reconciles(cfg: SchedulerConfig, r: RequestObject) -> bool:
    """Whether upstream reconciles the request: it matches selectors.requests and is not annotated
    `openmcp.cloud/operation: ignore` (one it reconciles without a uid is refused)."""
    if not selected(cfg.requests, r.labels) or r.annotations.get(n.OPERATION) == n.IGNORE:
        return False  # upstream never reconciles it
    if not r.uid:
        # Kept refused: the API server gives every object it creates a uid, so no stored
        # request lacks one; and the uid names the request's finalizer on its cluster.
        raise Fields(r.manifest).fail(
            "required: the API server gives every object a uid, and the request's finalizer "
            "on its cluster names it",
            "metadata.uid",
        )
    return True


def _listed(cfg: SchedulerConfig, mapping: PurposeMapping, r: RequestObject, c: ClusterObject) -> bool:
    """Whether upstream's list of candidates for the request holds the cluster (deletion aside)."""
    if cfg.namespaced and c.namespace != _list_namespace(mapping, r):
        return False
    return r.purpose in c.purposes and selected(mapping.selector, c.labels)


def _joins(cfg: SchedulerConfig, mapping: PurposeMapping, r: RequestObject) -> tuple[str, ...]:
    """The other purposes' pools whose new clusters would be candidates for the request: Shared
    templates listing its purpose (upstream appends a template's own purpose to the rest), with
    labels its purpose's selector accepts, created where the request lists clusters."""
    if mapping.exclusive:
        return ()
    out = []
    for other in sorted(cfg.purposes.values(), key=lambda m: m.purpose):
        template = other.template
        if other.purpose == r.purpose or other.exclusive:
            continue
        if r.purpose not in (template.spec.get("purposes") or ()):
            continue
        labels = {n.DELETE_WITHOUT_REQUESTS: "true", **template.labels}  # as created
        if mapping.selector is not None and not mapping.selector.matches(labels):
            continue
        if cfg.namespaced:
            where = _list_namespace(mapping, r)
            if template.namespace and template.namespace != where:
                continue
            out.append(f"{other.purpose}@{where}")
        else:
            out.append(other.purpose)
    return tuple(out)


def _list_namespace(mapping: PurposeMapping, r: RequestObject) -> str:
    return mapping.template.namespace or r.namespace


def _plan_new_cluster(
    context: OpenMcpContext, ctx: RequestContext, tenants: Mapping[str, frozenset[str]]
) -> None:
    """The cluster the request would create: its neutral name, or why it cannot create one."""
    r, mapping = ctx.request, ctx.mapping
    assert mapping is not None
    template = mapping.template
    namespace = template.namespace or r.namespace
    randomize = r.labels.get(n.RANDOMIZE_NAME) == "true"
    if mapping.unlimited and not template.generate_name:
        prefix, name = "", template.name or r.purpose
    else:
        prefix = template.generate_name or f"{r.purpose}-"
        name = ""
        if not randomize:
            try:
                name = generated_name(prefix, r.namespace, r.name)
            except NamingError as err:
                ctx.conflict = str(err)
                return
    if refusal := _refusal(namespace, name, prefix):
        ctx.conflict = refusal
        return
    if not name:
        ctx.generate_name = prefix  # named once every other new name is known (_name_by_server)
        return
    key = f"{namespace}/{name}"
    existing = context.clusters.get(key)
    if existing is not None and r.finalizer not in existing.finalizers and tenants[key] & context.live_uids:
        ctx.conflict = (
            f"cluster '{key}' already exists and is used by a different ClusterRequest (the "
            f"'{n.RANDOMIZE_NAME}' label with value 'true' can be set on the ClusterRequest to "
            "randomize the cluster name and avoid this conflict)"
        )
        return
    context.new_clusters.setdefault(key, NewCluster(namespace, name, "", mapping))
    ctx.new_cluster = key


def _refusal(namespace: str, name: str, generate_name: str) -> str | None:
    """Why the API server would refuse to make the Cluster (upstream's create fails, and the
    request waits): its namespace, its name, or (no name) the generateName it is made from."""
    judged = (
        ("namespace", namespace, dns_label_errors(namespace)),
        ("name", name, subdomain_errors(name))
        if name
        else ("generateName", generate_name, generate_name_errors(generate_name)),
    )
    for what, value, errors in judged:
        if errors:
            return f"the API server would refuse a Cluster with {what} {value!r}: {'; '.join(errors)}"
    return None


def _name_by_server(context: OpenMcpContext, ctx: RequestContext, seed: int) -> None:
    """The name the API server gives the request's new cluster: its first draw not taken."""
    r, mapping = ctx.request, ctx.mapping
    assert mapping is not None
    namespace = mapping.template.namespace or r.namespace
    for name in server_names(ctx.generate_name, seed, r.namespace, r.name, r.uid):
        key = f"{namespace}/{name}"
        if key not in context.clusters and key not in context.new_clusters:
            context.new_clusters[key] = NewCluster(namespace, name, ctx.generate_name, mapping)
            ctx.new_cluster = key
            return


def _lost(ctx: RequestContext, held: str) -> NewCluster:
    """A held cluster that is gone: made again under the same name."""
    assert ctx.mapping is not None
    namespace, _, name = held.partition("/")
    return NewCluster(namespace, name, "", ctx.mapping)


def _model_cluster(c: ClusterObject, load: int) -> Cluster:
    traits = {n.PURPOSE_TRAIT.format(p) for p in c.purposes} | {n.NAMESPACE_TRAIT.format(c.namespace)}
    return Cluster(
        name=c.key,
        labels=c.labels,
        eligible=not c.deleting,
        ineligible_reason=n.BEING_DELETED if c.deleting else "",
        traits=frozenset(traits),
        load=load,
    )


@dataclass(frozen=True, slots=True)
class _Shared:
    """What every request of a purpose listing clusters in one namespace has alike, made once:
    its requirement, its own pool's name, the other pools it may join."""

    required: tuple[ClusterTerm, ...]
    own: str
    joins: tuple[str, ...]


def _shared(cfg: SchedulerConfig, mapping: PurposeMapping, r: RequestObject) -> _Shared:
    where = _list_namespace(mapping, r)
    traits = (n.PURPOSE_TRAIT.format(r.purpose),)
    if cfg.namespaced:
        traits += (n.NAMESPACE_TRAIT.format(where),)
    own = f"{r.purpose}@{where}" if cfg.namespaced else r.purpose
    return _Shared((ClusterTerm(labels=mapping.selector, traits=traits),), own, _joins(cfg, mapping, r))


def _model_request(
    cfg: SchedulerConfig, ctx: RequestContext, shared: dict[tuple[str, str], _Shared]
) -> PlacementRequest:
    r, mapping = ctx.request, ctx.mapping
    assert mapping is not None
    where = (r.purpose, _list_namespace(mapping, r))  # all that _shared reads of the request
    alike = shared.get(where)
    if alike is None:
        alike = shared[where] = _shared(cfg, mapping, r)
    own = alike.own
    # Requests whose new clusters are each other's candidates share a pool; one that cannot name
    # a cluster (a conflict) creates none, but still joins those others create.
    pool = own if ctx.conflict is None else None
    exclusive = mapping.exclusive
    joins = alike.joins + (() if pool is not None or exclusive else (own,))
    held = ctx.held
    return PlacementRequest(
        name=r.name,
        namespace=r.namespace,
        mode=SelectionMode.N,
        count=1,
        required=alike.required,
        existing=(ExistingDecision(held),) if held is not None else (),
        tenancy=Tenancy(
            order=ctx.order,
            limit=0 if exclusive else mapping.tenancy_count,
            packing=PACKING[cfg.strategy],
            pool=pool,
            new_cluster=ctx.new_cluster if pool is not None else "",
            exclusive=exclusive,
            joins=joins,
        ),
    )
