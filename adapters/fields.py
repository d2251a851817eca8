"""Typed access to an object's fields, with errors that name the object and the field."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from adapters.errors import InputError
from adapters.manifests import Manifest
from adapters.validation import label_problem

__all__ = ["INT32", "INT64", "Fields", "parse_time", "ZERO_TIME"]

ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
# The widths the APIs declare (an OpenAPI `format: int32` / `int64`, a Go int): the API server
# refuses a number outside them, so a loader does too.
INT32 = 2**31 - 1
INT64 = 2**63 - 1


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

    def integer(
        self, value: Any, path: str, *, minimum: int | None = None, maximum: int = INT64
    ) -> int:
        """An integer within [minimum, maximum]; `maximum` is the field's declared width (INT32
        where the API says int32), `minimum` its own lower bound (else minus the width, minus one)."""
        if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
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

    def string_list(self, value: Any, path: str) -> list[str]:
        return [self.string(v, f"{path}[{i}]") for i, v in enumerate(self.sequence(value, path))]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "an object" if isinstance(value, Mapping) else type(value).__name__
    )


def parse_time(f: Fields, value: Any, path: str) -> datetime:
    """An RFC 3339 time; a missing one is the zero time."""
    if value is None or value == "":
        return ZERO_TIME
    if isinstance(value, datetime):  # YAML may have parsed it already
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        raise f.fail(f"expected an RFC 3339 time, got {_kind(value)}", path)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise f.fail(f"expected an RFC 3339 time, got {value!r}", path) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
