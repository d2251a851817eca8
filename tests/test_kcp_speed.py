"""kcp at scale: the shortcuts that make a 10,000 x 50,000 hub fast, each held equal to the plain
computation it replaces, and held to doing less work than it."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import subprocess
import sys

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from adapters.errors import InputError
from adapters.kcp import v05 as v05_module
from adapters.kcp import v08 as v08_module
from adapters.kcp import workspace as workspace_module
from adapters.kcp import world as world_module
from adapters.kcp.annotation import Entry, Parsed, format_placement, parse_placement
from adapters.kcp.api import load
from adapters.kcp.keys import sync_target_key
from adapters.kcp.load import load as kcp_load
from adapters.kcp.names import Generation, State
from adapters.kcp.v08 import plan as plan_v08
from adapters.kcp.world import last_shuffled
from adapters.kube.manifests import Manifest, from_objects
from model import Choice, LabelSelector, RequestResult
from solver import SolveOptions, solve
from solver.tenancy.hand_out import hand_out
from solver.tenancy.problem import Placement, Problem
from tests.fixtures.common import counted_calls
from tests.fixtures.kcp import (
    NOW_TIME,
    binding_v08,
    cluster,
    compute_v05,
    compute_v08,
    hubs_v05,
    location,
    namespace,
    namespace_v08,
    placement,
    sync_target,
)


def loaded(objects, seed: int = 0):
    return load(from_objects(objects, "<test>"), now=NOW_TIME, seed=seed)


# ------------------------------------------------------------------------------- the partial shuffle


def _last_of_shuffle(rng: random.Random, items, wanted):
    order = list(items)
    rng.shuffle(order)
    return next((item for item in reversed(order) if wanted(item)), None)


@given(
    seed=st.text(max_size=8),
    size=st.integers(min_value=0, max_value=60),
    wanted=st.frozensets(st.integers(min_value=0, max_value=60)),
)
def test_last_shuffled_is_the_last_wanted_item_of_random_shuffle(seed, size, wanted) -> None:
    items = [f"loc-{i}" for i in range(size)]
    keep = {f"loc-{i}" for i in wanted}
    expected = _last_of_shuffle(random.Random(seed), items, keep.__contains__)
    assert last_shuffled(random.Random(seed), items, keep.__contains__) == expected


def _counting_draws(monkeypatch) -> list[int]:
    """Every random source the kcp adapter makes counts its draws into the returned list."""
    draws: list[int] = []

    class Counting(random.Random):
        def _randbelow(self, n: int) -> int:
            draws.append(n)
            return super()._randbelow(n)

    monkeypatch.setattr(world_module.random, "Random", Counting)
    return draws


def test_v05_new_namespace_draws_only_the_places_that_decide_its_location(monkeypatch) -> None:
    """A namespace without an entry takes the last location of a permutation of its negotiation
    workspace's thousand Locations: one draw decides it, not a thousand (50,000 such namespaces
    took 20 s)."""
    names = [f"loc-{i:04d}" for i in range(1000)]
    hub = [*compute_v05(*(cluster(f"c-{name}", name) for name in names), locations=names), namespace("web")]
    draws = _counting_draws(monkeypatch)
    batch, _ = loaded(hub)
    (request,) = batch.requests
    assert len(draws) == 1
    drawn = _last_of_shuffle(random.Random("0/root:org:compute/root:org:team/web"), names, bool)
    assert request.name == f"web@{drawn}"


# ------------------------------------------------------------------------------------ v0.8's rounds


def _counting_matches(monkeypatch) -> list[tuple]:
    """Every LabelSelector.matches call counts one into the returned list."""
    return counted_calls(monkeypatch, LabelSelector, "matches")


def test_v08_namespace_selectors_are_judged_once_per_distinct_labels_they_read(monkeypatch) -> None:
    """Placements share a few namespaceSelectors and namespaces a few values of the labels those
    read: each pair of those is judged once, not each (namespace, placement) pair in every round
    (50,000 x 11,000 in 2,500 workspaces took a second)."""
    teams = ("a", "b")
    hub = [
        *compute_v08(sync_target("t1", "us"), locations=["us"]),
        *(placement(f"p{i}", namespaces={"matchLabels": {"team": teams[i % 2]}}) for i in range(20)),
        *(namespace_v08(f"ns{i}", labels={"team": teams[i % 2], "n": str(i)}) for i in range(100)),
    ]
    batch, context = loaded(hub)
    calls = _counting_matches(monkeypatch)
    plan = plan_v08(context.world)
    assert len(calls) == len(teams) ** 2  # each selector on each team
    for state in plan.namespaces:
        team = state.namespace.labels["team"]
        wanted = sorted(f"p{i}" for i in range(20) if teams[i % 2] == team)  # placements by name
        assert [pp.placement.name for pp in state.placements] == wanted
    assert all(len(pp.namespaces) == 50 for pp in plan.placements)
    assert {pp.phase for pp in plan.placements} == {"Bound"}


# ---------------------------------------------------------------------------------- SyncTargetKey


def _base62(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = digits[digit] + out
    return out or "0"


@given(workspace=st.text(max_size=20), name=st.text(max_size=20))
def test_sync_target_key_is_the_sha224_in_base62(workspace, name) -> None:
    number = int.from_bytes(hashlib.sha224((workspace + name).encode("utf-8")).digest(), "big")
    assert sync_target_key(workspace, name) == _base62(number)


# ------------------------------------------------------------------------- the placement annotation


class _Members(list):
    """A JSON object's members, every repetition of a key included."""


