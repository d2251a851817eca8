"""The Dask cluster a sweep runs on: a LocalCluster here, or a scheduler's workers elsewhere.

    from bench import SweepSpec, sweep
    from bench.cluster import dask_client

    with dask_client(workers=2) as client:                  # a LocalCluster of two workers
        frame = sweep(SweepSpec(systems=("fleet",)), client)
    with dask_client("tcp://scheduler:8786") as client:     # a running cluster's scheduler
        ...

Dask is an optional extra (`pip install 'placement-solver[dask]'`); without it, asking for a
client is an InputError naming the extra (the command exits 2 with that one line).

A case forks processes of its own (the command's two parts), so a worker stands for two cores:
a LocalCluster has one single-threaded worker per two cores by default, and the sweep hands out
as many cases at once as there are workers. The LocalCluster's scheduler counts a task whose
worker died as failed at once (`allowed-failures` 0), so that the sweep itself runs the case
once more and says so in its row.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from adapters.errors import InputError

__all__ = ["DASK_MISSING", "SCHEDULER_CONFIG", "dask_client", "default_workers", "require_dask"]

DASK_MISSING = "Dask is not installed; install the extra: pip install 'placement-solver[dask]'"
SCHEDULER_CONFIG = {"distributed.scheduler.allowed-failures": 0}
CONNECT_SECONDS = 30  # to reach a scheduler, and for the workers asked for to join it


def require_dask() -> None:
    """InputError naming the extra to install, unless dask.distributed can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError(DASK_MISSING, field="--engine") from None


def default_workers() -> int:
    """One worker per two cores (a case runs in two processes at times), at least one."""
    return max(1, (os.cpu_count() or 1) // 2)


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A dask.distributed Client, closed on leaving: without `scheduler`, on a LocalCluster of
    `workers` single-threaded worker processes (default: one per two cores), shut down with it;
    with `scheduler` (an address), on that cluster, waiting until `workers` workers have joined
    when given."""
    require_dask()
    import dask
    from distributed import Client, LocalCluster

    if scheduler is None:
        with (
            dask.config.set(SCHEDULER_CONFIG),
            LocalCluster(
                n_workers=workers or default_workers(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,  # a failed case is the sweep's to report
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot reach the Dask scheduler: {err}", field="--scheduler") from None
    with client:
        if workers:
            try:
                client.wait_for_workers(workers, timeout=CONNECT_SECONDS)
            except TimeoutError:
                joined = len(client.nthreads())
                message = f"{joined} of the {workers} workers asked for joined in {CONNECT_SECONDS} s"
                raise InputError(message, field="--workers") from None
        yield client
