"""The functions of OCM's CEL environment that the Rust interpreter lacks or evaluates otherwise
than cel-go, each as cel-go v0.29 / k8s.io/apiserver v0.35 evaluate it: the standard library's
conversions that differ (`size` of a string counts code points, `string` formats as Go does,
`bool` takes strconv.ParseBool's spellings, `matches` is RE2, `int(timestamp)`, `timestamp(int)`,
the time-zone getters), cel-go's strings extension (latest version), Kubernetes' lists and regex
libraries, the optional library's list functions, OCM's parseJSON, and equality where a
Kubernetes value takes part (cel_kube).

Every function is called with the receiver first. A failure raises (CelError, or a Python error
on a value of the wrong type): the interpreter turns it into an evaluation error, so the cluster
does not match, as an error does upstream.
"""

from __future__ import annotations

import json
import math
import re
import zoneinfo
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

import re2

from adapters.ocm import cel_kube
from adapters.ocm.cel_go import CelError, format_float
from adapters.ocm.cel_package import cel

OptionalValue = cel.OptionalValue

__all__ = ["CLAUSE_ERRORS", "CLAUSE_TYPES", "FUNCTIONS", "CelError", "equal", "format_clauses", "not_equal"]

_INT64 = 2**63

# ----------------------------------------------------------------------------- standard library


def _size(value: Any) -> int:
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    raise CelError("no such overload")


def _string(value: Any) -> str:
    """cel-go's string() conversion."""
    if type(value) is str:
        return value
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    if type(value) is float:
        return format_float(value, "g")
    if type(value) is bytes:
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(value, datetime):
        return _rfc3339(value)
    if isinstance(value, timedelta):
        return _duration_string(value)
    if cel_kube.opaque_kind(value) is not None:
        return cel_kube.opaque_string(value)
    raise CelError("no such overload")


def _rfc3339(t: datetime) -> str:
    """time.RFC3339Nano in UTC (trailing zeros of the fraction dropped)."""
    t = t.astimezone(UTC)
    fraction = f".{t.microsecond:06d}".rstrip("0").rstrip(".")
    return t.replace(tzinfo=None).isoformat(timespec="seconds") + fraction + "Z"  # four-digit years


def _duration_string(d: timedelta) -> str:
    micros = (d.days * 86400 + d.seconds) * 10**6 + d.microseconds
    return format_float(micros / 10**6, "f") + "s"


_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def _bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    if type(value) is str:
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise CelError(f"type conversion error from 'string' to 'bool': {value!r}")
    raise CelError("no such overload")


def _int_fallback(value: Any) -> int:
    """int() of what the interpreter's own int() does not take: a timestamp (Unix seconds) or a
    duration (nanoseconds)."""
    if isinstance(value, datetime):
        return math.floor(value.timestamp())
    if isinstance(value, timedelta):
        return (value.days * 86400 + value.seconds) * 10**9 + value.microseconds * 1000
    raise CelError("no such overload")


_MIN_TIME = datetime(1, 1, 1, tzinfo=UTC)
_MAX_TIME = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def _timestamp_fallback(value: Any) -> datetime:
    """timestamp(int): Unix seconds."""
    if type(value) is not int:
        raise CelError("no such overload")
    seconds = value
    if not -62135596800 <= seconds <= 253402300799:
        raise CelError("timestamp overflow")
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)


@lru_cache(maxsize=256)
def _zone(name: str) -> timezone | zoneinfo.ZoneInfo:
    """cel-go's timeZone: with a ':' an offset "[+-]H:MM" (minutes within 0..59), else a name
    for time.LoadLocation ("" and "UTC" are UTC)."""
    if ":" in name:
        hours, _, minutes = name.partition(":")
        if not re.fullmatch(r"[+-]?\d+", hours) or not re.fullmatch(r"[+-]?\d+", minutes):
            raise CelError(f"strconv.Atoi: parsing {name!r}: invalid syntax")
        h, m = int(hours), int(minutes)
        if not 0 <= m <= 59:
            raise CelError(f"timezone offset minutes out of range [0, 59]: {name}")
        offset = h * 60 - m if name.startswith("-") else h * 60 + m
        try:
            return timezone(timedelta(minutes=offset))
        except ValueError:
            raise CelError(f"timezone offset out of range: {name}") from None
    if name in ("", "UTC"):
        return UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise CelError(f"unknown time zone {name}") from None


