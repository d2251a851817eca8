"""The names the scheduler gives the clusters it creates.

A name is the prefix plus an eight-character hash of the request's "<namespace>/<name>": the first
five bytes of SHAKE128, in lowercase base32 without padding. The hash does not depend on the
request's uid, so a request deleted and made again under the same name maps to the same cluster.
A hash longer than the room the prefix leaves (63 characters in all) is shortened to
`<start>--<hash of the hash>`; when even that does not fit, no name can be made.
"""

from __future__ import annotations

import base64
import hashlib

from adapters.openmcp import names as n

__all__ = ["NamingError", "name_hash", "shorten", "generated_name"]


class NamingError(ValueError):
    """No name fits: the prefix leaves too little room."""


def name_hash(*parts: str) -> str:
    """The parts joined by "/", hashed to eight base32 characters."""
    digest = hashlib.shake_128("/".join(parts).encode()).digest(5)
    return base64.b32encode(digest).decode("ascii").lower().rstrip("=")


def shorten(text: str, limit: int) -> str:
    """`text` itself when it fits in `limit` characters, else its start and `--<hash>`."""
    if len(text) <= limit:
        return text
    suffix = f"--{name_hash(text)}"
    keep = limit - len(suffix)
    if keep <= 0:
        raise NamingError(f"no name of at most {limit} characters can be made from {text!r}")
    return text[:keep] + suffix


def generated_name(prefix: str, namespace: str, name: str) -> str:
    """`prefix` and the hash of the request `namespace/name`, at most 63 characters."""
    return prefix + shorten(name_hash(namespace, name), n.MAX_NAME_LENGTH - len(prefix))
