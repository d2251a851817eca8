"""Kubernetes resource quantities ("4", "500m", "4Gi", "1.5e3", "2k"), parsed exactly.

A quantity is kept as an exact count of nano-units, the finest precision Kubernetes keeps:
a literal with more fractional precision is rounded away from zero to the next nano-unit,
as the upstream parser does.
"""

from __future__ import annotations

import math
import re
from dataclasses import field
from fractions import Fraction

from model.frozen import frozen

__all__ = ["Quantity", "QuantityError", "parse_quantity"]

_NANO = 10**9

_BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL_SUFFIXES = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# Per suffix: (power of two, power of ten).
_SUFFIX_POWERS = {
    **{suffix: (10 * (i + 1), 0) for i, suffix in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))},
    **{"n": (0, -9), "u": (0, -6), "m": (0, -3), "": (0, 0), "k": (0, 3), "M": (0, 6)},
    **{"G": (0, 9), "T": (0, 12), "P": (0, 15), "E": (0, 18)},
}
_GRAMMAR = re.compile(
    r"(?P<sign>[+-]?)(?P<number>\d+(?:\.\d*)?|\.\d+)"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE](?P<exponent>[+-]?\d+))?"
)
# Quantities beyond this many nano-units do not fit the 128-bit columns the vectorised filters use.
_LIMIT = 2**126


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@frozen(order=False)
class Quantity:
    """An exact quantity. Compare with the usual operators; `nanos` is the value times 10^9."""

    nanos: int
    text: str = field(default="", compare=False)

    def __lt__(self, other: Quantity) -> bool:
        return self.nanos < other.nanos

    def __le__(self, other: Quantity) -> bool:
        return self.nanos <= other.nanos

    def __gt__(self, other: Quantity) -> bool:
        return self.nanos > other.nanos

    def __ge__(self, other: Quantity) -> bool:
        return self.nanos >= other.nanos

    def as_float(self) -> float:
        """The nearest float64, as upstream's approximate conversion used by scoring."""
        return self.nanos / _NANO

    def __str__(self) -> str:
        return self.text or _format_nanos(self.nanos)

    @classmethod
    def of(cls, value: int | float | str | Fraction) -> Quantity:
        if isinstance(value, str):
            return parse_quantity(value)
        return cls(_round_to_nanos(Fraction(value)), str(value))


def parse_quantity(text: str) -> Quantity:
    """Parse a Kubernetes quantity string; raise QuantityError when it is not one."""
    if not isinstance(text, str):
        raise QuantityError(f"quantity must be a string, not {type(text).__name__}")
    match = _GRAMMAR.fullmatch(text)  # no surrounding blanks, as upstream's parser
    if match is None:
        raise QuantityError(f"unable to parse quantity {text!r}")
    whole, _, fraction = match["number"].partition(".")
    # value = mantissa * 2**binary * 10**decimal, in integers: no float, no Fraction on this hot path
    mantissa = int((whole or "0") + fraction)
    binary, decimal = 0, -len(fraction) + 9  # + 9: counted in nano-units
    if match["exponent"] is not None:
        decimal += int(match["exponent"])
    else:
        binary, power = _SUFFIX_POWERS[match["suffix"] or ""]
        decimal += power
    if match["sign"] == "-":
        mantissa = -mantissa
    mantissa <<= binary
    if decimal >= 0:
        nanos = mantissa * 10**decimal
    else:
        nanos = _round_to_nanos(Fraction(mantissa, 10**-decimal) / _NANO)
    if abs(nanos) >= _LIMIT:
        raise QuantityError(f"quantity {text!r} is too large")
    return Quantity(nanos, text)


def _round_to_nanos(value: Fraction) -> int:
    scaled = value * _NANO
    # Away from zero, as upstream rounds a literal finer than a nano-unit.
    return math.ceil(scaled) if scaled >= 0 else math.floor(scaled)


def _format_nanos(nanos: int) -> str:
    if nanos % _NANO == 0:
        return str(nanos // _NANO)
    for suffix, scale in (("m", 10**6), ("u", 10**3), ("n", 1)):
        if nanos % scale == 0:
            return f"{nanos // scale}{suffix}"
    raise AssertionError("unreachable")
