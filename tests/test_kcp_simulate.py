"""`simulate` end to end (adapters.kcp.simulate; the command once adapters/cli.py has it): the
scheduler and kcp's other actors run to a fixed point, in both generations and both modes. The
happy case; an eviction moving a namespace within its location, the old cluster's objects removed
only after the deletion is signalled (and held by a coordination finalizer); a location
disappearing; generated workspace sets converging within a bound number of steps with every
placeable namespace placed; determinism; the output formats; --steps; bad input."""

from __future__ import annotations

import copy
import json
from datetime import timedelta

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.errors import InputError
from adapters.kcp.actors import V05, V08, label_losses
from adapters.kcp.generate import generate
from adapters.kcp.keys import sync_target_key
from adapters.kcp.names import Generation
from adapters.kcp.simulate import MAX_STEPS, STEP, render, run_simulation
from adapters.kcp.workspace import mark, workspace_of
from adapters.kube.manifests import dump_yaml_stream, from_objects, parse_text
from solver import SolveOptions
from tests.fixtures.kcp import (
    COMPUTE,
    MODES,
    NOW_TIME,
    TEAM,
    ago,
    cluster,
    compute_v05,
    compute_v08,
    namespace,
    namespace_v08,
    placement,
    sync_target,
)

PLACEMENT = "scheduling.kcp.dev/placement"
SYNCTARGET = "internal.workload.kcp.dev/synctarget"
BOUND_LIMIT = 8  # steps within which every scenario here converges


