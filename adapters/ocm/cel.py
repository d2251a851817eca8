"""OCM Placement CEL selectors: `requiredClusterSelector.celSelector.celExpressions`.

Upstream (ocm `pkg/placement/helpers/cel.go`) compiles each expression once in the environment
cel_env describes (cel-go's standard library, the optional types, cel-go's strings extension,
Kubernetes' lists, regex, URL, quantity, IP, CIDR, format and semver libraries, and OCM's
`managedCluster` variable, `managedCluster.scores(name)` and `parseJSON()`), and evaluates it
against each cluster. A cluster matches an expression only when it evaluates to boolean true: an
evaluation error, a non-bool result or an exhausted cost budget all mean "no match", never an
error. A compile error makes the whole placement Misconfigured.

`scores(name)` gives the `status.scores` of the AddOnPlacementScore `name` in the namespace the
receiver's metadata.name names, as `{name, value}` maps; `validUntil` is ignored; a missing object
is an evaluation error.

The evaluator is the Rust CEL interpreter of `common-expression-language` (module `cel`), chosen
over the pure-Python `cel-python` by measurement (README, "Why these libraries"). What it lacks,
this module and its neighbours add:
* the checker (cel_syntax parses as cel-go does, cel_env resolves): an undeclared identifier or
  function, or a call in a form no overload has (`semver("1.0", true)`: SemverLib is at version
  0 upstream), is a compile error, displayed as cel-go displays its issues. Operand type errors
  (`1 + "a"`) surface only at run time (no match), where cel-go's checker refuses them.
* the optional syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`, `optMap`, `optFlatMap`), lowered by
  cel_syntax onto the interpreter's optional values;
* the functions it lacks or evaluates otherwise than cel-go (cel_library, cel_kube): the
  Kubernetes libraries, the strings extension, `size` of a string in code points, Go's `string()`
  formatting, RE2 for `matches`, `int(timestamp)`, `timestamp(int)`, getters with a time zone.
* cel-go's runtime cost budget: the interpreter has none and cannot be interrupted. The guard here
  is static: the comprehension nesting depth of the source is known at compile time, and before an
  evaluation whose nesting is 2 or more the work is bounded from above by
  `comprehensions * n ** depth`, n being the largest list or map in the input (cluster, scores,
  list literals). Above `COST_LIMIT` the cluster does not match, as when upstream's budget runs
  out. Depth 0 or 1 is linear in the input and the expression and is never refused. Not bounded:
  values that double along a chain of `map` calls over one-element lists (2^k for k links).

Supported: everything upstream's environment declares. cel-go's standard library (operators,
`in`, ternary, `has()`, `all`/`exists`/`exists_one`/`map` (two and three arguments)/`filter`,
`size`, conversions `int`/`uint`/`double`/`string`/`bytes`/`bool`/`timestamp`/`duration`/`dyn`/
`type`, `contains`/`startsWith`/`endsWith`/`matches`, timestamp getters with or without a time
zone); the optional library (`optional.of`/`ofNonZeroValue`/`none`, `value`, `hasValue`, `or`,
`orValue`, `optMap`, `optFlatMap`, `first`, `last`, `optional.unwrap`, `unwrapOpt` and the
optional syntax); the strings extension (`charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`,
`upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `reverse`, `strings.quote`,
`format`); Kubernetes lists (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`), regex
(`find`, `findAll`), URLs (`url`, `isURL`, `getScheme`, `getHost`, `getHostname`, `getPort`,
`getEscapedPath`, `getQuery`), quantity (`quantity`, `isQuantity`, `sign`, `isGreaterThan`,
`isLessThan`, `compareTo`, `asApproximateFloat`, `asInteger`, `isInteger`, `add`, `sub`), IP
(`ip`, `isIP`, `ip.isCanonical`, `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`,
`isLinkLocalUnicast`, `isGlobalUnicast`, `string`), CIDR (`cidr`, `isCIDR`, `containsIP`,
`containsCIDR`, `ip`, `prefixLength`, `masked`, `string`), format (`format.named`,
`format.<name>()`, `validate`) and semver (`semver`, `isSemver`, `major`, `minor`, `patch`,
`isGreaterThan`, `isLessThan`, `compareTo`); OCM's `scores` and `parseJSON`.
Not exactly as upstream: the checker's type errors beyond literals (run-time errors here, see
above); `type()` of a Kubernetes value other than an IP or CIDR is `map` here; `==` and `in`
between Kubernetes values found only through variables (`[quantity("1")].all(q, q == r)`) compare
them as maps; the string form of a timestamp keeps microseconds, not nanoseconds; message
construction (`google.protobuf.Int64Value{...}`) does not evaluate; and `managedCluster` is the
object as given, where upstream converts its typed ManagedCluster (so there `apiVersion` and
`kind` are absent, `spec.hubAcceptsClient` and `status.version` always present, quantities
canonical and unknown fields gone; objects exported from a hub differ only in the first).
Not in upstream's environment, so refused: `math.*`, `sets.*`, `base64.*`, `lists.*`,
two-variable comprehensions, `cel.bind`, `semver(s, normalize)`.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.ocm import cel_env, cel_library
from adapters.ocm.cel_fast import Unsure, compile_plain, converts
from adapters.ocm.cel_package import cel as _cel
from adapters.ocm.cel_syntax import (
    Call,
    CelSyntaxError,
    Comprehension,
    Ident,
    Index,
    Literal,
    MakeList,
    Node,
    Select,
    children,
    parse,
    render,
)

__all__ = ["COST_LIMIT", "CelCompileError", "CelProgram", "compile_expression", "matching_clusters"]

#: Upper bound on the comprehension iterations one evaluation may do (cel-go's default per-call
#: cost limit in the Kubernetes apiserver is 1,000,000 units; one iteration costs at least one).
COST_LIMIT = 1_000_000

_VARIABLE = cel_env.VARIABLE
_ITERATING = frozenset({"all", "exists", "exists_one", "map", "filter"})


class CelCompileError(Exception):
    """A CEL expression that does not compile; `str(err)` is the issue as cel-go displays it.
    Upstream reports it in the Placement status as Misconfigured."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        super().__init__(message)


