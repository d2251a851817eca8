"""A sweep a user can write down: which systems, sizes, seeds, modes and events to measure.

    # sweep.yaml (`placement-solver bench --plan sweep.yaml`; every field optional)
    systems: [fleet, ocm, openmcp, kcp, karmada]   # default: every system the suite drives
    sizes: [100x100, 1000x1000]                    # CLUSTERSxPLACEMENTS; default: the 3x3 grid
    seeds: [0, 1, 2]                               # each fixes a hub and its events; default: [0]
    modes: [greedy, optimal]                       # default: both
    events: all                                    # the churn experiment: all, none, or a list
    time-limit: 60                                 # wall seconds of each solve

A sweep's cases are every system x size x seed x mode, in that order. Bad input is an InputError
naming the file and the field (the command exits 2 with that one line), as for any input.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from adapters.errors import InputError
from bench.case import Case
from bench.suite import DEFAULT_SIZES, DEFAULT_TIME_LIMIT, PROFILES, parse_sizes
from solver import MODES

__all__ = ["EVENT_NAMES", "SweepSpec", "read_plan"]

# Every event some system's churn experiment knows, in the suite's order.
EVENT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(e for p in PROFILES.values() for e in p.events))
_FIELDS = ("systems", "sizes", "seeds", "modes", "events", "time-limit")


@dataclass(frozen=True, slots=True)
class SweepSpec:
    """A sweep: every (system, size, seed, mode), each case followed by its churn experiment
    (`events`: True for every event of the system, False for none, or the names to run).
    Refuses what it cannot run with an InputError naming the field."""

    systems: tuple[str, ...] = field(default_factory=lambda: tuple(sorted(PROFILES)))
    sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES
    seeds: tuple[int, ...] = (0,)
    modes: tuple[str, ...] = ("greedy", "optimal")
    events: bool | tuple[str, ...] = True
    time_limit: float = DEFAULT_TIME_LIMIT

    def __post_init__(self) -> None:
        _one_of(self.systems, sorted(PROFILES), "systems")
        _one_of(self.modes, MODES, "modes")
        if self.events not in (True, False):
            _one_of(self.events, EVENT_NAMES, "events")
        if not self.sizes:
            raise InputError("empty list", field="sizes")
        if any(c < 1 or p < 1 for c, p in self.sizes):
            raise InputError(f"sizes must be positive: {self.sizes}", field="sizes")
        if not self.seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in self.seeds):
            raise InputError(f"not a list of non-negative integers: {list(self.seeds)}", field="seeds")
        if not _positive_seconds(self.time_limit):
            raise InputError(f"not a positive number of seconds: {self.time_limit!r}", field="time-limit")

    def cases(self) -> list[Case]:
        """Every case, system by system, then size, seed and mode."""
        return [
            Case(system, clusters, placements, mode, seed, self.time_limit, self.events)
            for system in self.systems
            for clusters, placements in self.sizes
            for seed in self.seeds
            for mode in self.modes
        ]

    def text(self) -> str:
        """The plan as YAML, as `read_plan` reads it back."""
        events: Any = (
            list(self.events) if isinstance(self.events, tuple) else "all" if self.events else "none"
        )
        plan = {
            "systems": list(self.systems),
            "sizes": [f"{c}x{p}" for c, p in self.sizes],
            "seeds": list(self.seeds),
            "modes": list(self.modes),
            "events": events,
            "time-limit": self.time_limit,
        }
        return yaml.safe_dump(plan, sort_keys=False, default_flow_style=None)

    @classmethod
    def of(cls, plan: Mapping[str, Any]) -> SweepSpec:
        """A plan as read from YAML (the fields above, each optional)."""
        if not isinstance(plan, Mapping):
            raise InputError(f"a plan is a mapping of {', '.join(_FIELDS)}; got {type(plan).__name__}")
        for key in plan:
            if key not in _FIELDS:
                raise InputError(f"unknown field; expected one of {', '.join(_FIELDS)}", field=str(key))
        given: dict[str, Any] = {}
        if "systems" in plan:
            given["systems"] = _strings(plan["systems"], "systems")
        if "sizes" in plan:
            sizes = (_size(item, f"sizes[{i}]") for i, item in enumerate(_list(plan, "sizes")))
            given["sizes"] = tuple(dict.fromkeys(sizes))
        if "seeds" in plan:
            seeds = (_seed(item, f"seeds[{i}]") for i, item in enumerate(_list(plan, "seeds")))
            given["seeds"] = tuple(dict.fromkeys(seeds))
        if "modes" in plan:
            given["modes"] = _strings(plan["modes"], "modes")
        if "events" in plan:
            given["events"] = _events(plan["events"])
        if "time-limit" in plan:
            limit = plan["time-limit"]
            if isinstance(limit, bool) or not isinstance(limit, int | float):
                raise InputError(f"not a positive number of seconds: {limit!r}", field="time-limit")
            given["time_limit"] = float(limit)
        return cls(**given)


def read_plan(path: str | os.PathLike[str]) -> SweepSpec:
    """The sweep a plan file describes; InputError naming the file (and the field) otherwise."""
    where = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as handle:
            plan = yaml.safe_load(handle)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", where=where) from None
    except yaml.YAMLError as err:
        raise InputError(f"not YAML: {str(err).splitlines()[0]}", where=where) from None
    try:
        return SweepSpec.of({} if plan is None else plan)
    except InputError as err:
        raise InputError(str(err), where=where) from None


def _positive_seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf


def _one_of(items: Iterable[str], allowed: Iterable[str], name: str) -> None:
    allowed = list(allowed)
    items = list(items)
    if not items:
        raise InputError("empty list", field=name)
    for item in items:
        if item not in allowed:
            raise InputError(f"unknown {item!r}; expected one of {', '.join(allowed)}", field=name)


def _list(plan: Mapping[str, Any], name: str) -> list[Any]:
    value = plan[name]
    if not isinstance(value, list):
        raise InputError(f"not a list: {value!r}", field=name)
    return value


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"not a list of names: {value!r}", field=name)
    return tuple(dict.fromkeys(value))


def _size(item: Any, name: str) -> tuple[int, int]:
    if not isinstance(item, str) or "," in item:
        raise InputError(f"not a size CLUSTERSxPLACEMENTS: {item!r}", field=name)
    try:
        ((clusters, placements),) = parse_sizes(item)
    except ValueError as err:
        raise InputError(str(err), field=name) from None
    return clusters, placements


def _seed(item: Any, name: str) -> int:
    if isinstance(item, bool) or not isinstance(item, int) or item < 0:
        raise InputError(f"not a non-negative integer: {item!r}", field=name)
    return item


def _events(value: Any) -> bool | tuple[str, ...]:
    if value is True or value == "all":
        return True
    if value is False or value == "none":
        return False
    return _strings(value, "events")
