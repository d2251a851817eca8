"""The plain CEL selectors answered in Python, exactly as the interpreter answers them, or not at all.

A hub's selectors are mostly field reads, comparisons of strings and integers, `startsWith` and
comprehensions over claims or scores; the interpreter (adapters.ocm.cel) spends most of an
evaluation converting the cluster into its values (30 us, 30,000 evaluations at 10,000 clusters).
Such an expression is compiled here to Python closures over the object as read, which answer
where the interpreter's answer cannot differ:

- every node is of the subset below (else nothing is compiled, and the interpreter answers);
- the value the interpreter would be given converts (dicts with string keys, lists, strings
  without lone surrogates, integers, floats, booleans, null: what a YAML or JSON reader makes),
  and so does every list `scores()` returns;
- no sub-expression errs, and every operator meets operands of one type whose meaning is the same
  in CEL and Python (strings and int64 integers; booleans for the logical operators). Nothing is
  short-circuited: an expression is answered only where every part of it evaluates.

Anything else raises Unsure, and the interpreter evaluates that cluster as before (an error there
is no match). The subset: literals (string, int, bool), lists of them, the variable and
comprehension variables, constant selects and indexes (`a.b`, `a["b"]`), `==`, `!=`, `<`, `<=`,
`>`, `>=`, `&&`, `||`, `!`, `in` a list, `startsWith`, `endsWith`, `contains`, `scores(name)`
with a literal name, and the macros all, exists, exists_one and filter.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adapters.ocm.cel_syntax import Call, Comprehension, Ident, Index, Literal, MakeList, Node, Select

__all__ = ["Scores", "Unsure", "compile_plain", "converts"]

# An AddOnPlacementScore name -> its status.scores, in the namespace a cluster name gives.
Scores = Callable[[str], Mapping[str, list[Mapping[str, Any]]]]
# The bound variables (the cluster, comprehension variables) and the scores lookup.
_Env = dict[str, Any]
_Eval = Callable[[_Env], Any]

_SCORES = "\0scores"  # the env's key for the lookup: no CEL identifier has a NUL
_LISTS = "\0lists"  # and for scores()' answers kept (compile_plain's matches)
_INT64 = (-(2**63), 2**63 - 1)


class Unsure(Exception):
    """The interpreter's answer might differ here: ask it."""


def compile_plain(tree: Node, variable: str) -> Callable[..., bool] | None:
    """The expression as a Python function of (cluster, scores lookup) -> matches, raising Unsure
    where it cannot answer as the interpreter would; None where the expression is outside the
    subset. The caller checks that the cluster converts (`converts`)."""
    try:
        body = _compile(tree)
    except _Outside:
        return None

    def matches(cluster: Mapping[str, Any], scores_of: Scores, lists: dict[int, Any] | None = None) -> bool:
        """`lists`: scores() answers kept by the list they were made from, for the calls over
        the same clusters and lookup (matching_clusters' of several expressions)."""
        return body({variable: cluster, _SCORES: scores_of, _LISTS: lists}) is True

    return matches


class _Outside(Exception):
    """A node outside the subset."""


def _compile(n: Node) -> _Eval:
    if isinstance(n, Literal):
        return _literal(n)
    if isinstance(n, Ident) and not n.root:
        name = n.name
        return lambda env: _bound(env, name)
    if _selected_key(n) is not None:
        return _path(n)
    if isinstance(n, MakeList) and not any(n.optional):
        items = [_compile(x) for x in n.items]
        return lambda env: [item(env) for item in items]
    if isinstance(n, Comprehension) and n.macro in _MACROS and len(n.args) == 1:
        return _comprehension(n.macro, _compile(n.target), n.variable, _compile(n.args[0]))
    if isinstance(n, Call):
        return _call(n)
    raise _Outside


def _literal(n: Literal) -> _Eval:
    if n.kind not in ("string", "int", "bool") or n.value is None:
        raise _Outside
    value = n.value
    if n.kind == "int" and not _INT64[0] <= value <= _INT64[1]:  # type: ignore[operator]
        raise _Outside
    return lambda env: value


def _bound(env: _Env, name: str) -> Any:
    try:
        return env[name]
    except KeyError:  # a type name (`int`, `string`...): a value the subset does not take
        raise Unsure from None


def _selected_key(n: Node) -> str | None:
    """The key a constant select or index (`a.b`, `a["b"]`) reads, else None."""
    if isinstance(n, Select) and not (n.optional or n.test) and n.literal is None:
        return n.name
    if isinstance(n, Index) and not n.optional and isinstance(n.index, Literal) and n.index.kind == "string":
        return n.index.value  # type: ignore[return-value]
    return None


