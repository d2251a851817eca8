"""OCM CEL selectors over a fleet (adapters.ocm.cel.matching_clusters): a cluster is narrowed to
the fields an expression reads at any depth, and clusters alike in those fields (and in the scores
it asks for) are evaluated once. Neither ever changes an answer. (What the interpreter is asked:
the expressions are taken without their Python form, tests/test_ocm_cel_plain.py.)"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.errors import InputError
from adapters.ocm import cel
from adapters.ocm import load as ocm_load
from adapters.ocm.cel import matching_clusters
from adapters.run import forked
from tests.fixtures.common import counted_calls
from tests.fixtures.ocm import hub, load, managed_cluster, placement, predicate, score

ROOT = Path(__file__).resolve().parents[1]


def managed(name: str, region: str, tier: str = "gold", claims: int = 2) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"name": name, "region": region, "tier": tier}},
        "spec": {"hubAcceptsClient": True},
        "status": {
            "version": {"kubernetes": f"v1.3{len(name) % 3}.0"},
            "clusterClaims": [{"name": f"id-{i}", "value": f"{name}-{i}"} for i in range(claims)],
        },
    }


def fleet(n: int, seed: int = 7) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    draw = random.Random(seed)
    clusters = [managed(f"c{i:04d}", draw.choice(["us-east", "eu-west", "ap-south"])) for i in range(n)]
    scores: dict[str, dict[str, Any]] = {}
    for c in clusters:
        if draw.random() < 0.8:  # some clusters have no score object: scores() fails there
            value = draw.choice([-60, -10, 20, 70])
            scores[c["metadata"]["name"]] = {"usage": [{"name": "cpu", "value": value}]}
    return clusters, scores


def compile_expression(source: str) -> cel.CelProgram:
    """The program as the interpreter evaluates it (adapters.ocm.cel_fast's form left out)."""
    return dataclasses.replace(cel.compile_expression(source), _plain=None)


def count_evaluations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    evaluate = cel._evaluate

    def counted(*args: Any) -> bool:
        calls[0] += 1
        return evaluate(*args)

    monkeypatch.setattr(cel, "_evaluate", counted)
    return calls


def test_narrowed_to_the_keys_read_at_any_depth() -> None:
    shape = compile_expression('managedCluster.metadata.labels["region"].startsWith("us-")')._shape
    assert shape.keep == {"metadata": {"labels": {"region": None}}}
    shape = compile_expression(
        'managedCluster.status.version.kubernetes == "v1" && has(managedCluster.spec)'
    )._shape
    assert shape.keep == {"status": {"version": {"kubernetes": None}}, "spec": None}
    # a shorter path read whole covers a longer one, in either order
    both = "managedCluster.metadata.labels.size() > 0 && managedCluster.metadata.labels.region == 'x'"
    assert compile_expression(both)._shape.keep == {"metadata": {"labels": None}}


def test_clusters_alike_in_what_is_read_are_evaluated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    clusters, scores = fleet(300)
    calls = count_evaluations(monkeypatch)
    program = compile_expression('managedCluster.metadata.labels["region"] == "us-east"')
    got = matching_clusters(program, clusters, lambda name: scores.get(name, {}))
    assert calls[0] == 3  # one per region, though every cluster's name and claims differ
    assert got == [c["metadata"]["labels"]["region"] == "us-east" for c in clusters]


def test_scores_asked_for_by_the_receiver_make_clusters_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    clusters, scores = fleet(300)
    calls = count_evaluations(monkeypatch)
    program = compile_expression('managedCluster.scores("usage").all(s, s.value > 0)')
    got = matching_clusters(program, clusters, lambda name: scores.get(name, {}))
    assert calls[0] == 5  # four values, and no score object at all
    expected = [
        name in scores and all(s["value"] > 0 for s in scores[name]["usage"])
        for name in (c["metadata"]["name"] for c in clusters)
    ]
    assert got == expected


@pytest.mark.parametrize(
    "source",
    [
        'managedCluster.metadata.name != "c0001" && managedCluster.scores("usage").size() > 0',
        "managedCluster.scores(managedCluster.metadata.labels.region).size() > 0",
        "managedCluster.metadata.size() > 0",
    ],
)
def test_clusters_whose_name_is_read_are_never_alike(monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    clusters, scores = fleet(40)
    calls = count_evaluations(monkeypatch)
    matching_clusters(compile_expression(source), clusters, lambda name: scores.get(name, {}))
    assert calls[0] == len(clusters)


def test_unlike_clusters_stop_being_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    clusters, scores = fleet(600)
    program = compile_expression('managedCluster.status.clusterClaims.exists(c, c.value.endsWith("-1"))')
    narrowed = [0]
    narrow = cel._narrow

    def counted(*args: Any) -> dict[str, Any]:
        narrowed[0] += 1
        return narrow(*args)

    monkeypatch.setattr(cel, "_narrow", counted)
    assert all(matching_clusters(program, clusters, lambda name: scores.get(name, {})))
    # every evaluation narrows once, only the first clusters for their key as well (two calls
    # each: the cluster, then its status)
    assert narrowed[0] == 2 * (len(clusters) + cel._SAMPLE)


SOURCES = [
    'managedCluster.metadata.labels["region"] == "us-east"',
    'managedCluster.metadata.labels.tier in ["gold"] && managedCluster.metadata.labels.region != "x"',
    'managedCluster.scores("usage").filter(s, s.name == "cpu").all(e, e.value > 0)',
    'managedCluster.scores("usage").size() == 1 && managedCluster.status.version.kubernetes == "v1.31.0"',
    'managedCluster.scores("usage").exists(s, managedCluster.scores("usage").all(t, t.value >= s.value))',
    "managedCluster.status.clusterClaims.exists(c, c.value == 'c0003-1')",
    "has(managedCluster.metadata.labels.zone) || managedCluster.status.version.kubernetes.endsWith('0')",
    "managedCluster.metadata.labels.size() == 3",
]


@pytest.mark.parametrize("source", SOURCES)
def test_alike_clusters_never_change_an_answer(source: str) -> None:
    clusters, scores = fleet(400, seed=11)
    program = compile_expression(source)
    expected = [program.matches(c, scores.get(c["metadata"]["name"], {})) for c in clusters]
    assert matching_clusters(program, clusters, lambda name: scores.get(name, {})) == expected


def test_the_library_is_imported_without_its_command_line() -> None:
    script = (
        "import sys; import adapters.ocm.cel; "
        "assert 'cel.cli' not in sys.modules and 'prompt_toolkit' not in sys.modules; "
        "import cel.cli; assert hasattr(cel.cli, 'app') or cel.cli.__file__.endswith('cli.py')"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)


def hub_objects(n: int) -> list[dict[str, Any]]:
    clusters = [managed_cluster(f"c{i}", {"region": ("us-east", "eu-west")[i % 2]}) for i in range(n)]
    scores = [score(f"c{i}", "usage", {"cpu": 10 * i - 40}) for i in range(0, n, 2)]
    expressions = [
        'managedCluster.metadata.labels["region"] == "us-east"',
        'managedCluster.scores("usage").all(s, s.value > 0)',
        "managedCluster.metadata.name.endsWith('3')",
    ]
    placements = [placement(f"p{k}", n=2, predicates=[predicate(cel=[e])]) for k, e in enumerate(expressions)]
    return [*hub(*clusters), *scores, *placements]


def test_a_large_fleet_is_matched_by_a_forked_child_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    objects = hub_objects(9)
    whole = load(objects)
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)  # every fleet is large: a forked child evaluates
    monkeypatch.setattr(forked, "workers", lambda: 2)
    beside = load(objects)
    assert [c.traits for c in beside[0].clusters] == [c.traits for c in whole[0].clusters]
    assert any(t.startswith("cel") or "cel" in t for c in whole[0].clusters for t in c.traits)


def test_a_childs_answer_for_other_objects_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's answer is taken only for the expressions and clusters this process read (its
    key); else the expressions are evaluated here."""
    objects = hub_objects(9)
    whole = load(objects)
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)
    monkeypatch.setattr(forked, "workers", lambda: 2)
    monkeypatch.setattr(ocm_load, "_cel_early", lambda item: b"\x01" * 200)
    assert [c.traits for c in load(objects)[0].clusters] == [c.traits for c in whole[0].clusters]


def test_bad_input_beside_a_forked_child_is_the_same_error(monkeypatch: pytest.MonkeyPatch) -> None:
    objects = hub_objects(9)
    objects[-1]["spec"]["numberOfClusters"] = "two"
    with pytest.raises(InputError) as alone:
        load(objects)
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)
    monkeypatch.setattr(forked, "workers", lambda: 2)
    with pytest.raises(InputError) as beside:
        load(objects)
    assert str(beside.value) == str(alone.value)


def test_a_childs_answer_is_taken_for_a_well_formed_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    """The expressions the child reads loosely are those load reads (disabled and deleting
    placements left out alike): nothing is evaluated here."""
    objects = hub_objects(9)
    disabled = placement("off", n=1, predicates=[predicate(cel=["managedCluster.metadata.name == 'c1'"])])
    disabled["metadata"]["annotations"] = {
        "cluster.open-cluster-management.io/experimental-scheduling-disable": "true"
    }
    objects.append(disabled)
    whole = load(objects)
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)
    monkeypatch.setattr(forked, "workers", lambda: 2)
    here = counted_calls(monkeypatch, ocm_load, "_cel_flags")  # the child's calls are its own
    assert [c.traits for c in load(objects)[0].clusters] == [c.traits for c in whole[0].clusters]
    assert here == []


def _scored_beside(objects: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """The batch (or the error) loaded with a forked CEL child, and how often this process read
    the scores."""
    monkeypatch.setattr(ocm_load, "_CEL_SPLIT", 1)
    monkeypatch.setattr(forked, "workers", lambda: 2)
    here = counted_calls(monkeypatch, ocm_load, "_scores")  # the child's calls are its own
    try:
        batch = load(objects)[0]
    except InputError as error:
        return str(error), len(here)
    return [(c.name, c.scores, c.traits) for c in batch.clusters], len(here)


def test_the_cel_child_reads_the_scores_as_the_load_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a CEL child is forked it reads the valid scores too (this process reads none), the
    same as the load reads them; on bad scores it answers nothing, and this process reads them."""
    objects = hub_objects(9)
    whole = [(c.name, c.scores, c.traits) for c in load(objects)[0].clusters]
    assert any(scores for _, scores, _ in whole)
    assert _scored_beside(objects, monkeypatch) == (whole, 0)


def test_the_scores_error_comes_first_though_the_child_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad score and a bad placement read after it: the score's error, as when the scores are
    read first in this process; a bad placement alone: its error."""
    bad_score = hub_objects(9)
    next(o for o in bad_score if o["kind"] == "AddOnPlacementScore")["status"]["scores"][0]["value"] = "high"
    both = [*bad_score[:-1], {**bad_score[-1], "spec": {**bad_score[-1]["spec"], "numberOfClusters": "two"}}]
    bad_placement = [*hub_objects(9)[:-1], both[-1]]
    for objects in (bad_score, both, bad_placement):
        with pytest.raises(InputError) as alone:
            load(objects)
        beside, _ = _scored_beside(objects, monkeypatch)
        assert beside == str(alone.value)
    assert "score" in _scored_beside(both, monkeypatch)[0].lower()
