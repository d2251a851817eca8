"""A system's model for the long-lived scheduler (adapters.contract.Live) kept as its objects, for a
system whose upstream takes up a subset of them after a change and whose loader reads that subset
as it reads any input:

    live = Subset(name, pick, manifests, seed=seed)    # pick(changes, objects) -> the objects to load
    taken = live.take(changes, now)                     # the subset loaded, or None

`pick` sees each change as (before, after) and every object of the system as it stands after
them, and returns the objects the solve takes (the requests upstream takes up and every object it
reads to decide them; empty: nothing), refusing a changed object as the API server would (an
InputError, raised before anything is kept). The objects keep the hub's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from adapters.contract import Change, Taken
from adapters.kube.manifests import Manifest, from_objects
from adapters.registry import adapter
from adapters.run.changes import Key, object_key

__all__ = ["Pick", "Subset"]

Obj = Mapping[str, Any]
Pick = Callable[[Sequence[Change], Sequence[Obj]], Sequence[Obj]]


class Subset:
    def __init__(
        self,
        name: str,
        pick: Pick,
        manifests: Sequence[Manifest],
        *,
        seed: int,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.pick = pick
        self.seed = seed
        self.config = {} if config is None else {"config": config}
        self.objects: dict[Key, Obj] = {object_key(m.obj): m.obj for m in manifests}

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        objects = dict(self.objects)
        for before, after in changes:
            if after is not None:
                objects[object_key(after)] = after
            elif before is not None:
                objects.pop(object_key(before), None)
        taken = self.pick(changes, list(objects.values()))  # may refuse a change: nothing kept
        self.objects = objects
        if not taken:
            return None
        manifests = from_objects(list(taken), "<hub>")
        batch, context = adapter(self.name).load(manifests, now=now, seed=self.seed, **self.config)
        return Taken(batch, context)
