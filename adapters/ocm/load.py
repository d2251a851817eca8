"""OCM objects -> model.Batch, keeping what emit needs to write the objects back (the inverse data).

Clusters: every ManagedCluster not terminating, with its set memberships and the CEL expressions it
satisfies as traits, its valid AddOnPlacementScores as external scores, and as load the decisions
of placements this batch does not schedule (absent, disabled or deleting ones). Requests: every
Placement that is neither disabled nor deleting nor misconfigured. A misconfigured placement is
not solved; emit writes it with no decisions, as upstream does.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress
from typing import Any

from adapters.errors import InputError
from adapters.kube.fields import INT32, ZERO_TIME, Fields, parse_time
from adapters.kube.manifests import Manifest, index_by_kind
from adapters.kube.validation import label_value_errors
from adapters.ocm import names as n
from adapters.ocm.checks import conditions
from adapters.ocm.clusters import ManagedCluster, read_cluster
from adapters.ocm.groups import DecisionGroup, GroupStrategy
from adapters.ocm.policy import Policy, read_policy
from adapters.ocm.sets import Bindings, ClusterSet, read_bindings, read_set
from adapters.run import forked
from model import (
    Batch,
    Cluster,
    ClusterTerm,
    ExistingDecision,
    PlacementRequest,
    SelectionMode,
    TieBreak,
)

__all__ = ["OcmContext", "PlacementContext", "cel_trait", "load", "placement_request"]


@dataclass(slots=True)
class PlacementContext:
    """One Placement and what its status and decisions are written from."""

    placement: Manifest
    count: int | None
    cluster_sets: tuple[str, ...]  # spec.clusterSets
    bindings: int  # valid ManagedClusterSetBindings in its namespace
    eligible: tuple[str, ...]  # eligible sets, sorted
    available: int  # clusters in the eligible sets, terminating ones left out
    groups: GroupStrategy
    decisions: list[Manifest] = field(default_factory=list)  # its PlacementDecisions as read
    misconfigured: str | None = None  # "<plugin>:<message>": not solved, no decisions

    @property
    def key(self) -> str:
        return f"{self.placement.namespace}/{self.placement.name}"


@dataclass(slots=True)
class OcmContext:
    placements: dict[str, PlacementContext]  # by namespace/name
    clusters: dict[str, Cluster]  # the batch's clusters by name
    now: datetime
    # A long-lived scheduler's decision entries ({"clusterName": c, "reason": ""}), made once per
    # cluster name and shared by every PlacementDecision it writes, never changed: a decision
    # written again holds the same entry objects as the stored one, which the hub's comparison
    # then finds equal by identity, entry by entry. None: each entry made. Where it offers
    # `listed` (adapters.ocm.reach._Entries), emit asks it for each decision's entry list: the
    # scheduler then reads the decision coming back by that list.
    entries: Mapping[str, dict[str, Any]] | None = None
    # A long-lived scheduler's clusters matching a decision group, kept across its emits (every
    # cluster of `clusters` the group matches; adapters.ocm.groups.decision_groups). None: each
    # selected cluster matched.
    members: Callable[[DecisionGroup], AbstractSet[str]] | None = None


def cel_trait(source: str) -> str:
    """The trait of the clusters satisfying a CEL expression: a short digest of its source."""
    return n.CEL_TRAIT.format(hashlib.sha256(source.encode()).hexdigest()[:16])


def load(manifests: Sequence[Manifest], *, now: datetime, seed: int = 0) -> tuple[Batch, OcmContext]:
    objects = index_by_kind(manifests, n.KINDS)
    beside = _cel_beside(objects, now)
    try:
        return _loaded(objects, now, seed, beside)
    finally:
        if beside is not None:  # bad input: its answer is of no use
            beside.cancel()


def _loaded(
    objects: Mapping[str, list[Manifest]], now: datetime, seed: int, beside: forked.Pending | None
) -> tuple[Batch, OcmContext]:
    clusters = [read_cluster(m) for m in objects[n.MANAGED_CLUSTER]]
    live = [c for c in clusters if not c.terminating]
    sets = {m.name: read_set(m) for m in objects[n.CLUSTER_SET]}
    bindings = read_bindings(objects[n.SET_BINDING], sets)
    # The scores are read by the CEL child beside, where there is one (its answer taken after the
    # wait); their error, if any, still comes before any error of what follows (_scores_first).
    scored = _scores(objects[n.SCORE], now) if beside is None else None
    with _scores_first(scored, objects[n.SCORE], now):
        decisions = _decisions(objects[n.DECISION])
        policies = _policies(objects[n.PLACEMENT])

        # Everything that needs no CEL verdict first: the CEL child (_cel_beside) takes about as
        # long as this process's whole reading, and is waited for only once nothing else is left.
        memberships = _memberships(sets, live)
        contexts, scoped = _contexts(policies, bindings, memberships, live, decisions)
        # Balance counts every PlacementDecision but the placement's own; the batch's placements
        # (and the misconfigured ones, left without decisions) are counted by the solver.
        outside = Counter(
            c
            for (namespace, placement), items in decisions.items()
            if f"{namespace}/{placement}" not in contexts
            for _, names in items
            for c in names
        )

        # A placement's request needs only whether its expressions compile, unless its
        # tolerations are misconfigured (upstream says so only where a cluster passes its
        # predicates): made first.
        sources = _cel_sources(policies)
        compiled = _compile_outcomes(sources)
        requests: list[PlacementRequest] = []
        later: list[_Scoped] = []
        for each in scoped:
            if each[1].toleration_error is None:
                _add_request(each, compiled, {}, decisions, requests)
            else:
                later.append(each)

    answer = _cel_answer(beside, sources, live)
    if answer is not None:
        valid_scores, flags = answer
        all_scores: Mapping[str, Any] = {}  # the flags are made: scores() is asked nothing
    else:
        valid_scores, all_scores = scored if scored is not None else _scores(objects[n.SCORE], now)
        flags = None
    _, matching, flags = _cel_verdicts(sources, live, all_scores, flags)
    satisfied = _cel_traits_of(matching, flags, len(live))
    traits = {c.name: memberships[c.name] | cel for c, cel in zip(live, satisfied, strict=True)}
    for each in later:  # whether an expression compiles is all _misconfigured reads of `compiled`
        _add_request(each, compiled, traits, decisions, requests)

    model_clusters = tuple(
        c.to_model(traits[c.name], valid_scores.get(c.name, {}), outside.get(c.name, 0))
        for c in sorted(live, key=lambda c: c.name)
    )
    requests.sort(key=lambda r: r.key)
    # Upstream counts decisions on clusters that are gone or terminating as well: they still raise
    # the busiest count Balance divides by.
    live_names = {c.name for c in model_clusters}
    absent = {name: count for name, count in sorted(outside.items()) if name not in live_names}
    # A PlacementDecision lists the clusters selected and nothing of those left out (emit), so
    # nothing is explained: the settle and greedy's walk made 20 entries a request for no reader.
    batch = Batch(model_clusters, tuple(requests), now=now, seed=seed, absent_load=absent, explain_limit=0)
    return batch, OcmContext(contexts, {c.name: c for c in model_clusters}, now)


# A placement's context, policy, scope and the live clusters in its eligible sets (where its
# tolerations are refused; elsewhere a range as long, all that is read of it).
_Scoped = tuple["PlacementContext", Policy, tuple[str, ...], Sequence[ManagedCluster]]


def _contexts(
    policies: Mapping[str, tuple[Manifest, Policy]],
    bindings: Bindings,
    memberships: Mapping[str, frozenset[str]],
    live: list[ManagedCluster],
    decisions: Mapping[tuple[str, str], list[tuple[Manifest, list[str]]]],
) -> tuple[dict[str, PlacementContext], list[_Scoped]]:
    """By namespace/name, each Placement's context (its misconfiguration, which needs the CEL
    verdicts, still to be judged); and for each, with its policy, its scope and the live clusters
    in its eligible sets."""
    # How many live clusters carry each set of set traits (a fleet has few such sets): a scope's
    # clusters counted by the sets that meet it, not gathered cluster by cluster.
    carrying = Counter(memberships.values())
    counts: dict[tuple[str, ...], int] = {}  # many placements share their sets
    members: dict[str, list[ManagedCluster]] | None = None
    contexts: dict[str, PlacementContext] = {}
    scoped: list[_Scoped] = []
    for key, (m, policy) in policies.items():
        eligible = bindings.eligible(m.namespace, policy.cluster_sets)
        scope = tuple(n.SET_TRAIT.format(s) for s in eligible)
        count = counts.get(scope)
        if count is None:
            count = counts[scope] = sum(k for traits, k in carrying.items() if not traits.isdisjoint(scope))
        # The clusters themselves only where a refused toleration reads them (_misconfigured);
        # elsewhere it reads only whether there are any.
        available: Sequence[ManagedCluster] = range(count)
        if policy.toleration_error is not None:
            if members is None:
                members = _members(live, memberships)
            available = list({c.name: c for trait in scope for c in members.get(trait, ())}.values())
        context = contexts[key] = PlacementContext(
            placement=m,
            count=policy.count,
            cluster_sets=policy.cluster_sets,
            bindings=len(bindings.valid(m.namespace)),
            eligible=eligible,
            available=count,
            groups=policy.groups,
            decisions=[d for d, _ in decisions.get((m.namespace, m.name), [])],
        )
        scoped.append((context, policy, scope, available))
    return contexts, scoped


def _members(
    live: list[ManagedCluster], memberships: Mapping[str, frozenset[str]]
) -> dict[str, list[ManagedCluster]]:
    """By set trait, the live clusters carrying it."""
    members: dict[str, list[ManagedCluster]] = {}
    for c in live:
        for trait in memberships[c.name]:
            members.setdefault(trait, []).append(c)
    return members


def _compile_outcomes(sources: Sequence[str]) -> dict[str, CelOutcome]:
    """By trait, each expression's outcome as far as compiling it tells (_cel_matches' errors;
    no matches), all _required and _misconfigured read of a placement without tolerations to
    judge."""
    if not sources:
        return {}
    _, errors = _compiled(sources)
    return {cel_trait(src): CelOutcome(error=errors.get(src)) for src in sources}


def _add_request(
    each: _Scoped,
    cel: Mapping[str, CelOutcome],
    traits: Mapping[str, frozenset[str]],
    decisions: Mapping[tuple[str, str], list[tuple[Manifest, list[str]]]],
    requests: list[PlacementRequest],
) -> None:
    """Judge a placement's misconfiguration; where there is none, add its request."""
    context, policy, scope, available = each
    m = context.placement
    required = _required(policy, cel)
    context.misconfigured = _misconfigured(policy, required, available, traits, cel)
    if context.misconfigured is None:
        held = sorted({c for _, names in decisions.get((m.namespace, m.name), []) for c in names})
        requests.append(placement_request(m, policy, required, held, scope))


