"""The library's own error types. The command line turns InputError into exit status 2, in one place."""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(Exception):
    """Input that cannot be used: a message naming the file or object (kind/name) and the field."""

    def __init__(self, message: str, *, where: str = "", field: str = "") -> None:
        self.where = where
        self.field = field
        parts = [p for p in (where, field) if p]
        super().__init__(f"{': '.join(parts)}: {message}" if parts else message)
