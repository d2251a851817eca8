"""The synthetic OCM hub generator: adapters.ocm.generate."""

from __future__ import annotations

import collections
import json
import re
import time
from datetime import timedelta, timezone

import pytest

from adapters.ocm.generate import generate_ocm
from tests.fixtures.common import NOW_TIME as NOW
from tests.fixtures.common import by_kind, matches, when

GROUP = "cluster.open-cluster-management.io"
API = {
    "ManagedCluster": f"{GROUP}/v1",
    "ManagedClusterSet": f"{GROUP}/v1beta2",
    "ManagedClusterSetBinding": f"{GROUP}/v1beta2",
    "AddOnPlacementScore": f"{GROUP}/v1alpha1",
    "Placement": f"{GROUP}/v1beta1",
    "PlacementDecision": f"{GROUP}/v1beta1",
}
NAMESPACED = {"ManagedClusterSetBinding", "AddOnPlacementScore", "Placement", "PlacementDecision"}
SET_LABEL = f"{GROUP}/clusterset"
PLACEMENT_LABEL = f"{GROUP}/placement"
GROUP_NAME_LABEL = f"{GROUP}/decision-group-name"
GROUP_INDEX_LABEL = f"{GROUP}/decision-group-index"
UNAVAILABLE, UNREACHABLE = f"{GROUP}/unavailable", f"{GROUP}/unreachable"
AVAILABLE = "ManagedClusterConditionAvailable"
PER_GROUP = re.compile(r"^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$")
QUALIFIED = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
TOLERATION_KEY = re.compile(QUALIFIED + r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
TOPOLOGY_KEY = re.compile(QUALIFIED + r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
GROUP_NAME = re.compile(r"^[a-zA-Z0-9][-A-Za-z0-9_.]{0,61}[a-zA-Z0-9]$")
BUILTINS = {"Balance", "Steady", "ResourceAllocatableCPU", "ResourceAllocatableMemory"}
SIZE = (500, 100)


def available_status(cluster):
    return next(c["status"] for c in cluster["status"]["conditions"] if c["type"] == AVAILABLE)


class Hub:
    """The generated objects plus a naive, independent reading of sets, bindings and predicates."""

    def __init__(self, objects):
        self.objects = objects
        self.kinds = by_kind(objects)
        self.clusters = {c["metadata"]["name"]: c for c in self.kinds["ManagedCluster"]}
        self.claims = {
            name: {c["name"]: c["value"] for c in mc["status"]["clusterClaims"]}
            for name, mc in self.clusters.items()
        }
        self.sets = {
            s["metadata"]["name"]: s["spec"]["clusterSelector"] for s in self.kinds["ManagedClusterSet"]
        }
        self.members = {name: self._members(sel, name) for name, sel in self.sets.items()}
        self.bound = collections.defaultdict(set)
        for b in self.kinds["ManagedClusterSetBinding"]:
            if b["metadata"]["name"] in self.sets:
                self.bound[b["metadata"]["namespace"]].add(b["metadata"]["name"])

    def _members(self, selector, name):
        if selector["selectorType"] == "ExclusiveClusterSetLabel":
            return {n for n, c in self.clusters.items() if c["metadata"]["labels"].get(SET_LABEL) == name}
        return {
            n for n, c in self.clusters.items() if matches(selector["labelSelector"], c["metadata"]["labels"])
        }

    def visible(self, placement):
        """Clusters of the eligible sets, not terminating."""
        spec = placement["spec"]
        sets = self.bound[placement["metadata"]["namespace"]]
        if spec.get("clusterSets"):
            sets = sets & set(spec["clusterSets"])
        names = set().union(*(self.members[s] for s in sets)) if sets else set()
        return {n for n in names if "deletionTimestamp" not in self.clusters[n]["metadata"]}

    def passes(self, placement, name):
        """Label and claim predicates only (CEL, taints and scores ignored)."""
        predicates = placement["spec"].get("predicates") or []
        labels, claims = self.clusters[name]["metadata"]["labels"], self.claims[name]
        return not predicates or any(
            matches(p["requiredClusterSelector"].get("labelSelector") or {}, labels)
            and matches(p["requiredClusterSelector"].get("claimSelector") or {}, claims)
            for p in predicates
        )


@pytest.fixture(scope="module")
def objects():
    return generate_ocm(*SIZE, seed=0, now=NOW)


@pytest.fixture(scope="module")
def hub(objects):
    return Hub(objects)


# -- API ---------------------------------------------------------------------------------------------


def test_sizes_and_kinds(hub):
    counts = {kind: len(items) for kind, items in hub.kinds.items()}
    assert counts["ManagedCluster"] == SIZE[0]
    assert counts["Placement"] == SIZE[1]
    assert set(counts) == set(API)
    assert {o["kind"] for o in generate_ocm(0, 0, now=NOW)} == {"ManagedClusterSet"}


def test_deterministic(objects):
    again = generate_ocm(*SIZE, seed=0, now=NOW)
    assert json.dumps(again) == json.dumps(objects)
    other = generate_ocm(*SIZE, seed=1, now=NOW)
    assert other != objects
    # Clusters do not depend on the number of placements.
    few, many = generate_ocm(50, 5, seed=3, now=NOW), generate_ocm(50, 40, seed=3, now=NOW)
    assert by_kind(few)["ManagedCluster"] == by_kind(many)["ManagedCluster"]


@pytest.mark.parametrize(
    ("clusters", "placements", "seed", "error"),
    [
        (-1, 5, 0, ValueError),
        (5, -1, 0, ValueError),
        (5, 5, -1, ValueError),
        (5.0, 5, 0, ValueError),
        (True, 5, 0, ValueError),
    ],
)
def test_bad_arguments(clusters, placements, seed, error):
    with pytest.raises(error, match="non-negative integer"):
        generate_ocm(clusters, placements, seed=seed, now=NOW)


def test_now_must_be_a_datetime():
    with pytest.raises(TypeError, match="datetime"):
        generate_ocm(5, 5, now="2026-11-21T12:00:00Z")
    naive = generate_ocm(5, 5, now=NOW.replace(tzinfo=None))
    assert naive == generate_ocm(5, 5, now=NOW)
    elsewhere = NOW.astimezone(timezone(timedelta(hours=-5)))  # the same instant
    assert generate_ocm(5, 5, now=elsewhere) == naive


def test_speed():
    # CPU seconds, not wall: the machine running the suite may be busy with other work.
    start = time.process_time()
    generate_ocm(2_000, 200, seed=0, now=NOW)
    assert time.process_time() - start < 1.0


# -- shape -------------------------------------------------------------------------------------------


def test_identity_and_plain_json(objects, hub):
    plain = (str, int, bool, type(None))

    def check(value, path):
        if isinstance(value, dict):
            for k, v in value.items():
                assert type(k) is str, path
                check(v, f"{path}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                check(v, f"{path}[{i}]")
        else:
            assert type(value) in plain, (path, type(value))

    seen = set()
    for obj in objects:
        check(obj, obj["kind"])
        assert obj["apiVersion"] == API[obj["kind"]]
        meta = obj["metadata"]
        assert type(meta["name"]) is str and meta["name"]
        assert ("namespace" in meta) == (obj["kind"] in NAMESPACED), obj
        key = (obj["kind"], meta.get("namespace"), meta["name"])
        assert key not in seen
        seen.add(key)
        for value in (meta.get("labels") or {}).values():
            assert type(value) is str
    for b in hub.kinds["ManagedClusterSetBinding"]:
        assert b["metadata"]["name"] == b["spec"]["clusterSet"]
    for s in hub.kinds["AddOnPlacementScore"]:
        assert s["metadata"]["namespace"] in hub.clusters


def test_clusters(hub):
    clusters = list(hub.clusters.values())
    assert all(re.fullmatch(r"cluster-[a-z0-9-]+-\d{5}", n) for n in hub.clusters)
    statuses = collections.Counter(available_status(c) for c in clusters)
    assert statuses["True"] >= 0.9 * len(clusters) and statuses["False"] and statuses["Unknown"]
    effects = collections.Counter()
    for c in clusters:
        assert c["spec"]["hubAcceptsClient"] is True
        builtin = {t["key"]: t for t in c["spec"].get("taints", []) if t["key"].startswith(GROUP)}
        condition = next(x for x in c["status"]["conditions"] if x["type"] == AVAILABLE)
        expected = {"True": set(), "False": {UNAVAILABLE}, "Unknown": {UNREACHABLE}}[condition["status"]]
        assert set(builtin) == expected
        for taint in c["spec"].get("taints", []):
            assert when(taint["timeAdded"]) <= NOW
            effects[taint["effect"]] += 1
        for taint in builtin.values():
            assert taint["effect"] == "NoSelect" and taint["timeAdded"] == condition["lastTransitionTime"]
        assert when(condition["lastTransitionTime"]) < NOW
        assert c["status"]["version"]["kubernetes"].startswith("v1.")
        assert {"cpu", "memory"} <= set(c["status"]["capacity"]) and "cpu" in c["status"]["allocatable"]
        claims = hub.claims[c["metadata"]["name"]]
        ocm = "open-cluster-management.io"
        assert {"id.k8s.io", f"platform.{ocm}", f"region.{ocm}", f"product.{ocm}"} <= set(claims)
        assert claims[f"kubeversion.{ocm}"] == c["status"]["version"]["kubernetes"]
    assert effects["NoSelect"] > statuses["False"] + statuses["Unknown"]  # custom ones too
    assert effects["PreferNoSelect"] and effects["NoSelectIfNew"]
    assert any("memory" not in c["status"]["allocatable"] for c in clusters)
    assert 0 < sum("deletionTimestamp" in c["metadata"] for c in clusters) < 0.02 * len(clusters)
    labelled = sum(SET_LABEL in c["metadata"]["labels"] for c in clusters)
    assert 0.8 * len(clusters) < labelled < len(clusters)
    regions = collections.Counter(c["metadata"]["labels"]["region"] for c in clusters)
    assert regions.most_common()[0][1] > 3 * regions.most_common()[-1][1]  # skewed
    zones = {}
    for c in clusters:  # zones nest in regions
        labels = c["metadata"]["labels"]
        assert zones.setdefault(labels["zone"], labels["region"]) == labels["region"]
    assert {"Amazon", "Azure", "Google"} <= {c["metadata"]["labels"]["cloud"] for c in clusters}
    assert {"prod", "staging", "dev"} == {c["metadata"]["labels"]["environment"] for c in clusters}


def test_scores(hub):
    scores = hub.kinds["AddOnPlacementScore"]
    names = collections.Counter(s["metadata"]["name"] for s in scores)
    assert names["resource-usage-score"] > 0.7 * len(hub.clusters) and names["latency"]
    expired = missing = 0
    for s in scores:
        for item in s["status"]["scores"]:
            assert type(item["value"]) is int and -100 <= item["value"] <= 100
        until = s["status"].get("validUntil")
        if until is None:
            missing += 1
        else:
            expired += when(until) < NOW
    assert 0.01 * len(scores) < expired < 0.1 * len(scores)
    assert missing


def test_sets_and_bindings(hub):
    selectors = hub.sets
    assert selectors["global"] == {"selectorType": "LabelSelector", "labelSelector": {}}
    types = collections.Counter(s["selectorType"] for s in selectors.values())
    assert types["ExclusiveClusterSetLabel"] >= 4 and types["LabelSelector"] >= 3
    bindings = hub.kinds["ManagedClusterSetBinding"]
    assert 1 <= sum(b["spec"]["clusterSet"] == "global" for b in bindings) <= 2
    assert any(b["spec"]["clusterSet"] not in selectors for b in bindings)


def test_placements_within_schema(hub):
    seen = collections.Counter()
    for p in hub.kinds["Placement"]:
        spec = p["spec"]
        n = spec.get("numberOfClusters")
        assert n is None or (type(n) is int and n >= 0)
        policy = spec.get("prioritizerPolicy")
        seen["mode:" + (policy.get("mode", "") if policy else "absent")] += 1
        for config in (policy or {}).get("configurations", []):
            assert type(config["weight"]) is int and -10 <= config["weight"] <= 10
            coordinate = config["scoreCoordinate"]
            assert coordinate["type"] in ("BuiltIn", "AddOn")
            seen[coordinate["type"]] += 1
        constraints = (spec.get("spreadPolicy") or {}).get("spreadConstraints", [])
        assert len(constraints) <= 8
        for c in constraints:
            assert type(c.get("maxSkew", 1)) is int and c.get("maxSkew", 1) >= 1
            assert c.get("whenUnsatisfiable", "ScheduleAnyway") in ("DoNotSchedule", "ScheduleAnyway")
            assert c["topologyKeyType"] in ("Label", "Claim") and TOPOLOGY_KEY.match(c["topologyKey"])
            seen["spread:" + c["topologyKeyType"]] += 1
        for t in spec.get("tolerations", []):
            assert t.get("operator", "Equal") in ("Equal", "Exists")
            assert t.get("effect", "") in ("", "NoSelect", "PreferNoSelect", "NoSelectIfNew")
            assert "key" not in t or TOLERATION_KEY.match(t["key"])
            assert type(t.get("tolerationSeconds", 0)) is int
            seen["tolerationSeconds"] += "tolerationSeconds" in t
        strategy = (spec.get("decisionStrategy") or {}).get("groupStrategy")
        if strategy:
            seen["groups"] += 1
            if "clustersPerDecisionGroup" in strategy:
                assert PER_GROUP.match(str(strategy["clustersPerDecisionGroup"]))
            for g in strategy.get("decisionGroups", []):
                assert GROUP_NAME.match(g["groupName"]) and "celSelector" not in g["groupClusterSelector"]
        for pred in spec.get("predicates", []):
            selector = pred["requiredClusterSelector"]
            seen.update(k for k in ("labelSelector", "claimSelector", "celSelector") if k in selector)
        seen["all"] += n is None
        seen["clusterSets"] += bool(spec.get("clusterSets"))
    for key in (
        "mode:absent", "mode:Additive", "mode:Exact", "mode:", "BuiltIn", "AddOn", "spread:Label",
        "tolerationSeconds", "groups", "labelSelector", "claimSelector", "celSelector", "all", "clusterSets",
    ):  # fmt: skip
        assert seen[key], key


def misconfigured(placement):
    spec = placement["spec"]
    policy = spec.get("prioritizerPolicy") or {}
    for config in policy.get("configurations", []):
        coordinate = config["scoreCoordinate"]
        if coordinate["type"] == "BuiltIn" and coordinate["builtIn"] not in BUILTINS and config["weight"]:
            return True
        if coordinate["type"] == "AddOn" and "addOn" not in coordinate:
            return True
    for t in spec.get("tolerations", []):
        exists = t.get("operator") == "Exists"
        if (not t.get("key") and not exists) or (exists and t.get("value")):
            return True
    return policy.get("mode", "Additive") not in ("Additive", "Exact")


def test_mostly_well_formed():
    placements = by_kind(generate_ocm(300, 400, seed=5, now=NOW))["Placement"]
    broken = sum(misconfigured(p) for p in placements)
    assert 0 < broken < 0.1 * len(placements)


def test_existing_decisions(hub):
    placements = {(p["metadata"]["namespace"], p["metadata"]["name"]): p for p in hub.kinds["Placement"]}
    decisions = collections.defaultdict(list)
    for d in hub.kinds["PlacementDecision"]:
        meta = d["metadata"]
        placement = placements[meta["namespace"], meta["labels"][PLACEMENT_LABEL]]
        owner = meta["ownerReferences"][0]
        assert (
            owner["kind"] == "Placement"
            and owner["uid"] == placement["metadata"]["uid"]
            and owner["controller"]
        )
        assert len(d["status"]["decisions"]) <= 100
        assert all(x["reason"] == "" for x in d["status"]["decisions"])
        decisions[meta["namespace"], meta["labels"][PLACEMENT_LABEL]].append(d)
    assert 0.3 * len(placements) <= len(decisions) <= 0.5 * len(placements)
    no_longer_fit = 0
    for key, objects in decisions.items():
        placement = placements[key]
        name = placement["metadata"]["name"]
        assert [d["metadata"]["name"] for d in objects] == [
            f"{name}-decision-{k}" for k in range(1, len(objects) + 1)
        ]
        status = placement["status"]
        groups = status["decisionGroups"]
        assert sum(g["clusterCount"] for g in groups) == status["numberOfSelectedClusters"]
        by_name = {d["metadata"]["name"]: d for d in objects}
        for g in groups:
            members = []
            for pd_name in g["decisions"]:
                labels = by_name[pd_name]["metadata"]["labels"]
                assert labels[GROUP_INDEX_LABEL] == str(g["decisionGroupIndex"])
                assert labels[GROUP_NAME_LABEL] == g["decisionGroupName"]
                members += [x["clusterName"] for x in by_name[pd_name]["status"]["decisions"]]
            assert members == sorted(members) and len(members) == g["clusterCount"]
        visible = hub.visible(placement)
        chosen = [x["clusterName"] for d in objects for x in d["status"]["decisions"]]
        no_longer_fit += any(c not in visible or not hub.passes(placement, c) for c in chosen)
    assert 0 < no_longer_fit < 0.4 * len(decisions)


def test_realism(hub):
    """Most clusters available, most placements see clusters, and label/claim predicates mostly
    leave at least numberOfClusters clusters (a naive count: CEL, taints and scores ignored)."""
    clusters = list(hub.clusters.values())
    available = sum(available_status(c) == "True" for c in clusters) / len(clusters)
    placements = hub.kinds["Placement"]
    sees = enough = counted = 0
    for p in placements:
        visible = hub.visible(p)
        sees += bool(visible)
        n = p["spec"].get("numberOfClusters")
        if n is not None:
            counted += 1
            enough += sum(hub.passes(p, c) for c in visible) >= n
    assert available >= 0.9
    assert sees / len(placements) >= 0.85
    assert enough / counted >= 0.8
