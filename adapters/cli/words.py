"""The words every system's explain renderer shares (adapters/<system>/explain.py): the target,
table layout, selectors and tolerations as kubectl writes them, counts, label changes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from model import LabelOperator, LabelSelector, Taint
from solver.explain import LabelChange

__all__ = ["Target", "cell", "counted", "flow", "grid", "label_changes", "selector_text", "toleration"]


@dataclass(frozen=True, slots=True)
class Target:
    system: str
    kind: str
    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def grid(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart, trailing blanks trimmed."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def cell(value: Any) -> str:
    """A table cell: '-' for nothing."""
    return "-" if value is None else str(value)


# -- words the systems' renderers share -------------------------------------------------------------


def selector_text(selector: LabelSelector) -> str:
    """A label selector as kubectl writes one: k=v, k in (a,b), k notin (a), k, !k."""
    parts = []
    for r in selector.requirements():
        if r.operator is LabelOperator.IN:
            parts.append(
                f"{r.key}={r.values[0]}" if len(r.values) == 1 else f"{r.key} in ({','.join(r.values)})"
            )
        elif r.operator is LabelOperator.NOT_IN:
            parts.append(f"{r.key} notin ({','.join(r.values)})")
        elif r.operator is LabelOperator.EXISTS:
            parts.append(r.key)
        else:
            parts.append(f"!{r.key}")
    return ",".join(parts) or "(everything)"


def toleration(taint: Taint) -> dict[str, str]:
    """The toleration of exactly this taint."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def counted(number: int, noun: str) -> str:
    """`1 cluster`, `2 clusters`: a count and its noun, in the plural but for one."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def flow(mapping: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in mapping.items()) + "}"


def label_changes(changes: Sequence[LabelChange]) -> tuple[dict[str, Any], list[str]]:
    """As data ({key: value, None to remove, or {"anyValueExcept": [...]} where any value but
    those will do: not a value a user could apply by mistake}) and as words."""
    data: dict[str, Any] = {}
    words = []
    for ch in changes:
        was = "" if ch.was is None else f" (was {ch.was})"
        if ch.remove:
            data[ch.key] = None
            words.append(f"remove {ch.key}{was}")
        elif ch.any_value:
            data[ch.key] = {"anyValueExcept": list(ch.excluded)}
            but = f" but {', '.join(ch.excluded)}" if ch.excluded else ""
            words.append(f"{ch.key}=<any value{but}>{was}")
        else:
            data[ch.key] = ch.value
            words.append(f"{ch.key}={ch.value}{was}")
    return data, words
