"""The synthetic-fleet generator: adapters.generate.common (registry) and adapters.fleet.generate."""

from __future__ import annotations

import collections
import json
import re

import numpy as np
import pytest

from adapters.fleet import api as fleet
from adapters.fleet import names as n
from adapters.fleet.generate import PICK_ALL_LIMIT, generate_fleet
from adapters.fleet.policy import normalized_policy
from adapters.generate.common import exact_categories
from adapters.generate.hubs import generate, generate_yaml, generating
from adapters.kube.fields import rfc3339
from adapters.kube.manifests import from_objects, parse_text
from adapters.run.pipeline import schedule, schedule_manifests
from model import SelectionMode
from solver import SolveOptions
from tests.fixtures.common import DNS_LABEL, by_kind
from tests.fixtures.common import NOW_TIME as NOW

SMALL = (50, 30)
MEDIUM = (1000, 500)


def parent(obj):
    return obj["metadata"]["labels"][n.PARENT_LABEL]


@pytest.fixture(scope="module")
def small():
    return generate("fleet", *SMALL, seed=0)


@pytest.fixture(scope="module")
def medium():
    return by_kind(generate("fleet", *MEDIUM, seed=1))


@pytest.fixture(scope="module")
def medium_batch(medium):
    objects = [obj for kind in medium.values() for obj in kind]
    batch, _ = fleet.load(from_objects(objects, "<generated>"), now=NOW)
    return batch


# -- API -------------------------------------------------------------------------------------------


def test_registry_and_dispatch():
    assert "fleet" in generating()
    assert generate("fleet", 5, 4, seed=3, now="2026-11-21T12:00:00Z") == generate_fleet(5, 4, seed=3)
    assert generate("fleet", 5, 4, seed=3) == generate_fleet(5, 4, seed=3)


def test_unknown_system_raises():
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        generate("nope", 5, 5)
    with pytest.raises(ValueError, match="unknown system"):
        generate_yaml("nope", 5, 5)


@pytest.mark.parametrize("args", [(-1, 5, 0), (5, -1, 0), (5, 5, -1), (5.0, 5, 0), (True, 5, 0)])
def test_bad_sizes_raise(args):
    clusters, placements, seed = args
    with pytest.raises(ValueError, match="non-negative integer"):
        generate("fleet", clusters, placements, seed=seed)


def test_empty_sizes():
    assert generate("fleet", 0, 0) == []
    assert generate_yaml("fleet", 0, 0) == ""
    only_clusters = by_kind(generate("fleet", 7, 0))
    assert set(only_clusters) == {n.MEMBER_CLUSTER}


# -- determinism -----------------------------------------------------------------------------------


def test_same_arguments_same_output():
    first = generate_yaml("fleet", *SMALL, seed=7)
    assert first == generate_yaml("fleet", *SMALL, seed=7)
    assert first.startswith("---\n")
    assert generate("fleet", *SMALL, seed=7) == generate("fleet", *SMALL, seed=7)


def test_different_seeds_differ():
    assert generate_yaml("fleet", *SMALL, seed=0) != generate_yaml("fleet", *SMALL, seed=1)


def test_now_moves_every_time():
    later = generate("fleet", 20, 10, now="2027-01-01T00:00:00Z")
    earlier = generate("fleet", 20, 10)
    assert later != earlier
    beats = [o["status"]["agentStatus"][0]["lastReceivedHeartbeat"] for o in by_kind(later)[n.MEMBER_CLUSTER]]
    assert "2026-12-31T23:58" < max(beats) <= "2027-01-01T00:00:00Z"


TIME = re.compile(r"-?[0-9]+-[0-9]{2}-[0-9]{2}T")


