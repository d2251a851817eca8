"""openMCP objects -> the neutral batch: cluster names, traits and load; requests as tenancy
requests (order, limit, packing, pool, new-cluster name, held cluster); and emit from results
built by hand."""

from __future__ import annotations

from adapters.kube.manifests import from_objects
from adapters.openmcp import api as openmcp
from adapters.openmcp.naming import server_names
from model import (
    Choice,
    ClusterTerm,
    ExistingDecision,
    LabelSelector,
    Packing,
    RequestResult,
    Result,
    SolveStats,
    Tenancy,
)
from tests.fixtures.openmcp import (
    DELETE_LABEL,
    NOW_TIME,
    OPERATION,
    RANDOMIZE,
    REQUEST_FINALIZER,
    TEST_01,
    cluster,
    config,
    fin,
    purpose,
    request,
    stale,
    uid,
)


def load(objects, cfg):
    return openmcp.load(from_objects(objects, "<test>"), now=NOW_TIME, seed=7, config=cfg)


def test_clusters_sorted_with_traits_and_eligibility() -> None:
    batch, _ = load(
        [
            cluster("z", "a", "p", labels={"x": "1"}),
            cluster("a", "z", "p", "q", deleting=True),
        ],
        TEST_01,
    )
    assert [c.name for c in batch.clusters] == ["a/z", "z/a"]
    going, live = batch.clusters
    assert going.traits == {"purpose:p", "purpose:q", "namespace:a"}
    assert (going.eligible, going.ineligible_reason, going.leaving) == (False, "being deleted", False)
    assert live.labels == {"x": "1"} and live.eligible and batch.seed == 7


def test_load_counts_distinct_requests_but_not_the_batchs_holders_or_the_deleted() -> None:
    cfg = config(clusters={"matchLabels": {"live": "y"}}, p=purpose(count=5, labels={"live": "y"}))
    live = {"live": "y"}
    objects = [
        cluster(
            "ns",
            "c",
            "p",
            labels=live,
            finalizers=[
                stale("1"),
                stale("1"),  # one request, however often
                fin("foo", "holder"),  # counted through its decision
                fin("foo", "gone"),  # being deleted: its finalizer comes off first
                fin("foo", "ignored"),  # not reconciled: counts
                fin("foo", "elsewhere"),  # holds another cluster: counts here
                "provider.io/x",
            ],
        ),
        cluster("ns", "d", "p", labels=live, finalizers=[fin("foo", "elsewhere")]),
        cluster("ns", "outside", "p", finalizers=[fin("foo", "gone")]),  # outside the global selector
        request("foo", "holder", "p", granted=("ns", "c")),
        request("foo", "gone", "p", granted=("ns", "c"), deleting=True),
        request("foo", "ignored", "p", annotations={OPERATION: "ignore"}),
        request("foo", "elsewhere", "p", granted=("ns", "d")),
    ]
    batch, context = load(objects, cfg)
    loads = {c.name: c.load for c in batch.clusters}
    assert loads == {"ns/c": 3, "ns/d": 0, "ns/outside": 1}
    assert sorted(context.requests) == ["foo/elsewhere", "foo/holder"]
    assert [r.key for r in context.deleting] == ["foo/gone"]


def test_unknown_purposes_holding_a_cluster_count_there() -> None:
    objects = [cluster("ns", "c", "x"), request("foo", "odd", "x", granted=("ns", "c"))]
    batch, context = load(objects, TEST_01)
    assert batch.requests == () and batch.clusters[0].load == 1  # its finalizer is restored
    assert context.requests["foo/odd"].mapping is None


def test_requests_as_tenancy_requests() -> None:
    cfg = config(
        scope="Namespaced",
        strategy="Simple",
        clusters={"matchLabels": {"live": "y"}},
        shared=purpose(
            count=3,
            namespace="pool",
            labels={"live": "y", "tier": "a"},
            selector={"matchLabels": {"tier": "a"}},
        ),
        solo=purpose("Exclusive", labels={"live": "y"}),
        one=purpose(labels={"live": "y"}),
    )
    objects = [
        request("foo", "late", "shared", at_minute=5),
        request("foo", "early", "solo", at_minute=1),
        request("bar", "first", "one", at_minute=1),
    ]
    batch, _ = load(objects, cfg)
    by_key = {r.key: r for r in batch.requests}
    assert [r.key for r in batch.requests] == ["bar/first", "foo/early", "foo/late"]
    late = by_key["foo/late"]
    assert (late.mode.value, late.count, late.existing) == ("n", 1, ())
    assert late.required == (
        ClusterTerm(
            labels=LabelSelector((("live", "y"), ("tier", "a"))),
            traits=("purpose:shared", "namespace:pool"),
        ),
    )
    assert late.tenancy == Tenancy(
        order=2,
        limit=3,
        packing=Packing.FIRST,
        pool="shared@pool",
        new_cluster="pool/shared-" + late.tenancy.new_cluster.removeprefix("pool/shared-"),
        exclusive=False,
    )
    early = by_key["foo/early"].tenancy
    assert (early.order, early.limit, early.exclusive, early.pool) == (1, 0, True, "solo@foo")
    assert early.new_cluster.startswith("foo/solo-")
    first = by_key["bar/first"].tenancy
    assert (first.order, first.new_cluster, first.pool) == (0, "bar/one", "one@bar")  # same time: by name
    assert by_key["bar/first"].required[0].traits == ("purpose:one", "namespace:bar")


