"""Kubernetes' own rules for names and labels (apimachinery's IsQualifiedName and
IsValidLabelValue), with its messages: what the API server refuses in any object's labels and
what a label selector refuses at scheduling time."""

from __future__ import annotations

import re

__all__ = ["label_problem", "label_value_errors", "qualified_name_errors", "subdomain_errors"]

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

_NAME_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
_QUALIFIED_MESSAGE = (
    "a qualified name " + _NAME_MESSAGE + " with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)


def qualified_name_errors(key: str) -> list[str]:
    """Kubernetes' IsQualifiedName, its messages in its order."""
    parts = key.split("/")
    if len(parts) == 1:
        name, prefix = parts[0], None
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
    else:
        return [_QUALIFIED_MESSAGE]
    errors = [] if prefix is None else ["prefix part " + e for e in subdomain_errors(prefix)]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if name and not _NAME.fullmatch(name):
        errors.append("name part " + _NAME_MESSAGE)
    return errors


def subdomain_errors(name: str) -> list[str]:
    """Kubernetes' IsDNS1123Subdomain, its messages in its order."""
    errors = []
    if len(name) > 253:
        errors.append("must be no more than 253 characters")
    if not _SUBDOMAIN.fullmatch(name):
        errors.append(_SUBDOMAIN_MESSAGE)
    return errors


def label_value_errors(value: str) -> list[str]:
    errors = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if not _VALUE.fullmatch(value):
        errors.append(_VALUE_MESSAGE)
    return errors


# Hubs repeat a few keys and values across thousands of objects: each is judged once.
_GOOD_KEYS: set[str] = set()
_GOOD_VALUES: set[str] = set()


def label_problem(key: str, value: str) -> str | None:
    """Why the API server refuses the label `key: value` in an object's metadata; None if it does not."""
    if key not in _GOOD_KEYS:
        if errors := qualified_name_errors(key):
            return f"invalid label key {key!r}: {'; '.join(errors)}"
        _GOOD_KEYS.add(key)
    if value not in _GOOD_VALUES:
        if errors := label_value_errors(value):
            return f"invalid value {value!r} of label {key!r}: {'; '.join(errors)}"
        _GOOD_VALUES.add(value)
    return None
