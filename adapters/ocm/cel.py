"""OCM Placement CEL selectors: `requiredClusterSelector.celSelector.celExpressions`.

Upstream (ocm `pkg/placement/helpers/cel.go` with the sdk-go ManagedCluster library) compiles each
expression once in a cel-go environment that declares the variable `managedCluster` (the whole
ManagedCluster as unstructured data) and the member function `managedCluster.scores(name)` (the
`status.scores` of the AddOnPlacementScore `name` in the cluster's namespace, as `{name, value}`
maps; `validUntil` is ignored; a missing object is an evaluation error). A cluster matches an
expression only when it evaluates to boolean true: an evaluation error, a non-bool result or an
exhausted cost budget all mean "no match", never an error. A compile error makes the whole
placement Misconfigured.

The evaluator is the Rust CEL interpreter of `common-expression-language` (module `cel`), chosen
over the pure-Python `cel-python` by measurement (README, "Why these libraries"). It parses CEL
and treats `x.f(a)` as `f(x, a)`, so `managedCluster.scores("n")` is a plain registered function
whose first argument is the receiver: the upstream syntax works as written, with no rewriting.

What the library lacks, this module adds:
* cel-go's checker rejects undeclared identifiers and functions at compile time (`invalid.expr`
  is a compile error upstream); cel-rust only fails at run time. `compile_expression` checks the
  references the library reports against what the environment declares, so those stay
  CelCompileErrors. Operand type errors (`1 + "a"`) still surface only at run time (no match).
* cel-go has a runtime cost budget; cel-rust has none and cannot be interrupted. The guard here
  is static: the comprehension nesting depth of the source is known at compile time, and before
  an evaluation whose nesting is 2 or more the work is bounded from above by
  `comprehensions * n ** depth`, n being the largest list or map in the input (cluster, scores,
  list literals). Above `COST_LIMIT` the cluster does not match, as when upstream's budget runs
  out. Depth 0 or 1 is linear in the input and the expression and is never refused. Not bounded:
  values that double along a chain of `map` calls over one-element lists (2^k for k links).

Supported: the CEL core of cel-rust (operators, `in`, ternary, `has()`, `all`/`exists`/
`exists_one`/`map`/`filter`, `size`, `int`/`uint`/`double`/`string`/`bytes`/`timestamp`/
`duration`/`dyn`/`type`, `contains`/`startsWith`/`endsWith`/`matches`, timestamp getters);
from the library's cel-go-style extensions: the strings (`charAt`, `indexOf`, `lastIndexOf`,
`substring`, `replace`, `split`, `join`, `lowerAscii`, `upperAscii`, `trim`, `reverse`,
`strings.quote`), math (`math.greatest`, `math.least`, `math.abs`, ...), sets (`sets.contains`,
`sets.equivalent`, `sets.intersects`) and list aggregates `min`/`max`/`sum` (Kubernetes'
spelling) plus `bool()`; and the JSON helper `s.parseJSON()` (a JSON string to CEL values).
Not supported: optional syntax (`a.?b`, `[?i]`), two-variable comprehensions, `fold`, the
Kubernetes `quantity`/`semver`/`url`/`ip`/`cidr` libraries, `lists.range` (unbounded work).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cel as _cel
from cel import stdlib as _stdlib

__all__ = ["COST_LIMIT", "CelCompileError", "CelProgram", "compile_expression", "matching_clusters"]

#: Upper bound on the comprehension iterations one evaluation may do (cel-go's default per-call
#: cost limit in the Kubernetes apiserver is 1,000,000 units; one iteration costs at least one).
COST_LIMIT = 1_000_000

_VARIABLE = "managedCluster"
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})

# Extensions from the library, minus those that would shadow a native function (the lists
# `contains`, which is slower and differs on strings) or allow unbounded work (`lists.range`).
_EXTENSIONS: dict[str, Callable[..., Any]] = {
    name: fn for lib in ("core", "strings", "math", "sets") for name, fn in _stdlib.EXTENSIONS[lib].items()
}


class _Unconvertible:
    """Returned by a bound function to make the call an evaluation error. cel-rust logs a warning
    for every Python exception a function raises; a value it cannot convert fails silently."""

    __slots__ = ()


_ERROR = _Unconvertible()


def _parse_json(text: Any) -> Any:
    if not isinstance(text, str):
        return _ERROR
    try:
        return json.loads(text)
    except ValueError:
        return _ERROR


# Native functions and operators as `Program.functions()` names them; anything else must be one
# of ours or the call is an undeclared reference (a compile error, as with cel-go's checker).
_NATIVE_FUNCTIONS = frozenset(
    {
        "_+_", "_-_", "_*_", "_/_", "_%_", "-_", "!_", "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
        "_&&_", "_||_", "_?_:_", "_[_]", "@in", "@not_strictly_false",
        "size", "int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration", "dyn",
        "type", "contains", "startsWith", "endsWith", "matches", "has",
        "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
        "getHours", "getMinutes", "getSeconds", "getMilliseconds",
    }
)  # fmt: skip
_OWN_FUNCTIONS = frozenset({"scores", "parseJSON"})
# A namespaced call `math.greatest(x)` is reported as variable `math`, function `greatest`.
_NAMESPACES = frozenset(name.split(".", 1)[0] for name in _EXTENSIONS if "." in name)
_KNOWN_FUNCTIONS = _NATIVE_FUNCTIONS | _OWN_FUNCTIONS | {name.rsplit(".", 1)[-1] for name in _EXTENSIONS}
_TYPE_NAMES = frozenset(
    {"int", "uint", "double", "string", "bool", "bytes", "list", "map", "null_type", "type",
     "timestamp", "duration", "dyn"}
)  # fmt: skip
_KNOWN_VARIABLES = frozenset({_VARIABLE}) | _TYPE_NAMES | _NAMESPACES


class CelCompileError(Exception):
    """A CEL expression that does not compile; `str(err)` is the library's readable message.
    Upstream reports it in the Placement status as Misconfigured."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        super().__init__(message)


