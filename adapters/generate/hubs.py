"""Every system's synthetic hubs, by name, as the registry lists their generators.

    from adapters.generate.hubs import generate, generate_yaml, generating
    objects = generate(name, clusters=10_000, placements=2_000, seed=0)   # name: one of generating()
    text = generate_yaml(name, 1_000, 200, now="2026-11-21T12:00:00Z")  # the same bytes per arguments

Each system's generator lives beside its adapter (``adapters/<system>/generate.py``, on the shared
layer of adapters.generate.common) and is its record's `generator` facet; the same arguments always
give the same objects, and times (heartbeats, transitions) are relative to ``now``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from adapters.contract import resolve
from adapters.generate.common import DEFAULT_NOW, parse_now
from adapters.kube.manifests import dump_yaml_stream
from adapters.registry import system, systems

__all__ = [
    "DEFAULT_NOW",
    "EARLIEST_NOW",
    "current_minute",
    "generate",
    "generate_config",
    "generate_yaml",
    "generating",
]

# The generators stamp times up to a year and a month before `now` (OCM's clusters joined up to a
# year before they last reported): from this moment on, none falls before the year 1.
EARLIEST_NOW = datetime(3, 1, 1, tzinfo=UTC)


def generating() -> tuple[str, ...]:
    """The systems that make synthetic hubs, in registry order."""
    return tuple(s.name for s in systems() if s.generator is not None)


def _record(name: str) -> Any:
    if name not in generating():
        raise ValueError(f"unknown system {name!r}; expected one of {', '.join(generating())}")
    return system(name)


def generate(
    name: str,
    clusters: int,
    placements: int,
    seed: int = 0,
    now: str | datetime = DEFAULT_NOW,
    *,
    generation: str | None = None,
) -> list[dict[str, Any]]:
    """The upstream objects of a synthetic hub of system `name` with `clusters` clusters and
    `placements` placements, in the API `generation` given (default: the system's first), for a
    system that has several."""
    generations = system(name).generations if name in generating() else ()
    if generation is not None and generation not in generations:
        several = f"one of {', '.join(generations)}" if generations else "none: it has one API generation"
        raise ValueError(f"the {name} system generates no API generation {generation!r}; expected {several}")
    options = {"generation": generation or generations[0]} if generations else {}
    make = resolve(_record(name).generator)
    return make(clusters, placements, seed=seed, now=parse_now(now), **options)


def generate_yaml(
    name: str,
    clusters: int,
    placements: int,
    seed: int = 0,
    now: str | datetime = DEFAULT_NOW,
    *,
    generation: str | None = None,
) -> str:
    """:func:`generate` as a YAML stream (every document starts with ``---``)."""
    objects = generate(name, clusters, placements, seed=seed, now=now, generation=generation)
    return dump_yaml_stream(objects)


def generate_config(name: str, clusters: int, placements: int, *, seed: int = 0) -> dict[str, Any] | None:
    """The scheduler config a hub of system `name` is made for; None for a system that reads none."""
    reference = _record(name).generator_config
    return None if reference is None else resolve(reference)(clusters, placements, seed=seed)


def current_minute() -> datetime:
    """The wall clock rounded down to the minute: the command line's default ``now``, so that a hub
    generated and then solved at once is judged healthy, and one minute's runs give the same bytes."""
    return datetime.now(UTC).replace(second=0, microsecond=0)
