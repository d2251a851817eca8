"""How many replicas of a request each cluster has room for: upstream's general estimator.

Per cluster (pkg/estimator/client/general.go, pkg/scheduler/core/util.go calAvailableReplicas):

- a cluster that reports no capacity has room for none;
- from its free amounts: the least, over the resources a replica takes (a positive demand), of
  free // demand, 0 where a resource is absent or not above 0 free;
- where it reports node classes: the replicas that fit node by node, each node taking
  min over resources of its capacity // demand (a resource the node lacks: none), summed over the
  nodes; bounded only by the free amounts of `Capacity.free_with_nodes` (upstream's model path
  replaces the free amounts but for the pod count);
- nothing bounds a request that takes nothing: it can take its whole count on every cluster
  (upstream's MaxInt32 from every estimator, replaced by the replica count); nor an `unlimited`
  one, which has room for INT32_MAX everywhere (upstream's non-workload: calAvailableReplicas
  returns MaxInt32 before any estimator, and before that replacement).

A request made of parts (Replicas.parts) is counted in whole sets (general.go
MaxAvailableComponentSets): the pods left over the set's pods (all of them where the set has no
pods), bounded by each resource's free amount over the set's summed demand; where the cluster
reports node classes, further bounded by placing whole sets first fit, part after part, each
part's replicas node by node in order (estimator.SchedulingSimulator), until a set does not fit
(the free amounts still bound it: upstream keeps the summary's bound as the simulation's limit).

Estimates are int64 arrays over the batch's clusters, one per distinct demand, computed once with
numpy over a matrix of the clusters' free amounts, so thousands of requests over thousands of
clusters cost one vector operation per distinct demand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from model import Capacity, Cluster, Part, Replicas
from model.types import INT32_MAX

__all__ = ["Estimator", "node_bound", "available_replicas", "footprint", "set_demand", "sets_on_nodes"]

Demand = tuple[tuple[str, int], ...]
INT64_MAX = 2**63 - 1


def _demand_key(demand: Mapping[str, int]) -> Demand:
    return tuple(sorted((name, amount) for name, amount in demand.items() if amount > 0))


def _nodes_key(capacity: Capacity) -> tuple:
    return tuple((node.count, tuple(sorted(node.capacity.items()))) for node in capacity.nodes)


def node_bound(capacity: Capacity, demand: Demand) -> int:
    """The replicas that fit the cluster's node classes, each replica within one node (upstream's
    scheduling simulator over virtual nodes: first fit of one replica at a time, which fills
    each node to min over resources of capacity // demand)."""
    total = 0
    for node in capacity.nodes:
        per_node = min((node.capacity.get(name, 0) // amount for name, amount in demand), default=INT32_MAX)
        total += node.count * max(per_node, 0)
        if total >= INT32_MAX:
            return INT32_MAX
    return total


def _free_bound(free: Mapping[str, int], demand: Demand) -> int:
    least = INT32_MAX
    for name, amount in demand:
        have = free.get(name, 0)
        if have <= 0:
            return 0
        least = min(least, have // amount)
    return least


def set_demand(parts: Sequence[Part]) -> dict[str, int]:
    """One whole set's footprint: each resource summed over the parts (count x demand, negative
    counts too, as maxAvailableComponentSets sums them), a total not above 0 left out, at most
    int64's largest (no cluster has room for more)."""
    totals: dict[str, int] = {}
    for part in parts:
        for name, amount in part.demand.items():
            totals[name] = totals.get(name, 0) + part.count * amount
    return {name: min(INT64_MAX, total) for name, total in totals.items() if total > 0}


def footprint(replicas: Replicas) -> Mapping[str, int]:
    """What one unit of the request takes: a replica's demand, or a whole set of its parts."""
    return set_demand(replicas.parts) if replicas.parts else replicas.demand


def _sets_alike(capacity: Capacity, parts: Sequence[Part]) -> int | None:
    """The whole sets the nodes hold where the set's replicas are all alike (first fit places
    them one after another; no limit on them but the nodes'), else None (they must be simulated)."""
    alike = _alike(parts)
    return None if alike is None else _alike_sets(capacity, *alike)


def _alike(parts: Sequence[Part]) -> tuple[Demand, int] | None:
    """Where a set's replicas (of parts of more than 0) are all alike, their demand and how many
    a set has (an empty set: none, 0); else None."""
    parts = [p for p in parts if p.count > 0]
    if not parts:
        return (), 0
    demands = {_demand_key(p.demand) for p in parts}
    if len(demands) != 1:
        return None
    return demands.pop(), sum(p.count for p in parts)


def _alike_sets(capacity: Capacity, demand: Demand, count: int) -> int:
    """The sets of `count` alike replicas of `demand` the nodes hold."""
    return INT64_MAX if not count else node_bound(capacity, demand) // count  # an empty set always fits


def sets_on_nodes(capacity: Capacity, parts: Sequence[Part], limit: int) -> int:
    """Whole sets placed first fit on the cluster's nodes, at most `limit`: part after part, each
    part's replicas node by node in order, as many on a node as fit (SchedulingSimulator); a part
    of 0 replicas or fewer places none."""
    alike = _sets_alike(capacity, parts)
    if alike is not None:
        return min(limit, alike)
    parts = [p for p in parts if p.count > 0]
    nodes = [dict(node.capacity) for node in capacity.nodes for _ in range(node.count)]
    wants = [(p.count, _demand_key(p.demand)) for p in parts]
    start = [0] * len(wants)  # per part, the first node that may still take one of its replicas
    placed = 0
    while placed < limit:
        for k, (count, demand) in enumerate(wants):
            remaining, j = count, start[k]
            while remaining and j < len(nodes):
                node = nodes[j]
                fit = min((node.get(name, 0) // amount for name, amount in demand), default=INT32_MAX)
                if fit > 0:
                    take = min(remaining, fit)
                    for name, amount in demand:
                        node[name] -= take * amount
                    remaining -= take
                elif j == start[k]:
                    start[k] += 1  # room only shrinks: this part never fits there again
                if remaining:
                    j += 1
            if remaining:
                return placed
        placed += 1
    return placed


class Estimator:
    """The estimates of the batch's clusters, per distinct demand, cached. Clusters of one node
    shape (the same node classes) are estimated on their nodes once: whole sets and node bounds
    depend on the nodes alone."""

    def __init__(self, clusters: Sequence[Cluster]) -> None:
        self.clusters = clusters
        names = sorted({name for c in clusters if c.capacity is not None for name in c.capacity.free})
        self.column = {name: j for j, name in enumerate(names)}
        self.free = np.zeros((len(clusters), len(names)), dtype=np.int64)
        for i, c in enumerate(clusters):
            if c.capacity is not None:
                for name, amount in c.capacity.free.items():
                    self.free[i, self.column[name]] = amount
        self.reports = np.array([c.capacity is not None for c in clusters], dtype=bool)
        self._shape: dict[tuple, int] = {}  # node classes -> their shape's number
        self._shapes: list[Capacity] = []  # per shape, a capacity with those nodes
        shapes = (self._shape_of(c.capacity) for c in clusters)
        self.shape = np.fromiter(shapes, dtype=np.int64, count=len(clusters))  # -1: no nodes
        self._cache: dict[tuple, np.ndarray] = {}
        self._made: dict[tuple, Callable[[Estimator, np.ndarray], np.ndarray]] = {}

    def _shape_of(self, capacity: Capacity | None) -> int:
        if capacity is None or not capacity.nodes:
            return -1
        key = _nodes_key(capacity)
        got = self._shape.get(key)
        if got is None:
            got = self._shape[key] = len(self._shapes)
            self._shapes.append(capacity)
        return got

    def changed(self, clusters: Sequence[Cluster], row: int, what: str) -> Estimator:
        """The estimator of `clusters`, which are this one's but at `row`: a cluster put there in
        place of another ("put"), inserted there ("insert") or dropped from there ("drop"); the
        estimates made so far kept, made again at that row alone. This one is left as it was."""
        capacity = None if what == "drop" else clusters[row].capacity
        if capacity is not None and not capacity.free.keys() <= self.column.keys():
            return Estimator(clusters)  # a resource no cluster had: a column more
        new = object.__new__(Estimator)
        new.clusters, new.column = clusters, self.column
        new._shape, new._shapes = dict(self._shape), list(self._shapes)
        free = np.zeros(len(self.column), dtype=np.int64)
        for name, amount in (capacity.free if capacity is not None else {}).items():
            free[self.column[name]] = amount
        new.free = _changed(self.free, row, what, free)
        new.reports = _changed(self.reports, row, what, capacity is not None)
        new.shape = _changed(self.shape, row, what, new._shape_of(capacity))
        new._made = self._made
        at = np.array([row], dtype=np.int64)
        new._cache = {
            key: _changed(room, row, what, None if what == "drop" else self._made[key](new, at)[0])
            for key, room in self._cache.items()
        }
        return new

    def of(self, demand: Mapping[str, int]) -> np.ndarray:
        """Each cluster's room for replicas of this demand, INT32_MAX where nothing bounds it."""
        key = _demand_key(demand)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._estimate(key)
            self._made[key] = lambda e, rows: e._estimate(key, rows)
        return got

    def sets(self, parts: Sequence[Part]) -> np.ndarray:
        """Each cluster's room for whole sets of the parts, INT32_MAX where nothing bounds it."""
        key = ("sets", tuple((p.count, _demand_key(p.demand)) for p in parts))
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._sets(parts)
            self._made[key] = lambda e, rows: e._sets(parts, rows)
        return got

    def _sets(self, parts: Sequence[Part], at: np.ndarray | None = None) -> np.ndarray:
        """On every cluster, or on the rows `at` (an array over them)."""
        at = np.arange(len(self.clusters), dtype=np.int64) if at is None else at
        room = self._summary(_demand_key(set_demand(parts)), at)
        shape = self.shape[at]
        on_nodes = np.flatnonzero((shape >= 0) & (room > 0))  # positions in `at`
        shape_of = shape[on_nodes]
        # per node shape, the sets its nodes hold where the set's replicas are alike (-1: simulated)
        alike = _alike(parts)
        held = np.full(len(self._shapes), -1, dtype=np.int64)
        if alike is not None:
            for k in np.unique(shape_of).tolist():
                held[k] = _alike_sets(self._shapes[k], *alike)
        bound = held[shape_of]
        counted = bound >= 0
        room[on_nodes[counted]] = np.minimum(room[on_nodes[counted]], bound[counted])
        simulated: dict[tuple[int, int], int] = {}  # per node shape and limit
        for i in on_nodes[~counted].tolist():
            key = (int(shape[i]), int(room[i]))
            got = simulated.get(key)
            if got is None:
                got = simulated[key] = sets_on_nodes(self._shapes[key[0]], parts, int(room[i]))
            room[i] = got
        return room

    def _summary(self, demand: Demand, at: np.ndarray) -> np.ndarray:
        """Room by the free amounts alone (0 on a cluster that reports no capacity), on `at`."""
        room = np.full(len(at), INT32_MAX, dtype=np.int64)
        for name, amount in demand:
            j = self.column.get(name)
            if j is None:
                room[:] = 0
                break
            free = self.free[at, j]
            np.minimum(room, np.where(free > 0, free // amount, 0), out=room)
        room[~self.reports[at]] = 0
        return room

    def _estimate(self, demand: Demand, at: np.ndarray | None = None) -> np.ndarray:
        """On every cluster, or on the rows `at` (an array over them)."""
        at = np.arange(len(self.clusters), dtype=np.int64) if at is None else at
        room = self._summary(demand, at)
        shape = self.shape[at]
        by_nodes: dict[int, int] = {}  # node_bound reads the nodes alone: once per node shape
        for i in np.flatnonzero(shape >= 0).tolist():
            capacity = self.clusters[int(at[i])].capacity
            k = int(shape[i])
            bound = by_nodes.get(k)
            if bound is None:
                bound = by_nodes[k] = node_bound(self._shapes[k], demand)
            if capacity.free_with_nodes is None:
                bound = min(bound, int(room[i]))
            else:
                kept = tuple((n, a) for n, a in demand if n in capacity.free_with_nodes)
                bound = min(bound, _free_bound(capacity.free, kept))
            room[i] = bound
        np.minimum(room, INT32_MAX, out=room)
        return room


def _changed(array: np.ndarray, row: int, what: str, value: object) -> np.ndarray:
    """A copy of the array (over rows) with `value` put at, inserted at or dropped from `row`."""
    if what == "drop":
        return np.concatenate((array[:row], array[row + 1 :]))
    if what == "insert":
        return np.concatenate((array[:row], np.asarray([value], dtype=array.dtype), array[row:]))
    out = array.copy()
    out[row] = value
    return out


def available_replicas(
    estimator: Estimator, replicas: Replicas, rows: np.ndarray | None = None
) -> np.ndarray:
    """The estimate a request divides by (upstream's AllocatableReplicas): INT32_MAX for an
    `unlimited` request, the count itself where nothing else bounds it (MaxInt32 from every
    estimator); on the clusters `rows` (None: every cluster)."""
    if replicas.unlimited:
        return np.full(len(estimator.clusters) if rows is None else len(rows), INT32_MAX, dtype=np.int64)
    room = estimator.sets(replicas.parts) if replicas.parts else estimator.of(replicas.demand)
    if rows is not None:
        room = room[rows]
    return np.where(room == INT32_MAX, replicas.count, room)
