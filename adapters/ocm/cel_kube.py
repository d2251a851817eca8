"""Kubernetes' CEL value libraries as OCM's environment has them (k8s.io/apiserver v0.35
pkg/cel/library: SemverLib() at version 0, Quantity(), IP(), CIDR(), URLs(), Format()), evaluated
here as they evaluate there, down to the Go libraries underneath (blang/semver v4,
apimachinery's resource.Quantity, net/netip, net/url).

A value of one of these types crosses the Rust interpreter as a one-entry map whose key names the
type behind a NUL (`{"\\0kubernetes.Quantity": "<payload>"}`): the interpreter carries it as it
is, and only the functions here look inside. Equality between them is `equal` (the checker
routes `==` to it where an operand can be one); the interpreter's `type()` of one is `map`.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from adapters.kube.validation import label_value_errors, qualified_name_errors
from adapters.ocm.cel_go import CelError, go_error, net_ip, net_prefix, url_parse

__all__ = ["FUNCTIONS", "OPAQUE_KINDS", "equal", "opaque_kind"]

_TAG = "\0"
SEMVER, QUANTITY, URL = "kubernetes.Semver", "kubernetes.Quantity", "kubernetes.URL"
IP, CIDR, FORMAT = "net.IP", "net.CIDR", "kubernetes.NamedFormat"
OPAQUE_KINDS = (SEMVER, QUANTITY, URL, IP, CIDR, FORMAT)
_INT64 = 2**63


def _wrap(kind: str, payload: str) -> dict[str, str]:
    return {_TAG + kind: payload}


def opaque_kind(value: Any) -> str | None:
    """The type of an opaque value, or None for any other value."""
    if type(value) is dict and len(value) == 1:
        key = next(iter(value))
        if type(key) is str and key[:1] == _TAG:
            return key[1:]
    return None


def _payload(value: Any, kind: str) -> str:
    if opaque_kind(value) != kind:
        raise CelError("no such overload")
    return value[_TAG + kind]


def _string(value: Any) -> str:
    if type(value) is not str:
        raise CelError("no such overload")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise CelError("no such overload")
    return value


# ----------------------------------------------------------------------------------------- semver
# blang/semver v4 Parse; the library compares with Version.Compare and returns major/minor/patch
# as int64 (a uint64 past int64 wraps, as Go's conversion does).

_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_DIGITS = frozenset("0123456789")


def _semver_parse(s: str) -> tuple[int, int, int, tuple[str, ...], tuple[str, ...]]:
    if not s:
        raise CelError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    numbers = []
    patch, build, pre = parts[2], (), ()
    if "+" in patch:
        patch, _, rest = patch.partition("+")
        build = tuple(rest.split("."))
    if "-" in patch:
        patch, _, rest = patch.partition("-")
        pre = tuple(rest.split("."))
    for name, text in (("major", parts[0]), ("minor", parts[1]), ("patch", patch)):
        if not set(text) <= _DIGITS:
            raise CelError(f"Invalid character(s) found in {name} number {text!r}")
        if len(text) > 1 and text[0] == "0":
            raise CelError(f"{name.capitalize()} number must not contain leading zeroes {text!r}")
        if not text or int(text) >= 2**64:
            raise CelError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
        numbers.append(int(text))
    for p in pre:
        if not p:
            raise CelError("Prerelease is empty")
        if set(p) <= _DIGITS:
            if len(p) > 1 and p[0] == "0":
                raise CelError(f"Numeric PreRelease version must not contain leading zeroes {p!r}")
            if int(p) >= 2**64:
                raise CelError(f'strconv.ParseUint: parsing "{p}": value out of range')
        elif not set(p) <= _ALPHANUM:
            raise CelError(f"Invalid character(s) found in prerelease {p!r}")
    for b in build:
        if not b:
            raise CelError("Build meta data is empty")
        if not set(b) <= _ALPHANUM:
            raise CelError(f"Invalid character(s) found in build meta data {b!r}")
    return numbers[0], numbers[1], numbers[2], pre, build


def _semver_of(value: Any) -> tuple[int, int, int, tuple[str, ...], tuple[str, ...]]:
    return _semver_parse(_payload(value, SEMVER))


def _semver_compare(a: Any, b: Any) -> int:
    x, y = _semver_of(a), _semver_of(b)
    if x[:3] != y[:3]:
        return 1 if x[:3] > y[:3] else -1
    if not x[3] or not y[3]:
        return (not x[3]) - (not y[3])
    for p, q in zip(x[3], y[3], strict=False):
        key_p = (0, int(p), "") if set(p) <= _DIGITS else (1, 0, p)
        key_q = (0, int(q), "") if set(q) <= _DIGITS else (1, 0, q)
        if key_p != key_q:
            return 1 if key_p > key_q else -1
    return (len(x[3]) > len(y[3])) - (len(x[3]) < len(y[3]))


def _semver(s: Any) -> dict[str, str]:
    text = _string(s)
    _semver_parse(text)
    return _wrap(SEMVER, text)


def _is_semver(s: Any) -> bool:
    try:
        _semver_parse(_string(s))
    except CelError:
        return False
    return True


def _as_int64(n: int) -> int:
    n %= 2**64
    return n - 2**64 if n >= _INT64 else n


# --------------------------------------------------------------------------------------- quantity
# apimachinery resource.Quantity, by its two representations: an int64Amount (value, scale: the
# value is value * 10^scale) when the parser's fast path or the int64 arithmetic holds, else an
# inf.Dec (unscaled, scale: unscaled * 10^-scale). isInteger/asInteger and asApproximateFloat
# answer by representation, as upstream's do ("2000m" is not an integer there).

_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_MAX_INT64_FACTORS = 18


def _split_quantity(s: str) -> tuple[bool, str, str, str, str]:
    """resource.parseQuantityString: (positive, value, numerator, denominator, suffix)."""
    positive, pos, end = True, 0, len(s)
    if s[:1] in ("-", "+"):
        positive, pos = s[0] != "-", 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    i = pos
    while i < end and s[i].isascii() and s[i].isdigit():
        i += 1
    num = s[pos:i] or "0"
    if i >= end:
        return positive, s, num, "", ""
    pos, denom = i, ""
    if s[pos] == ".":
        i = pos + 1
        while i < end and s[i].isascii() and s[i].isdigit():
            i += 1
        denom = s[pos + 1 : i]
        if i >= end:
            return positive, s, num, denom, ""
        pos = i
    value, start = s[:pos], pos
    while pos < end and s[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end and s[pos] in "-+":
        pos += 1
    while pos < end and s[pos].isascii() and s[pos].isdigit():
        pos += 1
    if pos < end:
        raise CelError(_FORMAT_WRONG)
    return positive, value, num, denom, s[start:]


def _quantity_parse(s: str) -> tuple[str, int, int]:
    """resource.ParseQuantity as (representation, value, scale): ("i", value, k8s scale) or
    ("d", unscaled, inf scale)."""
    if not s:
        raise CelError(_FORMAT_WRONG)
    if s == "0":
        return ("i", 0, 0)
    positive, value, num, denom, suffix = _split_quantity(s)
    if suffix in _DEC_SUFFIXES:
        base, exponent, binary = 10, _DEC_SUFFIXES[suffix], False
    elif suffix in _BIN_SUFFIXES:
        base, exponent, binary = 2, _BIN_SUFFIXES[suffix], True
    elif len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?\d+", suffix[1:]):
        parsed = int(suffix[1:])
        if not -_INT64 <= parsed < _INT64:
            raise CelError("unable to parse quantity's suffix")
        base, exponent, binary = 10, _as_int32(parsed), False
    else:
        raise CelError("unable to parse quantity's suffix")
    mantissa, scale = 1, 0
    if not binary:
        scale = exponent
        precision = _MAX_INT64_FACTORS - len(num) - len(denom)
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(float(exponent) * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = int(num + denom)
            result = shifted * mantissa
            if shifted < _INT64 and -_INT64 <= result < _INT64:
                return ("i", result if positive else -result, scale)
    unscaled, dec_scale = _dec_of(value)
    if base == 10:
        dec_scale -= exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled != 0:
        unscaled, dec_scale = _dec_round_up(unscaled, dec_scale, 9), 9
    if binary and Fraction(unscaled, 10**dec_scale) > _INT64 - 1:
        unscaled, dec_scale = _INT64 - 1, 0
    return ("d", -unscaled if negative else unscaled, dec_scale)


def _as_int32(n: int) -> int:
    n %= 2**32
    return n - 2**32 if n >= 2**31 else n


def _dec_of(text: str) -> tuple[int, int]:
    """inf.Dec SetString of a plain decimal ("-1.50", ".5", "3."): (unscaled, scale)."""
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    whole, _, fraction = digits.partition(".")
    return sign * int((whole or "0") + fraction or "0"), len(fraction)


def _dec_round_up(unscaled: int, scale: int, target: int) -> int:
    """|unscaled| * 10^-scale at scale `target`, rounded away from zero (inf.RoundUp)."""
    if scale <= target:
        return unscaled * 10 ** (target - scale)
    q, r = divmod(unscaled, 10 ** (scale - target))
    return q + (1 if r else 0)


def _q(value: Any) -> tuple[str, int, int]:
    kind, number, scale = _payload(value, QUANTITY).split("|")
    return kind, int(number), int(scale)


def _q_wrap(q: tuple[str, int, int]) -> dict[str, str]:
    return _wrap(QUANTITY, f"{q[0]}|{q[1]}|{q[2]}")


def _q_exact(q: tuple[str, int, int]) -> Fraction:
    kind, number, scale = q
    power = scale if kind == "i" else -scale
    return Fraction(number) * Fraction(10) ** power


def _q_add(a: tuple[str, int, int], b: tuple[str, int, int]) -> tuple[str, int, int]:
    """Quantity.Add: int64Amount.Add when both are int64 amounts and it does not overflow, else
    inf.Dec addition (exact, at the larger scale)."""
    if a[0] == "i" and b[0] == "i":
        added = _int64_amount_add(a[1:], b[1:])
        if added is not None:
            return ("i", *added)
    (ua, sa), (ub, sb) = _as_dec(a), _as_dec(b)
    scale = max(sa, sb)
    return ("d", ua * 10 ** (scale - sa) + ub * 10 ** (scale - sb), scale)


def _as_dec(q: tuple[str, int, int]) -> tuple[int, int]:
    return (q[1], -q[2]) if q[0] == "i" else (q[1], q[2])


def _int64_amount_add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    (av, ascale), (bv, bscale) = a, b
    if bv == 0:
        return a
    if av == 0:
        return b
    if ascale == bscale:
        total, scale = av + bv, ascale
    elif ascale > bscale:
        scaled = av * 10 ** (ascale - bscale)
        if not -_INT64 <= scaled < _INT64:
            return None
        total, scale = scaled + bv, bscale
    else:
        scaled = bv * 10 ** (bscale - ascale)
        if not -_INT64 <= scaled < _INT64:
            return None
        total, scale = av + scaled, ascale
    return (total, scale) if -_INT64 <= total < _INT64 else None


def _q_as_int64(q: tuple[str, int, int]) -> int | None:
    kind, value, scale = q
    if kind == "d" or scale < 0:
        return None
    scaled = value * 10**scale
    return scaled if -_INT64 <= scaled < _INT64 else None


def _pow10(n: int) -> float:
    """Go's math.Pow10, with its tables (so the same float64 comes out)."""
    if 0 <= n <= 308:
        return _POS32[n // 32] * _TAB[n % 32]
    if -323 <= n <= 0:
        return _NEG32[-n // 32] / _TAB[-n % 32]
    return math.inf if n > 0 else 0.0


_TAB = [float(f"1e{i}") for i in range(32)]
_POS32 = [float(f"1e{i}") for i in range(0, 309, 32)]
_NEG32 = [float(f"1e-{i}") for i in range(0, 324, 32)]


def _q_float(q: tuple[str, int, int]) -> float:
    kind, value, scale = q
    try:
        base = float(value)  # int -> float rounds to nearest, as big.Float.Float64 and float64(int64)
    except OverflowError:
        base = math.copysign(math.inf, value)
    exponent = scale if kind == "i" else -scale
    return base if exponent == 0 else base * _pow10(exponent)


def _quantity(s: Any) -> dict[str, str]:
    return _q_wrap(_quantity_parse(_string(s)))


def _is_quantity(s: Any) -> bool:
    try:
        _quantity_parse(_string(s))
    except CelError:
        return False
    return True


def _quantity_operand(value: Any) -> tuple[str, int, int]:
    if type(value) is int:  # add(int), sub(int): resource.NewQuantity(n, DecimalExponent)
        return ("i", value, 0)
    return _q(value)


def _compare(a: Any, b: Any) -> int:
    kind = opaque_kind(a)
    if kind == SEMVER:
        return _semver_compare(a, b)
    x, y = _q_exact(_q(a)), _q_exact(_q(b))
    return (x > y) - (x < y)


def _add(a: Any, b: Any) -> dict[str, str]:
    return _q_wrap(_q_add(_q(a), _quantity_operand(b)))


def _sub(a: Any, b: Any) -> dict[str, str]:
    kind, value, scale = _quantity_operand(b)
    return _q_wrap(_q_add(_q(a), (kind, -value, scale)))


def _as_integer(q: Any) -> int:
    value = _q_as_int64(_q(q))
    if value is None:
        raise CelError("cannot convert value to integer")
    return value


# ------------------------------------------------------------------------------------- ip and cidr


def _ip(value: Any) -> dict[str, str]:
    if opaque_kind(value) == CIDR:  # cidr.ip(): the prefix's address
        return _wrap(IP, net_prefix(_payload(value, CIDR))[0].text)
    return _wrap(IP, net_ip(_string(value)).text)


def _ip_of(value: Any):
    return net_ip(_payload(value, IP))


def _cidr(value: Any) -> dict[str, str]:
    text = _string(value)
    try:
        addr, bits = net_prefix(text)
    except CelError as err:  # stringToCIDR wraps parseCIDR's message in its own prefix again
        raise CelError(f"network address parse error during conversion from string: {err}") from None
    return _wrap(CIDR, f"{addr.text}/{bits}")


def _cidr_contains_ip(c: Any, other: Any) -> bool:
    addr, bits = net_prefix(_payload(c, CIDR))
    ip = net_ip(other) if type(other) is str else _ip_of(other)
    return addr.contains(bits, ip)


def _cidr_contains_cidr(c: Any, other: Any) -> bool:
    addr, bits = net_prefix(_payload(c, CIDR))
    if type(other) is str:
        other = _wrap(CIDR, "/".join(map(str, (lambda p: (p[0].text, p[1]))(net_prefix(other)))))
    other_addr, other_bits = net_prefix(_payload(other, CIDR))
    return bits <= other_bits and addr.contains(bits, other_addr)


def _masked(c: Any) -> dict[str, str]:
    addr, bits = net_prefix(_payload(c, CIDR))
    return _wrap(CIDR, f"{addr.masked(bits).text}/{bits}")


def _is_canonical(s: Any) -> bool:
    text = _string(s)
    return net_ip(text).text == text


def _succeeds(parse: Callable[[str], Any]) -> Callable[[Any], bool]:
    def check(s: Any) -> bool:
        text = _string(s)
        try:
            parse(text)
        except CelError:
            return False
        return True

    return check


# -------------------------------------------------------------------------------------------- url


def _url(s: Any) -> dict[str, str]:
    text = _string(s)
    try:
        url_parse(text, request_uri=True)
        url_parse(text, request_uri=False)
    except CelError as err:
        raise CelError(f"URL parse error during conversion from string: {err}") from None
    return _wrap(URL, text)


def _url_of(value: Any):
    return url_parse(_payload(value, URL), request_uri=False)


def _query(value: Any) -> dict[str, list[str]]:
    """url.URL.Query(): url.ParseQuery, invalid pairs dropped."""
    out: dict[str, list[str]] = {}
    for part in _url_of(value).raw_query.split("&"):
        if not part or ";" in part:
            continue
        key, _, val = part.partition("=")
        try:
            key, val = _query_unescape(key), _query_unescape(val)
        except CelError:
            continue
        out.setdefault(key, []).append(val)
    return out


def _query_unescape(s: str) -> str:
    if re.search(r"%(?![0-9a-fA-F]{2})", s):
        raise CelError("invalid URL escape")
    return unquote(s.replace("+", " "), errors="surrogateescape")


# ----------------------------------------------------------------------------------------- format
# library.ConstantFormats: each validates a string and yields optional.none() when it is valid,
# else optional.of(the messages).

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")


def _is_date(value: str) -> bool:
    """strfmt.IsDate: time.Parse("2006-01-02", value), a real calendar day."""
    m = _DATE.fullmatch(value)
    if m is None:
        return False
    try:
        datetime.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return False
    return True


def _is_datetime(value: str) -> bool:
    """strfmt.IsDateTime: split at 't' (case folded), a date, then a time of day by its pattern."""
    if len(value) < 4:
        return False
    parts = value.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = _TIME.search(parts[1])
    return m is not None and m[1] <= "23" and m[2] <= "59" and m[3] <= "59"


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    """apimachinery's RegexError."""
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_ERROR = _regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character", _LABEL_FMT, "my-name", "123-abc",
)  # fmt: skip
_SUBDOMAIN_ERROR = _regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character", f"{_LABEL_FMT}(\\.{_LABEL_FMT})*", "example.com",
)  # fmt: skip
_DNS1035_ERROR = _regex_error(
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character", "[a-z]([-a-z0-9]*[a-z0-9])?", "my-name", "abc-123",
)  # fmt: skip