def _memberships(sets: Mapping[str, ClusterSet], live: list[ManagedCluster]) -> dict[str, frozenset[str]]:
    """By cluster, the traits of the sets it is a member of (ClusterSet.contains): an exclusive
    set's members found by their clusterset label, each other set asked."""
    exclusive = {s.name: s.trait for s in sets.values() if s.exclusive}
    others = [(s, _asked_once_per_labels(s)) for s in sets.values() if not s.exclusive]
    out = {}
    for c in live:
        traits = [s.trait for s, contains in others if contains(c)]
        label = c.labels.get(n.CLUSTERSET_LABEL)
        if label in exclusive:
            traits.append(exclusive[label])
        out[c.name] = frozenset(traits)
    return out


def _policies(manifests: Iterable[Manifest]) -> dict[str, tuple[Manifest, Policy]]:
    """By namespace/name, every Placement upstream schedules (neither deleting nor disabled)
    with its policy."""
    policies: dict[str, tuple[Manifest, Policy]] = {}
    for m in manifests:
        f = Fields(m)
        if not m.namespace:
            raise f.fail("a Placement is namespaced", "metadata.namespace")
        if m.obj.get("spec") is None:  # the CRD requires it, {} at least
            raise f.fail("required", "spec")
        metadata = m.obj["metadata"]
        annotations = f.string_map(metadata.get("annotations"), "metadata.annotations")
        if metadata.get("deletionTimestamp") is not None or annotations.get(n.DISABLE_ANNOTATION) == "true":
            continue  # upstream leaves it alone: no decisions, no status
        _check_status(f, f.mapping(m.obj.get("status"), "status"))
        _check_decision_label(f, m.name)
        policies[f"{m.namespace}/{m.name}"] = (m, read_policy(f, m.obj.get("spec")))
    return policies


