"""`placement-solver explain`: each cluster's filter, scores, verdict and fix, in Fleet's and OCM's
words, both modes, end to end through the command line."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.kube.manifests import parse_text
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions
from solver.explain import Verdict, explain
from tests.fixtures import fleet as fl
from tests.fixtures import ocm as oc
from tests.fixtures.common import MODES

# -- Fleet: c1 gold (preferred), c2 and c3 plain, c4 dev (label mismatch), c5 tainted; zones a, a, b, c.
FLEET = [
    fl.member_cluster("c1", {"env": "prod", "tier": "gold", "zone": "a"}),
    fl.member_cluster("c2", {"env": "prod", "zone": "a"}),
    fl.member_cluster("c3", {"env": "prod", "zone": "b"}),
    fl.member_cluster("c4", {"env": "dev", "zone": "c"}),
    fl.member_cluster(
        "c5", {"env": "prod"}, taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    ),
    fl.crp(
        "app", fl.pick_n(2, required=[fl.term({"env": "prod"})], prefer=[fl.preferred(10, {"tier": "gold"})])
    ),
    fl.crp("spread3", fl.pick_n(3, required=[fl.term({"env": "prod"})], spread_by=[fl.spread("zone")])),
]

# -- OCM: m1..m3 feasible (memory 100, 50, 80 Gi), m4 dev, m5 tainted, m6 outside the bound set;
# p held m2 before; another placement's decision sits on m1.
GI = 1024**3


def _mc(name, labels, memory=None, **kw):
    resources_ = {"cpu": "8", "memory": f"{memory}Gi"} if memory else None
    return oc.managed_cluster(name, labels, allocatable=resources_, capacity=resources_, **kw)


OCM = [
    oc.cluster_set("main", {"matchExpressions": [{"key": "env", "operator": "Exists"}]}),
    oc.cluster_set("edge", exclusive=True),
    oc.binding("main"),
    _mc("m1", {"env": "prod"}, 100),
    _mc("m2", {"env": "prod"}, 50),
    _mc("m3", {"env": "prod"}, 80),
    _mc("m4", {"env": "dev"}, 60),
    _mc("m5", {"env": "prod"}, 90, taints=[oc.taint("gpu", value="a100", added=oc.ago(60))]),
    _mc("m6", {oc.CLUSTERSET_LABEL: "edge"}, 70),
    oc.placement(
        "p",
        n=2,
        predicates=[oc.predicate({"matchLabels": {"env": "prod"}})],
        prioritizers=[oc.builtin("ResourceAllocatableMemory")],
    ),
    oc.decision("p", 1, ["m2"]),
    oc.decision("ext", 1, ["m1"], namespace="other"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("explain")
    fleet = fl.write_yaml(root / "fleet.yaml", FLEET)
    ocm = fl.write_yaml(root / "ocm.yaml", OCM)
    return {"fleet": str(fleet), "ocm": str(ocm)}


def run(path: str, target: str, *args: str):
    return CliRunner().invoke(
        main, ["explain", "-f", path, target, "--now", fl.NOW, *args], catch_exceptions=False
    )


def records(path: str, target: str, *args: str) -> tuple[dict, dict[str, dict]]:
    result = run(path, target, *args, "-o", "yaml")
    assert result.exit_code == 0, result.output
    doc = yaml.safe_load(result.stdout)
    return doc, {r["cluster"]: r for r in doc["clusters"]}


# ------------------------------------------------------------------------------------------ Fleet


@pytest.mark.parametrize("mode", MODES)
def test_fleet_taint_label_and_cut(files, mode):
    doc, by = records(files["fleet"], "crp/app", "--mode", mode)
    assert doc["placement"]["selected"] == ["c1", "c3"]
    assert by["c1"]["selected"] and by["c1"]["terms"] == {"P1": 10} and by["c1"]["affinityScore"] == 10
    assert by["c1"]["reason"].startswith(
        'Successfully scheduled resources for placement in "c1" (affinity score: 10'
    )
    # tainted: the upstream reason and the exact toleration
    assert by["c5"]["reason"] == (
        "ClusterUnschedulable, taint &{Key:gpu Value:true Effect:NoSchedule} cannot be tolerated"
    )
    assert by["c5"]["fix"]["tolerations"] == [
        {"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    # label mismatch: the one label change that makes the required term match
    assert by["c4"]["reason"] == (
        "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"
    )
    assert by["c4"]["fix"]["clusterSelectorTerm"]["labels"] == {"env": "prod"}
    # below the cut: c2 ties c3 at 0 and the larger name wins, so it needs one point
    assert by["c2"]["result"] == "not picked" and by["c2"]["rank"] == 3
    assert (
        by["c2"]["reason"]
        == 'Cluster "c2" does not score high enough (affinity score: 0, topology spread score: 0)'
    )
    assert (by["c2"]["lastChosen"], by["c2"]["gap"], by["c2"]["fix"]["affinityScore"]) == ("c3", 1, 1)


@pytest.mark.parametrize("mode", MODES)
def test_fleet_spread_bound(files, mode):
    doc, by = records(files["fleet"], "crp/spread3", "--mode", mode)
    assert sorted(doc["placement"]["selected"]) == ["c2", "c3"] or sorted(doc["placement"]["selected"]) == [
        "c1",
        "c3",
    ]
    assert doc["placement"]["scheduled"]["reason"] == "SchedulingPolicyUnfulfilled"
    (left,) = [name for name in ("c1", "c2") if name not in doc["placement"]["selected"]]
    r = by[left]
    assert r["result"] == "spread"
    assert r["reason"] == (
        'ClusterUnschedulable, violated doNotSchedule topology spread constraint "zone" (max skew 1)'
    )
    assert 'skew over "zone" 2' in r["keptOut"]
    assert r["fix"]["topologySpreadConstraint"] == {"topologyKey": "zone", "maxSkew": 2}


def test_fleet_table_and_cluster_filter(files):
    text = run(files["fleet"], "ClusterResourcePlacement/app", "--cluster", "c2").stdout
    lines = text.splitlines()
    assert lines[0] == "ClusterResourcePlacement app: PickN, numberOfClusters 2; mode optimal"
    rows = [line.split() for line in lines if line.startswith("c")]
    assert [r[0] for r in rows if len(r) > 1 and r[0].rstrip(":") == r[0]] == ["c2"]
    assert "  fix: 1 more affinity points (a preferred term it matches)" in lines
    assert any("ranked 3, below the cut: 1 affinity point short of c3" in line for line in lines)


# -------------------------------------------------------------------------------------------- OCM


@pytest.mark.parametrize("mode", MODES)
def test_ocm_prioritizers_match_upstream_numbers(files, mode):
    doc, by = records(files["ocm"], "Placement/ns1/p", "--mode", mode)
    names = [(p["id"], p["name"], p["weight"]) for p in doc["prioritizers"]]
    assert names == [("P1", "Balance", 1), ("P2", "Steady", 1), ("P3", "ResourceAllocatableMemory", 1)]
    scores = {c: {k: v["score"] for k, v in by[c]["prioritizers"].items()} for c in ("m1", "m2", "m3")}
    assert scores["m3"] == {"P1": 100, "P2": 0, "P3": 19}  # 19, not 20: float64 truncation
    assert scores["m2"] == {"P1": 100, "P2": 100, "P3": -100}  # Steady: m2 was decided before
    assert scores["m1"] == {"P1": -100, "P2": 0, "P3": 100}  # Balance: another placement sits there
    assert [by[c]["total"] for c in ("m1", "m2", "m3")] == [0, 100, 119]
    assert doc["placement"]["selected"] == ["m3", "m2"]
    # numberOfClusters reached: m1 ranks third, 100 points short of m2 (ties would go to m1)
    assert by["m1"]["why"].startswith("numberOfClusters (2) reached: ranked 3, 100 point(s) short of m2")
    assert by["m1"]["fix"]["score"] == 100


@pytest.mark.parametrize("mode", MODES)
def test_ocm_filters_and_fixes(files, mode):
    _, by = records(files["ocm"], "placement/p", "--mode", mode)
    assert by["m4"]["filter"]["plugin"] == "Predicate"
    assert by["m4"]["fix"]["predicate"]["labels"] == {"env": "prod"}
    assert by["m5"]["filter"] == {
        "plugin": "TaintToleration",
        "reason": "TaintToleration: taint gpu=a100:NoSelect is not tolerated",
    }
    assert by["m5"]["fix"]["tolerations"] == [
        {"key": "gpu", "operator": "Equal", "value": "a100", "effect": "NoSelect"}
    ]
    assert by["m6"]["result"] == "not in sets"
    assert by["m6"]["why"].startswith("not in the placement's cluster sets (eligible: main)")
    assert by["m6"]["fix"]["clusterSets"]["clusterSet"] == "edge"
    assert "bind ManagedClusterSet edge into namespace ns1" in by["m6"]["fix"]["change"]


def test_ocm_table(files):
    result = run(files["ocm"], "placement/ns1/p", "--mode", "greedy")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Placement ns1/p: numberOfClusters 2, prioritizers Additive; mode greedy"
    header = next(line for line in lines if line.startswith("CLUSTER"))
    assert header.split() == [
        "CLUSTER",
        "RESULT",
        "FILTER",
        "RANK",
        "P1",
        "x1",
        "P2",
        "x1",
        "P3",
        "x1",
        "TOTAL",
    ]
    m3 = next(line for line in lines if line.startswith("m3 "))
    assert m3.split() == ["m3", "selected", "-", "1", "100", "0", "19", "119"]


# ------------------------------------------------------------------------------- both, and errors


@pytest.mark.parametrize("system", ["fleet-demo.yaml", "ocm-demo.yaml"])
@pytest.mark.parametrize("mode", MODES)
def test_chosen_scores_are_the_solvers(system, mode):
    """The preference parts add up to the total, and a chosen cluster's total is the score the
    solve gave it (Balance judged as the mode judged it)."""
    text = resources.files("adapters.examples").joinpath(system).read_text(encoding="utf-8")
    outcome = schedule_manifests(parse_text(text, system), now=fl.NOW_TIME, options=SolveOptions(mode=mode))
    (part,) = outcome.parts
    for got in part.result.requests:
        e = explain(part.batch, part.result, got.request)
        by = {c.cluster: c for c in e.clusters}
        for choice in got.selected:
            record = by[choice.cluster]
            assert record.verdict in (Verdict.CHOSEN, Verdict.KEPT)
            if e.request.mode.value == "n" and not choice.kept and choice.score is not None:
                assert record.score == choice.score.affinity, (got.request, choice)
                assert sum(p.points for p in record.parts) == record.score
        assert {c.cluster for c in e.clusters if c.chosen} == {c.cluster for c in got.selected}


def test_deterministic(files):
    first = run(files["ocm"], "placement/p", "-o", "yaml").stdout
    assert first == run(files["ocm"], "placement/p", "-o", "yaml").stdout
    assert run(files["fleet"], "crp/app").stdout == run(files["fleet"], "crp/app").stdout


@pytest.mark.parametrize(
    ("target", "args", "message"),
    [
        ("crp/nope", (), "ClusterResourcePlacement nope is not in the input"),
        ("Deployment/x", (), "unknown kind 'Deployment'"),
        ("crp/app", ("--cluster", "zz"), "no cluster 'zz' in the fleet input"),
        ("crp/ns/app", (), "cluster-scoped"),
        ("crp", (), "expected KIND/[NAMESPACE/]NAME"),
        ("crp/app", ("--mode", "fast"), "unknown mode 'fast'"),
        ("crp/app", ("-o", "json"), "unknown output 'json'"),
    ],
)
def test_bad_arguments(files, target, args, message):
    result = run(files["fleet"], target, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_unknown_ocm_placement(files):
    result = run(files["ocm"], "Placement/ns2/p")
    assert (result.exit_code, result.stdout) == (2, "")
    assert "Placement ns2/p is not in the input" in result.stderr


@pytest.mark.parametrize(
    ("selector", "field"),
    [
        (fl.term({"Bad Key!": "x"}), "requiredDuringSchedulingIgnoredDuringExecution"),
        (fl.term({"env": "not a value!"}), "requiredDuringSchedulingIgnoredDuringExecution"),
        (
            fl.term(expressions=[("example.com/a/b", "Exists", ())]),
            "requiredDuringSchedulingIgnoredDuringExecution",
        ),
    ],
)
def test_a_fleet_selector_kubernetes_cannot_build_is_refused_not_explained(tmp_path, selector, field):
    """Fleet's webhook refuses a CRP whose cluster selector LabelSelectorAsSelector cannot build
    (kubefleet pkg/utils/validator/placement.go, validateLabelSelector): explain suggested
    setting the label `Bad Key!`, which no MemberCluster can carry."""
    objects = [fl.member_cluster("c1", {"env": "dev"}), fl.crp("web", fl.pick_n(1, required=[selector]))]
    path = fl.write_yaml(tmp_path / "hub.yaml", objects)
    for args in (["explain", "-f", str(path), "crp/web"], ["solve", "-f", str(path)]):
        result = CliRunner().invoke(main, [*args, "--now", fl.NOW])
        assert (result.exit_code, result.stdout) == (2, ""), result.stdout
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: ClusterResourcePlacement/web: ") and field in line, line
        assert "labelSelector is invalid" in line, line


def test_a_label_any_value_but_some_will_set_is_data_no_one_could_apply_as_a_value(tmp_path):
    """`tier` must exist and not be bronze: the fix is any value but bronze. As data it was the
    string "<any value>", which `kubectl label` would take literally (and refuse)."""
    hub = [
        fl.member_cluster("c1", {"tier": "bronze"}),
        fl.crp(
            "app",
            fl.pick_all(
                required=[fl.term(expressions=[("tier", "Exists", []), ("tier", "NotIn", ["bronze"])])]
            ),
        ),
    ]
    path = str(fl.write_yaml(tmp_path / "hub.yaml", hub))
    _, by = records(path, "crp/app")
    assert by["c1"]["fix"]["clusterSelectorTerm"]["labels"] == {"tier": {"anyValueExcept": ["bronze"]}}
    table = run(path, "crp/app").stdout
    assert "tier=<any value but bronze> (was bronze)" in table
