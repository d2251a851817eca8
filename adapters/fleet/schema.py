"""What the Fleet CRDs' schemas (config/crd/bases in kubefleet-dev/kubefleet) and the placement
webhook (pkg/utils/validator/placement.go) refuse in the fields the scheduler does not read, or
reads only in part: enums, integer ranges, list lengths, required fields, formats (date-time,
byte), conditions (metav1.Condition's schema: adapters.kube.fields.Fields.conditions), the placement
spec's CEL rules and its resource selectors' label selectors. The API server refuses such an
object, so no hub holds one and neither does our input. The fields the scheduler reads are
checked where they are read (policy.py, clusters.py, load.py), with `enum` below.

Not checked: the webhook's look-ups in the hub's discovery (a resource selector's kind must be
served, and cluster-scoped unless a namespace is selected with NamespaceWithResourceSelectors),
which need the hub itself, and the CRD's transition rules (they compare with an older object)."""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.fleet import names as n
from adapters.kube.fields import INT32, Fields, conditions_fine, parse_time, time_fine
from adapters.kube.selectors import SelectorError, label_selector

__all__ = [
    "Conditions",
    "PLACEMENT_TYPES",
    "POLICY",
    "RULES",
    "SORT_ORDERS",
    "TAINT_EFFECTS",
    "TOLERATION_OPERATORS",
    "WHEN_UNSATISFIABLE",
    "check",
    "enum",
]

# The enums of the fields the scheduler reads, in the CRDs' order.
PLACEMENT_TYPES = ("PickAll", "PickN", "PickFixed")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoSchedule",)
SORT_ORDERS = ("Ascending", "Descending")


def enum(
    f: Fields, value: Any, path: str, allowed: tuple[str, ...], default: str | None = None
) -> str | None:
    """A string of `allowed`, or `default` when the field is absent (or null, which the API server
    prunes). An empty string is a value like any other: the CRD's enum refuses it."""
    if value is None:
        return default
    if type(value) is str and value in allowed:
        return value
    value = f.string(value, path)
    expected = ", ".join(allowed[:-1]) + " or " + allowed[-1] if len(allowed) > 1 else allowed[0]
    raise f.fail(f"unsupported value {value!r}; expected {expected}", path)


@dataclass(frozen=True, slots=True)
class Enum:
    values: tuple[str, ...]

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        enum(f, value, path, self.values)

    def fine(self, value: Any) -> bool:
        return value in self.values if type(value) is str else value is None

    def quick(self, value: str) -> str:
        """fine's test as an expression on the variable `value` (written into the quick pass)."""
        return f"(type({value}) is str and {value} in {self.values!r}) or {value} is None"


@dataclass(frozen=True, slots=True)
class Integer:
    minimum: int | None = None
    maximum: int = 2**63 - 1

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        f.integer(value, path, minimum=self.minimum, maximum=self.maximum)

    def fine(self, value: Any) -> bool:
        low = -self.maximum - 1 if self.minimum is None else self.minimum
        return type(value) is int and low <= value <= self.maximum

    def quick(self, value: str) -> str:
        """fine's test as an expression on the variable `value` (written into the quick pass)."""
        low = -self.maximum - 1 if self.minimum is None else self.minimum
        return f"type({value}) is int and {low} <= {value} <= {self.maximum}"


@dataclass(frozen=True, slots=True)
class MaxItems:
    limit: int

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        if len(f.sequence(value, path)) > self.limit:
            raise f.fail(f"at most {self.limit} items", path)

    def fine(self, value: Any) -> bool:
        return type(value) is list and len(value) <= self.limit


@dataclass(frozen=True, slots=True)
class Required:
    """A field the CRD requires (a null is pruned: absent); `kind`: the type it must have."""

    kind: type | None = None

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        if value is None:
            raise f.fail(f"{path.rpartition('.')[2]} is required", path)
        if self.kind is str:
            f.string(value, path)
        elif self.kind is bool and type(value) is not bool:
            raise f.fail("expected a boolean", path)
        elif self.kind is dict:
            f.mapping(value, path)

    def fine(self, value: Any) -> bool:
        return value is not None and (self.kind is None or type(value) is self.kind)


@dataclass(frozen=True, slots=True)
class Time:
    """A `format: date-time` string: RFC 3339, as Kubernetes reads one (adapters.kube.fields.rfc3339)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        parse_time(f, value, path)

    fine = staticmethod(time_fine)


@dataclass(frozen=True, slots=True)
class Conditions:
    """A list of metav1.Condition (adapters.kube.fields.Fields.conditions)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        f.conditions(value, path)

    fine = staticmethod(conditions_fine)


