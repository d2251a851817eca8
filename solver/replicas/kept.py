"""The clusters a long-lived scheduler keeps between batches, and what the replica solver reads of
every cluster kept beside them, changed row by row as clusters come, change and go.

A live model (the reach model of a system whose requests divide replicas) holds one
`ClusterRows` of its clusters' models without the batch's own traits, tells it each cluster put
or dropped, and makes each batch's clusters
with `batch`: the tuple any batch has (name order, each model with the traits the batch adds
where it matches), a `KeptClusters` that also carries the rows. The solver (order.Filters,
estimate.Estimator, problem.ReplicaProblem) then reads the kept masks, names and estimator of
the rows instead of going over every cluster again; a batch whose rows have changed since it was
made (or any other tuple) is read afresh. So a batch of one binding on 10,000 clusters costs its
candidates, not the hub.

Each kept mask has the predicate it was made by (of one cluster's model), so a cluster put is
judged again by each, and its row inserted or dropped in each; arrays are never changed in place
(a batch made before keeps what it was given). At most _MASKS masks are kept, the least recently
asked dropped first.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from model import Cluster
from solver.replicas.estimate import Estimator

__all__ = ["ClusterRows", "KeptClusters", "kept_estimator", "kept_rows"]

Predicate = Callable[[Cluster], bool]
_MASKS = 256
_BATCHES = 64  # the last batches' clusters kept, by the traits they add (10,000 clusters: 80 kB each)
_WITH = 4  # per row, its last models with traits kept
_LOG = 4096  # changes logged (a kept batch's clusters older than the log are made afresh)


class ClusterRows:
    """Clusters in name order (models without a batch's traits), with masks over them kept."""

    def __init__(self, clusters: Iterable[Cluster]) -> None:
        self.models: list[Cluster] = sorted(clusters, key=lambda c: c.name)
        self.names = [c.name for c in self.models]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.version = 0  # counts the changes: a batch made at another version is read afresh
        self._masks: dict[Hashable, tuple[np.ndarray, Predicate]] = {}
        self._with: dict[str, dict[frozenset[str], Cluster]] = {}  # each row's last models with traits
        self._traits: dict[str, int] = {}  # how many models have each trait
        for c in self.models:
            self._count(c, 1)
        # the changes (version after, name, row, what: put, insert or drop) since version _logged
        self._log: list[tuple[int, str, int, str]] = []
        self._logged = 0
        self._batches: dict[frozenset[str], tuple[int, list[Cluster]]] = {}
        self._tainted: list[int] | None = None
        self._names: np.ndarray | None = None
        self._estimator: Estimator | None = None

    def __len__(self) -> int:
        return len(self.models)

    # -- changes ----------------------------------------------------------------------------------

    def put(self, cluster: Cluster) -> None:
        """A cluster added, or replacing the one of its name."""
        name = cluster.name
        self.version += 1
        self._with.pop(name, None)
        row = self.index.get(name)
        self._count(cluster, 1)
        if row is not None:
            old = self.models[row]
            self._count(old, -1)
            self.models[row] = cluster
            self._logged_change(name, row, "put")
            for key, (mask, predicate) in self._masks.items():
                verdict = predicate(cluster)
                if mask[row] != verdict:
                    mask = mask.copy()
                    mask[row] = verdict
                    self._masks[key] = (_frozen(mask), predicate)
            if old.taints != cluster.taints:
                self._tainted = None
            if old.capacity != cluster.capacity:
                self._estimator = self._changed_estimator(row, "put")
            return
        row = bisect.bisect_left(self.names, name)
        self.models.insert(row, cluster)
        self.names.insert(row, name)
        self._logged_change(name, row, "insert")
        self._moved(row, "insert")
        for key, (mask, predicate) in self._masks.items():
            verdict = np.array([predicate(cluster)], dtype=bool)
            self._masks[key] = (_frozen(np.concatenate((mask[:row], verdict, mask[row:]))), predicate)

    def drop(self, name: str) -> None:
        row = self.index.get(name)
        if row is None:
            return
        self.version += 1
        self._with.pop(name, None)
        self._count(self.models[row], -1)
        del self.models[row]
        del self.names[row]
        self._logged_change(name, row, "drop")
        self._moved(row, "drop")
        for key, (mask, predicate) in self._masks.items():
            self._masks[key] = (_frozen(np.concatenate((mask[:row], mask[row + 1 :]))), predicate)

    def _count(self, cluster: Cluster, by: int) -> None:
        for trait in cluster.traits:
            self._traits[trait] = self._traits.get(trait, 0) + by

    def _logged_change(self, name: str, row: int, what: str) -> None:
        self._log.append((self.version, name, row, what))
        if len(self._log) > _LOG:
            del self._log[: _LOG // 2]
            self._logged = self._log[0][0] - 1

    def _moved(self, row: int, what: str) -> None:
        """A row inserted or dropped: the index and the estimator follow, the tainted rows and the
        names are made again when asked."""
        self.index = dict(zip(self.names, range(len(self.names)), strict=True))
        self._tainted = None
        self._names = None
        self._estimator = self._changed_estimator(row, what)

    def _changed_estimator(self, row: int, what: str) -> Estimator | None:
        return None if self._estimator is None else self._estimator.changed(self.models, row, what)

    # -- what is kept -----------------------------------------------------------------------------

    def mask(
        self, key: Hashable, predicate: Predicate, made: Callable[[], np.ndarray] | None = None
    ) -> np.ndarray:
        """The predicate on every row (read-only), kept under `key` (which must name the predicate);
        `made`, where given, makes it at once (the same answers as the predicate's)."""
        got = self._masks.pop(key, None)
        if got is None:
            if made is not None:
                mask = np.asarray(made(), dtype=bool)
            else:
                mask = np.fromiter(map(predicate, self.models), dtype=bool, count=len(self.models))
            got = (_frozen(mask), predicate)
            while len(self._masks) >= _MASKS:
                del self._masks[next(iter(self._masks))]
        self._masks[key] = got  # the most recently asked last
        return got[0]

    def has(self, trait: str) -> bool:
        """Whether any model has the trait (one that none has needs no mask)."""
        return self._traits.get(trait, 0) > 0

    @property
    def tainted(self) -> list[int]:
        if self._tainted is None:
            self._tainted = [i for i, c in enumerate(self.models) if c.taints]
        return self._tainted

    @property
    def names_array(self) -> np.ndarray:
        if self._names is None:
            self._names = _frozen(np.array(self.names, dtype=object))
        return self._names

    @property
    def estimator(self) -> Estimator:
        """The estimator of the rows' capacities (it reads nothing else), changed at each row whose
        capacity changes, with the estimates it made."""
        if self._estimator is None:
            self._estimator = Estimator(self.models)  # the rows' list: it follows their changes
        return self._estimator

    # -- a batch's clusters -----------------------------------------------------------------------

    def batch(self, added: Mapping[str, np.ndarray]) -> KeptClusters:
        """The batch's clusters: every row's model, with each trait of `added` where its mask holds.
        The last batches adding the same traits are kept, and a kept one is taken with the rows
        changed since made again (a row's model with the same traits as before is that object)."""
        key = frozenset(added)
        kept = self._batches.pop(key, None)
        if kept is not None and kept[0] >= self._logged:
            out = self._replayed(kept, added)
        else:
            out = list(self.models)
            extra: dict[int, list[str]] = {}
            for trait, mask in added.items():
                for row in np.flatnonzero(mask).tolist():
                    extra.setdefault(row, []).append(trait)
            for row, traits in extra.items():
                out[row] = self._with_traits(out[row], traits)
        self._batches[key] = (self.version, out)
        while len(self._batches) > _BATCHES:
            del self._batches[next(iter(self._batches))]
        clusters = KeptClusters(out)
        clusters.rows, clusters.version, clusters.added = self, self.version, dict(added)
        return clusters

    def _replayed(self, kept: tuple[int, list[Cluster]], added: Mapping[str, np.ndarray]) -> list[Cluster]:
        """A kept batch's clusters with the changes since: rows inserted and dropped where they
        were then, and each cluster changed made again where it is now."""
        version, out = kept
        changed = set()
        for at, name, row, what in self._log:
            if at <= version:
                continue
            if what == "insert":
                out.insert(row, self.models[0])  # a place held: every inserted name is made below
            elif what == "drop":
                del out[row]
            changed.add(name)
        for name in changed:
            row = self.index.get(name)
            if row is not None:
                traits = [trait for trait, mask in added.items() if mask[row]]
                out[row] = self._with_traits(self.models[row], traits)
        return out

    def _with_traits(self, model: Cluster, traits: list[str]) -> Cluster:
        wanted = frozenset(traits) - model.traits
        if not wanted:
            return model
        made = self._with.setdefault(model.name, {})
        got = made.get(wanted)
        if got is None:
            if len(made) >= _WITH:
                del made[next(iter(made))]
            got = made[wanted] = replace(model, traits=model.traits | wanted)
        return got


class KeptClusters(tuple):
    """A batch's clusters as ClusterRows.batch makes them: a tuple like any batch's, with the rows
    it was made of, their version then and the traits it added (trait -> mask)."""

    rows: ClusterRows
    version: int
    added: dict[str, np.ndarray]


def kept_rows(clusters: object) -> KeptClusters | None:
    """The clusters as kept, where they are a KeptClusters whose rows have not changed since."""
    if isinstance(clusters, KeptClusters) and clusters.version == clusters.rows.version:
        return clusters
    return None


def kept_estimator(clusters: Sequence[Cluster]) -> Estimator:
    """The clusters' estimator: the one their rows keep, where a live model keeps them between
    batches (it reads nothing of a cluster but its capacity, and is kept, with the estimates it
    made, changed at the rows whose capacity changes); else a new one."""
    kept = kept_rows(clusters)
    return kept.rows.estimator if kept is not None else Estimator(clusters)


def _frozen(mask: np.ndarray) -> np.ndarray:
    mask.setflags(write=False)
    return mask