def _parsed_by_json(text: str) -> Parsed:
    """The annotation read by json alone, every repetition of a key seen (the reference)."""
    try:
        raw = json.loads(text, object_pairs_hook=_Members)
    except (json.JSONDecodeError, RecursionError) as err:
        return Parsed(present=True, invalid=f"invalid JSON: {getattr(err, 'msg', err)}")
    if raw is None:
        return Parsed(present=True, null=True)
    if not isinstance(raw, _Members):
        return Parsed(present=True, invalid="not a JSON object")
    states: dict[str, str] = {}
    for key, value in raw:
        if value is not None and not isinstance(value, str):
            return Parsed(present=True, invalid=f"the state of {key!r} is not a string")
        states[key] = value or ""
    entries = {
        key: (Entry(*key.split("+")), State(state))
        for key, state in states.items()
        if len(key.split("+")) == 3 and state in {s.value for s in State}
    }
    return Parsed(True, states, entries)


_KEYS = st.sampled_from(["a+b+c", "a+b+d", "a++c", "x", "a+b+c+d", "\u00e9+b+c", "a+\ud800+c"])
_VALUES = st.sampled_from(['"Bound"', '"Pending"', '"Odd"', "null", "1", "NaN", '"\u0042ound"', "{}", '""'])


@given(
    members=st.lists(st.tuples(_KEYS, _VALUES), max_size=4),
    spacing=st.sampled_from(["", " ", "\n  "]),
    wrap=st.sampled_from(["{%s}", "[%s]", "%s", "null", "{%s"]),
)
def test_the_placement_annotation_reads_as_json_reads_it(members, spacing, wrap) -> None:
    """The quick reading (strict JSON, a map of strings, no key repeated) and json's agree on
    every text: repeated keys, nulls, numbers, NaN, escapes, lone surrogates, spacing."""
    body = ",".join(f'{spacing}"{key}"{spacing}:{spacing}{value}' for key, value in members)
    text = wrap % body if "%s" in wrap else wrap
    assert parse_placement(text) == _parsed_by_json(text)


@given(
    st.dictionaries(st.text(max_size=12), st.sampled_from(["Pending", "Bound", "Removing", "Unbound", ""]))
)
def test_a_written_annotation_reads_back_as_the_states_written(states) -> None:
    """v0.5's emit judges the condition of an annotation it writes from the states themselves:
    they must be what reading its text gives (any key: quotes, <, >, &, U+2028, surrogates)."""
    parsed = parse_placement(format_placement(states))
    assert not parsed.invalid and parsed.states == states


# --------------------------------------------------------------------------------- the workspace


def _read(metadata: dict) -> str:
    obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", **metadata}}
    try:
        return workspace_module.read_workspace(Manifest(obj, "<test>", 1))
    except InputError as err:
        return f"error: {err}"


_MARKERS = (None, "", "root:org:team", "root:org:else", 7, "Not a name")


