"""A request labelled `clusters.openmcp.cloud/randomize-cluster-name: "true"`: its new cluster is
named as the API server names a `generateName` object (k8s.io/apiserver names.SimpleNameGenerator:
the prefix cut to 58 characters, five characters of apimachinery's rand alphabet), drawn from the
seed and the request's identity, and the request is granted in the run that creates it, as
upstream's reconcile grants it with the name the server answered (openmcp-operator
internal/controllers/scheduler/controller_test.go, "randomize-cluster-name")."""

from __future__ import annotations

import importlib
import json
from datetime import timedelta
from itertools import islice

import pytest

from adapters.live.hub import Applied, HubScheduler
from adapters.openmcp.naming import generated_name, server_names
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.openmcp import (
    MODES,
    NOW_TIME,
    RANDOMIZE,
    REQUEST_FINALIZER,
    TEST_01,
    Written,
    cluster,
    config,
    fin,
    purpose,
    request,
    solve_cli,
    uid,
)
from tests.fixtures.pipeline import applied

RANDOM = {RANDOMIZE: "true"}
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery pkg/util/rand


def draws(prefix: str, namespace: str, name: str, seed: int = 0, k: int = 3) -> list[str]:
    """The first k names the server would draw for request namespace/name."""
    return list(islice(server_names(prefix, seed, namespace, name, uid(namespace, name)), k))


# ------------------------------------------------------------------------------------ the draws


def test_a_draw_is_the_prefix_and_five_characters_of_the_servers_alphabet() -> None:
    for name in draws("exclusive-", "foo", "a", k=20):
        assert name.startswith("exclusive-") and len(name) == len("exclusive-") + 5
        assert set(name.removeprefix("exclusive-")) <= set(ALPHABET)
    assert len(set(draws("p-", "foo", "a", k=20))) == 20  # each attempt draws again


def test_the_server_cuts_a_prefix_longer_than_58_characters() -> None:
    (at_edge,) = draws("p" * 58, "foo", "a", k=1)
    (past,) = draws("p" * 59, "foo", "a", k=1)
    assert len(at_edge) == len(past) == 63
    assert at_edge.startswith("p" * 58) and past.startswith("p" * 58)
    assert len(draws("p" * 57, "foo", "a", k=1)[0]) == 62


def test_a_draw_depends_on_the_seed_and_the_request_only() -> None:
    assert draws("p-", "foo", "a") == draws("p-", "foo", "a")
    assert draws("p-", "foo", "a", seed=1) != draws("p-", "foo", "a")
    assert draws("p-", "foo", "b") != draws("p-", "foo", "a")
    again = list(islice(server_names("p-", 0, "foo", "a", "another-uid"), 3))
    assert again != draws("p-", "foo", "a")  # made again under the same name: a new draw


# ------------------------------------------------------------------------- granted in one run


@pytest.mark.parametrize("mode", MODES)
def test_the_request_is_granted_in_the_run_that_creates_its_cluster(tmp_path, mode) -> None:
    hub = [request("foo", "exclusive", "exclusive", labels=RANDOM)]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    name = draws("exclusive-", "foo", "exclusive")[0]
    assert written.granted("foo/exclusive") == f"exclusive/{name}"
    assert written.phase("foo/exclusive") == "Granted"
    metadata = written.clusters()[f"exclusive/{name}"]["metadata"]
    # The stored object keeps the generateName it was made from beside the name it was given.
    assert (metadata["name"], metadata["generateName"], metadata["namespace"]) == (
        name,
        "exclusive-",
        "exclusive",
    )
    assert metadata["finalizers"] == [fin("foo", "exclusive")]
    assert REQUEST_FINALIZER in written.requests()["foo/exclusive"]["metadata"]["finalizers"]
    # Only "true" randomizes.
    hub = [request("foo", "exclusive", "exclusive", labels={RANDOMIZE: "yes"})]
    named = Written.solve(tmp_path, hub, TEST_01, mode).granted("foo/exclusive")
    assert named == "exclusive/" + generated_name("exclusive-", "foo", "exclusive")


