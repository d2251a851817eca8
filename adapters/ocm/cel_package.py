"""The CEL library (common-expression-language, module `cel`), imported without the command-line
REPL its package imports on the way: `cel.cli` brings prompt_toolkit, typer and rich, 0.1 s at
every start this program never uses. A placeholder stands in for it while the package is
imported and is taken away after, so that `import cel.cli` still finds the real one."""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["cel"]


def _library() -> ModuleType:
    if "cel" in sys.modules:
        return sys.modules["cel"]
    sys.modules["cel.cli"] = ModuleType("cel.cli")
    try:
        import cel as package
    finally:
        del sys.modules["cel.cli"]
    package.__dict__.pop("cli", None)
    return package


cel = _library()
