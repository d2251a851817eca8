"""Kubernetes' own rules for names and labels (apimachinery's IsQualifiedName and
IsValidLabelValue), with its messages: what the API server refuses in any object's labels and
what a label selector refuses at scheduling time; and the names it makes from generateName."""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "MAX_ANNOTATIONS_BYTES",
    "annotations_problem",
    "condition_reason_errors",
    "condition_type_errors",
    "dns_label_errors",
    "finalizer_problem",
    "generate_name_errors",
    "judged_metadata",
    "label_problem",
    "label_value_errors",
    "name_problem",
    "name_from_generate_name",
    "qualified_name_errors",
    "subdomain_errors",
]

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
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
_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
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
    """Kubernetes' IsDNS1123Subdomain: the rule for the names of most kinds (custom resources'
    included: apiextensions-apiserver validates them with NameIsDNSSubdomain)."""
    errors = []
    if len(name) > 253:
        errors.append("must be no more than 253 characters")
    if not _SUBDOMAIN.fullmatch(name):
        errors.append(_SUBDOMAIN_MESSAGE)
    return errors


def generate_name_errors(generate_name: str) -> list[str]:
    """A generateName as ValidateObjectMeta judges it: a name prefix, whose trailing '-' is
    allowed (apimachinery's maskTrailingDash: the last two characters become "a")."""
    if len(generate_name) > 1 and generate_name.endswith("-"):
        generate_name = generate_name[:-2] + "a"
    return subdomain_errors(generate_name)


def dns_label_errors(name: str) -> list[str]:
    """Kubernetes' IsDNS1123Label: the rule for a namespace's name."""
    errors = []
    if len(name) > 63:
        errors.append("must be no more than 63 characters")
    if not _LABEL.fullmatch(name):
        errors.append(_LABEL_MESSAGE)
    return errors


def label_value_errors(value: str) -> list[str]:
    errors = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if not _VALUE.fullmatch(value):
        errors.append(_VALUE_MESSAGE)
    return errors


# Hubs repeat a few keys and values across thousands of objects: each is judged once, and
# remembered up to a bound (a long-lived scheduler sees ever new values: parent names, times).
_GOOD_KEYS: set[str] = set()
_GOOD_VALUES: set[str] = set()
_GOOD_LIMIT = 1 << 16


def _remember(good: set[str], text: str) -> None:
    if len(good) < _GOOD_LIMIT:
        good.add(text)


def label_problem(key: str, value: str) -> str | None:
    """Why the API server refuses the label `key: value` in an object's metadata; None if it does not."""
    if key not in _GOOD_KEYS:
        if errors := qualified_name_errors(key):
            return f"invalid label key {key!r}: {'; '.join(errors)}"
        _remember(_GOOD_KEYS, key)
    if value not in _GOOD_VALUES:
        if errors := label_value_errors(value):
            return f"invalid value {value!r} of label {key!r}: {'; '.join(errors)}"
        _remember(_GOOD_VALUES, value)
    return None


# apimachinery's ValidateAnnotations (every object's metadata): each key a qualified name, case
# aside, and keys and values together at most 256 KiB (their bytes in UTF-8).
MAX_ANNOTATIONS_BYTES = 256 * (1 << 10)
_GOOD_ANNOTATION_KEYS: set[str] = set()


def annotations_problem(annotations: dict[str, str]) -> str | None:
    """Why the API server refuses these annotations of an object; None if it does not."""
    size = 0
    for key, value in annotations.items():
        if key not in _GOOD_ANNOTATION_KEYS:
            if errors := qualified_name_errors(key.lower()):
                return f"invalid annotation key {key!r}: {'; '.join(errors)}"
            _remember(_GOOD_ANNOTATION_KEYS, key)
        size += len(key) + len(value) if key.isascii() and value.isascii() else _utf8(key) + _utf8(value)
    if size > MAX_ANNOTATIONS_BYTES:
        return f"annotations may not be longer than {MAX_ANNOTATIONS_BYTES} bytes in total, got {size}"
    return None


def _utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def finalizer_problem(finalizer: str) -> str | None:
    """Why the API server refuses `finalizer` (apimachinery's ValidateFinalizerName: a qualified
    name); None if it does not."""
    if finalizer not in _GOOD_FINALIZERS:
        if errors := qualified_name_errors(finalizer):
            return f"invalid finalizer {finalizer!r}: {'; '.join(errors)}"
        _remember(_GOOD_FINALIZERS, finalizer)
    return None


_GOOD_FINALIZERS: set[str] = set()

