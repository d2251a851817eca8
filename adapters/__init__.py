"""Every edge of placement-solver: reading and writing the objects of each system (one folder
each, listed in adapters.registry), running a batch, the long-lived scheduler, the command line.

The library, for a controller or a notebook (each name imported on first use):

    from adapters import schedule                 # objects in, objects to write out
    from adapters import HubScheduler, Applied, Deleted, FleetScheduler   # long-lived
    from adapters import read_config, InputError
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "Applied",
    "Deleted",
    "FleetScheduler",
    "HubScheduler",
    "InputError",
    "Outcome",
    "SystemOutcome",
    "read_config",
    "schedule",
]

# name -> the module defining it: imported when the name is first asked for, so that the command
# line, which imports adapters.* modules, does not pay for the scheduler at start.
_HOMES = {
    "schedule": "adapters.run.pipeline",
    "Outcome": "adapters.run.pipeline",
    "SystemOutcome": "adapters.run.pipeline",
    "HubScheduler": "adapters.live.hub",
    "Applied": "adapters.live.hub",
    "Deleted": "adapters.live.hub",
    "FleetScheduler": "adapters.live.incremental",
    "read_config": "adapters.registry",
    "InputError": "adapters.errors",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'adapters' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
