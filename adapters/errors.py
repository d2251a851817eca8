"""The library's own error types. The command line turns InputError into exit status 2, in one place."""

from __future__ import annotations

__all__ = ["InputError"]

# The characters str.splitlines() ends a line at. A message holds each escaped, as repr writes it,
# so that it stays one line whatever the input put in it (an object's name, a value quoted as is).
_LINE_BREAKS = str.maketrans({c: repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"})


class InputError(Exception):
    """Input that cannot be used: a message naming the file or object (kind/name) and the field."""

    def __init__(self, message: str, *, where: str = "", field: str = "") -> None:
        self.where = where
        self.field = field
        parts = [p for p in (where, field) if p]
        text = f"{': '.join(parts)}: {message}" if parts else message
        super().__init__(text.translate(_LINE_BREAKS))
