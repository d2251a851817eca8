"""An independent checker: re-verifies any Result against its Batch's hard constraints.

Solver-free and deliberately plain: it uses the model's pure-Python matching rules, not the
vectorised table the solver filters with, so the two implementations check each other.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from model import (
    Batch,
    Cluster,
    ClusterTerm,
    Division,
    Failure,
    LabelSelector,
    PlacementRequest,
    Replicas,
    RequestResult,
    Result,
    SelectionMode,
    Toleration,
    first_untolerated,
)
from model.types import INT32_MAX

__all__ = ["check", "passes"]


class _Fleet:
    """The batch's clusters, with what several requests ask about them computed once."""

    def __init__(self, clusters: tuple[Cluster, ...], now: datetime | None) -> None:
        self.now = now
        self.clusters = clusters
        self.by_name = {c.name: c for c in clusters}
        self.eligible = [c for c in clusters if c.eligible]
        self.eligible_names = {c.name for c in self.eligible}
        self._passing: dict[tuple, set[str]] = {}
        self.verdicts = _Verdicts(now)
        self._domains: dict[tuple[str, bool], set[str]] = {}
        self._with_label: dict[str, dict[str, set[str]]] = {}  # by key, by value
        self._with_trait: dict[str, set[str]] = {}
        self._scoped: dict[tuple[str, ...], set[str]] = {}
        self._matching: dict[ClusterTerm, set[str]] = {}
        self._untolerated: dict[tuple[Toleration, ...], set[str]] = {}
        self._tainted: list[Cluster] | None = None  # the eligible clusters with a taint

    def passing(self, request: PlacementRequest, key: tuple) -> set[str]:
        """Names of every cluster passing the request's filters; shared by requests with equal
        filters (`key`, see _filters)."""
        shared = self._passing.get(key)
        if shared is None:
            shared = self._passing[key] = self._passing_new(request)
        held = {
            d.cluster
            for d in request.existing
            if d.cluster not in shared
            and d.cluster in self.by_name
            and passes(request, self.by_name[d.cluster], self.now, held=True)
        }
        return shared | held

    def _passing_new(self, request: PlacementRequest) -> set[str]:
        """Names of the clusters passing the request's filters for a request that holds none:
        passes' conjunction taken set by set, each set judged by the same rules once for every
        request asking it (the eligible clusters in scope, those a term matches, those with a
        taint the tolerations leave untolerated)."""
        names = self._in_scope(request.scope) if request.scope is not None else self.eligible_names
        if request.required:
            names = names & set().union(*(self._matched(term) for term in request.required))
        return names - self._untolerated_by(request.tolerations)

    def _in_scope(self, scope: tuple[str, ...]) -> set[str]:
        """Names of the eligible clusters with at least one of the traits of `scope`."""
        found = self._scoped.get(scope)
        if found is None:
            found = self._scoped[scope] = set().union(*(self._with(trait) for trait in scope))
        return found

    def _with(self, trait: str) -> set[str]:
        """Names of the eligible clusters with the trait."""
        found = self._with_trait.get(trait)
        if found is None:
            found = self._with_trait[trait] = {c.name for c in self.eligible if trait in c.traits}
        return found

    def _matched(self, term: ClusterTerm) -> set[str]:
        """Names of the eligible clusters the term matches: only those carrying every pair of its
        matchLabels and every trait it names can (ClusterTerm.matches), so only those are judged;
        a term asking nothing else matches each of them."""
        found = self._matching.get(term)
        if found is None:
            pairs = term.labels.match_labels if term.labels is not None else ()
            if pairs or term.traits:
                names = set.intersection(
                    *(self._labelled(pair) for pair in pairs), *(self._with(trait) for trait in term.traits)
                )
                if term == ClusterTerm(LabelSelector(pairs), traits=term.traits):
                    found = self._matching[term] = names  # each carries every pair and trait: all it asks
                    return found
                candidates = [self.by_name[name] for name in names]
            else:
                candidates = self.eligible
            found = self._matching[term] = {
                c.name for c in candidates if term.matches(c.labels, c.properties, c.claims, c.traits)
            }
        return found

    def _untolerated_by(self, tolerations: tuple[Toleration, ...]) -> set[str]:
        """Names of the eligible clusters with a taint the tolerations leave untolerated for a
        request that does not hold them (first_untolerated)."""
        found = self._untolerated.get(tolerations)
        if found is None:
            if self._tainted is None:
                self._tainted = [c for c in self.eligible if c.taints]
            found = self._untolerated[tolerations] = {
                c.name
                for c in self._tainted
                if first_untolerated(c.taints, tolerations, self.now, held=False) is not None
            }
        return found

    def _labelled(self, pair: tuple[str, str]) -> set[str]:
        """Names of the eligible clusters whose label pair[0] is pair[1]."""
        key, value = pair
        by_value = self._with_label.get(key)
        if by_value is None:
            by_value = self._with_label[key] = {}
            for c in self.eligible:
                found = c.labels.get(key)
                if found is not None:
                    by_value.setdefault(found, set()).add(c.name)
        return by_value.get(value, set())

    def domains(self, key: str, claims: bool) -> set[str]:
        """The values the clusters give `key` (among their claims, or labels)."""
        found = self._domains.get((key, claims))
        if found is None:
            maps = [c.claims for c in self.clusters] if claims else [c.labels for c in self.clusters]
            found = self._domains[(key, claims)] = {facts[key] for facts in maps if key in facts}
        return found


