"""The OCM load's plain paths (items read without a path spelt per item, as a hub's are) give what
the checks give, and leave every other shape to them: the same values, the same first problem."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from adapters.errors import InputError
from tests.fixtures.ocm import NS, hub, hubs, load, managed_cluster, score


def _scored(items):
    obj = score("a", "demo", {})
    obj["status"]["scores"] = items
    return hub(managed_cluster("a"), obj)


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (
            [{"name": "s", "value": 100}, {"name": "t", "value": -100}],
            {"addon/demo/s": 100, "addon/demo/t": -100},
        ),
        ([{"name": "s", "value": 3.0}], {"addon/demo/s": 3}),  # a whole float is an integer
        ([{"name": "s", "value": 1, "extra": "x"}], {"addon/demo/s": 1}),
        (None, {}),
        ([], {}),
    ],
)
def test_score_items_read_as_the_checks_read_them(items, expected) -> None:
    batch, _ = load(_scored(items))
    assert dict(batch.clusters[0].scores) == expected


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ([{"name": "s", "value": True}], "status.scores[0].value"),
        ([{"name": "s", "value": "1"}], "status.scores[0].value"),
        ([{"name": "s", "value": 1}, {"name": "t", "value": 101}], "status.scores[1].value"),
        ([{"name": 5, "value": 1}], "status.scores[0].name"),
        ([{"value": 1}], "status.scores[0].name"),
        ([{"name": "s"}], "status.scores[0].value"),
        ([{"name": "s", "value": 1}, None], "status.scores[1]"),
        ([{"name": "s", "value": 1}, "x"], "status.scores[1]"),
        ({"name": "s", "value": 1}, "status.scores"),
    ],
)
def test_score_items_the_checks_refuse_are_refused_by_them(items, field) -> None:
    with pytest.raises(InputError) as caught:
        load(_scored(items))
    assert caught.value.field == field


def test_label_selector_sets_asked_once_per_label_values_keep_their_members() -> None:
    """Set memberships by a selector, asked once per distinct values of the labels it reads,
    are ClusterSet.contains of every cluster (absent labels and empty values apart)."""
    from adapters.kube.manifests import from_objects
    from adapters.ocm.clusters import read_cluster
    from adapters.ocm.load import _memberships
    from adapters.ocm.sets import read_set
    from tests.fixtures.ocm import cluster_set

    selectors = {
        "in": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", ""]}]},
        "notin": {"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod"]}]},
        "exists": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
        "absent": {"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]},
        "both": {
            "matchLabels": {"env": "dev"},
            "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
        },
    }
    labels = [{}, {"env": "prod"}, {"env": ""}, {"env": "dev", "zone": "a"}, {"env": "dev"}, {"zone": "b"}]
    objects = [cluster_set(name, selector) for name, selector in selectors.items()]
    objects += [managed_cluster(f"c{i}", {**each, "name": f"c{i}"}) for i, each in enumerate(labels * 2)]
    manifests = from_objects(objects, "<test>")
    sets = {m.name: read_set(m) for m in manifests if m.kind == "ManagedClusterSet"}
    live = [read_cluster(m) for m in manifests if m.kind == "ManagedCluster"]
    expected = {c.name: frozenset(s.trait for s in sets.values() if s.contains(c)) for c in live}
    assert _memberships(sets, live) == expected
    assert expected["c3"] == {"set:notin", "set:exists", "set:both"} and expected["c2"] == {
        "set:in",
        "set:notin",
        "set:absent",
    }


_AMOUNTS = [
    ({"cpu": "4", "memory": "8Gi"}, {"cpu": "2", "memory": "6Gi", "pods": "110"}),  # a hub's shape
    ({"cpu": "4"}, {"cpu": "2", "memory": "6Gi"}),  # memory without a capacity: not read
    ({"cpu": 4, "memory": "8Gi"}, {"cpu": 2.0, "memory": "6Gi"}),  # numbers and a whole float
    ({"cpu": "4", "memory": None}, {"cpu": "2", "memory": "1Gi"}),  # a null amount is none
    (None, {"cpu": "2"}),
    ({"cpu": "4"}, None),
    ({"cpu": "x"}, {"cpu": "2"}),  # the capacity's problem first
    ({"cpu": "4", "memory": "8Gi"}, {"memory": "6Gi", "cpu": "2.5.1"}),
    ({"cpu": "4"}, {"cpu": True}),
    ({"cpu": "4"}, {"cpu": 2.5}),
    ({"cpu": "4"}, ["cpu"]),
    ({"cpu": "4"}, {"cpu": "9" * 40 + "E"}),  # past the columns' range
]


@pytest.mark.parametrize(("capacity", "allocatable"), _AMOUNTS)
def test_cluster_amounts_read_as_the_checks_read_them(capacity, allocatable) -> None:
    """A cluster's allocatable and capacity through the plain path (quantity strings in objects)
    and through the checks alone: the same properties, or the same first problem."""
    import adapters.ocm.clusters as clusters
    from adapters.kube.fields import Fields
    from adapters.kube.manifests import from_objects

    status = {k: v for k, v in (("capacity", capacity), ("allocatable", allocatable)) if v is not None}
    (manifest,) = from_objects([managed_cluster("a")], "<test>")

    def read(plain: bool):
        f = Fields(manifest)
        saved = clusters._plain_properties
        if not plain:
            clusters._plain_properties = lambda *_: None
        try:
            return clusters._properties(f, status)
        except InputError as err:
            return err.field, str(err)
        finally:
            clusters._plain_properties = saved

    assert read(plain=True) == read(plain=False)


def test_each_clusters_cel_traits_are_those_its_flags_match() -> None:
    """The load gives each cluster the traits of the expressions it matches from the flags, one
    set per pattern of matches (_cel_traits_of): the traits whose flag for it is 1."""
    import random

    from adapters.ocm.load import _cel_traits_of

    rng = random.Random(7)
    for count, width in ((0, 2), (1, 1), (9, 3), (40, 5)):
        traits = [f"cel:{k}" for k in range(width)]
        flags = bytes(rng.random() < 0.5 for _ in range(count * width))
        expected = [frozenset(t for k, t in enumerate(traits) if flags[k * count + i]) for i in range(count)]
        assert _cel_traits_of(traits, flags, count) == expected
    assert _cel_traits_of([], b"", 3) == [frozenset()] * 3


@settings(max_examples=60, deadline=None)
@given(hubs())
def test_each_placements_available_clusters_are_counted_by_the_sets_it_is_bound_to(objects) -> None:
    """PlacementContext.available: the live clusters in the placement's eligible sets, counted by
    the sets of set traits the clusters carry, as many as gathering them one by one finds."""
    from adapters.ocm import names as n

    batch, context = load(objects)
    live = [o for o in objects if o["kind"] == "ManagedCluster" and "deletionTimestamp" not in o["metadata"]]
    traits = {c.name: c.traits for c in batch.clusters}
    for p in context.placements.values():
        scope = {n.SET_TRAIT.format(s) for s in p.eligible}
        assert p.available == sum(1 for o in live if traits[o["metadata"]["name"]] & scope)


def test_the_clusters_of_a_placements_sets_are_gathered_only_for_a_refused_toleration(monkeypatch) -> None:
    """Only a toleration refused reads the clusters themselves (upstream says so only where one
    passes the predicates); elsewhere they are counted, not gathered."""
    import adapters.ocm.load as ocm_load
    from tests.fixtures.ocm import placement, toleration

    gathered = []
    members = ocm_load._members
    monkeypatch.setattr(ocm_load, "_members", lambda *a: gathered.append(1) or members(*a))
    objects = hub(managed_cluster("a"), managed_cluster("b"), placement("p", n=1))
    _, context = load(objects)
    assert gathered == [] and context.placements[f"{NS}/p"].available == 2
    refused = placement("q", n=1, tolerations=[toleration(operator="Equal")])  # no key: Exists only
    _, context = load([*objects, refused])
    assert gathered == [1]
    assert context.placements[f"{NS}/q"].misconfigured is not None