_GETTERS: dict[str, Callable[[datetime], int]] = {
    "getFullYear": lambda t: t.year,
    "getMonth": lambda t: t.month - 1,
    "getDayOfYear": lambda t: t.timetuple().tm_yday - 1,
    "getDayOfMonth": lambda t: t.day - 1,
    "getDate": lambda t: t.day,
    "getDayOfWeek": lambda t: (t.weekday() + 1) % 7,
    "getHours": lambda t: t.hour,
    "getMinutes": lambda t: t.minute,
    "getSeconds": lambda t: t.second,
    "getMilliseconds": lambda t: t.microsecond // 1000,
}


def _in_zone(getter: Callable[[datetime], int]) -> Callable[[Any, Any], int]:
    def call(t: Any, zone: Any) -> int:
        if not isinstance(t, datetime) or type(zone) is not str:
            raise CelError("no such overload")
        return getter(t.astimezone(_zone(zone)))

    return call


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> Any:
    """An RE2 program, RE2 being the syntax and semantics of Go's regexp (errors not logged)."""
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options=options)
    except re2.error as err:
        raise CelError(f"error parsing regexp: {err}") from None


def _matches(s: Any, pattern: Any) -> bool:
    if type(s) is not str or type(pattern) is not str:
        raise CelError("no such overload")
    return _regex(pattern).search(s) is not None


# ------------------------------------------------------------------------- strings extension
# cel-go ext/strings.go: indexes count code points; errors where it errors.

_WHITE_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"  # noqa: E501


def _str(value: Any) -> str:
    if type(value) is not str:
        raise CelError("no such overload")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise CelError("no such overload")
    return value


def _char_at(s: Any, i: Any) -> str:
    s, i = _str(s), _int(i)
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def _index_of(receiver: Any, sub: Any, offset: Any = None) -> int:
    if type(receiver) is list:  # Kubernetes' lists library: first equal element
        if offset is not None:
            raise CelError("no such overload")
        return next((i for i, v in enumerate(receiver) if _cel_equal(v, sub)), -1)
    s, sub = _str(receiver), _str(sub)
    off = 0 if offset is None else _int(offset)
    if off < 0:
        raise CelError(f"index out of range: {off}")
    if sub == "":
        return min(off, len(s))
    if off >= len(s):
        return -1
    return s.find(sub, off)


def _last_index_of(receiver: Any, sub: Any, offset: Any = None) -> int:
    if type(receiver) is list:
        if offset is not None:
            raise CelError("no such overload")
        return next((i for i in range(len(receiver) - 1, -1, -1) if _cel_equal(receiver[i], sub)), -1)
    s, sub = _str(receiver), _str(sub)
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode()) < len(sub.encode()):
            return -1
        off = len(s) - 1
    else:
        off = _int(offset)
    if off < 0:
        raise CelError(f"index out of range: {off}")
    if sub == "":
        return min(off, len(s))
    if off >= len(s):
        return -1
    off = min(off, len(s) - len(sub))
    return s.rfind(sub, 0, off + len(sub)) if off >= 0 else -1


def _ascii_case(upper: bool) -> Callable[[Any], str]:
    table = str.maketrans(
        *(("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")[:: 1 if upper else -1])
    )
    return lambda s: _str(s).translate(table)


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> str:
    s, old, new, n = _str(s), _str(old), _str(new), _int(n)
    return s.replace(old, new, n if n >= 0 else -1)


def _split(s: Any, sep: Any, n: Any = -1) -> list[str]:
    """strings.SplitN: n == 0 nothing, n < 0 every piece, else at most n pieces."""
    s, sep, n = _str(s), _str(sep), _int(n)
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return chars[: n - 1] + ["".join(chars[n - 1 :])]
    return s.split(sep, n - 1 if n > 0 else -1)


def _substring(s: Any, start: Any, end: Any = None) -> str:
    s, start = _str(s), _int(start)
    end = len(s) if end is None else _int(end)
    if start > end:
        raise CelError(f"invalid substring range. start: {start}, end: {end}")
    for i in (start, end):
        if i < 0 or i > len(s):
            raise CelError(f"index out of range: {i}")
    return s[start:end]


def _join(items: Any, sep: Any = "") -> str:
    if type(items) is not list:
        raise CelError("no such overload")
    if any(type(x) is not str for x in items):
        raise CelError("join: invalid input")
    return _str(sep).join(items)


_QUOTES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
           "\\": "\\\\", '"': '\\"'}  # fmt: skip


def _quote(s: Any) -> str:
    return '"' + "".join(_QUOTES.get(c, c) for c in _str(s)) + '"'


def _format(template: Any, args: Any) -> str:
    """ext/formatting_v2.go: %s %d %f %e %b %x %X %o, a precision for %f and %e, %% for '%'."""
    template = _str(template)
    if type(args) is not list:
        raise CelError("no such overload")
    out = []
    for text, verb, precision, index in format_clauses(template, len(args)):
        out.append(text if verb is None else _CLAUSES[verb](args[index], precision))
    return "".join(out)