_WHOLE = None  # in a keep tree: the value is used as a whole

# What an expression can see of a value: the keys read from it, each with what is seen of its
# value (a tree of the same kind), or _WHOLE.
Keep = dict[str, "Keep | None"]


@dataclass(frozen=True)
class _Shape:
    """What the lexical scan of a source tells: comprehension variables, nesting, literal sizes,
    which parts of the cluster the expression can see (`keep`, None for all of it), and what its
    answer for a cluster is a function of (`alike`, see _alike)."""

    bound: frozenset[str]
    depth: int
    comprehensions: int
    widest_literal: int
    keep: Keep | None
    alike: tuple[Keep, tuple[str, ...]] | None = None


def _shape(tree: Node) -> _Shape:
    """What the tree tells about the work and the data: comprehension variables, nesting, the
    longest list literal, and the parts of the cluster the expression can see."""
    bound: set[str] = set()
    comprehensions = widest = 0
    depth = 0
    todo: list[tuple[Node, int]] = [(tree, 0)]
    while todo:
        node, nesting = todo.pop()
        if isinstance(node, Comprehension):
            bound.add(node.variable)
            if node.macro in _ITERATING:
                comprehensions += 1
                depth = max(depth, nesting + 1)
                todo.append((node.target, nesting))
                todo.extend((arg, nesting + 1) for arg in node.args)
                continue
        if isinstance(node, MakeList):
            widest = max(widest, len(node.items))
        todo.extend((child, nesting) for child in children(node))
    keep, alike = (None, None) if _VARIABLE in bound else _visible(tree)
    # From depth 2 the cost guard reads every score of the cluster: no two clusters are alike.
    return _Shape(frozenset(bound), depth, comprehensions, widest, keep, None if depth >= 2 else alike)


