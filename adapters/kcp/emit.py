"""model.Result -> the objects kcp's placement controllers write, in the input's generation:
v0.5 the Namespaces under placement with their placement annotation and NamespaceScheduled
condition (v05.emit); v0.8 the Namespaces Controller C reconciles with its mark, state labels,
deletion annotations and NamespaceScheduled condition, then every Placement with its SyncTarget
annotation and status (v08.emit). Nothing is deleted. Every written object keeps the rest of what was read.
"""

from __future__ import annotations

from adapters.contract import Emitted
from adapters.kcp import v05, v08
from adapters.kcp.load import KcpContext
from adapters.kcp.names import Generation
from model import Result

__all__ = ["emit", "emit_part"]


def emit(context: KcpContext, result: Result) -> Emitted:
    world = context.world
    if world.generation is Generation.V05:
        return v05.emit(world, context.plan, result)
    return v08.emit(world, context.plan, result)


def emit_part(context: KcpContext, result: Result, start: float, stop: float) -> Emitted | None:
    """emit's Emitted with only its objects from fraction `start` to `stop` made
    (adapters.contract.System.emit_part)."""
    world = context.world
    if world.generation is Generation.V05:
        return v05.emit(world, context.plan, result, (start, stop))
    return v08.emit(world, context.plan, result, (start, stop))
