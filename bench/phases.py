"""The per-phase pytest-benchmarks every system shares: a generated hub timed as read, load,
solve, emit, write and end to end, as the suite's rows split it.

    hub = PhaseHub("ocm-1000x1000", objects, load=..., emit=..., config=None)
    last, outputs, stats = run_phase(benchmark, hub, mode, phase)

The hub, its text and every phase's input are made once per hub (and mode), outside the timing.
Each phase checks what it ran: a solve passes the checker and gives one objective every round; an
end-to-end run passes the checker and writes the same bytes every round. The caller adds what its
system counts (created clusters, moves) to `benchmark.extra_info`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adapters.kube.manifests import Manifest, dump_yaml_stream, from_objects, parse_text
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions, check, solve

__all__ = ["MODES", "SHARED_PHASES", "MODE_PHASES", "PhaseHub", "run_phase", "case_id"]

MODES = ("greedy", "optimal")
SHARED_PHASES = ("read", "load")  # independent of the mode
MODE_PHASES = ("solve", "emit", "write", "e2e")


def case_id(prefix: str, clusters: int, placements: int, mode: str | None, phase: str) -> str:
    return f"{prefix}-{clusters}x{placements}-" + (f"{mode}-" if mode else "") + phase


def options(mode: str) -> SolveOptions:
    return SolveOptions(mode=mode, time_limit=60.0, seed=0)


@dataclass(eq=False)
class PhaseHub:
    """One generated hub of one system, with its adapter's load and emit bound to it."""

    objects: Sequence[dict[str, Any]]
    load: Callable[[Sequence[Manifest]], tuple[Any, Any]]  # manifests -> (batch, context)
    emit: Callable[[Any, Any], Any]  # (context, result) -> Emitted
    now: datetime
    config: Mapping[str, Any] | None = None
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def _once(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def text(self) -> str:
        return self._once("text", lambda: dump_yaml_stream(list(self.objects)))

    def manifests(self) -> list[Manifest]:
        return from_objects(list(self.objects), "<generated>")

    def loaded(self) -> tuple[Any, Any]:
        return self._once("loaded", lambda: self.load(self.manifests()))

    def solved(self, mode: str):
        def make():
            batch, _ = self.loaded()
            result = solve(batch, options(mode))
            assert check(batch, result) == []
            return result

        return self._once(("solved", mode), make)

    def emitted(self, mode: str):
        return self._once(("emitted", mode), lambda: self.emit(self.loaded()[1], self.solved(mode)))


def run_phase(benchmark, hub: PhaseHub, mode: str | None, phase: str) -> tuple[Any, list[Any]]:
    """Time one phase (three rounds) and check its answer; returns the last output and all of them.
    Solve and e2e put the status, objective, gap and unsatisfied count in `extra_info`."""
    outputs: list[Any] = []
    if phase == "read":
        source = hub.text()

        def run():
            outputs.append(parse_text(source, "hub.yaml"))
    elif phase == "load":
        manifests = hub.manifests()

        def run():
            outputs.append(hub.load(manifests))
    elif phase == "solve":
        batch, _ = hub.loaded()
        chosen = options(mode)

        def run():
            outputs.append(solve(batch, chosen))
    elif phase == "emit":
        _, context = hub.loaded()
        result = hub.solved(mode)

        def run():
            outputs.append(hub.emit(context, result))
    elif phase == "write":
        apply = hub.emitted(mode).apply

        def run():
            outputs.append(dump_yaml_stream(apply))
    elif phase == "e2e":
        source = hub.text()
        chosen = options(mode)

        def run():
            manifests = parse_text(source, "hub.yaml")
            outcome = schedule_manifests(
                manifests, now=hub.now, options=chosen, verify=False, config=hub.config
            )
            outputs.append((outcome, dump_yaml_stream(outcome.apply)))
    else:
        raise ValueError(f"unknown phase {phase!r}")

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    last = outputs[-1]
    if phase == "solve":
        batch, _ = hub.loaded()
        assert check(batch, last) == []
        assert len({r.stats.objective for r in outputs}) == 1  # deterministic across rounds
        stats = last.stats
        benchmark.extra_info.update(
            {
                "status": stats.status,
                "objective": stats.objective,
                "bound": stats.bound,
                "gap": stats.gap,
                "unsatisfied": sum(1 for r in last.requests if not r.satisfied),
            }
        )
    elif phase == "e2e":
        outcome, _ = last
        assert check(outcome.batch, outcome.result) == []
        assert len({o[1] for o in outputs}) == 1  # the same bytes every round
        benchmark.extra_info.update({k: outcome.summary[k] for k in ("status", "objective", "unsatisfied")})
    return last, outputs