_WHOLE = None  # in a keep map: the subtree is used as a whole


@dataclass(frozen=True)
class _Shape:
    """What the lexical scan of a source tells: comprehension variables, nesting, literal sizes,
    and which parts of the cluster the expression can see (`keep`, None for all of it)."""

    bound: frozenset[str]
    depth: int
    comprehensions: int
    widest_literal: int
    keep: Mapping[str, frozenset[str] | None] | None


def _scan(source: str) -> _Shape:
    """Scan tokens (string literals skipped) for comprehension macros `.m(v, ...)`: the names they
    bind, how deeply they nest and how many there are, and the longest list literal. The library
    has parsed the source already; this reads only what its API does not report."""
    tokens = _tokens(source)
    bound: set[str] = set()
    stack: list[str] = []  # one entry per open bracket: "m" (a macro's paren), "(", "[" or "{"
    commas: list[int] = []  # per open bracket: commas seen directly inside it
    depth = comprehensions = widest = 0
    for i, tok in enumerate(tokens):
        if tok in _OPEN:
            macro = tok == "(" and i >= 2 and tokens[i - 2] == "." and tokens[i - 1] in _MACROS
            if macro:
                comprehensions += 1
                if i + 2 < len(tokens) and tokens[i + 2] == "," and tokens[i + 1].isidentifier():
                    bound.add(tokens[i + 1])
            stack.append("m" if macro else tok)
            commas.append(0)
            depth = max(depth, stack.count("m"))
        elif tok in _CLOSE:
            if stack:
                opened = stack.pop()
                n = commas.pop()
                if opened == "[":
                    widest = max(widest, n + 1)
        elif tok == "," and commas:
            commas[-1] += 1
    keep = None if _VARIABLE in bound else _visible(tokens)
    return _Shape(frozenset(bound), depth, comprehensions, widest, keep)


