"""Why a placement is unsatisfied, in one line, for people (the table under `solve -o table` and
`demo`), system-neutral: upstream's own words where its controller writes them, the solver's
where it writes none.

1. The first condition with status False on the placement's written object, or on an object it
   owns (Fleet's policy snapshot, OCM's decisions): `Scheduled False, SchedulingPolicyUnfulfilled:
   could not find all clusters needed ...`, `Ready False, LocationNoMatch: ...`.
2. For a placement the solver answered with no cluster: what kept each cluster out, counted
   (`no cluster chosen: 1 cluster ineligible (not Ready)`), from solver.explain.
3. The written object's `status.phase` (`phase Pending`).

A placement is found by its key, `[scope/]name`, the scope being its namespace or its logical
workspace (adapters.run.changes.object_key).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.cli.words import counted
from adapters.run.changes import object_key
from adapters.run.pipeline import SystemOutcome
from solver.explain import ClusterExplanation, Verdict, explain

__all__ = ["Reasons"]

# Past this many distinct reasons a cluster was left out, the rest are counted together.
_REASONS_SHOWN = 3


class Reasons:
    """The reasons of the placements of one run, its written objects indexed once."""

    def __init__(self, written: Sequence[Mapping[str, Any]]) -> None:
        self._own: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        self._owned: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for obj in written:
            _, _, workspace, namespace, name = object_key(obj)
            scope = workspace or namespace
            self._own.setdefault((scope, name), []).append(obj)
            for owner in (obj.get("metadata") or {}).get("ownerReferences") or ():
                if isinstance(owner, Mapping) and isinstance(owner.get("name"), str):
                    self._owned.setdefault((scope, owner["name"]), []).append(obj)

    def why(self, part: SystemOutcome, key: str) -> str:
        """Why placement `key` of `part` is unsatisfied."""
        scope, _, name = key.rpartition("/")
        objects = [*self._own.get((scope, name), ()), *self._owned.get((scope, name), ())]
        for obj in objects:
            for condition in _conditions(obj):
                if condition.get("status") == "False":
                    return _condition_words(condition)
        got = part.result.by_request().get(key)
        if got is not None and not got.selected:
            return _unchosen(explain(part.batch, part.result, key).clusters)
        for obj in objects:
            phase = _status(obj).get("phase")
            if isinstance(phase, str) and phase:
                return f"phase {phase}"
        return "no reason written"


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, Mapping) else {}


def _conditions(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    conditions = _status(obj).get("conditions")
    return [c for c in conditions if isinstance(c, Mapping)] if isinstance(conditions, list) else []


def _condition_words(condition: Mapping[str, Any]) -> str:
    """As `explain` shows a condition: `Type False, Reason: message`."""
    words = f"{condition.get('type', '')} False"
    if condition.get("reason"):
        words += f", {condition['reason']}"
    if condition.get("message"):
        words += f": {condition['message']}"
    return words


def _unchosen(clusters: Sequence[ClusterExplanation]) -> str:
    """What kept every cluster out, each reason counted, in the clusters' order."""
    if not clusters:
        return "no cluster chosen: there is no cluster"
    reasons = Counter(_left_out(c) for c in clusters)
    shown = [f"{counted(n, 'cluster')} {why}" for why, n in list(reasons.items())[:_REASONS_SHOWN]]
    rest = sum(list(reasons.values())[_REASONS_SHOWN:])
    if rest:
        shown.append(f"{counted(rest, 'cluster')} for other reasons")
    return "no cluster chosen: " + ", ".join(shown)


def _left_out(c: ClusterExplanation) -> str:
    if c.verdict is Verdict.FILTERED and c.filters:
        first = c.filters[0].value
        return f"{first} ({c.detail})" if c.detail else first
    return c.verdict.value.replace("-", " ")