def test_a_workspace_read_quickly_reads_as_the_checks_read_it() -> None:
    """Once a name has been read good, objects naming it are read in a few lookups: every
    combination of markers (absent, empty, agreeing, disagreeing, not a string) gives what the
    checks give with nothing remembered."""
    remembered = set(workspace_module._GOOD_NAMES)
    try:
        for newest, older, legacy in itertools.product(_MARKERS, repeat=3):
            named = (("kcp.io/cluster", newest), ("kcp.dev/cluster", older))
            metadata = {"annotations": {k: v for k, v in named if v is not None}}
            if legacy is not None:
                metadata["clusterName"] = legacy
            workspace_module._GOOD_NAMES.clear()
            checked = _read(metadata)
            _read({"annotations": {"kcp.dev/cluster": "root:org:team"}})  # remembered good from now on
            _read({"annotations": {"kcp.dev/cluster": "root:org:else"}})
            assert _read(metadata) == checked, (newest, older, legacy)
    finally:
        workspace_module._GOOD_NAMES.update(remembered)


# ------------------------------------------------------------------------------ kcp in the solver


def _locations_hub(locations: int, per_location: int, namespaces: int) -> list[dict]:
    names = [f"loc-{i:03d}" for i in range(locations)]
    clusters = [cluster(f"c-{name}-{j}", name) for name in names for j in range(per_location)]
    return [*compute_v05(*clusters, locations=names), *(namespace(f"ns-{i:04d}") for i in range(namespaces))]


class _CountedReads(list):
    """A list that counts the items read from it."""

    reads = 0

    def __getitem__(self, index):
        _CountedReads.reads += 1
        return super().__getitem__(index)


def test_a_parts_hand_out_reads_only_its_own_clusters() -> None:
    """Each location is a part of its own; handing a part its counts reads the loads of the
    clusters allotted to it, not of the whole fleet (10,000 clusters x 500 parts took 0.2 s)."""
    batch, _ = loaded(_locations_hub(locations=50, per_location=20, namespaces=60))
    problem = Problem(batch, batch.requests)
    problem.base = _CountedReads(problem.base)
    cls = problem.classes[0]
    allot = {(cls.index, row): 1 for row in cls.candidates[:3]}
    _CountedReads.reads = 0
    answer = hand_out(problem, [cls.index], allot, Placement(), seed=0)
    assert _CountedReads.reads <= len(allot)
    assert set(answer.existing.values()) <= {row for _, row in allot}
    assert len(answer.existing) == min(len(cls.requests), len(allot))


