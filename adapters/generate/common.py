"""The shared layer of the deterministic synthetic hubs (adapters.generate.hubs generates a
system's hub by name). Two layers:

- the shared layer here (system-neutral): the draws every generator makes (a generator per section,
  Zipf weights, categories by share or by exact count, regions and zones, machine shapes, a
  :class:`Picker` for choices and vocabularies of policies), the texts they write (UUIDs, RFC 3339
  times), :func:`cluster_table`, which draws the tabular cluster attributes (topology labels with
  Zipf-like sizes, team/tier/compliance labels, node counts, CPU and memory
  capacity/allocatable/available, cost, taints, health) as vectorised numpy columns in a polars frame,
  and :class:`Matcher`, which evaluates label selectors on a table's columns (with caches, since
  placements reuse a limited vocabulary of policies) and which a system's generator extends with
  what its API selects by (Fleet: properties, tolerations, preference scores; OCM: claims, CEL, taints);
- one generator per system, beside its adapter (``adapters/<system>/generate.py``), named by its
  registry record as ``generate(clusters, placements, *, seed, now) -> objects``, that turns the
  table's rows into the system's objects and adds placements and the state an earlier scheduler
  run left behind.

Everything is drawn from ``np.random.default_rng`` seeded by ``(seed, section)``, so the same
arguments give the same objects, and the clusters do not depend on the number of placements. Times
(heartbeats, transitions) are relative to ``now``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from adapters.kube.fields import time_text

__all__ = [
    "DEFAULT_NOW",
    "Clock",
    "ClusterTable",
    "Matcher",
    "Picker",
    "cluster_table",
    "distinct",
    "label_selector",
    "pick",
    "share_count",
    "time_text",
    "utc_moment",
    "uuid_text",
    "zipf_weights",
]

DEFAULT_NOW = "2026-11-21T12:00:00Z"

# =================================================================================== shared layer

# (region, provider, zones), in order of size: region k gets a share proportional to 1/k.
REGIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("eastus", "azure", ("eastus-1", "eastus-2", "eastus-3")),
    ("us-east-1", "aws", ("us-east-1a", "us-east-1b", "us-east-1c")),
    ("westeurope", "azure", ("westeurope-1", "westeurope-2", "westeurope-3")),
    ("us-central1", "gcp", ("us-central1-a", "us-central1-b", "us-central1-c")),
    ("eu-west-1", "aws", ("eu-west-1a", "eu-west-1b")),
    ("westus2", "azure", ("westus2-1", "westus2-2")),
    ("europe-west1", "gcp", ("europe-west1-b", "europe-west1-c", "europe-west1-d")),
    ("ap-northeast-1", "aws", ("ap-northeast-1a", "ap-northeast-1c")),
    ("southeastasia", "azure", ("southeastasia-1", "southeastasia-2")),
    ("asia-east1", "gcp", ("asia-east1-a", "asia-east1-b")),
    ("northeurope", "azure", ("northeurope-1", "northeurope-2", "northeurope-3")),
    ("us-west-2", "aws", ("us-west-2a", "us-west-2b")),
)
PROVIDERS = ("azure", "aws", "gcp")
ENVIRONMENTS = ("production", "staging", "dev")
ENVIRONMENT_SHARES = (0.60, 0.25, 0.15)
TEAMS = ("payments", "search", "identity", "platform", "data", "ml", "checkout", "media", "ads", "infra")
TIERS = ("gold", "silver", "bronze")
TIER_SHARES = (0.2, 0.5, 0.3)
COMPLIANCE = ("", "pci", "hipaa", "sox")  # "" = no label
COMPLIANCE_SHARES = (0.85, 0.06, 0.05, 0.04)
ZONE_SHARES = {2: (0.6, 0.4), 3: (0.45, 0.35, 0.2)}

TAINTED_SHARE = 0.03
TAINT_KEYS = ("maintenance", "gpu", "dedicated")
TAINT_KEY_SHARES = (0.5, 0.25, 0.25)
MAINTENANCE_REASONS = ("kernel-upgrade", "node-drain")

# Health states: eligible ones first.
HEALTHY, BLIP, UNHEALTHY, STALE, LEAVING = range(5)
HEALTH_SHARES = (0.955, 0.005, 0.02, 0.01, 0.01)  # BLIP = unhealthy for < 5 min, still eligible

# Label keys the table carries, each a column of the same name ("" where the label is absent).
LABEL_KEYS = ("region", "zone", "provider", "environment", "team", "tier", "compliance", "accelerator")

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def zipf_weights(k: int, s: float = 1.0) -> np.ndarray:
    """Probabilities proportional to 1/rank**s for ranks 1..k."""
    w = 1.0 / np.arange(1, k + 1, dtype=np.float64) ** s
    return w / w.sum()


def rng_for(seed: int, section: int) -> np.random.Generator:
    return np.random.default_rng([seed, section])


def categories_of(draws: np.ndarray, shares: Sequence[float]) -> np.ndarray:
    """The category of each uniform draw under `shares` (what they leave of 1 is the last's)."""
    return np.searchsorted(np.cumsum(shares)[:-1], draws, side="right")


def categories(rng: np.random.Generator, size: int, shares: Sequence[float]) -> np.ndarray:
    """`size` categories drawn with the given shares."""
    return categories_of(rng.random(size), shares)


def exact_categories(
    rng: np.random.Generator, total: int, shares: Sequence[float], *, rest: int = -1
) -> np.ndarray:
    """A category per item, at random positions: exactly round(share * total) items of each
    category but `rest` (an index), which takes what the others leave (its own share is not read).
    Where the others' rounding takes more than `total`, the last categories lose the excess."""
    rest %= len(shares)
    counts = [0 if k == rest else round(share * total) for k, share in enumerate(shares)]
    counts[rest] = max(total - sum(counts), 0)
    return scattered(rng, counts, total)


def scattered(rng: np.random.Generator, counts: Sequence[int], total: int) -> np.ndarray:
    """The first `total` of counts[k] items of category k, in category order, shuffled."""
    return np.repeat(np.arange(len(counts)), counts)[:total][rng.permutation(total)]


def share_count(share: float, total: int, *, one_from: int) -> int:
    """round(share * total), but at least one from `one_from` items on: a rare kind that still shows."""
    return max(round(share * total), 1 if total >= one_from else 0)


def sample_share(rng: np.random.Generator, total: int, share: float) -> np.ndarray:
    """round(share * total) distinct indices below `total`, in random order."""
    return rng.permutation(total)[: round(share * total)]


def draw_places(
    rng: np.random.Generator, size: int, regions: Sequence[tuple[str, str, Sequence[str]]]
) -> tuple[np.ndarray, np.ndarray]:
    """Each cluster's region, as an index into `regions` ((name, provider, zones) in order of size:
    region k's share is proportional to 1/k), and zone, as its name (two or three per region,
    sized by ZONE_SHARES)."""
    width = max(len(z) for _, _, z in regions)
    zone_names = np.array([list(z) + [""] * (width - len(z)) for _, _, z in regions])
    zone_counts = np.array([len(z) for _, _, z in regions])
    region = rng.choice(len(regions), size=size, p=zipf_weights(len(regions)))
    u = rng.random(size)
    zone = np.where(
        zone_counts[region] == 3, categories_of(u, ZONE_SHARES[3]), categories_of(u, ZONE_SHARES[2])
    )
    return region, zone_names[region, zone]


def draw_machines(
    rng: np.random.Generator, environment: np.ndarray, max_nodes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cluster's node count (lognormal around a median of 8, 4, 2 for environments 0, 1, 2;
    from 1 to `max_nodes`), cores per node and GiB of memory per core: a few machine shapes."""
    size = len(environment)
    median_nodes = np.array([8.0, 4.0, 2.0])[environment]
    nodes = np.clip(np.rint(median_nodes * np.exp(0.7 * rng.standard_normal(size))), 1, max_nodes)
    cores = rng.choice(np.array([4, 8, 16, 32, 64]), size=size, p=[0.15, 0.35, 0.3, 0.15, 0.05])
    gib_per_core = rng.choice(np.array([2, 4, 8]), size=size, p=[0.2, 0.6, 0.2])
    return nodes.astype(np.int64), cores, gib_per_core


def pick(rng: np.random.Generator, options: Sequence[Any]) -> Any:
    """One of `options`, uniformly."""
    return options[int(rng.integers(len(options)))]


class Picker:
    """Choices drawn from one generator: a uniform pick, a sorted sample, and an entry of a
    vocabulary (distinct JSON texts that many placements share, the first ones more likely)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._cumulative: dict[tuple[int, float], np.ndarray] = {}

    def pick(self, options: Sequence[Any]) -> Any:
        return pick(self.rng, options)

    def sample(self, options: Sequence[Any], k: int) -> list[Any]:
        """`k` distinct options, sorted."""
        chosen = self.rng.choice(len(options), size=k, replace=False)
        return sorted(options[i] for i in chosen.tolist())

    def some(self, options: Sequence[Any], low: int, high: int) -> list[Any]:
        """Between `low` and `high` distinct options (all of them at most), sorted."""
        return self.sample(options, min(int(self.rng.integers(low, high + 1)), len(options)))

    def draw(self, entries: Sequence[str], s: float) -> Any:
        """A fresh copy of an entry, the first ones more likely (Zipf with exponent `s`)."""
        cumulative = self._cumulative.get((len(entries), s))
        if cumulative is None:
            cumulative = self._cumulative[len(entries), s] = np.cumsum(zipf_weights(len(entries), s))
        i = min(int(np.searchsorted(cumulative, self.rng.random(), side="right")), len(entries) - 1)
        return json.loads(entries[i])


def distinct(
    make: Callable[[], Any], count: int, attempts: int, *, first: Iterable[Any] = (), sort_keys: bool = False
) -> list[str]:
    """A vocabulary: the values of `first`, then of `make()` until `count` of them are distinct
    (or `attempts` calls are made), as JSON texts in the order found."""
    seen = dict.fromkeys(json.dumps(value, sort_keys=sort_keys) for value in first)
    for _ in range(attempts):
        if len(seen) >= count:
            break
        seen.setdefault(json.dumps(make(), sort_keys=sort_keys), None)
    return list(seen)


def gone_cluster_name(rng: np.random.Generator, prefix: str, regions: Sequence[str], clusters: int) -> str:
    """The name of a cluster the hub no longer holds: `<prefix>-<region>-<number>`, numbered past
    its `clusters` clusters."""
    region = pick(rng, regions)
    return f"{prefix}-{region}-{clusters + int(rng.integers(0, 1000)):05d}"


def uuid_text(h: str) -> str:
    """A version-4 UUID made of `h`, 32 random hex digits: the version digit set to 4, the variant
    digit to one of 8, 9, a, b (RFC 4122)."""
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


class Clock:
    """RFC 3339 texts of the times `age` seconds before `now` (after it, where negative), for
    arrays of ages at once; `now` in UTC, as :func:`utc_moment` gives it."""

    def __init__(self, now: datetime) -> None:
        self.epoch = np.datetime64(now.replace(tzinfo=None), "s")

    def before(self, ages: np.ndarray) -> list[str]:
        stamps = np.datetime_as_string(self.epoch - ages.astype("timedelta64[s]"), unit="s")
        return [f"{s}Z" for s in stamps.tolist()]

    def one(self, age: int) -> str:
        return f"{np.datetime_as_string(self.epoch - np.timedelta64(age, 's'), unit='s')}Z"


def utc_moment(now: datetime) -> datetime:
    """`now` in UTC to the second (a naive one read as UTC); TypeError for what is no datetime."""
    if not isinstance(now, datetime):
        raise TypeError(f"now must be a datetime, got {type(now).__name__}")
    moment = now if now.tzinfo else now.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def column(columns: Mapping[str, np.ndarray], key: str, size: int) -> np.ndarray:
    """A string column of a table of `size` rows; "" in every row where the table has none."""
    got = columns.get(key)
    return got if got is not None else np.full(size, "", dtype=str)


@dataclass(slots=True)
class ClusterTable:
    """The clusters' attributes: one polars row per cluster, plus numpy views for matching."""

    frame: pl.DataFrame
    labels: dict[str, np.ndarray] = field(init=False)  # label key -> values ("" = absent)
    numbers: dict[str, np.ndarray] = field(init=False)  # numeric column -> int64 values

    def __post_init__(self) -> None:
        self.labels = {k: self.frame[k].to_numpy().astype(str) for k in LABEL_KEYS}
        self.numbers = {
            c: self.frame[c].to_numpy()
            for c, dtype in self.frame.schema.items()
            if dtype.is_integer() and c != "index"
        }

    def __len__(self) -> int:
        return self.frame.height

    @property
    def names(self) -> np.ndarray:
        return self.frame["name"].to_numpy().astype(str)

    @property
    def eligible(self) -> np.ndarray:
        return self.numbers["health"] <= BLIP

    def label(self, key: str) -> np.ndarray:
        """The values of a label key; "" for every cluster when no cluster has it."""
        return column(self.labels, key, len(self))


def cluster_table(clusters: int, seed: int, now: datetime) -> ClusterTable:
    """Draw `clusters` clusters' attributes, vectorised; names are `member-<region>-<nnnnn>`."""
    rng = rng_for(seed, 1)
    size = clusters
    region_names = np.array([r for r, _, _ in REGIONS])
    region_providers = np.array([p for _, p, _ in REGIONS])
    region, zone = draw_places(rng, size, REGIONS)
    environment = rng.choice(len(ENVIRONMENTS), size=size, p=ENVIRONMENT_SHARES)
    team = rng.choice(len(TEAMS), size=size, p=zipf_weights(len(TEAMS), 0.8))
    tier = rng.choice(len(TIERS), size=size, p=TIER_SHARES)
    compliance = rng.choice(len(COMPLIANCE), size=size, p=COMPLIANCE_SHARES)

    # Capacity: node counts lognormal around an environment median, a few machine shapes.
    nodes, cores, gib_per_core = draw_machines(rng, environment, 500)
    cpu_capacity = nodes * cores * 1000  # millicores
    cpu_allocatable = nodes * (cores * 1000 - (100 + 20 * cores))
    cpu_available = (cpu_allocatable * (1.0 - rng.beta(2.0, 3.0, size)) // 10).astype(np.int64) * 10
    node_mib = cores * gib_per_core * 1024
    memory_capacity = nodes * node_mib  # MiB
    memory_allocatable = nodes * (node_mib - (750 + node_mib // 10))
    memory_available = (memory_allocatable * (1.0 - rng.beta(2.0, 2.5, size))).astype(np.int64)
    provider_index = np.array([PROVIDERS.index(p) for _, p, _ in REGIONS])
    base_cost = np.array([48, 45, 42])[provider_index[region]]  # thousandths per core-hour
    cost_milli = np.clip(base_cost + np.rint(5.0 * rng.standard_normal(size)), 20, 120).astype(np.int64)

    # Taints, on ~3%: maintenance windows, GPU pools, clusters dedicated to one team.
    tainted = rng.random(size) < TAINTED_SHARE
    taint_kind = rng.choice(len(TAINT_KEYS), size=size, p=TAINT_KEY_SHARES)
    taint_key = np.where(tainted, np.array(TAINT_KEYS)[taint_kind], "")
    maintenance = np.array(MAINTENANCE_REASONS)[rng.integers(0, len(MAINTENANCE_REASONS), size)]
    taint_value = np.select(
        [taint_key == "maintenance", taint_key == "gpu", taint_key == "dedicated"],
        [maintenance, np.full(size, "true"), np.array(TEAMS)[team]],
        "",
    )
    accelerator = np.where(taint_key == "gpu", "nvidia", "")

    # Health and times (seconds before now).
    health = rng.choice(len(HEALTH_SHARES), size=size, p=HEALTH_SHARES)
    heartbeat_age = np.where(health == STALE, rng.integers(6 * 60, 6 * 3600, size), rng.integers(0, 60, size))
    health_age = np.select(
        [health == UNHEALTHY, health == BLIP],
        [rng.integers(6 * 60, 3 * 86400, size), rng.integers(10, 4 * 60, size)],
        rng.integers(3600, 30 * 86400, size),
    )
    joined_age = health_age + rng.integers(0, 90 * 86400, size)
    deletion_age = rng.integers(60, 3600, size)

    frame = pl.DataFrame(
        {
            "index": np.arange(size, dtype=np.int64),
            "region": region_names[region],
            "zone": zone,
            "provider": region_providers[region],
            "environment": np.array(ENVIRONMENTS)[environment],
            "team": np.array(TEAMS)[team],
            "tier": np.array(TIERS)[tier],
            "compliance": np.array(COMPLIANCE)[compliance],
            "accelerator": accelerator,
            "taint_key": taint_key,
            "taint_value": taint_value,
            "health": health.astype(np.int64),
            "node_count": nodes,
            "cost_milli": cost_milli,
            "cpu_capacity_m": cpu_capacity.astype(np.int64),
            "cpu_allocatable_m": cpu_allocatable.astype(np.int64),
            "cpu_available_m": cpu_available,
            "memory_capacity_mi": memory_capacity.astype(np.int64),
            "memory_allocatable_mi": memory_allocatable.astype(np.int64),
            "memory_available_mi": memory_available,
            "heartbeat_age": heartbeat_age.astype(np.int64),
            "health_age": health_age.astype(np.int64),
            "joined_age": joined_age.astype(np.int64),
            "deletion_age": deletion_age.astype(np.int64),
        },
        schema_overrides={k: pl.String for k in (*LABEL_KEYS, "taint_key", "taint_value")},
    )
    ago = pl.lit(now)

    def time_of(column: str) -> pl.Expr:
        return (ago - pl.duration(seconds=pl.col(column))).dt.strftime(TIME_FORMAT)

    def cpu(column: str) -> pl.Expr:
        c = pl.col(column)
        return pl.when(c % 1000 == 0).then((c // 1000).cast(pl.String)).otherwise(c.cast(pl.String) + "m")

    def memory(column: str) -> pl.Expr:
        c = pl.col(column)
        return (
            pl.when(c % 1024 == 0)
            .then((c // 1024).cast(pl.String) + "Gi")
            .otherwise(c.cast(pl.String) + "Mi")
        )

    frame = frame.with_columns(
        name=pl.concat_str(
            [pl.lit("member-"), pl.col("region"), pl.lit("-"), pl.col("index").cast(pl.String).str.zfill(5)]
        ),
        cost=pl.lit("0.") + pl.col("cost_milli").cast(pl.String).str.zfill(3),
        cpu_capacity=cpu("cpu_capacity_m"),
        cpu_allocatable=cpu("cpu_allocatable_m"),
        cpu_available=cpu("cpu_available_m"),
        memory_capacity=memory("memory_capacity_mi"),
        memory_allocatable=memory("memory_allocatable_mi"),
        memory_available=memory("memory_available_mi"),
        heartbeat=time_of("heartbeat_age"),
        health_since=time_of("health_age"),
        joined_since=time_of("joined_age"),
        deleted_at=pl.when(pl.col("health") == LEAVING).then(time_of("deletion_age")),
    )
    return ClusterTable(frame)


class Matcher:
    """Vectorised, cached evaluation of selectors over a table of clusters (anything with a length
    and `label(key)`, as :class:`ClusterTable`): label selectors and ORed terms here, what else a
    system selects by (properties, claims, CEL, its own taints) in the system's subclass."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._cached = MaskCache()

    def selector(self, selector: Mapping[str, Any] | None) -> np.ndarray:
        """Kubernetes label selector semantics; None (and {}) match every cluster."""
        return self.selector_over("labels", self.table.label, selector)

    def selector_over(
        self, kind: str, column: Callable[[str], np.ndarray], selector: Mapping[str, Any] | None
    ) -> np.ndarray:
        """A label selector's semantics over other string columns (`column(key)`, "" where absent),
        cached as `kind`."""
        return self._cached(kind, selector, lambda: match_selector(selector or {}, column, len(self.table)))

    def any_of(self, items: Sequence[Any], mask_of: Callable[[Any], np.ndarray]) -> np.ndarray:
        """The clusters some item's mask holds; no items match every cluster."""
        if not items:
            return np.ones(len(self.table), dtype=bool)
        mask = np.zeros(len(self.table), dtype=bool)
        for item in items:
            mask |= mask_of(item)
        return mask


class MaskCache:
    """Masks computed once per kind and value (selectors are plain JSON-like data)."""

    def __init__(self) -> None:
        self._masks: dict[str, np.ndarray] = {}

    def __call__(self, kind: str, value: Any, compute: Callable[[], np.ndarray]) -> np.ndarray:
        key = kind + json.dumps(value, sort_keys=True)
        got = self._masks.get(key)
        if got is None:
            got = self._masks[key] = compute()
        return got


def match_selector(selector: Mapping[str, Any], column: Callable[[str], np.ndarray], size: int) -> np.ndarray:
    """A Kubernetes label selector over a column of string values ("" where absent), vectorised:
    which of `size` rows match."""
    mask = np.ones(size, dtype=bool)
    for key, value in (selector.get("matchLabels") or {}).items():
        mask &= column(key) == value
    for item in selector.get("matchExpressions") or []:
        values = column(item["key"])
        present = values != ""
        op = item["operator"]
        if op == "In":
            mask &= present & np.isin(values, item["values"])
        elif op == "NotIn":
            mask &= ~(present & np.isin(values, item["values"]))
        elif op == "Exists":
            mask &= present
        elif op == "DoesNotExist":
            mask &= ~present
        else:
            raise ValueError(f"unknown label operator {op!r}")
    return mask


def expression(key: str, operator: str, *values: str) -> dict[str, Any]:
    """One matchExpressions entry."""
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def label_selector(
    labels: Mapping[str, str] | None = None, *expressions: Mapping[str, Any]
) -> dict[str, Any]:
    """A label selector of copies of `labels` (matchLabels) and `expressions` (matchExpressions),
    each left out where empty."""
    out: dict[str, Any] = {}
    if labels:
        out["matchLabels"] = dict(labels)
    if expressions:
        out["matchExpressions"] = [dict(e) for e in expressions]
    return out


def check_sizes(clusters: int, placements: int, seed: int) -> None:
    for label, value in (("clusters", clusters), ("placements", placements), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{label} must be a non-negative integer, got {value!r}")


def parse_now(now: str | datetime) -> datetime:
    return utc_moment(now if isinstance(now, datetime) else datetime.fromisoformat(now))
