"""The v0.5 placement annotation: `scheduling.kcp.dev/placement` on a namespace, a JSON object
from `<locationWorkspace>+<locationName>+<clusterName>` to Pending, Bound, Removing or Unbound.

Reading never fails: text that is not a JSON object makes the whole annotation invalid (upstream's
PlacementInvalid), and an entry with a malformed key (not three non-empty parts joined by `+`), an
unknown state or a value that is not a string is kept aside, verbatim, with what is wrong with it,
while the namespace's other entries are read as usual. Writing is Go's json.Marshal of a string
map: compact, keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped as \\uXXXX; the entries kept
aside are written back as they were, unless a written entry has the same key (a new placement on
the cluster of an entry with an unknown state): that entry replaces it, as it does upstream.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.kcp.names import State

__all__ = ["Entry", "Parsed", "entry_key", "format_placement", "parse_placement"]

_STATES = {s.value: s for s in State}


@dataclass(frozen=True, slots=True)
class Entry:
    """One well-formed entry's key, split."""

    workspace: str
    location: str
    cluster: str

    @property
    def key(self) -> str:
        return entry_key(self.workspace, self.location, self.cluster)

    @property
    def location_key(self) -> str:
        """`<workspace>+<location>`."""
        return f"{self.workspace}+{self.location}"


def entry_key(workspace: str, location: str, cluster: str) -> str:
    return f"{workspace}+{location}+{cluster}"


@dataclass(frozen=True, slots=True)
class Parsed:
    """`entries`: the well-formed entries in the annotation's order; `malformed`: the others by key,
    their raw JSON values, and `problems` saying what is wrong with each, by key; `invalid`: why the
    whole text is unusable ("" when it is a JSON object). `present`: the annotation exists."""

    present: bool
    entries: dict[str, tuple[Entry, State]] = field(default_factory=dict)
    malformed: dict[str, Any] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    invalid: str = ""

    def described(self, superseded: Collection[str] = ()) -> list[str]:
        """What is wrong with each malformed entry, in words, but those whose keys are
        `superseded` (replaced by a written entry of the same key)."""
        return [f"{key!r}: {problem}" for key, problem in self.problems.items() if key not in superseded]


def parse_placement(text: str | None) -> Parsed:
    if text is None:
        return Parsed(present=False)
    try:
        raw = json.loads(text, object_pairs_hook=_last_wins)
    except (json.JSONDecodeError, RecursionError) as err:
        return Parsed(present=True, invalid=f"invalid JSON: {getattr(err, 'msg', err)}")
    if raw is None:  # Go unmarshals JSON null into a nil map
        return Parsed(present=True)
    if not isinstance(raw, dict):
        return Parsed(present=True, invalid="not a JSON object")
    entries: dict[str, tuple[Entry, State]] = {}
    malformed: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key, value in raw.items():
        parts = key.split("+")
        problem = ""
        if len(parts) != 3 or not all(parts):
            problem = "not <locationWorkspace>+<locationName>+<cluster>"
        elif not isinstance(value, str):
            problem = f"state {json.dumps(value)} is not a string"
        elif value not in _STATES:
            problem = f"unknown state {value!r}"
        if problem:
            malformed[key] = value
            problems[key] = problem
            continue
        entries[key] = (Entry(*parts), _STATES[value])
    return Parsed(True, entries, malformed, problems)


def _last_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(pairs)  # as Go's decoder: a repeated key keeps its last value


def format_placement(states: Mapping[str, State | str], malformed: Mapping[str, Any] | None = None) -> str:
    merged: dict[str, Any] = {key: str(state) for key, state in states.items()}
    for key, value in (malformed or {}).items():
        merged.setdefault(key, value)  # an entry of the same key supersedes it
    text = json.dumps(merged, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text