def _visible(tree: Node) -> tuple[Keep | None, tuple[Keep, tuple[str, ...]] | None]:
    """The fields of `managedCluster` the expression can observe, as a tree of keys; None when it
    may observe the whole object. A map is narrowed only where every use of it is a select of a
    constant key (`m.k`, `m["k"]`, `m.?k`), at any depth: then no operation (size, iteration,
    `in`, equality, a computed index, a function call) sees the keys left out, and the result
    cannot change. The receiver of `scores` reads only metadata.name. Dropping the rest saves
    converting it into the library's values, the main cost of an evaluation.

    Also what the answer for a cluster is a function of (_alike)."""
    keep: Keep = {}
    parents: dict[int, Node] = {}
    uses: list[Ident] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, Ident) and node.name == _VARIABLE:
            uses.append(node)
        for child in children(node):
            parents[id(child)] = node
            todo.append(child)
    receivers: list[Call] = []
    for use in uses:
        parent = parents.get(id(use))
        if isinstance(parent, Call) and parent.name == "scores" and parent.target is use:
            receivers.append(parent)
            continue
        path: list[str] = []
        node: Node = use
        while (key := _constant_key(parent, node)) is not None:
            path.append(key)
            node, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
        if not path:
            return None, None
        _add(keep, path)
    alike = _alike(receivers, keep)
    if receivers:
        keep = copy.deepcopy(keep)
        _add(keep, ["metadata", "name"])
    return keep, alike


def _add(keep: Keep, path: list[str]) -> None:
    """The value at `path` seen whole (unless a shorter path is already seen whole)."""
    for key in path[:-1]:
        if key in keep and keep[key] is _WHOLE:
            return
        keep = keep.setdefault(key, {})  # type: ignore[assignment]
    keep[path[-1]] = _WHOLE


def _alike(receivers: list[Call], direct: Keep) -> tuple[Keep, tuple[str, ...]] | None:
    """What the answer for a cluster is a function of, the expression and the hub's scores given:
    the fields it sees but for the name (`direct`), and the AddOnPlacementScores of the cluster
    it asks for by name (string literals), where its only use of the name is the receiver of
    `scores`. Clusters equal in both give the same answer, so it is evaluated once for them
    (most differ only in fields no expression reads). None where no such function is known:
    a score asked for by a computed name."""
    metadata = direct.get("metadata", {})
    if not receivers or metadata is _WHOLE or "name" in metadata:
        return direct, ()
    names = []
    for call in receivers:
        arg = call.args[0] if len(call.args) == 1 else None
        if not (isinstance(arg, Literal) and arg.kind == "string"):
            return None
        names.append(arg.value)
    return direct, tuple(sorted(set(names)))  # type: ignore[arg-type]


def _constant_key(node: Node | None, operand: Node) -> str | None:
    """The key `node` selects from `operand` when it is a constant select, else None."""
    if isinstance(node, Select) and node.operand is operand:
        return node.name
    if (
        isinstance(node, Index)
        and node.operand is operand
        and isinstance(node.index, Literal)
        and node.index.kind == "string"
    ):
        return node.index.value  # type: ignore[return-value]
    return None


def _narrow(value: Mapping[str, Any], keep: Keep) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, inner in keep.items():
        got = value.get(key, _ABSENT)
        if got is _ABSENT:
            continue
        out[key] = got if inner is _WHOLE or not isinstance(got, Mapping) else _narrow(got, inner)
    return out


_ABSENT = object()


def _converts_seen(value: Mapping[str, Any], keep: Keep | None) -> bool:
    """Whether what the expression sees of `value` (_narrow's, or all of it) converts into the
    interpreter's values (adapters.ocm.cel_fast.converts)."""
    if keep is None:
        return converts(value)
    for key, inner in keep.items():
        got = value.get(key, _ABSENT)
        if got is _ABSENT:
            continue
        if inner is _WHOLE or not (type(got) is dict or isinstance(got, Mapping)):
            if not converts(got):
                return False
        elif not _converts_seen(got, inner):
            return False
    return True


