"""`placement-solver simulate`: kcp's scheduler and its other actors run together to a fixed point.

    simulation = run_simulation(manifests, now=now, options=SolveOptions(mode="greedy", seed=0))
    simulation.objects, simulation.log, simulation.converged
    print(render(simulation, "yaml"))      # the final objects, then the transition log as comments

One step, at one moment:

1. the scheduler: the whole pipeline (`adapters.run.pipeline.schedule_manifests`) on the current
   objects, its output applied as the API server would (every object it writes replaces the object
   of the same workspace, group, kind, namespace and name, or is created; every reference it
   deletes goes);
2. the other actors of the input's generation (adapters.kcp.actors), in a fixed order: the
   namespace controller, the resource controller, the syncer; each sees what the ones before it
   wrote.

Time: the first step runs at `now`; each later step 5 s (`STEP`) after the one before, so that v0.8's
5 s grace for a removal passes within two steps (Controller C removes a label whose deletion
annotation is *more* than 5 s old). Nothing else is taken to pass: a cluster's `evictAfter` later
than the last step's moment is not reached (run with a later `--now` to see it).

The run stops after the first step that changed nothing while no actor waited for time to pass
(converged: a fixed point), or after `steps` steps (default `MAX_STEPS`; not converged). The
transition log has one entry per changed facet of an object (adapters.kcp.actors.Transition) with
its step and moment. The same input and options give the same objects and log, byte for byte: the
scheduler is seeded (`options.seed`, the same every step), the actors are deterministic.

The run also checks, at every application of any actor's output, that no workload object lost a
state label before its downstream removal was signalled (`violations`; empty unless an actor is
wrong).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.errors import InputError
from adapters.kcp.actors import ACTORS, Transition, diff_objects, generation_of, identity, label_losses
from adapters.kcp.legality import ALLOWED, illegal_transitions
from adapters.kcp.names import PLACEMENT_ANNOTATION
from adapters.kcp.workspace import read_workspace, workspace_of
from adapters.kube.fields import time_text
from adapters.kube.manifests import Manifest, dump_json, dump_yaml_stream, from_objects
from adapters.run.pipeline import schedule_manifests
from solver import SolveOptions

__all__ = [
    "MAX_STEPS",
    "OUTPUTS",
    "STEP",
    "Logged",
    "Simulation",
    "generation_of",
    "render",
    "run_simulation",
]

Obj = dict[str, Any]

STEP = timedelta(seconds=5)
MAX_STEPS = 100
OUTPUTS = ("yaml", "json", "log")
SCHEDULER = "scheduler"
_KCP_KINDS = {"WorkloadCluster", "SyncTarget", "Location", "Placement"}


@dataclass(frozen=True, slots=True)
class Logged:
    """A transition with the step (from 1) and the moment it happened at."""

    step: int
    time: str
    transition: Transition

    def line(self) -> str:
        t = self.transition
        return f"step {self.step}  {t.actor}  {t.object}  {t.detail}: {t.before} -> {t.after}"

    def document(self) -> dict[str, Any]:
        t = self.transition
        return {
            "step": self.step,
            "time": self.time,
            "actor": t.actor,
            "object": t.object,
            "detail": t.detail,
            "from": t.before,
            "to": t.after,
        }


@dataclass(frozen=True, slots=True)
class Simulation:
    """The objects after the last step, what every step changed, and how the run ended."""

    objects: list[Obj]
    log: list[Logged]
    generation: str
    steps: int  # steps run
    converged: bool  # the last step changed nothing and nobody waited
    started: datetime
    ended: datetime  # the last step's moment
    violations: list[str] = field(default_factory=list)


def _time(moment: datetime) -> str:
    return time_text(moment)


def _reference_key(ref: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    return identity(
        {
            "apiVersion": ref.get("apiVersion", ""),
            "kind": ref.get("kind", ""),
            "metadata": {
                "name": ref.get("name", ""),
                "namespace": ref.get("namespace", ""),
                "clusterName": ref.get("clusterName") or ref.get("workspace") or "",
            },
        }
    )


def apply_outcome(
    objects: Sequence[Obj], apply: Sequence[Obj], delete: Sequence[Mapping[str, Any]]
) -> tuple[list[Obj], list[Transition]]:
    """The objects after the API server took `apply` (replace or create) and `delete`, and the
    scheduler's transitions."""
    out = list(objects)
    where = {identity(obj): i for i, obj in enumerate(out)}
    transitions: list[Transition] = []
    for obj in apply:
        key = identity(obj)
        index = where.get(key)
        if index is None:
            where[key] = len(out)
            out.append(obj)
            transitions += diff_objects(SCHEDULER, None, obj)
        elif out[index] != obj:
            transitions += diff_objects(SCHEDULER, out[index], obj)
            out[index] = obj
    gone = set()
    for ref in delete:
        index = where.get(_reference_key(ref))
        if index is not None and index not in gone:
            gone.add(index)
            transitions += diff_objects(SCHEDULER, out[index], None)
    if gone:
        out = [obj for i, obj in enumerate(out) if i not in gone]
    return out, transitions


