"""kcp's SyncTargetKey: how the Placement API names a SyncTarget in labels and annotations.

The key is the SHA-224 digest of the target's workspace and name (concatenated, no separator) as
one big-endian number, written in base 62 with the digits 0-9, a-z, A-Z, most significant first
(about 38 characters; always a valid label-key name part). For example the key of "c1" in the
workspace "" is aQtdeEWVcqU7h7AKnYMm3KRQ96U4oU2W04yeOa.
"""

from __future__ import annotations

import hashlib
import string
from functools import lru_cache

__all__ = ["sync_target_key"]

_DIGITS = string.digits + string.ascii_lowercase + string.ascii_uppercase
_CHUNK = 62**10  # ten base-62 digits at a time: below 2**63, so the inner divisions are small ints


@lru_cache(maxsize=1 << 16)  # a hub asks the key of each of its SyncTargets several times
def sync_target_key(workspace: str, name: str) -> str:
    number = int.from_bytes(hashlib.sha224((workspace + name).encode("utf-8")).digest(), "big")
    digits = []
    while number:
        number, chunk = divmod(number, _CHUNK)
        for _ in range(10):
            chunk, digit = divmod(chunk, 62)
            digits.append(_DIGITS[digit])
    return "".join(reversed(digits)).lstrip("0") or "0"
