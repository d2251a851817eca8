"""pytest configuration of the benchmark suite (bench/).

Nothing here is collected by the default `python -m pytest` (testpaths is tests/); run it
explicitly, one size at a time or all of it:

    python -m pytest bench -k 1000x1000            # both modes at 1,000 clusters x 1,000 placements
    python -m pytest bench -k "100x100 and greedy"
    python -m pytest bench --benchmark-json out.json
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bench: a benchmark on a large synthetic fleet (run explicitly)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent.name == "bench":
            item.add_marker(pytest.mark.bench)