def _too_long(value: str, limit: int) -> list[str]:
    return [f"must be no more than {limit} characters"] if len(value) > limit else []


def _dns1123_label(value: str) -> list[str]:
    if _DNS1123_LABEL.fullmatch(value):
        return _too_long(value, 63)
    dots = _DNS1123_SUBDOMAIN.fullmatch(value) is not None  # a subdomain, not a label: it has dots
    return _too_long(value, 63) + ["must not contain dots" if dots else _LABEL_ERROR]


def _dns1123_subdomain(value: str) -> list[str]:
    return _too_long(value, 253) + ([] if _DNS1123_SUBDOMAIN.fullmatch(value) else [_SUBDOMAIN_ERROR])


def _dns1035_label(value: str) -> list[str]:
    return _too_long(value, 63) + ([] if _DNS1035_LABEL.fullmatch(value) else [_DNS1035_ERROR])


def _prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """NameIsDNS*(value, prefix=true): maskTrailingDash first (the last two characters become 'a')."""
    return lambda value: check(value[:-2] + "a" if len(value) > 1 and value.endswith("-") else value)


def _uri(value: str) -> list[str]:
    try:
        url_parse(value, request_uri=True)
    except CelError as err:
        return [str(err)]
    return []


def _matching(valid: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda value: [] if valid(value) else [message]


_FORMATS: dict[str, Callable[..., list[str]]] = {
    "dns1123Label": _dns1123_label,
    "dns1123Subdomain": _dns1123_subdomain,
    "dns1035Label": _dns1035_label,
    "qualifiedName": qualified_name_errors,
    "dns1123LabelPrefix": _prefix(_dns1123_label),
    "dns1123SubdomainPrefix": _prefix(_dns1123_subdomain),
    "dns1035LabelPrefix": _prefix(_dns1035_label),
    "labelValue": label_value_errors,
    "uri": _uri,
    "uuid": _matching(lambda v: _UUID.search(v) is not None, "does not match the UUID format"),
    "byte": _matching(lambda v: _BASE64.search(v) is not None, "invalid base64"),
    "date": _matching(_is_date, "invalid date"),
    "datetime": _matching(_is_datetime, "invalid datetime"),
}


def _format_named(name: Any):
    from cel import OptionalValue

    name = _string(name)
    return OptionalValue.of(_wrap(FORMAT, name)) if name in _FORMATS else OptionalValue.none()


def _validate(f: Any, value: Any):
    from cel import OptionalValue

    errs = _FORMATS[_payload(f, FORMAT)](_string(value))
    return OptionalValue.of(errs) if errs else OptionalValue.none()


# --------------------------------------------------------------------------------------- equality


def equal(a: Any, b: Any) -> bool:
    """`a == b` where either may be an opaque value: each type's own Equal (semver by precedence,
    quantity by value, URL by string, IP and CIDR by address, format by name); an opaque value
    against anything else is an error, as its Equal says."""
    kind, other = opaque_kind(a), opaque_kind(b)
    if kind is None and other is None:
        raise AssertionError("equal needs an opaque operand")
    if kind != other:
        raise CelError("no such overload")
    if kind == SEMVER:
        return _semver_compare(a, b) == 0
    if kind == QUANTITY:
        return _q_exact(_q(a)) == _q_exact(_q(b))
    return a == b


# ------------------------------------------------------------------------------------------ table


def _member(fn: Callable[..., Any], *kinds: str) -> Callable[..., Any]:
    """`fn(receiver, ...)`, for a receiver of one of `kinds`."""

    def call(receiver: Any, *args: Any) -> Any:
        if opaque_kind(receiver) not in kinds:
            raise CelError("no such overload")
        return fn(receiver, *args)

    return call


FUNCTIONS: dict[str, Callable[..., Any]] = {
    # SemverLib (version 0: no normalising second argument)
    "semver": _semver,
    "isSemver": _is_semver,
    "major": _member(lambda v: _as_int64(_semver_of(v)[0]), SEMVER),
    "minor": _member(lambda v: _as_int64(_semver_of(v)[1]), SEMVER),
    "patch": _member(lambda v: _as_int64(_semver_of(v)[2]), SEMVER),
    "isGreaterThan": _member(lambda a, b: _compare(a, b) == 1, SEMVER, QUANTITY),
    "isLessThan": _member(lambda a, b: _compare(a, b) == -1, SEMVER, QUANTITY),
    "compareTo": _member(_compare, SEMVER, QUANTITY),
    # Quantity
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "sign": _member(lambda q: (lambda x: (x > 0) - (x < 0))(_q(q)[1]), QUANTITY),
    "asApproximateFloat": _member(lambda q: _q_float(_q(q)), QUANTITY),
    "asInteger": _member(_as_integer, QUANTITY),
    "isInteger": _member(lambda q: _q_as_int64(_q(q)) is not None, QUANTITY),
    "add": _member(_add, QUANTITY),
    "sub": _member(_sub, QUANTITY),
    # IP and CIDR
    "ip": _ip,
    "isIP": _succeeds(net_ip),
    "ip.isCanonical": _is_canonical,
    "family": _member(lambda v: _ip_of(v).family, IP),
    "isUnspecified": _member(lambda v: _ip_of(v).is_unspecified, IP),
    "isLoopback": _member(lambda v: _ip_of(v).is_loopback, IP),
    "isLinkLocalMulticast": _member(lambda v: _ip_of(v).is_link_local_multicast, IP),
    "isLinkLocalUnicast": _member(lambda v: _ip_of(v).is_link_local_unicast, IP),
    "isGlobalUnicast": _member(lambda v: _ip_of(v).is_global_unicast, IP),
    "cidr": _cidr,
    "isCIDR": _succeeds(net_prefix),
    "containsIP": _member(_cidr_contains_ip, CIDR),
    "containsCIDR": _member(_cidr_contains_cidr, CIDR),
    "prefixLength": _member(lambda c: net_prefix(_payload(c, CIDR))[1], CIDR),
    "masked": _member(_masked, CIDR),
    # URLs
    "url": _url,
    "isURL": _succeeds(lambda s: url_parse(s, request_uri=True)),
    "getScheme": _member(lambda u: _url_of(u).scheme, URL),
    "getHost": _member(lambda u: _url_of(u).host, URL),
    "getHostname": _member(lambda u: _url_of(u).hostname, URL),
    "getPort": _member(lambda u: _url_of(u).port, URL),
    "getEscapedPath": _member(lambda u: _url_of(u).escaped_path, URL),
    "getQuery": _member(_query, URL),
    # Format
    "format.named": _format_named,
    "validate": _member(_validate, FORMAT),
    **{f"format.{name}": (lambda name=name: _wrap(FORMAT, name)) for name in _FORMATS},
}


def opaque_string(value: Any) -> str:
    """string(ip) and string(cidr), the only opaque values with a string conversion."""
    kind = opaque_kind(value)
    if kind == IP:
        return _payload(value, IP)
    if kind == CIDR:
        return _payload(value, CIDR)
    raise go_error(f"type conversion error from '{kind}' to 'string'")
