"""The soak test of the system-neutral long-lived scheduler (adapters.live.hub.HubScheduler): an OCM,
an openMCP and a kcp hub (both generations) each driven through thousands of random events.

    report = run_hub_soak("ocm", events=10_000, seed=0)
    python -m bench.hub_soak --events 10000                 # every system; the figures as Markdown

Each hub starts from the system's generator (adapters.generate.hubs.generate; openMCP with its
generated scheduler config). The events are drawn from a seeded numpy generator, each one a user's
write to an object as the scheduler's state holds it (`Applied`) or a deletion (`Deleted`); the
clock moves 15 seconds per event. Creations and deletions are steered so that the hub keeps about
its starting size (a soak, not a growth test):

- OCM: clusters joining, leaving and relabelled, their availability flipping (the agent's
  heartbeat condition), Placements created, changed (numberOfClusters up, down, set or removed)
  and deleted.
- openMCP: Clusters joining, deleted (a cluster holding requests keeps a deletionTimestamp until
  they go) and relabelled, ClusterRequests created, changed (a label) and deleted.
- kcp: clusters (WorkloadClusters v0.5, SyncTargets v0.8) joining, leaving, relabelled (another
  cluster's labels, so another Location), evicting (`evictAfter` now) and flipping Ready;
  Namespaces created, relabelled and deleted; v0.8 Placements created, changed and deleted.

Checked:

(a) every `check_every` events: a full solve of the kept state from scratch changes nothing
    (`HubScheduler.resolve`: the state is a fixed point of the scheduler);
(b) after every event, no move beyond the forced ones:
    - openMCP: a granted request's status.cluster never changes;
    - kcp: a namespace leaves a cluster only when that cluster can no longer hold it (gone,
      evicting, outside its location, v0.8 not Ready or cordoned) or it is no longer subject to
      placement (bench.kcp_hub.moves); events that change a namespace or a Placement themselves
      are not judged (they may legitimately move what they touch);
    - OCM (whose scheduler is not sticky: a PickN placement may swap to a better cluster): a
      decision is dropped only when its cluster is gone or no longer passes the placement's
      filters, or the placement is gone, misconfigured or was itself changed in this event, or, for
      a PickN placement without spread constraints, while it still holds numberOfClusters
      clusters (a swap); a PickAll placement never drops a cluster that passes;
(c) memory (tracemalloc, traced from before the first solve; CP-SAT's lazy import done before):
    what the process retains after a full collection at the last checkpoint is at most
    `MEMORY_FACTOR` times what it retained at the first, plus `MEMORY_SLACK_KIB` (a library's
    one-time allocation, such as the 3.7 MB polars made once in a test run's second window, is
    not a leak; a leak grows with every event and passes the slack in the long profile). Each
    window's peak is reported, not judged: it counts garbage the collector has not reached yet,
    which depends on the whole process's heap.
"""

from __future__ import annotations

import argparse
import copy
import gc
import hashlib
import json
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.fields import time_text
from adapters.live.hub import Applied, Deleted, HubScheduler
from adapters.openmcp.generate import generate_config
from adapters.run.changes import object_key
from bench.events import selected_pairs
from bench.kcp_hub import moves
from model import SelectionMode
from solver.checker import passes

__all__ = ["MEMORY_FACTOR", "MEMORY_SLACK_KIB", "PROFILES", "HubSoakReport", "render", "run_hub_soak"]

PROFILES = ("ocm", "openmcp", "kcp-v0.5", "kcp-v0.8")
MEMORY_FACTOR = 1.5
MEMORY_SLACK_KIB = 8 * 1024
STEP = timedelta(seconds=15)
NOW = datetime.fromisoformat(DEFAULT_NOW)
_SERVER = ("uid", "creationTimestamp", "deletionTimestamp", "resourceVersion", "generation", "managedFields")

Obj = dict[str, Any]


@dataclass(slots=True)
class HubSoakReport:
    profile: str
    events: int
    clusters: int
    placements: int
    seed: int
    first_solve_s: float = 0.0
    wall_s: float = 0.0  # the events (handle) only
    check_s: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)  # mean, p50, p95, max
    checks: dict[str, int] = field(default_factory=dict)
    hub_start: int = 0
    hub_end: int = 0
    memory_kib: list[float] = field(default_factory=list)  # peak per window of check_every events
    retained_kib: list[float] = field(default_factory=list)  # traced at each checkpoint, collected
    failures: list[str] = field(default_factory=list)
    digest: str = ""  # sha256 of every delta written, in order: the same events, the same deltas

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s else 0.0

    @property
    def memory_ratio(self) -> float:
        """What the last checkpoint retains against the first."""
        first = self.retained_kib[0] if self.retained_kib else 0.0
        return self.retained_kib[-1] / first if first else 0.0

    @property
    def memory_flat(self) -> bool:
        return not self.retained_kib or (
            self.retained_kib[-1] <= MEMORY_FACTOR * self.retained_kib[0] + MEMORY_SLACK_KIB
        )

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "events_per_s": self.events_per_s, "memory_ratio": self.memory_ratio}


