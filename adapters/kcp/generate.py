"""A deterministic synthetic kcp workspace set, in either API generation.

    objects = generate(500, 2_000, seed=0, now=now)                    # v0.8: SyncTargets, Placements
    objects = generate(500, 2_000, seed=0, now=now, generation="v0.5") # WorkloadClusters, annotations

`clusters` WorkloadClusters (v0.5) or SyncTargets (v0.8) and `placements` user namespaces:

- compute workspaces holding the `kubernetes` APIExport, the clusters and the Locations over them:
  the main one (one Location per ten clusters, each over a pool of clusters of one region and
  environment, pools of lognormal sizes; every tenth Location spans a whole region, up to one per
  region, so some clusters are in two Locations) and, from 20 clusters on, a small lab whose two
  clusters are never available (not Ready, or evicting): what binds there cannot be placed.
  Locations expose region, provider, environment and tier labels, some `gpu: "true"`. Clusters:
  93% Ready and schedulable, 3% not Ready, 2% unschedulable (cordoned), 1.5% evicting
  (`evictAfter` in the past), 0.5% with an eviction announced for later (exact shares, at random
  positions);
- user workspaces (v0.5 about 20 namespaces each, in one organization with its compute workspace;
  v0.8 about 5, in several organizations; bound by the compute workspace's `path`), each
  with an APIBinding to the compute service's `kubernetes` export (2% have none, 1% one that is
  not ready), 1% bound to the lab;
- v0.5: namespaces with the scheduler's annotation `scheduling.kcp.dev/placement` as earlier runs
  and the other actors left it: 72% placed (Bound on a cluster of a Location, state label `Sync`
  and the syncer's finalizer; some Pending, some in the middle of a move with a Removing entry, an
  Unbound leftover, or Bound in two Locations), the rest new; a few opt out
  (`experimental.workloads.kcp.dev/scheduling-disabled`), a few carry a malformed entry beside
  their good ones;
- v0.8: per workspace a `default` Placement (namespaceSelector `{}` or all but the opted-out) over
  Locations chosen by environment, region or tier, sometimes a second `gpu` Placement for the
  namespaces labelled `workload: gpu`; 85% of the Placements are Bound to a Location with a
  SyncTarget (`internal.workload.kcp.dev/synctarget`), their namespaces marked
  (`scheduling.kcp.dev/placement: ""`) and labelled `state.workload.kcp.dev/<key>: Sync`, the rest
  new (Pending, no status); 1% select no Location at all; a few namespaces are in the middle of a
  move (an old key being removed).

A Bound placement may sit on a cluster that has since become unavailable: those are the moves the
next run is forced to make. Draws come from ``np.random.default_rng((seed, section))``; the same
arguments give the same objects; times are relative to ``now``.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from adapters.generate.common import (
    check_sizes,
    exact_categories,
    pick,
    rng_for,
    scattered,
    share_count,
    time_text,
    utc_moment,
)
from adapters.kcp import names as n
from adapters.kcp.annotation import format_placement
from adapters.kcp.keys import sync_target_key
from adapters.kcp.status import set_condition
from adapters.kcp.workspace import mark

__all__ = ["GENERATIONS", "generate"]

GENERATIONS = ("v0.5", "v0.8")
Obj = dict[str, Any]

# (region, provider); Locations take them in turn.
REGIONS = (
    ("us-east-1", "aws"), ("eu-west-1", "aws"), ("europe-west4", "gcp"), ("eastus", "azure"),
    ("us-central1", "gcp"), ("ap-northeast-1", "aws"), ("westeurope", "azure"), ("asia-east1", "gcp"),
)  # fmt: skip
ENVIRONMENTS, ENVIRONMENT_SHARES = ("production", "staging"), (0.7, 0.3)
TIERS, TIER_SHARES = ("gold", "silver", "bronze"), (0.2, 0.5, 0.3)
GPU_SHARE = 0.15  # Locations with gpu: "true"
REGION_WIDE_EVERY = 10  # every tenth Location spans its whole region
CLUSTERS_PER_LOCATION = 10
LAB_FROM = 20  # clusters from which the unavailable lab exists

# Cluster states, exact shares: available (what the others leave), not ready, unschedulable, evicting,
# eviction announced.
AVAILABLE, UNREADY, CORDONED, EVICTING, ANNOUNCED = range(5)
CLUSTER_SHARES = (0.93, 0.03, 0.02, 0.015, 0.005)

POOL = "compute.kcp.example/pool"
OPT_OUT = "compute.kcp.example/placement"  # "none": left out by the default Placement
GPU = "gpu"

ORGS = ("acme", "globex", "initech", "umbrella", "hooli", "stark")
TEAMS = (
    "payments", "search", "identity", "checkout", "media", "ads", "catalog", "analytics", "billing",
    "logistics", "support", "ml", "platform", "data",
)  # fmt: skip
APPS = ("api", "web", "worker", "db", "cache", "queue", "batch", "ui", "auth", "cron", "etl", "gateway")
NO_BINDING_SHARE, BINDING_NOT_READY_SHARE, LAB_BINDING_SHARE = 0.02, 0.01, 0.01

# v0.5 namespace states (of namespaces in bound workspaces), exact shares (new ones: what the others leave).
V05_STATES = ("new", "bound", "pending", "moving", "unbound-leftover", "two-locations")
V05_SHARES = (0.28, 0.62, 0.03, 0.03, 0.02, 0.02)
DISABLED_SHARE, MALFORMED_SHARE = 0.01, 0.003

# v0.8
NAMESPACES_PER_WORKSPACE = {"v0.5": 20, "v0.8": 5}
BOUND_SHARE, NOWHERE_SHARE, GPU_PLACEMENT_SHARE, OPTED_OUT_SHARE = 0.85, 0.01, 0.15, 0.03
MOVING_SHARE = 0.02

# rng sections
_CLUSTERS, _WORKSPACES, _NAMESPACES, _STATE = 81, 82, 83, 84


def _sizes(rng: np.random.Generator, total: int, parts: int, sigma: float = 0.5) -> list[int]:
    """`total` split into `parts` positive sizes (when total >= parts) of lognormal weights."""
    if parts <= 0:
        return []
    if total < parts:
        return [1] * total + [0] * (parts - total)
    weights = np.exp(sigma * rng.standard_normal(parts))
    extra = rng.multinomial(total - parts, weights / weights.sum())
    return (extra + 1).tolist()


def _condition(kind: str, status: str, at: datetime, reason: str = "", message: str = "") -> Obj:
    """A condition set at `at`, as kcp's conditions.Set writes it."""
    return set_condition([], kind, (status, reason, message), time_text(at))[0]


