"""Kubernetes quantity parsing, per the upstream (apimachinery resource.ParseQuantity) rules."""

from __future__ import annotations

from fractions import Fraction

import pytest

from model import Quantity, QuantityError, parse_quantity

NANO = 10**9


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("0", 0),
        ("4", 4 * NANO),
        ("500m", 500 * 10**6),
        ("1u", 1000),
        ("7n", 7),
        ("4Gi", 4 * 2**30 * NANO),
        ("1Ki", 1024 * NANO),
        ("1.5Ki", 1536 * NANO),
        ("3Mi", 3 * 2**20 * NANO),
        ("1Ei", 2**60 * NANO),
        ("1.5e3", 1500 * NANO),
        ("1e3", 1000 * NANO),
        ("1E3", 1000 * NANO),  # an exponent, not exa followed by digits
        ("1e-3", 10**6),
        ("2E+2", 200 * NANO),
        ("2k", 2000 * NANO),
        ("3M", 3 * 10**6 * NANO),
        ("1G", 10**9 * NANO),
        ("1T", 10**12 * NANO),
        ("1P", 10**15 * NANO),
        ("1E", 10**18 * NANO),  # exa
        ("+1", NANO),
        ("-0.5", -NANO // 2),
        ("-4Gi", -4 * 2**30 * NANO),
        (".5", NANO // 2),
        ("5.", 5 * NANO),
        ("0.5n", 1),  # finer than a nano-unit: rounded up
        ("1.0000000001", NANO + 1),  # rounded up to the next nano-unit
        ("-1.0000000001", -(NANO + 1)),  # away from zero
        ("1.000000001", NANO + 1),  # exactly representable: unchanged
        ("0.1m", 10**5),
    ],
)
def test_parse(text: str, nanos: int) -> None:
    q = parse_quantity(text)
    assert q.nanos == nanos
    assert Quantity.of(text).nanos == nanos


@pytest.mark.parametrize(
    "text",
    [
        "",
        "K",  # upper-case k is not a suffix
        "1K",
        "1e",
        "1E+",
        "-3.01e-",
        "1 Gi",
        "Gi",
        "1.2.3",
        "1i",
        ".5i",
        "0.1mi",
        "0.1am",
        "aoeu",
        "1+1.0M",
        "1.1.M",
        "+",
        "-",
        ".",
        "1Gib",
        "e3",
        "0x10",
    ],
)
def test_rejects(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize("value", [4, 4.0, None, b"4", ["4"]])
def test_rejects_non_strings(value) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)


def test_quantity_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_quantity("nope")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("1Gi", "1073741824"),
        ("1000m", "1"),
        ("1k", "1000"),
        ("1e3", "1k"),
        ("1Ki", "1024"),
        ("0.5", "500m"),
        ("1M", "1000k"),
        ("-0", "0"),
        ("1E", "1e18"),
        ("1000n", "1u"),
    ],
)
def test_equal_across_representations(a: str, b: str) -> None:
    qa, qb = parse_quantity(a), parse_quantity(b)
    assert qa == qb
    assert hash(qa) == hash(qb)
    assert qa <= qb and qa >= qb
    assert not qa < qb and not qa > qb
    assert len({qa, qb}) == 1


@pytest.mark.parametrize(
    ("small", "big"),
    [
        ("999m", "1"),
        ("1k", "1Ki"),
        ("1G", "1Gi"),
        ("-1", "0"),
        ("-1Gi", "-1G"),
        ("1.0000000001", "1.000000002"),
        ("1", "1.0000000001"),
        ("1E", "1Ei"),
        ("2", "1e1"),
    ],
)
def test_ordering(small: str, big: str) -> None:
    qs, qb = parse_quantity(small), parse_quantity(big)
    assert qs < qb and qs <= qb
    assert qb > qs and qb >= qs
    assert qs != qb
    assert sorted([qb, qs]) == [qs, qb]


def test_text_is_kept_but_not_compared() -> None:
    q = parse_quantity("1Gi")
    assert str(q) == "1Gi"
    assert q == Quantity(2**30 * NANO)


def test_of_numbers() -> None:
    assert Quantity.of(3).nanos == 3 * NANO
    assert Quantity.of(Fraction(1, 4)).nanos == NANO // 4
    assert Quantity.of(-2).nanos == -2 * NANO
    assert Quantity.of(Fraction(1, 3 * NANO)).nanos == 1  # rounded up
    assert str(Quantity(1500 * 10**6)) == "1500m"
    assert str(Quantity(2 * NANO)) == "2"
    assert str(Quantity(7)) == "7n"


@pytest.mark.parametrize(
    ("text", "value"),
    [("4", 4.0), ("500m", 0.5), ("4Gi", 4.0 * 2**30), ("-0.5", -0.5), ("1.5e3", 1500.0), ("1n", 1e-9)],
)
def test_as_float(text: str, value: float) -> None:
    assert parse_quantity(text).as_float() == value


def test_as_float_is_nearest_double() -> None:
    # 1/3 in nano-units: the float is the correctly rounded division, not an accumulation.
    q = Quantity(NANO // 3)
    assert q.as_float() == (NANO // 3) / NANO
    assert parse_quantity("8").as_float() > parse_quantity("7999999999n").as_float()


def test_too_large_is_rejected() -> None:
    with pytest.raises(QuantityError):
        parse_quantity("1e60")