def _illegal(before: list[dict], after: list[dict], actor: str, generation: str) -> list[str]:
    """v0.5 placement-state steps the actor may not take (adapters.kcp.legality), per namespace."""
    if generation != "v0.5" or actor not in ALLOWED:
        return []
    old = {_namespace_key(o): o for o in before if o.get("kind") == "Namespace"}
    out = []
    for obj in after:
        if obj.get("kind") != "Namespace":
            continue
        key = _namespace_key(obj)
        was = ((old.get(key) or {}).get("metadata") or {}).get("annotations") or {}
        now = (obj.get("metadata") or {}).get("annotations") or {}
        annotation = PLACEMENT_ANNOTATION
        steps = illegal_transitions(was.get(annotation), now.get(annotation), actor=actor)
        out += [f"Namespace {key[0]}|{key[1]}: {p}" for p in steps]
    return out


def _namespace_key(obj: dict) -> tuple[str, str]:
    return workspace_of(obj), (obj.get("metadata") or {}).get("name", "")


def run_simulation(
    manifests: Sequence[Manifest],
    *,
    steps: int | None = None,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    config: Mapping[str, Any] | None = None,
) -> Simulation:
    """Run the scheduler and the other actors step by step (see the module docstring) until a step
    changes nothing and nobody waits, or `steps` steps. InputError on bad input (found by the first
    step's scheduler run; a Namespace or namespaced object naming no workspace, or two, before it),
    or when the input holds no kcp object."""
    if steps is not None and steps < 1:
        raise InputError(f"must be at least 1, got {steps}", field="--steps")
    objects = [m.obj for m in manifests]
    if not any(o.get("kind") in _KCP_KINDS and "kcp.dev" in str(o.get("apiVersion", "")) for o in objects):
        raise InputError(
            "simulate runs kcp's placement actors: the input holds no WorkloadCluster, SyncTarget, "
            "Location or Placement"
        )
    for m in manifests:  # the actors find a namespace's objects by workspace: each must name one
        if m.namespace or (m.kind == "Namespace" and m.group == ""):
            read_workspace(m)
    options = options or SolveOptions()
    start = (now or datetime.now(UTC)).replace(microsecond=0)
    start = start if start.tzinfo else start.replace(tzinfo=UTC)
    generation = generation_of(objects)
    limit = steps if steps is not None else MAX_STEPS
    log: list[Logged] = []
    violations: list[str] = []
    converged = False
    moment = start
    count = 0
    for count in range(1, limit + 1):
        moment = start + (count - 1) * STEP
        stamp = _time(moment)
        source = f"<simulation step {count}>"
        outcome = schedule_manifests(
            from_objects(objects, source), now=moment, options=options, config=config
        )
        after, transitions = apply_outcome(objects, outcome.apply, outcome.delete)
        violations += [
            f"step {count}, {SCHEDULER}: {p}" for p in label_losses(objects, after, generation=generation)
        ]
        violations += [f"step {count}: {p}" for p in _illegal(objects, after, "scheduler", generation)]
        changed = bool(transitions)
        log += [Logged(count, stamp, t) for t in transitions]
        objects = after
        waiting = False
        for name, actor in ACTORS[generation]:
            acted = actor(objects, moment)
            violations += [
                f"step {count}, {name}: {p}"
                for p in label_losses(objects, acted.objects, generation=generation)
            ]
            violations += [f"step {count}: {p}" for p in _illegal(objects, acted.objects, name, generation)]
            changed |= bool(acted.transitions)
            waiting |= acted.wake is not None
            log += [Logged(count, stamp, t) for t in acted.transitions]
            objects = acted.objects
        if not changed and not waiting:
            converged = True
            break
    return Simulation(objects, log, generation, count, converged, start, moment, violations)


def _headline(simulation: Simulation) -> str:
    s = simulation
    ending = (
        "converged: the last step changed nothing"
        if s.converged
        else f"stopped after {s.steps} step{'s' if s.steps != 1 else ''} without converging"
    )
    return (
        f"kcp {s.generation}: {s.steps} step{'s' if s.steps != 1 else ''} from {_time(s.started)} to "
        f"{_time(s.ended)}, {int(STEP.total_seconds())} s apart; {ending}; {len(s.log)} transition"
        f"{'s' if len(s.log) != 1 else ''}"
    )


def render(simulation: Simulation, output: str = "yaml") -> str:
    """yaml: the final objects as a YAML stream, then the transition log as YAML comments (the
    whole is still valid input to `kubectl apply -f -` and to `simulate` itself); log: the log
    alone, one line per transition; json: one document with both."""
    if output not in OUTPUTS:
        raise InputError(f"unknown output {output!r}; expected one of {', '.join(OUTPUTS)}", field="-o")
    lines = [_headline(simulation), *(entry.line() for entry in simulation.log)]
    lines += [f"VIOLATION {v}" for v in simulation.violations]
    if output == "log":
        return "\n".join(lines) + "\n"
    if output == "json":
        return dump_json(
            {
                "generation": simulation.generation,
                "steps": simulation.steps,
                "converged": simulation.converged,
                "started": _time(simulation.started),
                "ended": _time(simulation.ended),
                "stepSeconds": int(STEP.total_seconds()),
                "violations": simulation.violations,
                "transitions": [entry.document() for entry in simulation.log],
                "objects": simulation.objects,
            }
        )
    return dump_yaml_stream(simulation.objects) + "".join(f"# {line}\n" for line in lines)
