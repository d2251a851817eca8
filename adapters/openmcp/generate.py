"""Deterministic synthetic openMCP hubs: the Cluster Scheduler's config, Clusters and ClusterRequests.

    from adapters.openmcp.generate import generate, generate_config
    config = generate_config(300, 1250, seed=0)     # {"scheduler": {...}}, the operator config
    objects = generate(300, 1250, seed=0, now=datetime(2026, 11, 21, 12, tzinfo=UTC))

The config has four purposes, one of each kind the scheduler knows:

- ``workload``: Shared, a small tenancy count (10 where requests outnumber clusters two to one or
  more, else 5), clusters in ``workload-clusters`` named from ``generateName: wl-``;
- ``platform``: Shared, a smaller count (5 where requests outnumber clusters eight to one or more,
  else 3), clusters in ``platform-clusters`` named ``platform-<hash>`` (no generateName), kept when
  their last request goes (``delete-without-requests: "false"``), its template listing
  ``platform`` and ``onboarding``, a per-purpose selector that keeps out-of-region clusters away;
- ``onboarding``: Shared, unlimited (tenancyCount 0), the singleton ``onboarding`` in the request's
  namespace (no template namespace), its template listing ``onboarding`` and ``workload``;
- ``mcp``: Exclusive, one new cluster per request in ``mcp-clusters`` (``generateName: mcp-``).

A global cluster selector (``openmcp.cloud/landscape: live`` and no ``openmcp.cloud/maintenance``
label) and a request selector (``openmcp.cloud/scheduler NotIn [manual]``); Cluster scope and the
Balanced strategy unless asked otherwise.

The hub holds ``clusters`` Clusters, sorted by namespace and name:

- made by the scheduler for each purpose (labels from the templates), hand-made ``shared-<region>-NNN``
  clusters, and ``onboarding`` singletons in a few tenant namespaces; their ``spec.purposes`` lists
  overlap (1 to 3 purposes), so purposes compete for the same tenancy slots;
- request finalizers ``request.clusters.openmcp.cloud/<uid>`` from 0 up to and beyond the tenancy
  counts (some clusters full, a few over a count lowered since, a few empty), drawn against the
  pending demand: the free slots of the clusters that can take a purpose are about 60% (platform)
  and 70% (workload, counting the room on platform, shared and singleton clusters listing it) of
  its pending requests. Solved at 300 clusters x 1,250 requests, nearly every pending request is
  granted, more than half of them on existing clusters, and one in six opens a new cluster (every
  Exclusive one does). Most finalizers belong to requests the hub does not hold
  (other tenants' requests, or stale ones): they count all the same;
- a few clusters outside the selectors (another landscape, in maintenance, out of the platform
  purpose's regions) and a few being deleted.

And ``placements`` ClusterRequests, sorted by namespace and name, in a handful of namespaces:

- exactly ``round(0.80 * placements)`` pending and reconciled (no ``status.cluster``; more where the
  clusters hold fewer finalizers than there are requests to grant), created in the last six hours,
  purposes in a Zipf-like mix (workload, platform, onboarding, mcp), a few with an unknown purpose,
  a few with the randomize-cluster-name label, some already seen (phase Pending, the request
  finalizer), a few annotated ``openmcp.cloud/operation: reconcile``;
- granted requests (``status.cluster``, phase Granted, their finalizer on that cluster; a few whose
  cluster lost the finalizer or is gone altogether, to be restored or recreated);
- requests being deleted (``deletionTimestamp`` and the ``clusters.openmcp.cloud/request`` finalizer),
  most of them granted;
- requests annotated ``openmcp.cloud/operation: ignore`` and requests the request selector leaves
  out (``openmcp.cloud/scheduler: manual``), granted or not.

Draws come from ``np.random.default_rng((seed, section))`` (:func:`adapters.generate.common.rng_for`); the
same arguments give the same objects; times are relative to ``now``.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import numpy as np

from adapters.generate.common import (
    Clock,
    check_sizes,
    exact_categories,
    expression,
    label_selector,
    rng_for,
    sample_share,
    share_count,
    utc_moment,
    uuid_text,
    zipf_weights,
)
from adapters.openmcp import names as n

__all__ = [
    "API_VERSION",
    "PENDING_SHARE",
    "PURPOSES",
    "generate",
    "generate_config",
]

API_VERSION = n.API_VERSION
CLUSTER, REQUEST = n.CLUSTER, n.REQUEST
REQUEST_FINALIZER_PREFIX = n.ON_CLUSTER_PREFIX
REQUEST_OWN_FINALIZER = n.REQUEST_FINALIZER
PROVIDER_FINALIZER = "clusterprovider.openmcp.cloud/cleanup"  # a ClusterProvider's, not the scheduler's
DELETE_WITHOUT_REQUESTS = n.DELETE_WITHOUT_REQUESTS
RANDOMIZE = n.RANDOMIZE_NAME
OPERATION = n.OPERATION
PROPAGATED = n.PROPAGATED_PREFIX

LANDSCAPE, MAINTENANCE = "openmcp.cloud/landscape", "openmcp.cloud/maintenance"
POOL, REGION, SCHEDULER = "openmcp.cloud/pool", "openmcp.cloud/region", "openmcp.cloud/scheduler"
PROJECT = "openmcp.cloud/project"

WORKLOAD, PLATFORM, ONBOARDING, MCP = "workload", "platform", "onboarding", "mcp"
PURPOSES = (WORKLOAD, PLATFORM, ONBOARDING, MCP)
UNKNOWN_PURPOSE = "legacy-batch"  # in no purposeMappings: stays Pending

# Request namespaces, Zipf-sized.
NAMESPACES = (
    "project-atlas", "project-borealis", "project-cygnus", "project-draco", "project-eridanus",
    "project-fornax", "project-gemini", "project-hydra",
)  # fmt: skip
TEAMS = (
    "checkout", "search", "identity", "billing", "media", "ads", "catalog", "analytics", "payments",
    "logistics", "support", "ml",
)  # fmt: skip
REGIONS, REGION_SHARES = ("eu-central", "eu-west", "us-east"), (0.70, 0.25, 0.05)
PLATFORM_REGIONS = ("eu-central", "eu-west")
K8S_VERSIONS, K8S_SHARES = ("1.30", "1.31", "1.32"), (0.2, 0.5, 0.3)

# Requests: (state, share); the pending share is exact (round(PENDING_SHARE * placements)).
PENDING_SHARE = 0.80
STATE_SHARES = {"granted": 0.13, "deleting": 0.03, "ignored": 0.02, "unmanaged": 0.02}
PURPOSE_SHARES = (0.50, 0.25, 0.15, 0.10)  # of pending requests, in PURPOSES order
UNKNOWN_SHARE, RANDOMIZE_SHARE, SEEN_SHARE, RECONCILE_SHARE = 0.003, 0.01, 0.3, 0.005
WAIT_SHARE = 0.05  # spec.waitForClusterDeletion (ignored by the scheduler)
HELD_SHARE = {"deleting": 0.8, "ignored": 0.5, "unmanaged": 0.5}  # of these: granted before
LOST_FINALIZER_SHARE, LOST_CLUSTER_SHARE = 0.01, 0.005  # of granted requests

# Clusters: kinds and their shares (the onboarding singletons are counted apart).
KINDS = (WORKLOAD, PLATFORM, "shared", MCP)
KIND_SHARES = (0.53, 0.23, 0.04, 0.20)
SINGLETON_SHARE = 0.01  # onboarding singletons (at most one per namespace, at least one)
WORKLOAD_ALSO_PLATFORM = 0.30  # workload clusters listing platform too (edited by hand)
PLATFORM_ALSO_WORKLOAD = 0.20  # platform clusters listing workload too
SHARED_ALL_THREE = 0.5  # hand-made shared clusters listing onboarding as well
OUTSIDE_SHARE = 0.03  # another landscape or in maintenance: invisible to the scheduler
DELETING_CLUSTER_SHARE = 0.01
# Free slots of a purpose's own clusters / its pending demand (workload requests find more room on
# the platform and shared clusters that list workload too).
FREE_SHARES = {WORKLOAD: 0.70, PLATFORM: 0.60}
OVER_SHARE, EMPTY_SHARE = 0.04, 0.03  # clusters over their tenancy count / with no request
SINGLETON_MAX_LOAD = 40
BASE32 = np.array(list("abcdefghijklmnopqrstuvwxyz234567"))

# rng sections
_CLUSTERS, _LOADS, _REQUESTS, _UIDS = 71, 72, 73, 74


def tenancy_counts(clusters: int, placements: int) -> dict[str, int]:
    """tenancyCount per purpose: larger where requests far outnumber clusters."""
    ratio = placements / max(clusters, 1)
    return {
        WORKLOAD: 10 if ratio >= 2 else 5,
        PLATFORM: 5 if ratio >= 8 else 3,
        ONBOARDING: 0,
        MCP: 0,
    }


def generate_config(
    clusters: int,
    placements: int,
    *,
    seed: int,
    scope: str = "Cluster",
    strategy: str = "Balanced",
) -> dict[str, Any]:
    """The operator config document ``{"scheduler": {...}}`` the generated hub is made for: valid
    as upstream validates it (every template's labels satisfy the global and its own selector).
    Only the tenancy counts depend on the sizes; `seed` is accepted for symmetry (the purposes and
    selectors are the same for every seed)."""
    check_sizes(clusters, placements, seed)
    counts = tenancy_counts(int(clusters), int(placements))
    live = {LANDSCAPE: "live"}
    owner = {"openmcp.cloud/owner": "platform-team"}
    mappings: dict[str, Any] = {
        WORKLOAD: {
            "tenancyCount": counts[WORKLOAD],
            "selector": label_selector(None, expression(POOL, "In", "general", "platform")),
            "template": {
                "metadata": {
                    "namespace": "workload-clusters",
                    "generateName": "wl-",
                    "labels": {**live, POOL: "general", REGION: "eu-central"},
                    "annotations": {**owner, "openmcp.cloud/cost-center": "cc-4711"},
                },
                "spec": {"profile": "gcp-small", "tenancy": "Shared", "purposes": [WORKLOAD]},
            },
        },
        PLATFORM: {
            "tenancyCount": counts[PLATFORM],
            "selector": label_selector(
                None,
                expression(POOL, "In", "general", "platform"),
                expression(REGION, "In", *PLATFORM_REGIONS),
            ),
            "template": {
                "metadata": {
                    "namespace": "platform-clusters",
                    "labels": {
                        **live,
                        POOL: "platform",
                        REGION: "eu-central",
                        DELETE_WITHOUT_REQUESTS: "false",
                    },
                    "annotations": owner,
                },
                "spec": {"profile": "gcp-large", "tenancy": "Shared", "purposes": [PLATFORM, ONBOARDING]},
            },
        },
        ONBOARDING: {
            "tenancyCount": 0,
            "template": {
                "metadata": {
                    "name": ONBOARDING,
                    "labels": {
                        **live,
                        POOL: "platform",
                        REGION: "eu-central",
                        DELETE_WITHOUT_REQUESTS: "false",
                    },
                },
                "spec": {
                    "profile": "gcp-workerless",
                    "tenancy": "Shared",
                    "purposes": [ONBOARDING, WORKLOAD],
                },
            },
        },
        MCP: {
            "tenancyCount": 0,
            "selector": label_selector({POOL: "mcp"}),
            "template": {
                "metadata": {
                    "namespace": "mcp-clusters",
                    "generateName": "mcp-",
                    "labels": {**live, POOL: "mcp", REGION: "eu-central"},
                    "annotations": {"openmcp.cloud/owner": "mcp-operator"},
                },
                "spec": {"profile": "gcp-workerless", "tenancy": "Exclusive"},
            },
        },
    }
    return {
        "scheduler": {
            "scope": scope,
            "strategy": strategy,
            "selectors": {
                "clusters": label_selector(live, expression(MAINTENANCE, "DoesNotExist")),
                "requests": label_selector(None, expression(SCHEDULER, "NotIn", "manual")),
            },
            "purposeMappings": mappings,
        }
    }


# ==================================================================================== helpers


def _uids(rng: np.random.Generator, size: int) -> list[str]:
    """Random (version 4) UUIDs."""
    raw = rng.bytes(16 * size).hex()
    return [uuid_text(raw[k : k + 32]) for k in range(0, 32 * size, 32)]


def _suffixes(rng: np.random.Generator, size: int) -> list[str]:
    """8-character base32 name suffixes, as the scheduler's hashed names look."""
    letters = BASE32[rng.integers(0, len(BASE32), size=(size, 8))]
    return ["".join(row) for row in letters.tolist()]


# ==================================================================================== the hub


class _Hub:
    def __init__(self, clusters: int, placements: int, seed: int, now: datetime) -> None:
        self.size, self.total, self.seed = clusters, placements, seed
        self.clock = Clock(now)
        self.config = generate_config(clusters, placements, seed=seed)
        self.counts = tenancy_counts(clusters, placements)
        self.pending = round(PENDING_SHARE * placements)

    # -- clusters -------------------------------------------------------------------------------

    def clusters(self) -> None:
        """Cluster identities (independent of the number of requests) and their finalizer counts."""
        rng, size = rng_for(self.seed, _CLUSTERS), self.size
        singletons = min(len(NAMESPACES), max(1, round(SINGLETON_SHARE * size))) if size else 0
        kind = np.concatenate(
            [exact_categories(rng, size - singletons, KIND_SHARES), np.full(singletons, len(KINDS))]
        ).astype(np.int64)  # len(KINDS): onboarding singleton
        region = rng.choice(len(REGIONS), size=size, p=REGION_SHARES)
        version = rng.choice(len(K8S_VERSIONS), size=size, p=K8S_SHARES)
        extra = rng.random(size)
        outside = rng.random(size) < OUTSIDE_SHARE
        outside_how = rng.integers(0, 2, size)
        deleting = rng.random(size) < DELETING_CLUSTER_SHARE
        ages = rng.integers(86400, 400 * 86400, size)
        deletion_ages = rng.integers(30, 3600, size)
        suffix = _suffixes(rng, size)
        uids = _uids(rng, size)
        names: list[str] = []
        namespaces: list[str] = []
        purposes: list[list[str]] = []
        labels: list[dict[str, str]] = []
        mappings = self.config["scheduler"]["purposeMappings"]
        seen: set[tuple[str, str]] = set()
        shared_index = 0
        for i in range(size):
            k = int(kind[i])
            r = REGIONS[int(region[i])]
            if k == len(KINDS):  # an onboarding singleton in a tenant namespace
                ns, name = NAMESPACES[i - (size - singletons)], ONBOARDING
                listed = [ONBOARDING, WORKLOAD]
                meta = mappings[ONBOARDING]["template"]["metadata"]
                lab = {**meta["labels"], REGION: r}
            elif KINDS[k] == "shared":
                shared_index += 1
                ns, name = "shared-clusters", f"shared-{r}-{shared_index:03d}"
                listed = [WORKLOAD, PLATFORM] + ([ONBOARDING] if extra[i] < SHARED_ALL_THREE else [])
                lab = {LANDSCAPE: "live", POOL: "general", REGION: r, DELETE_WITHOUT_REQUESTS: "false"}
            else:
                purpose = KINDS[k]
                meta = mappings[purpose]["template"]["metadata"]
                ns = meta["namespace"]
                name = meta.get("generateName", f"{purpose}-") + suffix[i]
                listed = list(mappings[purpose]["template"]["spec"].get("purposes") or [purpose])
                if purpose == WORKLOAD and extra[i] < WORKLOAD_ALSO_PLATFORM:
                    listed.append(PLATFORM)
                if purpose == PLATFORM and extra[i] < PLATFORM_ALSO_WORKLOAD:
                    listed.append(WORKLOAD)
                if purpose == MCP:
                    listed = [MCP]
                lab = {**meta["labels"], REGION: r}
                lab.setdefault(DELETE_WITHOUT_REQUESTS, "true")
            if outside[i]:
                if outside_how[i]:
                    lab[LANDSCAPE] = "canary"
                else:
                    lab[MAINTENANCE] = "true"
            while (ns, name) in seen:  # a suffix drawn twice (about never)
                name += "x"
            seen.add((ns, name))
            names.append(name)
            namespaces.append(ns)
            purposes.append(listed)
            labels.append(lab)
        self.kind, self.names, self.namespaces = kind, names, namespaces
        self.purposes, self.labels = purposes, labels
        self.version = version
        self.deleting_cluster = deleting
        self.cluster_created = self.clock.before(ages)
        self.cluster_deleted = self.clock.before(deletion_ages)
        self.cluster_uids = uids
        self.loads = self._loads(rng_for(self.seed, _LOADS))

    def _home(self) -> list[str]:
        """Each cluster's home purpose: the one its finalizer count is drawn against."""
        home = []
        for k in self.kind.tolist():
            home.append(ONBOARDING if k == len(KINDS) else PLATFORM if KINDS[k] == "shared" else KINDS[k])
        return home

    def _loads(self, rng: np.random.Generator) -> np.ndarray:
        """Finalizer counts. The free slots of the clusters that can take a purpose are a share
        (FREE_SHARES) of its pending demand: platform's on its own and the shared clusters; then
        workload's, counting the room the platform, shared and singleton clusters listing
        workload leave it (at least 5% of the slots stay free, at most 90%)."""
        size = self.size
        home = np.array(self._home(), dtype=object)
        loads = np.zeros(size, dtype=np.int64)
        demand = dict(zip(PURPOSES, (self.pending * s for s in PURPOSE_SHARES), strict=True))
        u = rng.random(size)
        over = rng.integers(1, 3, size)

        def draw(purpose: str, target: float) -> None:
            members = np.flatnonzero(home == purpose)
            if not len(members):
                return
            limit = self.counts[purpose]
            free = float(np.clip(target / (len(members) * limit), 0.05, 0.9))
            load = limit - rng.binomial(limit, free, len(members))
            v = u[members]
            load = np.where(v < OVER_SHARE, limit + over[members], load)
            loads[members] = np.where((v >= OVER_SHARE) & (v < OVER_SHARE + EMPTY_SHARE), 0, load)

        draw(PLATFORM, FREE_SHARES[PLATFORM] * demand[PLATFORM])
        singles = np.flatnonzero(home == ONBOARDING)
        loads[singles] = rng.integers(0, SINGLETON_MAX_LOAD + 1, len(singles))
        exclusive = np.flatnonzero(home == MCP)
        loads[exclusive] = (rng.random(len(exclusive)) >= EMPTY_SHARE).astype(np.int64)
        limit = self.counts[WORKLOAD]
        elsewhere = sum(
            max(limit - int(loads[c]), 0)
            for c in range(size)
            if home[c] != WORKLOAD and WORKLOAD in self.purposes[c]
        )
        draw(WORKLOAD, FREE_SHARES[WORKLOAD] * demand[WORKLOAD] - elsewhere)
        return loads

    # -- requests -------------------------------------------------------------------------------

    def requests(self) -> None:
        rng, total = rng_for(self.seed, _REQUESTS), self.total
        states = ("pending", *STATE_SHARES)
        state = exact_categories(rng, total, (PENDING_SHARE, *STATE_SHARES.values()))
        namespace = rng.choice(len(NAMESPACES), size=total, p=zipf_weights(len(NAMESPACES), 0.8))
        team = rng.integers(0, len(TEAMS), total)
        u = rng.random((total, 6))
        pending_ages = rng.integers(0, 6 * 3600, total)
        old_ages = rng.integers(86400, 180 * 86400, total)
        deletion_ages = rng.integers(5, 1800, total)
        purpose_of = rng.choice(len(PURPOSES), size=total, p=PURPOSE_SHARES)
        uids = _uids(rng, total)

        # Which requests held a cluster before: granted ones, and some of the others.
        held = np.zeros(total, dtype=bool)
        for name, share in HELD_SHARE.items():
            held |= (state == states.index(name)) & (u[:, 0] < share)
        held |= state == states.index("granted")
        holders = np.flatnonzero(held)

        # Each cluster's finalizer slots; the holders take slots of clusters listing a purpose the
        # cluster serves (their purpose is that cluster's home purpose, or one it lists).
        slots = np.repeat(np.arange(self.size), self.loads)
        chosen = rng.permutation(len(slots))[: len(holders)]
        holders = holders[: len(chosen)]  # more holders than slots: the rest stay pending
        held[:] = False
        held[holders] = True
        home = self._home()
        self.finalizers: list[list[str]] = [[] for _ in range(self.size)]
        self.held_by: dict[int, int] = {}
        for request, slot in zip(holders.tolist(), chosen.tolist(), strict=True):
            self.held_by[request] = int(slots[slot])
        # A few granted requests lost their finalizer on the cluster, a few name a cluster that is
        # gone (made under an older naming scheme): their slot is free either way. At least one of
        # each once there are 20 granted requests.
        granted = np.array(
            [r for r in holders.tolist() if state[r] == states.index("granted")], dtype=np.int64
        )
        lost_suffix = _suffixes(rng, total)
        order = rng.permutation(granted)

        lost = share_count(LOST_FINALIZER_SHARE, len(granted), one_from=20)
        lost_finalizer = set(order[:lost].tolist())
        gone = order[lost : lost + share_count(LOST_CLUSTER_SHARE, len(granted), one_from=20)]
        self.lost_cluster: dict[int, str] = {r: lost_suffix[r] for r in gone.tolist()}  # -> name suffix
        unplaced = lost_finalizer | set(self.lost_cluster)

        foreign = _uids(rng_for(self.seed, _UIDS), int(self.loads.sum()))
        used = 0
        holders_of: dict[int, list[int]] = {}
        for request, cluster in self.held_by.items():
            holders_of.setdefault(cluster, []).append(request)
        for c in range(self.size):
            mine = holders_of.get(c, [])
            for request in mine:
                if request not in unplaced:
                    self.finalizers[c].append(REQUEST_FINALIZER_PREFIX + uids[request])
            others = int(self.loads[c]) - len(mine)
            self.finalizers[c].extend(REQUEST_FINALIZER_PREFIX + x for x in foreign[used : used + others])
            used += others

        pending_index = np.flatnonzero((state == 0) & ~held)
        picked = sample_share(rng, len(pending_index), UNKNOWN_SHARE)
        unknown = set(pending_index[picked].tolist())

        is_pending = state == states.index("pending")
        ages = np.where(held, old_ages, np.where(is_pending, pending_ages, old_ages // 30))
        created = self.clock.before(ages)
        deleted = self.clock.before(np.minimum(deletion_ages, ages))

        out = []
        for i in range(total):
            s = states[int(state[i])]
            ns = NAMESPACES[int(namespace[i])]
            team_name = TEAMS[int(team[i])]
            labels = {PROJECT: ns, "app.kubernetes.io/managed-by": "mcp-operator"}
            annotations: dict[str, str] = {}
            status: dict[str, Any] | None = None
            finalizers: list[str] = []
            if held[i]:
                c = self.held_by[i]
                purpose = self._held_purpose(c, home[c], u[i, 1])
                cluster = {"name": self.names[c], "namespace": self.namespaces[c]}
                if i in self.lost_cluster:
                    template = self.config["scheduler"]["purposeMappings"][purpose]["template"]["metadata"]
                    prefix = template.get("generateName") or f"{purpose}-"
                    cluster = {
                        "name": prefix + self.lost_cluster[i],
                        "namespace": template.get("namespace") or ns,
                    }
                status = {"phase": n.GRANTED, "cluster": cluster, "observedGeneration": 1}
                finalizers.append(REQUEST_OWN_FINALIZER)
            else:
                purpose = UNKNOWN_PURPOSE if i in unknown else PURPOSES[int(purpose_of[i])]
                if u[i, 2] < SEEN_SHARE or s != "pending":
                    status = {"phase": n.PENDING, "observedGeneration": 1}
                    finalizers.append(REQUEST_OWN_FINALIZER)
                if s == "pending" and u[i, 3] < RANDOMIZE_SHARE:
                    labels[RANDOMIZE] = "true"
                elif s == "pending" and u[i, 3] < RANDOMIZE_SHARE + RECONCILE_SHARE:
                    annotations[OPERATION] = "reconcile"
            meta: dict[str, Any] = {
                "name": f"{purpose}-{team_name}-{i:05d}",
                "namespace": ns,
                "uid": uids[i],
                "generation": 1,
                "creationTimestamp": created[i],
            }
            if s == "deleting":
                meta["deletionTimestamp"] = deleted[i]
                if REQUEST_OWN_FINALIZER not in finalizers:
                    finalizers.append(REQUEST_OWN_FINALIZER)
            elif s == "ignored":
                annotations[OPERATION] = n.IGNORE
            elif s == "unmanaged":
                labels[SCHEDULER] = "manual"
            if purpose == MCP or u[i, 4] < 0.1:
                labels[PROPAGATED + "team"] = team_name
                annotations[PROPAGATED + "contact"] = f"{team_name}@example.com"
            meta["labels"] = labels
            if annotations:
                meta["annotations"] = annotations
            if finalizers:
                meta["finalizers"] = finalizers
            spec: dict[str, Any] = {"purpose": purpose}
            if u[i, 5] < WAIT_SHARE:
                spec["waitForClusterDeletion"] = True
            obj: dict[str, Any] = {"apiVersion": API_VERSION, "kind": REQUEST, "metadata": meta, "spec": spec}
            if status is not None:
                obj["status"] = status
            out.append(obj)
        self.request_objects = out

    def _held_purpose(self, cluster: int, home: str, u: float) -> str:
        """The purpose of a request holding a slot on `cluster`: mostly the cluster's home
        purpose, else another purpose it lists (never the Exclusive one on a shared cluster)."""
        listed = [p for p in self.purposes[cluster] if p != MCP or home == MCP]
        if u < 0.75 or len(listed) == 1:
            return home
        others = [p for p in listed if p != home]
        return others[int(u * 1000) % len(others)]

    # -- objects --------------------------------------------------------------------------------

    def cluster_objects(self) -> list[dict[str, Any]]:
        mappings = self.config["scheduler"]["purposeMappings"]
        home = self._home()
        out = []
        for c in range(self.size):
            template = mappings[home[c]]["template"] if self.kind[c] != KINDS.index("shared") else None
            meta: dict[str, Any] = {
                "name": self.names[c],
                "namespace": self.namespaces[c],
                "uid": self.cluster_uids[c],
                "generation": 1,
                "creationTimestamp": self.cluster_created[c],
                "labels": self.labels[c],
            }
            annotations = (template or {}).get("metadata", {}).get("annotations")
            if annotations:
                meta["annotations"] = dict(annotations)
            finalizers = [PROVIDER_FINALIZER, *self.finalizers[c]]
            meta["finalizers"] = finalizers
            if self.deleting_cluster[c]:
                meta["deletionTimestamp"] = self.cluster_deleted[c]
            if template is not None:
                spec = copy.deepcopy(template["spec"])
            else:
                spec = {"profile": "gcp-large", "tenancy": "Shared"}
            spec["purposes"] = list(self.purposes[c])
            spec["kubernetes"] = {"version": K8S_VERSIONS[int(self.version[c])]}
            out.append({"apiVersion": API_VERSION, "kind": CLUSTER, "metadata": meta, "spec": spec})
        return out

    def objects(self) -> list[dict[str, Any]]:
        self.clusters()
        self.requests()
        clusters = sorted(
            self.cluster_objects(), key=lambda o: (o["metadata"]["namespace"], o["metadata"]["name"])
        )
        requests = sorted(
            self.request_objects, key=lambda o: (o["metadata"]["namespace"], o["metadata"]["name"])
        )
        return [*clusters, *requests]


def generate(clusters: int, placements: int, *, seed: int = 0, now: datetime) -> list[dict[str, Any]]:
    """A synthetic openMCP hub for the config :func:`generate_config` gives for the same sizes:
    `clusters` Clusters and `placements` ClusterRequests as plain JSON-like objects; the same
    arguments always give the same objects."""
    check_sizes(clusters, placements, seed)
    moment = utc_moment(now)
    return _Hub(int(clusters), int(placements), int(seed), moment).objects()
