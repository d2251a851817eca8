"""Several systems in one input, and the batch-level behaviour only a joint solve shows."""

from __future__ import annotations

import json
from importlib import resources

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.registry import names, owned_by, system
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.ocm import NOW, NOW_TIME, Written, builtin, decision, hub, managed_cluster, placement


def fleet_demo() -> list[dict]:
    text = resources.files("adapters.examples").joinpath("fleet-demo.yaml").read_text(encoding="utf-8")
    return [d for d in yaml.safe_load_all(text) if d]


def ocm_hub() -> list[dict]:
    clusters = [managed_cluster(f"c{i}") for i in range(1, 5)]
    return [*hub(*clusters), placement("web", n=2), placement("db", n=1)]


def write(tmp_path, objects) -> str:
    path = tmp_path / "hub.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    return str(path)


def test_registry_routes_each_kind_to_its_system() -> None:
    assert names() == ("fleet", "ocm", "openmcp", "kcp", "karmada")
    from adapters.kube.manifests import from_objects

    owned = owned_by(
        from_objects(
            [*fleet_demo(), *ocm_hub(), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}],
            "<t>",
        )
    )
    assert set(owned) == {"fleet", "ocm"}
    assert {m.kind for m in owned["ocm"]} == {
        "ManagedCluster",
        "ManagedClusterSet",
        "ManagedClusterSetBinding",
        "Placement",
    }
    assert "ConfigMap" not in {m.kind for ms in owned.values() for m in ms}


def test_the_records_are_light_and_a_system_loads_only_when_its_objects_come() -> None:
    """Routing an input imports the registry's records (every system's kinds and facets) but the
    code of no system whose objects the input does not hold: a fresh interpreter shows which."""
    import subprocess
    import sys

    code = (
        "import sys, yaml\n"
        "from adapters.kube.manifests import from_objects\n"
        "from adapters.registry import owned_by\n"
        "from adapters.run.pipeline import schedule\n"
        "objects = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]\n"
        "schedule(objects)\n"
        "print(sorted(m for m in sys.modules if m.startswith('adapters.') and m.count('.') == 2))\n"
    )
    example = resources.files("adapters.examples").joinpath("fleet-demo.yaml")
    done = subprocess.run([sys.executable, "-c", code, str(example)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout)  # noqa: S307 (our own printout)
    assert {"adapters.fleet.load", "adapters.fleet.emit"} <= set(loaded)
    for other in ("ocm", "openmcp", "kcp"):
        assert [
            m for m in loaded if m.startswith(f"adapters.{other}.") and not m.endswith((".system", ".names"))
        ] == []


def test_a_records_groups_are_its_kinds_groups() -> None:
    for name in names():
        record = system(name)
        assert record.groups == {group for groups in record.kinds.values() for group in groups}, name
        assert set(record.served) == set(record.kinds) | set(record.shared), name


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_one_input_with_fleet_and_ocm_solves_both(tmp_path, mode) -> None:
    path = write(tmp_path, [*fleet_demo(), *ocm_hub()])
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW, "--mode", mode, "-o", "plan"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    kinds = {o["kind"] for o in plan["apply"]}
    assert {
        "ClusterResourceBinding",
        "ClusterSchedulingPolicySnapshot",
        "PlacementDecision",
        "Placement",
    } <= kinds
    systems = plan["summary"]["systems"]
    assert systems["ocm"] == {"requests": 2, "clusters": 4, "unsatisfied": 0}
    assert systems["fleet"]["requests"] == 6
    assert plan["summary"]["requests"] == 8
    # Each system's result equals what it gives alone.
    alone = CliRunner().invoke(
        main, ["solve", "-f", write(tmp_path, ocm_hub()), "--now", NOW, "--mode", mode, "-o", "plan"]
    )
    ocm_alone = [o for o in json.loads(alone.stdout)["apply"]]
    assert [
        o for o in plan["apply"] if o["apiVersion"].startswith("cluster.open-cluster-management.io")
    ] == ocm_alone


def test_table_names_the_system_when_several_are_present(tmp_path) -> None:
    path = write(tmp_path, [*fleet_demo(), *ocm_hub()])
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW, "-o", "table"])
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.split() == ["SYSTEM", "PLACEMENT", "CLUSTER", "DECISION", "SCORE", "SPREAD"]
    assert any(r.startswith("ocm") and "ns1/web" in r for r in rows)
    assert any(r.startswith("fleet") for r in rows)