def format_clauses(template: str, count: int) -> Iterator[tuple[str, str | None, int, int]]:
    """parseFormatStringV2's walk over a template with `count` arguments: (text, None, 0, 0) for
    text, ("", verb, precision, argument index) for a clause; its errors raised where it meets them."""
    i, index = 0, 0
    while i < len(template):
        if template[i] != "%":
            yield template[i], None, 0, 0
            i += 1
        elif template[i + 1 : i + 2] == "%":
            yield "%", None, 0, 0
            i += 2
        else:
            if i + 1 >= len(template):
                raise CelError("unexpected end of string")
            if index >= count:
                raise CelError(f"index {index} out of range")
            read, verb, precision = _clause(template[i + 1 :])
            yield "", verb, precision, index
            i += 1 + read
            index += 1


def _clause(rest: str) -> tuple[int, str, int]:
    """The characters a clause reads after its '%', its verb and its precision (default 6)."""
    i, precision = 0, 6
    if rest[0] == ".":
        j = 1
        while j < len(rest) and rest[j].isascii() and rest[j].isdigit():
            j += 1
        if j >= len(rest):
            raise CelError(f"{_PRECISION}: could not find end of precision specifier")
        if j == 1:
            atoi = 'strconv.Atoi: parsing "": invalid syntax'
            raise CelError(f"{_PRECISION}: error while converting precision to integer: {atoi}")
        precision = int(rest[1:j])
        if precision > 100:
            raise CelError(f"{_PRECISION}: precision {precision} exceeds maximum allowed precision 100")
        i = j
    verb = rest[i]
    if verb not in _CLAUSES:
        raise CelError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
    return i + 1, verb, precision


_PRECISION = "could not parse formatting clause: error while parsing precision"


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return None