# metav1.Condition as controller-gen writes its schema into every CRD that holds conditions.
_CONDITION_TYPE = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])"
)
_CONDITION_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")
_MAX_CONDITION_TYPE = 316
_MAX_CONDITION_REASON = 1024


def condition_type_errors(value: str) -> list[str]:
    """What the CRD schema says of a condition's type (pattern, at most 316 characters)."""
    errors = []
    if len(value) > _MAX_CONDITION_TYPE:
        errors.append(f"may not be longer than {_MAX_CONDITION_TYPE}")
    if not _CONDITION_TYPE.fullmatch(value):
        errors.append(f"should match '^{_CONDITION_TYPE.pattern}$'")
    return errors


def condition_reason_errors(value: str) -> list[str]:
    """What the CRD schema says of a condition's reason (1 to 1024 characters, pattern)."""
    errors = []
    if not value:
        errors.append("should be at least 1 chars long")
    elif len(value) > _MAX_CONDITION_REASON:
        errors.append(f"may not be longer than {_MAX_CONDITION_REASON}")
    if value and not _CONDITION_REASON.fullmatch(value):
        errors.append(f"should match '^{_CONDITION_REASON.pattern}$'")
    return errors


def judged_metadata(labels: Any, annotations: Any, finalizers: Any, generation: Any) -> bool:
    """Whether an object's labels, annotations, finalizers and generation are surely fine: each
    label, annotation key and finalizer already judged good (and the annotations well within their
    size), the generation a plain non-negative int64. A quick look (a hub repeats a few of each over
    thousands of objects), by set operations, without a Python loop over the labels; False sends
    the object to the checks, which name what is wrong, if anything."""
    try:
        return (
            (
                labels is None
                or (
                    type(labels) is dict
                    and _GOOD_KEYS.issuperset(labels)
                    and _GOOD_VALUES.issuperset(labels.values())
                )
            )
            and (finalizers is None or (type(finalizers) is list and _GOOD_FINALIZERS.issuperset(finalizers)))
            and (annotations is None or _judged_annotations(annotations))
            and (generation is None or (type(generation) is int and 0 <= generation < 2**63))
        )
    except TypeError:  # an unhashable label value or finalizer: no string
        return False


def _judged_annotations(annotations: Any) -> bool:
    if annotations is None:
        return True
    if type(annotations) is not dict:
        return False
    size = 0
    for k, v in annotations.items():
        if k not in _GOOD_ANNOTATION_KEYS or type(v) is not str or not v.isascii():
            return False
        size += len(k) + len(v)
    return size <= MAX_ANNOTATIONS_BYTES


# k8s.io/apiserver pkg/storage/names (SimpleNameGenerator): the generateName cut to 58 characters,
# then five characters of apimachinery's util/rand alphabet (no vowels, no 0, 1 or 3).
_GENERATED_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GENERATED_LENGTH = 5
_MAX_GENERATE_NAME = 63 - _GENERATED_LENGTH


def name_from_generate_name(generate_name: str, draw: int) -> str:
    """The name the API server makes from `generateName` when its random source gives `draw` (a
    non-negative integer; its base-27 digits, lowest first, pick the suffix)."""
    suffix = []
    for _ in range(_GENERATED_LENGTH):
        draw, digit = divmod(draw, len(_GENERATED_ALPHABET))
        suffix.append(_GENERATED_ALPHABET[digit])
    return generate_name[:_MAX_GENERATE_NAME] + "".join(suffix)


_GOOD_NAMESPACES: set[str] = set()


def name_problem(kind: str, name: str, namespace: str | None) -> tuple[str, str] | None:
    """(field, message) of what the API server refuses in an object's name or namespace: a
    Namespace's name and every namespace must be a DNS-1123 label, every other name (custom
    resources': apiextensions validates them with NameIsDNSSubdomain) a DNS-1123 subdomain."""
    if kind == "Namespace":
        if len(name) > 63 or not _LABEL.fullmatch(name):
            return "metadata.name", f"{name!r}: {'; '.join(dns_label_errors(name))}"
    elif len(name) > 253 or not _SUBDOMAIN.fullmatch(name):
        return "metadata.name", f"{name!r}: {'; '.join(subdomain_errors(name))}"
    if namespace and namespace not in _GOOD_NAMESPACES:
        if errors := dns_label_errors(namespace):
            return "metadata.namespace", f"{namespace!r}: {'; '.join(errors)}"
        _remember(_GOOD_NAMESPACES, namespace)
    return None
