"""kcp's SyncTargetKey: how the Placement API names a SyncTarget in labels and annotations.

The key is the SHA-224 digest of the target's workspace and name (concatenated, no separator) as
one big-endian number, written in base 62 with the digits 0-9, a-z, A-Z, most significant first
(about 38 characters; always a valid label-key name part). For example the key of "c1" in the
workspace "" is aQtdeEWVcqU7h7AKnYMm3KRQ96U4oU2W04yeOa.
"""

from __future__ import annotations

import hashlib
import string

__all__ = ["sync_target_key"]

_DIGITS = string.digits + string.ascii_lowercase + string.ascii_uppercase


def sync_target_key(workspace: str, name: str) -> str:
    number = int.from_bytes(hashlib.sha224((workspace + name).encode("utf-8")).digest(), "big")
    digits = []
    while number:
        number, digit = divmod(number, 62)
        digits.append(_DIGITS[digit])
    return "".join(reversed(digits)) or "0"