def test_cluster_scope_pools_by_purpose() -> None:
    cfg = config(strategy="Random", p=purpose(count=2))
    batch, _ = load([request("a", "x", "p"), request("b", "y", "p")], cfg)
    assert {r.tenancy.pool for r in batch.requests} == {"p"}
    assert {r.tenancy.packing for r in batch.requests} == {Packing.RANDOM}
    assert [r.required[0].traits for r in batch.requests] == [("purpose:p",), ("purpose:p",)]
    assert [r.tenancy.new_cluster[:4] for r in batch.requests] == ["a/p-", "b/p-"]


def test_held_clusters_status_or_recovered() -> None:
    objects = [
        cluster("shared-twice", "listed", "shared-twice", finalizers=[fin("foo", "lost")]),
        cluster("elsewhere", "unlisted", "shared-twice", finalizers=[fin("foo", "other")]),  # wrong namespace
        request("foo", "granted", "shared-twice", granted=("x", "y")),
        request("foo", "lost", "shared-twice"),
        request("foo", "other", "shared-twice"),
    ]
    batch, context = load(objects, TEST_01)
    held = {r.key: r.existing for r in batch.requests}
    assert held == {
        "foo/granted": (ExistingDecision("x/y"),),
        "foo/lost": (ExistingDecision("shared-twice/listed"),),
        "foo/other": (),
    }
    assert context.new_clusters["x/y"].name == "y"  # made again if it is gone


def test_randomized_and_conflicting_names() -> None:
    objects = [
        cluster("exclusive", "exclusive-qilq5nsb", "x", finalizers=[fin("bar", "user")]),
        request("bar", "user", "unknown"),
        request("foo", "exclusive", "exclusive"),
        request("foo", "random", "exclusive", labels={RANDOMIZE: "true"}),
    ]
    batch, context = load(objects, TEST_01)
    by_key = {r.key: r.tenancy for r in batch.requests}
    assert (by_key["foo/exclusive"].pool, by_key["foo/exclusive"].new_cluster) == (None, "")
    assert "already exists" in context.requests["foo/exclusive"].conflict
    random = by_key["foo/random"]
    name = next(server_names("exclusive-", 7, "foo", "random", uid("foo", "random")))
    assert random.pool == "exclusive@exclusive" and random.new_cluster == f"exclusive/{name}"
    plan = context.new_clusters[random.new_cluster]
    assert (plan.namespace, plan.name, plan.generate_name) == ("exclusive", name, "exclusive-")


# ------------------------------------------------------------------------------ emit, results by hand


def _result(*answers: tuple[str, tuple[Choice, ...]]) -> Result:
    return Result(
        tuple(RequestResult(key, choices, satisfied=bool(choices)) for key, choices in answers),
        SolveStats(mode="greedy", status="GREEDY"),
    )


def _by_key(emitted) -> dict:
    return {
        f"{o['kind']}/{o['metadata']['namespace']}/{o['metadata'].get('name', '?')}": o for o in emitted.apply
    }


def test_emit_a_created_cluster_holding_several_requests() -> None:
    objects = [
        request("foo", "a", "shared-twice", at_minute=0),
        request("foo", "b", "shared-twice", at_minute=1),
    ]
    batch, context = load(objects, TEST_01)
    name = {r.key: r.tenancy.new_cluster for r in batch.requests}["foo/a"]
    result = _result(("foo/a", (Choice(name, created=True),)), ("foo/b", (Choice(name, created=True),)))
    emitted = openmcp.emit(context, result)
    objects_out = _by_key(emitted)
    made = objects_out[f"Cluster/{name}"]
    assert made["metadata"]["finalizers"] == [fin("foo", "a"), fin("foo", "b")]
    assert made["metadata"]["labels"] == {DELETE_LABEL: "true"}
    for key in ("foo/a", "foo/b"):
        status = objects_out[f"ClusterRequest/{key}"]["status"]
        assert (
            status["phase"] == "Granted"
            and f"{status['cluster']['namespace']}/{status['cluster']['name']}" == name
        )
    assert emitted.placements == ("foo/a", "foo/b") and emitted.unsatisfied == ()
    assert [o["kind"] for o in emitted.apply] == ["Cluster", "ClusterRequest", "ClusterRequest"]


def test_emit_unsatisfied_and_recreated() -> None:
    objects = [
        request("foo", "a", "shared-twice"),
        request("foo", "held", "shared-twice", granted=("gone", "c")),
    ]
    _, context = load(objects, TEST_01)
    emitted = openmcp.emit(
        context, _result(("foo/a", ()), ("foo/held", (Choice("gone/c", kept=True, created=True),)))
    )
    out = _by_key(emitted)
    assert out["ClusterRequest/foo/a"]["status"] == {"observedGeneration": 1, "phase": "Pending"}
    assert out["ClusterRequest/foo/a"]["metadata"]["finalizers"] == [REQUEST_FINALIZER]
    assert out["Cluster/gone/c"]["metadata"]["finalizers"] == [fin("foo", "held")]
    assert emitted.unsatisfied == ("foo/a",)


def test_emit_needs_an_answer_for_every_request() -> None:
    _, context = load([request("foo", "a", "shared-twice")], TEST_01)
    try:
        openmcp.emit(context, _result())
    except ValueError as err:
        assert "foo/a" in str(err)
    else:
        raise AssertionError("no error")
