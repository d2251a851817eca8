"""End to end through the command line: openMCP hubs in, the objects the Cluster Scheduler writes
out, in both modes.

Expectations follow /work/shared/semantics/openmcp-kcp.md part 1 (upstream's testdata where it
exists: test-01 names, test-02 and test-03 singletons, test-04 multi-purpose clusters). Each
batch here is one request, or requests whose queue order already gives the fewest clusters, so
the joint answer is upstream's (test_openmcp_lifecycle.py has the batches where it is not).
"""

from __future__ import annotations

import pytest

from tests.fixtures.openmcp import (
    DELETE_LABEL,
    MODES,
    OPERATION,
    PROPAGATED,
    REQUEST_FINALIZER,
    TEST_01,
    Written,
    cluster,
    config,
    fin,
    purpose,
    request,
    solve_cli,
    stale,
)

# ------------------------------------------------------------------------------------- candidates


@pytest.mark.parametrize("mode", MODES)
def test_namespaced_scope_lists_the_request_namespace(tmp_path, mode) -> None:
    # No template namespace: foo's request only sees foo's clusters, though bar's is emptier.
    cfg = config(scope="Namespaced", p=purpose(count=5))
    hub = [
        cluster("bar", "empty", "p"),
        cluster("foo", "busy", "p", finalizers=[stale("1"), stale("2")]),
        request("foo", "a", "p"),
    ]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("foo/a") == "foo/busy"


@pytest.mark.parametrize("mode", MODES)
def test_namespaced_scope_lists_the_template_namespace(tmp_path, mode) -> None:
    cfg = config(scope="Namespaced", p=purpose(count=5, namespace="pool"))
    hub = [
        cluster("foo", "c", "p"),
        cluster("pool", "c", "p", finalizers=[stale("1")]),
        request("foo", "a", "p"),
    ]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("foo/a") == "pool/c"


@pytest.mark.parametrize("mode", MODES)
def test_cluster_scope_lists_every_namespace(tmp_path, mode) -> None:
    cfg = config(scope="Cluster", p=purpose(count=5, namespace="pool"))
    hub = [
        cluster("elsewhere", "c", "p"),
        cluster("pool", "c", "p", finalizers=[stale("1")]),
        request("foo", "a", "p"),
    ]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("foo/a") == "elsewhere/c"