def _widest(value: Any) -> int:
    """The size of the largest list or map inside a value."""
    widest = 0
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, Mapping):
            widest = max(widest, len(v))
            todo.extend(v.values())
        elif isinstance(v, list | tuple):
            widest = max(widest, len(v))
            todo.extend(v)
    return widest


def _all_functions(scores: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """Every function a rendered expression may call, by the name it calls it."""
    functions = cel_library.registered(cel_env.REGISTERED)
    functions[cel_library.impl_name("scores")] = cel_library.quiet(scores)
    functions[cel_library.impl_name("equal")] = cel_library.quiet(cel_library.equal)
    functions[cel_library.impl_name("not_equal")] = cel_library.quiet(cel_library.not_equal)
    for name, fn in cel_library.FUNCTIONS_OPTIONAL.items():  # what the optional syntax is lowered onto
        functions[name] = cel_library.quiet(fn)
    for name in cel_env.FALLBACKS:  # the interpreter calls these where its own do not apply
        functions[name] = cel_library.quiet(cel_library.FUNCTIONS[name])
    return functions


_FUNCTION_NAMES = frozenset(_all_functions(lambda *_: None))


class _Bound:
    """The per-thread evaluation contexts, one per set of functions the programs call (the
    interpreter's cost per evaluation grows with the functions a context holds); `scores` reads
    the current lookup from here, so nothing is rebuilt per cluster but the variable."""

    def __init__(self) -> None:
        self.scores_of: Callable[[str], Mapping[str, list[Mapping[str, Any]]]] = _no_scores
        self.functions = _all_functions(self._scores)
        self.contexts: dict[frozenset[str], Any] = {}

    def context(self, names: frozenset[str]) -> Any:
        context = self.contexts.get(names)
        if context is None:
            functions = {n: self.functions[n] for n in names}
            context = self.contexts[names] = _cel.Context(functions=functions)
        return context

    def _scores(self, receiver: Any, name: Any) -> Any:
        """sdk-go's clusterScores: the object `name` in the namespace the receiver names."""
        cluster = receiver["metadata"]["name"]
        if type(cluster) is not str or type(name) is not str:
            raise TypeError("no such overload")
        items = self.scores_of(cluster).get(name)
        if items is None:
            raise LookupError(f"failed to get score: addonplacementscore {name!r} not found")
        return [{"name": s.get("name"), "value": s.get("value")} for s in items]


def _no_scores(_: str) -> Mapping[str, list[Mapping[str, Any]]]:
    return {}


_local = threading.local()


def _bound() -> _Bound:
    b = getattr(_local, "bound", None)
    if b is None:
        b = _local.bound = _Bound()
    return b


@dataclass(frozen=True, eq=False)
class CelProgram:
    """One compiled CEL expression. `matches` never raises: anything but `true` is no match."""

    source: str
    _program: Any = field(repr=False)
    _shape: _Shape = field(repr=False)
    _functions: frozenset[str] = field(repr=False, default=frozenset())  # the registered ones it calls
    # The expression in Python where it is plain (adapters.ocm.cel_fast), else None.
    _plain: Callable[..., bool] | None = field(repr=False, default=None)

    def matches(self, cluster: Mapping[str, Any], scores: Mapping[str, list[Mapping[str, Any]]]) -> bool:
        """Whether `cluster` (a ManagedCluster as a dict) satisfies the expression; `scores` maps an
        AddOnPlacementScore name to its status.scores in this cluster's namespace (absent: the
        object is missing)."""
        name = _name_of(cluster)
        return _evaluate(self, _bound(), cluster, lambda n: scores if n == name else {})


def _name_of(cluster: Any) -> Any:
    try:
        return cluster["metadata"]["name"]
    except (KeyError, TypeError):
        return None


def _evaluate(
    program: CelProgram,
    b: _Bound,
    cluster: Mapping[str, Any],
    scores_of: Callable[[str], Mapping[str, Any]],
) -> bool:
    shape = program._shape
    if shape.keep is not None and isinstance(cluster, Mapping):
        cluster = _narrow(cluster, shape.keep)
    if shape.depth >= 2:
        n = max(_widest(cluster), _widest(scores_of(_name_of(cluster))), shape.widest_literal, 1)
        if shape.comprehensions * n**shape.depth > COST_LIMIT:
            return False
    b.scores_of = scores_of
    try:
        context = b.context(program._functions)
        context.add_variable(_VARIABLE, cluster)
        result = program._program.execute(context)
    except Exception:  # the library raises RuntimeError, KeyError, ValueError, ZeroDivisionError...
        return False
    finally:
        b.scores_of = _no_scores
    return result is True


_cache: dict[str, CelProgram] = {}
_cache_lock = threading.Lock()


def compile_expression(source: str) -> CelProgram:
    """Compile one CEL expression (cached by source). Raises CelCompileError where upstream's
    compilation fails: a syntax error, an undeclared reference, a call no overload takes."""
    program = _cache.get(source)
    if program is not None:
        return program
    try:
        tree = parse(source)
        cel_env.check(source, tree)
    except CelSyntaxError as err:
        raise CelCompileError(str(source), str(err)) from None
    compiled = _cel.compile(render(tree, cel_env.optional_kind))
    functions = frozenset(compiled.references()["functions"]) & _FUNCTION_NAMES
    shape = _shape(tree)
    # From depth 2 the cost guard may refuse a cluster before the interpreter sees it.
    plain = compile_plain(tree, _VARIABLE) if shape.depth < 2 else None
    program = CelProgram(source, compiled, shape, functions, plain)
    with _cache_lock:
        _cache.setdefault(source, program)
    return _cache[source]


def matching_clusters(
    program: CelProgram,
    clusters: Sequence[Mapping[str, Any]],
    scores_of: Callable[[str], Mapping[str, list[Mapping[str, Any]]]],
    lists: dict[int, Any] | None = None,
) -> list[bool]:
    """`program.matches` over many clusters, in order; `scores_of(namespace)` gives the
    AddOnPlacementScores of a namespace (a cluster's, by upstream's convention) by name. Only the
    variable changes between clusters (one context per thread), and clusters alike for the
    expression (_alike) are evaluated once: a fleet's clusters differ mostly in fields no
    expression reads (names, ids, conditions). Where the first clusters are nearly all unlike,
    the rest are not compared (the comparison would cost more than it saves). A plain expression
    is answered in Python where the answer cannot differ (adapters.ocm.cel_fast), a tenth of an
    evaluation's cost; `lists` (a dict the caller gives each call over the same clusters and
    `scores_of`) keeps its scores() lists, made once for every expression reading them."""
    b = _bound()
    alike = program._shape.alike
    plain, keep = program._plain, program._shape.keep
    known: dict[tuple[str, tuple[str, ...]], bool] = {}
    out: list[bool] = []
    append = out.append
    for at, cluster in enumerate(clusters):
        name = _name_of(cluster)
        if name is None:
            append(False)
            continue
        mapping = type(cluster) is dict or isinstance(cluster, Mapping)
        if plain is not None and mapping and _converts_seen(cluster, keep):
            try:
                append(plain(cluster, scores_of, lists))
                continue
            except Unsure:
                pass
        if at == _SAMPLE and len(known) > _UNLIKE * _SAMPLE:
            alike = None
        if alike is None or not mapping:
            append(_evaluate(program, b, cluster, scores_of))
            continue
        seen, reads = alike
        scores = scores_of(name) if reads else {}
        key = (repr(_narrow(cluster, seen)), tuple(repr(scores.get(r)) for r in reads))
        answer = known.get(key)
        if answer is None:
            answer = known[key] = _evaluate(program, b, cluster, scores_of)
        append(answer)
    return out


# After this many clusters, more than this share of them unlike: stop looking for alike ones.
_SAMPLE, _UNLIKE = 256, 0.9
