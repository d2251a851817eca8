"""The model's value types stay frozen dataclasses made at nearly a plain slotted class's cost
(model/frozen.py: `__init__` writes each slot through its member descriptor, bound once), and
behave as the dataclass decorator's own: signature, defaults and default factories,
`__post_init__`'s checks, equality, hashing, repr, pickling, copying, `dataclasses.replace`."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import timeit
from datetime import UTC, datetime

import pytest

import model
from model import quantity, selectors, types
from model.frozen import frozen

TYPES = sorted(
    {
        obj
        for module in (types, selectors, quantity)
        for obj in vars(module).values()
        if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__
    },
    key=lambda cls: cls.__qualname__,
)


def test_every_model_value_type_is_made_by_frozen() -> None:
    assert len(TYPES) >= 29
    for cls in TYPES:
        assert cls.__dataclass_params__.frozen, cls
        assert "__slots__" in cls.__dict__, cls
        assert cls.__init__.__code__.co_filename.startswith("<frozen "), cls


def _reference(cls: type) -> type:
    """The same fields declared by the dataclass decorator alone (its generated __init__)."""
    specs = []
    for f in dataclasses.fields(cls):
        kw = {"hash": f.hash, "compare": f.compare, "repr": f.repr}
        if f.default is not dataclasses.MISSING:
            kw["default"] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            kw["default_factory"] = f.default_factory
        specs.append((f.name, f.type, dataclasses.field(**kw)))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, slots=True)


def _values(obj: object) -> tuple:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


@pytest.mark.parametrize("cls", TYPES, ids=lambda c: c.__qualname__)
def test_the_signature_and_defaults_are_the_generated_ones(cls) -> None:
    ref = _reference(cls)
    ours = inspect.signature(cls.__init__)
    theirs = inspect.signature(ref.__init__)
    assert [(p.name, p.kind, repr(p.default)) for p in ours.parameters.values()] == [
        (p.name, p.kind, repr(p.default)) for p in theirs.parameters.values()
    ]
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    annotations = {f.name: f.type for f in dataclasses.fields(cls)}
    assert cls.__init__.__annotations__ == {**annotations, "return": None}


SAMPLES = [
    types.Cluster("c", labels={"zone": "a"}, scores={"s": 3}, load=2),
    types.Cluster("d"),
    types.PlacementRequest(
        "r",
        namespace="ns",
        mode=types.SelectionMode.N,
        count=2,
        preferences=(types.Preference(3, external="s"), types.Preference(2, held=True)),
        existing=(types.ExistingDecision("c", committed=True),),
        tenancy=types.Tenancy(order=4, limit=3, pool="p", joins=("q",)),
    ),
    types.Replicas(3, demand={"cpu": 1}, current=(("c", 2),)),
    types.RequestResult("ns/r", (types.Choice("c", types.ClusterScore(1, 2), kept=True, replicas=3),)),
    types.Unselected("d", types.FilterKind.TAINT, taint=selectors.Taint("k", "v", "NoSchedule")),
    types.SolveStats("optimal", "OPTIMAL", levels=(types.LevelStats.of("n", 3, 1),)),
    quantity.Quantity(1500, "1.5u"),
    selectors.Toleration("k", selectors.TolerationOperator.EXISTS, seconds=30),
]


@pytest.mark.parametrize("obj", SAMPLES, ids=lambda o: type(o).__name__)
def test_a_value_stays_frozen_and_behaves_as_before(obj) -> None:
    cls = type(obj)
    for f in dataclasses.fields(obj):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, f.name, getattr(obj, f.name))
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(obj, f.name)
    twin = _reference(cls)(*_values(obj))
    assert repr(obj) == repr(twin)
    if cls.__hash__ is not None:
        assert hash(obj) == hash(twin)
    again = cls(*_values(obj))
    assert again == obj and again is not obj
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(obj, protocol)) == obj
    assert copy.copy(obj) == obj and copy.deepcopy(obj) == obj
    assert dataclasses.replace(obj) == obj
    assert dataclasses.asdict(obj) == dataclasses.asdict(twin)


def test_defaults_and_factories_as_the_generated_init() -> None:
    a, b = types.Cluster("a"), types.Cluster("a")
    assert a.labels == {} and a.labels is not b.labels  # a factory's value is made per instance
    given = {"x": "y"}
    assert types.Cluster("a", labels=given).labels is given
    assert types.Cluster("a", traits=frozenset({"t"})).traits == {"t"}
    assert types.AffinityTier("t").term == selectors.ClusterTerm()
    with pytest.raises(TypeError, match=r"PlacementRequest.__init__\(\) missing 1 required positional"):
        types.PlacementRequest()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        types.Choice("c", nope=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes from 2 to 5 positional arguments"):
        types.ExistingDecision("a", True, False, None, 5)  # type: ignore[call-arg]


def test_post_init_checks_still_run() -> None:
    with pytest.raises(ValueError, match=r"request 'r': count must be an integer between 0 and"):
        types.PlacementRequest("r", count=-1)
    with pytest.raises(ValueError, match="tenancy: demand must be an integer between 1 and"):
        dataclasses.replace(types.Tenancy(order=0), demand=0)
    with pytest.raises(ValueError, match=r"cluster 'c': scores\['s'\] must be an integer"):
        types.Cluster("c", scores={"s": 2**40})


def test_frozen_refuses_what_it_cannot_make() -> None:
    with pytest.raises(TypeError, match="plain __init__ fields only"):

        @frozen
        class KwOnly:
            a: int = dataclasses.field(default=0, kw_only=True)

    with pytest.raises(TypeError, match="plain __init__ fields only"):

        @frozen
        class NotInit:
            a: int = dataclasses.field(default=0, init=False)

    with pytest.raises(TypeError, match="plain __init__ fields only"):

        @frozen
        class WithInitVar:
            a: dataclasses.InitVar[int]


def test_a_value_built_by_a_batch_is_equal_either_way() -> None:
    now = datetime(2026, 11, 24, 3, tzinfo=UTC)
    clusters = (types.Cluster("a", scores={"s": 5}), types.Cluster("b"))
    requests = (types.PlacementRequest("r", preferences=(model.Preference(2, external="s"),)),)
    batch = model.Batch(clusters, requests, now=now, seed=3)
    assert pickle.loads(pickle.dumps(batch)) == batch
    assert dataclasses.replace(batch, seed=4).seed == 4


# Twelve plain fields: the dataclass decorator's frozen __init__ (object.__setattr__ per field)
# costs about 6.4 times a plain slotted class's, the descriptors' about 3.5 times (0.55 of it).
_FIELDS = "abcdefghijkl"


def _declared(decorate):
    namespace = {"__annotations__": dict.fromkeys(_FIELDS, "int"), **dict.fromkeys(_FIELDS, 0)}
    return decorate(type("Twelve", (), namespace))


def test_construction_costs_nearly_what_a_plain_slotted_class_does() -> None:
    fast = _declared(frozen)
    generated = _declared(dataclasses.dataclass(frozen=True, slots=True))
    plain = _declared(dataclasses.dataclass(slots=True))
    args = tuple(range(len(_FIELDS)))
    assert _values(fast(*args)) == _values(generated(*args)) == args
    best = {cls: float("inf") for cls in (fast, generated, plain)}
    # In turns, the best of many short runs: some run unpreempted on a loaded machine.
    for _ in range(60):
        for cls in best:
            best[cls] = min(best[cls], timeit.timeit(lambda cls=cls: cls(*args), number=1000))
    assert best[fast] < 5 * best[plain], best
    assert best[fast] < 0.75 * best[generated], best