def test_kcp_is_solved_without_importing_cp_sat(tmp_path) -> None:
    """kcp's requests have no limit and no pool: the flow alone levels them, and the command does
    not pay CP-SAT's import (50 ms; 0.2 s with cp_model's pandas)."""
    hub = tmp_path / "hub.json"
    hub.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _locations_hub(4, 3, 20)}))
    probe = (
        "import sys; from adapters.cli.main import main; "
        f"sys.argv = ['placement-solver', 'solve', '-q', '-f', {str(hub)!r}, '-o', 'plan']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('ortools.sat.python.cp_model_helper' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "False"


# --------------------------------------------------------------------------- v0.8's rounds to rest

_SPACES = ("root:org:ads", "root:org:web", "root:org:db")


@st.composite
def _workspaces_hub(draw) -> list[dict]:
    """Placements and namespaces over three user workspaces and three Locations, some Bound on a
    Location that no longer matches (so that a second round rebinds them), some new."""
    objects: list[dict] = [
        *(location(name, labels={"region": name}, generation="v0.8") for name in ("east", "west", "north")),
        *(sync_target(f"t-{name}", name) for name in ("east", "west")),
    ]
    for space in _SPACES:
        objects.append(binding_v08(space))
        for i in range(draw(st.integers(0, 2))):
            bound = draw(st.booleans())
            objects.append(
                placement(
                    f"p{i}",
                    workspace=space,
                    locations=draw(st.sampled_from([({"matchLabels": {"region": "east"}},), ({},)])),
                    namespaces=draw(st.sampled_from([{}, {"matchLabels": {"team": "a"}}])),
                    phase="Bound" if bound else None,
                    selected=draw(st.sampled_from(["east", "west", "north"])) if bound else None,
                    created=i,
                )
            )
        for i in range(draw(st.integers(0, 3))):
            labels = draw(st.sampled_from([None, {"team": "a"}]))
            objects.append(namespace_v08(f"ns{i}", workspace=space, labels=labels))
    return objects


def _plan_facts(plan) -> list:
    placements = [
        (pp.placement.key, pp.phase, pp.selected, pp.conditions, pp.namespaces, pp.key)
        for pp in plan.placements
    ]
    namespaces = [
        (s.namespace.key, s.marked, [pp.placement.key for pp in s.placements]) for s in plan.namespaces
    ]
    return [placements, namespaces, [r.key for r in plan.requests]]


@given(_workspaces_hub())
def test_v08_rounds_redo_only_the_workspaces_the_last_round_changed(hub) -> None:
    """A round reads each workspace's placements and namespaces alone: redoing only those whose
    placements' status the last round changed gives what redoing every workspace gives."""
    _, context = loaded(hub)
    incremental = _plan_facts(plan_v08(context.world))
    by_workspace = v08_module._round
    try:
        v08_module._round = lambda world, owned, selection, current, last: by_workspace(
            world, owned, selection, current, None
        )
        assert _plan_facts(plan_v08(context.world)) == incremental
    finally:
        v08_module._round = by_workspace


@given(hubs_v05(), st.randoms(use_true_random=False))
def test_v05_satisfaction_judged_without_the_map_is_the_written_verdict(objects, rnd) -> None:
    """v0.5's emit judges the Namespaces outside a part satisfied or not (v05._satisfied) without
    making their placement map: the verdict _write gives with the map, for the solver's answer and
    for answers changed at random (a unit left without a cluster, a kept cluster moved)."""
    batch, context = kcp_load(from_objects(objects, "<test>"), now=NOW_TIME)
    assume(context.world.generation is Generation.V05)  # (without clusters or Locations: v0.8)
    results = {r.request: r for r in solve(batch, SolveOptions()).requests}
    for key, got in list(results.items()):
        change = rnd.choice(["as solved", "as solved", "unplaced", "moved"])
        if change == "unplaced":
            results[key] = RequestResult(key, (), satisfied=False)
        elif change == "moved" and got.selected:
            results[key] = RequestResult(key, (Choice(got.selected[0].cluster, kept=False),))
    now = "2026-11-24T03:00:00Z"
    for p in context.plan.namespaces:
        assert v05_module._satisfied(p, results) == v05_module._write(p, results, now)[1]


ENTRIES = ["ws/east/c0", "ws/west/c1"]


@st.composite
def namespace_plans(draw) -> tuple[v05_module.NamespacePlan, dict[str, RequestResult]]:
    """A scheduled namespace's plan of any shape (states, dropped entries, units of every kind) and
    an answer for each unit (none, a kept cluster, another)."""
    states = {key: draw(st.sampled_from(list(State))) for key in draw(st.lists(st.sampled_from(ENTRIES)))}
    removed = {key.rpartition("/")[2]: key for key in draw(st.lists(st.sampled_from(ENTRIES)))}
    dropped = draw(st.lists(st.sampled_from(ENTRIES)))
    kinds = [v05_module.KEPT, v05_module.RESCHEDULE, v05_module.NEW] + [v05_module.REVIVE] * bool(removed)
    units, results = [], {}
    for i in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(kinds))
        # (a revival's cluster is one just set Removing)
        cluster = draw(st.sampled_from(sorted(removed) if kind == v05_module.REVIVE else ["c0", "c1"]))
        key = f"ws/ns@l{i}"
        units.append(v05_module.Unit(draw(st.sampled_from(["east", "west"])), kind, key=key))
        answer = draw(st.sampled_from(["none", "kept", "new"]))
        selected = () if answer == "none" else (Choice(f"ws/{cluster}", kept=answer == "kept"),)
        results[key] = RequestResult(key, selected, satisfied=bool(selected))
    plan = v05_module.NamespacePlan(
        None,
        v05_module.SCHEDULED,
        Parsed(True, {}),
        "ws",
        states,
        removed,
        dropped,
        units,
        unplaced=draw(st.booleans()),
    )
    return plan, results


@settings(max_examples=300)  # (no solve: fast)
@given(namespace_plans())
def test_v05_satisfaction_judged_without_the_map_for_any_plan(planned) -> None:
    """The same verdict as the map _states makes for any plan, not only those the planner makes."""
    p, results = planned
    states, satisfied = v05_module._states(p, results)
    assert v05_module._satisfied(p, results) == (satisfied and bool(states))
