"""CEL source -> syntax tree, as cel-go's parser reads it (grammar: cel-go parser/gen/CEL.g4, macros:
parser/macro.go, with the optional syntax OCM's environment enables), and the tree back to source
for the Rust interpreter.

The interpreter parses CEL itself, but not all of what cel-go does: not the optional syntax
(`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`), not the `optMap`/`optFlatMap` macros, not backquoted
field names. And it has no checker, so an undeclared reference would only fail at run time. So
the source is parsed here first: `references` gives what the checker resolves, and `render`
writes the tree back as the interpreter's source, the optional forms lowered onto the optional
values the interpreter does carry, and calls renamed where the interpreter's own function differs
from cel-go's (`rename`).

Errors are `CelSyntaxError`s, displayed as cel-go displays its issues ("ERROR: <input>:1:5: ...",
the source line, a caret), with this parser's wording for syntax errors (cel-go's come from ANTLR).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "CelSyntaxError",
    "Call",
    "Comprehension",
    "Ident",
    "Index",
    "Literal",
    "MakeList",
    "MakeMap",
    "Node",
    "Select",
    "display",
    "parse",
    "render",
    "walk",
]

MACROS = {"all": 2, "exists": 2, "exists_one": 2, "map": (2, 3), "filter": 2}
OPTIONAL_MACROS = ("optMap", "optFlatMap")
_RESERVED = frozenset(
    [
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)


class CelSyntaxError(Exception):
    """A source cel-go would not compile; `str(err)` is the issue as cel-go displays it."""

    def __init__(self, source: str, pos: int, message: str) -> None:
        self.message = message
        super().__init__(display(source, pos, message))


def display(source: str, pos: int, message: str) -> str:
    """One issue as cel-go's Error.ToDisplayString writes it (1-based line and column, the line,
    a dot per character before the column and a caret; wide forms for multi-byte characters)."""
    line_no = source.count("\n", 0, pos) + 1
    start = source.rfind("\n", 0, pos) + 1
    end = source.find("\n", pos)
    line = source[start : len(source) if end < 0 else end]
    column = pos - start
    out = f"ERROR: <input>:{line_no}:{column + 1}: {message}"
    snippet = line.replace("\t", " ")
    dots = "".join("\uff0e" if len(c.encode()) > 1 else "." for c in snippet[:column])
    at = snippet[column : column + 1]
    caret = "\uff3e" if at and len(at.encode()) > 1 else "^"
    return f"{out}\n | {snippet}\n | {dots}{caret}"


# ------------------------------------------------------------------------------------------ tree


@dataclass(eq=False, slots=True)
class Node:
    pos: int


@dataclass(eq=False, slots=True)
class Literal(Node):
    kind: str  # int, uint, double, string, bytes, bool, null
    text: str  # the source text, rendered as is
    value: object = None  # decoded, for strings (constant keys, regex patterns) and numbers


@dataclass(eq=False, slots=True)
class Ident(Node):
    name: str
    root: bool = False  # a leading dot: `.name`


@dataclass(eq=False, slots=True)
class Select(Node):
    operand: Node
    name: str
    optional: bool = False  # `a.?b`
    test: bool = False  # inside has()
    literal: str | None = None  # set by the checker: rendered as this literal instead


@dataclass(eq=False, slots=True)
class Index(Node):
    operand: Node
    index: Node
    optional: bool = False  # `a[?i]`


@dataclass(eq=False, slots=True)
class Call(Node):
    """A function call: `target.name(args)` when target is set, else `name(args)`. Operators are
    calls too, named as cel-go names them (`_+_`, `!_`, `_?_:_`, `@in`...)."""

    name: str
    args: list[Node]
    target: Node | None = None
    impl: str | None = None  # set by the checker: the registered function that evaluates it


@dataclass(eq=False, slots=True)
class MakeList(Node):
    items: list[Node]
    optional: list[bool] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class MakeMap(Node):
    entries: list[tuple[Node, Node, bool]]  # key, value, optional (`{?k: v}`)


@dataclass(eq=False, slots=True)
class MakeMessage(Node):
    text: str  # `pkg.Type{...}`, rendered as written (no message type is declared upstream)


@dataclass(eq=False, slots=True)
class Comprehension(Node):
    """A macro over `target`: all, exists, exists_one, map (with an optional filter), filter,
    optMap and optFlatMap; `variable` is bound in `args`."""

    macro: str
    target: Node
    variable: str
    args: list[Node]


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(reversed(children(n)))


def children(n: Node) -> list[Node]:
    if isinstance(n, Select):
        return [n.operand]
    if isinstance(n, Index):
        return [n.operand, n.index]
    if isinstance(n, Call):
        return ([n.target] if n.target is not None else []) + n.args
    if isinstance(n, MakeList):
        return list(n.items)
    if isinstance(n, MakeMap):
        return [x for k, v, _ in n.entries for x in (k, v)]
    if isinstance(n, Comprehension):
        return [n.target, *n.args]
    return []


# ----------------------------------------------------------------------------------------- lexer

_TOKEN = re.compile(
    r"""
    (?P<space>[\t\r\n\f ]+|//[^\n]*)
  | (?P<string>(?:[bB][rR]?|[rR][bB]?)?(?:\"\"\"|'''|"|'))
  | (?P<double>\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?)
  | (?P<uint>(?:0x[0-9a-fA-F]+|\d+)[uU])
  | (?P<int>0x[0-9a-fA-F]+|\d+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<escaped>`[A-Za-z0-9_./ -]+`)
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>!?:.,\[\](){}+\-*/%])
    """,
    re.VERBOSE,
)
_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    '"': '"', "'": "'", "\\": "\\", "?": "?", "`": "`",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # space is dropped; string, double, uint, int, ident, escaped, op, end
    text: str
    pos: int
    value: object = None


def _lex(source: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(source)
    while i < n:
        m = _TOKEN.match(source, i)
        if m is None:
            raise CelSyntaxError(source, i, f"Syntax error: token recognition error at: '{source[i]}'")
        kind = m.lastgroup
        if kind == "space":
            i = m.end()
            continue
        if kind == "string":
            end, value = _string(source, i, m.group())
            text = source[i:end]
            out.append(_Token("bytes" if isinstance(value, bytes) else "string", text, i, value))
            i = end
            continue
        out.append(_Token(kind, m.group(), i))
        i = m.end()
    out.append(_Token("end", "", n))
    return out


def _string(source: str, start: int, opening: str) -> tuple[int, object]:
    """The end of the string literal opening at `start`, and its value (str, or bytes)."""
    prefix = opening.rstrip("'\"").lower()
    quote = opening[len(prefix) :]
    raw, is_bytes = "r" in prefix, "b" in prefix
    i = start + len(opening)
    parts: list[str] = []
    while True:
        if i >= len(source) or (len(quote) == 1 and source[i] in "\r\n"):
            raise CelSyntaxError(
                source, start, f"Syntax error: token recognition error at: {source[start:i]!r}"
            )
        if source.startswith(quote, i):
            break
        ch = source[i]
        if ch == "\\" and not raw:
            value, i = _escape(source, i, is_bytes)
            parts.append(value)
        else:
            parts.append(ch)
            i += 1
    text = "".join(parts)
    if is_bytes:  # an escaped byte value is that byte; anything else is UTF-8
        return i + len(quote), b"".join(
            p.encode("latin-1") if isinstance(p, _Byte) else p.encode() for p in parts
        )
    return i + len(quote), text


class _Byte(str):
    """One escaped byte (\\xHH, \\ooo) of a bytes literal."""


def _escape(source: str, i: int, is_bytes: bool) -> tuple[str, int]:
    nxt = source[i + 1 : i + 2]
    if nxt in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[nxt], i + 2
    if nxt in ("x", "X") and re.fullmatch(r"[0-9a-fA-F]{2}", source[i + 2 : i + 4]):
        code = int(source[i + 2 : i + 4], 16)
        return (_Byte(chr(code)) if is_bytes else chr(code)), i + 4
    if nxt in ("u", "U"):
        width = 4 if nxt == "u" else 8
        digits = source[i + 2 : i + 2 + width]
        if re.fullmatch(rf"[0-9a-fA-F]{{{width}}}", digits) and not is_bytes:
            code = int(digits, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise CelSyntaxError(source, i, "Syntax error: invalid unicode code point")
            return chr(code), i + 2 + width
    if re.fullmatch(r"[0-3][0-7][0-7]", source[i + 1 : i + 4]):
        code = int(source[i + 1 : i + 4], 8)
        return (_Byte(chr(code)) if is_bytes else chr(code)), i + 4
    raise CelSyntaxError(source, i, "Syntax error: token recognition error at: '\\" + nxt + "'")


# ---------------------------------------------------------------------------------------- parser

_RELATIONS = {"<": "_<_", "<=": "_<=_", ">=": "_>=_", ">": "_>_", "==": "_==_", "!=": "_!=_", "in": "@in"}
_PRODUCTS = {"*": "_*_", "/": "_/_", "%": "_%_"}
_SUMS = {"+": "_+_", "-": "_-_"}


def parse(source: str) -> Node:
    """The syntax tree of `source`, macros expanded as cel-go's parser expands them."""
    if not isinstance(source, str):
        raise CelSyntaxError(str(source), 0, f"CEL expression must be a string, not {type(source).__name__}")
    return _Parser(source).parse()


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = _lex(source)
        self.i = 0

    # -- token helpers
    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def at(self, text: str) -> bool:
        t = self.peek()
        return t.kind in ("op", "ident") and t.text == text

    def take(self) -> _Token:
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text: str) -> _Token:
        if not self.at(text):
            self.fail(f"Syntax error: missing '{text}' at {self.describe(self.peek())}")
        return self.take()

    def describe(self, t: _Token) -> str:
        return "'<EOF>'" if t.kind == "end" else f"'{t.text}'"

    def fail(self, message: str, pos: int | None = None):
        raise CelSyntaxError(self.source, self.peek().pos if pos is None else pos, message)

    # -- grammar
    def parse(self) -> Node:
        node = self.expr()
        if self.peek().kind != "end":
            self.fail(f"Syntax error: extraneous input {self.describe(self.peek())} expecting <EOF>")
        return node

    def expr(self) -> Node:
        node = self.logical("||", self.logical_and)
        if self.at("?"):
            pos = self.take().pos
            then = self.logical("||", self.logical_and)
            self.expect(":")
            return Call(pos, "_?_:_", [node, then, self.expr()])
        return node

    def logical(self, op: str, operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.at(op):
            pos = self.take().pos
            node = Call(pos, f"_{op}_", [node, operand()])
        return node

    def logical_and(self) -> Node:
        return self.logical("&&", self.relation)

    def relation(self) -> Node:
        node = self.calc()
        while self.peek().text in _RELATIONS and self.peek().kind in ("op", "ident"):
            t = self.take()
            node = Call(t.pos, _RELATIONS[t.text], [node, self.calc()])
        return node

    def calc(self) -> Node:
        node = self.product()
        while self.peek().kind == "op" and self.peek().text in _SUMS:
            t = self.take()
            node = Call(t.pos, _SUMS[t.text], [node, self.product()])
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.peek().kind == "op" and self.peek().text in _PRODUCTS:
            t = self.take()
            node = Call(t.pos, _PRODUCTS[t.text], [node, self.unary()])
        return node

    def unary(self) -> Node:
        t = self.peek()
        if t.kind == "op" and t.text in ("!", "-"):
            ops = []
            while self.peek().kind == "op" and self.peek().text == t.text:
                ops.append(self.take())
            if t.text == "-" and self.peek().kind in ("int", "double"):
                # `-1` is a literal (the grammar's sign=MINUS), so the int64 minimum is writable.
                number = self.take()
                node: Node = self._number(number, negative=True, pos=ops.pop().pos)
                node = self.member_suffixes(node)
            else:
                node = self.member()
            for op in reversed(ops):
                node = Call(op.pos, "!_" if op.text == "!" else "-_", [node])
            return node
        return self.member()

    def member(self) -> Node:
        return self.member_suffixes(self.primary())

    def member_suffixes(self, node: Node) -> Node:
        while True:
            t = self.peek()
            if t.kind == "op" and t.text == ".":
                self.take()
                optional = self.at("?")
                if optional:
                    self.take()
                name_token = self.take()
                if name_token.kind == "escaped":
                    name = name_token.text[1:-1]
                elif name_token.kind == "ident":
                    name = name_token.text
                else:
                    got = self.describe(name_token)
                    self.fail(f"Syntax error: mismatched input {got} expecting IDENTIFIER", name_token.pos)
                if not optional and name_token.kind == "ident" and self.at("("):
                    open_pos = self.take().pos
                    args = self.arguments()
                    node = self.macro_or_call(name, args, node, open_pos)
                else:
                    node = Select(t.pos, node, name, optional=optional)
            elif t.kind == "op" and t.text == "{" and _qualified(node) is not None:
                node = self.make_message(node.pos)
            elif t.kind == "op" and t.text == "[":
                self.take()
                optional = self.at("?")
                if optional:
                    self.take()
                index = self.expr()
                self.expect("]")
                node = Index(t.pos, node, index, optional=optional)
            else:
                return node

    def arguments(self) -> list[Node]:
        args = []
        if not self.at(")"):
            args.append(self.expr())
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        return args

    def primary(self) -> Node:
        t = self.take()
        if t.kind == "op" and t.text == "." and self.peek().kind == "ident":
            name = self.take()
            return self.ident_or_call(name, root=True)
        if t.kind == "ident":
            if t.text in ("true", "false"):
                return Literal(t.pos, "bool", t.text, t.text == "true")
            if t.text == "null":
                return Literal(t.pos, "null", t.text, None)
            if t.text == "in":
                self.fail("Syntax error: mismatched input 'in'", t.pos)
            return self.ident_or_call(t, root=False)
        if t.kind == "op" and t.text == "(":
            node = self.expr()
            self.expect(")")
            return node
        if t.kind == "op" and t.text == "[":
            return self.make_list(t.pos)
        if t.kind == "op" and t.text == "{":
            return self.make_map(t.pos)
        if t.kind in ("int", "uint", "double"):
            return self._number(t, negative=False, pos=t.pos)
        if t.kind == "string":
            return Literal(t.pos, "string", t.text, t.value)
        if t.kind == "bytes":
            return Literal(t.pos, "bytes", t.text, t.value)
        self.fail(f"Syntax error: mismatched input {self.describe(t)} expecting an expression", t.pos)
        raise AssertionError("unreachable")

    def _number(self, t: _Token, *, negative: bool, pos: int) -> Literal:
        text = ("-" if negative else "") + t.text
        if t.kind == "double":
            return Literal(pos, "double", text, float(text))
        digits = t.text.rstrip("uU")
        value = int(digits, 16) if digits.startswith("0x") else int(digits)
        if t.kind == "uint":
            if value > 2**64 - 1:
                self.fail(f"error parsing uint: {t.text}", pos)
            return Literal(pos, "uint", text, value)
        value = -value if negative else value
        if not -(2**63) <= value <= 2**63 - 1:
            self.fail(f"error parsing int: {text}", pos)
        return Literal(pos, "int", text, value)

    def ident_or_call(self, t: _Token, *, root: bool) -> Node:
        if t.text in _RESERVED:
            self.fail(f"reserved identifier: {t.text}", t.pos)
        if self.at("("):
            open_pos = self.take().pos
            args = self.arguments()
            return self.macro_or_call(t.text, args, None, open_pos)
        if self.at("{"):
            return self.make_message(t.pos)
        return Ident(t.pos, t.text, root=root)

    def make_message(self, start: int) -> Node:
        """`pkg.Type{field: value}`: kept as written (no message type is declared upstream but
        protobuf's well-known ones, and the interpreter has none)."""
        depth = 0
        while True:
            tok = self.take()
            if tok.kind == "end":
                self.fail("Syntax error: missing '}' at '<EOF>'")
            if tok.text == "{":
                depth += 1
            elif tok.text == "}":
                depth -= 1
                if depth == 0:
                    return MakeMessage(start, self.source[start : tok.pos + 1])

    def make_list(self, pos: int) -> Node:
        items, optional = [], []
        while not self.at("]"):
            opt = self.at("?")
            if opt:
                self.take()
            items.append(self.expr())
            optional.append(opt)
            if not self.at(","):
                break
            self.take()
        self.expect("]")
        return MakeList(pos, items, optional)

    def make_map(self, pos: int) -> Node:
        entries = []
        while not self.at("}"):
            opt = self.at("?")
            if opt:
                self.take()
            key = self.expr()
            self.expect(":")
            entries.append((key, self.expr(), opt))
            if not self.at(","):
                break
            self.take()
        self.expect("}")
        return MakeMap(pos, entries)

    def macro_or_call(self, name: str, args: list[Node], target: Node | None, pos: int) -> Node:
        """cel-go's standard macros (has, all, exists, exists_one, map, filter) and the optional
        library's optMap/optFlatMap; a macro name with another arity is a plain call."""
        if target is None and name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, Select) or arg.optional:
                self.fail("invalid argument to has() macro", arg.pos)
            arg.test = True
            return Call(pos, "has", [arg])
        arity = MACROS.get(name) if name not in OPTIONAL_MACROS else 2
        arities = arity if isinstance(arity, tuple) else (arity,)
        if target is not None and arity is not None and len(args) in arities:
            variable = args[0]
            if not isinstance(variable, Ident) or variable.root:
                simple = "argument must be a simple name"
                message = (
                    f"{name}() variable name must be a simple identifier"
                    if name in OPTIONAL_MACROS
                    else simple
                )
                self.fail(message, variable.pos)
            return Comprehension(pos, name, target, variable.name, args[1:])
        return Call(pos, name, args, target)


