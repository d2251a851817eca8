"""Typed access to an object's fields, with errors that name the object and the field."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.errors import InputError
from adapters.kube.manifests import Manifest
from adapters.kube.validation import (
    annotations_problem,
    condition_reason_errors,
    condition_type_errors,
    finalizer_problem,
    judged_metadata,
    label_problem,
)

__all__ = [
    "INT32",
    "INT64",
    "Fields",
    "conditions_fine",
    "parse_time",
    "rfc3339",
    "time_text",
    "whole",
    "ZERO_TIME",
]

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
# The widths the APIs declare (an OpenAPI `format: int32` / `int64`, a Go int). The API server
# refuses a number past int64; past a custom resource's int32 it stores it, but the upstream
# controller, which decodes into a Go int32, cannot read the object: a loader refuses both.
INT32 = 2**31 - 1
INT64 = 2**63 - 1
_JSON_INTEGER = 2**53 - 1  # the largest integer a JSON number (a float64) holds exactly


def whole(value: Any) -> Any:
    """`value`, or the integer a float without a fraction stands for. The API server takes such a
    float where an integer belongs (kube-openapi's type validator, isFloatInt: up to 2**53 - 1)
    and stores it as that integer; another float it refuses there."""
    if type(value) is float and value.is_integer() and abs(value) <= _JSON_INTEGER:
        return int(value)
    return value


class Fields:
    """Checks field types of one manifest; every failure is an InputError naming kind/name and path."""

    # Made for every object read (tens of thousands on a large hub), so each check starts with the
    # exact type a parser gives and the object's name is spelt only when a check fails.
    __slots__ = ("_manifest",)

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest

    @property
    def where(self) -> str:
        """``Kind/name`` of the object, for messages."""
        return self._manifest.ref

    def fail(self, message: str, path: str) -> InputError:
        return InputError(message, where=self.where, field=path)

    def mapping(self, value: Any, path: str) -> Mapping[str, Any]:
        if type(value) is dict:
            return value
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(f"expected an object, got {_kind(value)}", path)
        return value

    def sequence(self, value: Any, path: str) -> list[Any]:
        if type(value) is list:
            return value
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(f"expected a list, got {_kind(value)}", path)
        return value

    def objects(self, value: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Each item of a list whose items are objects, with its path (`path[i]`). A null item is
        refused: the API server prunes a null field or map value, but refuses a null item where
        the schema's items are objects (not nullable)."""
        for i, item in enumerate(self.sequence(value, path)):
            where = f"{path}[{i}]"
            yield where, item if type(item) is dict else self.item(item, where)

    def item(self, value: Any, where: str) -> Mapping[str, Any]:
        """An item of a list whose items are objects (see objects), at `where`: for a loop that
        spells an item's path only where a message needs it."""
        if value is None:
            raise self.fail("expected an object, got null", where)
        return self.mapping(value, where)

    def string(self, value: Any, path: str) -> str:
        if type(value) is str:
            return value
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(f"expected a string, got {_kind(value)}", path)
        return value

    def integer(self, value: Any, path: str, *, minimum: int | None = None, maximum: int = INT64) -> int:
        """An integer within [minimum, maximum]; `maximum` is the field's declared width (INT32
        where the API says int32), `minimum` its own lower bound (else minus the width, minus one)."""
        if type(value) is not int:
            value = whole(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail(f"expected an integer, got {_kind(value)}", path)
        low = -maximum - 1 if minimum is None else minimum
        if not low <= value <= maximum:
            raise self.fail(f"must be between {low} and {maximum}, got {value}", path)
        return value

    def string_map(self, value: Any, path: str, *, pruned: bool = False) -> dict[str, str]:
        """A map of strings. A null value is "", as Go's encoding/json decodes it into a
        map[string]string: so the API server reads any object's metadata.labels and annotations
        (a custom resource's too: apiextensions-apiserver pkg/apiserver/schema/objectmeta/coerce.go,
        GetObjectMeta, decodes metadata into metav1.ObjectMeta through JSON), and an upstream
        controller its config file. `pruned`: a map in a custom resource's own schema, whose
        null value the API server prunes (the key is absent: PruneNonNullableNullsWithoutDefaults)."""
        if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
            return dict(value)
        out = {}
        for key, item in self.mapping(value, path).items():
            if item is None and pruned:
                continue
            out[str(key)] = self.string(item, f"{path}.{key}")
        return out

    def labels(self, value: Any, path: str) -> dict[str, str]:
        """An object's labels, refused as the API server refuses them (key and value rules)."""
        labels = self.string_map(value, path)
        for key, item in labels.items():
            if problem := label_problem(key, item):
                raise self.fail(problem, path)
        return labels

    def string_list(self, value: Any, path: str) -> list[str]:
        """A list of strings; a null item is refused (the API server prunes a null field, not a
        null item of a list)."""
        out = []
        for i, item in enumerate(self.sequence(value, path)):
            if item is None:
                raise self.fail("expected a string, got null", f"{path}[{i}]")
            out.append(self.string(item, f"{path}[{i}]"))
        return out

    def metadata(self, metadata: Mapping[str, Any]) -> dict[str, str]:
        """What apimachinery's ValidateObjectMeta refuses in any object's labels, annotations and
        finalizers (see labels, annotations, finalizers); the labels."""
        labels = metadata.get("labels")
        if judged_metadata(labels, metadata.get("annotations"), metadata.get("finalizers"), None):
            return {} if labels is None else dict(labels)  # the common case: each part judged before
        labels = self.labels(metadata.get("labels"), "metadata.labels")
        self.annotations(metadata.get("annotations"), "metadata.annotations")
        self.finalizers(metadata.get("finalizers"), "metadata.finalizers")
        return labels

    def annotations(self, value: Any, path: str) -> dict[str, str]:
        """An object's annotations, refused as the API server refuses them (ValidateAnnotations:
        qualified keys, case aside; 256 KiB in all)."""
        annotations = self.string_map(value, path)
        if problem := annotations_problem(annotations):
            raise self.fail(problem, path)
        return annotations

    def finalizers(self, value: Any, path: str) -> list[str]:
        """An object's finalizers, refused as the API server refuses them (qualified names)."""
        finalizers = self.string_list(value, path)
        for i, finalizer in enumerate(finalizers):
            if problem := finalizer_problem(finalizer):
                raise self.fail(problem, f"{path}[{i}]")
        return finalizers

    def conditions(self, value: Any, path: str) -> list[Mapping[str, Any]]:
        """A list of metav1.Condition, refused as the CRD schema controller-gen writes for it
        refuses one: type, status, lastTransitionTime, reason and message required; the type and
        reason patterns and lengths; status True, False or Unknown; a message of at most 32768
        characters; an RFC 3339 time; an observedGeneration not negative; no type twice (a list
        map keyed by type)."""
        items = self.sequence(value, path)
        seen: set[str] = set()
        for where, condition in self.objects(items, path):
            if not _fine_condition(condition):
                self._condition(condition, where)
            kind = condition["type"]
            if kind in seen:
                raise self.fail(f"duplicate condition type {kind!r}", f"{where}.type")
            seen.add(kind)
        return items

    def required(self, obj: Mapping[str, Any], path: str, keys: Iterable[str]) -> None:
        """The first of `keys` (in order) that `obj` lacks or holds null, refused as the CRD's
        required list refuses it."""
        for key in keys:
            if obj.get(key) is None:
                raise self.fail(f"{key} is required", f"{path}.{key}")

    def _condition(self, condition: Mapping[str, Any], where: str) -> None:
        self.required(condition, where, ("type", "status", "lastTransitionTime", "reason", "message"))
        kind = self.string(condition["type"], f"{where}.type")
        if errors := condition_type_errors(kind):
            raise self.fail(f"invalid condition type {kind!r}: {'; '.join(errors)}", f"{where}.type")
        status = self.string(condition["status"], f"{where}.status")
        if status not in _CONDITION_STATUSES:
            expected = "expected True, False or Unknown"
            raise self.fail(f"unsupported value {status!r}; {expected}", f"{where}.status")
        reason = self.string(condition["reason"], f"{where}.reason")
        if errors := condition_reason_errors(reason):
            raise self.fail(f"invalid reason {reason!r}: {'; '.join(errors)}", f"{where}.reason")
        message = self.string(condition["message"], f"{where}.message")
        if len(message) > _MAX_CONDITION_MESSAGE:
            raise self.fail(f"may not be longer than {_MAX_CONDITION_MESSAGE}", f"{where}.message")
        parse_time(self, condition["lastTransitionTime"], f"{where}.lastTransitionTime")
        if condition.get("observedGeneration") is not None:
            self.integer(condition["observedGeneration"], f"{where}.observedGeneration", minimum=0)


_CONDITION_STATUSES = frozenset({"True", "False", "Unknown"})
_MAX_CONDITION_MESSAGE = 32768
# (type, reason) pairs and times judged good: a fleet repeats a few of each thousands of times.
_GOOD_CONDITIONS: set[tuple[str, str]] = set()
_GOOD_TIMES: set[str] = set()
_GOOD_LIMIT = 1 << 16


def conditions_fine(value: Any) -> bool:
    """Whether Fields.conditions surely accepts `value`, cheaply (False: let it judge)."""
    if type(value) is not list:
        return False
    types = []  # a list: an object holds a few conditions
    for c in value:
        if type(c) is not dict or not _fine_condition(c) or c["type"] in types:
            return False
        types.append(c["type"])
    return True


def _fine_condition(c: Mapping[str, Any]) -> bool:
    """Whether the condition surely holds (every check of Fields._condition), cheaply; False
    sends it to those checks, which judge it and name what fails."""
    kind, reason, message = c.get("type"), c.get("reason"), c.get("message")
    when, generation = c.get("lastTransitionTime"), c.get("observedGeneration")
    if not (
        type(kind) is str
        and type(reason) is str
        and type(message) is str
        and type(when) is str
        and type(status := c.get("status")) is str
        and status in _CONDITION_STATUSES
        and len(message) <= _MAX_CONDITION_MESSAGE
        and (generation is None or (type(generation) is int and 0 <= generation <= INT64))
    ):
        return False
    if (kind, reason) not in _GOOD_CONDITIONS:
        if condition_type_errors(kind) or condition_reason_errors(reason):
            return False
        if len(_GOOD_CONDITIONS) < _GOOD_LIMIT:
            _GOOD_CONDITIONS.add((kind, reason))
    return when in _GOOD_TIMES or time_fine(when)


def time_fine(value: Any) -> bool:
    """Whether `value` is a time Kubernetes reads (:func:`rfc3339`), remembering the texts it has
    seen read (a hub repeats its heartbeat and transition times across thousands of objects)."""
    if type(value) is not str:
        return False
    if value not in _GOOD_TIMES:
        if rfc3339(value) is None:
            return False
        if len(_GOOD_TIMES) < _GOOD_LIMIT:
            _GOOD_TIMES.add(value)
    return True


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "an object" if isinstance(value, Mapping) else type(value).__name__
    )


def parse_time(f: Fields, value: Any, path: str) -> datetime:
    """An RFC 3339 time as Kubernetes reads one (:func:`rfc3339`); a missing one is the zero time."""
    if value is None:
        return ZERO_TIME
    if isinstance(value, datetime):  # a library caller's object may hold one already
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        raise f.fail(f"expected an RFC 3339 time, got {_kind(value)}", path)
    moment = rfc3339(value)
    if moment is None:
        raise f.fail(f"expected an RFC 3339 time, got {value!r}", path)
    return moment


# What Go's time.Parse(time.RFC3339, text) reads, which metav1.Time's JSON decoding calls: a
# four-digit year, two-digit month and day, "T", a one- or two-digit hour, two-digit minutes and
# seconds, a fraction after "." or "," (any number of digits), then "Z" or an offset "+hh:mm" /
# "-hh:mm"; nothing before or after. Not a date alone, a week date, a space, a lower-case "t" or
# "z", nor a time without an offset, which datetime.fromisoformat all takes.
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?"
    r"(?:(Z)|([+-])([0-9]{2}):([0-9]{2}))"
)
# The form controllers write (whole seconds, UTC) with its clock in range: datetime.fromisoformat
# reads it as the rules above do, in one call.
_PLAIN_UTC = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z")


