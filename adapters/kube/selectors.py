"""Kubernetes label selectors (metav1.LabelSelector; OCM's claim selectors too) ->
model.LabelSelector, checked as Kubernetes checks them. Every system's adapter reads its selectors
here.

Two kinds of failure: what the CRD schema rejects (a missing key or operator, a non-string value)
is an InputError; what only Kubernetes' `LabelSelectorAsSelector` rejects at scheduling time (an
unknown operator, a value list of the wrong length, an invalid key or value) is a SelectorError
carrying upstream's message, which the caller reports as its system does (OCM: a Misconfigured
status; openMCP: a config error).
"""

from __future__ import annotations

from typing import Any

from adapters.kube.fields import Fields
from adapters.kube.validation import label_value_errors, qualified_name_errors
from model import LabelOperator, LabelRequirement, LabelSelector

__all__ = ["SelectorError", "label_selector"]

_IN_EMPTY = "for 'in', 'notin' operators, values set can't be empty"
_EXISTS_VALUES = "values set must be empty for exists and does not exist"


class SelectorError(ValueError):
    """A selector upstream cannot build; the message is upstream's error text, `field` the path
    of the part it refused (for callers that report bad input by field)."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def _go_strings(values: list[str]) -> str:
    """Go's %#v of a []string (what Kubernetes prints for an invalid value list)."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


def _go_quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _requirement_errors(key: str, operator: LabelOperator, values: list[str]) -> list[str]:
    """Kubernetes' NewRequirement checks, as field errors of an empty path."""
    errors = []
    if key_errors := qualified_name_errors(key):
        errors.append(f"key: Invalid value: {_go_quote(key)}: {'; '.join(key_errors)}")
    if operator in (LabelOperator.IN, LabelOperator.NOT_IN) and not values:
        errors.append(f"values: Invalid value: {_go_strings(values)}: {_IN_EMPTY}")
    if operator in (LabelOperator.EXISTS, LabelOperator.DOES_NOT_EXIST) and values:
        errors.append(f"values: Invalid value: {_go_strings(values)}: {_EXISTS_VALUES}")
    for i, value in enumerate(values):
        if value_errors := label_value_errors(value):
            errors.append(f"values[{i}][{key}]: Invalid value: {_go_quote(value)}: {'; '.join(value_errors)}")
    return errors


def _aggregate(errors: list[str]) -> str:
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def label_selector(
    f: Fields, raw: Any, path: str, *, labels: bool = True, pruned: bool = True
) -> LabelSelector | None:
    """The selector at `path`; None when it matches every cluster (absent or empty).
    `labels=False` reads a claim selector: matchExpressions only. A null matchLabels value is
    pruned, as the API server stores a custom resource (Fields.string_map); `pruned=False` reads
    one as Go's encoding/json decodes a config file, "".

    Raises SelectorError for what upstream cannot build at scheduling time."""
    if raw is None:
        return None
    raw = f.mapping(raw, path)
    match = f.string_map(raw.get("matchLabels"), f"{path}.matchLabels", pruned=pruned) if labels else {}
    expressions = []
    for where, item in f.objects(raw.get("matchExpressions"), f"{path}.matchExpressions"):
        f.required(item, where, ("key", "operator"))
        expressions.append(
            (
                f.string(item["key"], f"{where}.key"),
                f.string(item["operator"], f"{where}.operator"),
                f.string_list(item.get("values"), f"{where}.values"),
            )
        )
    requirements = []
    for key, value in sorted(match.items()):
        errors = _requirement_errors(key, LabelOperator.IN, [value])
        if errors:
            raise SelectorError(_aggregate(errors), f"{path}.matchLabels")
    for i, (key, name, values) in enumerate(expressions):
        where = f"{path}.matchExpressions[{i}]"
        try:
            operator = LabelOperator(name)
        except ValueError:
            message = f"{_go_quote(name)} is not a valid label selector operator"
            raise SelectorError(message, f"{where}.operator") from None
        errors = _requirement_errors(key, operator, values)
        if errors:
            raise SelectorError(_aggregate(errors), where)
        requirements.append(LabelRequirement(key, operator, tuple(values)))
    if not match and not requirements:
        return None
    return LabelSelector(tuple(sorted(match.items())), tuple(requirements))
