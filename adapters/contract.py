"""What a system gives the rest of the program: one record (System) carrying every facet the
command line, the pipeline, explain, plan, the generators and the benchmarks ask about; the values
its adapter returns (Emitted from emit, Cut from cut); and the vocabulary it declares its upstream
controllers' writes in (Write, Writes).

A system's record lives in its own folder (``adapters/<system>/system.py``) and the registry
(adapters.registry) lists the records; nothing else names a system.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from datetime import datetime

    from adapters.kube.fields import Fields
    from adapters.kube.manifests import Manifest
    from model import Batch, PlacementRequest, RequestResult, Result

__all__ = [
    "Adapter",
    "Change",
    "Cut",
    "Emitted",
    "ExplainKind",
    "Field",
    "Identity",
    "Live",
    "PartCosts",
    "System",
    "Taken",
    "Table",
    "Verb",
    "Write",
    "Writes",
    "entries",
    "field_at",
    "resolve",
]


@dataclass(frozen=True, slots=True)
class Emitted:
    """The objects to apply and the references of those to delete."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    # Where the system's own status says more than the neutral result: every placement written
    # (some never reach the solver, e.g. misconfigured ones) and those its status calls unsatisfied.
    placements: tuple[str, ...] | None = None
    unsatisfied: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Cut:
    """An input in independent parts: what every part reads, and each part's own objects, in the
    parts' output order."""

    shared: list[Manifest]
    own: list[list[Manifest]]

    def part(self, index: int) -> list[Manifest]:
        """The objects the part reads."""
        return [*self.shared, *self.own[index]]


@dataclass(frozen=True, slots=True)
class Adapter:
    """The system's apply (`load`: manifests -> batch and the context emit needs) and invert
    (`emit`: context and result -> Emitted). A system read with a scheduler config gets it as
    `load(..., config=document)`.

    A system that can `cut` its input into up to N parts returns a Cut: objects every part reads
    (the clusters) and each part's own, such that, when each part's batch is separable
    (model.Batch.separable) and no part writes an object another part reads or writes, the parts
    loaded and emitted on their own give, joined in order, the whole input's applies
    (adapters.run.parts checks the rest); None where a cut is not worth it. A cut reads of each
    object only its apiVersion, kind and metadata's name, namespace and labels: a large file is
    cut from stubs of these, before its objects are parsed (adapters.kube.stubs)."""

    load: Callable[..., tuple[Batch, Any]]  # (manifests, *, now, seed[, config]) -> (batch, context)
    emit: Callable[[Any, Result], Emitted]
    cut: Callable[[list[Manifest], int], Cut | None] | None = None


@dataclass(frozen=True, slots=True)
class Identity:
    """How a system names its objects: `fields` makes the typed reader of one object, whose errors
    name it as the system does; `scope` is the logical workspace an object lives in ("" where the
    system has none), which plans, diffs and explain tell objects apart by; `word` is what the
    middle part of an explain target names (KIND/NAMESPACE/NAME or KIND/WORKSPACE/NAME)."""

    fields: Callable[[Manifest], Fields]
    scope: Callable[[Mapping[str, Any]], str]
    word: str = "namespace"


@dataclass(frozen=True, slots=True)
class ExplainKind:
    """A kind `explain` takes, as kubectl spells it: the lower-case singular and short names in
    `spellings`; the plural and `kind.group` are understood too."""

    kind: str
    group: str
    spellings: tuple[str, ...]
    namespaced: bool = True


@dataclass(frozen=True, slots=True)
class Table:
    """The system's `-o table`: the header of its score column (None: its scores mean nothing to
    people, no score columns), and whether, alone in the input, it leaves out the SYSTEM column
    (and keeps its own words). A system that divides replicas shows the replicas each chosen
    cluster runs (`replicas`), names a request's failure (model.Failure's value -> the word its
    upstream writes, in `failures`) and writes amounts of a resource its way (`amount`: a
    `module:attribute` reference, see :func:`resolve`, to `(resource, units) -> text`; None:
    the bare number)."""

    score: str | None = "SCORE"
    alone: bool = False
    replicas: bool = False
    failures: Mapping[str, str] = field(default_factory=dict)
    amount: str | None = None