@dataclass(frozen=True, slots=True)
class Base64:
    """A `format: byte` string: standard base64 with its padding, as Go's base64.StdEncoding
    decodes it (line breaks skipped)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        text = f.string(value, path)
        try:
            b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            raise f.fail(f"{text!r} is not base64 (format byte)", path) from None

    @staticmethod
    def fine(value: Any) -> bool:
        if type(value) is not str:
            return False
        try:
            b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return False
        return True


class _PropertyEntries:
    """status.properties: each entry with its value and an RFC 3339 observationTime (a null entry
    is pruned by the API server: no such property)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        for name, entry in f.mapping(value, path).items():
            if entry is None:
                continue
            entry = f.mapping(entry, f"{path}[{name}]")
            for field_name in ("value", "observationTime"):
                Required(str)(f, entry.get(field_name), f"{path}[{name}].{field_name}")
            parse_time(f, entry["observationTime"], f"{path}[{name}].observationTime")

    @staticmethod
    def fine(value: Any) -> bool:
        if type(value) is not dict:
            return False
        for e in value.values():  # a loop, not a generator: every cluster has a few
            if e is not None and not (
                type(e) is dict and type(e.get("value")) is str and time_fine(e.get("observationTime"))
            ):
                return False
        return True


_PERCENT_OR_COUNT = re.compile(r"((100|[0-9]{1,2})%|[0-9]+)")


@dataclass(frozen=True, slots=True)
class IntOrPercent:
    """An int-or-string: a string matching the CRD's pattern, or an integer the webhook takes (an
    int32, since intstr holds one, and not negative)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        if type(value) is str:
            if not _PERCENT_OR_COUNT.fullmatch(value):
                raise f.fail(f"{value!r} is neither a count nor a percentage up to 100%", path)
            return
        f.integer(value, path, minimum=0, maximum=INT32)

    @staticmethod
    def fine(value: Any) -> bool:
        if type(value) is str:
            return _PERCENT_OR_COUNT.fullmatch(value) is not None
        return type(value) is int and 0 <= value <= INT32


class _Strategy:
    """The rollout strategy's rules across fields: the webhook's (validateRolloutStrategy) and the
    CRD's (a Mirror report-back names its destination)."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        strategy = f.mapping(value, path)
        if strategy.get("type") == "External" and strategy.get("rollingUpdate") is not None:
            raise f.fail("rollingUpdate is not valid for the External strategy type", f"{path}.rollingUpdate")
        apply = f.mapping(strategy.get("applyStrategy"), f"{path}.applyStrategy")
        if apply.get("serverSideApplyConfig") is not None and apply.get("type") != "ServerSideApply":
            raise f.fail(
                "serverSideApplyConfig is only valid for the ServerSideApply strategy type",
                f"{path}.applyStrategy.serverSideApplyConfig",
            )

    @staticmethod
    def fine(value: Any) -> bool:
        if type(value) is not dict:
            return False
        if value.get("type") == "External" and value.get("rollingUpdate") is not None:
            return False
        apply = value.get("applyStrategy")
        return apply is None or (
            type(apply) is dict
            and (apply.get("serverSideApplyConfig") is None or apply.get("type") == "ServerSideApply")
        )


