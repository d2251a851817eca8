"""OCM's CEL environment, as ocm `pkg/placement/helpers/cel.go` builds it: cel-go v0.29's standard
library, the variable `managedCluster` and member `scores(name)` (sdk-go ManagedClusterLib),
`parseJSON()` (sdk-go JsonLib) and sdk-go `pkg/cel/common.BaseEnvOpts`: cel.OptionalTypes(),
ext.Strings(), and Kubernetes' Lists, Regex, URLs, Quantity, IP, CIDR, Format and SemverLib
(version 0). Nothing else: `math.greatest` or `sets.contains` do not compile upstream either.

`check` resolves a parsed expression as cel-go's checker does, up to types: every identifier must
be declared (or bound by a macro), every function called in a form (global or member, with that
many arguments) one of its overloads has. The checker's type errors on operand types are not
reproduced: those surface here when the expression runs, as an evaluation error (no match). It
also marks each call with the registered function that evaluates it, where the Rust interpreter's
own is missing or differs (cel_library).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from adapters.ocm import cel_library
from adapters.ocm.cel_syntax import (
    Call,
    CelSyntaxError,
    Comprehension,
    Ident,
    Index,
    Literal,
    MakeList,
    MakeMap,
    Node,
    Select,
    children,
)

__all__ = ["VARIABLE", "check", "optional_kind", "REGISTERED"]

VARIABLE = "managedCluster"
_TYPE_IDENTS = frozenset(
    {"bool", "bytes", "double", "int", "list", "map", "null_type", "string", "type", "uint", "optional_type",
     "google.protobuf.Duration", "google.protobuf.Timestamp"}
)  # fmt: skip
# The Kubernetes types the IP and CIDR libraries declare as identifiers (cel.Types): rendered as
# their names, which is what `type()` of such a value gives here.
_KUBE_TYPE_IDENTS = frozenset({"net.IP", "net.CIDR"})
# Argument positions (the receiver first, for a member call) whose every overload takes one
# primitive type: a literal of another kind there is a compile error, as cel-go's checker says.
_STRING = frozenset({"string"})
_LIST = frozenset({"list"})
_LITERAL_KINDS: dict[str, tuple[frozenset[str], ...]] = {
    **{name: (_STRING,) for name in (
        "semver", "isSemver", "quantity", "isQuantity", "isIP", "ip.isCanonical", "cidr", "isCIDR", "url",
        "isURL", "format.named", "strings.quote", "charAt", "lowerAscii", "upperAscii", "replace", "split",
        "substring", "trim", "reverse", "format", "matches", "find", "findAll", "parseJSON", "contains",
        "startsWith", "endsWith",
    )},
    **{name: (_LIST,) for name in ("isSorted", "sum", "min", "max", "join", "first", "last", "unwrapOpt")},
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Decl:
    """A function: how many arguments its member overloads take after the receiver, how many its
    global ones take, which of those forms our registered function evaluates (None: all; empty:
    none, the interpreter's own does), whether its result is an optional (True, False; None:
    it may be), and whether it may be a Kubernetes value (so `==` on it needs cel_kube.equal)."""

    member: frozenset[int] = frozenset()
    global_: frozenset[int] = frozenset()
    ours: frozenset[int] | None = None
    optional: bool | None = False
    opaque: bool = False


def _d(member: Iterable[int] = (), global_: Iterable[int] = (), *, native: bool = False, **kw) -> Decl:
    return Decl(frozenset(member), frozenset(global_), frozenset() if native else None, **kw)


_CONVERSIONS = ("int", "uint", "double", "bytes", "timestamp", "duration", "dyn", "type")
_GETTERS = ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
            "getHours", "getMinutes", "getSeconds", "getMilliseconds")  # fmt: skip
_KUBE_VALUES = ("semver", "quantity", "add", "sub", "ip", "cidr", "masked", "url") + tuple(
    f"format.{n}" for n in ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName",
                            "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix",
                            "labelValue", "uri", "uuid", "byte", "date", "datetime")
)  # fmt: skip

DECLS: dict[str, Decl] = {
    # cel-go standard library
    "size": _d([0], [1]),
    "string": _d(global_=[1]),
    "bool": _d(global_=[1]),
    "matches": _d([1], [2]),
    **{name: _d(global_=[1], native=True) for name in _CONVERSIONS},
    **{name: _d([1], native=True) for name in ("contains", "startsWith", "endsWith")},
    **{name: Decl(frozenset({0, 1}), ours=frozenset({1})) for name in _GETTERS},
    # optional library
    "optional.of": _d(global_=[1], native=True, optional=True),
    "optional.ofNonZeroValue": _d(global_=[1], native=True, optional=True),
    "optional.none": _d(global_=[0], native=True, optional=True),
    "value": _d([0], native=True, optional=None),
    "hasValue": _d([0], native=True),
    "or": _d([1], native=True, optional=True),
    "orValue": _d([1], native=True, optional=None),
    "first": _d([0], optional=True),
    "last": _d([0], optional=True),
    "optional.unwrap": _d(global_=[1]),
    "unwrapOpt": _d([0]),
    # strings extension
    "charAt": _d([1]), "indexOf": _d([1, 2]), "lastIndexOf": _d([1, 2]), "lowerAscii": _d([0]),
    "upperAscii": _d([0]), "replace": _d([2, 3]), "split": _d([1, 2]), "substring": _d([1, 2]),
    "trim": _d([0]), "join": _d([0, 1]), "reverse": _d([0]), "strings.quote": _d(global_=[1]),
    "format": _d([1]),
    # Kubernetes lists and regex
    "isSorted": _d([0]), "sum": _d([0]), "min": _d([0]), "max": _d([0]),
    "find": _d([1]), "findAll": _d([1, 2]),
    # Kubernetes semver (version 0), quantity, IP, CIDR, URLs, format
    "semver": _d(global_=[1]), "isSemver": _d(global_=[1]),
    "major": _d([0]), "minor": _d([0]), "patch": _d([0]),
    "isGreaterThan": _d([1]), "isLessThan": _d([1]), "compareTo": _d([1]),
    "quantity": _d(global_=[1]), "isQuantity": _d(global_=[1]), "sign": _d(global_=[1]),
    "asApproximateFloat": _d([0]), "asInteger": _d([0]), "isInteger": _d([0]),
    "add": _d([1]), "sub": _d([1]),
    "ip": _d([0], [1]), "isIP": _d(global_=[1]), "ip.isCanonical": _d(global_=[1]), "family": _d([0]),
    "isUnspecified": _d([0]), "isLoopback": _d([0]), "isLinkLocalMulticast": _d([0]),
    "isLinkLocalUnicast": _d([0]), "isGlobalUnicast": _d([0]),
    "cidr": _d(global_=[1]), "isCIDR": _d(global_=[1]), "containsIP": _d([1]), "containsCIDR": _d([1]),
    "prefixLength": _d([0]), "masked": _d([0]),
    "url": _d(global_=[1]), "isURL": _d(global_=[1]), "getScheme": _d([0]), "getHost": _d([0]),
    "getHostname": _d([0]), "getPort": _d([0]), "getEscapedPath": _d([0]), "getQuery": _d([0]),
    "format.named": _d(global_=[1], optional=True, opaque=True),
    "validate": _d([1], optional=True),
    **{name: _d(global_=[0]) for name in _KUBE_VALUES if name.startswith("format.")},
    # OCM
    "scores": _d([1]),
    "parseJSON": _d([0]),
}  # fmt: skip
for _name in _KUBE_VALUES:
    DECLS[_name] = Decl(DECLS[_name].member, DECLS[_name].global_, DECLS[_name].ours, opaque=True)

# The registered functions: those with forms of ours, plus the interpreter's fallbacks for the
# conversions it lacks (int(timestamp), timestamp(int)), which keep their own names.
REGISTERED = sorted(
    [n for n, d in DECLS.items() if d.ours is None and n != "scores"]
    + [f"{g}@tz" for g in _GETTERS]
    + ["type"]
)
FALLBACKS = ("int", "timestamp")
EQUALS = {"_==_": "equal", "_!=_": "not_equal"}


def check(source: str, tree: Node) -> None:
    """Raise CelSyntaxError as cel-go's checker would for an undeclared identifier or a call no
    overload takes; mark each call with the registered function that evaluates it."""
    _Checker(source).visit(tree, frozenset())


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, node: Node, message: str) -> None:
        raise CelSyntaxError(self.source, node.pos, message)

    def visit(self, n: Node, bound: frozenset[str]) -> None:
        if isinstance(n, Ident):
            if n.name not in bound and n.name != VARIABLE and n.name not in _TYPE_IDENTS:
                self.fail(n, f"undeclared reference to '{n.name}' (in container '')")
            return
        if isinstance(n, Select) and _root(n) not in bound:
            qualified = _qualified(n)
            if qualified in _TYPE_IDENTS:
                return
            if qualified in _KUBE_TYPE_IDENTS:
                n.literal = f'"{qualified}"'
                return
        if isinstance(n, Comprehension):
            self.visit(n.target, bound)
            for arg in n.args:
                self.visit(arg, bound | {n.variable})
            return
        if isinstance(n, Call):
            self.call(n, bound)
            return
        for child in children(n):
            self.visit(child, bound)

    def call(self, n: Call, bound: frozenset[str]) -> None:
        if n.name in EQUALS and n.target is None:
            for arg in n.args:
                self.visit(arg, bound)
            if any(_maybe_kube_value(a) for a in n.args):
                n.impl = cel_library.impl_name(EQUALS[n.name])
            return
        if n.name == "type" and n.target is None and len(n.args) == 1 and _maybe_kube_value(n.args[0]):
            self.visit(n.args[0], bound)
            n.impl = cel_library.impl_name("type")
            return
        if n.name.startswith(("_", "!", "-", "@")) or n.name == "has":
            for child in children(n):
                self.visit(child, bound)
            return
        if n.target is not None:
            qualified = _qualified(n.target)
            if qualified is not None and _root(n.target) not in bound | {VARIABLE}:
                name = f"{qualified}.{n.name}"
                if name in DECLS and DECLS[name].global_:
                    n.name, n.target = name, None
        for child in children(n):
            self.visit(child, bound)
        decl = DECLS.get(n.name)
        member = n.target is not None
        if decl is None:
            self.fail(n, f"undeclared reference to '{n.name}' (in container '')")
        arities = decl.member if member else decl.global_
        operands = ([n.target] if member else []) + n.args
        kinds = _LITERAL_KINDS.get(n.name, ())
        literal_mismatch = any(
            _literal_kind(x) not in (None, *allowed) for x, allowed in zip(operands, kinds, strict=False)
        )
        if len(n.args) not in arities or literal_mismatch:
            self.fail(n, f"found no matching overload for '{n.name}' applied to '{_signature(n)}'")
        if decl.ours is None or len(n.args) in decl.ours:
            n.impl = cel_library.impl_name(n.name if decl.ours is None else f"{n.name}@tz")
        if n.name == "format" and isinstance(n.target, Literal) and isinstance(n.args[0], MakeList):
            self.format_call(n, n.target, n.args[0])

    def format_call(self, n: Call, template: Literal, args: MakeList) -> None:
        """cel-go's string format validator: a constant template formatting a list literal is
        checked at compile time, clause by clause, and every argument must be used."""
        if template.kind != "string":
            return
        requested = 0
        try:
            for _, verb, _, index in cel_library.format_clauses(template.value, len(args.items)):
                if verb is not None:
                    requested += 1
                    self.format_argument(verb, args.items[index])
        except cel_library.CelError as err:
            self.fail(n, str(err))
        if len(args.items) > requested:
            got = len(args.items)
            self.fail(n, f"too many arguments supplied to string.format (expected {requested}, got {got})")

    def format_argument(self, verb: str, arg: Node) -> None:
        kind = _literal_kind(arg)
        if kind is not None and kind not in cel_library.CLAUSE_TYPES[verb]:
            message = f"error during formatting: {cel_library.CLAUSE_ERRORS[verb]}, was given {kind}"
            self.fail(arg, message)
        if verb == "s":  # a list or map written out: its elements too
            inner = arg.items if isinstance(arg, MakeList) else []
            if isinstance(arg, MakeMap):
                inner = [x for k, v, _ in arg.entries for x in (k, v)]
            for item in inner:
                self.format_argument(verb, item)


def _root(n: Node) -> str | None:
    while isinstance(n, Select):
        n = n.operand
    return n.name if isinstance(n, Ident) else None


def _qualified(n: Node) -> str | None:
    names = []
    while isinstance(n, Select) and not n.optional:
        names.append(n.name)
        n = n.operand
    if not isinstance(n, Ident):
        return None
    return ".".join([n.name, *reversed(names)])


_KUBE_RESULTS = {
    "semver": "kubernetes.Semver", "quantity": "kubernetes.Quantity", "add": "kubernetes.Quantity",
    "sub": "kubernetes.Quantity", "ip": "net.IP", "cidr": "net.CIDR", "masked": "net.CIDR",
    "url": "kubernetes.URL",
}  # fmt: skip


def _literal_kind(n: Node) -> str | None:
    """The type of a literal, a list or a map written out, or a call to a Kubernetes value's
    constructor; None for anything else (its type is not known here)."""
    if isinstance(n, Literal):
        return {"null": "null_type"}.get(n.kind, n.kind)
    if isinstance(n, MakeList):
        return "list"
    if isinstance(n, MakeMap):
        return "map"
    if isinstance(n, Call):
        if n.name.startswith("format.") and n.name != "format.named":
            return "kubernetes.NamedFormat"
        return _KUBE_RESULTS.get(n.name)
    return None


def _type_of(n: Node) -> str:
    """The type cel-go's checker would name in an overload error, as far as the syntax tells."""
    if isinstance(n, Literal | Call) and _literal_kind(n) is not None:
        return _literal_kind(n)  # type: ignore[return-value]
    if isinstance(n, MakeList):
        kinds = {_type_of(x) for x in n.items}
        return f"list({kinds.pop() if len(kinds) == 1 else 'dyn'})"
    if isinstance(n, MakeMap):
        keys, values = {_type_of(k) for k, _, _ in n.entries}, {_type_of(v) for _, v, _ in n.entries}
        key = keys.pop() if len(keys) == 1 else "dyn"
        value = values.pop() if len(values) == 1 else "dyn"
        return f"map({key}, {value})"
    return "dyn"