def workloads(ns: str = "app", workspace: str = TEAM, generation: str = "v0.5") -> list[dict]:
    """A namespace's objects, their workspace marked as the generation marks it."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": mark({"name": "settings", "namespace": ns}, workspace, Generation(generation)),
            "data": {"level": "info"},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": mark({"name": "web", "namespace": ns}, workspace, Generation(generation)),
            "spec": {"replicas": 2},
        },
    ]


def simulate(objects, mode="optimal", *, now=NOW_TIME, steps=None, seed=0):
    sim = run_simulation(
        from_objects(copy.deepcopy(objects), "<test>"),
        now=now,
        steps=steps,
        options=SolveOptions(mode=mode, seed=seed),
    )
    assert sim.violations == []
    return sim


def find(objects, kind, name, workspace=TEAM):
    (obj,) = [
        o
        for o in objects
        if o["kind"] == kind and o["metadata"]["name"] == name and workspace_of(o) == workspace
    ]
    return obj


def entries(obj) -> dict[str, str]:
    return json.loads(obj["metadata"]["annotations"][PLACEMENT])


def labels(obj) -> dict[str, str]:
    return obj["metadata"].get("labels") or {}


def finalizers(obj) -> list[str]:
    return obj["metadata"].get("finalizers") or []


def evict(objects, name, *, kind="WorkloadCluster", seconds=60):
    out = copy.deepcopy(objects)
    find(out, kind, name, COMPUTE)["spec"]["evictAfter"] = ago(seconds=seconds)
    return out


def first_step(sim, actor, obj_suffix, detail, after=None):
    """The step of the first transition matching, or None."""
    for entry in sim.log:
        t = entry.transition
        if (
            t.actor == actor
            and t.object.endswith(obj_suffix)
            and t.detail == detail
            and (after is None or t.after == after)
        ):
            return entry.step
    return None


# ============================================================================================ v0.5


def v05_world():
    clusters = [cluster(c, "us") for c in ("c1", "c2", "c3")] + [cluster(c, "eu") for c in ("e1", "e2")]
    return [*compute_v05(*clusters, locations=["us", "eu"]), namespace("app"), *workloads()]


def us_placed(objects):
    """The v0.5 world converged with `app` Bound on c1 in location us."""
    placed = copy.deepcopy(objects)
    find(placed, "Namespace", "app")["metadata"]["annotations"] = {
        PLACEMENT: json.dumps({f"{COMPUTE}+us+c1": "Pending"})
    }
    sim = simulate(placed)
    assert entries(find(sim.objects, "Namespace", "app")) == {f"{COMPUTE}+us+c1": "Bound"}
    return sim.objects


@pytest.mark.parametrize("mode", MODES)
def test_v05_happy_case_converges_bound_and_synced(mode):
    sim = simulate(v05_world(), mode)
    assert sim.converged and sim.steps <= 4 and sim.generation == "v0.5"
    ns = find(sim.objects, "Namespace", "app")
    ((where, state),) = entries(ns).items()
    assert state == "Bound"
    cluster_name = where.rpartition("+")[2]
    assert labels(ns)[V05.state + cluster_name] == "Sync"
    assert finalizers(ns) == [V05.syncer + cluster_name]
    for kind, name in (("ConfigMap", "settings"), ("Deployment", "web")):
        obj = find(sim.objects, kind, name)
        assert labels(obj) == {V05.state + cluster_name: "Sync"}
        assert finalizers(obj) == [V05.syncer + cluster_name]
    # The path: Pending by the scheduler, the label by the namespace controller, Bound once adopted.
    assert first_step(sim, "scheduler", "|app", f"placement {where}", "Pending") == 1
    assert first_step(sim, "namespace-controller", "|app", f"label {V05.state}{cluster_name}") == 1
    assert first_step(sim, "syncer", "|app", f"finalizer {V05.syncer}{cluster_name}") == 1
    assert first_step(sim, "namespace-controller", "|app", f"placement {where}", "Bound") == 2
    # A fixed point: simulating the result changes nothing.
    again = simulate(sim.objects, mode, now=sim.ended + STEP)
    assert again.steps == 1 and again.log == [] and again.objects == sim.objects


@pytest.mark.parametrize("mode", MODES)
def test_v05_eviction_moves_within_the_location_removing_only_after_the_signal(mode):
    objects = evict(us_placed(v05_world()), "c1")
    sim = simulate(objects, mode)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    ns = find(sim.objects, "Namespace", "app")
    old = f"{COMPUTE}+us+c1"
    # The Unbound entry stays: with us active and nothing to reschedule, upstream's scheduler
    # returns before its patch, so nothing collects it.
    ((where, state),) = [(k, v) for k, v in entries(ns).items() if k != old]
    assert entries(ns)[old] == "Unbound"
    assert state == "Bound" and where.startswith(f"{COMPUTE}+us+")
    new = where.rpartition("+")[2]
    for obj in (ns, find(sim.objects, "ConfigMap", "settings"), find(sim.objects, "Deployment", "web")):
        assert labels(obj) == {V05.state + new: "Sync"}
        assert finalizers(obj) == [V05.syncer + new]
        assert not any(k.startswith(V05.deletion) for k in obj["metadata"].get("annotations") or {})
    # Removing by the scheduler, then the deletion annotation, then the syncer's removal, then Unbound.
    removing = first_step(sim, "scheduler", "|app", f"placement {old}", "Removing")
    signalled = first_step(sim, "resource-controller", "app/web", f"annotation {V05.deletion}c1")
    removed = first_step(sim, "syncer", "app/web", f"label {V05.state}c1", "-")
    unbound = first_step(sim, "namespace-controller", "|app", f"placement {old}", "Unbound")
    assert removing == 1 and removing <= signalled <= removed < unbound
    pending = first_step(sim, "scheduler", "|app", f"placement {where}", "Pending")
    assert pending == 1  # the replacement is chosen at once, beside the removal


@pytest.mark.parametrize("mode", MODES)
def test_v05_a_coordination_finalizer_holds_the_old_cluster(mode):
    objects = evict(us_placed(v05_world()), "c1")
    web = find(objects, "Deployment", "web")
    web["metadata"].setdefault("annotations", {})[V05.finalizers + "c1"] = "ingress.example.com/drain"
    sim = simulate(objects, mode)
    assert sim.converged
    web = find(sim.objects, "Deployment", "web")
    assert labels(web)[V05.state + "c1"] == "Sync" and V05.syncer + "c1" in finalizers(web)
    assert labels(find(sim.objects, "ConfigMap", "settings")).keys() == labels(web).keys() - {
        V05.state + "c1"
    }
    ns = find(sim.objects, "Namespace", "app")
    states = entries(ns)
    assert states[f"{COMPUTE}+us+c1"] == "Removing"  # until the finalizer goes
    assert sorted(states.values()) == ["Bound", "Removing"]
    # The coordination controller lets go: the removal completes.
    del web["metadata"]["annotations"][V05.finalizers + "c1"]
    done = simulate(sim.objects, mode, now=sim.ended + STEP)
    assert sorted(entries(find(done.objects, "Namespace", "app")).values()) == ["Bound", "Unbound"]
    assert V05.state + "c1" not in labels(find(done.objects, "Deployment", "web"))


@pytest.mark.parametrize("mode", MODES)
def test_v05_a_location_disappearing_moves_the_namespace_to_another(mode):
    objects = [
        o for o in us_placed(v05_world()) if not (o["kind"] == "Location" and o["metadata"]["name"] == "us")
    ]
    sim = simulate(objects, mode)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    ns = find(sim.objects, "Namespace", "app")
    ((where, state),) = [(k, v) for k, v in entries(ns).items() if v != "Unbound"]
    assert entries(ns)[f"{COMPUTE}+us+c1"] == "Unbound"  # nothing collects it (see above)
    assert state == "Bound" and where.startswith(f"{COMPUTE}+eu+")
    assert set(labels(find(sim.objects, "Deployment", "web"))) == {V05.state + where.rpartition("+")[2]}


@pytest.mark.parametrize("mode", MODES)
def test_v05_no_schedulable_cluster_leaves_the_namespace_unplaced_and_unscheduled(mode):
    objects = [
        *compute_v05(
            cluster("c1", "us", ready=False), cluster("c2", "us", unschedulable=True), locations=["us"]
        ),
        namespace("app"),
        *workloads(),
    ]
    sim = simulate(objects, mode)
    assert sim.converged
    ns = find(sim.objects, "Namespace", "app")
    assert entries(ns) == {}
    assert ns["status"]["conditions"][0]["reason"] == "Unschedulable"
    assert "labels" not in find(sim.objects, "Deployment", "web")["metadata"]


# ============================================================================================ v0.8

K1, K2, K3 = (sync_target_key(COMPUTE, c) for c in ("s1", "s2", "s3"))


def v08_world():
    targets = [sync_target(c, "us") for c in ("s1", "s2", "s3")] + [sync_target("e1", "eu")]
    return [
        *compute_v08(*targets, locations=["us", "eu"]),
        placement("default", locations=[{"matchLabels": {"region": "us"}}]),
        namespace_v08("app"),
        *workloads(generation="v0.8"),
    ]


def v08_world_labelled():
    objects = v08_world()
    for obj in objects:
        if obj["kind"] == "Location":
            obj["metadata"]["labels"] = {"region": obj["metadata"]["name"]}
    return objects


@pytest.mark.parametrize("mode", MODES)
def test_v08_happy_case_converges_bound_and_synced(mode):
    sim = simulate(v08_world_labelled(), mode)
    assert sim.converged and sim.steps <= 4 and sim.generation == "v0.8"
    p = find(sim.objects, "Placement", "default")
    assert p["status"]["phase"] == "Bound"
    assert p["status"]["selectedLocation"] == {"path": COMPUTE, "locationName": "us"}
    target = p["metadata"]["annotations"][SYNCTARGET]
    assert target in (K1, K2, K3)
    ns = find(sim.objects, "Namespace", "app")
    assert ns["metadata"]["annotations"][PLACEMENT] == ""
    assert labels(ns) == {V08.state + target: "Sync"}
    for kind, name in (("ConfigMap", "settings"), ("Deployment", "web")):
        obj = find(sim.objects, kind, name)
        assert labels(obj) == {V08.state + target: "Sync"} and finalizers(obj) == [V08.syncer + target]
    # The scheduler runs Controllers A, B and C's bind step to rest: Bound in the first step.
    assert first_step(sim, "scheduler", "default", "phase", "Bound") == 1
    again = simulate(sim.objects, mode, now=sim.ended + STEP)
    assert again.steps == 1 and again.log == []


def v08_placed(mode):
    sim = simulate(v08_world_labelled(), mode)
    return sim.objects, find(sim.objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET]


@pytest.mark.parametrize("mode", MODES)
def test_v08_eviction_moves_within_the_location_after_the_grace(mode):
    objects, old = v08_placed(mode)
    name = {K1: "s1", K2: "s2", K3: "s3"}[old]
    sim = simulate(evict(objects, name, kind="SyncTarget"), mode)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    p = find(sim.objects, "Placement", "default")
    assert p["status"]["selectedLocation"]["locationName"] == "us"  # the location is sticky
    new = p["metadata"]["annotations"][SYNCTARGET]
    assert new in (K1, K2, K3) and new != old
    for kind, obj_name in (("Namespace", "app"), ("ConfigMap", "settings"), ("Deployment", "web")):
        assert labels(find(sim.objects, kind, obj_name)) == {V08.state + new: "Sync"}, obj_name
    signalled = first_step(sim, "scheduler", "|app", f"annotation {V08.deletion}{old}")
    copied = first_step(sim, "resource-controller", "app/web", f"annotation {V08.deletion}{old}")
    removed = first_step(sim, "syncer", "app/web", f"label {V08.state}{old}", "-")
    ns_removed = [
        e
        for e in sim.log
        if e.transition.object.endswith("|app") and e.transition.detail == f"label {V08.state}{old}"
    ]
    assert signalled == 1 and signalled <= copied <= removed
    # The namespace keeps the old label through the 5 s grace: removed two steps (10 s) later.
    assert len(ns_removed) == 1 and ns_removed[0].step == 3


@pytest.mark.parametrize("mode", MODES)
def test_v08_a_location_disappearing_ends_bound_elsewhere(mode):
    """The selected Location goes: the Placement ends Bound to another valid Location (the path
    there is the scheduler's: upstream first unbinds, Ready=False/LocationInvalid), the namespace
    synced to a SyncTarget there, the old target's objects removed downstream only after the
    signal."""
    objects = v08_world_labelled()
    find(objects, "Placement", "default")["spec"]["locationSelectors"] = [{}]  # every location
    first = simulate(objects, mode)
    chosen = find(first.objects, "Placement", "default")["status"]["selectedLocation"]["locationName"]
    old = find(first.objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET]
    other = {"us": "eu", "eu": "us"}[chosen]
    objects = [o for o in first.objects if not (o["kind"] == "Location" and o["metadata"]["name"] == chosen)]
    sim = simulate(objects, mode, now=first.ended + STEP)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    p = find(sim.objects, "Placement", "default")
    assert p["status"]["phase"] == "Bound"
    assert p["status"]["selectedLocation"]["locationName"] == other
    new = p["metadata"]["annotations"][SYNCTARGET]
    assert new != old
    for kind, name in (("Namespace", "app"), ("ConfigMap", "settings"), ("Deployment", "web")):
        assert labels(find(sim.objects, kind, name)) == {V08.state + new: "Sync"}, name
    removed = first_step(sim, "syncer", "app/web", f"label {V08.state}{old}", "-")
    signalled = first_step(sim, "resource-controller", "app/web", f"annotation {V08.deletion}{old}")
    assert signalled is not None and signalled <= removed


@pytest.mark.parametrize("mode", MODES)
def test_v08_unready_and_cordoned_targets_lose_the_placement_at_once(mode):
    objects, old = v08_placed(mode)
    name = {K1: "s1", K2: "s2", K3: "s3"}[old]
    target = find(objects, "SyncTarget", name, COMPUTE)
    target["spec"]["unschedulable"] = True
    sim = simulate(objects, mode)
    new = find(sim.objects, "Placement", "default")["metadata"]["annotations"][SYNCTARGET]
    assert new != old and labels(find(sim.objects, "Deployment", "web")) == {V08.state + new: "Sync"}


# ====================================================================================== generated sets


def placeable_v05(objects, sim_objects):
    """Namespaces that must end placed (v0.5): in a workspace bound (ready) to root:acme:compute,
    not opted out, with a valid annotation; and those that end without an entry on a non-evicting
    cluster."""
    bound = {
        workspace_of(o)
        for o in objects
        if o["kind"] == "APIBinding"
        and o["spec"]["reference"]["workspace"]["path"] == "root:acme:compute"
        and all(c["status"] == "True" for c in o["status"]["conditions"])
    }
    evicting = {
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "WorkloadCluster"
        and "evictAfter" in o["spec"]
        and o["spec"]["evictAfter"] <= "2026-11-21T12:00:00Z"
    }
    must, missing = 0, []
    for ns in sim_objects:
        if ns["kind"] != "Namespace" or workspace_of(ns) not in bound:
            continue
        if ns["metadata"]["labels"].get("experimental.workloads.kcp.dev/scheduling-disabled") == "true":
            continue
        must += 1
        text = (ns["metadata"].get("annotations") or {}).get(PLACEMENT, "{}")
        states = json.loads(text)
        good = [
            k
            for k, v in states.items()
            if v == "Bound" and k.count("+") == 2 and k.rpartition("+")[2] not in evicting
        ]
        if not good or "Pending" in states.values():
            missing.append((workspace_of(ns), ns["metadata"]["name"], states))
    return must, missing


@pytest.mark.parametrize("mode", MODES)
def test_generated_v05_set_converges_with_every_placeable_namespace_placed(mode):
    objects = generate(60, 150, seed=2, now=NOW_TIME, generation="v0.5")
    sim = simulate(objects, mode)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    must, missing = placeable_v05(objects, sim.objects)
    assert must > 100 and missing == []
    for obj in sim.objects:  # no namespace keeps syncing to an evicting cluster
        if obj["kind"] == "Namespace":
            assert not any(k.startswith(V05.deletion) for k in obj["metadata"].get("annotations") or {})


@pytest.mark.parametrize("mode", MODES)
def test_generated_v08_set_converges_with_every_valid_placement_synced(mode):
    objects = generate(60, 150, seed=2, now=NOW_TIME, generation="v0.8")
    sim = simulate(objects, mode)
    assert sim.converged and sim.steps <= BOUND_LIMIT
    available = {
        sync_target_key(workspace_of(o), o["metadata"]["name"])
        for o in sim.objects
        if o["kind"] == "SyncTarget"
        and o["status"]["conditions"][0]["status"] == "True"
        and not o["spec"].get("unschedulable")
        and o["spec"].get("evictAfter", "9999") > "2026-11-21T12:00:00Z"
    }
    placements = [o for o in sim.objects if o["kind"] == "Placement"]
    synced = 0
    for p in placements:
        target = (p["metadata"].get("annotations") or {}).get(SYNCTARGET)
        if p["status"]["phase"] == "Bound" and p["status"]["conditions"][0]["status"] == "True":
            assert target in available, p["metadata"]
            synced += 1
    assert synced > len(placements) / 2
    for ns in sim.objects:
        if ns["kind"] == "Namespace":
            keys = {k[len(V08.state) :] for k in labels(ns) if k.startswith(V08.state)}
            assert keys <= available, ns["metadata"]["name"]
            assert not any(k.startswith(V08.deletion) for k in ns["metadata"].get("annotations") or {})


# =============================================================================== runs and outputs


def test_same_bytes_twice_and_seeded():
    for generation in ("v0.5", "v0.8"):
        objects = generate(30, 60, seed=1, now=NOW_TIME, generation=generation)
        for mode in MODES:
            first = render(simulate(objects, mode, seed=3), "yaml")
            assert first == render(simulate(objects, mode, seed=3), "yaml")


def test_steps_bound_the_run():
    sim = simulate(v05_world(), steps=1)
    assert sim.steps == 1 and not sim.converged
    assert sim.ended == NOW_TIME
    assert "stopped after 1 step without converging" in render(sim, "log")
    assert MAX_STEPS >= BOUND_LIMIT
    with pytest.raises(InputError):
        simulate(v05_world(), steps=0)


def test_time_advances_five_seconds_a_step():
    sim = simulate(v05_world())
    assert sim.ended - sim.started == (sim.steps - 1) * timedelta(seconds=5)
    assert sorted({e.time for e in sim.log}) == ["2026-11-21T12:00:00Z", "2026-11-21T12:00:05Z"]


def test_outputs():
    sim = simulate(v05_world())
    text = render(sim, "yaml")
    assert [m.obj for m in parse_text(text, "out.yaml")] == sim.objects  # the log is comments
    tail = text.split("\n# ", 1)[1]
    assert tail.startswith("kcp v0.5: 3 steps from 2026-11-21T12:00:00Z")
    log = render(sim, "log").splitlines()
    assert len(log) == 1 + len(sim.log)
    assert log[1].startswith("step 1  scheduler  Namespace root:org:team|app  ")
    document = json.loads(render(sim, "json"))
    assert document["converged"] and document["steps"] == 3 and document["stepSeconds"] == 5
    assert document["objects"] == sim.objects and len(document["transitions"]) == len(sim.log)
    assert set(document["transitions"][0]) == {"step", "time", "actor", "object", "detail", "from", "to"}
    with pytest.raises(InputError):
        render(sim, "table")
    assert yaml.safe_load_all(text)


def test_no_kcp_objects_and_bad_input_are_input_errors():
    with pytest.raises(InputError, match="no WorkloadCluster"):
        simulate([namespace("app"), *workloads()])
    bad = v05_world()
    find(bad, "WorkloadCluster", "c1", COMPUTE)["spec"]["unschedulable"] = "yes"
    with pytest.raises(InputError, match="unschedulable"):
        simulate(bad)


def test_label_losses_never_happen_along_a_generated_run():
    objects = generate(30, 60, seed=5, now=NOW_TIME, generation="v0.5")
    spaces = [o for o in objects if o["kind"] == "Namespace"]
    extra = [w for ns in spaces for w in workloads(ns["metadata"]["name"], workspace_of(ns))]
    sim = simulate(objects + extra)
    assert sim.converged and label_losses(objects + extra, sim.objects, generation="v0.5") == []


# ================================================================== the command line (once wired)

_WIRED = "simulate" in main.commands
needs_cli = pytest.mark.skipif(not _WIRED, reason="adapters/cli.py has no simulate command yet")


def _cli(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


@needs_cli
def test_cli_simulate_prints_the_final_objects_and_the_log(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(dump_yaml_stream(evict(us_placed(v05_world()), "c1")), encoding="utf-8")
    args = ["simulate", "-f", str(path), "--now", "2026-11-21T12:00:00Z", "--mode", "greedy", "--seed", "2"]
    first, second = _cli(args), _cli(args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout  # same bytes twice
    objects = [m.obj for m in parse_text(first.stdout, "out.yaml")]
    sim = simulate(evict(us_placed(v05_world()), "c1"), "greedy", seed=2)
    assert objects == sim.objects and first.stdout == render(sim, "yaml")
    log = _cli([*args, "-o", "log"]).stdout.splitlines()
    assert log[0].startswith("kcp v0.5: ") and any(" syncer " in line for line in log)
    document = json.loads(_cli([*args, "-o", "json"]).stdout)
    assert document["converged"] and document["objects"] == objects
    one = _cli([*args, "--steps", "1", "-o", "log"])
    assert one.exit_code == 0 and "stopped after 1 step without converging" in one.stdout


@needs_cli
def test_cli_simulate_reads_generated_sets_from_stdin():
    for generation in ("v0.5", "v0.8"):
        made = _cli(["generate", "--system", "kcp", "--generation", generation, "--clusters", "30",
                     "--placements", "40", "--now", "2026-11-21T12:00:00Z"])  # fmt: skip
        assert made.exit_code == 0, made.output
        done = _cli(["simulate", "-f", "-", "--now", "2026-11-21T12:00:00Z", "-o", "json"], made.stdout)
        assert done.exit_code == 0, done.output
        document = json.loads(done.stdout)
        assert document["generation"] == generation and document["converged"] and not document["violations"]


@needs_cli
def test_cli_simulate_and_generate_bad_arguments_exit_2(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(dump_yaml_stream(v05_world()), encoding="utf-8")
    plain = tmp_path / "plain.yaml"
    plain.write_text(dump_yaml_stream([namespace("app")]), encoding="utf-8")
    for args in (
        ["simulate", "-f", str(path), "--steps", "0"],
        ["simulate", "-f", str(path), "--steps", "many"],
        ["simulate", "-f", str(path), "--now", "yesterday"],
        ["simulate", "-f", str(plain)],
        ["generate", "--system", "fleet", "--generation", "v0.5", "--clusters", "3", "--placements", "3"],
    ):
        result = _cli(args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        assert result.stdout == ""
