"""The v0.5 placement annotation: `scheduling.kcp.dev/placement` on a namespace, a JSON object
from `<locationWorkspace>+<locationName>+<clusterName>` to Pending, Bound, Removing or Unbound.

Read as upstream reads it, with Go's json.Unmarshal into its map[string]PlacementState
(kcp v0.5.0-alpha.1 pkg/apis/scheduling/v1alpha1/types_location.go):

- text that is not JSON, a JSON value that is neither an object nor null, or an entry whose value
  is neither a string nor null (any of its repetitions) fails to unmarshal: the annotation is
  `invalid` (upstream's scheduler then starts from an empty map, its status reconciler reports
  PlacementInvalid);
- JSON null unmarshals into a nil map (`null`), a null value into the empty state "";
- a key that upstream's ParsePlacementString splits into three parts (empty ones allowed) and
  whose state is one of the four is an entry; every other key is `malformed` (not three parts,
  or an unknown state): the scheduler drops it, but it is part of the map as read (its length,
  whether the map changed). A repeated key keeps its last value, as in Go.

Writing is Go's json.Marshal of a string map: compact, keys sorted, `<`, `>`, `&`, U+2028 and
U+2029 escaped as \\uXXXX.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.kcp.names import State
from adapters.kube.codec import decode_json, keeps_every_key

__all__ = ["Entry", "Parsed", "entry_key", "format_placement", "parse_placement"]

_STATES = {s.value: s for s in State}


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry's key, split (a part may be empty, as upstream splits it)."""

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
    """`states`: every key of the map as read, with its state, in the annotation's order;
    `entries`: those that are entries, split; `invalid`: why the text does not unmarshal ("" when
    it does); `null`: it is JSON null; `present`: the annotation exists."""

    present: bool
    states: dict[str, str] = field(default_factory=dict)
    entries: dict[str, tuple[Entry, State]] = field(default_factory=dict)
    invalid: str = ""
    null: bool = False
    text: str | None = field(default=None, compare=False)  # what was read (None: absent)

    @property
    def malformed(self) -> dict[str, str]:
        """The keys that are no entry, with their states as read."""
        return {key: state for key, state in self.states.items() if key not in self.entries}

    @property
    def as_read(self) -> dict[str, str] | None:
        """The map upstream's scheduler compares its result with: None (a nil map) when the
        annotation is absent or JSON null, empty when it does not unmarshal."""
        if not self.present or self.null:
            return None
        return dict(self.states)


class _Pairs(list):
    """A JSON object's members as read, every repetition of a key included."""


def parse_placement(text: str | None) -> Parsed:
    if text is None:
        return Parsed(present=False)
    # Strict JSON, quickly: where it reads a map of strings with no key repeated, json reads the same.
    quick = decode_json(text)
    if (
        type(quick) is dict
        and all(type(value) is str or value is None for value in quick.values())
        and keeps_every_key(text, quick)
    ):
        states = {key: value or "" for key, value in quick.items()}
    else:
        read = _states(text)
        if not isinstance(read, dict):
            return read
        states = read
    entries = {}
    for key, state in states.items():
        parts = key.split("+")
        if len(parts) == 3 and state in _STATES:
            entries[key] = (Entry(*parts), _STATES[state])
    return Parsed(True, states, entries, text=text)


def _states(text: str) -> dict[str, str] | Parsed:
    """The map as json reads it, every repetition of a key in its place; else what it is."""
    try:
        raw = json.loads(text, object_pairs_hook=_Pairs)
    except (json.JSONDecodeError, RecursionError) as err:
        return Parsed(present=True, invalid=f"invalid JSON: {getattr(err, 'msg', err)}", text=text)
    if raw is None:
        return Parsed(present=True, null=True, text=text)
    if not isinstance(raw, _Pairs):
        return Parsed(present=True, invalid="not a JSON object", text=text)
    states: dict[str, str] = {}
    for key, value in raw:
        if value is not None and not isinstance(value, str):
            return Parsed(present=True, invalid=f"the state of {key!r} is not a string", text=text)
        states[key] = value or ""
    return states


def format_placement(states: Mapping[str, State | str], malformed: Mapping[str, Any] | None = None) -> str:
    """The annotation's text for these states; `malformed` entries (the workload namespace
    controller keeps them) are written beside them unless a state of the same key replaces them."""
    merged: dict[str, Any] = {key: str(state) for key, state in states.items()}
    for key, value in (malformed or {}).items():
        merged.setdefault(key, value)
    text = json.dumps(merged, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text
