"""The pieces of Go's standard library that OCM's CEL functions lean on, reproduced where Python's
own differ: net/netip's address and prefix parsing and printing, net/url's Parse and
ParseRequestURI, and strconv's float formatting. Only what the CEL libraries call is here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["CelError", "GoAddr", "format_float", "go_error", "net_ip", "net_prefix", "url_parse"]


class CelError(Exception):
    """An evaluation error raised by one of our functions: the cluster does not match."""


def go_error(message: str) -> CelError:
    return CelError(message)


def go_quote(s: str) -> str:
    """strconv.Quote for the printable strings our messages quote."""
    out = []
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# ------------------------------------------------------------------------------------ net/netip


@dataclass(frozen=True, slots=True)
class GoAddr:
    """A netip.Addr: 32 or 128 bits, an IPv6 zone."""

    value: int
    bits: int  # 32 or 128
    zone: str = ""

    @property
    def text(self) -> str:
        if self.bits == 32:
            return ".".join(str(self.value >> s & 0xFF) for s in (24, 16, 8, 0))
        if self.is_4in6:
            out = "::ffff:" + GoAddr(self.value & 0xFFFFFFFF, 32).text
        else:
            words = [self.value >> (112 - 16 * i) & 0xFFFF for i in range(8)]
            start, end = 255, 255
            for i in range(8):
                j = i
                while j < 8 and words[j] == 0:
                    j += 1
                if j - i >= 2 and j - i > end - start:
                    start, end = i, j
            parts, i = [], 0
            out = ""
            while i < 8:
                if i == start:
                    out += "::"
                    i = end
                    if i >= 8:
                        break
                elif i > 0:
                    out += ":"
                out += f"{words[i]:x}"
                i += 1
            del parts
        return out + (f"%{self.zone}" if self.zone else "")

    @property
    def is_4in6(self) -> bool:
        return self.bits == 128 and self.value >> 32 == 0xFFFF

    def _unmapped(self) -> GoAddr:
        return GoAddr(self.value & 0xFFFFFFFF, 32) if self.is_4in6 else self

    @property
    def family(self) -> int:
        return 4 if self.bits == 32 else 6

    @property
    def is_unspecified(self) -> bool:
        return self.value == 0 and not self.zone

    @property
    def is_loopback(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 24 == 127 if ip.bits == 32 else ip.value == 1

    @property
    def is_multicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 28 == 0xE if ip.bits == 32 else ip.value >> 120 == 0xFF

    @property
    def is_link_local_unicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 16 == 0xA9FE if ip.bits == 32 else (ip.value >> 112) & 0xFFC0 == 0xFE80

    @property
    def is_link_local_multicast(self) -> bool:
        ip = self._unmapped()
        return ip.value >> 8 == 0xE00000 if ip.bits == 32 else (ip.value >> 112) & 0xFF0F == 0xFF02

    @property
    def is_global_unicast(self) -> bool:
        ip = self._unmapped()
        if ip.bits == 32 and ip.value in (0, 0xFFFFFFFF):
            return False
        unspecified = ip.bits == 128 and ip.value == 0 and not ip.zone
        return not (unspecified or ip.is_loopback or ip.is_multicast or ip.is_link_local_unicast)

    def contains(self, bits: int, other: GoAddr) -> bool:
        """netip.Prefix{self, bits}.Contains(other)."""
        if other.zone or self.bits != other.bits:
            return False
        shift = self.bits - bits
        return (self.value ^ other.value) >> shift == 0

    def masked(self, bits: int) -> GoAddr:
        shift = self.bits - bits
        return GoAddr(self.value >> shift << shift, self.bits)


def _parse_addr(s: str) -> GoAddr:
    """netip.ParseAddr."""
    for ch in s:
        if ch == ".":
            return _parse_ipv4(s, s)
        if ch == ":":
            return _parse_ipv6(s)
        if ch == "%":
            raise _addr_error(s, "missing IPv6 address")
    raise _addr_error(s, "unable to parse IP")


def _addr_error(s: str, msg: str, at: str = "") -> CelError:
    text = f"ParseAddr({go_quote(s)}): {msg}"
    return CelError(text + (f" (at {go_quote(at)})" if at else ""))


def _parse_ipv4(s: str, whole: str) -> GoAddr:
    fields, val, digits = [], 0, 0
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if digits == 1 and val == 0:
                raise _addr_error(whole, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(ch) - 48
            digits += 1
            if val > 255:
                raise _addr_error(whole, "IPv4 field has value >255")
        elif ch == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _addr_error(whole, "IPv4 field must have at least one digit", s[i:])
            if len(fields) == 3:
                raise _addr_error(whole, "IPv4 address too long")
            fields.append(val)
            val = digits = 0
        else:
            raise _addr_error(whole, "unexpected character", s[i:])
    if len(fields) < 3:
        raise _addr_error(whole, "IPv4 address too short")
    fields.append(val)
    return GoAddr(fields[0] << 24 | fields[1] << 16 | fields[2] << 8 | fields[3], 32)


def _parse_ipv6(whole: str) -> GoAddr:
    s, zone = whole, ""
    if "%" in s:
        s, _, zone = s.partition("%")
        if not zone:
            raise _addr_error(whole, "zone must be a non-empty string")
    ip = [0] * 16
    ellipsis = -1
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return GoAddr(0, 128, zone)
    i = 0
    while i < 16:
        off, acc = 0, 0
        while off < len(s) and s[off] in "0123456789abcdefABCDEF":
            acc = (acc << 4) + int(s[off], 16)
            if acc > 0xFFFF:
                raise _addr_error(whole, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _addr_error(whole, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _addr_error(
                    whole, "embedded IPv4 address must replace the final 2 fields of the address", s
                )
            if i + 4 > 16:
                raise _addr_error(
                    whole, "too many hex fields to fit an embedded IPv4 at the end of the address", s
                )
            try:
                v4 = _parse_ipv4(s, s)
            except CelError as err:
                raise _addr_error(whole, str(err), s) from None
            ip[i : i + 4] = [v4.value >> sh & 0xFF for sh in (24, 16, 8, 0)]
            s, i = "", i + 4
            break
        ip[i], ip[i + 1] = acc >> 8, acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _addr_error(whole, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _addr_error(whole, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(whole, "multiple :: in address", s)
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        raise _addr_error(whole, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(whole, "address string too short")
        n = 16 - i
        ip = ip[:ellipsis] + [0] * n + ip[ellipsis:i]
    elif ellipsis >= 0:
        raise _addr_error(whole, "the :: must expand to at least one field of zeros")
    return GoAddr(int.from_bytes(bytes(ip), "big"), 128, zone)


def net_ip(raw: str) -> GoAddr:
    """Kubernetes' parseIPAddr: netip.ParseAddr, no zone, no IPv4-mapped IPv6."""
    try:
        addr = _parse_addr(raw)
    except CelError as err:
        raise CelError(
            f"IP Address {go_quote(raw)} parse error during conversion from string: {err}"
        ) from None
    if addr.zone:
        raise CelError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if addr.is_4in6:
        raise CelError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr


