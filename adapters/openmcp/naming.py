"""The names the scheduler gives the clusters it creates.

A name is the prefix plus an eight-character hash of the request's "<namespace>/<name>": the first
five bytes of SHAKE128, in lowercase base32 without padding. The hash does not depend on the
request's uid, so a request deleted and made again under the same name maps to the same cluster.
A hash longer than the room the prefix leaves (63 characters in all) is shortened to
`<start>--<hash of the hash>`; when even that does not fit, no name can be made.

A request labelled `clusters.openmcp.cloud/randomize-cluster-name: "true"` asks the API server to
name its cluster from `generateName` instead (k8s.io/apiserver pkg/storage/names/generate.go:
the prefix cut to 58 characters, then five characters of apimachinery's util/rand alphabet), and
upstream grants the request in the same reconcile with the name the server answered. The server
draws the suffix at random; here it is drawn from the seed and the request's identity (namespace,
name, uid), so the same request gets the same name in every run, in any batch. A name that is
taken makes the server draw again (pkg/registry/generic/registry/store.go retries a create that
failed with AlreadyExists); `server_names` gives the draws in order, and the first free one is
the name the server would eventually give.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from itertools import count

from adapters.kube.validation import name_from_generate_name
from adapters.openmcp import names as n

__all__ = ["NamingError", "name_hash", "shorten", "generated_name", "server_names"]


class NamingError(ValueError):
    """No name fits: the prefix leaves too little room."""


def name_hash(*parts: str) -> str:
    """The parts joined by "/", hashed to eight base32 characters: the five bytes' forty bits, five
    a character, most significant first (base64.b32encode's, in lower case; written here two
    characters at a time, as a hub names tens of thousands of clusters)."""
    bits = int.from_bytes(hashlib.shake_128("/".join(parts).encode()).digest(5), "big")
    return _PAIRS[bits >> 30] + _PAIRS[bits >> 20 & 1023] + _PAIRS[bits >> 10 & 1023] + _PAIRS[bits & 1023]


_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"  # RFC 4648's alphabet, lower case
_PAIRS = [first + second for first in _BASE32 for second in _BASE32]  # ten bits -> two characters


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


def server_names(generate_name: str, seed: int, namespace: str, name: str, uid: str) -> Iterator[str]:
    """The names the API server draws for a cluster with `generateName: generate_name` made for
    the request namespace/name (uid), attempt after attempt: endless, one per attempt."""
    for attempt in count():
        digest = hashlib.sha256(f"{seed}/{namespace}/{name}/{uid}/{attempt}".encode()).digest()
        yield name_from_generate_name(generate_name, int.from_bytes(digest[:8], "big"))