def test_bad_input_in_one_system_writes_nothing_for_any(tmp_path) -> None:
    bad = placement("web", n=-1)  # numberOfClusters < 0: the CRD refuses it
    path = write(tmp_path, [*fleet_demo(), *hub(managed_cluster("c1")), bad])
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Placement/ns1/web" in result.stderr and "numberOfClusters" in result.stderr


def test_joint_balance_sees_the_batch_final_decisions(tmp_path) -> None:
    # p0 (Balance) is decided first and sees p1's old decision on c3, so greedy leaves c3 for c4;
    # p1 (Balance 2, Steady 2) then moves to c1 (ties with c3, the smaller name wins). Judged on
    # the final decisions c3 is as free as c4, and the smaller name: optimal takes it.
    clusters = [managed_cluster(f"c{i}") for i in range(1, 5)]
    objects = [
        *hub(*clusters),
        placement("p0", mode="Exact", prioritizers=[builtin("Balance")], n=2),
        decision("p0", 1, ["c1", "c4"]),
        placement("p1", mode="Exact", prioritizers=[builtin("Balance", 2), builtin("Steady", 2)], n=1),
        decision("p1", 1, ["c1", "c3"]),
    ]
    greedy = Written.solve(tmp_path, objects, "greedy")
    optimal = Written.solve(tmp_path, objects, "optimal")
    assert greedy.chosen("p0") == ["c2", "c4"]
    assert optimal.chosen("p0") == ["c2", "c3"]
    assert greedy.chosen("p1") == optimal.chosen("p1") == ["c1"]
    assert optimal.summary["objective"] > greedy.summary["objective"]
    assert optimal.summary["bound"] >= optimal.summary["objective"]
    # Alone, each placement sees fixed others: both modes agree.
    single = [
        *hub(*clusters),
        placement("p0", mode="Exact", prioritizers=[builtin("Balance")], n=2),
        decision("p0", 1, ["c1", "c4"]),
        decision("gone", 1, ["c1", "c3"]),
    ]
    assert Written.solve(tmp_path, single, "greedy").chosen("p0") == Written.solve(
        tmp_path, single, "optimal"
    ).chosen("p0")


def test_library_outcome_parts_per_system() -> None:
    outcome = schedule([*fleet_demo(), *ocm_hub()], now=NOW_TIME, options=SolveOptions(mode="greedy"))
    assert [p.system for p in outcome.parts] == ["fleet", "ocm"]
    with pytest.raises(ValueError, match="2 systems"):
        outcome.batch  # noqa: B018
    assert sum(1 for _ in outcome.requests()) == 8


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_demo_ocm_and_all(mode) -> None:
    ocm = CliRunner().invoke(main, ["demo", "--system", "ocm", "--mode", mode])
    assert ocm.exit_code == 0, ocm.output
    assert "payments/ledger" in ocm.stdout and "apps/web" in ocm.stdout
    assert "7 placements, 8 clusters" in ocm.stdout
    both = CliRunner().invoke(main, ["demo", "--system", "all", "--mode", mode, "-o", "plan"])
    assert both.exit_code == 0, both.output
    assert set(json.loads(both.stdout)["summary"]["systems"]) == {"fleet", "ocm", "openmcp", "kcp", "karmada"}


def test_table_shows_what_joint_balance_changed(tmp_path) -> None:
    clusters = [managed_cluster(f"c{i}") for i in range(1, 5)]
    objects = [
        *hub(*clusters),
        placement("p0", mode="Exact", prioritizers=[builtin("Balance")], n=2),
        decision("p0", 1, ["c1", "c4"]),
        placement("p1", mode="Exact", prioritizers=[builtin("Balance", 2), builtin("Steady", 2)], n=1),
        decision("p1", 1, ["c1", "c3"]),
    ]
    result = CliRunner().invoke(main, ["solve", "-f", write(tmp_path, objects), "--now", NOW, "-o", "table"])
    assert result.exit_code == 0, result.output
    tail = result.stdout.split("\n\n")[-1]
    assert tail.splitlines() == [
        "Where optimal chose differently from greedy (1 placement):",
        "  ns1/p0: greedy [c2, c4] -> optimal [c2, c3]",
        "    releases 2 existing decisions (greedy 1)",  # p0 has no Steady: holding is not priced
        "    Balance judged on the batch's final decisions, not on the order placements are visited in",
    ]
    greedy = CliRunner().invoke(
        main, ["solve", "-f", write(tmp_path, objects), "--now", NOW, "-o", "table", "--mode", "greedy"]
    )
    assert "Where optimal" not in greedy.stdout