class _ResourceSelectors:
    """Required, 1 to 100 selectors, each naming its group, version and kind, by name or by labels."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        selectors = f.sequence(value, path)
        if not 1 <= len(selectors) <= 100:
            raise f.fail(f"between 1 and 100 resource selectors are required, got {len(selectors)}", path)
        for where, selector in f.objects(selectors, path):
            for name in ("group", "version", "kind"):
                if selector.get(name) is None:
                    raise f.fail(f"{name} is required", f"{where}.{name}")
                f.string(selector[name], f"{where}.{name}")
            f.string(selector.get("name"), f"{where}.name")
            if selector.get("name") and selector.get("labelSelector") is not None:
                raise f.fail("name and labelSelector are mutually exclusive", where)

    @staticmethod
    def fine(value: Any) -> bool:
        return type(value) is list and 1 <= len(value) <= 100 and all(map(_fine_selector, value))


def _fine_selector(selector: Any) -> bool:
    if type(selector) is not dict:
        return False
    name = selector.get("name")
    return (
        type(selector.get("group")) is str
        and type(selector.get("version")) is str
        and type(selector.get("kind")) is str
        and (name is None or (type(name) is str and not (name and selector.get("labelSelector") is not None)))
    )


def _selector_labels(f: Fields, value: Any, path: str) -> None:
    """A resource selector's label selector, one Kubernetes can build (the webhook's
    validateLabelSelector)."""
    try:
        label_selector(f, value, path)
    except SelectorError as err:
        raise f.fail(f"the labelSelector in resource selector is invalid: {err}", err.field) from None


class _NamespaceSelectors:
    """The CRD's rules on spec across its resource selectors (x-kubernetes-validations): a
    NamespaceAccessible status needs exactly one Namespace selector; NamespaceWithResourceSelectors
    is allowed on one Namespace selector (core v1) only, which then names its namespace without a
    label selector and is the only Namespace selector of the placement."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        spec = f.mapping(value, path)
        selectors = f.sequence(spec.get("resourceSelectors"), f"{path}.resourceSelectors")
        namespaces = [s for s in selectors if isinstance(s, dict) and s.get("kind") == "Namespace"]
        if spec.get("statusReportingScope") == "NamespaceAccessible" and len(namespaces) != 1:
            raise f.fail(
                "a NamespaceAccessible status reporting scope needs exactly one Namespace resource selector",
                f"{path}.statusReportingScope",
            )
        core = [s for s in namespaces if s.get("group") == "" and s.get("version") == "v1"]
        scoped = [s for s in core if s.get("selectionScope", _DEFAULT_SCOPE) == _WITH_SELECTORS]
        if not scoped:
            return
        where = f"{path}.resourceSelectors"
        if len(scoped) > 1:
            raise f.fail(f"at most one Namespace resource selector may be {_WITH_SELECTORS}", where)
        if not scoped[0].get("name") or scoped[0].get("labelSelector") is not None:
            raise f.fail(
                f"the {_WITH_SELECTORS} Namespace resource selector must name its namespace, "
                "without a labelSelector",
                where,
            )
        if len(core) != 1:
            raise f.fail(
                f"with a {_WITH_SELECTORS} Namespace resource selector, no other Namespace resource selector",
                where,
            )

    @staticmethod
    def fine(value: Any) -> bool:
        """No NamespaceAccessible scope, no Namespace selector of NamespaceWithResourceSelectors."""
        if type(value) is not dict or value.get("statusReportingScope") == "NamespaceAccessible":
            return False
        selectors = value.get("resourceSelectors")
        return type(selectors) is list and not any(
            type(s) is dict and s.get("kind") == "Namespace" and s.get("selectionScope") == _WITH_SELECTORS
            for s in selectors
        )


_DEFAULT_SCOPE = "NamespaceWithResources"
_WITH_SELECTORS = "NamespaceWithResourceSelectors"


class _ReportBack:
    def __call__(self, f: Fields, value: Any, path: str) -> None:
        report = f.mapping(value, path)
        if report.get("type") is None:
            raise f.fail("type is required", f"{path}.type")
        if report.get("type") == "Mirror" and not report.get("destination"):
            raise f.fail("a Mirror report-back strategy needs a destination", f"{path}.destination")

    @staticmethod
    def fine(value: Any) -> bool:
        return (
            type(value) is dict
            and value.get("type") is not None
            and (value.get("type") != "Mirror" or bool(value.get("destination")))
        )


@dataclass(frozen=True, slots=True)
class Rule:
    path: str  # dotted; a segment ending in [] stands for each item of that list
    check: Any  # (Fields, value, path) -> None, raising InputError
    version: str | None = None  # only objects of this API version have the field (others prune it)
    required: bool = False  # checked when absent too (as None)


_APPLY_STRATEGY = (
    ("type", Enum(("ClientSideApply", "ServerSideApply", "ReportDiff"))),
    ("comparisonOption", Enum(("PartialComparison", "FullComparison"))),
    ("whenToApply", Enum(("Always", "IfNotDrifted"))),
    ("whenToTakeOver", Enum(("Always", "IfNoDiff", "Never"))),
)


_SCORES = ("affinityScore", "priorityScore")  # a decision's clusterScore: int32s


