"""A toy system, to show that adding a system is its own code plus one registry record: the
record (SYSTEM) and everything it names live in this one module, and nothing else in the program
changes to load, solve, emit, explain, generate, plan, diff or script it.

Its objects (group toy.example.com, version v1): `Box` (a cluster: its labels) and `Shelf` (a
placement: `spec.boxes` clusters whose labels match `spec.labels`, the larger name winning ties, as
Fleet's PickN does); the scheduler writes the Shelf's `status.boxes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.cli.words import Target, cell, grid
from adapters.contract import Emitted, ExplainKind, System, Verb, Write, Writes, field_at
from adapters.kube.fields import INT32, Fields
from adapters.kube.manifests import Manifest
from model import Batch, Cluster, ClusterTerm, LabelSelector, PlacementRequest, Result, SelectionMode

GROUP = "toy.example.com"
API_VERSION = f"{GROUP}/v1"

SYSTEM = System(
    name="toy",
    title="Toy",
    kinds={"Box": frozenset({GROUP}), "Shelf": frozenset({GROUP})},
    served={"Box": ("v1",), "Shelf": ("v1",)},
    load="tests.toy_system:load",
    emit="tests.toy_system:emit",
    targets=(ExplainKind("Shelf", GROUP, ("shelf",), namespaced=False),),
    explainer="tests.toy_system",
    generator="tests.toy_system:generate",
    writes="tests.toy_system:writes",
)


@dataclass(frozen=True, slots=True)
class Context:
    shelves: dict[str, Manifest]


def load(manifests: Sequence[Manifest], *, now: datetime, seed: int = 0) -> tuple[Batch, Context]:
    clusters, requests, shelves = [], [], {}
    for m in sorted(manifests, key=lambda m: (m.kind, m.name)):
        f = Fields(m)
        labels = f.labels(m.obj["metadata"].get("labels"), "metadata.labels")
        if m.kind == "Box":
            clusters.append(Cluster(m.name, labels=labels))
            continue
        spec = f.mapping(m.obj.get("spec"), "spec")
        count = f.integer(spec.get("boxes", 1), "spec.boxes", minimum=0, maximum=INT32)
        wanted = tuple(sorted(f.string_map(spec.get("labels"), "spec.labels").items()))
        term = (ClusterTerm(LabelSelector(wanted)),) if wanted else ()
        requests.append(PlacementRequest(m.name, mode=SelectionMode.N, count=count, required=term))
        shelves[m.name] = m
    return Batch(tuple(clusters), tuple(requests), now=now, seed=seed), Context(shelves)


def emit(context: Context, result: Result) -> Emitted:
    out = []
    for got in result.requests:
        shelf = context.shelves[got.request]
        boxes = sorted(c.cluster for c in got.selected)
        out.append({**shelf.obj, "status": {"boxes": boxes, "satisfied": got.satisfied}})
    return Emitted(out, [])


def document(target: Target, explanation: Any, part: Any, owned: Any, applied: Any) -> dict[str, Any]:
    got = next(r for r in part.result.requests if r.request == target.key)
    chosen = {c.cluster for c in got.selected}
    return {
        "system": "toy",
        "placement": {"kind": target.kind, "name": target.name, "selected": sorted(chosen)},
        "clusters": [
            {"cluster": c.name, "result": "chosen" if c.name in chosen else "not chosen"}
            for c in part.batch.clusters
        ],
    }


def table(doc: dict[str, Any]) -> str:
    rows = [("CLUSTER", "RESULT"), *((cell(r["cluster"]), cell(r["result"])) for r in doc["clusters"])]
    return "\n".join(grid(rows)) + "\n"


def generate(clusters: int, placements: int, *, seed: int, now: datetime) -> list[dict[str, Any]]:
    boxes = [
        {"apiVersion": API_VERSION, "kind": "Box", "metadata": {"name": f"box-{i}", "labels": {"size": "xl"}}}
        for i in range(clusters)
    ]
    shelves = [
        {
            "apiVersion": API_VERSION,
            "kind": "Shelf",
            "metadata": {"name": f"shelf-{i}"},
            "spec": {"boxes": 1 + i % 2},
        }
        for i in range(placements)
    ]
    return [*boxes, *shelves]


def writes(manifests: Sequence[Manifest]) -> Writes:
    return Writes(
        manager="toy-scheduler",
        kinds={"Shelf": (GROUP, "shelves")},
        writes=(Write("Shelf", Verb.PATCH, "toy: status", (field_at("status"),), status=True),),
    )