def _format_string(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float:
        return _special(value) or format_float(value, "f")
    if type(value) is bytes:
        return value.decode("utf-8", "replace")
    if type(value) is list:
        return "[" + ", ".join(_format_string(v) for v in value) + "]"
    if type(value) is dict and cel_kube.opaque_kind(value) is None:
        entries = sorted((_format_string(k), _format_string(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    if type(value) in (str, int) or isinstance(value, datetime | timedelta):
        return _string(value)
    raise _wrong("s", value)


_TYPE_NAMES = {
    bool: "bool",
    int: "int",
    float: "double",
    str: "string",
    bytes: "bytes",
    list: "list",
    dict: "map",
}


def _type_name(value: Any) -> str:
    if value is None:
        return "null_type"
    if type(value) in _TYPE_NAMES:
        return cel_kube.opaque_kind(value) or _TYPE_NAMES[type(value)]
    if isinstance(value, datetime):
        return "google.protobuf.Timestamp"
    if isinstance(value, timedelta):
        return "google.protobuf.Duration"
    return "optional_type" if isinstance(value, OptionalValue) else type(value).__name__


def _wrong(verb: str, value: Any) -> CelError:
    return CelError(f"error during formatting: {CLAUSE_ERRORS[verb]}, was given {_type_name(value)}")


def _format_decimal(value: Any) -> str:
    if type(value) is int:
        return str(value)
    if type(value) is float:
        return _special(value) or format_float(value, "f")
    raise _wrong("d", value)


def _format_number(value: Any, verb: str, precision: int) -> str:
    if type(value) in (int, float):
        number = float(value)
        return _special(number) or format_float(number, verb, precision)
    raise _wrong(verb, value)


def _format_binary(value: Any) -> str:
    if type(value) is bool:
        return "1" if value else "0"
    if type(value) is int:
        return format(value, "b")
    raise _wrong("b", value)


def _format_hex(value: Any, verb: str) -> str:
    if type(value) is int:
        text = format(value, "x")
    elif type(value) is str:
        text = value.encode().hex()
    elif type(value) is bytes:
        text = value.hex()
    else:
        raise _wrong(verb, value)
    return text.upper() if verb == "X" else text


def _format_octal(value: Any) -> str:
    if type(value) is int:
        return format(value, "o")
    raise _wrong("o", value)


_CLAUSES: dict[str, Callable[[Any, int], str]] = {
    "s": lambda v, _: _format_string(v),
    "d": lambda v, _: _format_decimal(v),
    "f": lambda v, p: _format_number(v, "f", p),
    "e": lambda v, p: _format_number(v, "e", p),
    "b": lambda v, _: _format_binary(v),
    "x": lambda v, _: _format_hex(v, "x"),
    "X": lambda v, _: _format_hex(v, "X"),
    "o": lambda v, _: _format_octal(v),
}
# The types each clause takes (cel-go's stringFormatCheckerV2), for the compile-time check.
CLAUSE_TYPES: dict[str, frozenset[str]] = {
    "s": frozenset({"list", "map", "int", "uint", "double", "bool", "string", "google.protobuf.Timestamp",
                    "bytes", "google.protobuf.Duration", "type", "null_type"}),
    "d": frozenset({"int", "uint", "double"}), "f": frozenset({"int", "uint", "double"}),
    "e": frozenset({"int", "uint", "double"}), "b": frozenset({"bool", "int", "uint"}),
    "x": frozenset({"int", "uint", "string", "bytes"}), "X": frozenset({"int", "uint", "string", "bytes"}),
    "o": frozenset({"int", "uint"}),
}  # fmt: skip
CLAUSE_ERRORS = {
    "s": "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
    "durations, and timestamps",
    "d": "decimal clause can only be used on ints, uints, and doubles",
    "f": "fixed-point clause can only be used on ints, uints, and doubles",
    "e": "scientific clause can only be used on ints, uints, and doubles",
    "b": "only ints, uints, and bools can be formatted as binary",
    "x": "only ints, uints, bytes, and strings can be formatted as hex",
    "X": "only ints, uints, bytes, and strings can be formatted as hex",
    "o": "octal clause can only be used on ints and uints",
}


# ---------------------------------------------------------------------------- lists and regex
# Kubernetes' library/lists.go and library/regex.go.


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise CelError("no such overload")
    return value


def _comparable(a: Any, b: Any) -> int:
    """cel-go's Compare across the comparable types (numbers across int/uint/double)."""
    numbers = (int, float)
    if type(a) is bool or type(b) is bool:
        if type(a) is not type(b):
            raise CelError("no such overload")
    elif isinstance(a, numbers) and isinstance(b, numbers):
        pass
    elif type(a) is not type(b) or type(a) in (list, dict) or a is None:
        raise CelError("no such overload")
    return (a > b) - (a < b)


def _is_sorted(items: Any) -> bool:
    items = _list(items)
    return all(_comparable(items[i], items[i + 1]) != 1 for i in range(len(items) - 1))


def _sum(items: Any) -> Any:
    """The list's sum, from the zero of its type; an int sum past int64 (a uint one past uint64:
    a value past int64 can only be a uint) is an overflow error."""
    items = _list(items)
    if not items:
        return 0
    first = items[0]
    if type(first) is bool or not isinstance(first, int | float | timedelta):
        raise CelError("no such overload")
    if any(type(item) is not type(first) for item in items):
        raise CelError("no such overload")
    total = sum(items[1:], first)
    if type(first) is int:
        unsigned = any(item >= _INT64 for item in items)
        if not (0 <= total < 2**64 if unsigned else -_INT64 <= total < _INT64):
            raise CelError("integer overflow")
    return total


def _extreme(name: str, keep: int) -> Callable[[Any], Any]:
    def pick(items: Any) -> Any:
        items = _list(items)
        if not items:
            raise CelError(f"{name} called on empty list")
        best = items[0]
        _comparable(best, best)
        for item in items[1:]:
            if _comparable(best, item) == keep:
                best = item
        return best

    return pick


def _find(s: Any, pattern: Any) -> str:
    m = _regex(_str(pattern)).search(_str(s))
    return "" if m is None else m.group(0)


def _find_all(s: Any, pattern: Any, n: Any = -1) -> list[str]:
    """regexp.FindAllString: successive matches, an empty match right after a match skipped."""
    s, regex, n = _str(s), _regex(_str(pattern)), _int(n)
    out: list[str] = []
    pos, previous_end = 0, -1
    while pos <= len(s) and (n < 0 or len(out) < n):
        m = regex.search(s, pos)
        if m is None:
            break
        start, end = m.start(), m.end()
        if start == end and start == previous_end:
            pos = start + 1
            continue
        out.append(m.group(0))
        previous_end = end
        pos = end if end > start else end + 1
    return out


# ------------------------------------------------------------------------------ optional lists


def _first(items: Any) -> OptionalValue:
    items = _list(items)
    return OptionalValue.of(items[0]) if items else OptionalValue.none()


def _last(items: Any) -> OptionalValue:
    items = _list(items)
    return OptionalValue.of(items[-1]) if items else OptionalValue.none()


def _unwrap(items: Any) -> list[Any]:
    out = []
    for item in _list(items):
        if not isinstance(item, OptionalValue):
            raise CelError(f"value {item!r} is not optional")
        if item.has_value():
            out.append(item.value())
    return out


def _no_overload() -> Any:
    raise CelError("no such overload")


def _as_optional(value: Any) -> OptionalValue:
    return value if isinstance(value, OptionalValue) else OptionalValue.of(value)


def _optional_list(items: Any) -> list[Any]:
    """`[?x, y, ...]`: an element whose optional value is absent is left out."""
    out = []
    for value, optional in items:
        if optional:
            if not isinstance(value, OptionalValue):
                raise CelError("no such overload")
            if not value.has_value():
                continue
            value = value.value()
        out.append(value)
    return out


def _optional_map(entries: Any) -> dict[Any, Any]:
    """`{?k: v, ...}`: an entry whose optional value is absent is left out."""
    out: dict[Any, Any] = {}
    for key, value, optional in entries:
        if optional:
            if not isinstance(value, OptionalValue):
                raise CelError("no such overload")
            if not value.has_value():
                continue
            value = value.value()
        if key in out:
            raise CelError("Failed with repeated key")
        out[key] = value
    return out


# ---------------------------------------------------------------------------------------- JSON


def _parse_json(text: Any) -> Any:
    """OCM's parseJSON: Go's json.Unmarshal into any, so every number is a float64 (and one past
    float64's range is an error)."""
    if type(text) is not str:
        raise CelError("failed to parse json: argument must be a string")
    try:
        return json.loads(text, parse_int=_json_number, parse_float=_json_number, parse_constant=_no_constant)
    except ValueError as err:
        raise CelError(f"failed to parse json: {err}") from None


def _json_number(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"cannot unmarshal number {text} into Go value of type float64")
    return value


def _no_constant(text: str) -> float:
    raise ValueError(f"invalid character {text[0]!r} looking for beginning of value")


# ------------------------------------------------------------------------------------ equality


def _cel_equal(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality: numbers by value across int/uint/double, otherwise the
    same type and equal contents; an opaque value by its own Equal."""
    if cel_kube.opaque_kind(a) is not None or cel_kube.opaque_kind(b) is not None:
        return cel_kube.equal(a, b)
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return len(a) == len(b) and all(
            any(_cel_equal(k, kb) and _cel_equal(v, b[kb]) for kb in b) for k, v in a.items()
        )
    return a == b


def equal(a: Any, b: Any) -> bool:
    return _cel_equal(a, b)


def not_equal(a: Any, b: Any) -> bool:
    return not _cel_equal(a, b)


# ------------------------------------------------------------------------------------- table

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "size": _size,
    "string": _string,
    "bool": _bool,
    "matches": _matches,
    "int": _int_fallback,
    "timestamp": _timestamp_fallback,
    **{f"{name}@tz": _in_zone(getter) for name, getter in _GETTERS.items()},
    # strings extension
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _ascii_case(upper=False),
    "upperAscii": _ascii_case(upper=True),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: _str(s).strip(_WHITE_SPACE),
    "join": _join,
    "reverse": lambda s: _str(s)[::-1],
    "strings.quote": _quote,
    "format": _format,
    # lists and regex
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", 1),
    "max": _extreme("max", -1),
    "find": _find,
    "findAll": _find_all,
    # optional
    "first": _first,
    "last": _last,
    "optional.unwrap": _unwrap,
    "unwrapOpt": _unwrap,
    # OCM
    "parseJSON": _parse_json,
    # type() of a Kubernetes value: its type's name, which `net.IP` and `net.CIDR` render as
    "type": lambda value: cel_kube.opaque_kind(value) or _no_overload(),
    **cel_kube.FUNCTIONS,
}


# The helpers the rendered source calls for the optional syntax (cel_syntax names them).
FUNCTIONS_OPTIONAL: dict[str, Callable[..., Any]] = {
    "_as_optional": _as_optional,
    "_optional_list": _optional_list,
    "_optional_map": _optional_map,
}


def registered(names: Sequence[str]) -> dict[str, Callable[..., Any]]:
    """Our functions under the names the rendered source calls them by."""
    return {impl_name(n): quiet(FUNCTIONS[n]) for n in names}


class _Unconvertible:
    """What a function returns for an evaluation error: the interpreter logs a warning for every
    Python exception a function raises, while a value it cannot convert fails the call silently."""

    __slots__ = ()


_ERROR = _Unconvertible()


def quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, its failures turned into a silent evaluation error."""

    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except Exception:  # CelError, or a Python error on a value of the wrong type
            return _ERROR

    return call


def impl_name(name: str) -> str:
    """The registered name of a function: `format.named` is `_format_named`."""
    return "_" + name.replace(".", "_").replace("@", "_")