class _Decisions:
    """targetClusters: at most 1000, their scores int32."""

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        decisions = f.sequence(value, path)
        if len(decisions) > n.MAX_DECISIONS:
            raise f.fail(f"at most {n.MAX_DECISIONS} items", path)
        for where, decision in f.objects(decisions, path):
            score = f.mapping(decision.get("clusterScore"), f"{where}.clusterScore")
            for name in _SCORES:
                if score.get(name) is not None:
                    f.integer(score[name], f"{where}.clusterScore.{name}", maximum=INT32)

    @staticmethod
    def fine(value: Any) -> bool:
        """A loop of its own: a hub holds thousands of snapshots with dozens of decisions each."""
        if type(value) is not list or len(value) > n.MAX_DECISIONS:
            return False
        low = -INT32 - 1
        for decision in value:  # plain loops: a generator per decision was most of its time
            if type(decision) is not dict:
                return False
            score = decision.get("clusterScore")
            if score is None:
                continue
            if type(score) is not dict:
                return False
            for v in score.values():
                if type(v) is not int or not low <= v <= INT32:
                    return False
        return True


_AFFINITY = "affinity.clusterAffinity"
_REQUIRED_TERMS = f"{_AFFINITY}.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms"
_PREFERRED = f"{_AFFINITY}.preferredDuringSchedulingIgnoredDuringExecution"
POLICY = "policy"  # the rules of a placement policy, below spec.policy (of a snapshot)

RULES: dict[str, tuple[Rule, ...]] = {
    POLICY: (
        Rule("placementType", Enum(PLACEMENT_TYPES)),
        Rule("clusterNames", MaxItems(100)),
        Rule("numberOfClusters", Integer(minimum=0, maximum=INT32)),
        Rule(_REQUIRED_TERMS, MaxItems(10)),
        Rule(f"{_REQUIRED_TERMS}[].propertySelector.matchExpressions[].values", MaxItems(1)),
        Rule(f"{_REQUIRED_TERMS}[].propertySorter.sortOrder", Enum(SORT_ORDERS)),
        Rule(f"{_PREFERRED}[].weight", Integer(minimum=-100, maximum=100)),
        Rule(f"{_PREFERRED}[].preference.propertySelector.matchExpressions[].values", MaxItems(1)),
        Rule(f"{_PREFERRED}[].preference.propertySorter.sortOrder", Enum(SORT_ORDERS)),
        Rule("topologySpreadConstraints[].maxSkew", Integer(minimum=1, maximum=INT32)),
        Rule("topologySpreadConstraints[].whenUnsatisfiable", Enum(WHEN_UNSATISFIABLE)),
        Rule("tolerations", MaxItems(100)),
        Rule("tolerations[].operator", Enum(TOLERATION_OPERATORS)),
        Rule("tolerations[].effect", Enum(TAINT_EFFECTS)),
    ),
    n.PLACEMENT: (
        Rule("spec", Required(dict), required=True),
        Rule("spec", _NamespaceSelectors()),
        Rule("spec.resourceSelectors", _ResourceSelectors(), required=True),
        # its status, which other controllers write (rollout, work applier)
        Rule("status.conditions", Conditions()),
        Rule("status.placementStatuses[].conditions", Conditions()),
        Rule("spec.resourceSelectors[].labelSelector", _selector_labels),
        Rule(
            "spec.resourceSelectors[].selectionScope",
            Enum(("NamespaceOnly", "NamespaceWithResources", "NamespaceWithResourceSelectors")),
        ),
        Rule("spec.statusReportingScope", Enum(("ClusterScopeOnly", "NamespaceAccessible"))),
        Rule("spec.strategy", _Strategy()),
        Rule("spec.strategy.type", Enum(("RollingUpdate", "External"))),
        Rule("spec.strategy.rollingUpdate.unavailablePeriodSeconds", Integer(minimum=0)),
        Rule("spec.strategy.rollingUpdate.maxUnavailable", IntOrPercent()),
        Rule("spec.strategy.rollingUpdate.maxSurge", IntOrPercent()),
        *(Rule(f"spec.strategy.applyStrategy.{name}", check) for name, check in _APPLY_STRATEGY),
        Rule("spec.strategy.deleteStrategy.propagationPolicy", Enum(("Abandon", "Delete")), "v1beta1"),
        Rule("spec.strategy.reportBackStrategy", _ReportBack(), "v1beta1"),
        Rule("spec.strategy.reportBackStrategy.type", Enum(("Disabled", "Mirror")), "v1beta1"),
        Rule(
            "spec.strategy.reportBackStrategy.destination", Enum(("OriginalResource", "WorkAPI")), "v1beta1"
        ),
    ),
    n.MEMBER_CLUSTER: (
        Rule("spec", Required(dict), required=True),
        Rule("spec.identity", Required(dict), required=True),
        Rule("spec.identity.kind", Required(str), required=True),
        Rule("spec.identity.name", Required(str), required=True),
        Rule("spec.heartbeatPeriodSeconds", Integer(minimum=1, maximum=600)),
        Rule("spec.deleteOptions.validationMode", Enum(("Skip", "Strict")), "v1beta1"),
        Rule("status.conditions", Conditions()),
        Rule("status.agentStatus[].type", Required(str), required=True),
        Rule("status.agentStatus[].conditions", Conditions()),
        Rule("status.agentStatus[].lastReceivedHeartbeat", Time()),
        Rule("status.properties", _PropertyEntries()),
        Rule("status.resourceUsage.observationTime", Time()),
    ),
    n.BINDING: (
        Rule("spec", Required(dict), required=True),
        *(
            Rule(f"spec.{name}", Required(str), required=True)
            for name in ("resourceSnapshotName", "schedulingPolicySnapshotName", "state", "targetCluster")
        ),
        Rule("spec.clusterDecision", Required(dict), required=True),
        Rule("spec.clusterDecision.clusterName", Required(str), required=True),
        Rule("spec.clusterDecision.reason", Required(str), required=True),
        Rule("spec.clusterDecision.selected", Required(bool), required=True),
        # its int32 scores, whatever the binding's state (load.py reads them of the active ones)
        *(Rule(f"spec.clusterDecision.clusterScore.{name}", Integer(maximum=INT32)) for name in _SCORES),
        *(Rule(f"spec.applyStrategy.{name}", check) for name, check in _APPLY_STRATEGY),
        Rule("status.conditions", Conditions()),
    ),
    n.POLICY_SNAPSHOT: (
        Rule("spec", Required(dict), required=True),
        Rule("spec.policyHash", Required(str), required=True),
        Rule("spec.policyHash", Base64()),
        Rule("status.observedCRPGeneration", Required(int), required=True),
        Rule("status.observedCRPGeneration", Integer()),
        Rule("status.conditions", Conditions()),
        Rule("status.targetClusters", _Decisions()),
        Rule("status.targetClusters[].clusterName", Required(str), required=True),
        Rule("status.targetClusters[].reason", Required(str), required=True),
        Rule("status.targetClusters[].selected", Required(bool), required=True),
    ),
}