def _check_decision_label(f: Fields, name: str) -> None:
    """The Placement's name as its PlacementDecisions' placement label, a label value: upstream
    labels them with it and lists them by it (ocm pkg/placement/controllers/scheduling/
    scheduling_controller.go, generateDecision and bind), so a name over 63 characters, which
    neither the CRD nor a webhook refuses, fails every sync before its status is written (the
    API server refuses the create, labels.NewRequirement the selector): bad input, as a set
    upstream cannot list is."""
    if errors := label_value_errors(name):
        label = f"upstream labels its PlacementDecisions {n.PLACEMENT_LABEL}=<name>"
        raise f.fail(f"{'; '.join(errors)} ({label})", "metadata.name")


def _cel_sources(policies: Mapping[str, tuple[Manifest, Policy]]) -> list[str]:
    """The distinct CEL expressions of the placements' predicates, sorted (as _cel_matches
    evaluates them)."""
    return sorted({src for _, p in policies.values() for pred in p.predicates for src in pred.cel})


def _check_status(f: Fields, status: Mapping[str, Any]) -> None:
    """The Placement status emit keeps from, as the CRD bounds it."""
    if status.get("numberOfSelectedClusters") is not None:
        f.integer(status["numberOfSelectedClusters"], "status.numberOfSelectedClusters", maximum=INT32)
    for path, raw in f.objects(status.get("decisionGroups"), "status.decisionGroups"):
        for key in ("decisionGroupIndex", "clusterCount"):
            if raw.get(key) is not None:
                f.integer(raw[key], f"{path}.{key}", maximum=INT32)
    conditions(f, status)


