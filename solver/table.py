"""The cluster table: every cluster as one row of a polars frame, and vectorised filters and scores.

Selectors, property requirements and preference scores are compiled to polars expressions and
evaluated for all distinct policies of a batch in one `select`, so the cost of filtering grows
with the number of distinct policies, not with placements x clusters in Python.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from itertools import repeat
from typing import Any

import numpy as np
import polars as pl

from model import (
    Batch,
    Cluster,
    ClusterTerm,
    FilterKind,
    LabelOperator,
    LabelSelector,
    Loads,
    PlacementRequest,
    Preference,
    Toleration,
    vouched_base,
    vouched_move,
)
from solver.admits import (
    matches_terms,
    required_expression,
    scope_expression,
    selector_expression,
    takes_new,
    untolerated,
    within,
)

__all__ = ["ClusterTable", "is_static", "rule_masks"]


def is_static(pref: Preference) -> bool:
    """Scored once for the whole fleet: not relative to the request's candidates, its holdings or
    the other requests' answers."""
    return not (pref.held or pref.balance or (pref.sorter is not None and pref.sorter.centered))


_NANO = 10**9  # nano-units per unit, as Quantity.as_float divides them


def _lookup(mappings: list, key: str) -> list:
    """Each mapping's value for the key, None where it has none: by dict.get, without a Python
    call per cluster, where the mappings are dicts (as the adapters make them)."""
    if set(map(type, mappings)) <= {dict}:
        return list(map(dict.get, mappings, repeat(key)))
    return [m.get(key) for m in mappings]


def _strings(mappings: list, keys: frozenset[str], column: Callable[[str], str]) -> dict[str, pl.Series]:
    """A string column per key of the mappings (null where one lacks it), built in one go by
    polars; other keys are left out."""
    if not set(map(type, mappings)) <= {dict}:
        mappings = [dict(m) for m in mappings]
    frame = pl.from_dicts(mappings, schema={key: pl.String for key in sorted(keys)})
    return {column(key): frame.get_column(key) for key in sorted(keys)}


def _label_column(key: str) -> str:
    return f"l\x00{key}"


def _exact_column(name: str) -> str:
    return f"p\x00{name}"


def _float_column(name: str) -> str:
    return f"f\x00{name}"


def _claim_column(key: str) -> str:
    return f"c\x00{key}"


def _trait_column(trait: str) -> str:
    return f"t\x00{trait}"


def _score_column(name: str) -> str:
    return f"s\x00{name}"


@dataclass(frozen=True, slots=True)
class _Columns:
    labels: frozenset[str]
    properties: frozenset[str]
    claims: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()
    scores: frozenset[str] = frozenset()