def _filters(request: PlacementRequest) -> tuple:
    """What a request's verdict on a cluster depends on besides the cluster (and held)."""
    return (request.required, request.tolerations, request.scope)


def _attributes(cluster: Cluster, claims: bool):
    return cluster.claims if claims else cluster.labels


def check(batch: Batch, result: Result) -> list[str]:
    """Every hard-constraint violation, as readable lines; empty when the result is sound."""
    fleet = _Fleet(batch.clusters, batch.now)
    keys = [r.key for r in batch.requests]  # each spelt once: a batch holds tens of thousands
    gots, extra = _aligned(keys, result)
    problems: list[str] = _check_tenancy(batch, keys, gots, fleet)
    for request, key, got in zip(batch.requests, keys, gots, strict=True):
        if request.tenancy is not None:
            continue
        if got is None:
            problems.append(f"{key}: no result")
            continue
        if request.replicas is not None:
            problems += [f"{key}: {p}" for p in _check_replicas(request, got, fleet)]
            continue
        problems += [f"{key}: {p}" for p in _check_request(request, got, fleet)]
    problems += [f"{key}: result for a request not in the batch" for key in extra]
    return problems


def _aligned(keys: list[str], result: Result) -> tuple[list[RequestResult | None], list[str]]:
    """Each request's result by its key (None: none; a key's last result, as a dict keeps it),
    and the keys of results for no request, sorted. The solvers give one result a request in the
    batch's order: where the keys say so, and are distinct, they are matched by position."""
    given = result.requests
    if len(given) == len(keys) and [g.request for g in given] == keys and len(set(keys)) == len(keys):
        return list(given), []
    by_key = result.by_request()
    return [by_key.get(key) for key in keys], sorted(set(by_key).difference(keys))


def passes(request: PlacementRequest, cluster: Cluster, now: datetime | None, *, held: bool) -> bool:
    """Whether the cluster passes the request's filters; `held`: the request holds it (taints
    that keep out only newcomers then do not apply)."""
    if not cluster.eligible:
        return False
    if request.scope is not None and cluster.traits.isdisjoint(request.scope):
        return False
    if request.required and not any(
        t.matches(cluster.labels, cluster.properties, cluster.claims, cluster.traits)
        for t in request.required
    ):
        return False
    return first_untolerated(cluster.taints, request.tolerations, now, held=held) is None


