"""The scheduler config (the `scheduler:` block of the operator config): read, merged, defaulted,
validated and completed as upstream does it.

    document = read_config_files(["base.yaml", "override.yaml"])   # merged, later files win
    config = parse_config(document)                                # InputError when invalid

Merging follows mergo's WithOverride: mappings are merged key by key, all the way down; any other
value of a later file replaces the earlier one unless it is empty (null, "", 0, false, [] or {}),
which leaves the earlier value in place.

Defaults: scope Cluster, strategy Balanced, no purposes. Validation aggregates every problem into
one error, each naming its field path (`scheduler.purposeMappings[<purpose>].<field>`), and
checks what upstream checks: scope and strategy among the supported values, valid selectors, per
purpose a non-empty key and a definition, tenancyCount >= 0, template.spec.profile and
template.spec.tenancy (Exclusive or Shared; when this fails, the purpose's other checks are
skipped), tenancyCount 0 for Exclusive, and template labels that satisfy the global and the
purpose's own cluster selector (else the scheduler would create clusters it cannot find again).

Completion gives every purpose one selector, its own AND the global one: matchLabels united (the
global value wins on a shared key), matchExpressions the purpose's followed by the global ones.

ClusterRequests are scheduled only under a config (`required_config`): upstream's scheduler does
not start without one (openmcp-operator internal/controllers/scheduler/controller.go,
NewClusterScheduler: "scheduler config must not be nil"; a config file without `scheduler:`
leaves it nil). `scheduler: {}` is a config, all defaults.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from adapters.errors import InputError
from adapters.kube.fields import Fields
from adapters.kube.selectors import SelectorError, label_selector
from adapters.openmcp import names as n
from model import LabelSelector

__all__ = [
    "PurposeMapping",
    "SchedulerConfig",
    "Template",
    "check_config",
    "combine",
    "merge_documents",
    "parse_config",
    "read_config_files",
    "required_config",
]

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
_WHERE = "scheduler config"


@dataclass(frozen=True, slots=True)
class Template:
    """The cluster template of one purpose: the metadata new clusters get and their spec."""

    name: str = ""
    generate_name: str = ""
    namespace: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    spec: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tenancy(self) -> str:
        return self.spec.get("tenancy") or ""


@dataclass(frozen=True, slots=True)
class PurposeMapping:
    purpose: str
    tenancy_count: int
    template: Template
    selector: LabelSelector | None  # completed: the purpose's own AND the global one

    @property
    def exclusive(self) -> bool:
        return self.template.tenancy == n.EXCLUSIVE

    @property
    def unlimited(self) -> bool:
        """Shared with no tenancy count: one cluster serves every request."""
        return not self.exclusive and self.tenancy_count == 0


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    scope: str = n.SCOPE_CLUSTER
    strategy: str = n.BALANCED
    clusters: LabelSelector | None = None  # the global cluster selector
    requests: LabelSelector | None = None  # which ClusterRequests are reconciled
    purposes: Mapping[str, PurposeMapping] = field(default_factory=dict)

    @property
    def namespaced(self) -> bool:
        return self.scope == n.SCOPE_NAMESPACED


DEFAULT = SchedulerConfig()


# ------------------------------------------------------------------------------------------ reading


def read_config_files(paths: Sequence[str]) -> dict[str, Any]:
    """The documents of `paths` (files, or directories whose .yaml/.yml/.json files are read in
    name order), merged in order."""
    documents: list[Any] = []
    for path in paths:
        files = _config_files(path)
        for file in files:
            documents.append(_read_document(file))
    return merge_documents(documents)


def _config_files(path: str) -> list[str]:
    if os.path.isdir(path):
        try:
            names = sorted(os.listdir(path))
        except OSError as err:
            raise InputError(f"cannot read directory: {err.strerror}", where=path) from None
        return [
            os.path.join(path, name)
            for name in names
            if name.lower().endswith(_CONFIG_SUFFIXES) and os.path.isfile(os.path.join(path, name))
        ]
    if not os.path.exists(path):
        raise InputError("no such file or directory", where=path)
    return [path]


def _read_document(path: str) -> Any:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", where=path) from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", where=path) from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        documents = [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise InputError(f"not valid YAML{at}: {problem}", where=path) from None
    if len(documents) > 1:
        raise InputError(f"expected one document, found {len(documents)}", where=path)
    document = documents[0] if documents else {}
    if not isinstance(document, Mapping):
        raise InputError("the config must be an object", where=path)
    return document


def merge_documents(documents: Iterable[Any]) -> dict[str, Any]:
    """Later documents override earlier ones (see the module docstring)."""
    merged: Any = {}
    for document in documents:
        merged = _merge(merged, document)
    return dict(merged) if isinstance(merged, Mapping) else {}


def _merge(base: Any, override: Any) -> Any:
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        out = dict(base)
        for key, value in override.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if _empty(override):
        return base
    return override


def _empty(value: Any) -> bool:
    """Go's zero values, which mergo never lets override."""
    if value is None or value is False:
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0
    if isinstance(value, str | list | Mapping):
        return len(value) == 0
    return False