def _stamp(t: datetime) -> str:
    return time_text(t)


def _fresh(obj: Obj, name: str) -> Obj:
    """A copy of `obj` as a user would create it: a new name, no server fields, no status."""
    out = copy.deepcopy(obj)
    out.pop("status", None)
    metadata = out["metadata"]
    for f in (*_SERVER, "finalizers", "ownerReferences"):
        metadata.pop(f, None)
    metadata["name"] = name
    return out


def _edit(obj: Obj) -> Obj:
    return copy.deepcopy(obj)


# ========================================================================================= world


class _World:
    """The event stream of one profile, drawn against the scheduler's state."""

    def __init__(self, profile: str, hub: HubScheduler, seed: int) -> None:
        self.profile = profile
        self.system = profile.split("-")[0]
        self.hub = hub
        self.rng = np.random.default_rng([seed, PROFILES.index(profile), 2026])
        self.made = 0
        kinds = {
            "ocm": ("ManagedCluster", ("Placement",)),
            "openmcp": ("Cluster", ("ClusterRequest",)),
            "kcp-v0.5": ("WorkloadCluster", ("Namespace",)),
            "kcp-v0.8": ("SyncTarget", ("Namespace", "Placement")),
        }[profile]
        self.cluster_kind, self.request_kinds = kinds
        self.target = Counter(o["kind"] for o in hub.objects())
        self.mix: dict[str, Callable[[datetime], tuple[Any, str | None]]] = {
            "cluster-joined-or-left": self.cluster_joined_or_left,
            "cluster-relabelled": self.cluster_relabelled,
            "request-created-or-deleted": self.request_created_or_deleted,
            "request-changed": self.request_changed,
        }
        if self.system == "ocm":
            self.mix["availability"] = self.ocm_availability
        if self.system == "kcp":
            self.mix["cluster-evicting"] = self.kcp_evicting
            self.mix["cluster-ready-flipped"] = self.kcp_ready

    # -- helpers ---------------------------------------------------------------------------------

    def of(self, kind: str) -> list[Obj]:
        return [o for o in self.hub.objects() if o["kind"] == kind]

    def pick(self, items: list[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def name(self, prefix: str) -> str:
        self.made += 1
        return f"{prefix}-soak-{self.made:05d}"

    def grow(self, kind: str) -> bool:
        """Create rather than delete: below the starting count, more likely."""
        have, want = len(self.of(kind)), max(2, self.target[kind])
        return bool(self.rng.random() < (0.75 if have < want else 0.25 if have > want else 0.5))

    def deleted(self, obj: Obj) -> Deleted:
        key = object_key(obj)
        return Deleted(obj["kind"], key[4], key[3], obj["apiVersion"], key[2])

    # -- events ----------------------------------------------------------------------------------

    def next(self, now: datetime) -> tuple[str, Any, str | None]:
        names = list(self.mix)
        while True:
            kind = self.pick(names)
            event, touched = self.mix[kind](now)
            if event is not None:
                return kind, event, touched

    def cluster_joined_or_left(self, now: datetime) -> tuple[Any, str | None]:
        clusters = self.of(self.cluster_kind)
        live = [c for c in clusters if not c["metadata"].get("deletionTimestamp")]
        if self.grow(self.cluster_kind) or len(live) < 3:
            new = _fresh(self.pick(clusters), self.name("c"))
            spec = new.get("spec") or {}
            spec.pop("evictAfter", None)
            spec.pop("unschedulable", None)
            return Applied(new), None
        return self.deleted(self.pick(live)), None

    def cluster_relabelled(self, now: datetime) -> tuple[Any, str | None]:
        clusters = self.of(self.cluster_kind)
        if len(clusters) < 2:
            return None, None
        obj, other = _edit(self.pick(clusters)), self.pick(clusters)
        labels = dict(obj["metadata"].get("labels") or {})
        source = other["metadata"].get("labels") or {}
        if self.system == "kcp":
            labels = dict(source)  # another cluster's labels: likely another Location
        else:
            keys = sorted(set(labels) | set(source))
            if not keys:
                return None, None
            key = self.pick(keys)
            if key in source:
                labels[key] = source[key]
            else:
                labels.pop(key, None)
        obj["metadata"]["labels"] = labels
        return Applied(obj), None

    def request_kind(self) -> str:
        return self.pick(list(self.request_kinds))

    def request_created_or_deleted(self, now: datetime) -> tuple[Any, str | None]:
        kind = self.request_kind()
        items = self.of(kind)
        if not items:
            return None, None
        live = [o for o in items if not o["metadata"].get("deletionTimestamp")]
        if self.grow(kind) or not live:
            new = _fresh(self.pick(items), self.name(kind.lower()))
            metadata = new["metadata"]
            if self.system == "kcp":
                annotations = {
                    k: v
                    for k, v in (metadata.get("annotations") or {}).items()
                    if not k.startswith(("scheduling.kcp.dev/", "deletion.internal", "internal.workload"))
                }
                metadata["annotations"] = annotations
                metadata["labels"] = {
                    k: v
                    for k, v in (metadata.get("labels") or {}).items()
                    if not k.startswith("state.workload")
                }
            return Applied(new), None
        victim = self.pick(live)
        return self.deleted(victim), victim["kind"]

    def request_changed(self, now: datetime) -> tuple[Any, str | None]:
        kind = self.request_kind()
        items = [o for o in self.of(kind) if not o["metadata"].get("deletionTimestamp")]
        if not items:
            return None, None
        obj = _edit(self.pick(items))
        if kind == "Placement" and self.system == "ocm":
            spec = obj.setdefault("spec", {})
            count = spec.get("numberOfClusters")
            choice = int(self.rng.integers(3))
            if count is None:
                spec["numberOfClusters"] = int(self.rng.integers(1, 5))
            elif choice == 0:
                spec.pop("numberOfClusters")
            else:
                spec["numberOfClusters"] = max(1, count + (1 if choice == 1 else -1))
        elif kind == "Placement":  # kcp v0.8: another placement's selectors
            other = self.pick(self.of(kind))
            obj["spec"] = {
                **obj["spec"],
                **{k: copy.deepcopy(v) for k, v in other["spec"].items() if "Selector" in k},
            }
        elif kind == "Namespace":
            other = self.pick(self.of(kind))
            labels = {
                k: v for k, v in (obj["metadata"].get("labels") or {}).items() if k.startswith("state.")
            }
            labels.update(
                {
                    k: v
                    for k, v in (other["metadata"].get("labels") or {}).items()
                    if not k.startswith("state.")
                }
            )
            obj["metadata"]["labels"] = labels
        else:  # an openMCP request: a label
            obj["metadata"]["labels"] = {
                **(obj["metadata"].get("labels") or {}),
                "soak/touched": str(self.made),
            }
            self.made += 1
        return Applied(obj), kind

    def ocm_availability(self, now: datetime) -> tuple[Any, str | None]:
        obj = _edit(self.pick(self.of(self.cluster_kind)))
        status = obj.setdefault("status", {})
        conditions = [
            c for c in status.get("conditions") or [] if c.get("type") != "ManagedClusterConditionAvailable"
        ]
        value = self.pick(["True", "True", "False", "Unknown"])
        conditions.append(
            {
                "type": "ManagedClusterConditionAvailable",
                "status": value,
                "reason": "ManagedClusterAvailable"
                if value == "True"
                else "ManagedClusterLeaseUpdateStopped",
                "message": "",
                "lastTransitionTime": _stamp(now),
            }
        )
        status["conditions"] = conditions
        return Applied(obj), None

    def kcp_evicting(self, now: datetime) -> tuple[Any, str | None]:
        obj = _edit(self.pick(self.of(self.cluster_kind)))
        spec = obj.setdefault("spec", {})
        if spec.get("evictAfter") and self.rng.random() < 0.5:
            spec.pop("evictAfter")  # back in service
        else:
            spec["evictAfter"] = _stamp(now - timedelta(seconds=1))
        return Applied(obj), None

    def kcp_ready(self, now: datetime) -> tuple[Any, str | None]:
        obj = _edit(self.pick(self.of(self.cluster_kind)))
        status = obj.setdefault("status", {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or []
        )
        conditions.append(
            {"type": "Ready", "status": "False" if ready else "True", "lastTransitionTime": _stamp(now)}
        )
        status["conditions"] = conditions
        return Applied(obj), None


# ==================================================================================== checks


def _granted(hub: HubScheduler) -> dict[Any, Any]:
    return {
        object_key(o): (o.get("status") or {}).get("cluster")
        for o in hub.objects()
        if o["kind"] == "ClusterRequest" and (o.get("status") or {}).get("cluster")
    }


def _openmcp_moves(before: dict[Any, Any], hub: HubScheduler) -> list[str]:
    out = []
    for key, cluster in before.items():
        obj = hub.get(key)
        if obj is not None and (obj.get("status") or {}).get("cluster") != cluster:
            now_on = (obj.get("status") or {}).get("cluster")
            out.append(f"request {key[3]}/{key[4]} moved from {cluster} to {now_on}")
    return out


def _ocm_drops(before: Any, after: Any, now: datetime, touched: bool) -> list[str]:
    """Decisions dropped beyond the forced ones (see the module docstring)."""
    if before is None or after is None:
        return []
    old = selected_pairs(before.result)
    new = selected_pairs(after.result)
    requests = {r.key: r for r in after.batch.requests}
    clusters = {c.name: c for c in after.batch.clusters}
    held = Counter(key for key, _ in new)
    out = []
    for key, name in sorted(old - new):
        request, cluster = requests.get(key), clusters.get(name)
        if request is None or cluster is None or not passes(request, cluster, now, held=True):
            continue
        if touched:
            continue
        if request.mode is SelectionMode.N and (request.spread or held[key] >= request.count):
            continue
        out.append(f"placement {key} dropped {name}, which still passes its filters ({held[key]} held)")
    return out


# ======================================================================================= run


def run_hub_soak(
    profile: str,
    *,
    events: int = 200,
    clusters: int = 16,
    placements: int = 24,
    seed: int = 0,
    check_every: int = 100,
) -> HubSoakReport:
    """Drive one profile's hub through `events` events; failures are collected, not raised."""
    system, _, generation = profile.partition("-")
    extra = {"generation": generation} if generation else {}
    objects = generate(system, clusters, placements, seed=seed, now=NOW, **extra)
    config = generate_config(clusters, placements, seed=seed) if system == "openmcp" else None
    report = HubSoakReport(profile, events, clusters, placements, seed, hub_start=len(objects))
    # The solver imports CP-SAT (and through it pandas, some 25 MB) on first use: done before
    # tracing, so the first window measures the scheduler rather than the interpreter warming up.
    import ortools.sat.python.cp_model  # noqa: F401

    tracemalloc.start()
    start = time.perf_counter()
    hub = HubScheduler(objects, now=NOW, config=config)
    report.first_solve_s = time.perf_counter() - start
    world = _World(profile, hub, seed)
    now = NOW
    kinds: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    latency: list[float] = []
    digest = hashlib.sha256()
    tracemalloc.reset_peak()
    for i in range(1, events + 1):
        now += STEP
        kind, event, touched = world.next(now)
        kinds[kind] += 1
        t0 = time.perf_counter()
        before_objects = hub.objects() if system == "kcp" else None
        before_granted = _granted(hub) if system == "openmcp" else None
        before_outcome = hub.outcome.get("ocm") if system == "ocm" else None
        t1 = time.perf_counter()
        delta = hub.handle(event, now=now)
        latency.append(time.perf_counter() - t1)
        if system == "openmcp":
            problems = _openmcp_moves(before_granted, hub)
        elif system == "kcp":
            problems = []
            if touched is None:
                moved, forced = moves(before_objects, hub.objects(), now)
                if moved != forced:
                    problems = [f"{moved - forced} namespace move(s) beyond the forced ones"]
        else:
            problems = _ocm_drops(before_outcome, hub.outcome.get("ocm"), now, touched is not None)
        report.check_s += time.perf_counter() - t0 - latency[-1]
        checks["moves"] += 1
        report.failures += [f"event {i} ({kind}: {_describe(event)}): {p}" for p in problems]
        digest.update(json.dumps([delta.apply, delta.delete], sort_keys=True).encode())
        del delta
        if i % check_every == 0 or i == events:
            t0 = time.perf_counter()
            again = hub.resolve(now=now)
            if again.apply or again.delete:
                report.failures.append(
                    f"event {i}: a full solve of the state changes "
                    f"{[(o['kind'], o['metadata'].get('name')) for o in again.apply]} "
                    f"and deletes {again.delete}"
                )
            else:
                checks["fixed point"] += 1
            report.memory_kib.append(tracemalloc.get_traced_memory()[1] / 1024)
            gc.collect()
            report.retained_kib.append(tracemalloc.get_traced_memory()[0] / 1024)
            tracemalloc.reset_peak()
            report.check_s += time.perf_counter() - t0
    tracemalloc.stop()
    if len(report.retained_kib) >= 2:
        if report.memory_flat:
            checks["memory flat"] += 1
        else:
            report.failures.append(
                f"memory: the last checkpoint retains {report.memory_ratio:.2f} times the first's "
                f"({report.retained_kib[-1]:.0f} against {report.retained_kib[0]:.0f} KiB)"
            )
    report.digest = digest.hexdigest()
    report.wall_s = sum(latency)
    report.kinds = dict(sorted(kinds.items()))
    report.checks = dict(checks)
    report.hub_end = len(hub.objects())
    ms = np.array(latency) * 1000 if latency else np.zeros(1)
    report.latency_ms = {
        "mean": float(ms.mean()),
        "p50": float(np.percentile(ms, 50)),
        "p95": float(np.percentile(ms, 95)),
        "max": float(ms.max()),
    }
    return report


def _describe(event: Any) -> str:
    if isinstance(event, Deleted):
        return f"delete {event.kind} {event.workspace}/{event.namespace}/{event.name}"
    m = event.obj["metadata"]
    return f"apply {event.obj['kind']} {m.get('namespace', '')}/{m.get('name')}"


# ==================================================================================== report


def render(reports: list[HubSoakReport]) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    r0 = reports[0]
    runs = {}
    for r in reports:
        runs.setdefault(r.events, []).append(r.profile)
    commands = "; ".join(
        f"`python -m bench.hub_soak --events {events} --clusters {r0.clusters} --placements {r0.placements} "
        f"--seed {r0.seed} --profiles {' '.join(profiles)}`"
        for events, profiles in runs.items()
    )
    lines = [
        "# Soak: the long-lived hub scheduler (adapters.live.hub)",
        "",
        f"{commands} at commit {commit or '?'}, in one process per profile with the default solve "
        "options (optimal mode). Every hub starts from its system's generator; the events and the "
        "checks are described in bench/hub_soak.py. Events/s and latency are `HubScheduler.handle` "
        "alone, under tracemalloc (which slows allocation-heavy code severalfold); the checks' "
        "time is apart.",
        "",
        "| profile | events | objects start/end | first solve s | events/s | latency ms mean / p95 / max "
        "| fixed-point checks | move checks | peak KiB first/last window | retained KiB first/last "
        "| failures |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in reports:
        lat = r.latency_ms
        lines.append(
            f"| {r.profile} | {r.events} | {r.hub_start} / {r.hub_end} | {r.first_solve_s:.2f} | "
            f"{r.events_per_s:.1f} | {lat['mean']:.1f} / {lat['p95']:.1f} / {lat['max']:.1f} | "
            f"{r.checks.get('fixed point', 0)} | {r.checks.get('moves', 0)} | "
            f"{r.memory_kib[0]:.0f} / {r.memory_kib[-1]:.0f} | "
            f"{r.retained_kib[0]:.0f} / {r.retained_kib[-1]:.0f} ({r.memory_ratio:.2f}x) | "
            f"{len(r.failures)} |"
        )
    lines += ["", "Event mix:", ""]
    for r in reports:
        lines.append(f"- {r.profile}: " + ", ".join(f"{k} {v}" for k, v in r.kinds.items()))
    failures = [f"- {r.profile}: {f}" for r in reports for f in r.failures[:20]]
    lines += ["", "Failures:" if failures else "No check failed.", "", *failures]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--clusters", type=int, default=16)
    parser.add_argument("--placements", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=100)
    parser.add_argument("--profiles", nargs="*", default=list(PROFILES), choices=PROFILES)
    parser.add_argument("--out", help="write the Markdown report here too")
    args = parser.parse_args(argv)
    reports = []
    for profile in args.profiles:
        report = run_hub_soak(
            profile,
            events=args.events,
            clusters=args.clusters,
            placements=args.placements,
            seed=args.seed,
            check_every=args.check_every,
        )
        print(
            f"{profile}: {report.events_per_s:.1f} events/s, {len(report.failures)} failures", file=sys.stderr
        )
        reports.append(report)
    text = render(reports)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 1 if any(r.failures for r in reports) else 0


if __name__ == "__main__":
    raise SystemExit(main())