def rfc3339(text: str) -> datetime | None:
    """The moment `text` names, in UTC, where Kubernetes (metav1.Time) reads it; None where it
    refuses it: a field out of range (month 13, 30 February, hour 24, second 60, an offset hour
    past 24 or minute past 60, as Go checks them) or a form other than the one above. Fractions
    are kept to the microsecond. Year 0, which Go reads, has no datetime: refused too."""
    if _PLAIN_UTC.fullmatch(text):  # what controllers write, in one call (its clock checked already)
        try:
            return datetime.fromisoformat(text)
        except ValueError:  # a month or day out of range, year 0
            return None
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match[i]) for i in range(1, 7))
    fraction, zulu, sign = match[7] or "", match[8], match[9]
    if hour > 23 or minute > 59 or second > 59:
        return None
    offset = timedelta(0)
    if zulu is None:
        offset_hours, offset_minutes = int(match[10]), int(match[11])
        if offset_hours > 24 or offset_minutes > 60:
            return None
        offset = timedelta(hours=offset_hours, minutes=offset_minutes) * (1 if sign == "+" else -1)
    try:
        moment = datetime(year, month, day, hour, minute, second, int(fraction[:6].ljust(6, "0")), tzinfo=UTC)
    except ValueError:  # a month or day out of range, year 0
        return None
    return moment - offset


def time_text(moment: datetime) -> str:
    """`moment` as Kubernetes writes a time (metav1.Time, Go's time.RFC3339 in UTC): whole
    seconds, Z, and a four-digit year, which ``strftime("%Y")`` does not give before the year 1000
    (it wrote `500-06-01T...`, a time no reader takes)."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"