def times(value):
    """Every string in a JSON-like value that reads as a date and time."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in times(v)]
    if isinstance(value, list):
        return [t for v in value for t in times(v)]
    return [value] if isinstance(value, str) and TIME.match(value) else []


@pytest.mark.parametrize(
    ("system", "options"), [(s, {}) for s in generating()] + [("kcp", {"generation": "v0.5"})]
)
def test_times_are_rfc3339_before_the_year_1000(system, options):
    """A hub generated before the year 1000 writes four-digit years, as RFC 3339 wants and Kubernetes
    (and this tool's loaders) read them: kcp's times and Fleet's snapshot times had three."""
    written = times(generate(system, 30, 10, now="0500-06-01T00:00:00Z", **options))
    assert written
    assert [t for t in written if rfc3339(t) is None] == []


def test_clusters_do_not_depend_on_placements():
    few = by_kind(generate("fleet", 40, 5, seed=2))[n.MEMBER_CLUSTER]
    many = by_kind(generate("fleet", 40, 60, seed=2))[n.MEMBER_CLUSTER]
    assert few == many


@pytest.mark.parametrize("rest", [0, -1])
def test_exact_categories_count_exactly_and_the_rest_takes_what_is_left(rest):
    """The shared layer's exact shares (openMCP's and kcp's states, Fleet's placement types): every
    category but `rest` exactly round(share * total); where the rounding takes more than there is,
    the last categories lose the excess."""
    shares = (0.8, 0.13, 0.03, 0.02, 0.02)
    for total in range(60):
        got = np.bincount(
            exact_categories(np.random.default_rng(total), total, shares, rest=rest), minlength=5
        )
        counts = [round(share * total) for share in shares]
        counts[rest] = 0
        counts[rest] = max(total - sum(counts), 0)
        want, left = [], total
        for count in counts:  # in category order: the excess, if any, comes off the last ones
            want.append(min(count, left))
            left -= want[-1]
        assert got.tolist() == want, total


def test_yaml_round_trip(small):
    text = generate_yaml("fleet", *SMALL, seed=0)
    assert [m.obj for m in parse_text(text, "generated.yaml")] == small


# -- shapes and names ------------------------------------------------------------------------------


def test_counts_of_each_kind(small):
    kinds = by_kind(small)
    assert len(kinds[n.MEMBER_CLUSTER]) == 50
    assert len(kinds[n.PLACEMENT]) == 30
    assert len(kinds[n.POLICY_SNAPSHOT]) == 12  # 40% have state from an earlier run
    assert kinds[n.BINDING]
    assert set(kinds) == {n.MEMBER_CLUSTER, n.PLACEMENT, n.POLICY_SNAPSHOT, n.BINDING}
    assert [o["kind"] for o in small] == sorted(
        (o["kind"] for o in small),
        key=[n.MEMBER_CLUSTER, n.PLACEMENT, n.POLICY_SNAPSHOT, n.BINDING].index,
    )


def test_names_unique_and_dns_valid(small):
    medium_objects = generate("fleet", 300, 200, seed=4)
    for objects in (small, medium_objects):
        keys = [(o["kind"], o["metadata"]["name"]) for o in objects]
        assert len(keys) == len(set(keys))
        for _, name in keys:
            assert len(name) <= 63 and DNS_LABEL.fullmatch(name), name


def test_cluster_names_and_labels(small):
    for mc in by_kind(small)[n.MEMBER_CLUSTER]:
        name, labels = mc["metadata"]["name"], mc["metadata"]["labels"]
        assert len(name) <= 40
        assert re.fullmatch(rf"member-{re.escape(labels['region'])}-\d{{5}}", name)
        assert {"region", "zone", "provider", "environment", "team", "tier"} <= set(labels)
        assert labels["zone"].startswith(labels["region"])
        assert mc["apiVersion"] == "cluster.kubernetes-fleet.io/v1beta1"
        usage = mc["status"]["resourceUsage"]
        assert set(usage) >= {"capacity", "allocatable", "available"}
        assert all(set(usage[k]) == {"cpu", "memory"} for k in ("capacity", "allocatable", "available"))
        assert set(mc["status"]["properties"]) == {
            "kubernetes-fleet.io/node-count",
            "kubernetes.azure.com/per-cpu-core-cost",
        }


def test_capacity_is_consistent(medium_batch):
    prefix = n.RESOURCE_PROPERTY_PREFIX
    for c in medium_batch.clusters:
        p = c.properties
        for resource in ("cpu", "memory"):
            total, alloc, avail = (
                p[f"{prefix}{t}-{resource}"] for t in ("total", "allocatable", "available")
            )
            assert total >= alloc >= avail
            assert avail.nanos >= 0
        assert p["kubernetes-fleet.io/node-count"].nanos >= 10**9


def test_snapshots_and_bindings_shape(small):
    kinds = by_kind(small)
    crps = {c["metadata"]["name"]: c for c in kinds[n.PLACEMENT]}
    snapshots = {s["metadata"]["name"]: s for s in kinds[n.POLICY_SNAPSHOT]}
    clusters = {c["metadata"]["name"] for c in kinds[n.MEMBER_CLUSTER]}
    for name, snap in snapshots.items():
        crp = crps[parent(snap)]
        assert name == f"{parent(snap)}-0"
        meta = snap["metadata"]
        assert meta["labels"] == {n.PARENT_LABEL: parent(snap), n.LATEST_LABEL: "true", n.INDEX_LABEL: "0"}
        assert int(meta["annotations"][n.GENERATION_ANNOTATION]) <= crp["metadata"]["generation"]
        kind = snap["spec"]["policy"]["placementType"]
        assert kind == crp["spec"]["policy"]["placementType"]
        if kind == "PickN":
            assert meta["annotations"][n.NUMBER_OF_CLUSTERS_ANNOTATION] == str(
                snap["spec"]["policy"]["numberOfClusters"]
            )
        else:
            assert n.NUMBER_OF_CLUSTERS_ANNOTATION not in meta["annotations"]
    for b in kinds[n.BINDING]:
        spec, crp = b["spec"], parent(b)
        assert b["metadata"]["finalizers"] == [n.SCHEDULER_FINALIZER]
        assert spec["state"] in (n.SCHEDULED, n.BOUND)
        assert spec["schedulingPolicySnapshotName"] == f"{crp}-0" and f"{crp}-0" in snapshots
        assert spec["targetCluster"] in clusters
        assert spec["clusterDecision"]["clusterName"] == spec["targetCluster"]
        assert re.fullmatch(
            rf"{re.escape(crp[:26])}-{re.escape(spec['targetCluster'][:27])}-[0-9a-f]{{8}}",
            b["metadata"]["name"],
        )
        fixed = snapshots[f"{crp}-0"]["spec"]["policy"]["placementType"] == "PickFixed"
        assert ("clusterScore" in spec["clusterDecision"]) is not fixed


def test_no_two_active_bindings_of_a_placement_share_a_cluster(medium):
    pairs = [(parent(b), b["spec"]["targetCluster"]) for b in medium[n.BINDING]]
    assert len(pairs) == len(set(pairs))


# -- the mix at a medium size ----------------------------------------------------------------------


def share(items, predicate):
    items = list(items)
    return sum(1 for i in items if predicate(i)) / len(items)


def test_cluster_mix(medium, medium_batch):
    members = medium[n.MEMBER_CLUSTER]
    labels = [m["metadata"]["labels"] for m in members]
    env = collections.Counter(lab["environment"] for lab in labels)
    assert env["production"] / 1000 == pytest.approx(0.60, abs=0.05)
    assert env["staging"] / 1000 == pytest.approx(0.25, abs=0.05)
    assert env["dev"] / 1000 == pytest.approx(0.15, abs=0.04)
    assert set(lab["provider"] for lab in labels) == {"azure", "aws", "gcp"}
    regions = collections.Counter(lab["region"] for lab in labels).most_common()
    assert len(regions) == 12
    sizes = [count for _, count in regions]
    assert sizes[0] >= 2 * sizes[len(sizes) // 2]  # skewed, Zipf-like
    zones = collections.defaultdict(set)
    for lab in labels:
        zones[lab["region"]].add(lab["zone"])
    assert all(2 <= len(z) <= 3 for z in zones.values())

    tainted = [m for m in members if m["spec"].get("taints")]
    assert len(tainted) / 1000 == pytest.approx(0.03, abs=0.015)
    assert {t["key"] for m in tainted for t in m["spec"]["taints"]} == {"maintenance", "gpu", "dedicated"}
    assert all(t["effect"] == "NoSchedule" for m in tainted for t in m["spec"]["taints"])

    # Eligibility as the loader sees it at `now`.
    reasons = collections.Counter(c.ineligible_reason.split(" (")[0] for c in medium_batch.clusters)
    assert reasons[n.UNHEALTHY.split(" (")[0]] / 1000 == pytest.approx(0.02, abs=0.012)
    assert reasons[n.NO_HEARTBEAT.split(" (")[0]] / 1000 == pytest.approx(0.01, abs=0.008)
    assert reasons[n.LEFT_FLEET] / 1000 == pytest.approx(0.01, abs=0.008)
    assert share(medium_batch.clusters, lambda c: c.eligible) == pytest.approx(0.96, abs=0.02)


def test_placement_mix(medium):
    policies = [c["spec"]["policy"] for c in medium[n.PLACEMENT]]
    types = collections.Counter(p["placementType"] for p in policies)
    assert types == {"PickN": 400, "PickAll": 75, "PickFixed": 25}
    pick_n = [p for p in policies if p["placementType"] == "PickN"]
    counts = [p["numberOfClusters"] for p in pick_n]
    assert all(1 <= c <= 25 for c in counts)
    assert share(counts, lambda c: c <= 10) == pytest.approx(0.9, abs=0.05)
    assert share(pick_n, lambda p: "topologySpreadConstraints" in p) == pytest.approx(0.30, abs=0.06)
    assert share(pick_n, lambda p: "tolerations" in p) == pytest.approx(0.10, abs=0.04)
    affinity = [p.get("affinity", {}).get("clusterAffinity", {}) for p in pick_n]
    required = [
        a["requiredDuringSchedulingIgnoredDuringExecution"]
        for a in affinity
        if a.get("requiredDuringSchedulingIgnoredDuringExecution")
    ]
    preferred = [
        a["preferredDuringSchedulingIgnoredDuringExecution"]
        for a in affinity
        if a.get("preferredDuringSchedulingIgnoredDuringExecution")
    ]
    assert len(required) > 200 and len(preferred) > 150
    # A limited vocabulary: many placements share identical selectors, but not all.
    distinct = {json.dumps(r, sort_keys=True) for r in required}
    assert 5 < len(distinct) <= 30
    text = json.dumps(required) + json.dumps(preferred)
    for needle in ('"In"', '"NotIn"', '"Exists"', '"Ge"', "propertySorter", "Ascending", "Descending"):
        assert needle in text, needle
    weights = [t["weight"] for terms in preferred for t in terms]
    assert all(-100 <= w <= 100 for w in weights) and min(weights) < 0 < max(weights)
    keys = {c["topologyKey"] for p in pick_n for c in p.get("topologySpreadConstraints", [])}
    assert keys == {"region", "zone", "provider"}

    for p in policies:
        if p["placementType"] == "PickAll":
            assert p["affinity"]["clusterAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            assert "topologySpreadConstraints" not in p and "preferred" not in json.dumps(p)
    fixed = [p["clusterNames"] for p in policies if p["placementType"] == "PickFixed"]
    assert all(2 <= len(names) <= 5 and len(set(names)) == len(names) for names in fixed)
    members = {m["metadata"]["name"] for m in medium[n.MEMBER_CLUSTER]}
    assert any(name not in members for names in fixed for name in names)
    assert share(fixed, lambda names: all(x in members for x in names)) > 0.6


def test_existing_state_mix(medium, medium_batch):
    crps = {c["metadata"]["name"]: c for c in medium[n.PLACEMENT]}
    snapshots = medium[n.POLICY_SNAPSHOT]
    assert len(snapshots) == 200  # 40%

    def count(policy):
        return policy.get("numberOfClusters")

    obsolete = [
        s for s in snapshots
        if normalized_policy(s["spec"]["policy"]) != normalized_policy(crps[parent(s)]["spec"]["policy"])
    ]  # fmt: skip
    assert len(obsolete) == 20
    rescaled = [
        s for s in snapshots
        if s not in obsolete and count(s["spec"]["policy"]) != count(crps[parent(s)]["spec"]["policy"])
    ]  # fmt: skip
    assert rescaled
    states = collections.Counter(b["spec"]["state"] for b in medium[n.BINDING])
    assert states[n.BOUND] > states[n.SCHEDULED] > 0
    # The loader sees the obsolete ones as obsolete, and the rest as current.
    existing = {r.name: r.existing for r in medium_batch.requests}
    stale_parents = {parent(s) for s in obsolete}
    for name, decisions in existing.items():
        assert all(d.current is (name not in stale_parents) for d in decisions)
    assert sum(1 for name in stale_parents if existing[name]) >= 10


def test_pick_all_selections_are_bounded():
    objects = generate("fleet", 10_000, 60, seed=0)
    outcome = schedule(objects, now=NOW, options=SolveOptions(mode="greedy"))
    modes = {r.key: r.mode for r in outcome.batch.requests}
    sizes = [len(r.selected) for r in outcome.result.requests if modes[r.request] is SelectionMode.ALL]
    assert len(sizes) == 9
    assert max(sizes) <= PICK_ALL_LIMIT
    assert sum(sizes) > 0


# -- the objects load and solve ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loads_and_solves(mode, seed):
    objects = generate("fleet", *SMALL, seed=seed)
    outcome = schedule(objects, now=NOW, options=SolveOptions(mode=mode))  # the checker runs by default
    assert outcome.summary["requests"] == 30
    assert outcome.summary["clusters"] == 50
    assert outcome.apply


def test_yaml_stream_schedules():
    text = generate_yaml("fleet", 40, 20, seed=5)
    outcome = schedule_manifests(parse_text(text, "generated.yaml"), now=NOW)
    assert outcome.summary["requests"] == 20