def resolve(reference: str) -> Any:
    """What a record's `module:attribute` reference names (or, without an attribute, the module),
    its module imported on first use."""
    module, _, attribute = reference.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


@dataclass(frozen=True, slots=True)
class PartCosts:
    """What a system's large plan costs, CPU seconds a unit, as measured in its forked command: an
    input object's metadata judged (`judged`) and a request checked (`checked`) by the checker's
    child, and an object emitted, compared with its input and made text (`planned`). From them
    the pipeline gives the child the share of the objects that ends it about when this process
    ends (adapters.run.pipeline.plan_shared)."""

    judged: float
    checked: float
    planned: float


@dataclass(frozen=True, slots=True)
class System:
    """One upstream system, every facet of it, as data: the facets that are code are
    `module:attribute` references (see :func:`resolve`), so that a record is light to import, a
    command imports a system's code only when the input holds its objects, and the records, which
    the pipeline routes by, depend on none of the code they name (the adapters.registry gives them
    resolved, typed and cached).

    - `name` (the command line's and the summary's), `title` (as people write it);
    - `kinds`: the kinds it owns, kind -> API groups; `shared`: kinds it reads without owning
      them (kcp's core Namespaces), read only beside at least one object of its own kinds;
      `served`: the API versions upstream serves of each (others are refused, as the API server
      refuses them);
    - `load`, `emit`, `cut`: its Adapter; `config_read` and `config_check`: its scheduler config
      (`read(paths) -> document`, `check(document, where)`), for a system that reads one;
      `emit_part` (`(context, result, start, stop) -> Emitted`): emit's Emitted with only the
      run of its objects to apply from fraction `start` to `stop` of them made (its other fields
      whole): a large plan's objects are then emitted on two cores
      (adapters.run.pipeline.plan_shared), shared by its `part_costs` (without them, emitted here);
    - `fields` and `scope`, `scope_word`: its Identity (default: Fields, no workspaces);
    - `targets` and `explainer` (a module with `document(target, explanation, part, owned,
      applied)` and `table(document)`): what `explain` takes and how it words it;
    - `generator` (`generate(clusters, placements, *, seed, now[, generation])`),
      `generator_config` (`(clusters, placements, *, seed)` -> the config a hub is made for) and
      `generations` (the API generations it writes, the first the default);
    - `demo`: its bundled example files (adapters/examples), `demo_config` the config they need;
    - `table`: its `-o table` layout; `writes` (`(manifests) -> Writes`): what its upstream
      controllers write, and how (the apply script); `commands`: subcommands it adds (name ->
      click command);
    - `reach` (`(manifests, *, now, seed, result[, config]) -> Live`): the system's part of
      the long-lived scheduler (adapters.live.hub): its objects as loaded (after the first
      solve, whose `result` they hold), kept between events, and what each change reaches (see
      Live). Without it every event solves the system again.
    """

    name: str
    title: str
    kinds: Mapping[str, frozenset[str]]
    served: Mapping[str, tuple[str, ...]]
    load: str
    emit: str
    cut: str | None = None
    emit_part: str | None = None
    part_costs: PartCosts | None = None
    shared: Mapping[str, frozenset[str]] = field(default_factory=dict)
    config_read: str | None = None
    config_check: str | None = None
    fields: str = "adapters.kube.fields:Fields"
    scope: str | None = None
    scope_word: str = "namespace"
    targets: tuple[ExplainKind, ...] = ()
    explainer: str | None = None
    generator: str | None = None
    generator_config: str | None = None
    generations: tuple[str, ...] = ()
    demo: tuple[str, ...] = ()
    demo_config: str | None = None
    table: Table = Table()
    writes: str | None = None
    commands: Mapping[str, str] = field(default_factory=dict)
    reach: str | None = None

    @property
    def groups(self) -> frozenset[str]:
        """The API groups of its own kinds."""
        return frozenset(g for groups in self.kinds.values() for g in groups)

    @property
    def shared_groups(self) -> frozenset[str]:
        return frozenset(g for groups in self.shared.values() for g in groups)