# -------------------------------------------------------------------------------- served versions


def test_every_kind_a_system_reads_declares_its_served_versions() -> None:
    for name in names():
        read = system(name)
        assert set(read.served) == set(read.kinds) | set(read.shared), name
        assert all(read.served.values()), name


def _with_version(objects: list[dict], kind: str, api_version: str) -> list[dict]:
    """The objects, the first of `kind` given `api_version`."""
    out, done = [], False
    for o in objects:
        if not done and o["kind"] == kind:
            o, done = {**o, "apiVersion": api_version}, True
        out.append(o)
    return out


@pytest.mark.parametrize(
    ("objects", "kind", "api_version", "where", "served"),
    [
        (
            fleet_demo,
            "MemberCluster",
            "cluster.kubernetes-fleet.io/v7",
            "MemberCluster/aks-eastus-prod-1",
            "v1, v1beta1",
        ),
        (
            fleet_demo,
            "ClusterResourcePlacement",
            "placement.kubernetes-fleet.io/v1alpha1",
            "ClusterResourcePlacement/monitoring",
            "v1, v1beta1",
        ),
        (
            ocm_hub,
            "ManagedClusterSet",
            "cluster.open-cluster-management.io/v1beta1",
            "ManagedClusterSet/global",
            "v1beta2",
        ),
        (ocm_hub, "Placement", "cluster.open-cluster-management.io/v1", "Placement/ns1/web", "v1beta1"),
    ],
)
def test_an_unserved_version_of_a_known_kind_is_refused(
    tmp_path, objects, kind, api_version, where, served
) -> None:
    path = write(tmp_path, _with_version(objects(), kind, api_version))
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {where}: apiVersion: {api_version} is not a served version of {kind} (served: {served})\n"
    )


def test_a_shared_kind_in_an_unserved_version_is_refused_beside_its_system(tmp_path) -> None:
    from tests.fixtures.kcp import cluster as kcp_cluster
    from tests.fixtures.kcp import compute_v05, namespace

    team = namespace("web")
    objects = [*compute_v05(kcp_cluster("east-1", "east"), locations=["east"]), {**team, "apiVersion": "v2"}]
    result = CliRunner().invoke(main, ["solve", "-f", write(tmp_path, objects), "--now", NOW])
    assert result.exit_code == 2
    assert (
        "Namespace root:org:team|web: apiVersion: v2 is not a served version of Namespace (served: v1)"
        in result.stderr
    )
    # Without any kcp object a Namespace is nobody's input, whatever its version.
    alone = CliRunner().invoke(
        main, ["solve", "-f", write(tmp_path, [*fleet_demo(), {**team, "apiVersion": "v2"}]), "--now", NOW]
    )
    assert alone.exit_code == 0, alone.stderr


# -------------------------------------------------------------------------------- object names


def _renamed(objects: list[dict], kind: str, *, name: str | None = None, namespace: str | None = None):
    """The objects, the first of `kind` renamed (or moved to another namespace)."""
    out, done = [], False
    for o in objects:
        if not done and o["kind"] == kind:
            metadata = dict(o["metadata"])
            if name is not None:
                metadata["name"] = name
            if namespace is not None:
                metadata["namespace"] = namespace
            o, done = {**o, "metadata": metadata}, True
        out.append(o)
    return out


def _kcp_hub() -> list[dict]:
    from tests.fixtures.kcp import cluster as kcp_cluster
    from tests.fixtures.kcp import compute_v05, namespace

    return [*compute_v05(kcp_cluster("east-1", "east"), locations=["east"]), namespace("web")]