@pytest.mark.parametrize("mode", MODES)
def test_candidates_list_the_purpose(tmp_path, mode) -> None:
    # Only clusters whose spec.purposes lists the purpose; nothing else of the cluster matters
    # (an Exclusive-tenancy cluster serves a Shared purpose; profile is not compared).
    cfg = config(p=purpose(count=5, namespace="new"))
    hub = [
        cluster("ns", "a-other", "q"),
        cluster("ns", "b-exclusive", "p", "q", tenancy="Exclusive", finalizers=[stale("1")]),
        request("foo", "r", "p"),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.granted("foo/r") == "ns/b-exclusive"
    assert written.new_clusters(hub) == []


@pytest.mark.parametrize("mode", MODES)
def test_multi_purpose_cluster_serves_each_purpose(tmp_path, mode) -> None:
    # testdata test-04: a hand-made cluster listing test, shared and shared2.
    cfg = config(test=purpose(count=3), shared=purpose(count=3), shared2=purpose(count=3))
    hub = [
        cluster("ns", "shared", "test", "shared", "shared2"),
        request("foo", "a", "test", at_minute=0),
        request("foo", "b", "shared", at_minute=1),
        request("foo", "c", "shared2", at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert set(written.assignments().values()) == {"ns/shared"}
    assert written.finalizers("ns/shared") == [fin("foo", "a"), fin("foo", "b"), fin("foo", "c")]


@pytest.mark.parametrize("mode", MODES)
def test_clusters_being_deleted_take_no_new_request(tmp_path, mode) -> None:
    cfg = config(p=purpose(count=5, namespace="ns"))
    hub = [cluster("ns", "going", "p", deleting=True), request("foo", "a", "p")]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.granted("foo/a").startswith("ns/p-")
    assert written.new_clusters(hub) == [written.granted("foo/a")]


# ---------------------------------------------------------------------------------------- tenancy


@pytest.mark.parametrize("mode", MODES)
def test_exclusive_never_reuses(tmp_path, mode) -> None:
    # test-01 "should create a new exclusive cluster if a cluster exists".
    hub = [
        cluster("exclusive", "free", "exclusive", tenancy="Exclusive"),
        request("foo", "exclusive", "exclusive"),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.granted("foo/exclusive") == "exclusive/exclusive-qilq5nsb"
    assert written.finalizers("exclusive/exclusive-qilq5nsb") == [fin("foo", "exclusive")]


@pytest.mark.parametrize("mode", MODES)
def test_full_clusters_are_skipped(tmp_path, mode) -> None:
    # tenancyCount 2: c1 holds two distinct requests (a stale one counts; a repeated uid once).
    cfg = config(p=purpose(count=2, namespace="ns"))
    hub = [
        cluster("ns", "c1", "p", finalizers=[stale("1"), stale("2"), stale("2"), "other.io/keep"]),
        cluster("ns", "c2", "p", finalizers=[stale("3")]),
        request("foo", "a", "p"),
    ]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("foo/a") == "ns/c2"
    full = [cluster("ns", "c1", "p", finalizers=[stale("1"), stale("2")]), request("foo", "a", "p")]
    written = Written.solve(tmp_path, full, cfg, mode)
    assert written.granted("foo/a").startswith("ns/p-")
    assert written.new_clusters(full) == [written.granted("foo/a")]


@pytest.mark.parametrize("mode", MODES)
def test_shared_twice_names_and_sharing(tmp_path, mode) -> None:
    # test-01 "should share a shared cluster if it still has capacity and create a new one otherwise".
    hub = [
        request("foo", "shared", "shared-twice", at_minute=0),
        request("foo", "shared2", "shared-twice", at_minute=1),
        request("foo", "shared3", "shared-twice", at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.assignments() == {
        "foo/shared": "shared-twice/shared-twice-urf5rng2",
        "foo/shared2": "shared-twice/shared-twice-urf5rng2",
        "foo/shared3": "shared-twice/shared-twice-vsa6ssty",
    }
    assert written.finalizers("shared-twice/shared-twice-urf5rng2") == [
        fin("foo", "shared"),
        fin("foo", "shared2"),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_unlimited_singleton_per_namespace_in_namespaced_scope(tmp_path, mode) -> None:
    # testdata test-02: no template namespace, so one singleton per request namespace.
    cfg = config(
        scope="Namespaced",
        clusters={"matchLabels": {"foo.bar.baz/foobar": "true"}},
        shared_unlimited=purpose(name="singleton", labels={"foo.bar.baz/foobar": "true"}),
    )
    hub = [
        request("foo", "a", "shared-unlimited", at_minute=0),
        request("bar", "b", "shared-unlimited", at_minute=1),
        request("foo", "c", "shared-unlimited", at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.assignments() == {
        "foo/a": "foo/singleton",
        "bar/b": "bar/singleton",
        "foo/c": "foo/singleton",
    }


@pytest.mark.parametrize("mode", MODES)
def test_unlimited_singleton_shared_across_namespaces_in_cluster_scope(tmp_path, mode) -> None:
    # testdata test-03: the singleton made for foo serves bar and baz too.
    cfg = config(scope="Cluster", shared_unlimited=purpose(name="singleton"))
    hub = [
        request("foo", "a", "shared-unlimited", at_minute=0),
        request("bar", "b", "shared-unlimited", at_minute=1),
        request("baz", "c", "shared-unlimited", at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert set(written.assignments().values()) == {"foo/singleton"}
    assert written.finalizers("foo/singleton") == [fin("foo", "a"), fin("bar", "b"), fin("baz", "c")]
    # An existing singleton in any namespace is reused.
    there = [cluster("baz", "singleton", "shared-unlimited", finalizers=[stale("x")]), *hub]
    assert set(Written.solve(tmp_path, there, cfg, mode).assignments().values()) == {"baz/singleton"}


@pytest.mark.parametrize("mode", MODES)
def test_unlimited_singleton_name_is_the_purpose(tmp_path, mode) -> None:
    hub = [request("foo", f"r{i}", "shared-unlimited", at_minute=i) for i in range(4)]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert set(written.assignments().values()) == {"shared-unlimited/shared-unlimited"}
    assert len(written.clusters()) == 1


# -------------------------------------------------------------------------------------- strategies


def _three(*loads: int) -> list[dict]:
    return [
        cluster("ns", f"c{i}", "p", finalizers=[stale(f"{i}-{k}") for k in range(load)])
        for i, load in enumerate(loads, 1)
    ]


@pytest.mark.parametrize("mode", MODES)
def test_balanced_takes_the_fewest_first_on_ties(tmp_path, mode) -> None:
    cfg = config(strategy="Balanced", p=purpose(count=5))
    assert (
        Written.solve(tmp_path, [*_three(2, 1, 1), request("foo", "a", "p")], cfg, mode).granted("foo/a")
        == "ns/c2"
    )
    # Ties go to the first in namespace/name order: ns-a sorts before ns-b.
    hub = [cluster("ns-b", "a", "p"), cluster("ns-a", "z", "p"), request("foo", "a", "p")]
    assert Written.solve(tmp_path, hub, cfg, mode).granted("foo/a") == "ns-a/z"


@pytest.mark.parametrize("mode", MODES)
def test_simple_takes_the_first(tmp_path, mode) -> None:
    cfg = config(strategy="Simple", p=purpose(count=5))
    assert (
        Written.solve(tmp_path, [*_three(3, 0, 0), request("foo", "a", "p")], cfg, mode).granted("foo/a")
        == "ns/c1"
    )


@pytest.mark.parametrize("mode", MODES)
def test_random_is_reproducible_with_seed(tmp_path, mode) -> None:
    cfg = config(strategy="Random", p=purpose(count=5))
    hub = [*(cluster("ns", f"c{i}", "p") for i in range(8)), request("foo", "a", "p")]
    picks = {}
    for seed in range(6):
        first = Written.solve(tmp_path, hub, cfg, mode, "--seed", str(seed)).granted("foo/a")
        assert Written.solve(tmp_path, hub, cfg, mode, "--seed", str(seed)).granted("foo/a") == first
        picks[seed] = first
    assert len(set(picks.values())) > 1  # the seed matters
    # A single request: optimal draws what greedy draws.
    other = "greedy" if mode == "optimal" else "optimal"
    assert Written.solve(tmp_path, hub, cfg, other, "--seed", "3").granted("foo/a") == picks[3]


@pytest.mark.parametrize("mode", MODES)
def test_requests_are_taken_in_creation_order(tmp_path, mode) -> None:
    # One free slot: the earliest request takes it though its name sorts last; the later one
    # gets a new cluster. With equal times, namespace/name order decides.
    cfg = config(p=purpose(count=1, namespace="new"))
    hub = [
        cluster("ns", "one", "p"),
        request("a", "late", "p", at_minute=5),
        request("z", "early", "p", at_minute=1),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.granted("z/early") == "ns/one"
    assert written.granted("a/late").startswith("new/p-")
    tie = [cluster("ns", "one", "p"), request("b", "x", "p"), request("a", "y", "p")]
    assert Written.solve(tmp_path, tie, cfg, mode).granted("a/y") == "ns/one"


# ----------------------------------------------------------------------------------------- naming


@pytest.mark.parametrize("mode", MODES)
def test_names_from_prefix_and_template(tmp_path, mode) -> None:
    cfg = config(
        mcp=purpose("Exclusive", generate_name="mcp-", namespace="mcp"),
        wl=purpose(count=3, generate_name="wl-"),
        one=purpose(name="the-one"),
        gen=purpose(generate_name="gen-"),
    )
    hub = [
        request("foo", "exclusive", "mcp"),
        request("foo", "a", "wl"),
        request("foo", "b", "one"),
        request("foo", "c", "gen"),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.assignments() == {
        "foo/exclusive": "mcp/mcp-qilq5nsb",  # the hash of foo/exclusive, whatever the prefix
        "foo/a": "foo/wl-" + written.granted("foo/a").removeprefix("foo/wl-"),
        "foo/b": "foo/the-one",
        "foo/c": "foo/gen-" + written.granted("foo/c").removeprefix("foo/gen-"),
    }
    from adapters.openmcp.naming import generated_name

    assert written.granted("foo/a") == "foo/" + generated_name("wl-", "foo", "a")
    assert written.granted("foo/c") == "foo/" + generated_name("gen-", "foo", "c")


@pytest.mark.parametrize("mode", MODES)
def test_a_prefix_too_long_for_a_name_leaves_the_request_pending(tmp_path, mode) -> None:
    cfg = config(p=purpose("Exclusive", generate_name="x" * 56))
    written = Written.solve(tmp_path, [request("foo", "a", "p")], cfg, mode)
    assert written.phase("foo/a") == "Pending" and written.clusters() == {}


@pytest.mark.parametrize("mode", MODES)
def test_name_conflict_with_a_live_request_waits(tmp_path, mode) -> None:
    # exclusive/exclusive-qilq5nsb exists and serves foo/other: ClusterConflict, Pending.
    taken = cluster("exclusive", "exclusive-qilq5nsb", "unrelated", finalizers=[fin("foo", "other")])
    hub = [
        taken,
        request("foo", "other", "unrelated-purpose", labels={"x": "y"}),
        request("foo", "exclusive", "exclusive"),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.phase("foo/exclusive") == "Pending" and written.granted("foo/exclusive") is None
    assert "exclusive/exclusive-qilq5nsb" not in written.clusters()


@pytest.mark.parametrize("mode", MODES)
def test_name_taken_by_stale_requests_is_taken_over(tmp_path, mode) -> None:
    # Only a stale finalizer: upstream updates the object (stale finalizers dropped, labels and
    # annotations merged, spec from the template).
    taken = cluster(
        "exclusive",
        "exclusive-qilq5nsb",
        "old",
        labels={"keep": "me"},
        finalizers=[stale("1"), "provider.io/cleanup"],
    )
    written = Written.solve(tmp_path, [taken, request("foo", "exclusive", "exclusive")], TEST_01, mode)
    assert written.granted("foo/exclusive") == "exclusive/exclusive-qilq5nsb"
    obj = written.clusters()["exclusive/exclusive-qilq5nsb"]
    assert obj["metadata"]["finalizers"] == ["provider.io/cleanup", fin("foo", "exclusive")]
    assert obj["metadata"]["labels"] == {"keep": "me", DELETE_LABEL: "true"}
    assert obj["spec"] == {"profile": "test-profile", "tenancy": "Exclusive", "purposes": ["exclusive"]}


# --------------------------------------------------------------------------------- what is written


@pytest.mark.parametrize("mode", MODES)
def test_new_cluster_from_the_template(tmp_path, mode) -> None:
    cfg = config(
        p=purpose(
            count=2,
            namespace="pool",
            labels={"tier": "gold"},
            annotations={"owner": "team"},
            purposes=["other"],
        ),
        kept=purpose(count=2, namespace="pool", labels={DELETE_LABEL: "false"}),
    )
    written = Written.solve(tmp_path, [request("foo", "a", "p"), request("foo", "b", "kept")], cfg, mode)
    new = written.clusters()[written.granted("foo/a")]
    assert new["apiVersion"] == "clusters.openmcp.cloud/v1alpha1" and new["kind"] == "Cluster"
    assert new["metadata"]["labels"] == {"tier": "gold", DELETE_LABEL: "true"}
    assert new["metadata"]["annotations"] == {"owner": "team"}
    assert new["metadata"]["finalizers"] == [fin("foo", "a")]
    assert new["spec"] == {"profile": "test-profile", "tenancy": "Shared", "purposes": ["other", "p"]}
    kept = written.clusters()[written.granted("foo/b")]
    assert kept["metadata"]["labels"] == {DELETE_LABEL: "false"}  # the template's value stays
    assert kept["spec"]["purposes"] == ["kept"]


@pytest.mark.parametrize("mode", MODES)
def test_request_status_and_finalizer(tmp_path, mode) -> None:
    hub = [cluster("shared-twice", "c", "shared-twice"), request("foo", "a", "shared-twice")]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    obj = written.requests()["foo/a"]
    assert obj["metadata"]["finalizers"] == [REQUEST_FINALIZER]
    assert obj["status"] == {
        "observedGeneration": 1,
        "phase": "Granted",
        "cluster": {"name": "c", "namespace": "shared-twice"},
    }
    assert written.finalizers("shared-twice/c") == [fin("foo", "a")]


@pytest.mark.parametrize("mode", MODES)
def test_metadata_propagates_to_exclusive_clusters_only(tmp_path, mode) -> None:
    meta = {f"{PROPAGATED}team": "blue", "unrelated": "x"}
    hub = [
        request("foo", "exclusive", "exclusive", labels=meta, annotations={f"{PROPAGATED}note": "hi"}),
        request("foo", "shared", "shared-twice", labels=meta),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    exclusive = written.clusters()["exclusive/exclusive-qilq5nsb"]["metadata"]
    assert exclusive["labels"] == {DELETE_LABEL: "true", f"{PROPAGATED}team": "blue"}
    assert exclusive["annotations"] == {f"{PROPAGATED}note": "hi"}
    shared = written.clusters()["shared-twice/shared-twice-urf5rng2"]["metadata"]
    assert shared["labels"] == {DELETE_LABEL: "true"} and "annotations" not in shared


@pytest.mark.parametrize("mode", MODES)
def test_metadata_propagates_on_later_reconciles(tmp_path, mode) -> None:
    on = ("exclusive", "exclusive-qilq5nsb")
    hub = [
        cluster(
            *on,
            "exclusive",
            tenancy="Exclusive",
            labels={f"{PROPAGATED}team": "red"},
            finalizers=[fin("foo", "exclusive")],
        ),
        request("foo", "exclusive", "exclusive", granted=on, labels={f"{PROPAGATED}team": "blue"}),
        cluster("shared-twice", "s", "shared-twice", finalizers=[fin("foo", "shared")]),
        request(
            "foo",
            "shared",
            "shared-twice",
            granted=("shared-twice", "s"),
            labels={f"{PROPAGATED}team": "blue"},
        ),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.clusters()["exclusive/exclusive-qilq5nsb"]["metadata"]["labels"] == {
        f"{PROPAGATED}team": "blue"
    }
    assert "labels" not in written.clusters()["shared-twice/s"]["metadata"]


# ------------------------------------------------------------------------------- granted requests


@pytest.mark.parametrize("mode", MODES)
def test_granted_never_moves(tmp_path, mode) -> None:
    # Its cluster is over the count, out of the selector, and being deleted: it stays.
    cfg = config(clusters={"matchLabels": {"live": "yes"}}, p=purpose(count=1, labels={"live": "yes"}))
    hub = [
        cluster("ns", "old", "q", deleting=True, finalizers=[fin("foo", "a"), stale("1"), stale("2")]),
        cluster("ns", "fresh", "p", labels={"live": "yes"}),
        request("foo", "a", "p", granted=("ns", "old")),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.granted("foo/a") == "ns/old" and written.phase("foo/a") == "Granted"
    assert written.plan["summary"]["changed"] == 0  # nothing to write


@pytest.mark.parametrize("mode", MODES)
def test_lost_finalizer_is_restored(tmp_path, mode) -> None:
    hub = [
        cluster("shared-twice", "c", "shared-twice", finalizers=["provider.io/x"]),
        request("foo", "a", "shared-twice", granted=("shared-twice", "c")),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.finalizers("shared-twice/c") == ["provider.io/x", fin("foo", "a")]
    assert [o["metadata"]["name"] for o in written.plan["apply"]] == ["c"]


@pytest.mark.parametrize("mode", MODES)
def test_lost_cluster_is_recreated_under_the_same_name(tmp_path, mode) -> None:
    hub = [
        request("foo", "a", "shared-twice", granted=("somewhere", "lost")),
        request("foo", "b", "shared-twice", granted=("somewhere", "lost"), at_minute=1),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.assignments() == {"foo/a": "somewhere/lost", "foo/b": "somewhere/lost"}
    lost = written.clusters()["somewhere/lost"]
    assert lost["metadata"]["finalizers"] == [fin("foo", "a"), fin("foo", "b")]
    assert lost["spec"] == {"profile": "test-profile", "tenancy": "Shared", "purposes": ["shared-twice"]}
    assert lost["metadata"]["labels"] == {DELETE_LABEL: "true"}


@pytest.mark.parametrize("mode", MODES)
def test_lost_status_is_recovered_through_the_finalizer(tmp_path, mode) -> None:
    # No status.cluster, but a listed cluster carries the request's finalizer (even one being
    # deleted, even a full one): that is its cluster.
    hub = [
        cluster("shared-twice", "a-free", "shared-twice"),
        cluster(
            "shared-twice", "b-mine", "shared-twice", deleting=True, finalizers=[stale("1"), fin("foo", "a")]
        ),
        request("foo", "a", "shared-twice", finalizers=[REQUEST_FINALIZER]),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.granted("foo/a") == "shared-twice/b-mine"
    assert "shared-twice/a-free" not in written.clusters()


@pytest.mark.parametrize("mode", MODES)
def test_unknown_purpose_stays_pending(tmp_path, mode) -> None:
    hub = [
        cluster("ns", "c", "nope", finalizers=[fin("foo", "held")]),
        request("foo", "new", "nope"),
        request("foo", "held", "nope", granted=("ns", "c")),
        request("foo", "lost", "nope", granted=("ns", "gone")),
    ]
    written = Written.solve(tmp_path, hub, TEST_01, mode)
    assert written.phase("foo/new") == "Pending" and written.granted("foo/new") is None
    assert REQUEST_FINALIZER in written.requests()["foo/new"]["metadata"]["finalizers"]
    assert written.phase("foo/held") == "Granted"  # upstream stops before the purpose lookup
    assert written.phase("foo/lost") == "Pending" and written.granted("foo/lost") == "ns/gone"
    summary = written.plan["summary"]
    assert (summary["requests"], summary["unsatisfied"]) == (3, 2)


# --------------------------------------------------------------------------------------- deletion


@pytest.mark.parametrize("mode", MODES)
def test_deletion_flow(tmp_path, mode) -> None:
    cfg = config(clusters={"matchLabels": {"live": "yes"}}, p=purpose(count=5, labels={"live": "yes"}))
    live = {"live": "yes"}
    hub = [
        cluster(
            "ns",
            "alone",
            "p",
            labels={**live, DELETE_LABEL: "true"},
            finalizers=[fin("foo", "gone"), "provider.io/x"],
        ),
        cluster(
            "ns", "keep-label", "p", labels={**live, DELETE_LABEL: "false"}, finalizers=[fin("foo", "gone")]
        ),
        cluster("ns", "no-label", "p", labels=live, finalizers=[fin("foo", "gone")]),
        cluster(
            "ns",
            "shared",
            "p",
            labels={**live, DELETE_LABEL: "true"},
            finalizers=[fin("foo", "gone"), stale("1")],
        ),
        cluster("ns", "unselected", "p", labels={DELETE_LABEL: "true"}, finalizers=[fin("foo", "gone")]),
        request(
            "foo",
            "gone",
            "p",
            granted=("ns", "alone"),
            deleting=True,
            finalizers=[REQUEST_FINALIZER, "other.io/y"],
        ),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.deleted() == ["ns/alone"]
    assert written.finalizers("ns/alone") == ["provider.io/x"]  # written without it, then deleted
    assert written.finalizers("ns/keep-label") == []
    assert written.finalizers("ns/no-label") == []
    assert written.finalizers("ns/shared") == [stale("1")]  # a stale finalizer still holds it
    assert "ns/unselected" not in written.clusters()  # outside the global selector: untouched
    gone = written.requests()["foo/gone"]
    assert gone["metadata"]["finalizers"] == ["other.io/y"]
    assert gone["status"]["phase"] == "Granted"  # no status written on the way out
    assert written.plan["summary"]["requests"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_deleted_requests_slot_is_free_for_others(tmp_path, mode) -> None:
    # tenancyCount 1: foo/gone leaves, foo/new takes its cluster, which is then not deleted.
    cfg = config(p=purpose(count=1, namespace="ns"))
    hub = [
        cluster("ns", "c", "p", labels={DELETE_LABEL: "true"}, finalizers=[fin("foo", "gone")]),
        request("foo", "gone", "p", granted=("ns", "c"), deleting=True),
        request("foo", "new", "p"),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert written.granted("foo/new") == "ns/c"
    assert written.deleted() == []
    assert written.finalizers("ns/c") == [fin("foo", "new")]


# ------------------------------------------------------------------------------ reconciled or not


@pytest.mark.parametrize("mode", MODES)
def test_requests_outside_the_selector_or_ignored_are_left_alone(tmp_path, mode) -> None:
    cfg = config(requests={"matchLabels": {"managed": "yes"}}, p=purpose(count=3, namespace="ns"))
    hub = [
        cluster("ns", "c", "p", finalizers=[fin("foo", "manual"), fin("foo", "gone")]),
        request("foo", "manual", "p"),  # not selected: its finalizer still counts
        request("foo", "ignored", "p", labels={"managed": "yes"}, annotations={OPERATION: "ignore"}),
        request("foo", "gone", "p", labels={"x": "y"}, deleting=True, granted=("ns", "c")),
        request("foo", "a", "p", labels={"managed": "yes"}, at_minute=1),
        request("foo", "b", "p", labels={"managed": "yes"}, at_minute=2),
    ]
    written = Written.solve(tmp_path, hub, cfg, mode)
    assert sorted(written.requests()) == ["foo/a", "foo/b"]
    assert written.granted("foo/b").startswith("ns/p-")
    if mode == "greedy":
        assert written.granted("foo/a") == "ns/c"  # the third slot: the others' finalizers count
        assert written.finalizers("ns/c") == [fin("foo", "manual"), fin("foo", "gone"), fin("foo", "a")]
    else:  # b's new cluster has room for a too: c keeps its two (squares 4, not 9), one created
        assert written.granted("foo/a") == written.granted("foo/b")
        assert "ns/c" not in written.clusters()  # untouched, not written
    reconcile = [
        cluster("ns", "c", "p"),
        request(
            "foo", "r", "p", labels={"managed": "yes"}, annotations={OPERATION: "reconcile", "keep": "me"}
        ),
    ]
    written = Written.solve(tmp_path, reconcile, cfg, mode)
    assert written.granted("foo/r") == "ns/c"
    assert written.requests()["foo/r"]["metadata"]["annotations"] == {"keep": "me"}  # reconcile done


def test_bad_objects_name_object_and_field(tmp_path) -> None:
    cases = [
        (request("foo", "a", ""), "ClusterRequest/foo/a: spec.purpose"),
        ({**request("foo", "a", "p"), "spec": {"purpose": 3}}, "spec.purpose: expected a string"),
        (
            cluster("ns", "c", "p", finalizers=["x"])
            | {"metadata": {"name": "c", "namespace": "ns", "finalizers": "x"}},
            "Cluster/ns/c: metadata.finalizers",
        ),
        ({**cluster("ns", "c", "p"), "spec": {"purposes": "p"}}, "Cluster/ns/c: spec.purposes"),
        ({**cluster("ns", "c", "p"), "spec": {"tenancy": 1}}, "spec.tenancy"),
        (
            {**cluster("ns", "c", "p"), "spec": {"tenancy": "Private"}},
            "Cluster/ns/c: spec.tenancy: unsupported",
        ),
        (
            request("foo", "a", "p")
            | {"metadata": {"name": "a", "namespace": "foo", "uid": "u", "finalizers": [1]}},
            "metadata.finalizers[0]",
        ),
        ({**request("foo", "a", "p"), "status": {"cluster": "c"}}, "status.cluster"),
        (request("foo", "a", "p") | {"metadata": {"name": "a", "namespace": "foo"}}, "metadata.uid"),
        ({**cluster("ns", "c", "p"), "metadata": {"name": "c"}}, "metadata.namespace"),
    ]
    for obj, needle in cases:
        result = solve_cli(tmp_path, [obj], config=TEST_01)
        assert result.exit_code == 2, (needle, result.output)
        assert needle in result.stderr, (needle, result.stderr)
        assert result.stdout == ""