def _path(n: Node) -> _Eval:
    """A chain of constant selects (`v.a.b["c"]`) as one closure: each key read in turn where the
    value is a map holding it, else Unsure, as a select each would; from a bound variable, read
    at once (_bound's Unsure where it is not)."""
    keys: list[str] = []
    while (key := _selected_key(n)) is not None:
        keys.append(key)
        n = n.operand  # type: ignore[attr-defined]
    keys.reverse()
    if isinstance(n, Ident) and not n.root:
        return _variable_path(n.name, tuple(keys))
    operand = _compile(n)
    return lambda env: _walk(operand(env), keys)


def _variable_path(name: str, keys: tuple[str, ...]) -> _Eval:
    if len(keys) == 1:
        (key,) = keys

        def field(env: _Env) -> Any:
            value = env[name] if name in env else _bound(env, name)
            if type(value) is not dict or key not in value:
                raise Unsure  # no such key, or a select on what is not a map
            return value[key]

        return field
    return lambda env: _walk(env[name] if name in env else _bound(env, name), keys)


def _walk(value: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if type(value) is not dict or key not in value:
            raise Unsure  # no such key, or a select on what is not a map
        value = value[key]
    return value


def _comprehension(macro: str, target: _Eval, variable: str, predicate: _Eval) -> _Eval:
    finish = _MACROS[macro]

    def comprehension(env: _Env) -> Any:
        items = target(env)
        if type(items) is not list:
            raise Unsure  # a map's keys, or no list
        saved = env.get(variable, _UNSET)
        verdicts = []
        try:
            for item in items:
                env[variable] = item
                verdict = predicate(env)
                if type(verdict) is not bool:
                    raise Unsure
                verdicts.append(verdict)
        finally:
            if saved is _UNSET:
                env.pop(variable, None)
            else:
                env[variable] = saved
        return finish(items, verdicts)

    return comprehension


_UNSET = object()
_MACROS: dict[str, Callable[[list[Any], list[bool]], Any]] = {
    "all": lambda items, verdicts: all(verdicts),
    "exists": lambda items, verdicts: any(verdicts),
    "exists_one": lambda items, verdicts: verdicts.count(True) == 1,
    "filter": lambda items, verdicts: [x for x, keep in zip(items, verdicts, strict=True) if keep],
}


def _call(n: Call) -> _Eval:
    if n.name == "scores" and n.target is not None and len(n.args) == 1:
        name = n.args[0]
        if isinstance(name, Literal) and name.kind == "string":
            return _scores(_compile(n.target), name.value)  # type: ignore[arg-type]
        raise _Outside
    if n.impl is not None:  # a function of the library's (or Kubernetes values' equality)
        raise _Outside
    operands = [_compile(x) for x in ([n.target] if n.target is not None else []) + n.args]
    if n.target is None and n.name in _BINARY and len(operands) == 2:
        fused = _fused(n.name, n.args, operands)
        return fused if fused is not None else _binary(_BINARY[n.name], *operands)
    if n.target is None and n.name == "!_" and len(operands) == 1:
        return _negation(operands[0])
    if n.target is not None and n.name in _STRING_METHODS and len(operands) == 2:
        return _binary(_STRING_METHODS[n.name], *operands)
    raise _Outside


def _binary(operation: Callable[[Any, Any], Any], left: _Eval, right: _Eval) -> _Eval:
    return lambda env: operation(left(env), right(env))


def _fused(name: str, args: list[Node], operands: list[_Eval]) -> _Eval | None:
    """The commonest operators in one closure each, answering as _binary of theirs would (a
    literal operand evaluates to itself and never errs): `&&` and `||` of two booleans, `==` and
    `!=` of an operand and a literal, an ordering of an operand and an integer literal."""
    left, right = operands
    if name in ("_&&_", "_||_"):
        both = name == "_&&_"

        def logical(env: _Env) -> bool:
            a, b = left(env), right(env)
            if type(a) is not bool or type(b) is not bool:
                raise Unsure
            return (a and b) if both else (a or b)

        return logical
    if name in ("_==_", "_!=_") and isinstance(args[0], Literal) and not isinstance(args[1], Literal):
        args, left = args[::-1], right  # equality is symmetric
    literal = args[1]
    if not isinstance(literal, Literal) or literal.kind not in ("string", "int", "bool"):
        return None
    value = literal.value
    kind = type(value)
    if name in ("_==_", "_!=_") and kind in (str, int, bool):
        equal = name == "_==_"

        def equality(env: _Env) -> bool:
            a = left(env)
            if type(a) is not kind or (kind is int and not _INT64[0] <= a <= _INT64[1]):
                raise Unsure
            return (a == value) if equal else (a != value)

        return equality
    if name in _ORDERINGS and kind is int:
        compare = _ORDERINGS[name]

        def ordering(env: _Env) -> bool:
            a = left(env)
            if type(a) is not int or not _INT64[0] <= a <= _INT64[1]:
                raise Unsure
            return compare(a, value)

        return ordering
    return None


def _negation(operand: _Eval) -> _Eval:
    def negation(env: _Env) -> bool:
        value = operand(env)
        if type(value) is not bool:
            raise Unsure
        return not value

    return negation


def _alike(a: Any, b: Any, *kinds: type) -> None:
    """Both operands of one of `kinds` (integers within int64), else Unsure."""
    kind = type(a)
    if kind is not type(b) or kind not in kinds:
        raise Unsure
    if kind is int and not (_INT64[0] <= a <= _INT64[1] and _INT64[0] <= b <= _INT64[1]):
        raise Unsure


def _equal(a: Any, b: Any) -> bool:
    _alike(a, b, str, int, bool)
    return a == b


def _not_equal(a: Any, b: Any) -> bool:
    return not _equal(a, b)


def _ordered(compare: Callable[[int, int], bool]) -> Callable[[Any, Any], bool]:
    def ordered(a: Any, b: Any) -> bool:
        _alike(a, b, int)
        return compare(a, b)

    return ordered


def _logical(combine: Callable[[bool, bool], bool]) -> Callable[[Any, Any], bool]:
    def logical(a: Any, b: Any) -> bool:
        _alike(a, b, bool)
        return combine(a, b)

    return logical


def _in(a: Any, items: Any) -> bool:
    if type(items) is not list:
        raise Unsure
    for item in items:
        _alike(a, item, str, int)
    return a in items


def _string_method(method: Callable[[str, str], bool]) -> Callable[[Any, Any], bool]:
    def string_method(receiver: Any, arg: Any) -> bool:
        _alike(receiver, arg, str)
        return method(receiver, arg)

    return string_method


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "_==_": _equal,
    "_!=_": _not_equal,
    "_<_": _ordered(lambda a, b: a < b),
    "_<=_": _ordered(lambda a, b: a <= b),
    "_>_": _ordered(lambda a, b: a > b),
    "_>=_": _ordered(lambda a, b: a >= b),
    "_&&_": _logical(lambda a, b: a and b),
    "_||_": _logical(lambda a, b: a or b),
    "@in": _in,
}
_ORDERINGS: dict[str, Callable[[int, int], bool]] = {
    "_<_": operator.lt,
    "_<=_": operator.le,
    "_>_": operator.gt,
    "_>=_": operator.ge,
}
_STRING_METHODS: dict[str, Callable[[Any, Any], bool]] = {
    "startsWith": _string_method(str.startswith),
    "endsWith": _string_method(str.endswith),
    "contains": _string_method(str.__contains__),
}


