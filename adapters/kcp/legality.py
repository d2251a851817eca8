"""Which v0.5 placement-state transitions each actor may make: an independent check of the state
machine (the kcp seed's diagram, semantics part 2.3), solver-free and separate from the code that
makes the transitions.

    problems = illegal_transitions(before, after, actor="scheduler")   # [] when every step is legal

`before` and `after` are the `scheduling.kcp.dev/placement` annotations of one namespace (raw text
or None). An entry is identified by its key `<ws>+<location>+<cluster>`; "-" stands for no entry.
"""

from __future__ import annotations

from adapters.kcp.annotation import parse_placement
from adapters.kcp.names import State

__all__ = ["ALLOWED", "illegal_transitions"]

_NONE = "-"
P, B, R, U = State.PENDING.value, State.BOUND.value, State.REMOVING.value, State.UNBOUND.value

# actor -> the (from, to) steps it may take on one entry; staying as it is is always allowed.
ALLOWED: dict[str, frozenset[tuple[str, str]]] = {
    # The namespace scheduler: places (Pending), gives up (Pending dropped; Bound to Removing, or
    # dropped when the cluster is gone), garbage-collects (Removing or Unbound dropped; an Unbound
    # entry collected may be placed again, Pending, in the same pass) and revives (a cluster it was
    # leaving, Bound again: the Removing entry dropped, a Bound one added).
    "scheduler": frozenset(
        {(_NONE, P), (P, _NONE), (B, R), (B, _NONE), (R, _NONE), (U, _NONE), (U, P), (_NONE, B), (R, B)}
    ),
    # The workload namespace controller: adopts (Pending to Bound, once the syncer took it) and
    # completes a removal (Removing to Unbound, once the state label is gone).
    "namespace-controller": frozenset({(P, B), (R, U)}),
}


def illegal_transitions(before: str | None, after: str | None, *, actor: str) -> list[str]:
    """Every entry step from `before` to `after` that `actor` may not take, in words."""
    old, new = parse_placement(before), parse_placement(after)
    if old.invalid or new.invalid:
        return []  # an unreadable annotation is reported, never rewritten
    was = {key: state.value for key, (_, state) in old.entries.items()}
    now = {key: state.value for key, (_, state) in new.entries.items()}
    allowed = ALLOWED[actor]
    problems = []
    for key in sorted(was.keys() | now.keys()):
        step = (was.get(key, _NONE), now.get(key, _NONE))
        if step[0] != step[1] and step not in allowed:
            problems.append(f"{actor}: {key}: {step[0]} -> {step[1]}")
    if actor == "scheduler":
        # Bound from nothing only as a revival: the same cluster held an entry it was leaving
        # (Removing, or Bound and set Removing in the same pass).
        for key in sorted(now.keys() - was.keys()):
            if now[key] != B:
                continue
            cluster = new.entries[key][0].cluster
            if not any(state in (B, R) and old.entries[k][0].cluster == cluster for k, state in was.items()):
                problems.append(f"{actor}: {key}: - -> {B} without an entry of that cluster to revive")
    return problems