def _check_request(request: PlacementRequest, got: RequestResult, fleet: _Fleet) -> list[str]:
    clusters = fleet.by_name
    filters = _filters(request)
    # An all-clusters request's passing set first: its selected clusters are then judged from it
    # (the set holds the held clusters that pass for their holder too).
    passing = fleet.passing(request, filters) if request.mode is SelectionMode.ALL else set()
    verdicts = fleet.verdicts.of(request)
    problems: list[str] = []
    names = [c.cluster for c in got.selected]
    for name, n in Counter(names).items():
        if n > 1:
            problems.append(f"cluster {name} selected {n} times")
    selected = set(names)
    existing = {d.cluster: d for d in request.existing}
    live_current = {
        d.cluster
        for d in request.existing
        if d.current and d.cluster in clusters and not clusters[d.cluster].leaving
    }

    for name in sorted(set(got.released)):
        if name not in existing:
            problems.append(f"released {name}, which the request did not hold")
        if name in selected:
            problems.append(f"{name} both selected and released")
    for name in sorted(set(existing) - selected - set(got.released)):
        problems.append(f"existing decision on {name} neither kept nor released")

    for choice in got.selected:
        cluster = clusters.get(choice.cluster)
        if cluster is None:
            problems.append(f"selected {choice.cluster}, which does not exist")
            continue
        if choice.cluster in live_current:
            continue  # kept: never re-evaluated
        if cluster.leaving:
            problems.append(f"selected leaving cluster {cluster.name}")
        if request.mode is SelectionMode.FIXED:
            if cluster.name not in request.cluster_names or not cluster.eligible:
                problems.append(f"selected {cluster.name}, which is not a valid named cluster")
        elif cluster.name not in passing:
            held = choice.cluster in existing
            verdict = verdicts.get((cluster.name, held))
            if verdict is None:
                verdict = verdicts[(cluster.name, held)] = passes(request, cluster, fleet.now, held=held)
            if not verdict:
                problems.append(f"selected {cluster.name}, which fails the request's filters")

    dropped_current = live_current - selected
    if request.mode is SelectionMode.N:
        surplus = max(0, len(live_current) - request.count)
        if len(dropped_current) > surplus:
            problems.append(f"dropped {len(dropped_current)} current decisions, only {surplus} surplus")
        if len(selected) > max(request.count, len(live_current)):
            problems.append(f"selected {len(selected)} clusters for a request of {request.count}")
        if got.satisfied != (len(selected) >= request.count):
            problems.append("satisfied flag disagrees with the count")
        if selected - live_current:
            problems += _check_spread(request, selected, live_current, fleet)
    else:
        if dropped_current:
            problems.append(f"dropped current decisions {sorted(dropped_current)}")
    if request.mode is SelectionMode.ALL:
        missing = sorted(passing - selected)
        if missing:
            problems.append(f"{len(missing)} passing clusters not selected, e.g. {missing[0]}")
        if not got.satisfied:
            problems.append("an all-clusters request is always satisfied")
    if request.mode is SelectionMode.FIXED:
        valid = all(n in clusters and clusters[n].eligible for n in request.cluster_names)
        if got.satisfied != valid:
            problems.append("satisfied flag disagrees with the named clusters' validity")
    return problems


class _Verdicts:
    """passes' verdicts, each judged once per filters (the request's required terms, tolerations
    and scope), cluster and held or not. Filters are found by their objects' identity first (the
    adapters give the requests of one placement rule the same objects: no hashing of their
    contents per request), then by value, so equal filters in other objects share them too."""

    def __init__(self, now: datetime | None) -> None:
        self.now = now
        self._by_identity: dict[tuple[int, int, int], dict[tuple[str, bool], bool]] = {}
        self._by_value: dict[tuple, dict[tuple[str, bool], bool]] = {}

    def of(self, request: PlacementRequest) -> dict[tuple[str, bool], bool]:
        """The verdicts of the request's filters, by (cluster name, held)."""
        identity = (id(request.required), id(request.tolerations), id(request.scope))
        verdicts = self._by_identity.get(identity)
        if verdicts is None:
            verdicts = self._by_identity[identity] = self._by_value.setdefault(_filters(request), {})
        return verdicts

    def __call__(self, request: PlacementRequest, cluster: Cluster, *, held: bool) -> bool:
        verdicts = self.of(request)
        verdict = verdicts.get((cluster.name, held))
        if verdict is None:
            verdict = verdicts[(cluster.name, held)] = passes(request, cluster, self.now, held=held)
        return verdict


# A tenancy limit of 0 admits any number: sorted after every limit.
_UNLIMITED = float("inf")