# ------------------------------------------------------------------------------------------ live
# What a system gives the long-lived scheduler (adapters.live.hub): its loaded model, kept between
# events, and what each change reaches.

Change = tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]  # an object before and after


@dataclass(frozen=True, slots=True)
class Taken:
    """What one solve of the long-lived scheduler takes: the requests upstream's controller takes
    up after the changes, in a batch with the clusters they may use, every other request held as
    it stands (its footprint counted in the clusters: their load, their room); and the context
    the system's emit writes those requests (and what they change) back from."""

    batch: Batch
    context: Any
    # Told the answer once the batch is solved, for a model that keeps what its requests were
    # answered (Fleet's wake rule reads whether a placement is fully scheduled).
    answered: Callable[[Result], None] | None = None
    # Requests taken up whose answer the model knows without the solver (one whose answer is its
    # feasible set, moved by one cluster), each with its answer as the solver would have chosen it
    # in the batch (its selected and released clusters); their decisions are counted in the
    # batch's clusters as answered (the batch's outside load). The hub checks them with the solved
    # ones (when it verifies), emits them with them and tells `answered` them too, in key order.
    given: tuple[tuple[PlacementRequest, RequestResult], ...] = ()


class Live(Protocol):
    """A system's loaded model, kept between events (made by the record's `reach` from the
    system's objects as the server stores them, after the first solve).

    `take(changes, now)` hears every change of the system's objects (an event's, the garbage
    collector's, the scheduler's own writes: (before, after) as the server stores them, None
    where absent), re-reads the changed objects only (an object unchanged is never read again),
    and returns what upstream's controller takes up after them (Taken), or None where they reach
    nothing. A changed object the system refuses is an InputError raised before anything is
    kept, so that a refused event leaves the model as it was."""

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None: ...


# ---------------------------------------------------------------------------------------- writes
# The vocabulary a system declares its upstream controllers' writes in (adapters/<system>/writes.py),
# which the apply script (adapters.cli.writeback) renders against a run's changes.


class Verb(StrEnum):
    CREATE = "create"
    UPDATE = "update"  # upstream PUTs the object as it read it: its uid and resourceVersion come along
    PATCH = "patch"  # a JSON merge patch (RFC 7386)
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Field:
    """What a request writes at `path`: the whole value there (a map, merged key by key; a list or
    a scalar, replaced), or, with `keys` or `prefixes`, only the map's entries of those keys."""

    path: tuple[str, ...]
    keys: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    @property
    def filtered(self) -> bool:
        return bool(self.keys or self.prefixes)

    def admits(self, key: str) -> bool:
        return key in self.keys or key.startswith(self.prefixes)


def field_at(*path: str) -> Field:
    return Field(path)


def entries(*path: str, keys: Iterable[str] = (), prefixes: Iterable[str] = ()) -> Field:
    return Field(path, tuple(keys), tuple(prefixes))


# (the object as read, the object as the run leaves it) -> whether upstream makes this request
Predicate = Callable[[Mapping[str, Any], Mapping[str, Any]], bool]


@dataclass(frozen=True, slots=True)
class Write:
    """One request an upstream controller sends for objects of one kind. `call` cites it (upstream
    file and function). Without `when`, an update or patch is made when one of its fields changes;
    each changed field goes with the first request made that carries it."""

    kind: str
    verb: Verb
    call: str
    fields: tuple[Field, ...] = ()
    status: bool = False  # through the status subresource
    preconditions: tuple[str, ...] = ()  # metadata fields the request carries as conditions
    when: Predicate | None = None


@dataclass(frozen=True, slots=True)
class Writes:
    """One system's writes: the field manager its controllers write under, the resource of each kind
    it writes (kind -> (API group, plural)), its requests in upstream's order, and where an object's
    logical workspace is addressed under the server's URL (kcp: "/clusters/{}"; "" where none)."""

    manager: str
    kinds: Mapping[str, tuple[str, str]]
    writes: tuple[Write, ...]
    workspace_path: str = ""