# ------------------------------------------------------------------------------------------ parsing


class _ConfigFields(Fields):
    """Fields' type checks, with errors naming the config rather than an object."""

    __slots__ = ("_where",)

    def __init__(self, where: str) -> None:
        self._where = where

    @property
    def where(self) -> str:
        return self._where


def check_config(document: Mapping[str, Any], where: str) -> None:
    """The config refused as the scheduler refuses it (an InputError naming `where`): the
    registry's check of a config given on the command line (adapters.contract.System)."""
    parse_config(document, where=where)


def parse_config(document: Mapping[str, Any] | None, *, where: str = _WHERE) -> SchedulerConfig:
    """The config of an operator config document (its `scheduler:` block), defaulted, validated
    and completed. No document, or none with a `scheduler:` block, gives the defaults."""
    f = _ConfigFields(where)
    if document is None:
        return DEFAULT
    if not isinstance(document, Mapping):
        raise f.fail("the config must be an object", "")
    raw = f.mapping(document.get(n.CONFIG_KEY), n.CONFIG_KEY)
    path = n.CONFIG_KEY
    scope = f.string(raw.get("scope"), f"{path}.scope") or n.SCOPE_CLUSTER
    strategy = f.string(raw.get("strategy"), f"{path}.strategy") or n.BALANCED
    selectors = f.mapping(raw.get("selectors"), f"{path}.selectors")
    mappings = f.mapping(raw.get("purposeMappings"), f"{path}.purposeMappings")

    errors: list[str] = []
    if scope not in n.SCOPES:
        errors.append(_unsupported(f"{path}.scope", scope, n.SCOPES))
    if strategy not in n.STRATEGIES:
        errors.append(_unsupported(f"{path}.strategy", strategy, n.STRATEGIES))
    clusters = _selector(f, selectors.get("clusters"), f"{path}.selectors.clusters", errors)
    requests = _selector(f, selectors.get("requests"), f"{path}.selectors.requests", errors)

    purposes: dict[str, PurposeMapping] = {}
    for purpose in sorted(mappings, key=str):
        mapping = _purpose(f, purpose, mappings[purpose], f"{path}.purposeMappings", clusters, errors)
        if mapping is not None:
            purposes[purpose] = mapping
    if errors:
        if len(errors) == 1:
            raise InputError(errors[0], where=where)
        raise InputError(f"{len(errors)} errors: " + "; ".join(errors), where=where)
    return SchedulerConfig(scope, strategy, clusters, requests, purposes)


def required_config(document: Mapping[str, Any] | None, *, where: str = _WHERE) -> SchedulerConfig:
    """The config of a document that must give one (ClusterRequests are to be scheduled): as
    parse_config, but no document, or none with a `scheduler:` block, is an InputError."""
    why = "openMCP's Cluster Scheduler does not start without it, and the input holds ClusterRequests"
    how = f"give --config FILE (in the library: config=) with a `{n.CONFIG_KEY}:` block"
    if document is None:
        raise InputError(f"missing: {why}; {how}", where=where)
    if isinstance(document, Mapping) and document.get(n.CONFIG_KEY) is None:
        raise InputError(f"required: {why}; {how}", where=where, field=n.CONFIG_KEY)
    return parse_config(document, where=where)