def _visible(tokens: list[str]) -> dict[str, frozenset[str] | None] | None:
    """The fields of `managedCluster`, two levels deep, that the expression can observe; None when
    it may observe the whole object. A map is narrowed only where every use of it is a select
    of a constant key (`m.k`, `m["k"]`): then no operation (size, iteration, `in`, equality, a
    computed index, a function call) sees the keys left out, and the result cannot change. The
    receiver of our own `scores` reads only metadata.name. Dropping the rest saves converting
    it into the library's values, the main cost of an evaluation."""
    keep: dict[str, set[str] | None] = {}
    for i, tok in enumerate(tokens):
        if tok != _VARIABLE or (i > 0 and tokens[i - 1] == "."):
            continue
        if tokens[i + 1 : i + 4] == [".", "scores", "("]:
            first, second, j = "metadata", "name", i
        else:
            first, j = _constant_select(tokens, i + 1)
            if first is None:
                return None
            second, j = _constant_select(tokens, j)
        if second is None:
            keep[first] = _WHOLE
        elif keep.setdefault(first, set()) is not _WHOLE:
            keep[first].add(second)  # type: ignore[union-attr]
    return {k: (v if v is _WHOLE else frozenset(v)) for k, v in keep.items()}


def _constant_select(tokens: list[str], i: int) -> tuple[str | None, int]:
    """The key of a constant select starting at tokens[i] and the index after it, or (None, i)."""
    rest = tokens[i : i + 3]
    if len(rest) >= 2 and rest[0] == "." and rest[1].isidentifier() and rest[2:3] != ["("]:
        return rest[1], i + 2
    if len(rest) == 3 and rest[0] == "[" and rest[1][:1] == '"' and rest[2] == "]":
        return rest[1][1:], i + 3
    return None, i


_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


def _tokens(source: str) -> list[str]:
    """Identifiers, single punctuation characters, "0" for a number, '"' + value for a string
    literal without escapes, and "\\" for one with escapes (its value is not read here)."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
        elif ch.isalpha() or ch == "_":
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] == "_"):
                j += 1
            word = source[i:j]
            if j < n and source[j] in "'\"" and word.lower() in ("r", "b", "rb", "br"):
                i = _string(source, j, raw="r" in word.lower(), out=out, plain="b" not in word.lower())
            else:
                out.append(word)
                i = j
        elif ch in "'\"":
            i = _string(source, i, raw=False, out=out, plain=True)
        elif ch.isdigit():
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] in "._"):
                j += 1
            out.append("0")
            i = j
        else:
            out.append(ch)
            i += 1
    return out


def _string(source: str, i: int, *, raw: bool, out: list[str], plain: bool) -> int:
    """Append the token of the string literal opening at source[i]; return the index after it."""
    quote = source[i] * 3 if source.startswith(source[i] * 3, i) else source[i]
    start = j = i + len(quote)
    escaped = False
    while j < len(source):
        if not raw and source[j] == "\\":
            escaped = True
            j += 2
        elif source.startswith(quote, j):
            break
        else:
            j += 1
    out.append('"' + source[start:j] if plain and not escaped else "\\")
    return j + len(quote)


def _narrow(cluster: Mapping[str, Any], keep: Mapping[str, frozenset[str] | None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for first, seconds in keep.items():
        value = cluster.get(first, _ABSENT)
        if value is _ABSENT:
            continue
        if seconds is _WHOLE or not isinstance(value, Mapping):
            out[first] = value
        else:
            out[first] = {k: value[k] for k in seconds if k in value}
    return out


_ABSENT = object()


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


class _Bound:
    """The per-thread evaluation context: one `cel.Context` whose functions read the current
    cluster's name and scores from here, so nothing is rebuilt per cluster but the variable."""

    def __init__(self) -> None:
        self.name: Any = None
        self.scores: Mapping[str, list[Mapping[str, Any]]] = {}
        self.context = _cel.Context(
            functions={**_EXTENSIONS, "scores": self._scores, "parseJSON": _parse_json}
        )

    def _scores(self, receiver: Any, name: Any) -> Any:
        # Upstream looks the object up in the namespace named by the receiver's metadata.name.
        try:
            if receiver["metadata"]["name"] != self.name:
                return _ERROR
        except (KeyError, TypeError):
            return _ERROR
        items = self.scores.get(name) if isinstance(name, str) else None
        if items is None:
            return _ERROR
        return [{"name": s.get("name"), "value": s.get("value")} for s in items]


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

    def matches(self, cluster: Mapping[str, Any], scores: Mapping[str, list[Mapping[str, Any]]]) -> bool:
        """Whether `cluster` (a ManagedCluster as a dict) satisfies the expression; `scores` maps an
        AddOnPlacementScore name to its status.scores for this cluster (absent: object missing)."""
        return _evaluate(self, _bound(), cluster, scores)


