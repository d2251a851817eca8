"""The synthetic hubs, for the benchmarks: a re-export of :mod:`adapters.generate.hubs` (every
system's generator, by name), the shared layer (:mod:`adapters.generate.common`) and the KubeFleet
generator, kept so that ``python -m bench.generate`` and older imports work.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from adapters.fleet.generate import PICK_ALL_LIMIT, generate_fleet
from adapters.generate.common import DEFAULT_NOW, ClusterTable, Matcher, cluster_table, zipf_weights
from adapters.generate.hubs import generate, generate_yaml, generating

SYSTEMS = generating()

__all__ = [
    "DEFAULT_NOW",
    "PICK_ALL_LIMIT",
    "SYSTEMS",
    "ClusterTable",
    "Matcher",
    "cluster_table",
    "generate",
    "generate_fleet",
    "generate_yaml",
    "main",
    "zipf_weights",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=sorted(SYSTEMS))
    parser.add_argument("clusters", type=int)
    parser.add_argument("placements", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--now", default=DEFAULT_NOW, help="RFC 3339 time the state is relative to")
    parser.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = generate_yaml(args.system, args.clusters, args.placements, seed=args.seed, now=args.now)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