def placement_request(
    m: Manifest,
    policy: Policy,
    required: tuple[ClusterTerm, ...] | None,
    held: Sequence[str],
    scope: tuple[str, ...],
) -> PlacementRequest:
    """A Placement's request: its policy over the clusters of `scope`, holding `held` (the
    clusters its decisions list, none of them current: OCM is not sticky but by Steady). The
    loader and the live model make it alike."""
    return PlacementRequest(
        name=m.name,
        namespace=m.namespace,
        mode=SelectionMode.ALL if policy.count is None else SelectionMode.N,
        count=policy.count or 0,
        required=required or (),
        preferences=policy.preferences,
        spread=policy.spread,
        tolerations=policy.tolerations,
        existing=tuple(ExistingDecision(c, current=False) for c in held),
        scope=scope,
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def _required(policy: Policy, cel: Mapping[str, CelOutcome]) -> tuple[ClusterTerm, ...] | None:
    """One term per predicate; None when upstream cannot build them (see _misconfigured)."""
    terms = []
    for predicate in policy.predicates:
        if predicate.error is not None:
            return None
        ids = tuple(dict.fromkeys(cel_trait(src) for src in predicate.cel))
        if any(cel[t].error is not None for t in ids):
            return None
        terms.append(ClusterTerm(labels=predicate.labels, claims=predicate.claims, traits=ids))
    return tuple(terms)


def _misconfigured(
    policy: Policy,
    required: tuple[ClusterTerm, ...] | None,
    available: Sequence[ManagedCluster],
    traits: Mapping[str, frozenset[str]],
    cel: Mapping[str, CelOutcome],
) -> str | None:
    """Upstream's Misconfigured status of the scheduling stage, "<plugin>:<message>", or None.
    Its filters check their configuration only when they have clusters to filter."""
    if available and required is None:
        return f"{n.PREDICATE}:{_predicate_error(policy, cel)}"
    if policy.toleration_error is not None:
        passed = any(
            not required or any(t.matches(c.labels, {}, c.claims, traits[c.name]) for t in required)
            for c in available
        )
        if passed:
            return f"{n.TAINT_TOLERATION}:{policy.toleration_error}"
    if policy.prioritizer_error is not None:
        return f"{n.NO_PLUGIN}:{policy.prioritizer_error}"
    return None


def _predicate_error(policy: Policy, cel: Mapping[str, CelOutcome]) -> str:
    """The first complaint upstream's Predicate filter makes, predicate by predicate."""
    for predicate in policy.predicates:
        if predicate.error is not None:
            return predicate.error
        for src in predicate.cel:
            error = cel[cel_trait(src)].error
            if error is not None:
                return n.CEL_COMPILE.format(error)
    raise AssertionError("no predicate error")


@dataclass(frozen=True, slots=True)
class CelOutcome:
    """One distinct CEL expression: the clusters satisfying it, or why it does not compile."""

    matched: frozenset[str] | None = None
    error: str | None = None


def _cel_matches(
    sources: Iterable[str], live: list[ManagedCluster], scores: Mapping[str, Mapping[str, list]]
) -> dict[str, CelOutcome]:
    """By trait, each distinct expression compiled once and evaluated once over every live
    cluster."""
    out, traits, flags = _cel_verdicts(sources, live, scores, None)
    names = [c.name for c in live]
    n = len(live)
    for k, trait in enumerate(traits):
        out[trait] = CelOutcome(frozenset(compress(names, flags[k * n : (k + 1) * n])))
    return out


def _cel_verdicts(
    sources: Iterable[str],
    live: list[ManagedCluster],
    scores: Mapping[str, Mapping[str, list]],
    flags: bytes | None,
) -> tuple[dict[str, CelOutcome], list[str], bytes]:
    """_cel_matches' outcomes of the expressions that do not compile, by trait; the traits of
    those that do, in order; and their flags, one byte per trait and live cluster (1: it
    matches), trait by trait: `flags` where given (the CEL child's, _cel_answer), else made."""
    sources = sorted(set(sources))
    if not sources:
        return {}, [], b""
    programs, errors = _compiled(sources)
    failed = {cel_trait(src): CelOutcome(error=error) for src, error in errors.items()}
    if flags is None:
        flags = _cel_flags(list(programs.values()), [c.obj for c in live], scores)
    return failed, [cel_trait(src) for src in programs], flags


@contextlib.contextmanager
def _scores_first(scored: tuple[Any, Any] | None, manifests: list[Manifest], now: datetime) -> Iterator[None]:
    """Where the scores were not read here (`scored` None: the CEL child reads them), an error
    of what is read meanwhile comes after the scores' own, if they have one (_scores raises
    it), as when they are read first."""
    try:
        yield
    except InputError:
        if scored is None:
            _scores(manifests, now)
        raise


def _cel_answer(
    beside: forked.Pending | None, sources: Iterable[str], live: list[ManagedCluster]
) -> tuple[dict[str, dict[str, int]], bytes] | None:
    """The CEL child's answer (_cel_early), waited for: the valid scores it read and the flags of
    the expressions that compile, where it is for these expressions and live clusters (_cel_key);
    else None (no child, bad input, another answer)."""
    answer = beside.result() if beside is not None else b""
    if not answer:
        return None
    programs, _ = _compiled(sorted(set(sources)))
    key = _cel_key(list(programs), [c.name for c in live])
    if answer[: len(key)] != key:
        return None
    size = int.from_bytes(answer[len(key) : len(key) + 8], "little")
    start = len(key) + 8
    return marshal.loads(answer[start : start + size]), answer[start + size :]


def _cel_traits_of(traits: list[str], flags: bytes, count: int) -> list[frozenset[str]]:
    """For each of `count` clusters, the traits of the expressions it matches (_cel_verdicts'
    flags): one frozenset for every cluster matching alike (a fleet shows few patterns)."""
    if not traits:
        return [frozenset()] * count
    known: dict[tuple[int, ...], frozenset[str]] = {}
    out = []
    for pattern in zip(*(flags[k * count : (k + 1) * count] for k in range(len(traits))), strict=True):
        found = known.get(pattern)
        if found is None:
            found = known[pattern] = frozenset(t for t, ok in zip(traits, pattern, strict=True) if ok)
        out.append(found)
    return out


def _compiled(sources: Iterable[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Each expression's program, and why each of the others does not compile."""
    from adapters.ocm import cel  # only inputs with CEL expressions need the CEL library

    programs: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for src in sources:
        try:
            programs[src] = cel.compile_expression(src)
        except cel.CelCompileError as err:
            errors[src] = str(err)
    return programs, errors


def _cel_flags(programs: list[Any], clusters: list[Mapping[str, Any]], scores: Mapping[str, Any]) -> bytes:
    """One byte per program and cluster (1: it matches), program by program."""
    from adapters.ocm import cel

    # The lister's typed objects have no apiVersion or kind (client-go's decoder clears them), so
    # upstream's CEL variable, converted from them, has neither.
    objs = [{k: v for k, v in c.items() if k not in ("apiVersion", "kind")} for c in clusters]
    lists: dict[int, Any] = {}  # the scores() lists, shared by the expressions reading the same

    def scores_of(name: str) -> Mapping[str, Any]:
        return scores.get(name, {})

    return bytes(ok for program in programs for ok in cel.matching_clusters(program, objs, scores_of, lists))


def _cel_key(sources: list[str], names: list[str]) -> bytes:
    """What a CEL answer is for: the expressions compiled and the live clusters, in order."""
    return hashlib.sha256("\0".join([*sources, "", *names]).encode("utf-8", "surrogatepass")).digest()


def _cel_beside(objects: Mapping[str, list[Manifest]], now: datetime) -> forked.Pending | None:
    """A forked child evaluating the placements' CEL expressions over the live clusters
    (_cel_early), while this process reads the rest (it takes about as long): None where they
    are a few milliseconds' work, or no child may fork. The expressions are read loosely here;
    the child's answer is taken only where it is for the expressions and clusters this process
    reads (_cel_key)."""
    if forked.workers() < 2:
        return None
    sources = _raw_cel_sources(objects[n.PLACEMENT])
    if not sources or len(sources) * len(objects[n.MANAGED_CLUSTER]) < _CEL_SPLIT:
        return None
    from adapters.ocm import cel  # noqa: F401 - imported once, for this process and the child

    return forked.background(_cel_early, (objects, now, sources))


def _cel_early(item: tuple[Mapping[str, list[Manifest]], datetime, list[str]]) -> bytes:
    """_cel_key, the valid scores as load reads them (_scores; marshal's, after their length)
    and the flags of the expressions over the live clusters (their score lists as load reads
    them); nothing on bad scores (load's reading raises their error)."""
    objects, now, sources = item
    try:
        valid, scores = _scores(objects[n.SCORE], now)
    except InputError:
        return b""
    packed = marshal.dumps(valid)
    live = [m for m in objects[n.MANAGED_CLUSTER] if m.obj["metadata"].get("deletionTimestamp") is None]
    programs, _ = _compiled(sources)
    key = _cel_key(list(programs), [m.name for m in live])
    flags = _cel_flags(list(programs.values()), [m.obj for m in live], scores)
    return b"".join((key, len(packed).to_bytes(8, "little"), packed, flags))


def _raw_cel_sources(placements: Iterable[Manifest]) -> list[str]:
    """The distinct CEL expressions of the placements upstream schedules, sorted, read loosely:
    on input load accepts, _cel_sources' (a child's answer for others is not taken)."""
    sources: set[str] = set()
    for m in placements:
        metadata, spec = m.obj["metadata"], m.obj.get("spec")
        annotations = metadata.get("annotations")
        disabled = type(annotations) is dict and annotations.get(n.DISABLE_ANNOTATION) == "true"
        if metadata.get("deletionTimestamp") is not None or disabled:
            continue
        predicates = spec.get("predicates") if type(spec) is dict else None
        for predicate in predicates if type(predicates) is list else ():
            selector = predicate.get("requiredClusterSelector") if type(predicate) is dict else None
            cel = selector.get("celSelector") if type(selector) is dict else None
            expressions = cel.get("celExpressions") if type(cel) is dict else None
            if type(expressions) is list:
                sources.update(e for e in expressions if type(e) is str)
    return sorted(sources)


# From this many evaluations (programs x clusters: a few milliseconds' work) they are made in a
# forked child while this process reads the rest.
_CEL_SPLIT = 20_000


def _asked_once_per_labels(s: ClusterSet) -> Callable[[ManagedCluster], bool]:
    """s.contains for a set that picks its members by a label selector, asked once per distinct
    set of values of the labels the selector reads (a fleet has few; every cluster's own labels
    differ by its name, which no selector here reads)."""
    if s.selector is None:
        return s.contains
    keys = tuple(sorted({r.key for r in s.selector.requirements()}))
    known: dict[tuple[str | None, ...], bool] = {}

    def contains(c: ManagedCluster) -> bool:
        labels = c.labels
        seen = tuple([labels.get(key) for key in keys])  # label values are strings: None is absent
        verdict = known.get(seen)
        if verdict is None:
            verdict = known[seen] = s.contains(c)
        return verdict

    return contains


def _scores(
    manifests: Iterable[Manifest], now: datetime
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, list[dict[str, Any]]]]]:
    """By cluster: the valid scores as `addon/<resource>/<score>` -> value (validUntil nil or not
    before `now`; the last of a duplicated name wins), and every object's score list by resource
    name for CEL's scores(), which ignores validUntil."""
    valid: dict[str, dict[str, int]] = {}
    every: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for m in manifests:
        f = Fields(m)
        if not m.namespace:
            raise f.fail("an AddOnPlacementScore lives in its cluster's namespace", "metadata.namespace")
        status = f.mapping(m.obj.get("status"), "status")
        conditions(f, status)
        items = _plain_scores(status.get("scores"))
        if items is None:
            items = []
            for path, raw in f.objects(status.get("scores"), "status.scores"):
                f.required(raw, path, ("name", "value"))
                name = f.string(raw["name"], f"{path}.name")
                value = f.integer(raw["value"], f"{path}.value", minimum=-n.MAX_SCORE, maximum=n.MAX_SCORE)
                items.append({"name": name, "value": value})
        every.setdefault(m.namespace, {})[m.name] = items
        until = parse_time(f, status.get("validUntil"), "status.validUntil")
        if until != ZERO_TIME and now > until:
            continue  # expired: as if missing
        target = valid.setdefault(m.namespace, {})
        for item in items:
            target[n.ADDON_SCORE.format(m.name, item["name"])] = item["value"]
    return valid, every


def _plain_scores(raw: Any) -> list[dict[str, Any]] | None:
    """The score items as _scores' checks give them, where every item is an object with a string
    name and an integer value within the CRD's bounds (as a hub's are), read without spelling a
    path per item; None otherwise (the checks then spell out the first problem)."""
    if type(raw) is not list:
        return None if raw is not None else []
    items = []
    for item in raw:
        if type(item) is not dict:
            return None
        name, value = item.get("name"), item.get("value")
        if type(name) is not str or type(value) is not int or not -n.MAX_SCORE <= value <= n.MAX_SCORE:
            return None
        items.append({"name": name, "value": value})
    return items


def _decisions(manifests: Iterable[Manifest]) -> dict[tuple[str, str], list[tuple[Manifest, list[str]]]]:
    """PlacementDecisions by (namespace, placement label), each with its cluster names."""
    out: dict[tuple[str, str], list[tuple[Manifest, list[str]]]] = {}
    for m in manifests:
        f = Fields(m)
        metadata = m.obj["metadata"]
        labels = f.labels(metadata.get("labels"), "metadata.labels")
        status = f.mapping(m.obj.get("status"), "status")
        if m.obj.get("status") is not None and status.get("decisions") is None:  # the CRD's: [] at least
            raise f.fail("required", "status.decisions")
        names = []
        for path, raw in f.objects(status.get("decisions"), "status.decisions"):
            f.required(raw, path, ("clusterName", "reason"))
            name = f.string(raw["clusterName"], f"{path}.clusterName")
            f.string(raw["reason"], f"{path}.reason")
            if raw.get("score") is not None:
                f.integer(raw["score"], f"{path}.score")
            names.append(name)
        out.setdefault((m.namespace, labels.get(n.PLACEMENT_LABEL, "")), []).append((m, names))
    return out