def _check_tenancy(
    batch: Batch, keys: list[str], gots: list[RequestResult | None], fleet: _Fleet
) -> list[str]:
    """Tenancy requests: one cluster each; a held cluster is kept unless the request is movable
    and the hold no longer passes its filters (then it is released); existing clusters pass the
    filters and admit their new requests one at a time, each while fewer than its limit are
    taken (checked in the order that admits them if any does: smallest limits first); new
    clusters come from the request's pool, are named after a request on them that may open one, and hold
    no more than the limit (one, when exclusive). One pass over the requests in the batch's
    order; each request's problems are reported in its queue order (then key)."""
    clusters = fleet.by_name
    passing = fleet.verdicts
    count = dict(zip((c.name for c in batch.clusters), batch.cluster_loads(), strict=True))
    tagged: list[tuple[int, str, str]] = []  # (queue order, key, problem)
    # Per cluster, the requests it admits: (limit, order, key, batch index, demand) sorts them in
    # the order that admits them, ties as the batch gives them.
    joined: dict[str, list[tuple[float, int, str, int, int]]] = {}
    on_new: dict[str, list[tuple[float, int, str, int, int]]] = {}
    created: dict[str, list[PlacementRequest]] = {}
    for index, (r, key, got) in enumerate(zip(batch.requests, keys, gots, strict=True)):
        tenancy = r.tenancy
        if tenancy is None:
            continue
        order = tenancy.order
        if got is None:
            tagged.append((order, key, f"{key}: no result"))
            continue
        selected = got.selected
        if r.existing:
            hold = r.existing[0]
            held = clusters.get(hold.cluster)
            # A hold counts where it stays: valid, or kept because the request may not move.
            stays = not tenancy.movable or (
                hold.current and held is not None and not held.leaving and passing(r, held, held=True)
            )
            if held is not None and stays:
                count[held.name] += tenancy.demand
        if len(selected) > 1:
            tagged.append((order, key, f"{key}: {len(selected)} clusters for one tenancy slot"))
            continue
        if got.satisfied != bool(selected):
            tagged.append((order, key, f"{key}: satisfied flag disagrees with the placement"))
        if r.existing:
            on_hold = len(selected) == 1 and selected[0].cluster == hold.cluster
            if stays:
                if not on_hold:
                    names = [c.cluster for c in selected]
                    tagged.append((order, key, f"{key}: holds {hold.cluster}, moved to {names} unforced"))
                continue
            # a movable hold no longer valid: given up, placed anew
            if tuple(got.released) != (hold.cluster,):
                tagged.append((order, key, f"{key}: {hold.cluster} no longer valid, yet not released"))
            if on_hold:
                tagged.append((order, key, f"{key}: kept {hold.cluster}, which it may no longer hold"))
                continue
        if not selected:
            if tenancy.pool is not None:
                tagged.append((order, key, f"{key}: left without a cluster although its pool can create one"))
            continue
        choice = selected[0]
        admitted = (tenancy.limit or _UNLIMITED, order, key, index, tenancy.demand)
        if choice.created:
            if tenancy.pool is None and not tenancy.joins:
                problem = f"{key}: on new cluster {choice.cluster} without a pool to create or join"
                tagged.append((order, key, problem))
            on_new.setdefault(choice.cluster, []).append(admitted)
            created.setdefault(choice.cluster, []).append(r)
            continue
        cluster = clusters.get(choice.cluster)
        if cluster is None:
            tagged.append((order, key, f"{key}: selected {choice.cluster}, which does not exist"))
            continue
        if tenancy.exclusive:
            tagged.append((order, key, f"{key}: exclusive, yet placed on existing cluster {cluster.name}"))
        if cluster.leaving or not passing(r, cluster, held=False):
            tagged.append((order, key, f"{key}: selected {cluster.name}, which fails the request's filters"))
        joined.setdefault(cluster.name, []).append(admitted)
    tagged.sort(key=lambda t: t[:2])  # stable: a request's own problems in the order found
    problems = [problem for *_, problem in tagged]
    for name, members in sorted(joined.items()):
        problems += _over_limit(members, count[name], f"joined {name}")
    for name, members in sorted(on_new.items()):
        problems += _new_cluster(name, created[name], members)
    return problems