@pytest.mark.parametrize(
    ("objects", "kind", "change", "where", "field", "wrong"),
    [
        (
            fleet_demo,
            "MemberCluster",
            {"name": "Bad_Name"},
            "MemberCluster/Bad_Name",
            "metadata.name",
            "'Bad_Name'",
        ),
        (
            fleet_demo,
            "ClusterResourcePlacement",
            {"name": "a" * 254},
            "ClusterResourcePlacement/",
            "metadata.name",
            "no more than 253 characters",
        ),
        (
            ocm_hub,
            "Placement",
            {"name": "api';touch x;'"},
            "Placement/ns1/api';touch x;'",
            "metadata.name",
            "lowercase RFC 1123 subdomain",
        ),
        (ocm_hub, "Placement", {"namespace": "a.b"}, "Placement/a.b/web", "metadata.namespace", "'a.b'"),
        (
            _kcp_hub,
            "Namespace",
            {"name": "web.team"},
            "Namespace root:org:team|web.team",
            "metadata.name",
            "RFC 1123 label",
        ),
    ],
)
def test_a_name_the_api_server_refuses_is_refused(
    tmp_path, objects, kind, change, where, field, wrong
) -> None:
    """The API server takes a DNS-1123 subdomain as a custom resource's name, a DNS-1123 label as a
    namespace (and a Namespace's name): others never reach a hub, and a name like a shell command
    must not reach the output either."""
    path = write(tmp_path, _renamed(objects(), kind, **change))
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW])
    assert (result.exit_code, result.stdout) == (2, "")
    line = result.stderr
    assert line.count("\n") == 1 and where in line and f": {field}: invalid name" in line and wrong in line, (
        line
    )


# ------------------------------------------------------------------------------- object metadata


def _with_metadata(objects: list[dict], kind: str, **fields) -> list[dict]:
    """The objects, the first of `kind` with these metadata fields."""
    out, done = [], False
    for o in objects:
        if not done and o["kind"] == kind:
            o, done = {**o, "metadata": {**o["metadata"], **fields}}, True
        out.append(o)
    return out


@pytest.mark.parametrize(
    ("objects", "kind", "where"),
    [
        (
            fleet_demo,
            "ClusterResourceBinding",
            "ClusterResourceBinding/web-frontend-aks-eastus-prod-1-0f3a9c21",
        ),
        (ocm_hub, "ManagedClusterSet", "ManagedClusterSet/global"),
        (ocm_hub, "ManagedClusterSetBinding", "ManagedClusterSetBinding/ns1/global"),
        (ocm_hub, "Placement", "Placement/ns1/web"),
        (_kcp_hub, "APIBinding", "APIBinding root:org:team|kubernetes"),
        (_kcp_hub, "Location", "Location root:org:compute|east"),
    ],
)
@pytest.mark.parametrize(
    ("fields", "field", "wrong"),
    [
        ({"labels": {"-a": "b"}}, "metadata.labels", "invalid label key '-a'"),
        ({"labels": {"a": "b" * 64}}, "metadata.labels", "invalid value"),
        ({"labels": {"a": 1}}, "metadata.labels.a", "expected a string"),
        ({"annotations": {"a b": "c"}}, "metadata.annotations", "invalid annotation key 'a b'"),
        ({"annotations": {"x/" + "a" * 64: ""}}, "metadata.annotations", "no more than 63 characters"),
        ({"finalizers": ["Example.com/x"]}, "metadata.finalizers[0]", "invalid finalizer 'Example.com/x'"),
        ({"finalizers": [""]}, "metadata.finalizers[0]", "invalid finalizer ''"),
        ({"generation": -1}, "metadata.generation", "must be between 0 and"),
        ({"generation": 2**63}, "metadata.generation", "must be between 0 and"),
        ({"uid": 5}, "metadata.uid", "expected a string"),
    ],
)
def test_metadata_the_api_server_refuses_is_refused_in_every_kind(
    tmp_path, objects, kind, where, fields, field, wrong
) -> None:
    """ValidateObjectMeta's rules hold for every object of every system, whether or not its adapter
    reads the field (an OCM ManagedClusterSet's labels, a kcp Location's finalizers were taken)."""
    path = write(tmp_path, _with_metadata(objects(), kind, **fields))
    result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW])
    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith(f"error: {where}: {field}: ") and wrong in result.stderr, result.stderr


def test_metadata_the_api_server_takes_is_taken(tmp_path) -> None:
    metadata = {
        "labels": {"example.com/" + "a" * 63: "b" * 63, "c": ""},
        "annotations": {"Example.com/Any_Thing": "any value\nat all"},  # keys are judged lower-cased
        "finalizers": ["example.com/x", "kubernetes"],
        "generation": 2**63 - 1,
    }
    for objects, kind in ((fleet_demo, "ClusterResourceBinding"), (ocm_hub, "ManagedClusterSet")):
        path = write(tmp_path, _with_metadata(objects(), kind, **metadata))
        result = CliRunner().invoke(main, ["solve", "-f", path, "--now", NOW])
        assert result.exit_code == 0, result.stderr
