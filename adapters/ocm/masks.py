"""The clusters each filter key passes, kept between events (issue 21, i26-masks).

A filter key is what `OcmLive._feasible` reads of a request holding nothing: its scope, its
tolerations and its required terms. Its passing clusters are the scope's members
(`ClusterPool.united`), less those that take nothing new (not eligible, or leaving), less those
with a taint its tolerations leave untolerated, among those matching its required terms: each
part kept per its own key (the tolerations, the required terms) and moved only by the clusters
put or dropped since it was read (`ClusterPool.relabel_log`: every put and drop, the journal's
undoing of one too, is logged there, so an event refused and undone leaves each kept part judged
again on the names it moved: equal to judging every cluster afresh). `reload` moves loads alone,
which no filter reads. A request whose tolerations read the clock (a toleration with seconds)
has no key: its verdicts move with no event."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from datetime import datetime

from adapters.live.kept import ClusterPool
from model import Cluster, PlacementRequest, SelectionMode
from solver.admits import matches_terms, untolerated

_KEYS_UP_TO = 512  # parts kept at once (more: all made again as asked)


def filter_key(request: PlacementRequest) -> Hashable | None:
    """The request's filter key, or None where its verdicts read the clock or its mode is not N."""
    if request.mode is not SelectionMode.N or any(t.seconds is not None for t in request.tolerations):
        return None
    return (request.scope, request.tolerations, request.required)


class FeasibleSets:
    """Per filter key, the names of the pool's clusters that pass it holding nothing."""

    def __init__(self, pool: ClusterPool) -> None:
        self.pool = pool
        self._kept: dict[Hashable, tuple[int, int, set[str]]] = {}
        self.made = 0  # parts made from every cluster (a test's count)

    def _part(
        self, key: Hashable, among: Callable[[], Iterable[str]], test: Callable[[Cluster], bool]
    ) -> set[str]:
        """The names `test` holds for (among those `among` gives, which hold every such one),
        kept per key and judged again only for the names put or dropped since (read-only)."""
        epoch, log = self.pool.relabel_log()
        kept = self._kept.get(key)
        if kept is None or kept[0] != epoch:
            if len(self._kept) >= _KEYS_UP_TO:
                self._kept.clear()
            by_name = self.pool.by_name()
            names = {name for name in among() if test(by_name[name])}
            self.made += 1
        else:
            names = kept[2]
            if len(log) > kept[1]:
                get = self.pool.get
                for name in dict.fromkeys(log[kept[1] :]):
                    c = get(name)
                    if c is not None and test(c):
                        names.add(name)
                    else:
                        names.discard(name)
        self._kept[key] = (epoch, len(log), names)
        return names

    def passing(self, request: PlacementRequest, now: datetime) -> set[str] | None:
        """The names passing the request's filters holding nothing (a new set), None where it has
        no key (`filter_key`). `now` is read by no filter kept here (no toleration with seconds)."""
        if filter_key(request) is None:
            return None
        pool = self.pool
        closed = self._part(("closed",), pool.names, lambda c: not c.eligible or c.leaving)
        names = set(pool.names()) if request.scope is None else set(pool.united(request.scope))
        names -= closed
        tolerations, required = request.tolerations, request.required
        if pool.tainted():
            names -= self._part(
                ("x", tolerations),
                pool.tainted,
                lambda c: bool(c.taints) and untolerated(c, tolerations, now, held=False) is not None,
            )
        if required:
            names &= self._part(("r", required), pool.names, lambda c: matches_terms(required, c))
        return names