# ---------------------------------------------------------------------------------------- render


# Functions the rendered source calls for the optional syntax (registered with the library).
AS_OPTIONAL = "_as_optional"  # a value made optional, unless it is one
OPTIONAL_LIST = "_optional_list"  # a list from [value, optional] elements
OPTIONAL_MAP = "_optional_map"  # a map from [key, value, optional] entries


def render(node: Node, optional_kind: Callable[[Node], bool | None]) -> str:
    """The tree as the Rust interpreter's source: every compound expression parenthesised,
    literals as written, a call the checker gave an `impl` as a plain call of it with the
    receiver first, and the optional syntax lowered: `a.?b` is `o.b` where `o` is `a` made
    optional, which the interpreter then selects through (absent: optional.none()).
    `optional_kind(node)`: whether a node yields an optional (True), never does (False), or
    may (None)."""
    return _Renderer(optional_kind).render(node)


class _Renderer:
    def __init__(self, optional_kind: Callable[[Node], bool | None]) -> None:
        self.optional_kind = optional_kind
        self.substitutions: dict[str, str] = {}  # optMap's variable: the source of its value

    def render(self, n: Node) -> str:
        r = self.render
        if isinstance(n, Literal):
            return n.text
        if isinstance(n, Ident):
            return self.substitutions.get(n.name, n.name)
        if isinstance(n, MakeMessage):
            return n.text
        if isinstance(n, Select):
            if n.literal is not None:
                return n.literal
            operand = self.as_optional(n.operand) if n.optional else r(n.operand)
            if not n.name.isidentifier():  # a backquoted name
                return f"{operand}[{_quote(n.name)}]"
            return f"{operand}.{n.name}"
        if isinstance(n, Index):
            operand = self.as_optional(n.operand) if n.optional else r(n.operand)
            return f"{operand}[{r(n.index)}]"
        if isinstance(n, MakeList):
            if not any(n.optional):
                return "[" + ", ".join(r(x) for x in n.items) + "]"
            items = ", ".join(
                f"[{r(x)}, {'true' if opt else 'false'}]" for x, opt in zip(n.items, n.optional, strict=True)
            )
            return f"{OPTIONAL_LIST}([{items}])"
        if isinstance(n, MakeMap):
            if not any(opt for _, _, opt in n.entries):
                return "{" + ", ".join(f"{r(k)}: {r(v)}" for k, v, _ in n.entries) + "}"
            entries = ", ".join(f"[{r(k)}, {r(v)}, {'true' if opt else 'false'}]" for k, v, opt in n.entries)
            return f"{OPTIONAL_MAP}([{entries}])"
        if isinstance(n, Comprehension):
            return self.comprehension(n)
        assert isinstance(n, Call)
        return self.call(n)

    def as_optional(self, operand: Node) -> str:
        kind = self.optional_kind(operand)
        if kind is True:
            return self.render(operand)
        if kind is False:
            return f"optional.of({self.render(operand)})"
        return f"{AS_OPTIONAL}({self.render(operand)})"

    def comprehension(self, n: Comprehension) -> str:
        target, v = self.render(n.target), n.variable
        if n.macro in OPTIONAL_MACROS:
            # The variable stands for the value, written where it is used (the interpreter's map
            # would unwrap an optional result): `t.hasValue() ? optional.of(e[v := t.value()]) : none`.
            saved = self.substitutions
            self.substitutions = {**saved, v: f"{target}.value()"}
            mapped = self.render(n.args[0])
            self.substitutions = saved
            if n.macro == "optMap":
                mapped = f"optional.of({mapped})"
            return f"({target}.hasValue() ? {mapped} : optional.none())"
        saved = self.substitutions
        self.substitutions = {k: s for k, s in saved.items() if k != v}  # the macro rebinds v
        body = [self.render(a) for a in n.args]
        self.substitutions = saved
        return f"{target}.{n.macro}({v}, {', '.join(body)})"

    def call(self, n: Call) -> str:
        r = self.render
        args = [r(a) for a in n.args]
        if n.impl is not None:
            receiver = [r(n.target)] if n.target is not None else []
            return f"{n.impl}({', '.join(receiver + args)})"
        if n.name in _INFIX and n.target is None:
            return f"({args[0]} {_INFIX[n.name]} {args[1]})"
        if n.name == "!_":
            return f"(!{args[0]})"
        if n.name == "-_":
            return f"(-{args[0]})"
        if n.name == "_?_:_":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if n.target is not None:
            return f"{r(n.target)}.{n.name}({', '.join(args)})"
        return f"{n.name}({', '.join(args)})"


_INFIX = {
    "_||_": "||", "_&&_": "&&", "_<_": "<", "_<=_": "<=", "_>=_": ">=", "_>_": ">", "_==_": "==",
    "_!=_": "!=", "@in": "in", "_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%",
}  # fmt: skip


def _qualified(node: Node) -> str | None:
    """`a.b.c` for a chain of plain selects on an identifier, else None."""
    names = []
    while isinstance(node, Select) and not node.optional:
        names.append(node.name)
        node = node.operand
    if not isinstance(node, Ident):
        return None
    return ".".join([node.name, *reversed(names)])


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
