"""The replica problem: the batch's requests that divide replicas, each with its candidates per tier.

Shared by the greedy answer (this package) and the joint one (solver.replicas.joint): both read
the same `Candidates` of an attempt (one request under one of its tiers): the clusters that pass
its filters, in upstream's canonical order, with what each can take (the estimate), what the
request holds there, the locality score and the overflow order. Built lazily and cached: greedy
asks for the tiers it tries, in queue order.

Names kept stable for the joint solver: ReplicaProblem (batch, requests, queue, filters,
estimator, held(), candidates(), failing()), Candidates (rows, names, estimate, held, score,
overflow, available).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from model import Batch, Choice, FilterKind, PlacementRequest, Unselected
from solver.replicas.estimate import available_replicas
from solver.replicas.kept import kept_estimator
from solver.replicas.order import HELD_SCORE, Filters, canonical

__all__ = ["Candidates", "ReplicaProblem", "alike"]


@dataclass(frozen=True, slots=True, eq=False)
class Candidates:
    """One attempt's candidate clusters, in canonical order (arrays aligned with `rows`)."""

    rows: np.ndarray  # cluster rows of the batch (batch order is name order)
    names: np.ndarray  # the clusters' names (an object array)
    estimate: np.ndarray  # replicas the cluster has room for (upstream's AllocatableReplicas)
    held: np.ndarray  # replicas the request holds there now
    score: np.ndarray  # locality score: HELD_SCORE where the request holds the cluster
    overflow: np.ndarray  # 0: the tier's own term; i: its i-th overflow term

    @property
    def available(self) -> np.ndarray:
        """The estimate plus what the request holds (upstream's AvailableReplicas)."""
        return self.estimate + self.held

    def __len__(self) -> int:
        return len(self.rows)

    def positions(self, rows: Sequence[int]) -> np.ndarray:
        """Where each of `rows` (all among the candidates) stands among them."""
        wanted = np.asarray(rows, dtype=np.int64)
        if len(wanted) <= 8:  # a few: compared with every candidate at once
            return (self.rows[:, None] == wanted).argmax(axis=0)
        order = np.argsort(self.rows, kind="stable")
        return order[np.searchsorted(self.rows, wanted, sorter=order)]


class ReplicaProblem:
    """The requests with replicas of a batch, in upstream's queue order (priority descending, then
    order), over the batch's clusters."""

    def __init__(self, batch: Batch, requests: Sequence[PlacementRequest]) -> None:
        self.batch = batch
        self.requests = list(requests)
        self.queue = sorted(
            range(len(self.requests)),
            key=lambda i: (-self.requests[i].replicas.priority, self.requests[i].replicas.order, i),
        )
        self.filters = Filters(batch.clusters, batch.now)
        self.estimator = kept_estimator(batch.clusters)
        kept = self.filters.kept
        self.names = (
            kept.rows.names_array
            if kept is not None
            else np.array([c.name for c in batch.clusters], dtype=object)
        )
        self._candidates: dict[tuple[int, int], Candidates] = {}
        self._arrays: dict[object, Any] = {}
        # (row, filter) -> the results' entry for a cluster left out by a filter that reads the
        # cluster alone (solver.replicas.results): thousands of requests share each
        self.unselected: dict[tuple[int, FilterKind], Unselected] = {}
        # (cluster, score, kept, replicas) -> the results' entry for a selected cluster, shared
        self.choices: dict[tuple[str, int, bool, int | None], Choice] = {}

    def held(self, i: int) -> dict[int, int]:
        """The rows request i holds (its current replicas and existing decisions), with the
        replicas it has there (the first entry for a cluster listed twice, as upstream reads)."""
        r = self.requests[i]
        index = self.filters.index
        out: dict[int, int] = {}
        for name, count in r.replicas.current:
            row = index.get(name)
            if row is not None and row not in out:
                out[row] = count
        for d in r.existing:
            row = index.get(d.cluster)
            if row is not None:
                out.setdefault(row, 0)
        return out

    def candidates(self, i: int, tier: int = 0) -> Candidates:
        key = (i, tier)
        got = self._candidates.get(key)
        if got is None:
            got = self._candidates[key] = self._build(i, tier)
        return got

    def failing(self, i: int, tier: int, limit: int | None) -> tuple[list[int], list[int]]:
        """The rows failing request i's filters under the tier, in name order, at most `limit`
        (None: all), and the first filter each fails (its index in FILTERS order)."""
        return self.filters.failing(self.requests[i], tier, list(self.held(i)), limit)

    def _build(self, i: int, tier: int) -> Candidates:
        request = self.requests[i]
        rows = np.flatnonzero(self.filters.passing(request, tier, list(self.held(i))))
        n = len(self.batch.clusters)
        held_all = np.zeros(n, dtype=np.int64)
        score_all = np.zeros(n, dtype=np.int64)
        for row, count in self.held(i).items():
            held_all[row] = count
        for name, _ in request.replicas.current:  # upstream scores locality by the current assignment
            row = self.filters.index.get(name)
            if row is not None:
                score_all[row] = HELD_SCORE
        held, score = held_all[rows], score_all[rows]
        estimate = available_replicas(self.estimator, request.replicas, rows)
        overflow = self.filters.overflow_order(request, tier, rows)
        order = canonical(overflow, score, estimate + held, rows)
        rows = self._shared(rows[order])
        return Candidates(
            rows=rows,
            names=self._names(rows),
            estimate=self._shared(estimate[order]),
            held=self._shared(held[order]),
            score=self._shared(score[order]),
            overflow=self._shared(overflow[order]),
        )

    def _shared(self, values: np.ndarray) -> np.ndarray:
        """One read-only array per content: requests alike in their candidates share them (at
        10,000 x 50,000 a thousand candidates' arrays per request were gigabytes)."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        key = values.tobytes()
        got = self._arrays.get(key)
        if got is None:
            values.setflags(write=False)
            got = self._arrays[key] = values
        return got

    def claim_values(self, rows: np.ndarray, claim: str) -> tuple[str | None, ...]:
        """Each row's value of `claim` (None where the cluster has none), once per shared rows
        array: thousands of requests ask it of the same candidates."""
        key = ("claims", id(rows), claim)
        got = self._arrays.get(key)
        if got is None or got[0] is not rows:  # kept with its rows: an id is unique while they live
            clusters = self.batch.clusters
            got = self._arrays[key] = (rows, tuple(clusters[row].claims.get(claim) for row in rows.tolist()))
        return got[1]

    def _names(self, rows: np.ndarray) -> np.ndarray:
        key = ("names", id(rows))  # rows are shared (kept here): one per content
        got = self._arrays.get(key)
        if got is None:
            got = self._arrays[key] = self.names[rows]
            got.setflags(write=False)
        return got


def alike(r: PlacementRequest) -> tuple:
    """What a request's greedy answer depends on: all but its name and its place in the queue
    (the snapshot is the same for every request, so requests alike are decided once)."""
    return replace(r, name="", namespace="", replicas=replace(r.replicas, order=0, priority=0)).signature()
