"""Topology domain codes kept with the table's rows (solver/table.py _Rows.codes, _patched_codes): a
batch after a cluster event (relabelled within its domains or into a new one, the last of a domain
relabelled away, a label dropped, a cluster gone or joined) reads the codes, domains and slots a
batch of fresh clusters reads."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, spread

SIZE = 300  # above the size from which rows are kept
KEYS = ("zone", "region", "rack")


def _fleet() -> list:
    out = []
    for i in range(SIZE):
        labels = {"zone": f"z{i % 6}", "region": f"r{i % 3}"}
        if i % 4:
            labels["rack"] = f"k{i % 5}"
        if i == 17:
            labels["zone"] = "z-only"  # the one cluster of its zone
        out.append(cluster(f"c{i:04d}", labels))
    return out


def _table(clusters: list) -> ClusterTable:
    request = pick_n(2, spread=tuple(spread(key) for key in KEYS))
    return ClusterTable(batch(clusters, request))


def _relabelled(clusters: list, at: int, **labels: str | None) -> list:
    new = {**clusters[at].labels, **labels}
    out = list(clusters)
    out[at] = replace(clusters[at], labels={k: v for k, v in new.items() if v is not None})
    return out


EVENTS = {
    "nothing": lambda c: c,
    "within": lambda c: _relabelled(c, 5, zone="z2"),
    "new zone": lambda c: _relabelled(c, 5, zone="z-new"),
    "last of a zone gone": lambda c: _relabelled(c, 17, zone="z1"),
    "label dropped": lambda c: _relabelled(c, 5, rack=None),
    "label added": lambda c: _relabelled(c, 4, rack="k9"),
    "cluster left": lambda c: c[:10] + c[11:],
    "last of a zone left": lambda c: c[:17] + c[18:],
    "cluster joined": lambda c: [*c, cluster("c9999", {"zone": "z0", "region": "r9"})],
    "left and joined": lambda c: c[:3] + c[4:] + [cluster("c5000", {"zone": "z-x", "rack": "k1"})],
}


@pytest.mark.parametrize("event", list(EVENTS))
def test_a_later_batchs_domain_codes_are_a_fresh_batchs(event) -> None:
    clusters = _fleet()
    _Rows._last = None
    first = _table(clusters)
    for key in KEYS:  # made for the first batch's rows, to be patched
        first.domain_codes(key)
        first.domain_slots(key)
    later = EVENTS[event](clusters)
    kept = _table(later)
    if event != "nothing":
        assert kept._rows is not first._rows and kept._rows.patched
    _Rows._last = None
    fresh = _table([replace(c) for c in later])
    for key in KEYS:
        codes, domains = kept.domain_codes(key)
        want_codes, want_domains = fresh.domain_codes(key)
        assert domains == want_domains
        assert np.array_equal(codes, want_codes) and codes.dtype == want_codes.dtype
        assert np.array_equal(kept.domain_slots(key), fresh.domain_slots(key))
        assert not codes.flags.writeable and not kept.domain_slots(key).flags.writeable


def test_codes_are_carried_where_the_domains_stay() -> None:
    clusters = _fleet()
    _Rows._last = None
    first = _table(clusters)
    codes = first.domain_codes("zone")[0]
    kept = _table(_relabelled(clusters, 5, zone="z2"))
    assert kept._rows._codes  # patched, not left to be made again
    assert kept.domain_codes("zone")[0] is not codes
    same = _table(kept._rows.clusters)  # the same clusters: the very arrays
    assert same.domain_codes("zone")[0] is kept.domain_codes("zone")[0]


@pytest.mark.parametrize(
    "event", ["within", "new zone", "last of a zone gone", "label dropped", "label added"]
)
def test_a_relabel_looks_only_for_the_values_its_cluster_held(event, monkeypatch) -> None:
    """Rows that all stay (a relabel, loads moved) held every value before: a patch looks for
    the relabelled cluster's old values alone, not a count of every row per value (a pass over
    10,000 rows per code column of a live scheduler's every batch); the codes are a fresh
    batch's, as above."""
    clusters = _fleet()
    _Rows._last = None
    first = _table(clusters)
    for key in KEYS:
        first.domain_codes(key)
    later = EVENTS[event](clusters)

    def counted(*_, **__):
        raise AssertionError("every row counted per value")

    with monkeypatch.context() as patch:
        patch.setattr(np, "bincount", counted)
        kept = _table(later)
    _Rows._last = None
    fresh = _table([replace(c) for c in later])
    for key in KEYS:
        codes, domains = kept.domain_codes(key)
        assert (domains, codes.tolist()) == (fresh.domain_codes(key)[1], fresh.domain_codes(key)[0].tolist())
