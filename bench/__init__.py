"""The benchmark suites (`placement-solver bench`), and sweeps for a notebook:

    import bench
    frame = bench.sweep(bench.SweepSpec(systems=("fleet",), seeds=(0, 1)), client=None)

`sweep(spec, client=None)`: every case of a :class:`SweepSpec` (or a plan read by
:func:`read_plan`), here or, given a dask.distributed Client, on its workers (bench.sweeps).
Imported on first use, so that `import bench.events` stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SweepSpec", "read_plan", "sweep"]


def __getattr__(name: str) -> Any:
    if name == "sweep":
        from bench.sweeps import sweep

        return sweep
    if name in ("SweepSpec", "read_plan"):
        from bench import plan

        return getattr(plan, name)
    raise AttributeError(f"module 'bench' has no attribute {name!r}")