def _purpose(
    f: _ConfigFields,
    purpose: Any,
    raw: Any,
    parent: str,
    clusters: LabelSelector | None,
    errors: list[str],
) -> PurposeMapping | None:
    """One purpose mapping, its problems appended to `errors`; None when it is not usable."""
    path = f"{parent}[{purpose}]"
    if not isinstance(purpose, str):
        raise f.fail(f"a purpose must be a string, got {purpose!r}", path)
    if purpose == "":
        errors.append(f'{parent}: Invalid value: "": purpose must not be empty')
    if raw is None:
        errors.append(f"{path}: Required value: definition must not be nil")
        return None
    raw = f.mapping(raw, path)
    count = raw.get("tenancyCount", 0)
    count = 0 if count is None else f.integer(count, f"{path}.tenancyCount")
    template_raw = f.mapping(raw.get("template"), f"{path}.template")
    metadata = f.mapping(template_raw.get("metadata"), f"{path}.template.metadata")
    spec = f.mapping(template_raw.get("spec"), f"{path}.template.spec")
    template = Template(
        name=f.string(metadata.get("name"), f"{path}.template.metadata.name"),
        generate_name=f.string(metadata.get("generateName"), f"{path}.template.metadata.generateName"),
        namespace=f.string(metadata.get("namespace"), f"{path}.template.metadata.namespace"),
        labels=f.labels(metadata.get("labels"), f"{path}.template.metadata.labels"),
        annotations=f.string_map(metadata.get("annotations"), f"{path}.template.metadata.annotations"),
        spec=spec,
    )
    profile = f.string(spec.get("profile"), f"{path}.template.spec.profile")
    tenancy = f.string(spec.get("tenancy"), f"{path}.template.spec.tenancy")
    f.string_list(spec.get("purposes"), f"{path}.template.spec.purposes")
    local = _selector(f, raw.get("selector"), f"{path}.selector", errors)

    before = len(errors)
    if count < 0:
        errors.append(
            f"{path}.tenancyCount: Invalid value: {count}: tenancyCount must be greater than or equal to 0"
        )
    if not profile:
        errors.append(f"{path}.template.spec.profile: Required value")
    if not tenancy:
        errors.append(f"{path}.template.spec.tenancy: Required value")
        return None
    if tenancy not in n.TENANCIES:
        errors.append(_unsupported(f"{path}.template.spec.tenancy", tenancy, n.TENANCIES))
        return None
    if tenancy == n.EXCLUSIVE and count != 0:
        errors.append(
            f"{path}.tenancyCount: Invalid value: {count}: tenancyCount must be 0 if the template "
            f"specifies '{n.EXCLUSIVE}' tenancy"
        )
    for selector, which in ((clusters, "global"), (local, "local")):
        if selector is not None and not selector.matches(template.labels):
            errors.append(
                f"{path}.template.metadata.labels: Invalid value: {_labels(template.labels)}: "
                f"labels do not match specified {which} cluster selector"
            )
    if len(errors) > before:
        return None
    return PurposeMapping(purpose, count, template, combine(local, clusters))


def _selector(f: _ConfigFields, raw: Any, path: str, errors: list[str]) -> LabelSelector | None:
    try:
        return label_selector(f, raw, path, pruned=False)  # decoded by sigs.k8s.io/yaml
    except SelectorError as err:
        errors.append(f"{path}: Invalid value: {err}")
        return None


def combine(local: LabelSelector | None, common: LabelSelector | None) -> LabelSelector | None:
    """A purpose's selector completed with the global one (see the module docstring)."""
    if local is None:
        return common
    if common is None:
        return local
    labels = dict(local.match_labels)
    labels.update(common.match_labels)
    return LabelSelector(tuple(sorted(labels.items())), local.match_expressions + common.match_expressions)


def _unsupported(path: str, value: str, supported: Sequence[str]) -> str:
    values = ", ".join(f'"{v}"' for v in supported)
    return f'{path}: Unsupported value: "{value}": supported values: {values}'


def _labels(labels: Mapping[str, str]) -> str:
    return "{" + ", ".join(f'"{k}": "{v}"' for k, v in sorted(labels.items())) + "}"