def _scores(receiver: _Eval, name: str) -> _Eval:
    """adapters.ocm.cel._Bound._scores: the named object's scores in the namespace the receiver's
    metadata.name names, as {name, value} maps; a missing object is an error (Unsure)."""

    def scores(env: _Env) -> list[dict[str, Any]]:
        cluster = receiver(env)
        metadata = cluster.get("metadata") if type(cluster) is dict else None
        namespace = metadata.get("name") if type(metadata) is dict else None
        if type(namespace) is not str:
            raise Unsure
        items = env[_SCORES](namespace).get(name)
        if items is None:
            raise Unsure
        lists = env[_LISTS]
        kept = lists.get(id(items)) if lists is not None else None
        if kept is not None and kept[0] is items:  # the same list: what it made then (never changed)
            out = kept[1]
        else:
            out = [{"name": s.get("name"), "value": s.get("value")} for s in items]
            if not converts(out):
                out = None
            if lists is not None:
                lists[id(items)] = (items, out)  # the list held, so that its id is not another's
        if out is None:
            raise Unsure
        return out

    return scores


def converts(value: Any) -> bool:
    """Whether the interpreter takes the value as it is: dicts with string keys, lists, strings
    it can encode (no lone surrogate), integers, floats, booleans and null, all the way down."""
    todo = [value]
    while todo:
        v = todo.pop()
        kind = type(v)
        if kind is str:
            if not (v.isascii() or _encodes(v)):
                return False
        elif kind is dict:
            for key in v:
                if type(key) is not str or not (key.isascii() or _encodes(key)):
                    return False
            todo.extend(v.values())
        elif kind is list:
            todo.extend(v)
        elif kind not in (int, float, bool, type(None)):
            return False
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