def _signature(n: Call) -> str:
    args = ", ".join(_type_of(a) for a in n.args)
    return f"{_type_of(n.target)}.({args})" if n.target is not None else f"({args})"


def _maybe_kube_value(n: Node) -> bool:
    """Whether a node can evaluate to a Kubernetes value (semver, quantity, URL, IP, CIDR, format)."""
    if isinstance(n, Call):
        decl = DECLS.get(n.name)
        if decl is not None and decl.opaque:
            return True
        if n.name == "_?_:_":
            return any(_maybe_kube_value(a) for a in n.args[1:])
        if n.name == "dyn":
            return any(_maybe_kube_value(a) for a in n.args)
    if isinstance(n, Index):
        return _maybe_kube_value(n.operand)
    if isinstance(n, MakeList):
        return any(_maybe_kube_value(x) for x in n.items)
    return False


def optional_kind(n: Node) -> bool | None:
    """Whether a node yields an optional value (True), never does (False), or may (None): what the
    renderer needs to lower `a.?b` without wrapping an optional twice."""
    if isinstance(n, Literal | MakeList | MakeMap):
        return False
    if isinstance(n, Select | Index):
        if n.optional:
            return True
        inner = optional_kind(n.operand)
        if inner is True:
            return True
        return False if _root(n) == VARIABLE and inner is False else None
    if isinstance(n, Ident):
        return False if n.name == VARIABLE or n.name in _TYPE_IDENTS else None
    if isinstance(n, Comprehension):
        return n.macro in ("optMap", "optFlatMap")
    if isinstance(n, Call):
        if n.name == "_?_:_":
            kinds = {optional_kind(a) for a in n.args[1:]}
            return kinds.pop() if len(kinds) == 1 else None
        if n.name == "dyn":
            return optional_kind(n.args[0])
        decl = DECLS.get(n.name)
        return decl.optional if decl is not None else False
    return None