def net_prefix(raw: str) -> tuple[GoAddr, int]:
    """Kubernetes' parseCIDR: netip.ParsePrefix, no IPv4-mapped IPv6."""
    where = f"netip.ParsePrefix({go_quote(raw)})"
    i = raw.rfind("/")
    if i < 0:
        raise _cidr_error(f"{where}: no '/'")
    try:
        addr = _parse_addr(raw[:i])
    except CelError as err:
        raise _cidr_error(f"{where}: {err}") from None
    if addr.zone:
        raise _cidr_error(f"{where}: IPv6 zones cannot be present in a prefix")
    bits_text = raw[i + 1 :]
    if not re.fullmatch(r"[+-]?[0-9]+", bits_text):
        raise _cidr_error(f"{where}: bad bits after slash: {go_quote(bits_text)}")
    bits = int(bits_text)
    if not 0 <= bits <= addr.bits:
        raise _cidr_error(f"{where}: prefix length out of range")
    if addr.is_4in6:
        raise CelError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr, bits


def _cidr_error(message: str) -> CelError:
    return CelError(f"network address parse error during conversion from string: {message}")


# -------------------------------------------------------------------------------------- net/url


@dataclass(frozen=True, slots=True)
class GoURL:
    scheme: str = ""
    opaque: str = ""
    host: str = ""
    path: str = ""
    raw_path: str = ""
    raw_query: str = ""

    @property
    def hostname(self) -> str:
        return _split_host_port(self.host)[0]

    @property
    def port(self) -> str:
        return _split_host_port(self.host)[1]

    @property
    def escaped_path(self) -> str:
        if self.raw_path and _valid_encoded(self.raw_path):
            try:
                if _unescape(self.raw_path, "path") == self.path:
                    return self.raw_path
            except CelError:
                pass
        if self.path == "*":
            return "*"
        return _escape(self.path, "path")


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port[0] == ":" and all("0" <= c <= "9" for c in port[1:]))