class ClusterTable:
    """The batch's clusters as columns: labels, claims, traits, external scores, exact property
    values (nano-units, Int128) and their float64 approximations (for sorter interpolation), plus
    eligibility, outside load and name rank."""

    def __init__(self, batch: Batch) -> None:
        clusters = batch.clusters
        self.now = batch.now
        rows = _Rows.of(clusters)
        self.names: list[str] = rows.names
        self.index: dict[str, int] = rows.index
        self.size = len(clusters)
        # Eligibility as the admission rules have it (solver.admits): ineligible or leaving, nothing new.
        self.eligible = rows.eligible
        self.leaving = rows.leaving
        self.load = rows.load if batch.loads is None else _overlaid(rows.load, batch.loads)
        self.absent_load = dict(batch.absent_load)
        # Batch clusters are sorted by name, so the row index is the name rank.
        self.rank = np.arange(self.size, dtype=np.int64)
        self.tainted = rows.tainted
        self._clusters = clusters
        self._rows = rows
        self._columns = self._wanted_columns(batch)
        # The wanted columns made (and kept with the rows) now, as before; the frame over them
        # only where a polars pass or a generator reads it (`frame`).
        self._data = self._wanted_data(rows)
        self._frame: pl.DataFrame | None = None
        self._tolerance_cache: dict[tuple[Toleration, ...], np.ndarray] = {}
        self._domain_cache: dict[tuple[str, bool], tuple[np.ndarray, list[str], np.ndarray]] = {}
        self._index_cache: dict[tuple[str, bool], dict[str, int]] = {}
        self._derived: dict[tuple, Any] = {}

    # -- construction -------------------------------------------------------------------------

    @staticmethod
    def _wanted_columns(batch: Batch) -> _Columns:
        labels: set[str] = set()
        properties: set[str] = set()
        claims: set[str] = set()
        traits: set[str] = set()
        scores: set[str] = set()

        def selector_keys(selector: LabelSelector | None, into: set[str]) -> None:
            if selector is not None:
                into.update(r.key for r in selector.requirements())

        for request in batch.requests:
            for term in request.required:
                selector_keys(term.labels, labels)
                selector_keys(term.claims, claims)
                properties.update(p.name for p in term.properties)
                traits.update(term.traits)
            for pref in request.preferences:
                selector_keys(pref.labels, labels)
                if pref.sorter is not None:
                    properties.add(pref.sorter.name)
                if pref.external is not None:
                    scores.add(pref.external)
            for spread in request.spread:
                (claims if spread.claims else labels).add(spread.topology_key)
            traits.update(request.scope or ())
        return _Columns(
            frozenset(labels), frozenset(properties), frozenset(claims), frozenset(traits), frozenset(scores)
        )

    def _wanted_data(self, rows: _Rows) -> dict[str, pl.Series]:
        columns = self._columns
        return rows.columns(
            [_label_column(k) for k in sorted(columns.labels)]
            + [_claim_column(k) for k in sorted(columns.claims)]
            + [_trait_column(t) for t in sorted(columns.traits)]
            + [_score_column(name) for name in sorted(columns.scores)]
            + [f(name) for name in sorted(columns.properties) for f in (_exact_column, _float_column)]
        )

    @property
    def frame(self) -> pl.DataFrame:
        """The wanted columns as one frame, made when first read: a polars pass over them
        (`_evaluate_all`: a batch asking masks or scores no kept value holds) and the generators
        read it; most of a long-lived scheduler's batches ask none (every mask kept, external
        scores and traits read off their columns), and the frame was a third of a millisecond a
        batch. Its columns are the Series made when the table was (the same values as ever)."""
        frame = self._frame
        if frame is None:
            # No columns: still one row per cluster (polars rejects an empty dict with a height).
            frame = self._frame = pl.DataFrame(self._data or None, height=self.size)
        return frame

    # -- compiled expressions -----------------------------------------------------------------

    def _label(self, key: str, claims: bool = False) -> pl.Expr:
        if claims:
            return (
                pl.col(_claim_column(key)) if key in self._columns.claims else pl.lit(None, dtype=pl.String)
            )
        if key in self._columns.labels:
            return pl.col(_label_column(key))
        return pl.lit(None, dtype=pl.String)

    def _claim(self, key: str) -> pl.Expr:
        return self._label(key, claims=True)

    def _exact(self, name: str) -> pl.Expr:
        return pl.col(_exact_column(name))

    def _trait(self, trait: str) -> pl.Expr:
        return pl.col(_trait_column(trait))

    def _selector(self, selector: LabelSelector | None) -> pl.Expr:
        return selector_expression(selector, self._label)

    def _scope(self, scope: tuple[str, ...]) -> pl.Expr:
        return scope_expression(scope, self._trait)

    def _required(self, terms: tuple[ClusterTerm, ...]) -> pl.Expr:
        return required_expression(terms, self._label, self._claim, self._exact, self._trait)

    def _preference_score(self, pref: Preference) -> pl.Expr:
        if pref.external is not None:
            return (pl.col(_score_column(pref.external)) * pref.weight).cast(pl.Int64)
        if pref.sorter is None:
            value = pl.lit(pref.weight, dtype=pl.Float64)
        else:
            col = pl.col(_float_column(pref.sorter.name))
            low, high = col.min(), col.max()  # over every cluster, eligible or not
            ratio = (col - low) / (high - low)
            if pref.sorter.ascending:
                ratio = 1.0 - ratio
            interpolated = (ratio * pref.weight).round(0, mode="half_away_from_zero")
            value = pl.when(high == low).then(0.0).otherwise(interpolated).fill_null(0.0)
        return pl.when(self._selector(pref.labels)).then(value).otherwise(0.0).cast(pl.Int64)

    def _preferences(self, prefs: tuple[Preference, ...]) -> pl.Expr:
        scored = [self._preference_score(p) for p in prefs if p.weight != 0 and is_static(p)]
        if not scored:
            return pl.lit(0, dtype=pl.Int64)
        return pl.sum_horizontal(scored).cast(pl.Int64)

    # -- bulk evaluation ----------------------------------------------------------------------

    def _evaluate(self, keys: Iterable, compile_one, dtype) -> dict:
        return self._evaluate_all([(keys, compile_one, dtype)])[0]

    def _evaluate_all(self, groups: list[tuple[Iterable, Callable[[Any], pl.Expr], Any]]) -> list[dict]:
        """Per group (keys, how one compiles, dtype): each distinct key's value on every cluster,
        every group's expressions in one frame pass (a batch of one request still pays polars'
        fixed cost per pass over 10,000 rows)."""
        uniques = [sorted(set(keys), key=repr) for keys, _, _ in groups]
        if self.size == 0 or not any(uniques):
            return [
                {k: np.zeros(self.size, dtype=dtype) for k in unique}
                for unique, (_, _, dtype) in zip(uniques, groups, strict=True)
            ]
        # with_columns, not select: an expression made only of literals must still give one value per row.
        frame = self.frame.with_columns(
            [
                compile_one(k).alias(f"{g}:{i}")
                for g, (unique, (_, compile_one, _)) in enumerate(zip(uniques, groups, strict=True))
                for i, k in enumerate(unique)
            ]
        )
        return [
            {
                k: frame.get_column(f"{g}:{i}").to_numpy().astype(dtype, copy=False)
                for i, k in enumerate(unique)
            }
            for g, (unique, (_, _, dtype)) in enumerate(zip(uniques, groups, strict=True))
        ]

    def required_masks(self, term_sets: Iterable[tuple[ClusterTerm, ...]]) -> dict[tuple, np.ndarray]:
        """For each distinct non-empty tuple of ORed terms: which clusters match."""
        return self._evaluate((t for t in term_sets if t), self._required, bool)

    def affinity_scores(self, preference_sets: Iterable[tuple[Preference, ...]]) -> dict[tuple, np.ndarray]:
        """For each distinct non-empty tuple of preferences: every cluster's summed static score
        (the parts that depend on neither the request's candidates nor its holdings)."""
        return self._evaluate((p for p in preference_sets if p), self._preferences, np.int64)

    def scope_masks(self, scopes: Iterable[tuple[str, ...]]) -> dict[tuple, np.ndarray]:
        """For each distinct scope: which clusters carry one of its traits."""
        return self._evaluate(scopes, self._scope, bool)

    def batch_masks(
        self,
        term_sets: Iterable[tuple[ClusterTerm, ...]],
        preference_sets: Iterable[tuple[Preference, ...]],
        scopes: Iterable[tuple[str, ...]],
    ) -> tuple[dict[tuple, np.ndarray], dict[tuple, np.ndarray], dict[tuple, np.ndarray]]:
        """required_masks, affinity_scores and scope_masks at once, in one frame pass; where a
        batch has many distinct term sets, those without property requirements in numpy
        (:meth:`_coded_required`). The scores are read-only, shared by the sets of the same
        static preferences, and absent for a set with none (its scores are all 0)."""
        kept = self._rows.masks
        distinct = list(dict.fromkeys(t for t in term_sets if t))
        required = kept.known(_REQUIRED, distinct)
        missing = [t for t in distinct if t not in required]
        scopes = list(dict.fromkeys(scopes))
        scoped = kept.known(_SCOPE, scopes)
        coded = self._coded_required(missing) if len(missing) >= _CODED_FROM and self.size else {}
        # A set's scores are its static preferences' alone (`_preferences`): the sets with the
        # same static part share one column, those with none are left out (no score: zeros).
        # A live scheduler's batches hold dozens of sets that differ only in their held,
        # balance or centered preferences (249 sets over the first 50 events of one soak).
        statics: dict[tuple[Preference, ...], tuple[Preference, ...]] = {}
        for prefs in preference_sets:
            if prefs and prefs not in statics:
                statics[prefs] = tuple(p for p in prefs if p.weight != 0 and is_static(p))
        # Sets made of external scores alone in numpy (`_external_scores`): a live scheduler's
        # batches ask only those (external score prioritizers), each a polars expression otherwise.
        by_static = self._external_scores(s for s in statics.values() if s)
        made, by_polars, made_scopes = self._evaluate_all(
            [
                ((t for t in missing if t not in coded), self._required, bool),
                ((s for s in statics.values() if s and s not in by_static), self._preferences, np.int64),
                ((s for s in scopes if s not in scoped), self._scope, bool),
            ]
        )
        by_static.update(by_polars)
        scored = {prefs: _frozen(by_static[static]) for prefs, static in statics.items() if static}
        made.update(coded)
        kept.keep(_REQUIRED, made)
        kept.keep(_SCOPE, made_scopes)
        required.update(made)
        scoped.update(made_scopes)
        return required, scored, scoped

    def _external_scores(self, statics: Iterable[tuple[Preference, ...]]) -> dict[tuple, np.ndarray]:
        """`_preferences` of the static sets made of external scores alone, in numpy: each score
        column (Int64, 0 where a cluster has none: never null) times its weight, summed, in int64
        (polars' Int64 product and horizontal sum, which wrap as numpy's do; the weights are int32)."""
        out: dict[tuple, np.ndarray] = {}
        if not self.size:
            return out
        columns: dict[str, np.ndarray] = self.derived(("table", "external scores"), dict)
        for static in statics:
            if static in out or not all(p.external is not None for p in static):
                continue
            total = None
            for pref in static:
                column = columns.get(pref.external)
                if column is None:
                    column = columns[pref.external] = self._data[_score_column(pref.external)].to_numpy()
                    if column.dtype != np.int64:  # (never: the column is made Int64 without nulls)
                        return {}
                part = column * np.int64(pref.weight)
                total = part if total is None else np.add(total, part, out=total)
            out[static] = total
        return out

    def _coded_required(self, term_sets: list[tuple[ClusterTerm, ...]]) -> dict[tuple, np.ndarray]:
        """required_masks of the term sets whose terms read no property, in numpy over each key's
        domain slots (a value's code, 0 without the key; :meth:`domain_slots`, made once per key):
        a requirement is a table of its verdict per code, gathered. The same booleans as the polars
        expressions (solver.admits.required_expression), which are null-free: a missing label or
        claim is a value of its own, In and Exists refuse it, NotIn and DoesNotExist take it.
        Polars' cost per expression, not its pass, was most of a batch's masks (351 distinct sets
        at 10,000 x 2,000: 0.12 cpu s against 0.04)."""
        traits: dict[str, np.ndarray] = {}
        out: dict[tuple, np.ndarray] = {}
        for terms in term_sets:
            if any(term.properties for term in terms):
                continue
            matched = np.zeros(self.size, dtype=bool)
            for term in terms:
                passing = np.ones(self.size, dtype=bool)
                self._coded_selector(term.labels, False, passing)
                self._coded_selector(term.claims, True, passing)
                for trait in term.traits:
                    column = traits.get(trait)
                    if column is None:
                        column = traits[trait] = self._data[_trait_column(trait)].to_numpy()
                    passing &= column
                matched |= passing
            out[terms] = matched
        return out

    def _coded_selector(self, selector: LabelSelector | None, claims: bool, passing: np.ndarray) -> None:
        """passing &= whether each cluster's labels (claims) match the selector (None: all do)."""
        if selector is None:
            return
        for r in selector.requirements():
            slots = self.domain_slots(r.key, claims)
            if r.operator is LabelOperator.EXISTS:
                passing &= slots != 0
            elif r.operator is LabelOperator.DOES_NOT_EXIST:
                passing &= slots == 0
            else:
                domains = self._domain_index(r.key, claims)
                verdict = np.zeros(len(domains) + 1, dtype=bool)
                verdict[[domains[v] + 1 for v in r.values if v in domains]] = True
                if r.operator is LabelOperator.NOT_IN:
                    verdict = ~verdict
                passing &= verdict[slots]

    def _domain_index(self, key: str, claims: bool) -> dict[str, int]:
        """By value, a key's domain code (:meth:`domain_codes`)."""
        index = self._index_cache.get((key, claims))
        if index is None:
            domains = self.domain_codes(key, claims)[1]
            index = self._index_cache[(key, claims)] = {v: i for i, v in enumerate(domains)}
        return index

    def float_values(self, name: str) -> np.ndarray:
        """A property as float64 per cluster, NaN where a cluster lacks it; read-only, the very
        array of the batches before while the rows' column is the same (_Rows.float_values)."""
        return self._rows.float_values(name)

    def tolerated(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """Which clusters have no taint left untolerated (judged at the batch's time, for a request
        not holding them); cached per distinct toleration set."""
        mask = self._tolerance_cache.get(tolerations)
        if mask is None:
            if any(t.seconds is not None for t in tolerations):  # judged at the batch's time
                mask = self._tolerated_now(tolerations)
            else:  # the same at any time: kept with the rows, for the batches after this one
                mask = self._rows.tolerated(tolerations)
            self._tolerance_cache[tolerations] = mask
        return mask

    def _tolerated_now(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """`tolerated` for tolerations some of which hold for a while (seconds). A row the
        tolerations without seconds pass passes at any time; one that fails with every toleration
        held forever fails at any time; only the rows between are judged at the batch's time. Both
        verdicts are kept with the rows (the same at any time), so on rows a later batch kept
        (a live scheduler's: _Rows.patched) only those rows are judged; on rows made for this
        batch alone (a command's) every tainted row is judged once instead."""
        if not self._rows.patched:
            return _tolerated(self._clusters, self.tainted, tolerations, self.now)
        forever = self._rows.tolerated(tuple(t for t in tolerations if t.seconds is None))
        always = tuple(replace(t, seconds=None) for t in tolerations)
        ever = self._rows.tolerated(always)
        now = _micros(self.now)
        if now is not None:
            # Each row's end (_end): kept with the rows, the rows made again judged again.
            def replay(ends: np.ndarray | None, kept: np.ndarray | None, remade: list) -> np.ndarray | None:
                if ends is None:
                    return None
                ends = ends if kept is None else ends[kept]
                if remade:
                    made = [_end(cluster, tolerations, always) for _, cluster in remade]
                    if None in made:
                        return None
                    ends = ends.copy() if kept is None else ends
                    ends[[i for i, _ in remade]] = made
                return _frozen(ends)

            key = ("taints end", tolerations)
            ends = self.kept(key, replay)
            if ends is None:
                ends = _ends(self._clusters, self.tainted, tolerations, always)
                if ends is not None:
                    self.keep(key, ends)
            if ends is not None:
                return forever | (ever & (now < ends))
        mask = forever.copy()
        for row in np.flatnonzero(ever & ~forever).tolist():
            mask[row] = untolerated(self._clusters[row], tolerations, self.now) is None
        return mask

    @property
    def patched(self) -> bool:
        """Whether the rows were patched from an earlier batch's (a long-lived scheduler's batch
        after its first): only then is a value worth keeping for the batches after (`keep`)."""
        return self._rows.patched

    def kept(
        self,
        key: tuple,
        replay: Callable[[Any, np.ndarray | None, list], Any],
        now: Any = None,
        *,
        held: bool = False,
    ) -> Any:
        """A value of each row's cluster alone (and of `now` if given) an earlier batch of a long-lived
        scheduler kept with these rows (_Masks.value), or None. `held`: one of the values kept
        apart, per request (_MaskStore.held)."""
        return self._rows.masks.value(key, replay, now, held=held)

    def keep(self, key: tuple, value: Any, now: Any = None, *, held: bool = False) -> None:
        """Keep such a value with these rows for the batches after (_Masks.keep_value)."""
        self._rows.masks.keep_value(key, value, now, self.size, held=held)

    def tolerated_held(self, row: int, tolerations: tuple[Toleration, ...]) -> bool:
        """Whether a cluster the request already holds passes the taint filter."""
        return untolerated(self._clusters[row], tolerations, self.now, held=True) is None

    def domain_codes(self, key: str, claims: bool = False) -> tuple[np.ndarray, list[str]]:
        """The topology domain of every cluster for a label (or claim) key: codes 0..D-1, -1
        without it. Computed once per key; callers must not modify the arrays."""
        return self._coded(key, claims)[:2]

    def domain_slots(self, key: str, claims: bool = False) -> np.ndarray:
        """domain_codes plus one (0 without the key): an index into per-domain tables led by the
        value for clusters without the key. Computed once per key; read-only."""
        return self._coded(key, claims)[2]

    def _coded(self, key: str, claims: bool) -> tuple[np.ndarray, list[str], np.ndarray]:
        """A key's codes, domains and slots: the rows' (kept through patches: _Rows.codes), or
        every cluster without it where no cluster has the key."""
        cached = self._domain_cache.get((key, claims))
        if cached is None:
            known = self._columns.claims if claims else self._columns.labels
            if key in known:
                cached = self._rows.codes(_claim_column(key) if claims else _label_column(key))
            else:
                codes = np.full(self.size, -1, dtype=np.int64)
                cached = (codes, [], _frozen(codes + 1))
            self._domain_cache[(key, claims)] = cached
        return cached

    def derived(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A value computed once per table (from the clusters alone, or a cache of what the batch
        makes again and again): `key` names it, led by the module computing it."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    def by_name(self, key: tuple, compute: Callable[[], dict]) -> dict:
        """A dict kept with the rows (solver.table._Rows): made once, then shared by every table
        made of these rows or patched from them, so a long-lived scheduler's batches read what an
        earlier batch made. Its keys hold cluster names, never rows (a patch moves rows), and its
        values depend on those keys alone. Emptied when it grows past _BY_NAME_UP_TO entries (names
        come and go over a long-lived scheduler's life); rows made afresh start empty."""
        kept = self._rows.by_name
        found = kept.get(key)
        if found is None or len(found) > _BY_NAME_UP_TO:
            found = kept[key] = compute()
        return found

    def cluster(self, i: int):
        return self._clusters[i]

    def rows(self, names: Sequence[str]) -> np.ndarray:
        return np.fromiter((self.index[n] for n in names), dtype=np.int64, count=len(names))


# From this many distinct required term sets in one batch, those without properties are evaluated
# in numpy (ClusterTable._coded_required): below it, polars' one pass costs less than the domain
# codes of each key (a live scheduler's batches of one placement).
_CODED_FROM = 64
_REQUIRED, _SCOPE = "required", "scope"  # the kinds of mask _Rows.masks keeps
_MASKS_UP_TO = 4096  # masks _Masks keeps at 10,000 clusters (10 kB each); past it, none more
_VALUES_UP_TO = 512  # values _Masks keeps per kind at 10,000 clusters, the last asked (a verdict: 10-100 kB)
_HELD_UP_TO = 256  # values kept apart (_MaskStore.held): requests' decisions' rows, 40 kB each
_KEPT_ROWS = 10_000  # above this many rows, _Masks keeps proportionally fewer (_up_to): bounded bytes
_LOG_UP_TO = 64  # patches _Masks replays on a mask; one further behind is made again
_KEPT_FROM = 256  # clusters: below this a batch's rows are made afresh (explain's, the tests')
_PATCHED_UP_TO = 64  # clusters not kept (new or replaced) a kept table's rows are patched for
_BY_NAME_UP_TO = 1 << 19  # entries a dict of ClusterTable.by_name holds before it starts again
_NAME = operator.attrgetter("name")


class _Masks:
    """A kept table's required terms' and scopes' masks (solver.admits' rules 2 and 1 on every row),
    kept from batch to batch: a long-lived scheduler's batches ask the same few hundred term sets
    of the same clusters, each a polars expression (most of a small batch's prepare). A mask reads
    each row's cluster alone (labels, claims, properties, traits; never the load), so when the rows
    are patched (_Rows._patched) the masks move with them: one store per lineage of patched rows,
    a log of the patches (the kept rows gathered, the rows made again judged by the scalar rule,
    which the compiled expressions agree with), replayed on a mask when it is next asked (most
    are not asked for many patches: moved at every patch, 400 masks cost more than they saved).
    Only the lineage's newest rows read or keep masks; a mask more than _LOG_UP_TO patches behind
    is made again; at most _MASKS_UP_TO kept (fewer above _KEPT_ROWS rows). Read-only arrays,
    shared by the tables that ask."""

    __slots__ = ("_store", "_epoch")

    def __init__(self, store: _MaskStore | None = None, epoch: int = 0) -> None:
        self._store = _MaskStore() if store is None else store
        self._epoch = epoch

    def moved(self, kept: np.ndarray | None, remade: list[tuple[int, Cluster]]) -> _Masks:
        """The masks of rows patched from these (`kept`: each new row's old row, None where every
        row stays; `remade`: the rows made again, with their clusters)."""
        store = self._store
        if self._epoch != store.epoch:  # not the newest rows: a new store (never asked in practice)
            return _Masks()
        if kept is None and not remade:
            return self
        store.log.append((kept, remade))
        store.epoch += 1
        store.previous, store.composed, store.origin = store.composed, [], None
        if len(store.log) > _LOG_UP_TO:
            store.log.pop(0)
        return _Masks(store, store.epoch)

    def known(self, kind: str, keys: Iterable[tuple]) -> dict[tuple, np.ndarray]:
        """Of the keys, those whose mask is kept, with it moved to these rows."""
        store = self._store
        if self._epoch != store.epoch:
            return {}
        out = {}
        for key in keys:
            entry = store.masks.get((kind, key))
            if entry is None:
                continue
            mask, epoch = entry
            if epoch != store.epoch:
                mask = self._replayed(mask, epoch, partial(_moved_mask, _MASK_RULES[kind], key))
                if mask is None:
                    del store.masks[(kind, key)]
                    continue
                mask = _frozen(mask)
                store.masks[(kind, key)] = (mask, store.epoch)
            out[key] = mask
        return out

    def _replayed(self, item: Any, epoch: int, replay: Callable[[Any, Any, list], Any]) -> Any:
        """An item kept at `epoch` moved through the patches logged since (`replay` once, on
        those patches as one: `_MaskStore.since`), or None where it is further behind than the
        log holds."""
        store = self._store
        behind = store.epoch - epoch
        if behind > len(store.log):
            return None
        kept, remade = store.since(behind)
        return replay(item, kept, remade)

    def keep(self, kind: str, masks: dict[tuple, np.ndarray]) -> None:
        """Freeze a batch's masks in place (the dict's values), and keep them for these rows if they
        are their lineage's newest."""
        store = self._store
        newest = self._epoch == store.epoch
        for key, mask in masks.items():
            masks[key] = _frozen(mask)
            if newest and len(store.masks) < _up_to(_MASKS_UP_TO, len(mask)):
                store.masks[(kind, key)] = (masks[key], store.epoch)

    def value(
        self, key: tuple, replay: Callable[[Any, Any, list], Any], now: Any = None, *, held: bool = False
    ) -> Any:
        """A value kept for these rows' lineage under `key` (`now`: of values judged at that time
        alone; `held`: among the values kept apart), moved to these rows by `replay(value, kept,
        remade)` on the patches since it was kept, as one (as masks are); None where none is kept
        or it is too far behind."""
        store = self._store
        if self._epoch != store.epoch or (now is not None and now != store.now):
            return None
        values, _ = store.values_of(now, held)
        entry = values.get(key)
        if entry is None:
            return None
        value, epoch = entry
        if epoch != store.epoch:
            value = self._replayed(value, epoch, replay)
            if value is None:
                del values[key]
                return None
        del values[key]  # the newest asked last: the first kept is the one least recently asked
        values[key] = (value, store.epoch)
        return value

    def keep_value(
        self, key: tuple, value: Any, now: Any = None, rows: int = 0, *, held: bool = False
    ) -> None:
        """Keep a value (read-only, a function of each row's cluster alone and of `now` if given)
        for these rows (`rows` of them) if they are their lineage's newest: at most _VALUES_UP_TO
        without a time (fewer above _KEPT_ROWS rows), and those of one time (the last kept's)
        with one; `held` (without a time), at most _HELD_UP_TO apart from those."""
        store = self._store
        if self._epoch != store.epoch:
            return
        if now is not None and now != store.now:
            store.timed.clear()
            store.now = now
        values, most = store.values_of(now, held)
        while values and len(values) >= _up_to(most, rows):
            del values[next(iter(values))]  # the least recently asked
        values[key] = (value, store.epoch)


def _up_to(most: int, rows: int) -> int:
    """How many masks or values of `rows` rows a store keeps: `most` up to _KEPT_ROWS rows, then
    proportionally fewer (the same bytes), at least 16."""
    return most if rows <= _KEPT_ROWS else max(16, most * _KEPT_ROWS // rows)


class _MaskStore:
    __slots__ = ("masks", "log", "epoch", "values", "timed", "held", "now", "composed", "previous", "origin")

    def __init__(self) -> None:
        self.masks: dict[tuple, tuple[np.ndarray, int]] = {}  # (kind, key): (mask, the epoch it is of)
        self.values: dict[tuple, tuple[Any, int]] = {}  # _Masks.value's, as masks
        self.timed: dict[tuple, tuple[Any, int]] = {}  # likewise, of `now` alone
        # Likewise, one per request (a request's decisions' rows, solver.prepare `_kept_rows`),
        # kept apart: the values above are the batches' verdicts, hundreds asked again and again.
        self.held: dict[tuple, tuple[Any, int]] = {}
        self.now: Any = None
        self.log: list[tuple[np.ndarray | None, list[tuple[int, Cluster]]]] = []  # the last patches
        self.epoch = 0  # patches so far
        # The last `behind` patches as one (`since`), made once for the newest epoch: a cluster
        # event's batches ask a dozen verdicts and masks kept the same few patches back.
        self.composed: list[tuple[np.ndarray | None, list[tuple[int, Cluster]]]] = []
        # The epoch before's `composed` (as far as it was asked), which `since` carries forward,
        # and the last patch's rows gathered by their row before it (`_origin`), made once.
        self.previous: list[tuple[np.ndarray | None, list[tuple[int, Cluster]]]] = []
        self.origin: _Origin | None = None

    def values_of(self, now: Any, held: bool) -> tuple[dict[tuple, tuple[Any, int]], int]:
        """The values a key is kept among (`held`: those kept apart; else those of `now` where
        given, or those with no time) and how many of them are kept at most."""
        if held:
            return self.held, _HELD_UP_TO
        return (self.values, _VALUES_UP_TO) if now is None else (self.timed, _VALUES_UP_TO)

    def since(self, behind: int) -> tuple[np.ndarray | None, list[tuple[int, Cluster]]]:
        """The last `behind` patches of the log (at most its length) as one patch: each row's
        row before them (None: every row stays) and the rows made again in any of them, each with
        the cluster its last remaking made (a row a later patch gathered carried to where it went,
        one it dropped or made again left out). A value of each row's cluster alone moved through
        it is the value moved through them one by one (the rows' clusters are the same objects).

        Made forward where it can: the epoch before's composed patches (`previous`, as far as they
        were asked) each followed by the last patch, `previous[i - 1]` being the `i` patches before
        it as one. Composing is associative (a row's row before the chain is read through the same
        patches, and its cluster is its last remaking's, however they are grouped), so the patch is
        the one composed back from the log, which was done for deeper ones. A relabel's or a
        taint's patch moves no row: carried forward each depth costs its made rows alone, where
        composed back each depth across an earlier join or leave gathered every row (10,000) and
        judged each against the made ones. A join's or a leave's is read once as a slide
        (`_origin`): each depth places its made rows by arithmetic and moves its kept rows by
        slices, not a gather."""
        composed, log = self.composed, self.log
        if not composed:
            composed.append(log[-1])
        previous = self.previous
        while len(composed) < behind:
            i = len(composed)
            if i <= len(previous):
                composed.append(_composed(previous[i - 1], log[-1], self._origin()))
            else:
                composed.append(_composed(log[-i - 1], composed[-1]))
        return composed[behind - 1]

    def _origin(self) -> _Origin | None:
        """Where the last patch took each row before it (None where every row stays), made once.
        A slide (one row joined or gone at `at`, the rows from it on moved by `delta`: a join's
        or a leave's, `_slid`'s, read off the gather's pattern; rows past those kept are gone) as
        those numbers; any other gather inverted: for each row before it, the row it went to, -1
        where it went nowhere or only to a row the patch made again (which keeps its own cluster).
        Rows not made again each gather a row of their own (names are unique, a new row's
        placeholder is made again), so the inverse is one scatter."""
        origin = self.origin
        kept, remade = self.log[-1]
        if origin is None and kept is not None:
            size = len(kept)
            moved = np.flatnonzero(kept != np.arange(size, dtype=np.int64))
            if not len(moved):  # the last row gone
                origin = (size, -1, size, None)
            elif kept[at := int(moved[0])] == -1 and np.array_equal(kept[at + 1 :], np.arange(at, size - 1)):
                origin = (at, 1, size, None)
            elif np.array_equal(kept[at:], np.arange(at + 1, size + 1)):
                origin = (at, -1, size, None)
            else:
                carried = kept >= 0
                carried[[row for row, _ in remade]] = False
                inverse = np.full(int(kept.max(initial=-1)) + 1, -1, dtype=np.int64)
                inverse[kept[carried]] = np.flatnonzero(carried)
                origin = (0, 0, size, inverse)
            self.origin = origin
        return origin


# `_MaskStore._origin`'s: (at, delta, rows after, None) for a slide, (0, 0, rows after, inverse) else.
_Origin = tuple[int, int, int, "np.ndarray | None"]


def _composed(
    first: tuple[np.ndarray | None, list[tuple[int, Cluster]]],
    then: tuple[np.ndarray | None, list[tuple[int, Cluster]]],
    origin: _Origin | None = None,
) -> tuple[np.ndarray | None, list[tuple[int, Cluster]]]:
    """Two patches, one after the other, as one (`_MaskStore.since`); `origin`, if given, is
    where `then` took each row (`_MaskStore._origin`: a slide's numbers or an inverse)."""
    (kept, remade), (kept2, remade2) = first, then
    made = {row: cluster for row, cluster in remade2}
    if kept2 is None:  # every row stays where it was: the first's made rows too, unless made again
        for row, cluster in remade:
            made.setdefault(row, cluster)
        return kept, sorted(made.items(), key=_ROW)
    if remade and origin is not None and origin[3] is None:  # a slide: each made row's place by arithmetic
        at, delta, size, _ = origin
        for row, cluster in remade:
            # A leave's row `at` went nowhere, nor did rows past the rows after (a gather that
            # dropped the last rows too reads as a slide over the rows it kept).
            new = row if row < at else row + delta if delta > 0 or row > at else size
            if new < size:
                made.setdefault(new, cluster)
    elif remade and origin is not None:  # where the first's made rows went, read off the inverse
        inverse = origin[3]
        for row, cluster in remade:
            if row < len(inverse) and (new := int(inverse[row])) >= 0:
                made.setdefault(new, cluster)
    elif 0 < len(remade) <= _FEW_MADE:  # each made row found by one comparison over the gather
        for row, cluster in remade:
            for new in np.flatnonzero(kept2 == row).tolist():
                made.setdefault(new, cluster)
    elif remade:
        rows = np.fromiter((row for row, _ in remade), dtype=np.int64, count=len(remade))
        # Where the first's made rows went (a gather): np.isin's answer, by a table of the rows
        # between the patches (isin compared each of 10,000 rows with each made row: most of a
        # cluster event's masks and verdicts moved). A row the second made again is its own (a
        # joined row's placeholder, -1, gathers nothing).
        made_rows = np.zeros(max(int(rows.max()), int(kept2.max(initial=-1))) + 1, dtype=bool)
        made_rows[rows] = True
        at = np.flatnonzero(made_rows[kept2] & (kept2 >= 0))
        by_row = dict(remade)
        for new, old in zip(at.tolist(), kept2[at].tolist(), strict=True):
            made.setdefault(new, by_row[old])  # a row the second made again is its own
    if kept is None:
        return kept2, sorted(made.items(), key=_ROW)
    if origin is not None and origin[3] is None:  # kept[kept2] for a slide: slices, not a gather
        at, delta, size, _ = origin
        if delta > 0:  # (the joined row's placeholder, -1, gathers the last row, as a gather does)
            return np.concatenate((kept[:at], kept[-1:], kept[at : size - 1])), sorted(made.items(), key=_ROW)
        return np.concatenate((kept[:at], kept[at + 1 : size + 1])), sorted(made.items(), key=_ROW)
    return kept[kept2], sorted(made.items(), key=_ROW)


_ROW = operator.itemgetter(0)
_FEW_MADE = 4  # made rows `_composed` finds by a comparison each over the gather (fewer passes than a table)


class _Rows:
    """What a table makes of each cluster alone (names, eligibility, load, taints, the columns),
    kept for the last large batch's clusters: a long-lived scheduler (adapters.live) solves batch
    after batch over the same clusters, mostly the very same objects, so a batch of the same
    tuple takes them as they are, and one whose clusters differ from it in a few objects (added,
    replaced, any number removed) takes the kept rows with those made again. Kept arrays and Series are
    read-only, shared by every table made of them. One batch's clusters are kept (the last)."""

    _last: _Rows | None = None

    def __init__(self, clusters: tuple[Cluster, ...]) -> None:
        self.clusters = clusters
        # Per row, an object whose every field but the load is the very object the row was made
        # of, besides `clusters` (the one before it, where only the load differs): a batch's
        # clusters whose loads it moved are copies, and the batch after it holds the originals
        # again (a one-Placement batch after a cluster event's: thousands).
        self.basis: list[Cluster] = list(clusters)
        self.names = [c.name for c in clusters]
        self.index = {name: i for i, name in enumerate(self.names)}
        size = len(clusters)
        self.eligible = _frozen(np.fromiter((takes_new(c) for c in clusters), dtype=bool, count=size))
        self.leaving = _frozen(np.fromiter((c.leaving for c in clusters), dtype=bool, count=size))
        self.load = _frozen(np.fromiter((c.load for c in clusters), dtype=np.int64, count=size))
        self.tainted = [i for i, c in enumerate(clusters) if c.taints]
        self._series: dict[str, pl.Series] = {}
        self._floats: dict[str, tuple[pl.Series, np.ndarray]] = {}  # float_values', by the Series made of
        self._tolerated: dict[tuple[Toleration, ...], np.ndarray] = {}  # of tolerations without seconds
        self.patched = False  # made from an earlier batch's rows (a live scheduler's later batch)
        self.by_name: dict[tuple, Any] = {}  # ClusterTable.by_name's values, carried through patches
        self._codes: dict[str, tuple[np.ndarray, list[str], np.ndarray]] = {}  # see codes()
        self.masks = _Masks()
        self.vouched = vouched_base(clusters)  # model.vouch_loads' base of `clusters`, or None

    @classmethod
    def of(cls, clusters: tuple[Cluster, ...]) -> _Rows:
        if len(clusters) < _KEPT_FROM:
            return cls(clusters)
        last = cls._last
        if last is not None and last.clusters is not clusters:
            last = last._patched(clusters)
        if last is None:
            last = cls(clusters)
        cls._last = last
        return last

    def _patched(self, clusters: tuple[Cluster, ...]) -> _Rows | None:
        """These rows for `clusters`, of which at most _PATCHED_UP_TO are not kept objects (added,
        or replaced under the same name; any number removed); None when more. Each row of
        `clusters` is matched to its kept row by name and the kept rows gathered, the others made
        again; in C loops (map over the tuples, numpy and polars gathers): a Python loop over
        10,000 rows was most of a one-cluster event's table, and a batch after two cluster events
        (one gone, one added) made its rows afresh."""
        changed = _in_place(self.clusters, self.names, clusters)
        vouched = vouched_base(clusters)
        # Both tuples vouched with one base (model.vouch_loads): each cluster is the kept row's or
        # differs from it in its load alone (the same names in the same order); where more than
        # _in_place's few are other objects, they are found in one C pass, and none is compared.
        alone = vouched is not None and vouched is self.vouched and len(clusters) == len(self.clusters)
        if alone and changed is None:
            changed = np.flatnonzero(
                np.fromiter(map(operator.is_not, self.clusters, clusters), dtype=bool, count=len(clusters))
            ).tolist()
        moved = None
        if changed is not None:  # the same names in the same order, `changed` rows other objects
            names, same_names = self.names, True
            kept = np.arange(len(names), dtype=np.int64)
            known = np.ones(len(names), dtype=bool)
        else:
            moved = _vouched_slide(self.vouched, vouched, len(self.clusters), len(clusters))
            if moved is not None:  # model.vouch_moved: the names read off the kept ones
                names = self.names[:moved]
                names += [clusters[moved].name] if len(clusters) > len(self.names) else []
                names += self.names[moved + (len(clusters) < len(self.names)) :]
                same_names = False
            else:
                names = list(map(_NAME, clusters))
                same_names = names == self.names
                moved = None if same_names else _one_moved(self.names, names)
            if same_names:
                kept = np.arange(len(names), dtype=np.int64)
            elif moved is not None:  # one name added or gone at `moved`: the rows either side slide
                kept = _slid(len(self.names), len(names), moved)
            else:
                kept = np.fromiter(map(self.index.get, names, repeat(-1)), dtype=np.int64, count=len(names))
            known = kept >= 0
            if not known.all():
                kept = np.where(known, kept, 0)  # a new row gathers row 0, made again below
        if moved is not None:  # the same gathers as slices (a list copied, not an index per row)
            was = _slide(self.clusters, len(names), moved)
            basis = _slide(self.basis, len(names), moved)
        else:
            at = None if same_names else kept.tolist()
            was = self.clusters if at is None else list(map(self.clusters.__getitem__, at))
            basis = list(self.basis) if at is None else list(map(self.basis.__getitem__, at))
        if changed is None:
            other = np.fromiter(map(operator.is_not, was, clusters), dtype=bool, count=len(names)) | ~known
            changed = np.flatnonzero(other).tolist()
        # A cluster whose load alone moved (a long-lived scheduler's counts move on thousands:
        # a batch takes its Placements' decisions off) takes its load again; its other rows and
        # columns, which read no load, are kept. Its row's basis, if it is not the cluster, is
        # the object before it (the same fields but the load).
        unknown = set(np.flatnonzero(~known).tolist())
        remade = []
        if alone:  # every row kept, every changed one its load alone moved
            for i in changed:
                basis[i] = was[i]
        else:
            news = list(map(clusters.__getitem__, changed))
            again = map(operator.is_, news, map(basis.__getitem__, changed))
            for i, new, before in zip(changed, news, again, strict=True):
                if i in unknown:
                    remade.append(i)
                elif before or _load_alone(was[i], new):
                    basis[i] = was[i]
                else:
                    remade.append(i)
        if len(remade) > _PATCHED_UP_TO:
            return None
        for i in remade:
            basis[i] = clusters[i]
        out = object.__new__(_Rows)
        out.patched = True
        out.vouched = vouched
        out.clusters = clusters
        out.basis = basis
        out.names = self.names if same_names else names
        if same_names:
            out.index = self.index
        elif moved is not None:
            out.index = _slid_index(self.index, self.names, names, moved)
        else:
            out.index = dict(zip(names, range(len(names)), strict=True))
        for field, value, rows in (
            ("eligible", takes_new, remade),
            ("leaving", _leaving, remade),
            ("load", _load, changed),
        ):
            array = getattr(self, field) if same_names else getattr(self, field)[kept]
            if rows:
                array = array.copy() if same_names else array
                array[rows] = [value(clusters[i]) for i in rows]
            setattr(out, field, _frozen(array))
        was_tainted = np.zeros(self.size, dtype=bool)
        was_tainted[self.tainted] = True
        tainted = was_tainted[kept]
        tainted[remade] = [bool(clusters[i].taints) for i in remade]
        out.tainted = np.flatnonzero(tainted).tolist()
        series_kept = None if same_names or moved is not None else pl.Series(kept)
        out._series = {}
        out._floats = dict(self._floats)  # each valid while its Series is the rows' (float_values)
        # The rows made again, every kept column at once (a Series made per column and row was
        # most of a patch).
        moving = _moving(list(self._series), remade, unknown, was, clusters) if remade else []
        made = _made(tuple(clusters[i] for i in remade), moving) if moving else {}
        # A join whose one made row is the new one (the others' loads alone moved): its value goes
        # between the slices, where the slide would put row 0's for the scatter to replace.
        joined = moved is not None and len(names) > len(self.names) and remade == [moved]
        for name, series in self._series.items():
            value = made.get(name) if joined else None
            if value is not None and value.dtype == series.dtype:
                out._series[name] = _slid_series(series, len(names), moved, value)
                continue
            if same_names:
                column = series
            elif moved is not None:
                column = _slid_series(series, len(names), moved)
            else:
                column = series.gather(series_kept)
            if name in made:
                column = column.clone() if same_names else column
                column = column.scatter(remade, made[name])
            out._series[name] = column
        # A row's taint verdict reads its taints alone: kept rows keep theirs, made rows judge again.
        out._tolerated = {}
        for tolerations, mask in self._tolerated.items():
            if not same_names:
                mask = mask[kept]
            if remade:
                mask = mask.copy() if same_names else mask
                mask[remade] = [untolerated(clusters[i], tolerations, None) is None for i in remade]
            out._tolerated[tolerations] = _frozen(mask)
        # Values of the clusters' names alone (ClusterTable.by_name): valid whatever the rows hold.
        out.by_name = self.by_name
        out._codes = {}
        for name, codes in self._codes.items():
            at = remade if name in made else []
            patched = _patched_codes(codes, None if same_names else kept, at, made.get(name))
            if patched is not None:
                out._codes[name] = patched
        # A required terms' or a scope's mask reads each row's cluster alone (its labels, claims,
        # properties, traits; never its load): the kept masks move with the rows when asked.
        out.masks = self.masks.moved(None if same_names else kept, [(i, clusters[i]) for i in remade])
        return out

    @property
    def size(self) -> int:
        return len(self.clusters)

    def tolerated(self, tolerations: tuple[Toleration, ...]) -> np.ndarray:
        """Which rows have no taint the tolerations (none with seconds: the verdict is the same
        at any time) leave untolerated, for a request not holding them; made once for these rows,
        read-only."""
        mask = self._tolerated.get(tolerations)
        if mask is None:
            mask = self._tolerated[tolerations] = _frozen(
                _tolerated(self.clusters, self.tainted, tolerations, None)
            )
        return mask

    def float_values(self, name: str) -> np.ndarray:
        """A property's float column as float64, NaN where null, read-only: made once per Series
        (kept through patches that leave the column as it was), so the batches of a long-lived
        scheduler share one array, and what is kept by its identity (prepare's centered scores)."""
        column = self.columns([_float_column(name)])[_float_column(name)]
        found = self._floats.get(name)
        if found is None or found[0] is not column:
            if column.dtype == pl.Float64:  # nulls are NaN in to_numpy's float64 (no frame pass: polars'
                values = column.to_numpy()  # engine, some milliseconds of a live scheduler's small batch)
            else:
                values = column.fill_null(float("nan")).to_numpy().astype(np.float64, copy=False)
            found = self._floats[name] = (column, _frozen(values))
        return found[1]

    def codes(self, name: str) -> tuple[np.ndarray, list[str], np.ndarray]:
        """A string column's domain codes (0..D-1 in the order of the sorted values, -1 where
        null), its values so ordered, and the codes plus one (slots), each read-only: made once
        for these rows, and patched with them (_patched_codes) while their values stay the same
        set. A long-lived scheduler's batches read the same few topology keys over the fleet,
        each a polars pass of some milliseconds over 10,000 rows."""
        found = self._codes.get(name)
        if found is None:
            values = self.columns([name])[name]
            domains = sorted(v for v in values.unique().to_list() if v is not None)
            numbers = list(range(len(domains)))
            coded = values.replace_strict(domains, numbers, default=-1, return_dtype=pl.Int64)
            codes = _frozen(coded.to_numpy())
            found = self._codes[name] = (codes, domains, _frozen(codes + 1))
        return found

    def columns(self, names: list[str]) -> dict[str, pl.Series]:
        """The named columns (see the *_column functions), each made once for these clusters."""
        missing = [name for name in names if name not in self._series]
        if missing:
            self._series.update(_made(self.clusters, missing))
        return {name: self._series[name] for name in names}


def _patched_codes(
    codes: tuple[np.ndarray, list[str], np.ndarray],
    kept: np.ndarray | None,
    remade: list[int],
    values: pl.Series | None,
) -> tuple[np.ndarray, list[str], np.ndarray] | None:
    """_Rows.codes of a column for patched rows: the kept rows' codes gathered (`kept`, None
    where every row is where it was), the rows made again (`remade`, their new `values`) coded
    again; None (made afresh when asked) where a made row holds a value no kept row held, or a
    value is no longer held: the domains and so the codes would differ. Where every row stays,
    only the values the made rows held before are looked for (the codes held every value)."""
    old, domains, _ = codes
    new = old if kept is None else old[kept]
    if remade:
        if values is None:
            return None
        at = {value: code for code, value in enumerate(domains)}
        made = [-1 if v is None else at.get(v, -2) for v in values.to_list()]
        if -2 in made:
            return None
        if kept is None:  # every value held before; only the made rows' old ones may be gone
            gone = set(old[remade].tolist()).difference(made, (-1,))
            new = new.copy()
            new[remade] = made
            if any(not (new == code).any() for code in gone):
                return None
            new = _frozen(new)
            return new, domains, _frozen(new + 1)
        new[remade] = made
    elif kept is None:
        return codes
    if domains and not np.bincount(new[new >= 0], minlength=len(domains)).all():
        return None
    new = _frozen(new)
    return new, domains, _frozen(new + 1)


def _one_moved(old: list[str], new: list[str]) -> int | None:
    """Where `new` is `old` with one name added (one longer) or one gone (one shorter), the
    row of that name (in `new`, or in `old`); else None. A cluster joining or leaving moves
    every row after its own by one: the rows either side are slices of the kept ones."""
    if len(new) - len(old) == 1:
        short, long = old, new
    elif len(old) - len(new) == 1:
        short, long = new, old
    else:
        return None
    try:
        at = operator.indexOf(map(operator.ne, short, long), True)
    except ValueError:  # the short names lead the long ones: the last row added or gone
        at = len(short)
    if short[at:] != long[at + 1 :]:
        return None
    return at


def _slid(old: int, new: int, at: int) -> np.ndarray:
    """_Rows._patched's `kept` for one row added (new = old + 1: -1 at `at`, made again) or
    gone (new = old - 1: row `at` left out) at `at`."""
    if new > old:
        return np.concatenate(
            [
                np.arange(at, dtype=np.int64),
                np.array([-1], dtype=np.int64),
                np.arange(at, old, dtype=np.int64),
            ]
        )
    return np.concatenate([np.arange(at, dtype=np.int64), np.arange(at + 1, old, dtype=np.int64)])


def _slide(items: Sequence[Any], new: int, at: int) -> list:
    """`items` gathered by _slid's `kept` (the added row: row 0's, as a gather of row 0)."""
    if new > len(items):
        return [*items[:at], items[0], *items[at:]]
    return [*items[:at], *items[at + 1 :]]


def _slid_series(series: pl.Series, new: int, at: int, value: pl.Series | None = None) -> pl.Series:
    """A column gathered by _slid's `kept`, as slices either side of `at` joined in one chunk (a
    gather by index cost three times as much a column); an added row's `value` (a one-row Series
    of the column's dtype) put in place of row 0's where given."""
    if new > len(series):
        parts = [series.slice(0, at), series.slice(0, 1) if value is None else value, series.slice(at)]
    else:
        parts = [series.slice(0, at), series.slice(at + 1)]
    return pl.concat(parts, rechunk=True)


def _vouched_slide(kept: tuple | None, base: tuple | None, old: int, new: int) -> int | None:
    """Where the kept rows' clusters were vouched with base `kept` and the batch's with `base`
    (model.vouch_loads), and `base`'s names are `kept`'s with one added or gone (model.vouch_moved;
    the lengths agree): where (_one_moved's answer); else None."""
    if kept is None or base is None:
        return None
    move = vouched_move(base)
    if move is None or move[0] is not kept or len(base) != new or len(kept) != old or abs(new - old) != 1:
        return None
    at = move[1]
    return at if 0 <= at < max(old, new) else None


def _slid_index(index: dict[str, int], old: list[str], new: list[str], at: int) -> dict[str, int]:
    """The rows' index for `new`, `old`'s names with one added or gone at `at` (_one_moved): `index`
    (old's) copied, the name gone taken out, and the names from `at` on numbered again (a dict
    copy in C: every name numbered anew was a quarter of a join's or leave's patch)."""
    out = index.copy()
    if len(new) < len(old):
        del out[old[at]]
    out.update(zip(new[at:], range(at, len(new)), strict=True))
    return out


def _in_place(old: tuple[Cluster, ...], names: list[str], new: tuple[Cluster, ...]) -> list[int] | None:
    """The rows where `new` holds another object than `old` (in order), where every such object
    has its row's name (`names`, old's): None where they may not (another length, a name moved).
    A batch after the last, one event apart, holds mostly the very same objects: compared a slice
    at a time in C (equal slices are the same objects or equal ones, whose rows are the same; no
    cluster is read), only a slice that differs is searched, and only its other objects' names
    are read (a batch's every name read and compared was most of a patch)."""
    size = len(old)
    if len(new) != size:
        return None
    changed: list[int] = []
    for start in range(0, size, _SLICE):
        end = min(start + _SLICE, size)
        if old[start:end] != new[start:end]:
            changed.extend(i for i in range(start, end) if old[i] is not new[i])
            if len(changed) > _IN_PLACE_UP_TO:
                return None
    for i in changed:
        if new[i].name != names[i]:
            return None
    return changed


_SLICE = 128  # clusters _in_place compares at once
_IN_PLACE_UP_TO = 512  # other objects past which _in_place leaves a patch to compare every row


def _load_alone(old: Cluster, new: Cluster) -> bool:
    """Whether only the load differs between two objects of one cluster (the rest shared, as a
    copy with another load shares it): every other field the same object, read in one C call
    per cluster (thousands are asked per batch)."""
    return all(map(operator.is_, _BUT_LOAD(old), _BUT_LOAD(new)))


_BUT_LOAD = operator.attrgetter(*(f.name for f in fields(Cluster) if f.name != "load"))


def _tolerated(
    clusters: Sequence[Cluster], tainted: list[int], tolerations: tuple[Toleration, ...], now: Any
) -> np.ndarray:
    """Which clusters have no taint left untolerated at `now` (the tainted rows alone judged)."""
    mask = np.ones(len(clusters), dtype=bool)
    for i in tainted:
        if untolerated(clusters[i], tolerations, now) is not None:
            mask[i] = False
    return mask


_MASK_RULES = {_REQUIRED: matches_terms, _SCOPE: within}  # one row's, by the scalar rules

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_INT64 = np.iinfo(np.int64)


def _micros(when: datetime | None) -> int | None:
    """A time in whole microseconds since the epoch (None: no time, or one without a zone)."""
    if when is None or when.utcoffset() is None:
        return None
    return (when - _EPOCH) // _MICROSECOND


def _end(cluster: Cluster, tolerations: tuple[Toleration, ...], always: tuple[Toleration, ...]) -> int | None:
    """The time (_micros, within int64) before which the tolerations tolerate every taint of the
    cluster, for a request not holding it; None where a taint's time has no zone. A toleration
    holds a taint it matches (`always`: the same without seconds) forever, or, with seconds, while
    now < added + seconds (Toleration.tolerates, in whole microseconds: (now - added) // 1 us <
    seconds * 10**6, i.e. now_us < added_us + seconds * 10**6); a taint is tolerated while any
    does, the cluster while every taint is: now < the least over its taints of the greatest over
    their tolerations. Clamped to int64, which every time of datetime's range lies within."""
    end = _INT64.max
    for taint in cluster.taints:
        best = _INT64.min
        for t, matching in zip(tolerations, always, strict=True):
            if not matching.tolerates(taint):
                continue
            if t.seconds is None:
                best = _INT64.max
                break
            if taint.added is None:
                continue
            added = _micros(taint.added)
            if added is None:
                return None
            best = max(best, min(max(added + t.seconds * 1_000_000, _INT64.min), _INT64.max))
        end = min(end, best)
    return end


def _ends(
    clusters: Sequence[Cluster], tainted: list[int], tolerations: tuple[Toleration, ...], always: tuple
) -> np.ndarray | None:
    """Every row's _end (the rows without taints: never), read-only; None where one has none."""
    ends = np.full(len(clusters), _INT64.max, dtype=np.int64)
    for i in tainted:
        end = _end(clusters[i], tolerations, always)
        if end is None:
            return None
        ends[i] = end
    return _frozen(ends)


def _moved_mask(
    judge: Callable[[Any, Cluster], bool], key: tuple, mask: np.ndarray, kept, remade
) -> np.ndarray:
    """A kept mask moved through one patch: the kept rows gathered, the rows made again judged."""
    mask = mask.copy() if kept is None else mask[kept]
    if remade:
        mask[[i for i, _ in remade]] = [judge(key, cluster) for _, cluster in remade]
    return mask


def _overlaid(load: np.ndarray, loads: Loads) -> np.ndarray:
    """The rows' loads (each cluster's own) with the batch's `loads` in place of theirs
    (model.Batch.cluster_loads, as one array): a long-lived scheduler's batch shares its pool's
    cluster tuple, so its rows are the kept ones as they are, and only this column moves."""
    if not loads.at:
        return load
    out = load.copy()
    out[np.fromiter(loads.at, dtype=np.int64, count=len(loads.at))] = np.fromiter(
        loads.values, dtype=np.int64, count=len(loads.values)
    )
    return _frozen(out)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _leaving(cluster: Cluster) -> bool:
    return cluster.leaving


def _load(cluster: Cluster) -> int:
    return cluster.load


def _moving(
    names: list[str],
    remade: list[int],
    unknown: set[int],
    was: Sequence[Cluster],
    clusters: Sequence[Cluster],
) -> list[str]:
    """Of the named columns, those whose value moves on a row made again (`_made`'s value of the
    row's new cluster against its kept row's, `was`): every one where a row is new (`unknown`:
    it gathered row 0). A relabelled cluster moves the columns of the labels it changed alone, a
    tainted one none (a row made again for other fields reads every column the same)."""
    if any(i in unknown for i in remade):
        return names
    moving = set()
    for i in remade:
        old, new = was[i], clusters[i]
        for name in names:
            if name not in moving and _column_value(old, name) != _column_value(new, name):
                moving.add(name)
    return [name for name in names if name in moving]


def _column_value(cluster: Cluster, name: str) -> Any:
    """One cluster's value in a named column, as `_made` makes it (a property's by its nanos:
    both of its columns are made of them)."""
    kind, _, key = name.partition("\x00")
    if kind == "l":
        return cluster.labels.get(key)
    if kind == "c":
        return cluster.claims.get(key)
    if kind == "t":
        return key in cluster.traits
    if kind == "s":
        return cluster.scores.get(key, 0)
    value = cluster.properties.get(key)
    return None if value is None else value.nanos


def _made(clusters: tuple[Cluster, ...], names: list[str]) -> dict[str, pl.Series]:
    """The named columns over the clusters, each kind built in one go."""
    by_kind: dict[str, list[str]] = {}
    for name in names:
        kind, _, key = name.partition("\x00")
        by_kind.setdefault(kind, []).append(key)
    data: dict[str, pl.Series] = {}
    if "l" in by_kind:
        data.update(_strings([c.labels for c in clusters], frozenset(by_kind["l"]), _label_column))
    if "c" in by_kind:
        data.update(_strings([c.claims for c in clusters], frozenset(by_kind["c"]), _claim_column))
    if "t" in by_kind:
        data.update(_trait_columns(clusters, by_kind["t"]))
    for name in by_kind.get("s", ()):
        data[_score_column(name)] = pl.Series([c.scores.get(name, 0) for c in clusters], dtype=pl.Int64)
    properties = [c.properties for c in clusters] if "p" in by_kind or "f" in by_kind else []
    for name in sorted(set(by_kind.get("p", ())) | set(by_kind.get("f", ()))):
        nanos = [None if v is None else v.nanos for v in _lookup(properties, name)]
        data[_exact_column(name)] = pl.Series(nanos, dtype=pl.Int128)
        # Quantity.as_float of each, without a call per cluster.
        data[_float_column(name)] = pl.Series(
            [None if n is None else n / _NANO for n in nanos], dtype=pl.Float64
        )
    return {name: data[name] for name in names}


def _trait_columns(clusters: tuple[Cluster, ...], traits: list[str]) -> dict[str, pl.Series]:
    """Per trait, whether each cluster carries it: each cluster's own traits (a few) read once,
    not every trait asked of every cluster (21 x 10,000 set lookups at OCM 10,000 x 2,000)."""
    rows: dict[str, list[int]] = {trait: [] for trait in traits}
    for i, carried in enumerate(map(_TRAITS, clusters)):
        for trait in carried:
            at = rows.get(trait)
            if at is not None:
                at.append(i)
    out = {}
    for trait, at in rows.items():
        # A list, not a numpy array: polars makes a Series of an array only after importing
        # numpy.ma (0.03 cpu s), which nothing else of a command imports.
        column = [False] * len(clusters)
        for i in at:
            column[i] = True
        out[_trait_column(trait)] = pl.Series(column, dtype=pl.Boolean)
    return out


_TRAITS = operator.attrgetter("traits")


def rule_masks(
    request: PlacementRequest,
    table: ClusterTable,
    required: Mapping[tuple, np.ndarray] | None = None,
    scopes: Mapping[tuple, np.ndarray] | None = None,
    tolerations: tuple[Toleration, ...] | None = None,
) -> list[tuple[FilterKind, np.ndarray]]:
    """Each rule's verdict on every cluster of the table (True: it passes), in plugin order, for a
    request that filters and holds none of them; the rules that bind nothing (no scope, no
    required terms) left out. `required` and `scopes`: the masks of a whole batch, evaluated in
    one select (ClusterTable.required_masks, scope_masks); else this request's own. `tolerations`:
    the taint rule's, in place of the request's."""
    out = []
    if request.scope is not None:
        scope = (scopes if scopes is not None else table.scope_masks([request.scope]))[request.scope]
        out.append((FilterKind.SCOPE, scope))
    if request.required:
        terms = request.required
        out.append(
            (
                FilterKind.AFFINITY,
                (required if required is not None else table.required_masks([terms]))[terms],
            )
        )
    out.append((FilterKind.INELIGIBLE, table.eligible))
    out.append(
        (FilterKind.TAINT, table.tolerated(request.tolerations if tolerations is None else tolerations))
    )
    return out
