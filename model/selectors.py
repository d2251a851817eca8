"""Label selectors, property requirements, taints and tolerations: the matching rules, in pure Python.

These are the reference semantics. The solver's vectorised filters must agree with them, and the
independent checker uses them directly.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum

from model.frozen import frozen
from model.quantity import Quantity

__all__ = [
    "LabelOperator",
    "LabelRequirement",
    "LabelSelector",
    "PropertyOperator",
    "PropertyRequirement",
    "ClusterTerm",
    "Taint",
    "Toleration",
    "TolerationOperator",
    "first_untolerated",
]


class LabelOperator(StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"


@frozen
class LabelRequirement:
    key: str
    operator: LabelOperator
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # `matches` tells operators apart by identity, and equal requirements must match alike
        # (the live checks share one verdict between equal ones): an operator given as its
        # string ("In") is kept as its member, an unknown one refused.
        if self.operator.__class__ is not LabelOperator:
            object.__setattr__(self, "operator", LabelOperator(self.operator))

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.operator is LabelOperator.IN:
            return labels.get(self.key) in self.values
        if self.operator is LabelOperator.NOT_IN:
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator is LabelOperator.EXISTS:
            return self.key in labels
        return self.key not in labels


@frozen
class LabelSelector:
    """matchLabels and matchExpressions, ANDed. The empty selector matches every cluster."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        # Plain loops, not all() over generators: the live checks ask this thousands of times an
        # event, most selectors one or two conditions long (the same conditions in the same order).
        if self.match_labels:
            get = labels.get
            for k, v in self.match_labels:
                if get(k) != v:
                    return False
        for r in self.match_expressions:  # noqa: SIM110 (a plain loop: see above)
            if not r.matches(labels):
                return False
        return True

    def requirements(self) -> tuple[LabelRequirement, ...]:
        """Every condition as a requirement (matchLabels become In with one value)."""
        return tuple(LabelRequirement(k, LabelOperator.IN, (v,)) for k, v in self.match_labels) + tuple(
            self.match_expressions
        )


class PropertyOperator(StrEnum):
    GT = "Gt"
    GE = "Ge"
    EQ = "Eq"
    NE = "Ne"
    LT = "Lt"
    LE = "Le"


_COMPARE = {
    PropertyOperator.GT: operator.gt,
    PropertyOperator.GE: operator.ge,
    PropertyOperator.EQ: operator.eq,
    PropertyOperator.NE: operator.ne,
    PropertyOperator.LT: operator.lt,
    PropertyOperator.LE: operator.le,
}


@frozen
class PropertyRequirement:
    """`property <op> value`. A cluster without the property never matches, whatever the operator."""

    name: str
    operator: PropertyOperator
    value: Quantity

    def matches(self, properties: Mapping[str, Quantity]) -> bool:
        actual = properties.get(self.name)
        if actual is None:
            return False
        return _COMPARE[self.operator](actual.nanos, self.value.nanos)


@frozen
class ClusterTerm:
    """A label selector AND property requirements AND a claim selector AND named traits.
    A missing selector matches every cluster.

    Claims are facts a cluster reports about itself (a second string map beside its labels);
    traits are named predicates an adapter has already decided per cluster (for example an
    expression language the solver does not speak): every listed trait must be present.
    """

    labels: LabelSelector | None = None
    properties: tuple[PropertyRequirement, ...] = ()
    claims: LabelSelector | None = None
    traits: tuple[str, ...] = ()

    def matches(
        self,
        labels: Mapping[str, str],
        properties: Mapping[str, Quantity],
        claims: Mapping[str, str] | None = None,
        traits: frozenset[str] = frozenset(),
    ) -> bool:
        # Each part in turn as before, in plain loops (`LabelSelector.matches`).
        if self.labels is not None and not self.labels.matches(labels):
            return False
        for p in self.properties:
            if not p.matches(properties):
                return False
        if self.claims is not None and not self.claims.matches(claims or {}):
            return False
        for t in self.traits:  # noqa: SIM110 (a plain loop: see `LabelSelector.matches`)
            if t not in traits:
                return False
        return True


@frozen
class Taint:
    """`added` is when the taint appeared (None: unknown, long ago); a `new_only` taint keeps out
    only requests that do not already hold the cluster."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"
    added: datetime | None = None
    new_only: bool = False


class TolerationOperator(StrEnum):
    EQUAL = "Equal"
    EXISTS = "Exists"


_MICROSECOND = timedelta(microseconds=1)


@frozen
class Toleration:
    """`seconds`: the toleration holds only while now < taint.added + seconds (None: forever; a
    taint added at an unknown time has then long expired)."""

    key: str = ""
    operator: TolerationOperator = TolerationOperator.EQUAL
    value: str = ""
    effect: str = ""
    seconds: int | None = None

    def __post_init__(self) -> None:
        if self.operator.__class__ is not TolerationOperator:  # as LabelRequirement's: by identity
            object.__setattr__(self, "operator", TolerationOperator(self.operator))

    def tolerates(self, taint: Taint, now: datetime | None = None) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.operator is TolerationOperator.EXISTS:
            if self.key and self.key != taint.key:
                return False
        elif self.key != taint.key or self.value != taint.value:
            return False
        if self.seconds is None:
            return True
        if taint.added is None or now is None:
            return False
        # now < added + seconds, in whole microseconds: exact, and no time out of datetime's range
        # (a taint added in year 9999, seconds past timedelta's 10**9 days)
        return (now - taint.added) // _MICROSECOND < self.seconds * 1_000_000


def first_untolerated(
    taints: tuple[Taint, ...],
    tolerations: tuple[Toleration, ...],
    now: datetime | None = None,
    held: bool = False,
) -> Taint | None:
    """The first taint no toleration tolerates, or None when all are tolerated. `held`: the
    request already holds the cluster, so `new_only` taints do not apply."""
    for taint in taints:
        if held and taint.new_only:
            continue
        for t in tolerations:  # a plain loop, as `LabelSelector.matches`
            if t.tolerates(taint, now):
                break
        else:
            return taint
    return None