def _should_escape(c: int, mode: str) -> bool:
    ch = chr(c)
    if ch.isascii() and ch.isalnum():
        return False
    if mode in ("host", "zone") and ch in "!$&'()*+,;=:[]<>\"":
        return False
    if ch in "-_.~":
        return False
    if ch in "$&+,/:;=?@":
        if mode == "path":
            return ch == "?"
        if mode == "user":
            return ch in "@/?:"
        if mode == "query":
            return True
        if mode == "fragment":
            return False
    return not (mode == "fragment" and ch in "!()*")


def _unescape(s: str, mode: str) -> str:
    data = s.encode("utf-8", "surrogateescape")
    i, n, has_plus = 0, 0, False
    while i < len(data):
        c = data[i]
        if c == 0x25:  # %
            n += 1
            if i + 2 >= len(data) or not _ishex(data[i + 1]) or not _ishex(data[i + 2]):
                raise CelError(f"invalid URL escape {go_quote(data[i : i + 3].decode('utf-8', 'replace'))}")
            if mode == "host" and int(chr(data[i + 1]), 16) < 8 and data[i : i + 3] != b"%25":
                raise CelError(f"invalid URL escape {go_quote(data[i : i + 3].decode())}")
            if mode == "zone":
                v = int(data[i + 1 : i + 3], 16)
                if data[i : i + 3] != b"%25" and v != 0x20 and _should_escape(v, "host"):
                    raise CelError(f"invalid URL escape {go_quote(data[i : i + 3].decode())}")
            i += 3
        elif c == 0x2B:  # +
            has_plus = mode == "query"
            i += 1
        else:
            if mode in ("host", "zone") and c < 0x80 and _should_escape(c, mode):
                raise CelError(f"invalid character {go_quote(chr(c))} in host name")
            i += 1
    if n == 0 and not has_plus:
        return s
    out, i = bytearray(), 0
    while i < len(data):
        c = data[i]
        if c == 0x25:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
            continue
        out.append(0x20 if c == 0x2B and mode == "query" else c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _ishex(c: int) -> bool:
    return chr(c) in "0123456789abcdefABCDEF"


def _escape(s: str, mode: str) -> str:
    out = []
    for c in s.encode("utf-8", "surrogateescape"):
        if c == 0x20 and mode == "query":
            out.append("+")
        elif _should_escape(c, mode):
            out.append(f"%{c:02X}")
        else:
            out.append(chr(c))
    return "".join(out)


def _valid_encoded(s: str) -> bool:
    return all(
        ch in "!$&'()*+,;=:@[]%" or not _should_escape(c, "path")
        for c, ch in ((b, chr(b)) for b in s.encode("utf-8", "surrogateescape"))
    )


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, ch in enumerate(raw):
        if ch.isascii() and ch.isalpha():
            continue
        if ch.isascii() and (ch.isdigit() or ch in "+-."):
            if i == 0:
                return "", raw
            continue
        if ch == ":":
            if i == 0:
                raise CelError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _parse_host(host: str) -> str:
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise CelError("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise CelError(f"invalid port {go_quote(colon_port)} after host")
        zone = host[:i].find("%25")
        if zone >= 0:
            return (
                _unescape(host[:zone], "host") + _unescape(host[zone:i], "zone") + _unescape(host[i:], "host")
            )
    else:
        i = host.rfind(":")
        if i != -1 and not _valid_optional_port(host[i:]):
            raise CelError(f"invalid port {go_quote(host[i:])} after host")
    return _unescape(host, "host")


def _parse_authority(authority: str) -> str:
    i = authority.rfind("@")
    host = _parse_host(authority[i + 1 :] if i >= 0 else authority)
    if i >= 0:
        userinfo = authority[:i]
        if not all((ch.isascii() and ch.isalnum()) or ch in "-._:~!$&'()*+,;=%@" for ch in userinfo):
            raise CelError("net/url: invalid userinfo")
        for part in userinfo.split(":", 1):
            _unescape(part, "user")
    return host


def url_parse(raw: str, *, request_uri: bool) -> GoURL:
    """url.ParseRequestURI (`request_uri`) or url.Parse; the error is url.Error's text."""
    try:
        if request_uri:
            return _parse(raw, True)
        base, _, fragment = raw.partition("#")
        url = _parse(base, False)
    except CelError as err:
        raise CelError(f"parse {go_quote(raw if request_uri else raw.partition('#')[0])}: {err}") from None
    if fragment:
        try:
            _unescape(fragment, "fragment")
        except CelError as err:
            raise CelError(f"parse {go_quote(raw)}: {err}") from None
    return url


def _parse(raw: str, via_request: bool) -> GoURL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise CelError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise CelError("empty url")
    if raw == "*":
        return GoURL(path="*")
    scheme, rest = _get_scheme(raw)
    scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest, query = rest[:-1], ""
    else:
        rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return GoURL(scheme=scheme, opaque=rest, raw_query=query)
        if via_request:
            raise CelError("invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise CelError("first path segment in URL cannot contain colon")
    host = ""
    if (scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        if "/" in authority:
            i = authority.index("/")
            authority, rest = authority[:i], authority[i:]
        host = _parse_authority(authority)
    path = _unescape(rest, "path")
    raw_path = "" if _escape(path, "path") == rest else rest
    return GoURL(scheme=scheme, host=host, path=path, raw_path=raw_path, raw_query=query)


# ------------------------------------------------------------------------------------- strconv


def format_float(value: float, verb: str, precision: int = -1) -> str:
    """strconv.FormatFloat(value, verb, precision, 64) for verb 'f', 'e' or 'g' with the shortest
    digits (precision -1), and fmt's "%.Nf" / "%.Ne" otherwise (Python's formatting rounds the
    exact binary value the same way). 'g' shortest, as fmt's %g: the exponent form when the
    decimal exponent is below -4 or at least 6 (strconv/ftoa.go: "if precision was the shortest
    possible, use precision 6 for this decision")."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if precision >= 0:
        return f"{value:.{precision}{verb}}"
    sign = "-" if math.copysign(1, value) < 0 else ""
    digits, exp = _shortest(abs(value))
    if verb == "e" or (verb == "g" and (exp < -4 or exp >= 6)):
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if digits == "0":
        return sign + "0"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    if len(digits) <= exp + 1:
        return sign + digits + "0" * (exp + 1 - len(digits))
    return f"{sign}{digits[: exp + 1]}.{digits[exp + 1 :]}"


def _shortest(value: float) -> tuple[str, int]:
    """The shortest digits that read back as `value` (Python's repr finds the same ones as Go's
    strconv) and the decimal exponent of the first digit."""
    if value == 0:
        return "0", 0
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    del sign
    text = "".join(map(str, digits))
    return text, len(text) - 1 + int(exponent)
