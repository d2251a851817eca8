"""Typed access to an object's fields, with errors that name the object and the field."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.errors import InputError
from adapters.kube.manifests import Manifest
from adapters.kube.validation import annotation_problem, finalizer_problem, label_problem

__all__ = ["INT32", "INT64", "Fields", "parse_time", "rfc3339", "whole", "ZERO_TIME"]

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
# The widths the APIs declare (an OpenAPI `format: int32` / `int64`, a Go int): the API server
# refuses a number outside them, so a loader does too.
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

    def string_map(self, value: Any, path: str) -> dict[str, str]:
        if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
            return dict(value)
        out = {}
        for key, item in self.mapping(value, path).items():
            out[str(key)] = self.string(item, f"{path}.{key}")
        return out

    def labels(self, value: Any, path: str) -> dict[str, str]:
        """An object's labels, refused as the API server refuses them (key and value rules)."""
        labels = self.string_map(value, path)
        for key, item in labels.items():
            if problem := label_problem(key, item):
                raise self.fail(problem, path)
        return labels

    def annotations(self, value: Any, path: str) -> dict[str, str]:
        """An object's annotations, their keys refused as the API server refuses them."""
        annotations = self.string_map(value, path)
        for key in annotations:
            if problem := annotation_problem(key):
                raise self.fail(problem, path)
        return annotations

    def finalizers(self, value: Any, path: str) -> list[str]:
        """An object's finalizers, each refused as the API server refuses it."""
        finalizers = self.string_list(value, path)
        for i, name in enumerate(finalizers):
            if problem := finalizer_problem(name):
                raise self.fail(problem, f"{path}[{i}]")
        return finalizers

    def string_list(self, value: Any, path: str) -> list[str]:
        """A list of strings; a null item is refused (the API server prunes a null field, not a
        null item of a list)."""
        out = []
        for i, item in enumerate(self.sequence(value, path)):
            if item is None:
                raise self.fail("expected a string, got null", f"{path}[{i}]")
            out.append(self.string(item, f"{path}[{i}]"))
        return out


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


def rfc3339(text: str) -> datetime | None:
    """The moment `text` names, in UTC, where Kubernetes (metav1.Time) reads it; None where it
    refuses it: a field out of range (month 13, 30 February, hour 24, second 60, an offset hour
    past 24 or minute past 60, as Go checks them) or a form other than the one above. Fractions
    are kept to the microsecond. Year 0, which Go reads, has no datetime: refused too."""
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
