"""The kcp workspace-set generator (adapters.kcp.generate), both generations: determinism, sizes,
the shape of every kind as the adapter reads it, the cluster-state mix, placed and new namespaces,
and that the set loads and solves in both modes with the unplaceable namespaces reported."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from adapters.kcp import names as n
from adapters.kcp.annotation import parse_placement
from adapters.kcp.generate import GENERATIONS, generate
from adapters.kcp.keys import sync_target_key
from adapters.kcp.workspace import workspace_of
from adapters.kube.manifests import dump_yaml_stream, parse_text
from tests.fixtures.common import NOW_TIME as NOW


def kinds(objects):
    return Counter(o["kind"] for o in objects)


def of(objects, kind):
    return [o for o in objects if o["kind"] == kind]


@pytest.fixture(scope="module", params=GENERATIONS)
def medium(request):
    return request.param, generate(200, 600, seed=0, now=NOW, generation=request.param)


def test_same_arguments_same_bytes_and_seeds_differ():
    for generation in GENERATIONS:
        first = dump_yaml_stream(generate(60, 90, seed=4, now=NOW, generation=generation))
        assert first == dump_yaml_stream(generate(60, 90, seed=4, now=NOW, generation=generation))
        assert first != dump_yaml_stream(generate(60, 90, seed=5, now=NOW, generation=generation))
    assert generate(60, 90, seed=4, now=NOW) == generate(60, 90, seed=4, now=NOW, generation="v0.8")


def test_bad_arguments():
    with pytest.raises(ValueError, match="generation"):
        generate(5, 5, seed=0, now=NOW, generation="v0.6")
    with pytest.raises(ValueError, match="non-negative"):
        generate(-1, 5, seed=0, now=NOW)
    with pytest.raises(TypeError):
        generate(5, 5, seed=0, now="2026-11-21T12:00:00Z")
    assert generate(0, 0, seed=0, now=NOW) == []


@pytest.mark.parametrize("generation", GENERATIONS)
@pytest.mark.parametrize(("clusters", "placements"), [(0, 7), (6, 0), (1, 1), (3, 40), (25, 30)])
def test_small_and_empty_sizes_round_trip(generation, clusters, placements):
    objects = generate(clusters, placements, seed=1, now=NOW, generation=generation)
    cluster_kind = n.WORKLOAD_CLUSTER if generation == "v0.5" else n.SYNC_TARGET
    assert kinds(objects)[cluster_kind] == clusters
    assert kinds(objects)[n.NAMESPACE] == placements
    assert [m.obj for m in parse_text(dump_yaml_stream(objects), "set.yaml")] == objects


def test_sizes_and_locations(medium):
    generation, objects = medium
    counted = kinds(objects)
    cluster_kind = n.WORKLOAD_CLUSTER if generation == "v0.5" else n.SYNC_TARGET
    assert counted[cluster_kind] == 200 and counted[n.NAMESPACE] == 600
    assert counted[n.LOCATION] == 20  # one per ten clusters, the lab's included
    resource = "workloadclusters" if generation == "v0.5" else "synctargets"
    for location in of(objects, n.LOCATION):
        assert location["spec"]["resource"] == {
            "group": n.WORKLOAD_GROUP,
            "version": "v1alpha1",
            "resource": resource,
        }
        assert location["spec"]["instanceSelector"]["matchLabels"]
        assert {"region", "provider", "environment", "tier"} <= set(location["metadata"]["labels"])
    names = [(workspace_of(o), o["kind"], o["metadata"]["name"]) for o in objects]
    assert len(names) == len(set(names))  # unique within a workspace


@pytest.mark.parametrize("generation", GENERATIONS)
def test_names_stay_unique_at_scale(generation):
    objects = generate(2000, 50, seed=0, now=NOW, generation=generation)
    names = Counter((o["kind"], workspace_of(o), o["metadata"]["name"]) for o in objects)
    assert max(names.values()) == 1
    wide = [o for o in objects if o["kind"] == n.LOCATION and o["metadata"]["name"].endswith("-any")]
    assert 1 <= len(wide) <= 8  # up to one region-wide Location per region


def test_cluster_state_mix(medium):
    generation, objects = medium
    cluster_kind = n.WORKLOAD_CLUSTER if generation == "v0.5" else n.SYNC_TARGET
    clusters = of(objects, cluster_kind)
    unready = [c for c in clusters if c["status"]["conditions"][0]["status"] == "False"]
    cordoned = [c for c in clusters if c["spec"].get("unschedulable")]
    evicting = [c for c in clusters if c["spec"].get("evictAfter", "9999") <= "2026-11-21T12:00:00Z"]
    announced = [c for c in clusters if c["spec"].get("evictAfter", "") > "2026-11-21T12:00:00Z"]
    # 198 main clusters (3%, 2%, 1.5%, 0.5% of them exactly) and the lab's two (unready, evicting).
    assert (len(unready), len(cordoned), len(evicting), len(announced)) == (6 + 1, 4, 3 + 1, 1)
    lab = [c for c in clusters if workspace_of(c).endswith("compute-lab")]
    assert len(lab) == 2 and all(c in unready or c in evicting for c in lab)


def test_bindings(medium):
    generation, objects = medium
    bindings = of(objects, n.API_BINDING)
    workspaces = {workspace_of(ns) for ns in of(objects, n.NAMESPACE)}
    assert len(workspaces) - len(bindings) >= 1  # some workspaces are not bound
    for binding in bindings:
        reference = binding["spec"]["reference"]["workspace"]
        assert reference["exportName"] == "kubernetes"
        assert reference["path"].startswith("root:") and set(reference) == {"path", "exportName"}
    not_ready = [b for b in bindings if b["status"]["conditions"][1]["status"] == "False"]
    assert len(not_ready) >= 1


def test_v05_namespaces_placed_and_new():
    objects = generate(200, 600, seed=0, now=NOW, generation="v0.5")
    spaces = of(objects, n.NAMESPACE)
    states = Counter()
    clusters = {c["metadata"]["name"] for c in of(objects, n.WORKLOAD_CLUSTER)}
    locations = {(workspace_of(o), o["metadata"]["name"]) for o in of(objects, n.LOCATION)}
    malformed = 0
    for ns in spaces:
        annotations = ns["metadata"].get("annotations", {})
        parsed = parse_placement(annotations.get(n.PLACEMENT_ANNOTATION))
        assert not parsed.invalid
        malformed += bool(parsed.malformed)
        for entry, state in parsed.entries.values():
            states[state] += 1
            assert entry.cluster in clusters and (entry.workspace, entry.location) in locations
            label = ns["metadata"]["labels"].get(n.V05_STATE_LABEL + entry.cluster)
            assert label == ("Sync" if state != n.State.UNBOUND else None)
        if parsed.entries:
            assert annotations[n.NEGOTIATION_ANNOTATION] == "root:acme:compute"
    placed = sum(1 for ns in spaces if n.PLACEMENT_ANNOTATION in ns["metadata"].get("annotations", {}))
    assert 0.6 < placed / len(spaces) < 0.8
    assert states[n.State.BOUND] > 300 and min(states.values()) >= 5 and len(states) == 4
    assert malformed >= 1
    assert any(n.SCHEDULING_DISABLED in ns["metadata"]["labels"] for ns in spaces)


def test_v08_placements_and_namespaces():
    objects = generate(200, 600, seed=0, now=NOW, generation="v0.8")
    placements = of(objects, n.PLACEMENT)
    targets = {sync_target_key(workspace_of(c), c["metadata"]["name"]) for c in of(objects, n.SYNC_TARGET)}
    bound = [p for p in placements if p.get("status", {}).get("phase") == "Bound"]
    assert 0.7 < len(bound) / len(placements) < 0.95
    for p in bound:
        assert p["metadata"]["annotations"][n.SYNC_TARGET_ANNOTATION] in targets
        assert p["status"]["selectedLocation"]["path"] in ("root:compute", "root:compute-lab")
    assert {p["metadata"]["name"] for p in placements} == {"default", "gpu"}
    assert any(p["spec"]["namespaceSelector"] == {} for p in placements)
    spaces = of(objects, n.NAMESPACE)
    marked = [ns for ns in spaces if ns["metadata"].get("annotations", {}).get(n.PLACEMENT_ANNOTATION) == ""]
    assert 0.5 < len(marked) / len(spaces) < 0.9
    for ns in marked:
        keys = [k for k in ns["metadata"]["labels"] if k.startswith(n.STATE_LABEL)]
        assert keys and all(k[len(n.STATE_LABEL) :] in targets for k in keys)
    moving = [
        ns
        for ns in spaces
        if any(k.startswith(n.DELETION_ANNOTATION) for k in ns["metadata"].get("annotations", {}))
    ]
    assert moving
    assert json.dumps(objects)  # plain data


# ============================================================================== the bench's helpers


def test_moves_and_spread_count_namespace_cluster_pairs():
    from bench import kcp_hub

    for generation in GENERATIONS:
        objects = kcp_hub.workspace_set(40, 120, 3, generation)
        on = kcp_hub.placed(objects)
        assert on and kcp_hub.moves(objects, objects) == (0, 0)
        target = kcp_hub.busiest_cluster(objects)
        held = sum(1 for clusters in on.values() if target in clusters)
        removed = kcp_hub.apply_event("cluster-removed", objects, seed=0)
        assert len(removed) == len(objects) - 1 and removed != objects
        assert kcp_hub.apply_event("cluster-removed", objects, seed=0) == removed  # deterministic
        # The namespaces' own state still names the cluster: nothing moved until a scheduler runs.
        assert kcp_hub.moves(objects, removed) == (0, 0)
        relabelled = kcp_hub.apply_event("label-changed", objects, seed=0)
        changed = [a for a, b in zip(objects, relabelled, strict=True) if a != b]
        assert len(changed) == 1 and changed[0]["kind"] in ("WorkloadCluster", "SyncTarget")
        spread = kcp_hub.spread(objects)
        assert held >= spread["max"] >= spread["mean"] > 0  # the busiest may be unavailable


@pytest.mark.parametrize("generation", GENERATIONS)
def test_a_plan_moves_only_what_it_must(generation):
    from adapters.kube.manifests import from_objects
    from adapters.run.pipeline import schedule_manifests
    from bench import kcp_hub
    from solver import SolveOptions

    objects = kcp_hub.workspace_set(60, 200, 1, generation)
    for mode in ("greedy", "optimal"):
        outcome = schedule_manifests(
            from_objects(objects, "x"), now=kcp_hub.NOW, options=SolveOptions(mode=mode)
        )
        moved, forced = kcp_hub.moves(objects, kcp_hub.advance(objects, outcome))
        assert moved == forced > 0  # the generated set holds namespaces on clusters now unavailable
        assert kcp_hub.move_note(objects, outcome) == f"namespace moves {moved} / forced {forced}"


def test_a_v08_namespace_whose_cluster_left_its_placements_location_moved_by_force():
    # Controller B gives a target up once the Placement's selected Location no longer selects it
    from adapters.kube.manifests import from_objects
    from adapters.run.pipeline import schedule_manifests
    from bench import kcp_hub

    objects = kcp_hub.workspace_set(40, 120, 3, "v0.8")
    state = kcp_hub.advance(objects, schedule_manifests(from_objects(objects, "x"), now=kcp_hub.NOW))
    relabelled = kcp_hub.apply_event("label-changed", state, seed=0)  # out of its Location
    after = schedule_manifests(from_objects(relabelled, "x"), now=kcp_hub.NOW)
    moved, forced = kcp_hub.moves(relabelled, kcp_hub.advance(relabelled, after))
    assert moved == forced > 0


def test_eviction_report_at_a_small_size(tmp_path):
    from bench import kcp_evict

    frame = kcp_evict.run(60, 200, 0.1, 0)
    assert frame.height == 6  # greedy, optimal, optimal from greedy's state; per generation
    for row in frame.iter_rows(named=True):
        assert row["converged"] and row["violations"] == 0
        assert row["moves"] == row["forced"] <= row["on_evicted"] and row["forced"] > 0
        assert row["evicted"] == 5
    for generation in GENERATIONS:  # from greedy's state, optimal answers the same eviction
        rows = {
            r["history"] + "/" + r["mode"]: r
            for r in frame.iter_rows(named=True)
            if r["generation"] == generation
        }
        assert rows["greedy/optimal"]["on_evicted"] == rows["greedy/greedy"]["on_evicted"]
        assert rows["greedy/optimal"]["max_before"] == rows["greedy/greedy"]["max_before"]
    files = kcp_evict.write_report(frame, tmp_path, clusters=60, namespaces=200, share=0.1, seed=0)
    text = (tmp_path / "README.md").read_text()
    assert [f.name for f in files] == ["results.csv", "README.md"]
    assert "| v0.8 | optimal |" in text and "--clusters 60 --namespaces 200" in text


@pytest.mark.parametrize(
    ("generation", "marker"),
    [("v0.5", ("clusterName", None)), ("v0.8", (None, "kcp.dev/cluster"))],
)
def test_generate_marks_every_workspace_as_its_generation_does(generation, marker):
    """`generate --system kcp --generation G`: v0.5 objects name their workspace with
    metadata.clusterName (logicalcluster v1), v0.8 ones with the kcp.dev/cluster annotation
    (logicalcluster/v2 alpha.1, pinned by kcp v0.8.0), and nothing else; every one names one."""
    from click.testing import CliRunner

    from adapters.cli.main import main

    args = ["generate", "--system", "kcp", "--generation", generation, "--clusters", "25"]
    result = CliRunner().invoke(main, [*args, "--placements", "30", "--now", "2026-11-21T12:00:00Z"])
    assert result.exit_code == 0, result.output
    objects = [m.obj for m in parse_text(result.stdout, "set.yaml")]
    field, annotation = marker
    for o in objects:
        metadata = o["metadata"]
        annotations = metadata.get("annotations") or {}
        assert (field in metadata) if field else "clusterName" not in metadata, metadata
        assert (annotation in annotations) if annotation else "kcp.dev/cluster" not in annotations, metadata
        assert "kcp.io/cluster" not in annotations
        assert workspace_of(o).startswith("root:")