@dataclass(slots=True)
class _Node:
    """The rules of one field, and those of the fields below it (a list's items share one node)."""

    rules: list[Rule] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)
    listed: bool = False  # the field is a list; its children apply to each item
    fines: list[Any] = field(default_factory=list)  # each rule's quick test; None: it has none
    required: bool = False  # a rule here or below runs when the field is absent too


def _tree(rules: tuple[Rule, ...]) -> _Node:
    """The rules as a tree of their paths: an object walks each field once, and stops where its
    fields are absent (most objects hold none of them)."""
    root = _Node()
    for rule in rules:
        node = root
        for segment in rule.path.split("."):
            name = segment.removesuffix("[]")
            node = node.children.setdefault(name, _Node())
            node.listed = node.listed or segment.endswith("[]")
        node.rules.append(rule)
        node.fines.append(getattr(rule.check, "fine", None))
        # Required within its parent: judged where the parent is (an absent parent that is
        # required itself has its own rule: the placement's spec).
        node.required = node.required or rule.required
    return root


_TREES = {kind: _tree(rules) for kind, rules in RULES.items()}


def _gates(root: _Node) -> tuple[tuple[str, str], ...] | None:
    """The fields two levels down that hold every rule of a tree, for a quick look whether an
    object has any of them; None when a rule sits higher or is required."""
    gates = []
    for name, child in root.children.items():
        if child.rules or child.listed:
            return None
        for below, grandchild in child.children.items():
            if any(rule.required for rule in grandchild.rules):
                return None
            gates.append((name, below))
    return tuple(gates)


_GATES = {kind: _gates(tree) for kind, tree in _TREES.items()}


def check(f: Fields, obj: Any, kind: str, *, at: str = "", version: str = "") -> None:
    """Every rule of `kind` on `obj`, found at path `at` of its object (for messages); `version`:
    the object's API version, if `obj` is not the object."""
    gates = _GATES[kind]
    if gates is not None and isinstance(obj, dict) and not any(_holds(obj, a, b) for a, b in gates):
        return  # the common case: none of the fields with rules (a binding without applyStrategy)
    if _JUDGES[kind](obj):
        return
    if not version and isinstance(obj, dict):
        version = str(obj.get("apiVersion", "")).rpartition("/")[2]
    _walk(f, obj, _TREES[kind], at, version)