def _evaluate(program: CelProgram, b: _Bound, cluster: Mapping[str, Any], scores: Mapping[str, Any]) -> bool:
    try:
        b.name = cluster["metadata"]["name"]
    except (KeyError, TypeError):
        b.name = None
    shape = program._shape
    if shape.keep is not None and isinstance(cluster, Mapping):
        cluster = _narrow(cluster, shape.keep)
    if shape.depth >= 2:
        n = max(_widest(cluster), _widest(scores), shape.widest_literal, 1)
        if shape.comprehensions * n**shape.depth > COST_LIMIT:
            return False
    b.scores = scores
    try:
        b.context.add_variable(_VARIABLE, cluster)
        result = program._program.execute(b.context)
    except Exception:  # the library raises RuntimeError, KeyError, ValueError, ZeroDivisionError...
        return False
    finally:
        b.scores = {}
    return result is True


_cache: dict[str, CelProgram] = {}
_cache_lock = threading.Lock()


def compile_expression(source: str) -> CelProgram:
    """Compile one CEL expression (cached by source). Raises CelCompileError for a syntax error or
    a reference to an undeclared variable or function."""
    program = _cache.get(source)
    if program is not None:
        return program
    if not isinstance(source, str):
        raise CelCompileError(str(source), f"CEL expression must be a string, not {type(source).__name__}")
    try:
        compiled = _cel.compile(source)
    except Exception as err:  # ValueError with the parser's positioned message
        raise CelCompileError(source, str(err)) from None
    shape = _scan(source)
    refs = compiled.references()
    unknown_vars = sorted(set(refs["variables"]) - _KNOWN_VARIABLES - shape.bound)
    unknown_fns = sorted(set(refs["functions"]) - _KNOWN_FUNCTIONS)
    if unknown_vars or unknown_fns:
        names = ", ".join(f"'{n}'" for n in unknown_vars + unknown_fns)
        raise CelCompileError(source, f"undeclared reference to {names} in {source!r}")
    program = CelProgram(source, compiled, shape)
    with _cache_lock:
        _cache.setdefault(source, program)
    return _cache[source]


def matching_clusters(
    program: CelProgram,
    clusters: Sequence[Mapping[str, Any]],
    scores_of: Callable[[str], Mapping[str, list[Mapping[str, Any]]]],
) -> list[bool]:
    """`program.matches` over many clusters, in order; `scores_of(cluster name)` gives the scores
    of one cluster. Only the variable changes between clusters (one context per thread)."""
    b = _bound()
    out: list[bool] = []
    append = out.append
    for cluster in clusters:
        try:
            name = cluster["metadata"]["name"]
        except (KeyError, TypeError):
            append(False)
            continue
        append(_evaluate(program, b, cluster, scores_of(name)))
    return out
