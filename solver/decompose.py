"""Split what a coupling decides into independent parts: the one place parts are found.

Two requests are coupled when an answer to one can change what is best or allowed for the other.
In this model that happens only through shared finite resources (solver.coupling): each coupling
declares, per unit it decides, the resources the unit draws on, and units that share none,
directly or through others, are solved apart, each in its own small model, and the parts' optima
add up to the whole's. Requests no coupling holds are each a part of their own.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence

__all__ = ["components"]


def components(draws: Sequence[Collection[Hashable]]) -> list[list[int]]:
    """Groups of unit indices that must be solved together, each sorted, in order of their first
    unit. `draws[u]` names the shared resources unit u draws on (keys the coupling chooses, such
    as ("cluster", row)); a unit drawing on nothing is a part of its own.

    A union-find over the units, each resource joining its first drawer: linear in the draws, and
    no graph library to import (networkx cost a tenth of a second of every command)."""
    parent = list(range(len(draws)))

    def root(unit: int) -> int:
        while parent[unit] != unit:
            parent[unit] = parent[parent[unit]]
            unit = parent[unit]
        return unit

    first: dict[Hashable, int] = {}
    for unit, shared in enumerate(draws):
        for key in shared:
            other = first.setdefault(key, unit)
            if other != unit:
                a, b = root(unit), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for unit in range(len(draws)):  # in unit order: each group sorted, groups by their first unit
        groups.setdefault(root(unit), []).append(unit)
    return list(groups.values())