@pytest.mark.parametrize("mode", MODES)
def test_a_second_run_on_the_applied_output_changes_nothing(tmp_path, mode) -> None:
    cfg = config(p=purpose(count=2, generate_name="pool-"), x=purpose("Exclusive"))
    hub = [
        request("foo", "a", "p", labels=RANDOM, at_minute=0),
        request("foo", "b", "p", at_minute=1),
        request("foo", "c", "x", labels=RANDOM, at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert all(written.phase(key) == "Granted" for key in written.requests())
    after = applied(hub, written.apply, written.delete)
    again = Written.solve(tmp_path, after, cfg, mode)
    assert again.plan["summary"]["changed"] == 0 and again.plan["apply"] == [] and again.delete == []
    assert again.assignments() == written.assignments()


@pytest.mark.parametrize("mode", MODES)
def test_a_request_joins_a_randomized_cluster_in_the_same_run(tmp_path, mode) -> None:
    # Shared, two slots: the first request's cluster gets the server's name; the second joins it
    # at once (upstream lists the cluster the first reconcile made, under that name).
    cfg = config(p=purpose(count=2, generate_name="pool-"))
    hub = [request("foo", "a", "p", labels=RANDOM, at_minute=0), request("foo", "b", "p", at_minute=1)]
    written = Written.solve(tmp_path, hub, cfg, mode)
    (made,) = written.new_clusters(hub)
    assert written.assignments() == {"foo/a": made, "foo/b": made}
    if mode == "greedy":  # the queue: a comes first and opens the cluster under its draw
        assert made == "foo/" + draws("pool-", "foo", "a")[0]


@pytest.mark.parametrize("mode", MODES)
def test_a_long_generate_name_is_cut_as_the_server_cuts_it(tmp_path, mode) -> None:
    prefix = "x" * 60
    cfg = config(p=purpose("Exclusive", generate_name=prefix))
    written = Written.solve(tmp_path, [request("foo", "a", "p", labels=RANDOM)], cfg, mode)
    name = written.granted("foo/a").removeprefix("foo/")
    assert name == draws(prefix, "foo", "a")[0] and len(name) == 63
    assert written.clusters()[f"foo/{name}"]["metadata"]["generateName"] == prefix
    # Without the label the hash name does not fit: upstream's error, the request waits.
    assert Written.solve(tmp_path, [request("foo", "a", "p")], cfg, mode).phase("foo/a") == "Pending"


# -------------------------------------------------------------------------------------- clashes


@pytest.mark.parametrize("mode", MODES)
def test_a_taken_name_is_drawn_again(tmp_path, mode) -> None:
    # The first two draws are taken (one by a cluster being deleted: its name is still in use):
    # the server would refuse those creates and draw again; the third draw is the name.
    first, second, third = draws("exclusive-", "foo", "r")
    hub = [
        cluster("exclusive", first, "other", finalizers=[fin("bar", "z")]),
        cluster("exclusive", second, "other", finalizers=["keep"], deleting=True),
        request("foo", "r", "exclusive", labels=RANDOM),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.granted("foo/r") == f"exclusive/{third}"
    assert written.new_clusters(hub) == [f"exclusive/{third}"]
    # The clusters that held the names are left as they were.
    assert {o["metadata"]["name"] for o in written.plan["apply"] if o["kind"] == "Cluster"} == {third}


@pytest.mark.parametrize("mode", MODES)
def test_a_name_another_cluster_of_the_run_takes_is_drawn_again(tmp_path, mode) -> None:
    # The template of purpose `one` names its cluster exactly as r's first draw: both clusters are
    # made, r's under its second draw.
    first, second, _ = draws("exclusive-", "foo", "r")
    cfg = config(
        scope="Namespaced",
        exclusive=purpose("Exclusive", namespace="exclusive"),
        one=purpose(name=first, namespace="exclusive"),
    )
    hub = [
        request("foo", "r", "exclusive", labels=RANDOM, at_minute=0),
        request("foo", "s", "one", at_minute=1),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.assignments() == {"foo/r": f"exclusive/{second}", "foo/s": f"exclusive/{first}"}


def test_two_randomized_requests_drawing_alike_the_earlier_keeps_its_draw(monkeypatch) -> None:
    # Draws that clash (forced here): the earlier request in the queue is made first and keeps it.
    load_module = importlib.import_module("adapters.openmcp.load")  # the package exports load()

    def clashing(prefix, seed, namespace, name, uid):
        yield prefix + "same1"
        yield prefix + name

    monkeypatch.setattr(load_module, "server_names", clashing)
    hub = [
        request("foo", "late", "exclusive", labels=RANDOM, at_minute=2),
        request("foo", "early", "exclusive", labels=RANDOM, at_minute=1),
    ]
    outcome = schedule(hub, now=NOW_TIME, config=TEST_01, options=SolveOptions(mode="greedy"))
    status = {
        o["metadata"]["name"]: o["status"]["cluster"]["name"] for o in outcome.apply if o["kind"] != "Cluster"
    }
    assert status == {"early": "exclusive-same1", "late": "exclusive-late"}


# ------------------------------------------------------------ one name in every way of running


def _others() -> list[dict]:
    """Requests that come before r in the queue, randomized too, in other namespaces and purposes."""
    return [
        request("bar", "q", "exclusive", labels=RANDOM, at_minute=0),
        request("baz", "s", "shared-twice", labels=RANDOM, at_minute=0),
        request("foo", "t", "shared-unlimited", at_minute=0),
    ]


def _granted(objects: list[dict], key: str) -> str:
    namespace, name = key.split("/")
    for o in objects:
        m = o["metadata"]
        if o["kind"] == "ClusterRequest" and (m["namespace"], m["name"]) == (namespace, name):
            return f"{o['status']['cluster']['namespace']}/{o['status']['cluster']['name']}"
    raise AssertionError(f"{key} not written")


@pytest.mark.parametrize("mode", MODES)
def test_the_same_request_gets_the_same_name_alone_in_a_batch_and_in_the_hub(mode) -> None:
    r = request("foo", "r", "exclusive", labels=RANDOM, at_minute=5)
    options = SolveOptions(mode=mode, seed=7)
    expected = "exclusive/" + draws("exclusive-", "foo", "r", seed=7)[0]

    alone = schedule([r], now=NOW_TIME, config=TEST_01, options=options)
    batch = schedule([*_others(), r], now=NOW_TIME, config=TEST_01, options=options)
    assert _granted(alone.apply, "foo/r") == _granted(batch.apply, "foo/r") == expected

    first = HubScheduler([r], now=NOW_TIME, config=TEST_01, options=options, verify=True)
    assert _granted(first.initial.apply, "foo/r") == expected
    # In a hub that holds the others first, r arriving as an event.
    hub = HubScheduler(_others(), now=NOW_TIME, config=TEST_01, options=options, verify=True)
    delta = hub.handle(Applied(r), now=NOW_TIME + timedelta(minutes=1))
    assert _granted(delta.apply, "foo/r") == expected
    assert (
        hub.handle(Applied(hub.get(("clusters.openmcp.cloud", "ClusterRequest", "", "foo", "r")))).apply == []
    )


def test_other_seeds_draw_other_names_and_each_gives_the_same_bytes(tmp_path) -> None:
    hub = [request("foo", "exclusive", "exclusive", labels=RANDOM)]
    outputs = {}
    for seed in ("0", "1", "0"):
        result = solve_cli(tmp_path, hub, "--seed", seed, "-o", "json", config=TEST_01)
        assert result.exit_code == 0, result.output
        outputs.setdefault(seed, set()).add(result.stdout)
    assert len(outputs["0"]) == 1 and outputs["0"] != outputs["1"]
    names = {
        seed: json.loads(next(iter(text)))["items"][0]["metadata"]["name"] for seed, text in outputs.items()
    }
    assert names == {seed: draws("exclusive-", "foo", "exclusive", seed=int(seed))[0] for seed in ("0", "1")}


# ----------------------------------------------------------------------- how a run is shown


def test_plan_table_and_explain_show_the_name(tmp_path) -> None:
    hub = [request("foo", "exclusive", "exclusive", labels=RANDOM)]
    name = draws("exclusive-", "foo", "exclusive")[0]
    plan = json.loads(solve_cli(tmp_path, hub, "-o", "plan", config=TEST_01).stdout)
    made = [o for o in plan["apply"] if o["kind"] == "Cluster"]
    assert [o["metadata"]["name"] for o in made] == [name]
    assert plan["summary"]["systems"]["openmcp"]["unsatisfied"] == 0
    table = solve_cli(tmp_path, hub, "-o", "table", config=TEST_01).stdout
    assert f"foo/exclusive  exclusive/{name}  created" in table and "0 unsatisfied" in table

    from adapters.cli.explain import explain_document, render
    from adapters.kube.manifests import from_objects

    for mode in MODES:
        doc = explain_document(
            from_objects(hub, "<hub>"),
            "cr/foo/exclusive",
            now=NOW_TIME,
            options=SolveOptions(mode=mode),
            config=TEST_01,
        )
        assert (
            doc["request"]["cluster"] == doc["request"]["creates"] == {"namespace": "exclusive", "name": name}
        )
        assert f"cluster exclusive/{name}, which the run creates" in render(doc, "table")


def test_the_hub_names_a_long_generate_name_as_the_server_does() -> None:
    # Any object applied with only a generateName (here not openMCP's: it names its clusters
    # itself) gets the prefix cut to 58 characters and five characters of the alphabet.
    hub = HubScheduler([], now=NOW_TIME)
    for prefix in ("t-", "x" * 70):
        thing = {"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"generateName": prefix}}
        hub.handle(Applied(thing), now=NOW_TIME)
    names = sorted(o["metadata"]["name"] for o in hub.objects())
    assert [len(name) for name in names] == [7, 63]
    assert names[0].startswith("t-") and names[1].startswith("x" * 58)
    assert all(set(name[-5:]) <= set(ALPHABET) for name in names)


def test_explain_does_not_say_a_joining_request_creates_the_cluster() -> None:
    from adapters.cli.explain import explain_document, render
    from adapters.kube.manifests import from_objects

    cfg = config(p=purpose(count=2, generate_name="pool-"))
    hub = [request("foo", "a", "p", labels=RANDOM, at_minute=0), request("foo", "b", "p", at_minute=1)]
    options = SolveOptions(mode="greedy")
    doc = explain_document(from_objects(hub, "<hub>"), "cr/foo/b", now=NOW_TIME, options=options, config=cfg)
    name = draws("pool-", "foo", "a")[0]
    assert f"cluster foo/{name}, which the run creates\n" in render(doc, "table")
