"""What an adapter's emit returns: the objects to apply and the references of those to delete."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Emitted"]


@dataclass(frozen=True, slots=True)
class Emitted:
    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
