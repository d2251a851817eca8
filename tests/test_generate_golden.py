"""Golden bytes of every system's generator: what `placement-solver generate` writes for a few
(seed, clusters, placements, now), pinned as a sha256 per case, and in full for one small case per
system (tests/golden/) so that a change shows as a readable diff.

The generators are deterministic by contract; these tests hold them to the very bytes they wrote
when they were pinned (main after issue 17, Karmada's with issue 19; Fleet's renewed once issue
17's last Fleet changes, the scheduler's finalizer on scheduled placements and Go's policy hash,
landed: the reshaped generator wrote exactly the bytes of the unreshaped one with those changes),
so that reshaping their code cannot change a hub. A
deliberate change to a generator renews the figures: the failure prints the new sha256, and
`placement-solver generate <the case's flags> > tests/golden/<file>` renews a small case's file.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from adapters.cli.main import main

GOLDEN = Path(__file__).parent / "golden"

# name -> the system's flags
SYSTEMS = {
    "fleet": ("--system", "fleet"),
    "ocm": ("--system", "ocm"),
    "openmcp": ("--system", "openmcp"),
    "kcp-v0.5": ("--system", "kcp", "--generation", "v0.5"),
    "kcp-v0.8": ("--system", "kcp", "--generation", "v0.8"),
    "karmada": ("--system", "karmada"),
}
# name -> (clusters, placements, seed, now)
SIZES = {
    "small": (20, 10, 0, "2026-11-21T12:00:00Z"),
    "medium": (2000, 500, 7, "2025-03-01T01:30:00+02:00"),
    "no-clusters": (0, 10, 1, "2026-11-21T12:00:00Z"),
    "one-placement": (30, 1, 2, "2026-01-01T00:00:30Z"),
    "one-each": (1, 1, 123456789012, "2026-11-21T12:00:00Z"),
    "no-placements": (5, 0, 4, "2026-11-21T12:00:00Z"),
    "nothing": (0, 0, 0, "2026-11-21T12:00:00Z"),
}
# (system, size) -> sha256 of the YAML stream (openMCP: and of the --config-out file)
DIGESTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("fleet", "small"): ("097aba4dd002013220c6b6935d170440ab0f9b9f9e79276d60bf839590a2f59e",),
    ("fleet", "medium"): ("8abfdd37c2515574875c14a24374df35e5cd96d56e028c48910c2472ba75d130",),
    ("fleet", "no-clusters"): ("840c532e2b459d0f271ff6395ccd98666dc39c1c7280e565281f45ebc718415e",),
    ("fleet", "one-placement"): ("eea28f06652eb15f31f50c2d6d5d8bdde2c573d67b473ae0624501db0099b39a",),
    ("fleet", "one-each"): ("818b9b862b8a28e1e67e60ad15e6a37a65fbc36af5ec6c62347a79f63c23845c",),
    ("fleet", "no-placements"): ("2a3326b781f435f0a3e2f7f5204eeeeeaac1989bea0bae576664d336678e68f6",),
    ("fleet", "nothing"): ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",),
    ("ocm", "small"): ("4e7020bec975e839f20d168fcf453816c2d09604c591d3503f5842df2841a7ed",),
    ("ocm", "medium"): ("8d8385c2b781bd0aa71df385deff58cf6bec354f2e4ffe369ed5b31752927e0a",),
    ("ocm", "no-clusters"): ("d5b89c6ffb8ab7c8735b17e903e6ee3530100bcd9bdfa7287c59b75ef6b6267e",),
    ("ocm", "one-placement"): ("aa7251e16f442cadc4e38257c7c745cee6190ae721c1c73c895ca4c81a0dac3a",),
    ("ocm", "one-each"): ("936d39fe4d1ba0c7dd945ce4cb55e3a66a9adf20f78862898f076b876548c990",),
    ("ocm", "no-placements"): ("efb3508e1bc4b05202fb37bd480340ee083b440c516934003079827a8a2a8ca0",),
    ("ocm", "nothing"): ("9b62bb79df782b3b2b430b4e99914cd5bb81afca5bfb08a5825426cab3253282",),
    ("openmcp", "small"): (
        "8c86955d8c3abcbfeb431c45b5256f508f03530bb1694a96d4e170f4b08e2c2a",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("openmcp", "medium"): (
        "8cac7bee43f4f7bd8e24af023a6e48b55e59199b3b75342cf940c4d02505ab32",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("openmcp", "no-clusters"): (
        "cb13719c8f22e817312a9172c4539970b095029e7119dfb84e51f625918640de",
        "21083ff34875907997665b1da5a8f9691650869b51f46787b8f801b1e87b64ca",
    ),
    ("openmcp", "one-placement"): (
        "0ae13cc5b071f919ab399011c13f9fa7fea0079f279061990ec5aae1157ab2dd",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("openmcp", "one-each"): (
        "881ab772a841a41ed8b86596362ca8c5cfd21e9f567409ea2b10cec7e09b0700",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("openmcp", "no-placements"): (
        "c3bdb3aa983f1ddf26b8fe52fba2bbb9d3d6cdf6d2a0dd6fb8a4417c45919307",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("openmcp", "nothing"): (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "c2c6ce540a1fd4c7c41cdcb675b4c549905e83c88e7634e7348d9f85e74c4e84",
    ),
    ("kcp-v0.5", "small"): ("925e83ed20ef11e8e44d041be46e24fd8fd8f4e1cf533913dbfff5995a6a1c11",),
    ("kcp-v0.5", "medium"): ("609a71c57593b0f63b847369e148179cff33c84e147d270eeac26f76b30db421",),
    ("kcp-v0.5", "no-clusters"): ("661c850021b32297c3e613a601c41eedff6d7b92799104c04a8288b42338174b",),
    ("kcp-v0.5", "one-placement"): ("cacf87296da514294b547b91ca6c772ba4782d33451733075e57706e22709945",),
    ("kcp-v0.5", "one-each"): ("99695f5ff4a073e6ff95a95c7a1428a522e2919b87fb91752a202ad2193ab249",),
    ("kcp-v0.5", "no-placements"): ("c5365bb3b0cc6615bd6adb42025d2a77c382e17922cceb41c25f5848827cc956",),
    ("kcp-v0.5", "nothing"): ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",),
    ("kcp-v0.8", "small"): ("b46341fc8c436e814ab6d54d0f4b86b13810f33edb19edfed91e641b951e0098",),
    ("kcp-v0.8", "medium"): ("99d9a2bed5dbac71c2031551a392f2954b23d2df1de50d5dde7e03ee6c7a7ec0",),
    ("kcp-v0.8", "no-clusters"): ("a1d3d3a8cbe0d904f86966fcd1262dc681de871691ea49dbb9e6d59d4e634c1d",),
    ("kcp-v0.8", "one-placement"): ("bbf9112e3495ea24c5829f32d61b88164b0206c2f7b15a0c2aef6ecd492d1286",),
    ("kcp-v0.8", "one-each"): ("a0ff316af6b35a7220af2b2ca3fd6da98c9577d9f9736c016abca4b2f310f0fa",),
    ("kcp-v0.8", "no-placements"): ("d6e8b353b0b49c422b01d1c5889addc13591758144fc8e3ec8608ec37b590d48",),
    ("kcp-v0.8", "nothing"): ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",),
    ("karmada", "small"): ("6e3f71d266630a3da6a1f071f5cb2a91838ac01a537bede78b9e3379b1e5ef00",),
    ("karmada", "medium"): ("719279481e130564be1134cced72826bb3622ccefcdd2a549993d5cb0c0f9f28",),
    ("karmada", "no-clusters"): ("2c88ff58d34fae2441268ddcd79807e30497dc49f407d2dfcaafe3c80be1deef",),
    ("karmada", "one-placement"): ("1c0b1f2d6597f950fa73e4993ea517db03a6f2318fbdb0c70ffd2587e51204cc",),
    ("karmada", "one-each"): ("f862778ff497a6baf812e233014619f99bb67382295918e5a5e87389632e6700",),
    ("karmada", "no-placements"): ("9a4b0b91b0a2ed80d26a1d130efe67fdcc00a8609335a2ba22fb72ccfb75ea7a",),
    ("karmada", "nothing"): ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",),
}


def generated(system: str, size: str, tmp_path: Path) -> tuple[bytes, ...]:
    """What the command writes: its standard output, and for openMCP the --config-out file."""
    clusters, placements, seed, now = SIZES[size]
    args = ["generate", *SYSTEMS[system], "--clusters", str(clusters), "--placements", str(placements)]
    args += ["--seed", str(seed), "--now", now]
    config = tmp_path / "config.yaml"
    if system == "openmcp":
        args += ["--config-out", str(config)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return (result.stdout_bytes, config.read_bytes()) if system == "openmcp" else (result.stdout_bytes,)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("system", "size"), sorted(DIGESTS))
def test_generated_bytes_are_pinned(system, size, tmp_path):
    got = tuple(sha256(data) for data in generated(system, size, tmp_path))
    assert got == DIGESTS[system, size], f"{system} {size}: the generator's bytes changed; now {got}"


def golden_files(system: str) -> tuple[Path, ...]:
    names = (f"{system}.yaml", f"{system}-config.yaml") if system == "openmcp" else (f"{system}.yaml",)
    return tuple(GOLDEN / name for name in names)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_small_hub_is_the_golden_file(system, tmp_path):
    for path, data in zip(golden_files(system), generated(system, "small", tmp_path), strict=True):
        want, got = path.read_text(encoding="utf-8"), data.decode("utf-8")
        diff = difflib.unified_diff(want.splitlines(), got.splitlines(), str(path), "generated", lineterm="")
        assert got == want, "\n".join(list(diff)[:80])


def test_every_system_and_size_is_pinned():
    assert set(DIGESTS) == {(system, size) for system in SYSTEMS for size in SIZES}
    assert {path.name for path in GOLDEN.iterdir()} == {
        path.name for system in SYSTEMS for path in golden_files(system)
    }