def _judge(tree: _Node) -> Callable[[Any], bool]:
    """Whether every rule of a kind surely holds (each rule's quick test, every API version's rules
    alike), as one function of straight-line Python made once from the tree: an absent field
    costs a look-up, a required leaf of one type a type test, and no call is made but the rules'
    own quick tests (a hub's tens of thousands of objects each pass every node of their kind).
    False sends the object to the walk, which judges it and names what fails. See _judge_source."""
    source, names = _judge_source(tree)
    exec(compile(source, "<fleet schema judge>", "exec"), names)  # noqa: S102 (our own rules' text)
    return names["judge"]


def _judge_source(tree: _Node) -> tuple[str, dict[str, Any]]:
    """The text of _judge's function, and the quick tests and types it names."""
    names: dict[str, Any] = {}
    lines = ["def judge(v0):", "    if v0 is None: return True"]
    _judge_node(tree, "v0", "    ", lines, names)
    lines.append("    return True")
    return "\n".join(lines) + "\n", names


def _judge_node(node: _Node, value: str, indent: str, lines: list[str], names: dict[str, Any]) -> None:
    """The lines judging `node`, whose value is in the variable `value` (None only where the node
    is required: then an absent object with fields below it fails)."""

    def name(thing: Any) -> str:
        names[f"n{len(names)}"] = thing
        return f"n{len(names) - 1}"

    # A required object with fields of its own is judged an object below: its Required(dict) is no test.
    implied = Required(dict) if node.children and node.required and not node.listed else None
    if None in node.fines:  # a rule without a quick test: the walk judges every such object
        lines.append(f"{indent}return False")
        return
    for rule, fine in zip(node.rules, node.fines, strict=True):
        if rule.check != implied:  # a test of literals written out, any other called
            quick = rule.check.quick(value) if hasattr(rule.check, "quick") else f"{name(fine)}({value})"
            lines.append(f"{indent}if not ({quick}): return False")
    if not node.children:
        return
    if node.required:
        lines.append(f"{indent}if {value} is None: return False")
    item = value
    if node.listed:  # a number is no list to loop: the walk names it
        item = f"v{len(lines)}"
        lines.append(f"{indent}if type({value}) is not list: return False")
        lines.append(f"{indent}for {item} in {value}:")
        indent += "    "
    lines.append(f"{indent}if type({item}) is not dict: return False")
    for field_name, child in node.children.items():
        found = f"v{len(lines)}"
        lines.append(f"{indent}{found} = {item}.get({field_name!r})")
        if kind := _typed(child):
            lines.append(f"{indent}if type({found}) is not {name(kind)}: return False")
        elif child.required:
            _judge_node(child, found, indent, lines, names)
        else:
            lines.append(f"{indent}if {found} is not None:")
            _judge_node(child, found, indent + "    ", lines, names)


def _typed(node: _Node) -> type | None:
    """The type of a leaf whose one rule requires a value of that type (Required(str): a string
    must be there), else None."""
    if node.children or len(node.rules) != 1 or not node.required:
        return None
    check = node.rules[0].check
    return check.kind if isinstance(check, Required) else None


_JUDGES = {kind: _judge(tree) for kind, tree in _TREES.items()}


def _holds(obj: dict[str, Any], field: str, below: str) -> bool:
    value = obj.get(field)
    return value is not None and (not isinstance(value, dict) or value.get(below) is not None)


def _walk(f: Fields, value: Any, node: _Node, path: str, version: str) -> None:
    for rule in node.rules:
        if rule.version is None or rule.version == version:
            rule.check(f, value, path)
    if not node.children or (value is None and not node.required):
        return
    if path and node.listed:
        for where, item in f.objects(value, path):
            _walk_children(f, item, node, where, version)
    else:
        _walk_children(f, value, node, path, version)


def _walk_children(f: Fields, value: Any, node: _Node, path: str, version: str) -> None:
    fields = value if type(value) is dict else f.mapping(value, path)
    for name, child in node.children.items():
        found = fields.get(name)
        if found is not None or child.required:
            _walk(f, found, child, f"{path}.{name}" if path else name, version)
