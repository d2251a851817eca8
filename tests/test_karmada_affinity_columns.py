"""adapters.karmada.placement.matches_all: an affinity matched on every cluster at once (the loader's
traits at 10,000 clusters) gives Affinity.matches' answer on each."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.karmada.placement import Affinity, ClusterFacts, FactTable, matches_all
from model import LabelOperator, LabelRequirement, LabelSelector

VALUES = ("a", "b", "", "c")
KEYS = ("region", "team")
NAMES = ("m0", "m1", "m2", "m3", "gone")

facts = st.builds(
    ClusterFacts,
    name=st.sampled_from(NAMES[:4]),
    labels=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2),
    provider=st.sampled_from(VALUES),
    region=st.sampled_from(VALUES),
    zones=st.lists(st.sampled_from(("z1", "z2")), max_size=2, unique=True).map(tuple),
)
requirement = st.builds(
    LabelRequirement,
    key=st.sampled_from(KEYS),
    operator=st.sampled_from(list(LabelOperator)),
    values=st.lists(st.sampled_from(VALUES), max_size=2).map(tuple),
)
field = st.tuples(
    st.sampled_from(("provider", "region", "zone")),
    st.sampled_from(("In", "NotIn")),
    st.lists(st.sampled_from((*VALUES, "z1", "Bad Value!")), max_size=2).map(tuple),
)


@st.composite
def affinities(draw) -> Affinity:
    selector = draw(st.sampled_from(("none", "empty", "broken", "some")))
    form = {} if selector == "none" else {"labelSelector": {}}
    labels = None
    if selector == "some":
        labels = LabelSelector(
            match_labels=tuple(draw(st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES))).items()),
            match_expressions=tuple(draw(st.lists(requirement, max_size=2))),
        )
    names = tuple(draw(st.lists(st.sampled_from(NAMES), max_size=3)))
    exclude = tuple(draw(st.lists(st.sampled_from(NAMES), max_size=2)))
    fields = tuple(draw(st.lists(field, max_size=2)))
    return Affinity(form, labels, selector == "broken", fields, names, exclude)


@settings(max_examples=300, deadline=None)
@given(st.lists(facts, min_size=1, max_size=4, unique_by=lambda f: f.name), affinities())
def test_matching_every_cluster_at_once_agrees_with_each(clusters, affinity) -> None:
    table = FactTable(clusters)
    expected = np.array([affinity.matches(c) for c in clusters], dtype=bool)
    assert matches_all(affinity, table).tolist() == expected.tolist()