class _Set:
    def __init__(self, clusters: int, placements: int, seed: int, now: datetime, generation: str) -> None:
        self.size, self.total, self.seed, self.now = clusters, placements, seed, now
        self.generation = generation
        self.v05 = generation == "v0.5"
        org = "root:acme"
        self.compute = f"{org}:compute" if self.v05 else "root:compute"
        self.lab = f"{org}:compute-lab" if self.v05 else "root:compute-lab"
        self.has_lab = clusters >= LAB_FROM
        self.cluster_kind = n.WORKLOAD_CLUSTER if self.v05 else n.SYNC_TARGET
        self.resource = n.LOCATION_RESOURCE[n.Generation(generation)]
        self.objects: list[Obj] = []

    def _metadata(self, workspace: str, name: str, **fields: Any) -> Obj:
        """An object's metadata, its workspace marked as kcp of the generation marks it (v0.5:
        metadata.clusterName, v0.8: the kcp.dev/cluster annotation, beside any other)."""
        metadata = mark({"name": name}, workspace, n.Generation(self.generation))
        for key, value in fields.items():
            if key == "annotations":
                metadata.setdefault(key, {}).update(value)
            else:
                metadata[key] = value
        return metadata

    # -- compute ---------------------------------------------------------------------------------

    def compute_workspaces(self) -> None:
        rng = rng_for(self.seed, _CLUSTERS)
        main = self.size - (2 if self.has_lab else 0)
        count = max(1, round(self.size / CLUSTERS_PER_LOCATION)) - (1 if self.has_lab else 0)
        count = max(1, count) if main else 0
        # Every tenth Location spans its region, up to one per region.
        wide, spanned = [], set()
        for k in range(count):
            region = k % len(REGIONS)
            wide.append(k % REGION_WIDE_EVERY == REGION_WIDE_EVERY - 1 and region not in spanned)
            if wide[-1]:
                spanned.add(region)
        pools = [k for k in range(count) if not wide[k]] or list(range(min(count, 1)))
        if pools and wide[pools[0]]:
            wide[pools[0]] = False
        environment = rng.choice(len(ENVIRONMENTS), size=count, p=ENVIRONMENT_SHARES)
        tier = rng.choice(len(TIERS), size=count, p=TIER_SHARES)
        gpu = rng.random(count) < GPU_SHARE
        # Locations: region in turn; pool locations get the clusters.
        self.locations: list[dict[str, Any]] = []
        for k in range(count):
            region, provider = REGIONS[k % len(REGIONS)]
            env = ENVIRONMENTS[int(environment[k])]
            name = f"{region}-any" if wide[k] else f"{region}-{env[:4]}-{k // len(REGIONS):02d}"
            self.locations.append(
                {
                    "name": name,
                    "workspace": self.compute,
                    "region": region,
                    "labels": {
                        "region": region,
                        "provider": provider,
                        "environment": env,
                        "tier": TIERS[int(tier[k])],
                        **({GPU: "true"} if gpu[k] else {}),
                    },
                    "wide": wide[k],
                    "clusters": [],
                }
            )
        sizes = _sizes(rng, main, len(pools))
        state = exact_categories(rng, main, CLUSTER_SHARES, rest=AVAILABLE)
        ages = rng.integers(1, 600, size=max(main, 1))
        ahead = rng.integers(3600, 86400, size=max(main, 1))
        self.clusters: list[dict[str, Any]] = []
        index = 0
        for k, size in zip(pools, sizes, strict=True):
            location = self.locations[k]
            for _ in range(size):
                self.clusters.append(
                    self._cluster(
                        index, self.compute, location, int(state[index]), int(ages[index]), int(ahead[index])
                    )
                )
                index += 1
        for location in self.locations:
            if location["wide"]:
                location["clusters"] = [
                    c
                    for c in self.clusters
                    if c["workspace"] == self.compute and c["region"] == location["region"]
                ]
        self.lab_location: dict[str, Any] | None = None
        if self.has_lab:
            lab = {
                "name": "lab",
                "workspace": self.lab,
                "region": "us-east-1",
                "labels": {
                    "region": "us-east-1",
                    "provider": "aws",
                    "environment": "staging",
                    "tier": "bronze",
                },
                "wide": False,
                "clusters": [],
            }
            for j, st in enumerate((UNREADY, EVICTING)):
                self.clusters.append(self._cluster(main + j, self.lab, lab, st, 60, 0))
            self.lab_location = lab
        self._emit_compute()

    def _cluster(
        self, index: int, workspace: str, location: dict[str, Any], state: int, age: int, ahead: int
    ) -> dict[str, Any]:
        name = f"{location['region']}-{index:05d}" if workspace == self.compute else f"lab-{index:05d}"
        cluster = {
            "name": name,
            "workspace": workspace,
            "region": location["region"],
            "location": location["name"],
            "env": location["labels"]["environment"],
            "provider": location["labels"]["provider"],
            "state": state,
            "age": age,
            "ahead": ahead,
            "key": name if self.v05 else sync_target_key(workspace, name),
        }
        location["clusters"].append(cluster)
        return cluster

    @property
    def available(self) -> set[str]:
        return {c["key"] for c in self.clusters if c["state"] in (AVAILABLE, ANNOUNCED)}

    def _emit_compute(self) -> None:
        workspaces = [self.compute] + ([self.lab] if self.has_lab else [])
        for ws in workspaces:
            self.objects.append(
                {
                    "apiVersion": f"{n.APIS_GROUP}/{n.VERSION}",
                    "kind": "APIExport",
                    "metadata": self._metadata(ws, n.COMPUTE_EXPORT),
                    "spec": {"latestResourceSchemas": ["v1.deployments.apps", "v1.services.core"]},
                }
            )
            for location in [*self.locations, *([self.lab_location] if self.lab_location else [])]:
                if location["workspace"] == ws:
                    self.objects.append(self._location(location))
            for cluster in self.clusters:
                if cluster["workspace"] == ws:
                    self.objects.append(self._cluster_object(cluster))

    def _location(self, location: dict[str, Any]) -> Obj:
        selector = (
            {"matchLabels": {"region": location["region"]}}
            if location["wide"]
            else {"matchLabels": {POOL: location["name"]}}
        )
        labels = location["labels"]
        return {
            "apiVersion": n.SCHEDULING_API,
            "kind": n.LOCATION,
            "metadata": self._metadata(
                location["workspace"],
                location["name"],
                labels=dict(labels),
                annotations={
                    "scheduling.kcp.dev/labels": " ".join(f"{k}={v}" for k, v in sorted(labels.items()))
                },
            ),
            "spec": {
                "resource": {"group": n.WORKLOAD_GROUP, "version": n.VERSION, "resource": self.resource},
                "description": f"{labels['environment']} clusters in {location['region']}",
                "availableSelectorLabels": [
                    {"key": "region", "values": [location["region"]], "description": "cloud region"}
                ],
                "instanceSelector": selector,
            },
            "status": {
                "instances": len(location["clusters"]),
                "availableInstances": sum(
                    1 for c in location["clusters"] if c["state"] in (AVAILABLE, ANNOUNCED)
                ),
            },
        }

    def _cluster_object(self, cluster: dict[str, Any]) -> Obj:
        now, state = self.now, cluster["state"]
        spec: Obj = {}
        if state == CORDONED:
            spec["unschedulable"] = True
        if state == EVICTING:
            spec["evictAfter"] = time_text(now - timedelta(seconds=cluster["age"]))
        if state == ANNOUNCED:
            spec["evictAfter"] = time_text(now + timedelta(seconds=cluster["ahead"]))
        if not self.v05:
            spec["supportedAPIExports"] = [{"exportName": n.COMPUTE_EXPORT, "path": self.compute}]
        ready = state != UNREADY
        heartbeat = now - timedelta(seconds=(cluster["age"] % 20) if ready else 300 + cluster["age"])
        conditions = [
            _condition(n.READY, "True", now - timedelta(days=3))
            if ready
            else _condition(
                n.READY, "False", heartbeat, "ErrorHeartbeat", "No heartbeat since " + time_text(heartbeat)
            )
        ]
        labels = {"region": cluster["region"], "provider": cluster["provider"], "environment": cluster["env"]}
        if cluster["workspace"] == self.compute:
            labels[POOL] = cluster["location"]
        return {
            "apiVersion": f"{n.WORKLOAD_GROUP}/{n.VERSION}",
            "kind": self.cluster_kind,
            "metadata": self._metadata(cluster["workspace"], cluster["name"], labels=labels),
            "spec": spec,
            "status": {"conditions": conditions, "lastSyncerHeartbeatTime": time_text(heartbeat)},
        }

    # -- users -----------------------------------------------------------------------------------

    def user_workspaces(self) -> None:
        rng = rng_for(self.seed, _WORKSPACES)
        per = NAMESPACES_PER_WORKSPACE[self.generation]
        count = max(1, math.ceil(self.total / per)) if self.total else 0
        sizes = _sizes(rng, self.total, count, sigma=0.7)
        # No binding, a binding not ready, bound to the lab: their shares, at least one each from
        # ten workspaces on.
        shares = (NO_BINDING_SHARE, BINDING_NOT_READY_SHARE, LAB_BINDING_SHARE)
        odd = [share_count(share, count, one_from=10) for share in shares]
        kind = scattered(rng, [count - sum(odd), *odd], count)
        if not self.has_lab:
            kind = np.where(kind == 3, 0, kind)
        orgs = rng.integers(0, len(ORGS), size=count)
        self.workspaces = []
        for i in range(count):
            team = TEAMS[i % len(TEAMS)]
            name = f"{team}-{i // len(TEAMS):03d}" if count > len(TEAMS) else team
            org = "acme" if self.v05 else ORGS[int(orgs[i])]
            self.workspaces.append(
                {
                    "path": f"root:{org}:{name}",
                    "team": team,
                    "size": sizes[i],
                    "binding": ("ready", "none", "not-ready", "lab")[int(kind[i])],
                }
            )

    def _binding(self, ws: dict[str, Any]) -> Obj:
        target = self.lab if ws["binding"] == "lab" else self.compute
        reference = {"path": target, "exportName": n.COMPUTE_EXPORT}
        ready = ws["binding"] != "not-ready"
        at = self.now - timedelta(days=30)
        return {
            "apiVersion": f"{n.APIS_GROUP}/{n.VERSION}",
            "kind": n.API_BINDING,
            "metadata": self._metadata(ws["path"], n.COMPUTE_EXPORT),
            "spec": {"reference": {"workspace": reference}},
            "status": {
                "phase": "Bound" if ready else "Binding",
                "conditions": [
                    _condition(n.API_EXPORT_VALID, "True", at),
                    _condition(n.INITIAL_BINDING_COMPLETED, "True" if ready else "False", at),
                ],
            },
        }

    def _namespace(self, ws: dict[str, Any], name: str, labels: dict[str, str], created: datetime) -> Obj:
        return {
            "apiVersion": "v1",
            "kind": n.NAMESPACE,
            "metadata": self._metadata(
                ws["path"],
                name,
                labels={"kubernetes.io/metadata.name": name, **labels},
                creationTimestamp=time_text(created),
            ),
            "status": {"phase": "Active"},
        }

    def namespaces(self) -> None:
        rng = rng_for(self.seed, _NAMESPACES)
        state_rng = rng_for(self.seed, _STATE)
        for ws in self.workspaces:
            if ws["binding"] != "none":
                self.objects.append(self._binding(ws))
            names = [
                f"{APPS[j % len(APPS)]}" + (f"-{j // len(APPS)}" if j >= len(APPS) else "")
                for j in range(ws["size"])
            ]
            ages = rng.integers(3600, 400 * 86400, size=max(len(names), 1))
            spaces = [
                self._namespace(ws, name, {"team": ws["team"]}, self.now - timedelta(seconds=int(ages[j])))
                for j, name in enumerate(names)
            ]
            if self.v05:
                self._v05_state(ws, spaces, state_rng)
            else:
                self._v08_state(ws, spaces, state_rng)

    # -- v0.5 ------------------------------------------------------------------------------------

    def _v05_location(self, ws: dict[str, Any], rng: np.random.Generator) -> dict[str, Any] | None:
        if ws["binding"] == "lab":
            return self.lab_location
        if not self.locations:
            return None
        return pick(rng, self.locations)

    def _v05_state(self, ws: dict[str, Any], spaces: list[Obj], rng: np.random.Generator) -> None:
        states = exact_categories(rng, len(spaces), V05_SHARES, rest=0)
        disabled = rng.random(len(spaces)) < DISABLED_SHARE
        malformed = rng.random(len(spaces)) < MALFORMED_SHARE
        bound = ws["binding"] not in ("none", "not-ready")
        for j, ns in enumerate(spaces):
            meta = ns["metadata"]
            if disabled[j]:
                meta["labels"][n.SCHEDULING_DISABLED] = "true"
            state = V05_STATES[int(states[j])]
            location = self._v05_location(ws, rng)
            if state == "new" or location is None or not location["clusters"] or ws["binding"] == "lab":
                continue
            if not bound and j % 3:
                continue  # mostly nothing; sometimes a leftover of an earlier binding
            members = location["clusters"]
            first = pick(rng, members)
            entries: dict[str, str] = {}
            negotiation = location["workspace"]

            def key(loc: dict[str, Any], cluster: dict[str, Any]) -> str:
                return f"{loc['workspace']}+{loc['name']}+{cluster['key']}"

            if state == "bound":
                entries[key(location, first)] = n.State.BOUND
            elif state == "pending":
                entries[key(location, first)] = n.State.PENDING
            elif state in ("moving", "unbound-leftover"):
                others = [c for c in members if c is not first]
                entries[key(location, first)] = n.State.REMOVING if state == "moving" else n.State.UNBOUND
                if others:
                    entries[key(location, pick(rng, others))] = n.State.BOUND
            else:  # two locations
                entries[key(location, first)] = n.State.BOUND
                other = pick(rng, self.locations)
                clusters = [c for c in other["clusters"] if c["key"] != first["key"]]
                if clusters:
                    entries[key(other, pick(rng, clusters))] = n.State.BOUND
            malformed_entries = {"legacy+cluster": "Bound"} if malformed[j] else {}
            annotations = meta.setdefault("annotations", {})
            annotations[n.PLACEMENT_ANNOTATION] = format_placement(entries, malformed_entries)
            annotations[n.NEGOTIATION_ANNOTATION] = negotiation
            labels, finalizers = meta["labels"], []
            for entry, value in sorted(entries.items()):
                cluster = entry.rpartition("+")[2]
                if value in (n.State.PENDING, n.State.BOUND, n.State.REMOVING):
                    labels[n.V05_STATE_LABEL + cluster] = n.SYNC
                if value in (n.State.BOUND, n.State.REMOVING):
                    finalizers.append(n.V05_SYNCER_FINALIZER + cluster)
                if value == n.State.REMOVING:
                    annotations[n.V05_DELETION_ANNOTATION + cluster] = time_text(
                        self.now - timedelta(seconds=30)
                    )
            if finalizers:
                meta["finalizers"] = sorted(set(finalizers))
        self.objects.extend(spaces)

    # -- v0.8 ------------------------------------------------------------------------------------

    def _selectors(self, rng: np.random.Generator) -> list[Obj]:
        """A Placement's locationSelectors (ORed)."""
        draw = rng.random()
        region = pick(rng, REGIONS)[0]
        if draw < NOWHERE_SHARE:
            return [{"matchLabels": {"region": "mars-1"}}]
        if draw < 0.50:
            return [{"matchLabels": {"environment": "production"}}]
        if draw < 0.75:
            return [{"matchLabels": {"region": region}}]
        if draw < 0.85:
            return [{"matchLabels": {"environment": "staging"}}]
        if draw < 0.95:
            return [{"matchLabels": {"region": region, "tier": "gold"}}, {"matchLabels": {"tier": "gold"}}]
        return [
            {"matchLabels": {"region": region}},
            {"matchExpressions": [{"key": "provider", "operator": "In", "values": ["gcp", "azure"]}]},
        ]

    def _matching(self, selectors: list[Obj], workspace: str) -> list[dict[str, Any]]:
        pool = [self.lab_location] if workspace == self.lab and self.lab_location else self.locations
        out = []
        for location in pool:
            labels = location["labels"]
            for s in selectors:
                ok = all(labels.get(k) == v for k, v in (s.get("matchLabels") or {}).items())
                for e in s.get("matchExpressions") or ():
                    ok = ok and labels.get(e["key"]) in e["values"]
                if ok:
                    out.append(location)
                    break
        return out

    def _v08_state(self, ws: dict[str, Any], spaces: list[Obj], rng: np.random.Generator) -> None:
        opted = rng.random(len(spaces)) < OPTED_OUT_SHARE
        gpu_ns = rng.random(len(spaces)) < 0.2
        with_gpu = rng.random() < GPU_PLACEMENT_SHARE and len(spaces) > 1
        narrow = bool(opted.any()) or rng.random() < 0.1
        for j, ns in enumerate(spaces):
            if opted[j]:
                ns["metadata"]["labels"][OPT_OUT] = "none"
            if with_gpu and gpu_ns[j]:
                ns["metadata"]["labels"]["workload"] = GPU
        location_ws = self.lab if ws["binding"] == "lab" else self.compute
        specs = [
            (
                "default",
                self._selectors(rng),
                {"matchExpressions": [{"key": OPT_OUT, "operator": "NotIn", "values": ["none"]}]}
                if narrow
                else {},
            )
        ]
        if with_gpu:
            specs.append(("gpu", [{"matchLabels": {GPU: "true"}}], {"matchLabels": {"workload": GPU}}))
        active = ws["binding"] in ("ready", "lab")
        placed: dict[int, list[str]] = {}
        moving: dict[int, str] = {}
        for name, selectors, namespace_selector in specs:
            obj: Obj = {
                "apiVersion": n.SCHEDULING_API,
                "kind": n.PLACEMENT,
                "metadata": self._metadata(
                    ws["path"], name, creationTimestamp=time_text(self.now - timedelta(days=20))
                ),
                "spec": {
                    "locationSelectors": selectors,
                    "locationResource": {
                        "group": n.WORKLOAD_GROUP,
                        "version": n.VERSION,
                        "resource": self.resource,
                    },
                    "namespaceSelector": namespace_selector,
                    "locationWorkspace": location_ws,
                },
            }
            matching = self._matching(selectors, location_ws)
            selected = [
                i for i, ns in enumerate(spaces) if _selected(namespace_selector, ns["metadata"]["labels"])
            ]
            if active and matching and selected and rng.random() < BOUND_SHARE:
                location = pick(rng, matching)
                clusters = location["clusters"]
                obj["status"] = {
                    "phase": n.PHASE_BOUND,
                    "selectedLocation": {"path": location_ws, "locationName": location["name"]},
                    "conditions": [_condition(n.READY, "True", self.now - timedelta(days=20))],
                }
                if clusters:
                    target = pick(rng, clusters)
                    obj["metadata"].setdefault("annotations", {})[n.SYNC_TARGET_ANNOTATION] = target["key"]
                    for i in selected:
                        placed.setdefault(i, []).append(target["key"])
                        if rng.random() < MOVING_SHARE:
                            old = pick(rng, clusters)["key"]
                            if old != target["key"]:
                                moving[i] = old
            self.objects.append(obj)
        for i, ns in enumerate(spaces):
            keys = placed.get(i)
            if not keys:
                continue
            meta = ns["metadata"]
            meta.setdefault("annotations", {})[n.PLACEMENT_ANNOTATION] = ""
            for key in sorted(set(keys)):
                meta["labels"][n.STATE_LABEL + key] = n.SYNC
            if i in moving:
                meta["labels"][n.STATE_LABEL + moving[i]] = n.SYNC
                meta["annotations"][n.DELETION_ANNOTATION + moving[i]] = time_text(
                    self.now - timedelta(seconds=2)
                )
        self.objects.extend(spaces)


def _selected(selector: Obj, labels: dict[str, str]) -> bool:
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or ():
        value = labels.get(e["key"])
        if e["operator"] == "NotIn" and value in e["values"]:
            return False
        if e["operator"] == "In" and value not in e["values"]:
            return False
    return True


def generate(
    clusters: int, placements: int, *, seed: int = 0, now: datetime, generation: str = "v0.8"
) -> list[Obj]:
    """The workspace set: compute workspaces (APIExport, Locations, clusters) first, then each user
    workspace's APIBinding, Placements (v0.8) and Namespaces. `placements` counts namespaces."""
    check_sizes(clusters, placements, seed)
    if generation not in GENERATIONS:
        raise ValueError(f"unknown generation {generation!r}; expected one of {', '.join(GENERATIONS)}")
    now = utc_moment(now)
    if not clusters and not placements:
        return []
    hub = _Set(int(clusters), int(placements), int(seed), now, generation)
    hub.compute_workspaces()
    hub.user_workspaces()
    hub.namespaces()
    return hub.objects
