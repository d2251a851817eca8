"""The names the scheduler gives new clusters: upstream's derived values, the shortening rule and
a prefix that leaves no room."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.openmcp.naming import NamingError, generated_name, name_hash, shorten


def test_upstream_derived_names() -> None:
    assert generated_name("exclusive-", "foo", "exclusive") == "exclusive-qilq5nsb"
    assert generated_name("shared-twice-", "foo", "shared") == "shared-twice-urf5rng2"
    assert generated_name("shared-twice-", "foo", "shared3") == "shared-twice-vsa6ssty"


def test_hash_is_eight_lowercase_base32_characters() -> None:
    for parts in (("a", "b"), ("", ""), ("namespace-with-a-long-name", "x" * 200)):
        h = name_hash(*parts)
        assert len(h) == 8 and set(h) <= set("abcdefghijklmnopqrstuvwxyz234567")
    assert name_hash("foo", "exclusive") == name_hash("foo/exclusive")


@given(st.lists(st.text(), min_size=1, max_size=3))
def test_hash_is_base32_of_the_first_five_bytes_of_shake128(parts) -> None:
    """Held to the plain computation it replaces (the bits written two characters at a time)."""
    digest = hashlib.shake_128("/".join(parts).encode()).digest(5)
    assert name_hash(*parts) == base64.b32encode(digest).decode("ascii").lower()


def test_shorten_keeps_what_fits_and_hashes_the_rest() -> None:
    assert shorten("abcdefgh", 8) == "abcdefgh"
    short = shorten("abcdefghijkl", 11)
    assert short == "a--" + name_hash("abcdefghijkl") and len(short) == 11
    with pytest.raises(NamingError):
        shorten("abcdefgh", 7)  # "--" and eight characters leave no room


def test_prefix_up_to_55_characters_fits() -> None:
    assert len(generated_name("p" * 55, "foo", "bar")) == 63
    with pytest.raises(NamingError):
        generated_name("p" * 56, "foo", "bar")