def _over_limit(members: list[tuple[float, int, str, int, int]], taken: int, joined: str) -> list[str]:
    """The requests a cluster holding `taken` slots cannot admit, in the order that admits them
    if any does (smallest limits first). None where no member's limit is below their total."""
    total = taken + sum(m[4] for m in members)
    if all(limit >= total for limit, *_ in members):
        return []
    problems = []
    for limit, _, key, _, demand in sorted(members):
        if taken + demand > limit:
            problems.append(f"{key}: {joined} with {taken} of {limit} slots taken")
        taken += demand
    return problems


def _new_cluster(name: str, requests: list[PlacementRequest], members: list[tuple]) -> list[str]:
    """A new cluster's problems: named after one of its requests that may open one, every
    request of that one's pool or joining it, exclusive alone, within each request's limit."""
    first = sorted(range(len(requests)), key=lambda i: members[i][1:4])  # queue order, then key
    namers = [requests[i] for i in first if requests[i].tenancy.new_cluster == name]
    namers = [m for m in namers if m.tenancy.pool is not None]
    if not namers:
        return [f"new cluster {name} is named after none of its requests"]
    pool = namers[0].tenancy.pool
    problems = [
        f"{requests[i].key}: on new cluster {name} of pool {pool}, which it may not join"
        for i in first
        if requests[i].tenancy.pool != pool and pool not in requests[i].tenancy.joins
    ]
    if any(m.tenancy.exclusive for m in requests) and len(requests) > 1:
        problems.append(f"exclusive new cluster {name} holds {len(requests)} requests")
    return problems + _over_limit(members, 0, f"joined new cluster {name}")


def _skew(key: str, claims: bool, members: list[Cluster], fleet: _Fleet) -> int:
    domains = fleet.domains(key, claims)
    if not domains:
        return 0
    counts = Counter(_attributes(c, claims)[key] for c in members if key in _attributes(c, claims))
    values = [counts.get(d, 0) for d in domains]
    return max(values) - min(values)


def _check_spread(request: PlacementRequest, selected: set[str], kept: set[str], fleet: _Fleet) -> list[str]:
    problems = []
    final = [fleet.by_name[n] for n in sorted(selected) if n in fleet.by_name]
    before = [fleet.by_name[n] for n in sorted(kept) if n in fleet.by_name]
    for constraint in request.spread:
        if not constraint.hard:
            continue
        skew = _skew(constraint.topology_key, constraint.claims, final, fleet)
        allowed = max(constraint.max_skew, _skew(constraint.topology_key, constraint.claims, before, fleet))
        if skew > allowed:
            problems.append(f"skew {skew} over {constraint.topology_key} exceeds {allowed}")
    return problems


def _passes_replicas(request: PlacementRequest, cluster: Cluster, tier: int, held: bool, now) -> bool:
    """The hard filters of a request with replicas under its tier `tier` (solver.replicas.order,
    in plain words): not leaving, the needed trait (unless held), taints (held: new-only ones
    exempt), the required terms, the tier's term or (with replicas to fit) an overflow term, every
    group claim, not being moved off it."""
    replicas = request.replicas
    facts = (cluster.labels, cluster.properties, cluster.claims, cluster.traits)
    if not cluster.eligible or cluster.leaving:
        return False
    if replicas.needs and not held and replicas.needs not in cluster.traits:
        return False
    if first_untolerated(cluster.taints, request.tolerations, now, held=held) is not None:
        return False
    if request.required and not any(t.matches(*facts) for t in request.required):
        return False
    if replicas.tiers:
        chosen = replicas.tiers[tier]
        terms = (chosen.term,) if replicas.unlimited else (chosen.term, *chosen.overflow)
        if not any(t.matches(*facts) for t in terms):
            return False
    if any(g.claim and g.claim not in cluster.claims for g in replicas.groups):
        return False
    return cluster.name not in replicas.evicted


def _check_replicas(request: PlacementRequest, got: RequestResult, fleet: _Fleet) -> list[str]:
    """A request dividing replicas: an answer runs the count as its division says (each cluster
    the count when duplicated, the count in all when divided, no number when every cluster) on
    clusters that pass its filters, within its group spreads' maxima (and minima where nothing is
    divided), under a tier at or after the one it resumes at; a failure selects nothing (no
    cluster passed) or leaves the current assignment as it was. Capacity is not checked: upstream
    over-commits."""
    replicas = request.replicas
    names = [c.cluster for c in got.selected]
    problems = [f"cluster {name} selected {n} times" for name, n in Counter(names).items() if n > 1]
    if got.failure is not None:
        return problems + _check_replica_failure(request, got)
    if not got.satisfied:
        problems.append("an answer is satisfied")
    held = {name for name, _ in replicas.current} | {d.cluster for d in request.existing}
    tier = 0
    if replicas.tiers:
        tiers = [t.name for t in replicas.tiers]
        start = 0 if replicas.fresh else replicas.tier
        if got.tier not in tiers[start:]:
            return problems + [f"tier {got.tier!r} is not one of {tiers[start:]}"]
        tier = tiers.index(got.tier, start)
    for choice in got.selected:
        cluster = fleet.by_name.get(choice.cluster)
        if cluster is None:
            problems.append(f"selected {choice.cluster}, which does not exist")
        elif not _passes_replicas(request, cluster, tier, choice.cluster in held, fleet.now):
            problems.append(f"selected {choice.cluster}, which fails the request's filters")
    counts = [c.replicas for c in got.selected]
    if replicas.division is Division.EVERY:
        if any(n is not None for n in counts):
            problems.append("replicas given to a request that has none to count")
    elif any(n is None or n <= 0 for n in counts):
        problems.append(f"replicas {counts} are not all positive")
    elif replicas.division is Division.DUPLICATED:
        if any(n != replicas.count for n in counts):
            problems.append(f"duplicated replicas {counts}, not {replicas.count} on each")
    elif _sums_to_count(replicas) and sum(counts) != replicas.count:
        problems.append(f"{sum(counts)} replicas placed, not {replicas.count}")
    problems += _check_groups(request, got, fleet)
    released = set(got.released)
    if released != held - set(names):
        problems.append(f"released {sorted(released)}, not {sorted(held - set(names))}")
    return problems


def _sums_to_count(replicas: Replicas) -> bool:
    """Whether a division's answer holds exactly the count: not where the count or a current
    entry is negative, or the current entries overflow int32 (upstream keeps only entries above
    0 of its int32 arithmetic)."""
    held = [n for _, n in replicas.current]
    return replicas.count >= 0 and min(held, default=0) >= 0 and sum(held) <= INT32_MAX


def _check_groups(request: PlacementRequest, got: RequestResult, fleet: _Fleet) -> list[str]:
    replicas = request.replicas
    cluster_spread = next((g for g in replicas.groups if g.selects and not g.claim), None)
    group_spread = next((g for g in replicas.groups if g.selects and g.claim), None)
    chosen = [fleet.by_name[c.cluster] for c in got.selected if c.cluster in fleet.by_name]
    # nothing dropped after selection (a duplicated count of 0 drops every cluster)
    division = replicas.division
    whole = division is Division.EVERY or (division is Division.DUPLICATED and replicas.count > 0)
    problems = []
    if group_spread is not None:
        values = {c.claims.get(group_spread.claim) for c in chosen}
        if len(values) > group_spread.max_groups or (whole and len(values) < group_spread.min_groups):
            problems.append(f"{len(values)} groups of {group_spread.claim!r}, not within the spread")
        most = max(cluster_spread.max_groups if cluster_spread else 0, len(values))
        if len(chosen) > most:
            problems.append(f"{len(chosen)} clusters for at most {most}")
    elif cluster_spread is not None and (
        len(chosen) > cluster_spread.max_groups or (whole and len(chosen) < cluster_spread.min_groups)
    ):
        problems.append(f"{len(chosen)} clusters, not within the cluster spread")
    return problems


def _check_replica_failure(request: PlacementRequest, got: RequestResult) -> list[str]:
    problems = []
    if got.satisfied:
        problems.append("a failure is not satisfied")
    if got.failure is Failure.NO_FIT:
        if got.selected:
            problems.append("no cluster fits, yet clusters are selected")
        return problems
    every = request.replicas.division is Division.EVERY
    first: dict[str, int] = {}
    for name, n in request.replicas.current:
        first.setdefault(name, n)
    as_was = [(name, None if every else n) for name, n in first.items()]
    if [(c.cluster, c.replicas) for c in got.selected] != as_was or got.released:
        problems.append("a failure to select or fit changed the current assignment")
    return problems
