"""OCM's scheduling controller for the long-lived scheduler (adapters.live.hub, through the System
record's `reach`): the model kept between events, which Placements an event enqueues, and which of
those can change.

What upstream enqueues (ocm pkg/placement/controllers/scheduling: enqueue.go,
cluster_event_handler.go, scheduling_controller.go): a Placement on any event of its own (its
status too), and on any event of a PlacementDecision its label names; a ManagedCluster's
addition, deletion or any update (its old labels' sets too when they changed) enqueues, through
the ManagedClusterSets holding it and their bindings, every Placement of a bound namespace that
lists the set or lists none; a set or binding the same way; an AddOnPlacementScore the Placements
whose prioritizers name its resource, in a namespace bound to a set holding its cluster;
TaintToleration requeues a Placement when a toleration with seconds runs out on a cluster it
decided. Each sync runs the Placement alone against the hub as it stands: its filters, its
scores (Balance counts every other Placement's decisions, Steady its own) and the top N.

Which of the enqueued can change (the bound): a Placement's answer is a function of its spec, its
own decisions, and, per cluster of its scope, the cluster's filter verdict and score for it
(Balance: the cluster's count of others' decisions and the busiest count over every cluster). An
enqueued Placement is solved when one of those may have changed since its last sync (a PickN
refused so is first judged by its sync alone, `_by_runs`, below):

- its own objects changed (spec, annotations, its decisions: its own writes come back so), it is
  new, its scope (bindings, sets) or a CEL outcome it reads changed, or a toleration with seconds
  ran out on a cluster it holds (a timer); a top N reading a sorter whose toleration with
  seconds ran out on any cluster since its picture is judged by its sync alone (`_ran_out`: the
  sorter's range spans the feasible clusters, which moved with no event);
- a cluster it holds changed its labels or claims and so its decision group (the first group
  whose selector matches it: the groups' members and chunks read nothing else of the clusters,
  `_regrouped`), which may move the decisions though the clusters do not;
- the event's cluster changed for it (`matters`): its verdict changed (it entered or left its
  scope passing its filters on the side it is in, or passed them on one side only), or, passing
  both before and after, one of its score's inputs on it did (a preference's label match, a
  sorter's property, an external score, the count Balance reads, a spread key). A cluster
  entering or leaving its scope that fails its filters on both sides (a scope-only move) counts
  only where its sync reads the scope beyond its feasible clusters (`_reads_scope`): a PickN's
  spread (its topology domains span every cluster, feasible or not; a PickAll picks every
  feasible cluster whatever its spread), a refused toleration (upstream's
  Misconfigured where an available cluster passes the predicates, `_misconfigured`), or the
  available count going to or from none (the status's AllManagedClusterSetsEmpty row, and a
  predicate upstream cannot build, Misconfigured only where some cluster is available; judged
  exactly over every cluster the event moved, `_empties`); or where it holds the cluster. That
  is exact: the decisions are chosen among the feasible clusters, every score is a feasible
  cluster's (a sorter's range spans the feasible clusters; Balance's busiest count spans every
  cluster whatever its scope and is judged apart), the groups and numberOfSelectedClusters read
  the picks, and the status reads the available count only as none against some, so such a
  move leaves every byte the sync writes as it was. A PickAll the same (`_verdicts`). The checks
  ask `matters` only of a change that touched something it reads for the request (`_relevant`:
  the cluster's labels, claims, properties and external scores by key, its traits, taints,
  eligibility and count, `_touched`, against the keys its filters, score inputs and spreads read,
  `_reads`): any other change gives `matters` the same inputs on both sides, so its no; a change
  of the taints alone moves only the taint rule's verdict (`_taint_matters`). A strict top N
  judged on its totals lets go a relevant change of a cluster it did not pick that fails its
  filters now (`_left_lost`: its margins' check reads it for nothing, a sorter's only where its
  value lies within the range the others span), so its cheap ends may judge it. In optimal
  mode a Placement not solved keeps its last joint answer, as for any event that moves nothing
  it reads (solving it with another batch may give another answer of the same contract);
- Balance drift: other Placements' decisions moved since its last sync. Balance reads the count of a
  cluster it may pick (in its scope, passing its filters) and the busiest count: moves on clusters
  it cannot pick change nothing it reads, and are not looked at. When the busiest count changed,
  every Balance score moved, by at most a known amount for a count that did not move. The feasible
  clusters whose counts moved change their scores, each by a known amount
  (solver.balance.balance_scores of its counts then and now); the answer kept its top N strictly
  above every other feasible cluster (its weakest pick's total above the best left out, whose totals
  the result reported), so it stands while the weakest pick, its moved scores applied, still beats
  the best left out raised by the most any cluster left out rose. Then nothing it reads can reorder
  its top N (a PickAll, or a PickN holding every feasible cluster, reads no score at all), and its
  sync would write what it holds: it is not solved, and its recorded margins move to the counts as
  they now stand (so the next check starts there). A Placement whose totals are each cluster's own
  is judged on the totals again, one with centered sorters (ResourceAllocatable*: a cluster's score
  spans the feasible clusters' range) by each cluster's change of total, exact while its feasible
  set stays (`_stands_margins`), or while the one cluster entering or leaving it lies within the
  range the others span (`_within_range`: the range is then the same, and so is every other
  cluster's sorter score; with a toleration with seconds too, whose running out moves the
  feasible set with no event, only where none runs out on a cluster between its picture's
  clock and now, `_in_window`). Where totals are each cluster's own, a moved cluster is judged (its
  total, then its filters) only where a bound of its total could still raise the bound of the
  clusters left out (`_uppers`: Balance's and Steady's parts exactly, an external score's over
  every value it had, then read off the cluster for those left, a label match's, which OCM has
  none of, at its weight): a total at most that cannot, whatever its filters; the rest are
  judged by their bound, highest first, up to the first that cannot beat what was found (the
  bound is a maximum over one total order, so the order it is taken in moves nothing). With
  centered sorters, a moved cluster whose every sorted value lies strictly inside the range the
  feasible clusters span (or is absent) has its total judged before its filters (`_inside_total`
  over `_sorter_ends`): where it passes them it is no end of that range, so the range is the
  same with or without it and its total is exactly `_within_range`'s; a total that cannot beat
  what was found moves no maximum whether it passes or not, so its filters are not asked (one
  at or outside an end is judged as before: it may move the range). The
  clusters left out are bounded from the last check's picture (its bound of them took in every
  rise up to it, so it climbs check by check), and where that refuses,
  from the answer's anchor (`_Answer.anchor`: the picture an earlier check started from, with its
  best left out): a cluster left out there ranked below that best, so its total now is at most that
  best plus its own rise since (its Balance score now less the least on the anchor's range of
  counts, the busiest count's change for a count that did not move), while its other inputs are
  those it had there. So the anchor is kept only while no check since judged a cluster left out by
  its own total (a changed cluster's inputs moved: its total judged exactly, or its sorter's change
  added); such a check anchors the answer afresh on its own picture. Neither bound is kept above
  the request's ceiling (`_ceiling`, `_capped`): the greatest total it can give a cluster left out,
  whatever that cluster's inputs and whatever moved since any picture, its preferences' greatest
  scores (Balance's, a sorter's and an external score's each within [-100, 100], the reader
  holding external scores to the CRD's bounds; a label match's weight; Steady's only where it
  holds a cluster it did not pick) times their weights; where the weakest pick's total (at most
  its total now) is above the ceiling, the top N stands at once, no bound read. Where the top
  N was not strict (a tie at the cut, an optimal answer of several coupled Placements), any moved
  count on a cluster it may pick refuses it.
  A spread's picks are not its top N: an answer that is its greedy run on
  the picture it was judged on stands while no pick's score moved and no feasible cluster left out
  rose above every pick (`_stands_ordered`), for its sync would then write what it holds: the run
  compares the total, then held first, then the name, so a cluster it does not hold whose total
  now ranks below every pick's (read now: no sorter, so each total is the cluster's own; the
  topology score is apart) loses each comparison it takes part in. The busiest count may move:
  each pick's score is then read again; a fall of it raises no count that did not move (Balance
  is monotone in it), and a rise raises only counts of one or more (a count of none scores 100
  whatever it is), each to at most the score of a count of one, which bounds them where the
  request reads Balance and what it holds alone and holds nothing it left out (its weakest pick
  must beat it). Without Balance nothing but the changes that reach it (below) moves a score.
  Where a pick's score moved, the run still picks what it picked where every pick's total now
  beats the most a cluster it does not hold can total (no sorter; Balance's range, an external
  score's hull, a label match; it holds nothing it left out) and the picks rank among themselves
  as the run ranked them (`_picks_above`): each cycle's clusters of the best topology score are
  the run's, less some left out, and the cycle takes the best pick among them, the run's.
  Greedy's answer is its run
  on `_moved_by`'s picture; an optimal answer is one where it holds exactly its answer and the
  solver reports that its greedy run on the batch's final decisions picks it (`Result.ordered`:
  `_After`'s picture, or `_moved_by`'s where the batch was not joint). A cluster it left out that
  lost its verdict (a taint it does not tolerate, a label its filters refuse; in its scope before
  and after, in the same domain of each spread key, the request reading no sorter: `_lost_only`)
  leaves the run as it was too: the cluster lost each comparison it took part in, and the domains
  are every cluster's, eligible or not. So does any change of a cluster it neither holds nor
  picked, in the same domain of each spread key, that leaves it not feasible (out of its scope or
  failing its filters: `_out_after`), whether it lost its verdict by its scope or had none on
  either side (a scope-only move, which a spread reads only through its domains): the run
  compares the same clusters, less one that lost each comparison it took part in; the domains are
  the table's, every cluster's in scope or not, and that one's stayed. With a sorter only where
  it had no verdict before either (the feasible clusters, whose range it spans, are the same), or
  where one alone lost it and its value lies within the range the others span (`_within_range`:
  every other cluster's sorter score stays); nor where the event takes its available clusters
  to or from none (`_empties`) or a toleration is refused (its status reads them). So does a
  cluster it neither picks nor holds joining or leaving (`_came_or_went`), where no refused
  toleration reads the available clusters, the event takes them neither to nor from none
  (`_empties`), and each of the cluster's domains is carried by a cluster the event did not change
  (the domain lists are then the same, and their counts read the held clusters and the picks
  alone): one that left was a candidate that lost each comparison, or none; one that joined is no
  candidate (out of its scope, failing its filters), or it ranks below every pick (the total now,
  then the name) and a witness shares its cell (its domain of every key, or none: `_witness`,
  looked for within a bound, none found refusing), a candidate the event did not change that the
  spread neither picks nor holds. Each cycle ranks the topology score (read from the cell and the
  counts so far) before the total, so the witness, a candidate of every cycle with the joined
  cluster's score and hard verdict, lost each cycle to a pick at least as good on the score, and
  the joined cluster, below that pick on the total, loses too (a joined cluster ranking below
  every pick with no witness may stand alone in an emptier cell: the run would take it). With a
  sorter only a cluster that is no candidate joining or leaving is judged so (`_no_candidate`): a
  sorter's range spans the feasible clusters, which are then the same. Any other optimal spread
  (its joint answer not its greedy run: a coupled trade, or an optimum greedy's run cannot reach),
  any moved count on a cluster it may pick refuses it (it is then judged by its run, below).

  A PickN that these rules refuse (a strict top N whose margins cannot say, a spread whose run
  may have moved, a tie at the cut, an optimal joint answer: a relevant change, a moved busiest
  count or a feasible drift) is judged by its sync itself: the event's such Placements are each
  synced alone against the hub as it stands (`_by_runs`: one greedy pass with solver.SolveOptions.alone, the
  first margins' pass below), and one whose sync picks exactly the clusters it holds is not
  solved: that sync writes its decisions as they are (their groups too: a held cluster whose
  group labels moved solved it before, `_regrouped`), and its status reads the picks, the spec
  and the available count as none against some only; so not where the event may take its
  available clusters to or from none (`_empties`) nor where a refused toleration reads them
  (Misconfigured). Its answer becomes that run's, judged there (its margins; a spread's
  `ordered`), as a first answer is. In greedy mode the Placement is synced before the batch, as
  every Placement held is (upstream's queue may order it so); in optimal mode it is a Placement
  whose own sync writes what it holds, held as a strict top N whose margins hold is.

  The margins of a Placement solved in a batch are those of the picture its sync judged: greedy
  syncs the batch one at a time, each against those before it as they answered, optimal judges
  on the batch's final decisions (the counts its writes leave, `_After`: known exactly, so its
  totals are checked there even where the busiest count moves through the batch). Those
  pictures differ from the counts before the batch only on
  the clusters the batch moved, whose moves are logged after the batch's position: the next
  check re-judges every cluster moved since (moved and back too; a sorter's by the range of its
  batch-mates' moves on it), so the margins hold whichever picture they were taken on, provided
  the busiest count was the same in each (`_moved_by`: no moved cluster came within one of it;
  else the margins are checked against the counts before the batch, as a restart would judge
  them). The first margins, of answers judged and never written (the model's start), are each
  Placement's sync alone against the hub as it stands (one greedy pass with
  solver.SolveOptions.alone: no answer of the pass moves the counts another sees, so each is
  judged on the counts logged at the start, its own decisions left out, the busiest count as
  `_most_for` reads it): exactly the picture its next check starts from, with no batch-mate's
  move in it. An answer holding what that sync picks is strict where its top N is (a sorter's
  too: its sorter scores read no count); one the sync would move is not strict, and in greedy
  mode is solved when next enqueued (the first solve synced it before the Placements after it
  moved; an optimal answer is its joint search's and stands while nothing it reads moves).

A PickAll solved only because one cluster's verdict for it moved is answered without the solver
(`_given`: what it holds with that cluster added or taken off, its decisions the batch's outside
load as answered) where the batch provably answers the same without it.

A misconfigured Placement (`_misconfigured`: no request is made of it) is written no decision
(its decision objects are its strategy's of none) and its status: the Misconfigured message, the
PlacementSatisfied row (its valid bindings, eligible sets, whether any cluster is available) and
its own object's fields. It is taken up again only where one of those may have moved
(`_misstands`): an event of its own objects (its status coming back too), its scope's bindings or
sets (dirty), or the message or row judged again on the hub as it stands, which reads the
available clusters only as none against some, except where a toleration is refused and the
predicates build: then whether one of them passes the predicates, known while the one that did
(its witness) still does. Its sync would then write what the hub holds. A Placement that stops
being misconfigured is solved; the first judgements (nothing written) stand only where the hub
holds what its sync writes (`_synced`).

So greedy mode gives upstream's answer for every enqueued Placement (the skipped ones would sync
to what they hold), each against the rest as they stand; optimal re-optimises the Placements
solved with the rest fixed (Balance coupled among them, as the solver couples a batch). The
Placements optimal solves are, as greedy's, those whose own sync may write something else than
they hold: a strict top N whose margins hold, a spread that is its greedy run while that run
stands, or a PickN whose sync alone picks what it holds (`_by_runs`), is held without asking
whether a joint search would move it for a rise of the batch's objective elsewhere (the trigger
is the Placement's own standing; `stale` covers what such a search may still move). OCM is not
sticky: a full solve (a restart, every Placement synced against the same stale picture) may
change exactly the Placements whose inputs moved since their last sync (`stale`): those the
drift test would solve now, those marked changed, the misconfigured whose status would move
(`_misstands`), those with tolerations that run out or
external scores that expire with time, and, in optimal mode, every Placement Balance couples (the
joint search may move any of them for a rise of the batch's objective).

The model: every object read once (again only when it changes), each cluster's set memberships,
CEL outcomes and valid scores, the decisions' counts per cluster (with a log of their moves), each
Placement's request and its last answer's margins; the clusters' models in a pool whose load is
every decision on them, a batch taking off the decisions of the Placements it holds. Every change
of the model goes through its journal (adapters.live.kept.Journal), so that an event the hub
refuses after the model took it in (the emit of what it woke, or the hub hearing those writes,
refused it) leaves the model as it was; what the caches answered on it is forgotten. A
decision read moves its Placement's counts by one difference of its two lists (`_moved`), taken
in at once (`_owned`, `_recount`, the pool's `reload`: one journal note per map, each putting
back every key it moved). The count log takes one entry per cluster whose count a take moved net,
at its count before the take (`_log_moved`): a picture lies before all of a take's entries or
none, so a cluster moved and moved back within one take (a join's writes coming back shift a
PickAll's names from each decision to the next) moved for no picture; its entries and cuts are
those `_log` would make entry by entry.
A Placement's counts are changed in place only within the take that made them (its first move in
a take makes them afresh, the journal putting back the ones before whole), so an answer keeps the
counts it was judged with by reference, not by a copy (`_moved_on`).

The moves since a picture (`_moved_since`, `_drift`) are kept from one event to the next and
taken on as the log grows: between two cuts (each moves its floor) the log only grows, and an
event undone forgets them, so the entries after the length they were read at are all that moved
since. Each cluster's last entry's position is kept as the log grows (`_last_logged`, put back
with the entries an undo takes off): whether a cluster moved since a picture is one lookup, so a
strict top N held by its ceiling with nothing it reads moved is judged without its drift or its
margins' path (`_quiet`), and an answer whose picture the log has no entry after is judged as is
without its drift.

The enqueued Placements are sorted by one loop per take (`_checked`), the event's facts read
once (the log and its floor, the changes that can regroup a held cluster, the touched keys, the
busiest count's clusters): a Placement these end cheaply (dirty, gone, below the floor,
regrouped; with no relevant change, a PickAll or one without Balance judged as is, one with
Balance and its busiest count the same judged as is where no log entry follows its picture, or
held by its ceiling, `_quiet`) is no longer visited by `_stands`; the rest are, handed what the
loop found.

A sorter's walk from one end of a property's order (`_end`: the first cluster passing the filters
holding nothing) is kept from one event to the next (`_kept_walk`): it reads the order up to where
it stopped and those clusters' verdicts, which read the filters, the models but their load, and
the clock only through a toleration with seconds (such filters walk every event). The order and
the verdicts move only where a model is replaced (`_revalue` logs each, as it was and as it is),
so a walk stands while no model replaced since has a pair within what it read; an event undone
forgets the walks with the log.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right, insort
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from functools import lru_cache, partial
from itertools import chain, islice, repeat
from operator import attrgetter, is_, lt
from typing import Any

import numpy as np

from adapters.contract import Change, Taken
from adapters.kube.fields import INT64, ZERO_TIME, Fields, parse_time
from adapters.kube.manifests import Manifest
from adapters.live.kept import ClusterPool, Journal, Timers, manifest, with_load
from adapters.ocm import names as n
from adapters.ocm.clusters import ManagedCluster, read_cluster
from adapters.ocm.emit import emit
from adapters.ocm.groups import DecisionGroup
from adapters.ocm.load import (
    CelOutcome,
    OcmContext,
    PlacementContext,
    _cel_matches,
    _check_status,
    _decisions,
    _misconfigured,
    _required,
    _scores,
    cel_trait,
    placement_request,
)
from adapters.ocm.policy import Policy, read_policy
from adapters.ocm.sets import Bindings, ClusterSet, read_bindings, read_set
from adapters.run.changes import served
from model import (
    Batch,
    Choice,
    Cluster,
    ExistingDecision,
    FilterKind,
    LabelOperator,
    LabelSelector,
    PlacementRequest,
    Preference,
    RequestResult,
    Result,
    SelectionMode,
    SolveStats,
    SpreadConstraint,
    Taint,
    Toleration,
)
from solver import SolveOptions, solve
from solver.admits import admits, in_scope, matches_required, takes_new, untolerated
from solver.balance import balance_scores
from solver.prepare import centered_scores

__all__ = ["OcmLive", "live", "matters"]

Obj = Mapping[str, Any]

_LOG_LIMIT = 200_000  # count moves kept; a Placement last judged before the oldest kept is solved
_TICK = timedelta(microseconds=1)
_WALK = 256  # clusters looked at from each end of a property's order for a sorter's range
_KEPT_EVENTS = 16  # `OcmLive._prune`: the events a picture's moves are kept for since last asked
_KEPT = 512  # and at most so many pictures
# and at most so many clusters over the pictures kept: a picture from before a join holds
# thousands, and a hundred such (the soak's stream after its big joins) held 150 MiB
_KEPT_CLUSTERS = 60_000
# `OcmLive._kept_walk`: the models replaced since the walks kept were walked, at most so many
# (then the walks are walked again)
_REMODELS = 512
_RETAINTED = 4096  # `_first_end`'s log of clusters whose taints moved: let go past this many


def live(manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None) -> OcmLive:
    return OcmLive(manifests, now=now, seed=seed, result=result)


def _decision_entry(cluster: str) -> dict[str, Any]:
    return {"clusterName": cluster, "reason": ""}


class _Entries(dict):
    """emit's decision entries (OcmContext.entries): one per cluster name, made when first looked
    up and shared by every decision this scheduler writes (read-only: nothing changes a stored
    object in place); and each one's name by the entry's id (`names_by_id`). An entry is never let
    go (none is taken out), so while kept no other object has its id: a decision coming back
    whose every entry is one of these (`_own_names`) lists their names, each entry plainly well
    formed ({"clusterName": its name, "reason": ""}), as `_plain_names` would read it."""

    def __init__(self) -> None:
        super().__init__()
        self.names_by_id: dict[int, str] = {}
        # The entry lists written (`listed`) by id, each with itself (none other has its id while
        # kept), its entries as written and their names: let go when read back, the rest at the
        # next take (a solve's writes come back in the take right after it: those the hub found
        # already stored never do), all at once where more than `_LISTS_KEPT`.
        self.lists: dict[int, tuple[list[dict[str, Any]], tuple[dict[str, Any], ...], list[str]]] = {}
        # The last answer given without the solver per Placement (`OcmLive._given_last`: its
        # names and its picks, the one made of the other), read by `names`.
        self.given: Mapping[str, tuple[tuple[str, ...], tuple[Choice, ...]]] = {}
        self.made = _MadeObjects()  # emit's PlacementDecisions made, by namespace and name
        # What `_check` read of objects coming back (the scheduler's own writes share these with
        # what it read before: emit copies a Placement's spec by reference, `_decisions` gives a
        # decision the labels of the stored one it replaces, where equal): per Placement key, the spec
        # read and its policy (`_placement_policy`); by id, a decision's labels read (each held
        # with its id) and their Placement label (`_decision_names`). Stored objects are never
        # changed in place, so the same object reads the same.
        self.policies: dict[str, tuple[Any, Policy]] = {}
        self.labels: dict[int, tuple[dict[str, Any], str]] = {}

    def __missing__(self, name: str) -> dict[str, Any]:
        entry = self[name] = _decision_entry(name)
        self.names_by_id[id(entry)] = name
        return entry

    def listed(
        self, names: list[str], last: tuple[list[str], list[dict[str, Any]]] | None = None
    ) -> list[dict[str, Any]]:
        """The entries of the clusters `names` (in that order), a list emit writes in a decision:
        kept (`lists`) so that the decision coming back is read by the list (`_own_names`).
        `last`: the names and the entries of a list made before (emit's last object under the
        same name, `_MadeObjects`), whose entries are read off it by slices where `names` are
        its names slid by one place (`_slid`)."""
        out = _slid(names, last, self) if last is not None else None
        if out is None:
            out = list(map(self.__getitem__, names))
        if len(self.lists) >= _LISTS_KEPT:
            self.lists.clear()
        self.lists[id(out)] = (out, tuple(out), names)
        return out

    def names(self, key: str, selected: tuple[Choice, ...]) -> tuple[str, ...] | None:
        """The cluster names of the Placement's picks `selected` (emit's, in their order), where
        they are the very picks of its last answer given without the solver (`given`: made of
        these names, one Choice each in the same order); else None. A taint's given PickAlls
        pick thousands each: their names are not read off the picks again."""
        kept = self.given.get(key)
        return kept[0] if kept is not None and kept[1] is selected else None


def _slid(
    names: list[str], last: tuple[list[str], list[dict[str, Any]]], entries: Mapping[str, dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The entries of `names` read off a list made before (`last`: its names and its entries,
    `entries`' own for those names, as `_Entries.listed` made them: entries are never replaced)
    where `names` are its names slid by one place: one name put in front and the rest moved back
    (its last one gone where the list is full), or its first one gone and the rest moved forward
    (a name or more put at its end). A join puts one name in each of its PickAlls' lists and a
    leave or a taint takes one out: every decision of 100 after it slides so (a join's writes
    are hundreds of them), and a slice of a list copies its entries in C, where looking each
    name up reads a hundred dicts. Else None (`listed` looks each up)."""
    before, made = last
    size, known = len(names), len(before)
    if size < 2 or len(made) != known or known < 2:
        return None
    if names[1] == before[0] and known >= size - 1 and names[1:] == before[: size - 1]:
        out = [entries[names[0]]]
        out += made[: size - 1]
        return out
    if names[0] == before[1]:
        kept = min(size, known - 1)
        if names[:kept] == before[1 : kept + 1]:
            out = made[1 : kept + 1]
            out += map(entries.__getitem__, names[kept:])
            return out
    return None


_LISTS_KEPT = 8192  # `_Entries.lists`: more than a cluster event's writes (a join's: 1,000-2,300)
_READS_KEPT = 16384  # `_Entries.policies` and `_Entries.labels`: let go whole past this many


class _MadeObjects(dict):
    """The last PlacementDecision emit made under each (namespace, name), with the clusters it
    lists (emit's `_made_again` gives it again where the same is to be made: read-only, as every
    emitted object is). One per decision object the scheduler writes (1,266 in the 10,000 x
    2,000 hub); let go whole past `_OBJECTS_KEPT` (names gone since)."""

    def __init__(self) -> None:
        super().__init__()
        # The stored object each made one was found to be as served (emit's `_stored_again`),
        # by namespace and name: given back as stored while it is the one stored.
        self.vouched: dict[tuple[str, str], dict[str, Any]] = {}

    def keep(
        self, metadata: dict[str, Any], chunk: list[str], obj: dict[str, Any], group: tuple[str, str, int]
    ) -> None:
        """`obj` made of `chunk` and its Placement name, group name and index (`group`)."""
        if len(self) >= _OBJECTS_KEPT:
            self.clear()
            self.vouched.clear()
        key = metadata["namespace"], metadata["name"]
        self[key] = (chunk, obj, group)
        self.vouched.pop(key, None)


_OBJECTS_KEPT = 16384  # `_MadeObjects`


def _held_decision(cluster: str) -> ExistingDecision:
    """A decision a request holds, as the load reads it: none current (OCM is not sticky)."""
    return ExistingDecision(cluster, current=False)


@dataclass(slots=True)
class _Answer:
    """A Placement's last answer as the bound reads it: its picks' totals, the best total it left
    out (None: it left no feasible cluster out), whether its top N was strict, the busiest count
    and the count log's position it was judged at."""

    picks: dict[str, int]
    best_out: tuple[int, str] | None  # the best cluster left out: its total, its name ("": any)
    strict: bool
    most: int
    seen: int
    selected: frozenset[str] = frozenset()  # every cluster it holds (its picks, scored or not)
    # Its own decisions per cluster on the picture judged (Balance reads every other's: a count
    # logged then, less these), and the moves of its batch-mates its picture may hold beyond the
    # count logged (greedy's: synced before or after it): theirs and its own, by cluster.
    own: Mapping[str, int] = field(default_factory=dict)
    mates: _Moves | None = None
    up: frozenset[str] = frozenset()
    down: frozenset[str] = frozenset()
    # A spread's greedy run on its picture (its picks are not its top N): it stands while no
    # pick's total moves and no feasible cluster left out rises (`_stands_ordered`). Optimal: an
    # answer it holds that the solver reports its greedy run picks (`Result.ordered`).
    ordered: bool = False
    # A PickAll's answer is its feasible set on its picture (as written; at the start, where what
    # it holds is what its sync would pick): the set moves by exactly the clusters whose verdict
    # moves (`_given`).
    whole: bool = False
    # The picture its bound of the clusters left out is anchored on (`OcmLive._stands_margins`):
    # the answer as it stood there (its own fields; None: the answer is its own anchor). Kept
    # while no cluster left out was judged by its own total since (none changed its inputs).
    anchor: _Answer | None = None
    # The request whose totals its picks are (`OcmLive._stands_margins` judged each by `_total`;
    # None: the solver's, whose picture may differ from `_total`'s in what the request held).
    totalled: PlacementRequest | None = None
    # The clock its picture was judged at (the take's: its verdicts read a toleration with
    # seconds at that moment; None: unknown), moved with `seen` (`OcmLive._in_window`).
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class _Misjudged:
    """A misconfigured Placement's last sync as its status read it (`OcmLive._misstands`): its
    object as it stood (its policy with it), upstream's Misconfigured message and what the
    PlacementSatisfied row reads (its valid bindings, eligible sets, whether any cluster is
    available), and a witness: an available cluster that alone gives the same message."""

    placement: Manifest
    status: tuple[str, int, tuple[str, ...], bool]
    witness: str | None


_ANSWER_FIELDS = tuple(f.name for f in fields(_Answer))
_answer_values = attrgetter(*_ANSWER_FIELDS)  # every field's value at once (a C call)
_cluster_of = attrgetter("cluster")  # a decision's or a pick's cluster (mapped in C)


def _weakest_of(picks: Mapping[str, int]) -> tuple[str, int]:
    """The weakest pick: the lowest total, then the last name (every pick beats a bound it does)."""
    low = min(picks.values())
    return max(c for c, total in picks.items() if total == low), low


def _moved(then: list[str], now: list[str]) -> dict[str, int]:
    """Each cluster's entries in `now` less those in `then`, those that differ, in the order a
    Counter subtracting `then` and adding `now` keys them (`then`'s clusters first, each list's
    in its order). A sync's decision lists name each cluster once: their difference is two sets'
    (a cluster's join shifts every later entry of a Placement's decisions by one: each list
    rewritten differs by a cluster or two of its hundred); with a name repeated, counted."""
    if then == now:
        return {}
    # A chunk shifted by one cluster (one put in or taken out before it in its Placement's
    # names): every other entry the same, in order, the one new cluster not among them. Its
    # move is the one entry it lets go and the one it takes, whatever else it repeats (two
    # lists compared in C, no set made of either).
    if len(now) == len(then):  # both hold an entry or more (they differ)
        x = now[0]
        if now[1:] == then[:-1] and x not in then:
            return {then[-1]: -1, x: 1}
        x = now[-1]
        if now[:-1] == then[1:] and x not in then:
            return {then[0]: -1, x: 1}
    was, will = set(then), set(now)
    if len(was) == len(then) and len(will) == len(now):
        moved = dict.fromkeys([c for c in then if c not in will], -1)
        moved.update(dict.fromkeys([c for c in now if c not in was], 1))
        return moved
    before, after = Counter(then), Counter(now)
    counted = {c: after.get(c, 0) - k for c, k in before.items()}
    counted.update((c, k) for c, k in after.items() if c not in before)
    return {c: delta for c, delta in counted.items() if delta}


def _copy_counts(own: dict[str, int]) -> dict[str, int]:
    """A Placement's decisions per cluster copied as a plain dict, in their order: `dict.copy`
    clones the table (one copy in C) even where keys were deleted (while at most a third of its
    entries are holes), where `Counter(own)` and `dict(own)` clone only a table without holes and
    else insert each key again (3,000 keys, one deleted: 13 against 50 us a copy)."""
    return dict.copy(own)


class _Ones(Mapping[str, int]):
    """A joint answer's own decisions on the picture its writes leave (`OcmLive._answered`): one
    on each cluster it picked, read off the set of its picks itself, with no dict made of them (a
    PickAll's thousands: `dict.fromkeys` of them cost 0.5-2.6 ms a cluster event). Its keys come
    in the set's order, the order `dict.fromkeys(picks, 1)` gives its keys (both walk the set's
    table): `get`, `in` and iterating it read the same as of that dict. A set made of its keys
    (`_rise_patch`'s, as of a Counter's or a plain dict's counts: only an exact dict's are
    presized) may walk them in another order; that patch's order is read by none of its readers
    (`_quiet_bound` and `_few_threats` take the greatest rise, then the least position, each
    position once; `_threats_few` sorts the threats; `_patched` writes by position). Read only,
    as every answer's counts."""

    __slots__ = ("picks",)

    def __init__(self, picks: frozenset[str]) -> None:
        self.picks = picks

    def __getitem__(self, c: str) -> int:
        if c in self.picks:
            return 1
        raise KeyError(c)

    def get(self, c: str, default: Any = None) -> Any:
        return 1 if c in self.picks else default

    def __contains__(self, c: object) -> bool:
        return c in self.picks

    def __iter__(self) -> Iterator[str]:
        return iter(self.picks)

    def __len__(self) -> int:
        return len(self.picks)


_ONES_FROM = 64  # a joint answer picking more clusters keeps its own counts as `_Ones`


def _ones(picks: frozenset[str]) -> Mapping[str, int]:
    """`_Ones` of a joint answer's picks (a dict where they are few: its `get` is C's)."""
    return _Ones(picks) if len(picks) > _ONES_FROM else dict.fromkeys(picks, 1)


def _request_reads(
    m: Manifest, policy: Policy, required: tuple | None, scope: tuple[str, ...]
) -> tuple[Any, ...]:
    """What a Placement's request is made of beside what it holds (`OcmLive._request`)."""
    return (
        m.name,
        m.namespace,
        policy.count,
        policy.preferences,
        policy.spread,
        policy.tolerations,
        required,
        scope,
    )


def _holdings(own: Mapping[str, int]) -> list[str]:
    """The clusters a Placement holds (a decision or more on each), in name order. Its decisions
    per cluster are never kept at 0 nor below (`OcmLive._owned`): every key at once where the
    least count is positive, else those counted above 0."""
    if not own or min(own.values()) > 0:
        return sorted(own)
    return sorted(c for c, count in own.items() if count > 0)


_JUDGED_FIELDS = ("seen", "own", "mates", "up", "down", "at")  # what `OcmLive._judged_now` moves
_judged_values = attrgetter(*_JUDGED_FIELDS)


def _put_judged(answer: _Answer, values: tuple[Any, ...]) -> None:
    answer.seen, answer.own, answer.mates, answer.up, answer.down, answer.at = values


_AnswerNote = tuple[Callable[[_Answer, tuple[Any, ...]], None], _Answer, tuple[Any, ...]]


def _put_answers_back(notes: list[_AnswerNote]) -> None:
    """`OcmLive._checked`'s one note for every answer its checks moved (`OcmLive._notes`): each
    answer's fields as they stood before a move, put back by the note a move alone would have
    made (`_put_judged`: `_judged_as_is`' six fields; `_put_back`: `_keep`'s every field), the
    last first (as notes one per move are undone)."""
    for put, answer, values in reversed(notes):
        put(answer, values)


def _put_logged_back(last: dict[str, int], clusters: list[str], olds: list[int | None]) -> None:
    """`OcmLive._log`'s undoing of `_last_logged`: each cluster's last position as it stood
    before the entries (None: it had none; a cluster logged twice has the same on both)."""
    for c, old in zip(clusters, olds, strict=True):
        if old is None:
            last.pop(c, None)
        else:
            last[c] = old


def _put_back(answer: _Answer, values: tuple[Any, ...]) -> None:
    for name, value in zip(_ANSWER_FIELDS, values, strict=True):
        setattr(answer, name, value)


@dataclass(frozen=True, slots=True)
class _Moves:
    """A batch's moves, shared by its answers: per cluster how many answers add it and how many
    give it up; one answer's own (`up`, `down`) taken off gives the range of the others' moves on
    its picture."""

    added: Counter[str]
    dropped: Counter[str]

    def range(self, c: str, up: frozenset[str], down: frozenset[str]) -> tuple[int, int]:
        return -(self.dropped[c] - (c in down)), self.added[c] - (c in up)


@dataclass(frozen=True, slots=True)
class _Drift:
    """The clusters whose count moved since a picture (and its batch-mates' moves), by name, each
    with its count then and now and the moves its batch-mates made on it."""

    mates: _Moves | None
    names: list[str]
    index: Mapping[str, int]  # a dict, or a big drift's `_Places`
    then: np.ndarray
    now: np.ndarray
    added: np.ndarray
    dropped: np.ndarray
    # A drift read off the log's arrays (`_drift_of_log`): its names' places in the log's names
    # in order, and that order (`_LogIndex.ordered`, a new array whenever it grows).
    places: np.ndarray | None = None
    ordered: np.ndarray | None = None

    def up_to_count(self, name: str) -> int:
        """How many moved clusters' names are at most `name` (the names are in order: the first
        so many)."""
        return bisect_right(self.names, name)


class _Places(Mapping):
    """A big drift's positions by name (`_Drift.index` of a drift read off the log of at least
    `_PLACES_FROM` clusters): looked up through the log's numbers (`_LogIndex.number`, one dict
    for every drift of a floor) and the drift's position of each number (-1: not moved), made by
    one numpy pass, not a dict of thousands of names per drift (its names hashed and inserted
    one by one, tens of drifts an event). A number given after it was made (a cluster first in
    the log since) is no name of it."""

    __slots__ = ("_at", "_names", "_number", "_size")

    def __init__(self, number: dict[str, int], at: array, names: list[str]) -> None:
        self._number, self._at, self._size, self._names = number, at, len(at), names

    def get(self, name: str, default: Any = None) -> Any:
        k = self._number.get(name)
        if k is None or k >= self._size:
            return default
        place = self._at[k]
        return default if place < 0 else place

    def __contains__(self, name: object) -> bool:
        k = self._number.get(name)  # type: ignore[call-overload]
        return k is not None and k < self._size and self._at[k] >= 0

    def __getitem__(self, name: str) -> int:
        place = self.get(name)
        if place is None:
            raise KeyError(name)
        return place

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


_PLACES_FROM = 1024  # `_Places`: a drift's clusters from which its positions are not a dict


class _LogIndex:
    """The count log as arrays, for `OcmLive._drift`: each entry's cluster (by a number given in
    the order first seen), its count before and the position of the previous entry of the same
    cluster (-1: none since the floor). An entry is a cluster's first after position `start`
    exactly when its previous entry lies before `start`, so a picture's moved clusters and their
    counts then are a comparison over the entries since it, not a dict per picture. Taken on as
    the log grows (an entry each), cut back where the log is cut back (`_unlog`: the entries'
    previous entries stand) and made afresh when its floor moves."""

    def __init__(self) -> None:
        self.floor = -1
        self.length = 0
        self.number: dict[str, int] = {}
        self.names: list[str] = []  # by number
        self.last: list[int] = []  # by number: its last entry (-1: none)
        self.clusters = np.zeros(0, dtype=np.int64)
        self.before = np.zeros(0, dtype=np.int64)
        self.previous = np.zeros(0, dtype=np.int64)
        self.rank = np.zeros(0, dtype=np.int64)  # by number: its place among the names in order
        self.ordered = np.zeros(0, dtype=object)  # the names in order
        self.ordered_names: list[str] = []  # and as a list
        self.ranked = 0  # the names `rank` orders (the first so many numbers)
        self.order = np.zeros(0, dtype=np.int64)  # by place: its number (`rank`'s inverse)
        # By number: its count as the counts stood at `now_length` entries (`counts_now`), and
        # the numbers whose entries were cut back since (their counts put back with them).
        self.now = np.zeros(0, dtype=np.int64)
        self.now_length = -1  # -1: not made
        self.restale: list[int] = []
        # The drifts read off it at its length, by the entry they start at (`_drift_of_log`:
        # pictures with no entry between them have the same drift); let go as it moves.
        self.drifts: dict[int, Any] = {}

    def cut_back(self, length: int) -> None:
        """The log cut back to `length` entries: each cluster's last entry is then the previous
        entry of its earliest entry let go."""
        if length >= self.length:
            return
        last = self.last
        for at in range(self.length - 1, length - 1, -1):
            last[self.clusters[at]] = int(self.previous[at])
        if self.now_length >= 0:
            self.restale.extend(self.clusters[length : self.length].tolist())
            self.now_length = min(self.now_length, length)
        self.drifts.clear()
        self.length = length

    def sync(self, clusters: list[str], before: list[int], floor: int) -> None:
        if floor != self.floor:
            self.__init__()  # type: ignore[misc]
            self.floor = floor
        length = len(clusters)
        if length <= self.length:
            return
        self.drifts.clear()
        if length > len(self.clusters):
            size = max(length, 2 * len(self.clusters), 1024)
            for name in ("clusters", "before", "previous"):
                grown = np.zeros(size, dtype=np.int64)
                grown[: self.length] = getattr(self, name)[: self.length]
                setattr(self, name, grown)
        number, names, last = self.number, self.names, self.last
        start = self.length
        numbers = []
        previous = []
        for at, c in enumerate(clusters[start:length], start):
            k = number.get(c)
            if k is None:
                k = number[c] = len(names)
                names.append(c)
                last.append(-1)
            numbers.append(k)
            previous.append(last[k])
            last[k] = at
        self.clusters[start:length] = numbers
        self.before[start:length] = before[start:length]
        self.previous[start:length] = previous
        self.length = length
        if self.ranked != len(names):
            self._rank()

    def _rank(self) -> None:
        """The names in order again (`rank`, `ordered`, `order`), each a new array: the few new
        numbers (a join's cluster, one first logged since the floor) put in their places among
        the names already in order (found by bisection; one insertion pass over the arrays), not
        every name sorted again (a Python sort of ~12,000 names, several ms a join); many new
        (the first sync of a floor) all sorted. The same arrays either way: the names are
        distinct, and new names at one place go in their own order."""
        names, ranked = self.names, self.ranked
        if ranked and 4 * (len(names) - ranked) <= ranked:
            new = sorted(range(ranked, len(names)), key=names.__getitem__)
            fresh = [names[k] for k in new]
            at = list(map(bisect_left, repeat(self.ordered_names), fresh))
            self.ordered = np.insert(self.ordered, at, np.array(fresh, dtype=object))
            self.order = np.insert(self.order, at, np.asarray(new, dtype=np.int64))
            self.ordered_names = self.ordered.tolist()
        else:
            ordered = sorted(range(len(names)), key=names.__getitem__)
            self.ordered_names = [names[k] for k in ordered]
            self.ordered = np.array(self.ordered_names, dtype=object)
            self.order = np.asarray(ordered, dtype=np.int64)
        self.rank = np.empty(len(names), dtype=np.int64)
        self.rank[self.order] = np.arange(len(names), dtype=np.int64)
        self.ranked = len(names)

    def counts_now(self, counts: Mapping[str, int]) -> np.ndarray:
        """Each cluster's count now, by number (`counts` as they stand with the log synced: every
        count moved is logged first, so only the clusters of the entries since it was last read,
        and of the entries cut back since, can have moved): read once per cluster moved, not once
        per drift (an event reads tens of drifts of thousands of clusters each)."""
        names = self.names
        if self.now_length < 0:
            self.now = np.fromiter(map(counts.get, names, repeat(0)), np.int64, len(names))
        else:
            if len(self.now) < len(names):
                grown = np.zeros(max(len(names), 2 * len(self.now)), dtype=np.int64)
                grown[: len(self.now)] = self.now
                self.now = grown
            fresh = {*self.clusters[self.now_length : self.length].tolist(), *self.restale}
            if fresh:
                numbers = np.fromiter(fresh, np.int64, len(fresh))
                self.now[numbers] = np.fromiter(
                    map(counts.get, map(names.__getitem__, fresh), repeat(0)), np.int64, len(fresh)
                )
        self.restale.clear()
        self.now_length = self.length
        return self.now

    def since(self, start: int) -> tuple[np.ndarray, np.ndarray]:
        """The clusters first moved at entry `start` or later (their places among the names in
        order, ascending) and each one's count before its first such entry."""
        firsts = np.flatnonzero(self.previous[start : self.length] < start) + start
        places = self.rank[self.clusters[firsts]]
        then = np.empty(self.ranked, dtype=np.int64)
        moved = np.zeros(self.ranked, dtype=bool)
        moved[places] = True
        then[places] = self.before[firsts]
        at = np.flatnonzero(moved)
        return at, then[at]


class _Made(dict):
    """One object per name, made by `make` when first looked up (`OcmLive._shared`'s shared
    decisions and picks; a cluster's traits, read as it is looked at)."""

    def __init__(self, make: Callable[[str], Any]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, name: str) -> Any:
        found = self[name] = self.make(name)
        return found


# A witness of a joined cluster's cell (`OcmLive._witness`) is looked for among the pool's first
# this many clusters, in its order (so the same on every run): past it the run judges.
_WITNESS_LOOK = 512
_WITNESSES_KEPT = 20_000  # witnesses kept, by Placement and cell, before all are forgotten

_NO_COUNTS: Mapping[str, int] = {}  # a Placement holding nothing: its decisions per cluster (read only)
_NONE = np.iinfo(np.int64).min // 4  # a rise that is no rise (a pick's: not left out)
_LOUD = object()  # `_quiet_bound`: a moved cluster may threaten; judged whole
_FEW = 16  # `_few_threats`: past this many unpatched threats an answer's rises are judged whole
_RISING_BY_NAME = 64  # `_rising_in_scope`: up to this many rising clusters, their traits read by name


class OcmLive:
    def __init__(
        self, manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None
    ) -> None:
        self.seed = seed
        self.now = now
        # Every change of the model goes through the journal (or notes its undoing there), which
        # the hub marks at each event: an event it refuses after the model took it in is undone.
        self.journal = Journal()
        self.clusters: dict[str, ManagedCluster] = {}
        self.sets: dict[str, ClusterSet] = {}
        self.set_objects: dict[str, Manifest] = {}
        self.binding_objects: dict[tuple[str, str], Manifest] = {}
        self.bindings = Bindings({})
        self.score_objects: dict[str, dict[str, Manifest]] = defaultdict(dict)  # cluster -> name -> score
        self.valid: dict[str, dict[str, int]] = {}
        self.every: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self.decision_objects: dict[tuple[str, str], tuple[str, list[str], Manifest]] = {}
        self.decided_by: dict[str, set[tuple[str, str]]] = defaultdict(set)  # placement -> its decisions
        self.counts: Counter[str] = Counter()
        self.by_count: dict[int, set[str]] = defaultdict(set)  # count -> the clusters with it
        self.own: dict[str, dict[str, int]] = defaultdict(Counter)  # fresh ones plain (`_owned`)
        self.placements: dict[str, Manifest] = {}
        self.policies: dict[str, Policy] = {}  # the Placements upstream syncs (not disabled, deleting)
        self.by_namespace: dict[str, dict[str, Policy]] = defaultdict(dict)  # the same, by namespace
        self.memberships: dict[str, frozenset[str]] = {}
        self.cel: dict[str, CelOutcome] = {}
        self.cel_of: dict[str, frozenset[str]] = {}  # cluster -> the CEL traits it satisfies
        self.cel_sources: Counter[str] = Counter()  # CEL expression -> the synced Placements reading it
        self.pool = ClusterPool(journal=self.journal)
        # The counted clusters the pool does not hold (`_taken`'s absent load: gone, decisions
        # still naming them), kept as the two move: a count appearing or going (`_recount`), a
        # cluster put or dropped (`_remodel`); through the journal, so an undo puts it back.
        self._uncounted: set[str] = set()
        self.requests: dict[str, PlacementRequest] = {}
        # The Placements whose request has a toleration with seconds (`_rearm` asks these
        # alone), kept by `_set_request` through the journal.
        self.timed: set[str] = set()
        self.answers: dict[str, _Answer] = {}
        self.misjudged: dict[str, _Misjudged] = {}  # the misconfigured, as their last sync read them
        self.dirty: set[str] = set()
        self.enqueued: set[str] = set()
        self.timers: Timers[str] = Timers(journal=self.journal)
        # The count log: per cluster a take moved net, the take's position, the cluster, its count
        # before (`_log_moved`).
        self.log_seq: list[int] = []
        self.log_cluster: list[str] = []
        self.log_before: list[int] = []
        self.floor = 0  # the oldest position the log still holds
        # Each cluster's last entry's position (`_log`; put back with the entries an undo takes
        # off, kept through a cut: an entry cut lies below the floor, before any picture judged):
        # whether a cluster moved since a picture, one lookup (`_quiet`).
        self._last_logged: dict[str, int] = {}
        # `_moved_since`'s and `_drift`'s answers by picture: the log's length and floor each was
        # judged at (taken on from there while the log only grows) and the event last asking it
        # (`_prune`), and the event that last pruned them.
        self._moved: dict[int, tuple[int, int, dict[str, int], int]] = {}
        self._drifts: dict[tuple[int, int], tuple[int, int, _Drift, int]] = {}
        self._kept_from = 0
        # The log as arrays (`_drift_of_log`) and the length it still holds as read (`_unlog`).
        self._log_index = _LogIndex()
        self._log_valid = 0
        self._values: dict[str, list[tuple[float, str]]] = {}  # _by_value's answers
        self._ends_of: dict[tuple, tuple[float, float] | None] = {}  # _shared_ends' (one event's)
        self._ends_walked: dict[tuple, tuple[int, float, str] | None] = {}  # _end's (one event's)
        # `_kept_walk`'s: per (property, side, filters number) a walk, the length of the log of
        # models replaced it was walked at, and the last pair it looked at (None: any move
        # walks it again); the log of the models replaced (each as it was and as it is).
        self._walks: dict[tuple, tuple[tuple[int, float, str] | None, int, tuple[float, str] | None]] = {}
        self._remodels: list[tuple[Cluster | None, Cluster | None]] = []
        # `_terms_kept`'s: per required terms (by value) each cluster's verdict, kept while its
        # model is not replaced; the log's length read up to.
        self._labels_kept: dict[tuple, dict[str, bool]] = {}
        self._labels_seen = 0
        # `_first_end`'s: per Placement its request, the clock and the taint log's length it was
        # found at and the ends tolerated then, in order and per held cluster with a taint; the
        # log: each cluster whose taints moved (put in, replaced or dropped by `_remodel`; an
        # event undone leaves its names there, so ends kept are found again, and `_forget` lets
        # the ends go).
        self._first_ends: dict[
            str, tuple[PlacementRequest, datetime, int, list[datetime], dict[str, list[datetime]]]
        ] = {}
        self._retainted: list[str] = []
        # `_ends_in`'s: the moment the pool's clusters with a toleration's end after it are kept
        # from (the first interval's start; None: none asked yet)
        self._ends_from: datetime | None = None
        # `_ends_in`'s: per toleration its ends on the pool's clusters (`_TimedEnds`)
        self._ends_made: dict[Toleration, _TimedEnds] = {}
        # `_walk_stands`' refusals: per key, the walk kept that it found not standing
        self._unstood: dict[tuple, tuple] = {}
        # `_walk_moved`'s refusals, as `_unstood`'s
        self._unmoved: dict[tuple, tuple] = {}
        # `_log_since`'s: per (property, side, start) the log's length and its answer there;
        # per property, how many of the log's entries were read, the places of those having it
        # and each one's least and greatest pair of it
        self._log_reads: dict[tuple, tuple[int, tuple[float, str] | None]] = {}
        self._log_pairs: dict[str, tuple[list[int], list[int], list[tuple], list[tuple]]] = {}
        self._feasible_of: dict[tuple, tuple[_Drift, bool]] = {}  # _any_feasible's (one event's)
        self._orders: dict[int, tuple[np.ndarray, list[int]]] = {}  # _rise_order's (one event's)
        self._rising: dict[tuple, tuple[np.ndarray, list[int]]] = {}  # _rising_in_scope's (one event's)
        # `_filters_number`'s: per request (by identity) the number of its filters, each distinct
        # value numbered once.
        self._numbered: dict[int, tuple[PlacementRequest, int]] = {}
        self._filter_numbers: dict[tuple, int] = {}
        self._held: dict[int, tuple[PlacementRequest, frozenset[str]]] = {}  # _held_of's
        self._facts: dict[int, tuple[PlacementRequest, tuple[Any, ...]]] = {}  # `_facts_of`'s
        self._weakest: dict[int, tuple[dict[str, int], tuple[str, int]]] = {}  # _stands_margins'
        # `_quiet`'s: per picks dict (by identity) and request, `_held_by_ceiling`'s answer
        self._ceiling_held: dict[int, tuple[dict[str, int], PlacementRequest, tuple[int, str] | None]] = {}
        # The answers' fields as they stood before the checks moved them, one take's (`_checked`:
        # one journal note puts them all back, the last first; None: outside the checks, each
        # move noted alone).
        self._notes: list[_AnswerNote] | None = None
        # `_checked`'s per request (by identity): `_facts_of`'s reads, Balance weight, `alone`,
        # `scored`, whether `_ran_out` may refuse it (a PickN reading a sorter, with a toleration
        # with seconds), and whether it is judged as is with no relevant change (a PickAll, or
        # no Balance).
        self._sorts: dict[int, tuple[PlacementRequest, frozenset, int, bool, bool, bool, bool]] = {}
        # `_shape`'s: each distinct value of a part of the requests (their tolerations, their
        # required terms, their score inputs) and the one `_Shape` standing for it; and `_asked`'s
        # answers of the clusters the checks ask of (the event's changes), per shape (`_feasible`).
        self._shapes: dict[tuple, _Shape] = {}
        self._asks: dict[tuple, tuple[Any, ...]] = {}
        self._asks_now: datetime | None = None
        self._ceilings: dict[int, tuple[PlacementRequest, int, int]] = {}  # _ceiling's, per request
        self._upper_kept: dict[int, tuple[PlacementRequest, tuple[Any, ...]]] = {}  # _upper_parts'
        # `_touched_in`'s: the event's changes, each one's touched keys and their union (None: a
        # cluster came or went), and per change of the taints alone what `_relevant` reads of the
        # cluster for every request (`_taint_facts`).
        self._touched_of: (
            tuple[
                Mapping,
                dict[str, tuple[frozenset[tuple[str, str]] | None, bool]],
                frozenset | None,
                dict[str, tuple[bool, bool]],
            ]
            | None
        ) = None
        # `_request`'s: per Placement, what its last request was made of and that request (its
        # holdings as they came back since); each cluster's held decision, shared (frozen).
        self._made: dict[str, tuple[tuple[Any, ...], PlacementRequest]] = {}
        self._decision = _Made(_held_decision)
        self._choice = _Made(Choice)  # each cluster's pick in an answer given (`_given`), shared
        # Per PickAll, the last answer given (`_given_result`) and its picks: the next one, that
        # answer with one cluster put in or taken out, is patched from them (`_given_kept`).
        self._given_last: dict[str, tuple[tuple[str, ...], tuple[Choice, ...]]] = {}
        self._entries = _Entries()  # emit's decision entries (OcmContext.entries), shared
        self._entries.given = self._given_last  # a given answer's names, read by emit
        self._ranked: list[tuple[int, set[str]]] | None = None  # _by_count_desc's
        self._in_trait: dict[tuple[int, str], tuple[_Drift, np.ndarray]] = {}  # _in_scope_at's (one event's)
        # `_column`'s (one take's)
        self._columns: dict[tuple[int, tuple[str, str]], tuple[Any, np.ndarray, np.ndarray]] = {}
        self._upper_bases: dict[tuple[int, int], tuple[_Drift, np.ndarray]] = {}  # _uppers' (one event's)
        # Per external score name, a range holding every value of it any model put in the pool
        # ever had, and 0 (`_uppers`): it only widens, so it holds every cluster the pool holds
        # or gets back from the journal (kept out of it: an undo narrows nothing it needs).
        self._score_hull: dict[str, tuple[int, int]] = {}
        self._trait_masks: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # _trait_over_log's (one event's)
        self._bases: dict[
            tuple[int, int, int], tuple[_Drift, tuple[np.ndarray, ...]]
        ] = {}  # _rises' (one event's)
        # `_shared_rises`' (one event's)
        self._shared_rise: dict[tuple[int, int, int, int, bool], tuple[_Drift, np.ndarray]] = {}
        # `_unit_rises`': per picture's drift, busiest counts, batch-mates' moves or not and the
        # sign of the Balance weight, the weight-1 rises and their order by rise (one event's)
        self._units: dict[tuple[int, int, int, bool, bool], tuple[_Drift, np.ndarray, list[int]]] = {}
        self._flipped: dict[str, str] = {}  # PickAlls solved for one cluster's verdict alone (one event's)
        # `_given`'s answers, each with its clusters as a set (one batch's)
        self._given_sets: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        # `_given`'s answers, each with what its request holds, its cluster and whether it passes
        # (one batch's): `_taken_off` reads the one cluster they differ by
        self._given_flips: dict[str, tuple[tuple[str, ...], frozenset[str], str, bool]] = {}
        self._emptied_of: dict[tuple[str, ...], tuple[Mapping, bool]] = {}  # `_empties`' (one event's)
        # `_came_or_went`'s: each witness found, by Placement and cell (checked again when read);
        # whether a domain is carried, for one event's changes.
        self._witnesses: dict[tuple[str, tuple[str | None, ...]], str] = {}
        self._carried_of: tuple[Mapping | None, dict[tuple[str, bool, str], bool]] = (None, {})
        # `_first_witness`'s: by filters, spread keys and cell, for one event's changes, the
        # names of the pool's first `_WITNESS_LOOK` that pass all but a Placement's own picks
        # and holds, and the rest of that look not read yet.
        self._looked_of: tuple[Mapping | None, dict[Any, Any]] = (None, {})
        self._runs: set[str] = set()  # the event's refused non-strict PickNs, judged by their run
        # `_in_namespace`'s answers by namespace and set, each with the epoch of the namespace's
        # Placements it was made at (`_ns_epoch`: renewed through the journal at every Placement's
        # change there, from a count that never goes back; an undo puts the epoch back with the
        # Placements, and what was made at it holds again).
        self._in_ns: dict[tuple[str, str], tuple[int, set[str]]] = {}
        self._ns_epoch: dict[str, int] = {}
        self._epochs = 0
        self.seq = 0
        self._recounted: set[str] = set()
        # The decisions' moves a take read, counted at the end of its reading (`_recount_all`);
        # None outside it (counted as read).
        self._recounts: list[Mapping[str, int]] | None = None
        # Within a take's reading, each cluster whose count it moved: its count before the take
        # (`_recount_all` fills it, `_log_moved` logs it at the end of the reading); None outside.
        self._first_counts: dict[str, int] | None = None
        self._own_fresh: set[str] = set()
        self._own_flips: dict[str, dict[str, int]] = {}
        # Per Placement, its counts as the take found them, where it made them afresh (`_owned`;
        # None: it held none); and a request known to hold exactly the clusters of a Placement's
        # counts, with those counts (`_held_now`: the dict itself, never moved after).
        self._own_was: dict[str, dict[str, int] | None] = {}
        self._held_own: dict[str, tuple[PlacementRequest, dict[str, int]]] = {}
        for m in manifests:
            self._read(m.kind, None, m.obj, now, initial=True)
        self.bindings = read_bindings(self.binding_objects.values(), self.sets)
        for name in self.clusters:
            self.memberships[name] = self._memberships(self.clusters[name])
            self._rescore(name, now)
        self._recompute_cel()
        for name in self.clusters:
            self._remodel(name)
        # Each Placement's margins as a sync now would judge it: greedy, each alone against the
        # others as they stand (SolveOptions.alone: no answer of the pass moves the counts another
        # sees, so each is judged on the hub's counts, its own decisions left out, the busiest
        # count as `_most_for` reads it). Where that sync would pick otherwise than it holds (an
        # optimal first solve's answer), its margins say nothing: not strict.
        taken = self._taken(set(self.placements), now, written=False)
        assert taken.answered is not None
        taken.answered(solve(taken.batch, SolveOptions(mode="greedy", seed=seed, alone=True)))
        # A spread's greedy run says what its sync writes in greedy mode only (optimal's spread
        # answer is its own search's).
        greedy = result is not None and result.stats.mode == "greedy"
        for key, answer in self.answers.items():
            held = frozenset(self.own.get(key, ()))
            answer.ordered = answer.ordered and greedy
            if answer.selected != held:
                answer.strict, answer.ordered, answer.whole, answer.selected = False, False, False, held
                # Greedy mode: its sync alone would write something else (the first solve synced
                # it before the Placements after it moved): solved when next enqueued, as a sync
                # would. (An optimal answer is its joint search's: it stands while nothing it
                # reads moves.)
                if greedy:
                    self.journal.add(self.dirty, key)

    # -- reading --------------------------------------------------------------------------------

    def _read(
        self,
        kind: str,
        before: Obj | None,
        after: Obj | None,
        now: datetime,
        *,
        initial: bool = False,
        checked: Any = None,
    ) -> Any:
        """One object's change kept (read first by `read`); what it names, for the reach.
        `checked`: what `_check` read of `after` (a cluster, a decision's names, a policy), not
        read again."""
        obj = after if after is not None else before
        assert obj is not None
        name, namespace = obj["metadata"]["name"], obj["metadata"].get("namespace") or ""
        m = manifest(after) if after is not None else None
        j = self.journal
        if kind == n.MANAGED_CLUSTER:
            if m is None:
                j.pop(self.clusters, name)
            else:
                j.set(self.clusters, name, checked if checked is not None else read_cluster(m))
        elif kind == n.CLUSTER_SET:
            if m is None:
                j.pop(self.sets, name)
                j.pop(self.set_objects, name)
            else:
                j.set(self.sets, name, read_set(m))
                j.set(self.set_objects, name, m)
        elif kind == n.SET_BINDING:
            if m is None:
                j.pop(self.binding_objects, (namespace, name))
            else:
                j.set(self.binding_objects, (namespace, name), m)
        elif kind == n.SCORE:
            if m is None:
                j.pop(self._inner(self.score_objects, namespace, dict), name)
            else:
                j.set(self._inner(self.score_objects, namespace, dict), name, m)
        elif kind == n.DECISION:
            self._put_decision((namespace, name), m, checked)
        elif kind == n.PLACEMENT:
            key = f"{namespace}/{name}"
            j.pop(self.placements, key)
            self._count_sources(j.pop(self.policies, key), -1)
            j.pop(self._inner(self.by_namespace, namespace, dict), key)
            if m is None:  # gone: what it held and was answered goes with it (no check reads it)
                self._set_request(key, None)
                j.pop(self.answers, key)
                j.pop(self.misjudged, key)
            else:
                j.set(self.placements, key, m)
                policy = checked[0] if checked is not None else _placement_policy(m, self._entries)
                if policy is not None:
                    j.set(self.policies, key, policy)
                    j.set(self.by_namespace[namespace], key, policy)
                    self._count_sources(policy, 1)
        return None

    def _inner(self, outer: dict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
        """The mapping's value at `key`, made (through the journal) where there is none."""
        inner = outer.get(key)
        if inner is None:
            inner = make()
            self.journal.set(outer, key, inner)
        return inner

    def _put_decision(
        self,
        key: tuple[str, str],
        m: Manifest | None,
        checked: tuple[tuple[str, str], list[str]] | None = None,
    ) -> None:
        """A PlacementDecision kept (None: gone): its Placement's decisions per cluster and every
        cluster's count moved by what it lists now against what it listed. A decision written
        again for the same Placement moves only the clusters whose number of entries differs (a
        sync rewriting hundreds of the same clusters touches none of them); the clusters whose
        count moved are noted for the event (`_recounted`). The moves are one diff of the two
        lists' counts, taken in at once (`_owned`, `_recount`): a note in the journal per map,
        not per cluster; within a take's reading, the counts are moved once for all its
        decisions when they are read (`_recounts`, `_recount_all`). A decision written again for
        the Placement that owned it (its own writes coming back) is replaced in place: its
        Placement's set of decision keys (`decided_by`) would have it taken out and put back,
        which leaves it as it is (nothing reads those sets' order: `_taken` sorts them, and
        `decision_objects` is read by key alone)."""
        j = self.journal
        placement, names = None, None
        if m is not None:
            owner, names = checked if checked is not None else _decision_names(m, labels=self._entries.labels)
            placement = f"{owner[0]}/{owner[1]}"
        old = self.decision_objects.get(key)
        was = old[0] if old is not None else None
        if was is not None and was == placement:  # written again for the same Placement
            j.set(self.decision_objects, key, (placement, names, m))
        else:
            if old is not None:
                j.pop(self.decision_objects, key)
                decided = self.decided_by[was]
                j.discard(decided, key)
                if not decided:
                    j.pop(self.decided_by, was)
            if placement is not None:
                j.set(self.decision_objects, key, (placement, names, m))
                j.add(self._inner(self.decided_by, placement, set), key)
        listed = old[1] if old is not None else []
        moved = _moved(listed, names or [])
        if was is not None and placement is not None and was != placement:  # moved to another
            self._owned(was, {c: -k for c, k in Counter(listed).items()})
            self._owned(placement, Counter(names))
        elif was is not None or placement is not None:
            self._owned(was if was is not None else placement, moved)  # type: ignore[arg-type]
        if self._recounts is not None:  # within take's reading: counted once after it
            if moved:
                self._recounts.append(moved)
        else:
            self._recount(moved)

    def _owned(self, placement: str, moved: Mapping[str, int]) -> None:
        """The Placement's decisions per cluster moved by `moved` (none kept at 0; the Placement
        none once it holds none). Its counts are changed in place only within the take that made
        them: a take's first move of them makes a fresh dict (`_own_fresh`, put back whole by
        the journal), so the counts an answer was judged with (`_moved_on`: the dict itself,
        not a copy; a PickAll holds hundreds, copied at each of its checks) never move after.
        A take reads all its changes before it checks anything, so none is kept mid-read. The
        copy is a plain dict (`_copy_counts`; every reader reads the counts with `get`): a taint
        or a leave deletes its cluster from each PickAll's counts, and the next take's copy of
        those thousands is then cloned in C all the same."""
        j = self.journal
        own = self.own.get(placement)
        moves = [(c, delta) for c, delta in moved.items() if delta]
        if moves:
            if own is None or placement not in self._own_fresh:
                if placement not in self._own_fresh:
                    self._own_was[placement] = own  # as the take found them (`_held_now`)
                own = _copy_counts(own) if own is not None else {}
                j.set(self.own, placement, own)
                self._own_fresh.add(placement)
            get = own.get
            flips = self._own_flips.get(placement)
            if flips is None:
                flips = self._own_flips[placement] = {}
            for c, delta in moves:
                was = get(c, 0)
                count = was + delta
                if count:
                    own[c] = count
                else:
                    del own[c]
                if not was or not count:  # put in or taken out (none is kept at 0)
                    flip = flips.get(c, 0) + (1 if count else -1)
                    if flip:
                        flips[c] = flip
                    else:
                        del flips[c]
        if own is not None and not own:
            j.pop(self.own, placement)

    def _recount(self, moved: Mapping[str, int]) -> None:
        """Each cluster's count moved by its (nonzero) delta, at once: the count log written
        (each cluster's count before; within a take, net at the end of its reading,
        `_log_moved`), the counts and the clusters by count moved, one
        note in the journal for each; the clusters noted for the event (`_recounted`)."""
        if moved:
            self._recount_all([moved], self._first_counts)

    def _recount_all(self, moves: Sequence[Mapping[str, int]], first: dict[str, int] | None = None) -> None:
        """`_recount` of each of `moves` in turn (a take's decisions read, in the order read), in
        one pass: each cluster's count before its first move kept for the log (`first`), the
        same counts, clusters by count and `_uncounted` after each step, and the same clusters
        noted, with one note per map in the journal for the whole
        take (`keep` takes every count before the first move, which is what putting them back
        puts, each listed name in turn). Nothing reads the counts, the log or the pool while
        a take reads its changes (the pool moves in `_settle_model`, after), so counting them
        at its end is counting them as read. A join's or leave's writes coming back are ~100
        decisions of a move or two each: one `_recount` each was a log part, a keep, a
        journal note and a set update each. `first`: the take's counts before its first move,
        taken on (each cluster's first count kept) and logged at the end of its reading
        (`_log_moved`); None: these moves logged now, as one take."""
        j, counts, by_count, pool = self.journal, self.counts, self.by_count, self.pool
        names: list[str] = []
        for moved in moves:
            names += moved
        j.keep(counts, names)
        before = []
        steps = []  # each move's (cluster, count before, after, its old set let go, its new set made)
        for moved in moves:
            for c, delta in moved.items():
                old = counts.get(c, 0)
                before.append(old)
                new = old + delta
                popped = None
                if old:
                    held = by_count[old]
                    held.discard(c)
                    if not held:
                        popped = by_count.pop(old)
                made = False
                if not old and new and c not in pool:  # counted now, not held (`_uncounted`)
                    j.add(self._uncounted, c)
                elif old and not new:
                    j.discard(self._uncounted, c)
                if new:
                    counts[c] = new
                    held = by_count.get(new)
                    if held is None:
                        held = by_count[new] = set()
                        made = True
                    held.add(c)
                else:
                    del counts[c]
                steps.append((c, old, new, popped, made))
                if made or popped is not None:  # a count gained or lost its set
                    self._ranked = None
        now = first is None
        if now:
            first = {}
        for c, old in zip(names, before, strict=True):
            first.setdefault(c, old)
        if now:
            self._log_moved(first)
        if j.recording:
            j.note(partial(self._uncount, steps))
        self._recounted.update(names)

    def _uncount(self, steps: list[tuple[str, int, int, set[str] | None, bool]]) -> None:
        """`_recount`'s moves of the clusters by count undone, the last first (the sets it let go
        put back as they were)."""
        by_count = self.by_count
        self._ranked = None  # (sets put back and let go)
        for c, old, new, popped, made in reversed(steps):
            if new:
                by_count[new].discard(c)
                if made:
                    del by_count[new]
            if popped is not None:
                by_count[old] = popped
            if old:
                by_count[old].add(c)

    def _log_moved(self, first: Mapping[str, int]) -> None:
        """One log entry per cluster whose count a take moved net, at its count before the take
        (`first`: each cluster it moved, its count then), in the order first moved. A drift
        reads, of the entries after a picture, each cluster's first count then and its count
        now, and a take's entries are all at one position (a picture is before all or none of
        them), so a cluster moved and moved back within one take (a join's writes coming back
        move a cluster out of each later decision of a PickAll and into the next) is read as
        one that never moved: logging it would only put it in every older picture's drift."""
        counts = self.counts
        logged = [c for c, old in first.items() if counts.get(c, 0) != old]
        if logged:
            self._log(logged, list(map(first.__getitem__, logged)))

    def _log(self, clusters: list[str], before: list[int]) -> None:
        """The count log takes one entry per cluster (its count before), at this position: in
        parts that each fill it to its limit, the oldest half let go after each (as entry by
        entry), one note in the journal per part."""
        j = self.journal
        last = self._last_logged
        if j.recording:  # each cluster's last position as it stood (None: none), read in C
            j.note(partial(_put_logged_back, last, clusters, list(map(last.get, clusters))))
        last.update(zip(clusters, repeat(self.seq)))
        at = 0
        while at < len(clusters):
            room = max(1, _LOG_LIMIT + 1 - len(self.log_seq))
            part = clusters[at : at + room]
            if j.recording:
                j.note(partial(self._unlog, len(self.log_seq)))
            self.log_seq.extend(repeat(self.seq, len(part)))
            self.log_cluster.extend(part)
            self.log_before.extend(before[at : at + room])
            at += room
            if len(self.log_seq) > _LOG_LIMIT:
                cut = len(self.log_seq) // 2
                if j.recording:
                    cut_off = (self.log_seq[:cut], self.log_cluster[:cut], self.log_before[:cut])
                    j.note(partial(self._uncut, self.floor, cut_off))
                self.floor = self.log_seq[cut]
                del self.log_seq[:cut], self.log_cluster[:cut], self.log_before[:cut]
                self._log_index.floor = -1  # made afresh (a cut may leave the floor as it was)

    def _unlog(self, length: int) -> None:
        self._log_valid = min(self._log_valid, length)
        del self.log_seq[length:], self.log_cluster[length:], self.log_before[length:]

    def _uncut(self, floor: int, cut_off: tuple[list[int], list[str], list[int]]) -> None:
        self._log_index.floor = -1  # made afresh (the entries' positions moved)
        self.floor = floor
        for log, head in zip((self.log_seq, self.log_cluster, self.log_before), cut_off, strict=True):
            log[:0] = head

    # -- the model ------------------------------------------------------------------------------

    def _memberships(self, c: ManagedCluster) -> frozenset[str]:
        return frozenset(s.trait for s in self.sets.values() if s.contains(c))

    def _sources(self) -> set[str]:
        """The CEL expressions some synced Placement reads (kept as they come and go)."""
        return set(self.cel_sources)

    def _count_sources(self, policy: Policy | None, step: int) -> None:
        """A synced Placement's CEL expressions counted in (`step` 1) or out (-1): how many
        Placements read each, none kept at 0."""
        if policy is None:
            return
        for src in {src for pred in policy.predicates for src in pred.cel}:
            count = self.cel_sources.get(src, 0) + step
            if count:
                self.journal.set(self.cel_sources, src, count)
            else:
                self.journal.pop(self.cel_sources, src)

    def _recompute_cel(self, names: Iterable[str] = ()) -> None:
        """Every CEL expression's outcome: a new one over every cluster, the others judged again
        on the clusters `names` only (those that changed). An outcome none of those clusters
        moves in or out of is kept as it was (the same set: nothing it decides moved); the fleet
        is listed only for a new expression."""
        sources = {cel_trait(src): src for src in self._sources()}
        fresh = [src for trait, src in sources.items() if trait not in self.cel]
        out = {trait: o for trait, o in self.cel.items() if trait in sources}
        if fresh:
            out.update(
                _cel_matches(fresh, [c for c in self.clusters.values() if not c.terminating], self.every)
            )
        wanted = set(names)
        kept = [src for trait, src in sources.items() if src not in fresh and out[trait].error is None]
        if wanted and kept:
            changed = [
                c
                for name in sorted(wanted)
                if (c := self.clusters.get(name)) is not None and not c.terminating
            ]
            again = _cel_matches(kept, changed, self.every)
            for trait, outcome in again.items():
                old = out[trait].matched or frozenset()
                new = outcome.matched or frozenset()
                if any((name in old) != (name in new) for name in wanted):
                    out[trait] = CelOutcome((old - wanted) | new)
        self._take_cel(out, wanted)

    def _take_cel(self, out: dict[str, CelOutcome], wanted: set[str]) -> None:
        """The outcomes `out` kept, and each cluster's CEL traits made again where `wanted` or
        an outcome that is not the same object names it (the clusters whose traits may differ)."""
        touched = set(wanted)
        for trait in set(out) | set(self.cel):
            before, after = self.cel.get(trait), out.get(trait)
            if before is not after:
                touched |= ((before.matched if before else None) or frozenset()) ^ (
                    (after.matched if after else None) or frozenset()
                )
        self.journal.assign(self, "cel", out)
        for name in touched:
            found = frozenset(t for t, o in out.items() if o.matched and name in o.matched)
            if found:
                self.journal.set(self.cel_of, name, found)
            else:
                self.journal.pop(self.cel_of, name)

    def _traits(self, name: str) -> frozenset[str]:
        return self.memberships.get(name, frozenset()) | self.cel_of.get(name, frozenset())

    def _remodel(self, name: str) -> None:
        c = self.clusters.get(name)
        was = self.pool.get(name)
        if c is None or c.terminating:
            if was is not None and was.taints:
                self._retaint(name)
            self.pool.drop(name)
            if name in self.counts:
                self.journal.add(self._uncounted, name)
            self._revalue(was, None)
            return
        model = c.to_model(self._traits(name), self.valid.get(name, {}), self.counts.get(name, 0))
        hull = self._score_hull
        for key, value in model.scores.items():
            low, high = hull.get(key, (0, 0))
            if not low <= value <= high:
                hull[key] = (min(low, value), max(high, value))
        self._revalue(was, model)
        if (was.taints if was is not None else ()) != model.taints:
            self._retaint(name)
        self.pool.put(model)
        self.journal.discard(self._uncounted, name)

    def _retaint(self, name: str) -> None:
        """A cluster's taints moved: logged for `_first_end`'s kept ends (past `_RETAINTED` names
        the log and the ends kept by its positions are let go together)."""
        if len(self._retainted) >= _RETAINTED:
            self._retainted.clear()
            self._first_ends.clear()
        self._retainted.append(name)

    def _rescore(self, name: str, now: datetime) -> None:
        """A cluster's scores at `now` (valid ones by name, every one for CEL) and when the next
        expires (its model changes then, with no event)."""
        objs = list(self.score_objects.get(name, {}).values())
        valid, every = _scores(objs, now)
        self.journal.set(self.valid, name, valid.get(name, {}))
        self.journal.set(self.every, name, every.get(name, {}))
        self.timers.at(_expiry(objs, now), f"score:{name}")

    # -- what changes reach ---------------------------------------------------------------------

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        # Read first: a refusal keeps nothing (and what is read is kept, not read again).
        own = self._entries  # the system's own decisions coming back: `_own_names`
        checked = [_check(after, own) if after is not None else None for _, after in changes]
        own.lists.clear()  # the lists written by the last solve not back now never come back
        if self.journal.recording:  # what the caches hold was judged on the model undone
            self.journal.note(self._forget)
        self.journal.assign(self, "seq", self.seq + 1)
        self.journal.assign(self, "now", now)
        self._recounted = set()  # the clusters whose count the changes move (`_put_decision`)
        self._own_fresh = set()  # the Placements whose counts this take made afresh (`_owned`)
        self._own_flips = {}  # per Placement, the clusters this take put in or took out (`_owned`)
        self._own_was = {}  # per Placement, its counts before this take made them afresh (`_owned`)
        self._ends_of.clear()  # the clusters' verdicts may move with the event
        self._asks.clear()
        self._ends_walked.clear()
        self._log_reads.clear()
        self._feasible_of.clear()
        self._orders.clear()
        self._rising.clear()
        if len(self._held) > 2 * len(self.requests) + 64:  # requests replaced since: let them go
            self._held.clear()
        if len(self._facts) > 2 * len(self.requests) + 64:  # the same
            self._facts.clear()
        if len(self._sorts) > 2 * len(self.requests) + 64:  # the same
            self._sorts.clear()
        if len(self._shapes) > 2 * len(self.requests) + 64:  # values no request has any more
            self._shapes.clear()
        if len(self._weakest) > 2 * len(self.requests) + 64:  # picks replaced since
            self._weakest.clear()
        if len(self._first_ends) > 2 * len(self.requests) + 64:  # Placements gone since
            self._first_ends.clear()
        if len(self._numbered) > 2 * len(self.requests) + 64:  # the same, with their numbers
            self._numbered.clear()
            self._filter_numbers.clear()
            self._walks.clear()  # kept by those numbers
            self._unstood.clear()
            self._unmoved.clear()
            self._looked_of = (None, {})
        enqueued: set[str] = set()
        clusters: dict[str, Cluster | None] = {}  # the clusters whose model changed: as they were
        scored: set[str] = set()  # clusters whose change enqueues only some of those it moves
        self._recounts = recounts = []  # the decisions' moves, counted once read (`_recount_all`)
        self._first_counts = first = {}  # logged net at the end of the reading (`_log_moved`)
        try:
            for (before, after), read in zip(changes, checked, strict=True):
                obj = after if after is not None else before
                assert obj is not None
                kind = obj["kind"]
                enqueued |= self._enqueued_before(kind, before)
                if kind == n.PLACEMENT:  # `_in_namespace`'s answers there made again
                    self._renew_namespace(obj["metadata"].get("namespace") or "")
                if kind in (n.MANAGED_CLUSTER, n.SCORE):
                    cluster = (
                        obj["metadata"]["name"] if kind == n.MANAGED_CLUSTER else obj["metadata"]["namespace"]
                    )
                    clusters.setdefault(cluster, self.pool.get(cluster))
                    if kind == n.SCORE:
                        scored.add(cluster)
                self._read(kind, before, after, now, checked=read)
                enqueued |= self._enqueued_after(kind, before, after)
        finally:  # (a read refused leaves nothing counted: the journal takes the take back)
            self._recounts = self._first_counts = None
        if recounts:
            self._recount_all(recounts, first)
        self._log_moved(first)
        for key in self.timers.due(now):
            kind, _, name = key.partition(":")
            if kind == "score" and name in self.clusters:
                clusters.setdefault(name, self.pool.get(name))
                scored.add(name)
            elif kind == "toleration" and name in self.policies:
                enqueued.add(name)
                self.journal.add(self.dirty, name)
        self._settle_model(changes, clusters, now)
        for key in self._redecided(changes):
            answer, request = self.answers.get(key), self.requests.get(key)
            own = self.own.get(key, {})
            held: AbstractSet[str] = own.keys()
            if request is not None:  # what it holds now, as a load would read it
                request = self._held_now(key, request)
                self._set_request(key, request)
                kept = self._held_own.get(key)
                if kept is not None and kept[0] is request and kept[1] is own:
                    held = self._held_of(request)  # the same clusters, as a set (compared in C)
            if answer is None or held != answer.selected:
                self.journal.add(self.dirty, key)  # not what its last sync wrote: someone else's write
        changed = {name: (old, self.pool.get(name)) for name, old in clusters.items()}
        # upstream's queue after the changes (what tests and reports read)
        self.journal.assign(self, "enqueued", enqueued)
        self._in_trait.clear()
        self._columns.clear()
        self._trait_masks.clear()  # the clusters' traits as they now stand
        self._bases.clear()
        self._upper_bases.clear()
        self._shared_rise.clear()
        self._units.clear()
        self._flipped.clear()
        self._emptied_of.clear()
        self._runs = set()  # refused by their picture, judged by their run (`_run`)
        solved = self._checked(enqueued, changed, now)
        if self._runs:
            solved -= self._by_runs(self._runs & solved, now)
        self._rearm(enqueued - solved, now)
        self._drifted({name: changed[name] for name in scored}, enqueued, now)
        return self._taken(solved, now) if solved else None

    def _rearm(self, held: AbstractSet[str], now: datetime) -> None:
        """TaintToleration's requeue of the enqueued Placements whose answer is held: upstream
        asks for it at every sync, from the decisions the Placement holds then (`_first_end`),
        and these were synced too. Among them the Placements whose own decisions came back after
        an answer that moved them: `_arm` at that answer read the clusters held before it, as
        upstream's sync then did; this second sync reads the clusters it moved to. Its queue
        adds after a delay only sooner than a requeue already waiting (`Timers.sooner`). Only
        the Placements whose request has a toleration with seconds are asked (`timed`, kept as
        requests change: the same keys, in the same order, as asking each of `held`)."""
        requests = self.requests
        for key in sorted(self.timed.intersection(held)):  # those with a toleration with seconds
            request = requests[key]
            self.timers.sooner(self._first_end(request, now), f"toleration:{request.key}")

    def _enqueued_before(self, kind: str, before: Obj | None) -> set[str]:
        """Placements an object's old form enqueues (a cluster's old sets, a binding's namespace)."""
        if before is None:
            return set()
        if kind == n.MANAGED_CLUSTER:
            c = self.clusters.get(before["metadata"]["name"])
            return self._by_sets(self.memberships.get(c.name, frozenset()) if c else frozenset())
        return set()

    def _enqueued_after(self, kind: str, before: Obj | None, after: Obj | None) -> set[str]:
        obj = after if after is not None else before
        assert obj is not None
        name, namespace = obj["metadata"]["name"], obj["metadata"].get("namespace") or ""
        if kind == n.PLACEMENT:
            if _respecified(before, after):
                self.journal.add(self.dirty, f"{namespace}/{name}")
            return {f"{namespace}/{name}"}
        if kind == n.DECISION:
            label = (obj["metadata"].get("labels") or {}).get(n.PLACEMENT_LABEL)
            return {f"{namespace}/{label}"} if label else set()
        if kind == n.MANAGED_CLUSTER:
            c = self.clusters.get(name)
            return self._by_sets(self._memberships(c) if c is not None else frozenset())
        if kind in (n.CLUSTER_SET, n.SET_BINDING):
            target = name if kind == n.CLUSTER_SET else (obj.get("spec") or {}).get("clusterSet", name)
            out = self._by_sets(frozenset({n.SET_TRAIT.format(target)}))
            if kind == n.SET_BINDING:
                out |= self._in_namespace(namespace, target)
            for key in out:  # their scope may change
                self.journal.add(self.dirty, key)
            return out
        if kind == n.SCORE:
            cluster = self.clusters.get(namespace)
            sets = self.memberships.get(namespace, frozenset()) if cluster else frozenset()
            bound = {
                ns
                for ns, names in self.bindings.by_namespace.items()
                if any(n.SET_TRAIT.format(s) in sets for s in names)
            }
            return {
                key
                for key, p in self.policies.items()
                if key.split("/")[0] in bound
                and any(_resource(pref.external) == name for pref in p.preferences)
            }
        return set()

    @staticmethod
    def _redecided(changes: Sequence[Change]) -> set[str]:
        """The Placements whose decisions the changes moved."""
        out = set()
        for before, after in changes:
            obj = after if after is not None else before
            if obj is not None and obj["kind"] == n.DECISION:
                label = (obj["metadata"].get("labels") or {}).get(n.PLACEMENT_LABEL)
                if label:
                    out.add(f"{obj['metadata'].get('namespace') or ''}/{label}")
        return out

    def _by_sets(self, traits: frozenset[str]) -> set[str]:
        """Placements of the namespaces bound to the sets (traits) that list the set or none."""
        out = set()
        names = {t.removeprefix(n.SET_TRAIT.format("")) for t in traits}
        for (namespace, binding), _ in self.binding_objects.items():
            if binding in names:
                out |= self._in_namespace(namespace, binding)
        return out

    def _in_namespace(self, namespace: str, set_name: str) -> set[str]:
        """The synced Placements of the namespace that list the set or none (kept while no
        Placement of the namespace changes: not to be changed by the caller)."""
        epoch = self._ns_epoch.get(namespace, 0)
        kept = self._in_ns.get((namespace, set_name))
        if kept is not None and kept[0] == epoch:
            return kept[1]
        out = {
            key
            for key, p in self.by_namespace.get(namespace, {}).items()
            if not p.cluster_sets or set_name in p.cluster_sets
        }
        self._in_ns[(namespace, set_name)] = (epoch, out)
        return out

    def _renew_namespace(self, namespace: str) -> None:
        """A Placement of the namespace changes: its `_in_namespace` answers are made again."""
        self._epochs += 1
        self.journal.set(self._ns_epoch, namespace, self._epochs)

    def _settle_model(
        self, changes: Sequence[Change], clusters: dict[str, Cluster | None], now: datetime
    ) -> None:
        """What the changes move of the model beside their objects: sets and bindings, memberships,
        scores, CEL outcomes, the clusters' models (their load: the decisions on them)."""
        kinds = {(a if a is not None else b)["kind"] for b, a in changes}
        if kinds & {n.CLUSTER_SET, n.SET_BINDING}:
            self.journal.assign(self, "bindings", read_bindings(self.binding_objects.values(), self.sets))
        if n.CLUSTER_SET in kinds:
            for name in self.clusters:
                clusters.setdefault(name, self.pool.get(name))
        for name in clusters:
            c = self.clusters.get(name)
            if c is None:
                self.journal.pop(self.memberships, name)
                self.journal.pop(self.valid, name)
                self.journal.pop(self.every, name)
            else:
                self.journal.set(self.memberships, name, self._memberships(c))
                self._rescore(name, now)
        if clusters or n.PLACEMENT in kinds:
            self._recompute_cel(clusters)
        for name in clusters:
            self._remodel(name)
        # Every kept cluster's load is its count before the event (each take leaves it so); the
        # changes moved only the counts of the clusters `_put_decision` noted.
        # (only their load moved: the decisions on them; replaced in one pass)
        counts, kept = self.counts, self.pool.by_name()
        self.pool.reload(
            [
                with_load(model, counts.get(name, 0))
                for name in self._recounted - clusters.keys()
                if (model := kept.get(name)) is not None and model.load != counts.get(name, 0)
            ]
        )

    # -- the bound ------------------------------------------------------------------------------

    def _must(
        self, key: str, changed: Mapping[str, tuple[Cluster | None, Cluster | None]], now: datetime
    ) -> bool:
        """Whether the enqueued Placement's sync may write something else than it holds, one
        Placement asked alone: `take` sorts them all at once (`_checked`); this is its tests'
        oracle."""
        if key not in self.policies:
            return False  # gone, disabled or being deleted: upstream leaves it alone
        request = self.requests.get(key)
        answer = self.answers.get(key)
        if key in self.dirty:
            return True
        if request is None or answer is None:  # new, or misconfigured: stands while its status does
            return not self._misstands(key)
        return not self._stands(key, request, answer, changed, now)

    def _checked(
        self,
        enqueued: AbstractSet[str],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> set[str]:
        """The enqueued Placements `_must` solves (`{key for key in enqueued if self._must(key,
        changed, now)}`, in the same order), sorted by one loop that reads the event's facts once:
        `_stands`' preamble and its cheap ends run here, and only a Placement they do not end is
        visited (`_stands`, handed what its preamble found).

        What is read once, not per Placement, and why it is the same for each:
        - the log and its floor (`_stands`' first test and its no-entry-after test): they move
          only where decisions are read (`_log_moved`, at the end of a take's reading), before
          the checks, and where a
          batch is taken (`_by_runs`, `_taken`), after them;
        - the changes that may regroup a held cluster (`_regrouped` is no for a change that made
          or took the cluster or moved neither its labels nor its claims, whatever the request),
          so a Placement with group selectors is asked only of the others (a relabel's one);
        - the event's touched keys (`_touched_keys`), as `_stands` reads them;
        - the busiest count (`_most_for`): the clusters of the top count by count
          (`_by_count_desc`, kept while no count gains or loses its set): a Placement with no
          decision on any of them reads that count (its first cluster gives it), any other is
          asked `_most_for`.
        A PickAll or a Placement without Balance that no change is relevant to is judged as is
        (`_stands`: no drift is read, the busiest count is its answer's); one with Balance ends
        as `_stands` ends it (no entry after its picture: as is; else `_quiet`), and where only
        the busiest count moved for it, at its ceiling (`_most_held`); a strict one
        whose totals are each its own, with a relevant change and no batch-mates' moves in its
        picture, ends where its weakest pick stays above the ceiling (`_ceiling_holds`); any
        other is visited with its relevant changes and busiest count (`_stands` goes on from the
        drift with them). A strict one judged on its totals whose every relevant change
        `_left_lost` lets go ends as one with none (as is, `_quiet`), or where its weakest pick
        stays above the ceiling (`_ceiling_holds`, as it did with them)."""
        policies, requests, answers, dirty = self.policies, self.requests, self.answers, self.dirty
        sorts, own, floor = self._sorts, self.own, self.floor
        log = self.log_seq
        last = log[-1] if log else None  # no entry: every picture is as the counts now stand
        if changed:
            union = self._touched_keys(changed)
            regroup = [
                (old, new)
                for old, new in changed.values()
                if old is not None
                and new is not None
                and (old.labels != new.labels or old.claims != new.claims)
            ]
        else:  # nothing changed of a cluster: nothing relevant, nothing regrouped
            union, regroup = frozenset(), []
        ranked = self._by_count_desc()
        top, tops = ranked[0] if ranked else (0, set())
        stands = self._stands
        solved = set()
        # Judged as is (moved on at once after the loop, `_judged_all`: each visited once, and no
        # check reads another Placement's answer) and every answer moved, put back by one note.
        as_is: list[str] = []
        as_is_answers: list[_Answer] = []
        journal = self.journal
        if journal.recording:
            self._notes = notes = []
            journal.note(partial(_put_answers_back, notes))
        try:
            for key in enqueued:
                if key not in policies:
                    continue  # gone, disabled or being deleted: upstream leaves it alone
                request, answer = requests.get(key), answers.get(key)
                if key in dirty:
                    solved.add(key)
                    continue
                if request is None or answer is None:  # new, or misconfigured: stands while its status does
                    if not self._misstands(key):
                        solved.add(key)
                    continue
                if answer.seen < floor:
                    solved.add(key)
                    continue
                found = sorts.get(id(request))
                if found is None or found[0] is not request:
                    found = self._sorts_of(request)
                _, reads, weight, alone, scored, timed, plain = found
                if regroup:
                    groups = policies[key].groups.groups
                    if groups and any(_regrouped(old, new, answer.selected, groups) for old, new in regroup):
                        solved.add(key)
                        continue
                if union is not None and union.isdisjoint(reads):
                    relevant, cut = [], False
                else:  # `cut`: every relevant change one `_left_lost` lets go
                    relevant, cut = self._relevant_kept(key, request, answer, changed, now, alone, scored)
                most = answer.most
                if timed and self._ran_out(request, answer, changed, now):
                    self._run(key, request, changed)  # held only where its sync alone picks it (`_by_runs`)
                    solved.add(key)
                    continue
                if plain:
                    if not relevant:
                        as_is.append(key)
                        as_is_answers.append(answer)
                        continue
                else:
                    held = own.get(key, _NO_COUNTS)
                    most = top if top and held.keys().isdisjoint(tops) else self._most_for(key)
                    if (
                        most != answer.most
                        and not relevant
                        and answer.mates is None
                        and answer.strict
                        and self._most_held(key, request, answer, most)
                    ):
                        continue  # only the busiest count moved for it: held at its ceiling
                    if not relevant and answer.mates is None and most == answer.most:
                        if last is None or last <= answer.seen:
                            as_is.append(key)
                            as_is_answers.append(answer)
                            continue
                        if alone and answer.strict and self._quiet(key, request, answer):
                            continue
                        if cut and scored and self._ceiling_holds(key, request, answer, relevant, most, now):
                            continue  # as it was with the changes let go (`_left_lost`)
                    elif (
                        (relevant or cut)
                        and scored
                        and answer.strict
                        and answer.mates is None
                        and self._ceiling_holds(key, request, answer, relevant, most, now)
                    ):
                        continue
                if not stands(key, request, answer, changed, now, (relevant, most)):
                    solved.add(key)
            if as_is:
                self._judged_all(as_is, as_is_answers)
        finally:
            self._notes = None
        return solved

    def _sorts_of(
        self, request: PlacementRequest
    ) -> tuple[PlacementRequest, frozenset[tuple[str, str]], int, bool, bool, bool, bool]:
        """What `_checked` reads of the request itself, made once per request (kept by identity,
        `_sorts`): `_facts_of`'s reads, Balance weight, `alone` and `scored`; whether `_ran_out`
        may refuse it (its first tests, which read the request alone: a PickN with a toleration
        with seconds and a sorter); and whether no relevant change leaves it judged as is (a
        PickAll, or no Balance: `_stands` reads no drift of it)."""
        reads, weight, alone, scored, _ = self._facts_of(request)
        timed = (
            request.mode is not SelectionMode.ALL
            and any(t.seconds is not None for t in request.tolerations)
            and any(p.sorter is not None for p in request.preferences)
        )
        plain = request.mode is SelectionMode.ALL or not weight
        found = (request, reads, weight, alone, scored, timed, plain)
        self._sorts[id(request)] = found
        return found

    def _misstands(self, key: str) -> bool:
        """Whether a misconfigured Placement's sync writes what its last one wrote: what `_taken`
        reads for its status (`_Misjudged`) is as it was. Its sync writes no decision (its
        decision objects as its strategy makes them of none: its own, whose events mark it dirty)
        and its status: the Misconfigured message, the PlacementSatisfied row (its valid
        bindings, eligible sets, whether any cluster is available) and its own object's fields
        (the same object: any event of it, its own status coming back too, solves it)."""
        record = self.misjudged.get(key)
        m = self.placements.get(key)
        if record is None or m is not record.placement:
            return False
        policy = self.policies[key]
        eligible = self.bindings.eligible(m.namespace, policy.cluster_sets)
        scope = _traits_of(eligible)
        verdict, available, witness = self._misconfigured_now(policy, scope, record.witness)
        if (verdict, len(self.bindings.valid(m.namespace)), eligible, available) != record.status:
            return False
        if witness != record.witness:
            self.journal.set(self.misjudged, key, replace(record, witness=witness))
        return True

    def _misconfigured_now(
        self, policy: Policy, scope: tuple[str, ...], witness: str | None
    ) -> tuple[str | None, bool, str | None]:
        """`_misconfigured` over the scope's available clusters, as `_taken` judges it; whether
        any is available; and a witness: an available cluster that alone gives that verdict.

        `_misconfigured` reads the available clusters only for whether there are any, except
        where a toleration is refused and the predicates build: then it is that toleration's
        message where one passes the predicates, else what it says of none. So a witness is
        any available cluster, or there one passing; while it stays one, nothing else is
        looked at."""
        traits, live, cel = _Made(self._traits), self.clusters, self.cel
        required = _required(policy, cel)
        none = _misconfigured(policy, required, [], traits, cel)

        def alone(c: str) -> str | None:
            return _misconfigured(policy, required, [live[c]], traits, cel)

        refused = policy.toleration_error is not None and required is not None
        if (
            witness is not None
            and witness in live
            and any(witness in self.pool.with_trait(t) for t in scope)
            and (not refused or alone(witness) != none)
        ):
            return alone(witness), True, witness
        members = self._members(scope)
        if not refused:
            first = next(iter(members), None)
            return (none, False, None) if first is None else (alone(first), True, first)
        for c in members:
            verdict = alone(c)
            if verdict != none:
                return verdict, True, c
        return none, bool(members), None

    def _misjudge(self, key: str, context: PlacementContext) -> None:
        """A misconfigured Placement's sync as its status reads it (`_misstands`)."""
        policy = self.policies[key]
        scope = _traits_of(context.eligible)
        verdict, available, witness = self._misconfigured_now(policy, scope, None)
        assert verdict == context.misconfigured and available == (context.available > 0)
        status = (verdict, context.bindings, context.eligible, available)
        self.journal.set(self.misjudged, key, _Misjudged(context.placement, status, witness))

    def _stands(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
        handed: tuple[list[tuple[Cluster | None, Cluster | None]], int] | None = None,
    ) -> bool:
        """Whether its sync provably writes what it holds (see the module docstring); if so its
        margins move to the hub as it now stands. `handed`: `_checked` ran its preamble and cheap
        ends, which did not end it, and found its relevant changes and busiest count: it goes on
        from the drift with them."""
        if handed is not None:
            relevant, most = handed
            _, weight, alone, _, _ = self._facts_of(request)
            return self._stands_on(key, request, answer, changed, now, relevant, most, weight, alone, True)
        if answer.seen < self.floor:
            return False
        reads, weight, alone, scored, _ = self._facts_of(request)
        if changed:
            # A decision's group may change with its cluster's labels or claims, whether or not
            # anything else of the request reads them; without group selectors nothing reads them.
            groups = self.policies[key].groups.groups
            if groups and any(_regrouped(old, new, answer.selected, groups) for old, new in changed.values()):
                return False
            # No change touched anything it reads (the event's touched keys, found once): none is
            # relevant (`_relevant` skips each).
            found = self._touched_of
            union = found[2] if found is not None and found[0] is changed else self._touched_keys(changed)
            if union is not None and union.isdisjoint(reads):
                relevant = []
            else:
                relevant, _ = self._relevant_kept(key, request, answer, changed, now, alone, scored)
        else:  # nothing changed of a cluster (the writes coming back, `stale`): nothing relevant
            relevant = []
        most = answer.most
        return self._stands_on(key, request, answer, changed, now, relevant, most, weight, alone, False)

    def _stands_on(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
        relevant: list[tuple[Cluster | None, Cluster | None]],
        most: int,
        weight: int,
        alone: bool,
        sorted_: bool,
    ) -> bool:
        """`_stands` past its preamble: its relevant changes found; `sorted_`: `_checked` found
        the busiest count (`most`) and ran the cheap ends below, which did not end it."""
        if request.mode is SelectionMode.ALL:  # every feasible cluster, whatever the scores
            flips = self._flips(key, request, relevant, changed, now) if relevant else ()
            if flips:
                if len(flips) == 1 and answer.whole:  # its answer moves by that cluster alone
                    self._flipped[key] = flips[0]
                return False
            self._judged_as_is(key, answer)
            return True
        if not sorted_ and request.tolerations and self._ran_out(request, answer, changed, now):
            return self._run(key, request, changed)  # (`_checked` asked it of the sorted)
        if weight:
            if not sorted_:
                most = self._most_for(key)
            if not sorted_ and not relevant and answer.mates is None and most == answer.most:
                # Its drift is the log's entries after its picture (no batch-mates' moves): it
                # names no cluster exactly where the last entry lies at or before the picture.
                log = self.log_seq
                if not log or log[-1] <= answer.seen:
                    self._judged_as_is(key, answer)
                    return True
                if alone and answer.strict and self._quiet(key, request, answer):
                    return True
            drift = self._drift(answer)
        else:
            drift, most = None, answer.most
        if not relevant and (drift is None or not drift.names) and most == answer.most:
            self._judged_as_is(key, answer)
            return True
        # A timed sorter reached here within its window (`_ran_out` refused it: `_in_window`).
        if answer.strict and (alone or (request.tolerations and _sorted_alone(request))):
            return self._stands_margins(key, request, answer, relevant, drift, most, now) or self._run(
                key, request, changed
            )
        if (
            answer.ordered
            and (drift is not None or not weight)
            and (
                self._lost_only(request, answer, relevant, now, key, changed)
                or self._out_after(key, request, answer, relevant, changed, now)
            )
            and self._stands_ordered(key, request, answer, drift, most, now)
        ):
            return True
        # Its totals not kept: it stands only while nothing it reads moved (Balance reads the
        # count of a cluster it may pick, and the busiest count), or while its sync alone picks
        # what it holds (`_run`, judged for the event's refused at once).
        if relevant or most != answer.most or (drift is not None and self._any_feasible(request, drift, now)):
            return self._run(key, request, changed)
        self._judged_as_is(key, answer)
        return True

    def _quiet(self, key: str, request: PlacementRequest, answer: _Answer) -> bool:
        """`_stands_margins`' hold judged without its path where its picks' totals are kept as
        they are and it reads nothing that moved but the counts of clusters it did not pick: the
        caller found no relevant change, no batch-mates' moves in its picture, the busiest count
        the same and a count moved since (its drift names a cluster), the answer strict and its
        margins judged on totals (`_facts_of`'s `alone`). Then `_stands_margins` keeps its picks'
        totals as they are: no pick's last entry after the picture (`_last_logged`: no pick in
        the drift), each pick in the pool, and where each total is its own (`_scored_alone`)
        judged by `_total` for this request (the busiest count the same), else (centered
        sorters: each pick's total moves by its Balance score alone) its own decisions the same
        dict as at the picture (`answer.own`). Where the weakest pick (the same, kept per picks
        dict) is above the ceiling (`_held_by_ceiling`) it moves the answer on at once; else it
        judges the clusters left out (`_left_out`, from the answer's own picture, with no
        changed cluster: nothing static, exact or entered) and caps that bound (`_capped`). A
        hold moves the answer on as that path does: best left out that bound, the anchor kept or
        made from the answer as it stood (the one below the floor let go), `_judged_now`, its
        totals judged there (`totalled`: the request where they are its own, else None). This
        does the same, in the same order and on the same arguments, and answers False (nothing
        moved) wherever that path would not end so (a refusal from the answer's picture, which
        that path judges again from the anchor's); the caller then judges it whole. Counted
        (events 0-199 of the soak's stream): ~97 visits a relabel, ~67 a taint held past the
        ceiling here in place of `_stands`' whole path."""
        best, picks, seen = answer.best_out, answer.picks, answer.seen
        if best is None or not picks:
            return False
        facts = self._facts_of(request)
        scored = facts[3]
        if scored:
            if answer.totalled is not request:
                return False
        elif answer.own is not self.own.get(key, _NO_COUNTS):
            return False
        if max(map(self._last_logged.get, picks, repeat(-1))) > seen:  # a pick moved since
            return False
        if not picks.keys() <= self.pool.by_name().keys():
            return False
        raised = self._ceiling_of_kept(request, best, picks)
        if raised is None:
            raised = self._quiet_left(key, request, answer, facts[1], scored)
            if raised is None:
                return False
        anchor = self._judged_now_anchored(key, answer)
        answer.best_out, answer.anchor = raised, anchor
        answer.totalled = request if scored else None
        return True

    def _quiet_left(
        self, key: str, request: PlacementRequest, answer: _Answer, weight: int, scored: bool
    ) -> tuple[int, str] | None:
        """`_quiet`'s bound of the clusters left out where the ceiling does not hold: what
        `_stands_margins` finds on that path (`_left_out` from the answer's picture, the picks as
        they are, nothing static, exact or entered, the busiest count the answer's, the drift
        `_stands` reads; capped by `_capped`), or None where it refuses there or the drift names
        no cluster (that path then judges it from the anchor, or as is)."""
        drift = self._drift(answer)
        if not drift.names:
            return None
        picks = answer.picks
        held = self._held_of(request)
        weakest = self._weakest_kept(picks)
        own = self.own.get(key, _NO_COUNTS)
        most, now = answer.most, self.now
        raised = self._left_out(
            request, answer, drift, picks, {}, (), (), weakest, held, weight, scored, own, most, now, True
        )
        if raised is False:
            return None
        raised = self._capped(request, raised, picks, held, weakest)
        return None if raised is False or raised is None else raised  # type: ignore[return-value]

    def _ceiling_of_kept(
        self, request: PlacementRequest, best: tuple[int, str], picks: Mapping[str, int]
    ) -> tuple[int, str] | None:
        """`_held_by_ceiling` of picks whose totals are kept as they are (`_quiet`,
        `_ceiling_holds`). The verdict reads the request and the picks alone (what it holds, its
        preferences, the weakest pick's total; `best` only for being some): kept per picks dict,
        never changed in place, and request (`_ceiling_held`)."""
        found = self._ceiling_held.get(id(picks))
        if found is not None and found[0] is picks and found[1] is request:
            return found[2]
        raised = self._held_by_ceiling(request, best, self._held_of(request), picks, _weakest_of(picks))
        if len(self._ceiling_held) > 2 * len(self.requests) + 64:  # picks replaced since
            # Those of no answer let go (not all: an answer's kept picks are asked again at its
            # next check, every Placement with Balance missing at once where all were).
            live = {id(answer.picks) for answer in self.answers.values()}
            self._ceiling_held = {at: found for at, found in self._ceiling_held.items() if at in live}
        self._ceiling_held[id(picks)] = (picks, request, raised)
        return raised

    def _weakest_kept(self, picks: Mapping[str, int]) -> tuple[str, int]:
        """The weakest pick (`_weakest_of`: the lowest total, then the last name), found once per
        picks dict: kept by identity, as `_held_of` keeps its sets (a dict never changed in
        place, kept as it is by the checks where no total moved)."""
        found = self._weakest.get(id(picks))
        if found is not None and found[0] is picks:
            return found[1]
        weakest = _weakest_of(picks)
        self._weakest[id(picks)] = (picks, weakest)
        return weakest

    def _ceiling_holds(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        relevant: list[tuple[Cluster | None, Cluster | None]],
        most: int,
        now: datetime,
    ) -> bool:
        """`_stands_margins`' hold at the ceiling where the answer's totals are each its own
        cluster's (`_scored_alone`), judged without `_stands`' path: for a strict answer with no
        batch-mates' moves in its picture that `_checked` found a change relevant to, the
        busiest count `most` moved or not (with no relevant change, a hold past a moved busiest
        count or a pick moved since is left to `_stands`: judged here, it measured no cheaper
        than its visit, whose cost is the picks' totals). `_stands` would go on to
        `_stands_margins` with the drift since the picture (`_stands_on`: a relevant change),
        which:
        - asks each relevant change's verdict after (`_feasible`, held as `_held_of` says; the
          one before is read only by a sorter's range): a pick no longer feasible, a cluster
          left out no longer feasible that may empty the scope (`_emptied`), or one feasible with
          fewer picks than the request's N ends it False; a cluster left out still or newly
          feasible is judged by its own total (`exact`: read only by `_left_out`, which the
          ceiling skips, and by the anchor's rule, which lets the anchor go);
        - keeps each pick's total where the busiest count and the request are the picture's, the
          pick is not in the drift and no relevant change is on it, moves it by its Balance part
          alone where only the busiest count differs (`_most_shift`), else judges it by `_total`
          (a pick not in the pool: False). With no batch-mates' moves the drift names exactly
          the clusters whose last log entry is after the picture (`_last_logged`, as `_quiet`
          reads it), so the drift itself is not read;
        - finds the weakest pick (kept per picks dict in `_weakest`, as it keeps it) and, where
          it is above the ceiling (`_held_by_ceiling`), moves the answer on at once: best left
          out the ceiling, the busiest count `most`, the picks as judged, the anchor kept or made
          of the answer as it stood where no cluster was judged by its own total (the one below
          the floor let go), else none; `_judged_now`.
        This does the same, reads nothing else and moves nothing where it answers False (the
        caller then visits `_stands`, which judges it whole): the verdicts, the totals and the
        ceiling are pure (their memos aside), and the drift, which it does not make, is a memo
        too; it judges the ceiling before the verdicts, which moves nothing (either ends it
        False, and only where neither does is anything moved). Where the picks stay as they
        are, the ceiling's verdict on them is the one `_quiet` keeps per picks dict and request
        (`_ceiling_held`; the weakest pick found afresh where not kept). Where a total is judged
        again, it refuses first, with none judged, where no pick can be above the ceiling: a
        total (`_total`) sums each preference's score times its weight, each at most what
        `_ceiling` counts for it, but Steady's bonus, which `_ceiling` counts where the request
        holds a cluster it did not pick; so where the request gives no Steady bonus or holds a
        cluster left out, every total is at most the ceiling, whatever moved."""
        best, kept, seen = answer.best_out, answer.picks, answer.seen
        if best is None or not kept or not self._facts_of(request)[3]:
            return False
        held = self._held_of(request)
        clusters = self.pool.by_name()
        if not kept.keys() <= clusters.keys():
            return False
        touched = {(new or old).name for old, new in relevant}  # type: ignore[union-attr]
        last = self._last_logged
        same = most == answer.most and answer.totalled is request
        if same and max(map(last.get, kept, repeat(-1))) <= seen and kept.keys().isdisjoint(touched):
            # The picks as they are: the ceiling's verdict on them read as `_quiet` reads it
            # (kept per picks dict and request, `_ceiling_held`).
            picks = kept
            raised = self._ceiling_of_kept(request, best, kept)
        else:
            # No pick can be above the ceiling where it counts no Steady bonus (the request
            # gives none, or holds a cluster it did not pick): refused before any total.
            self._ceiling(request, held, kept)
            if not self._ceilings[id(request)][2] or not held <= kept.keys():
                return False
            own = self.own.get(key, _NO_COUNTS)
            picks = {}
            totalled = answer.totalled is request
            weight = self._facts_of(request)[1]
            shift = _most_shift(weight, answer.most, most) if totalled and not same else None
            for c, total in kept.items():
                if not totalled or last.get(c, -1) > seen or c in touched:
                    picks[c] = _total(request, clusters[c], own, most, held)
                elif shift is None:
                    picks[c] = total
                else:  # only the busiest count moved for it (`_stands_margins`' rule)
                    picks[c] = _shifted(total, shift, clusters[c].load - own.get(c, 0))
            raised = self._held_by_ceiling(request, best, held, picks, self._weakest_kept(picks))
        if raised is None:
            return False
        entered = False
        shapes, asks, ask = self._facts_of(request)[4], self._asked(now), self._feasible
        for old, new in relevant:
            name = (new or old).name  # type: ignore[union-attr]
            feasible = ask(request, new, now, new is not None and name in held, asks, shapes)
            if name in kept:
                if not feasible:
                    return False
            elif not feasible:
                if self._emptied(request, old, new):
                    return False
            elif len(kept) < request.count:
                return False  # a cluster newly feasible for one short of its N
            else:
                entered = True
        anchor = self._judged_now_anchored(key, answer, made=not entered)
        answer.picks, answer.best_out, answer.most, answer.anchor = picks, raised, most, anchor
        answer.totalled = request
        return True

    def _relevant(
        self,
        key: str,
        request: PlacementRequest,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> list[tuple[Cluster | None, Cluster | None]]:
        """The changes that matter to the request (`matters`, in `changed`'s order), asked only of
        a change that touched something `matters` reads for it (`_touched`, `_reads`): a change
        that touched nothing it reads gives `matters` the same inputs on both sides, so its
        verdict, seen and passing alike before and after with the same score inputs, is no. What
        it holds is made only where it is read (`_Holds`: a cluster entering or leaving its scope
        that fails its filters where it reads no scope-only move, or one with a taint that binds
        new picks alone, `_new_only`; a PickAll holds hundreds), and whether it reads scope-only
        moves only where a change moved the cluster's traits or made or took the cluster (else it
        is in the scope on both sides or on neither: `matters` does not read it). A change of the
        taints alone is judged by the one rule it moves (`_taint_matters`)."""
        if not changed:
            return []
        found = self._touched_of  # `_touched_in`'s, found once per event
        if found is None or found[0] is not changed:
            self._touched_in(changed)
            found = self._touched_of
        touched, taints = found[1], found[3]  # type: ignore[index]
        facts = self._facts.get(id(request))  # `_facts_of`'s, found as it finds them
        facts = facts[1] if facts is not None and facts[0] is request else self._facts_of(request)
        reads, shapes, scope = facts[0], facts[4], request.scope
        asks = None
        out: list[tuple[Cluster | None, Cluster | None]] = []
        holds: Container[str] | None = None
        scoped: bool | None = None
        for name, (old, new) in changed.items():
            moved, _ = touched[name]
            if moved is not None and moved.isdisjoint(reads):
                continue
            if asks is None:
                asks = self._asked(now)
            if moved is _TAINTS_ONLY and request.mode is not SelectionMode.FIXED:
                # The cluster's facts for every request, found once (`_taint_facts`): where it
                # takes nothing new the verdict is no (`_taint_matters`); holding it reads only a
                # taint that binds new picks alone.
                held, takes = taints[name]
                if not takes:
                    continue
                if held:
                    held = name in self._held_of(request)
                # `_taint_matters`: its scope, eligibility and required terms the same on both
                # sides, the verdict moves where they pass and the taints are tolerated on one
                # side only (the required terms, the dearest rule, judged last). Past the scope
                # it reads the tolerations, the required terms, `held`, the two clusters and
                # `now` alone: asked once per change of every request where they are equal.
                if scope is not None and new.traits.isdisjoint(scope):  # type: ignore[union-attr]
                    continue
                ask = (shapes[0], shapes[1], held, id(old), id(new))
                kept = asks.get(ask)
                if kept is None or kept[0] is not old or kept[1] is not new:
                    tolerated = self._tolerated(request, old, now, held, asks, shapes)  # type: ignore[arg-type]
                    differs = tolerated != self._tolerated(request, new, now, held, asks, shapes)  # type: ignore[arg-type]
                    verdict = differs and self._required(request, new, asks, shapes)  # type: ignore[arg-type]
                    kept = asks[ask] = (old, new, verdict)
                if kept[2]:
                    out.append((old, new))
                continue
            # `matters`, its verdicts asked of `_feasible` (an admits of a cluster in the scope is
            # its `_feasible`), whether it reads scope-only moves asked only where one is read.
            seen0 = old is not None and (scope is None or not old.traits.isdisjoint(scope))
            seen1 = new is not None and (scope is None or not new.traits.isdisjoint(scope))
            if not seen0 and not seen1:  # out of its scope on both sides (or absent on both)
                continue
            if seen0 != seen1:  # its traits moved, or it came or went
                if scoped is None:  # `_reads_scope`, its rules inline (in its order)
                    scoped = (
                        (bool(request.spread) and request.mode is not SelectionMode.ALL)
                        or self.policies[key].toleration_error is not None
                        or self._emptied_now(scope, changed)
                    )
                if (
                    scoped
                    or self._feasible_seen(request, new if seen1 else old, now, asks, shapes)  # type: ignore[arg-type]
                    or name in self._held_of(request)
                ):
                    out.append((old, new))
                continue
            if holds is None:  # made where first read
                found = self._held.get(id(request))
                holds = found[1] if found is not None and found[0] is request else _Holds(self, request)
            held = (_new_only(old) or _new_only(new)) and name in holds  # type: ignore[arg-type]
            passes = self._feasible(request, old, now, held, asks, shapes)
            if passes != self._feasible(request, new, now, held, asks, shapes) or (
                passes and self._inputs_moved(request, old, new, asks, shapes)  # type: ignore[arg-type]
            ):
                out.append((old, new))
        return out

    def _flips(
        self,
        key: str,
        request: PlacementRequest,
        relevant: Sequence[tuple[Cluster | None, Cluster | None]],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> list[str]:
        """The PickAll's relevant changes whose verdict moved (`_verdicts`, each verdict asked of
        `_feasible`: a cluster in the scope passes its filters where it admits the request)."""
        held = self._held_of(request)
        scoped = self._reads_scope(key, request, changed)
        shapes, asks = self._facts_of(request)[4], self._asked(now)
        scope = request.scope
        out = []
        for old, new in relevant:
            name = (new or old).name  # type: ignore[union-attr]
            holds = name in held
            if self._feasible(request, old, now, holds, asks, shapes) != self._feasible(
                request, new, now, holds, asks, shapes
            ) or (
                (scoped or holds)
                and (old is not None and (scope is None or not old.traits.isdisjoint(scope)))
                != (new is not None and (scope is None or not new.traits.isdisjoint(scope)))
            ):
                out.append(name)
        return out

    def _relevant_kept(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
        alone: bool,
        scored: bool,
    ) -> tuple[list[tuple[Cluster | None, Cluster | None]], bool]:
        """The relevant changes (`_relevant`) the checks judge: for a strict top N judged on its
        totals (`alone`), less those `_left_lost` lets go; and whether it let go every one of
        them (some there were), which `_checked` judges as it was without them."""
        relevant = self._relevant(key, request, changed, now)
        if relevant and alone and answer.strict and request.mode is not SelectionMode.ALL:
            kept = self._left_lost(key, request, answer, relevant, scored, now)
            return kept, not kept
        return relevant, False

    def _left_lost(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        relevant: list[tuple[Cluster | None, Cluster | None]],
        scored: bool,
        now: datetime,
    ) -> list[tuple[Cluster | None, Cluster | None]]:
        """The relevant changes of a strict top N judged on its totals (`_stands_margins`: each
        total its own cluster's, `scored`, or its centered sorters' range kept) less those
        `_stands_margins` passes over: a cluster it did not pick that fails its filters now
        (`_feasible` after, held as `_held_of` says) and whose move cannot take its available
        clusters to or from none (`_emptied`); with a sorter, only where it is the one change
        whose verdict moved and its value lies within the range the others span
        (`_within_range`: whether it does reads neither the counts nor the busiest count).
        Such a cluster is no pick, so no pick's total reads it; it is not feasible, so it is no
        cluster left out (its bound only falls), not judged by its own total (`exact`) and lets
        no anchor go; with a sorter every other cluster's sorter score stays. So
        `_stands_margins` and `_ceiling_holds` read it for nothing but those tests, and give
        the same verdict and margins with or without it. Its sync chooses among the feasible
        clusters (the range its sorters span among them the same) and writes the available
        count as none against some alone, so it writes what it holds exactly where it did
        without the change."""
        held = self._held_of(request)
        shapes, asks, feasible = self._facts_of(request)[4], self._asked(now), self._feasible
        picks = answer.picks
        out = []
        lost = None  # a sorter's one lost cluster (its old model)
        flips = 0
        for old, new in relevant:
            name = (new or old).name  # type: ignore[union-attr]
            after = feasible(request, new, now, new is not None and name in held, asks, shapes)
            before = False
            if not scored:
                before = feasible(request, old, now, old is not None and name in held, asks, shapes)
                flips += before != after
            if name not in picks and not after and not self._emptied(request, old, new):
                if not before:
                    continue
                if lost is None:
                    lost = old
                    continue
            out.append((old, new))
        if lost is not None and (
            flips > 1
            or self._within_range(request, lost, self.own.get(key, _NO_COUNTS), answer.most, held, now)
            is None
        ):
            return relevant
        return out

    def _relevant_each(
        self,
        key: str,
        request: PlacementRequest,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> list[tuple[Cluster | None, Cluster | None]]:
        """`_relevant` with `matters` asked of every change (the tests' oracle)."""
        holds = self._held_of(request) if changed else frozenset()
        scoped = self._reads_scope(key, request, changed)
        return [(old, new) for old, new in changed.values() if matters(request, old, new, now, holds, scoped)]

    def _touched_in(
        self, changed: Mapping[str, tuple[Cluster | None, Cluster | None]]
    ) -> dict[str, tuple[frozenset[tuple[str, str]] | None, bool]]:
        """Each changed cluster's `_touched` and whether its scope may have moved (its traits, or
        it came or went), found once per event (kept while `changed` is the same mapping: the
        checks of one event all read one), with every change's touched keys at once (None: a
        cluster came or went)."""
        found = self._touched_of
        if found is None or found[0] is not changed:
            each = {}
            union: frozenset | None = frozenset()
            taints: dict[str, tuple[bool, bool]] = {}
            for name, (old, new) in changed.items():
                moved = _touched(old, new)
                if moved == _TAINTS_ONLY:
                    moved = _TAINTS_ONLY  # one object: found by identity
                    taints[name] = _taint_facts(old, new)  # type: ignore[arg-type]
                each[name] = (moved, moved is None or any(tag == "t" for tag, _ in moved))
                union = None if moved is None or union is None else union | moved
            found = self._touched_of = (changed, each, union, taints)
        return found[1]

    def _touched_keys(
        self, changed: Mapping[str, tuple[Cluster | None, Cluster | None]]
    ) -> frozenset[tuple[str, str]] | None:
        """Every change's touched keys at once (None: a cluster came or went), kept with
        `_touched_in`'s answer for the event."""
        self._touched_in(changed)
        assert self._touched_of is not None
        return self._touched_of[2]

    def _facts_of(
        self, request: PlacementRequest
    ) -> tuple[frozenset[tuple[str, str]], int, bool, bool, tuple[_Shape, _Shape, _Shape]]:
        """What the checks read of the request itself, made once per request (kept by identity,
        as `_held_of`): what `matters` reads of a cluster (`_reads`), its Balance weight, whether
        its margins are judged on totals whatever the clock (`_scored_alone`, or `_sorted_alone`
        with no toleration with seconds: one that runs out may move the range its sorters span,
        so such a request's are judged only within `_in_window`), whether each total is its
        own (`_scored_alone`), and the shapes of its tolerations, its required terms and its
        score inputs (`_shape`: what `_feasible` and `_matters` ask once per shape)."""
        found = self._facts.get(id(request))
        if found is None or found[0] is not request:
            scored = _scored_alone(request)
            alone = scored or (
                _sorted_alone(request) and not any(t.seconds is not None for t in request.tolerations)
            )
            weight = _balance_weight(request)
            shapes = (
                self._shape(("x", request.tolerations)),
                self._shape(("r", request.required)),
                self._shape(("s", request.preferences, request.spread)),
            )
            found = self._facts[id(request)] = (request, (_reads(request), weight, alone, scored, shapes))
        return found[1]

    def _shape(self, value: tuple) -> _Shape:
        """The one `_Shape` of a value (made once per request, kept while `_shapes` holds it)."""
        shape = self._shapes.get(value)
        if shape is None:
            shape = self._shapes[value] = _Shape()
        return shape

    def _asked(self, now: datetime) -> dict[tuple, tuple[Any, ...]]:
        """`_asks`, kept for one clock: its answers read `now` (a toleration with seconds)."""
        if now is not self._asks_now:
            if now != self._asks_now:
                self._asks.clear()
            self._asks_now = now
        elif len(self._asks) > 1 << 16:  # many clusters asked of outside a take's checks
            self._asks.clear()
        return self._asks

    def _feasible(
        self,
        request: PlacementRequest,
        c: Cluster | None,
        now: datetime,
        held: bool,
        asks: dict[tuple, tuple[Any, ...]],
        shapes: tuple[_Shape, ...],
    ) -> bool:
        """`c is not None and in_scope(request, c) and admits(request, c, now, held=held)`, its two
        dearest rules asked once per cluster and shape (`_tolerated`, `_required`; `asks` from
        `_asked`, `shapes` from `_facts_of`): the rules are pure and all must pass, so the order
        they are judged in moves nothing."""
        if c is None or (request.scope is not None and c.traits.isdisjoint(request.scope)):
            return False
        if request.mode is SelectionMode.FIXED:
            return c.name in request.cluster_names and takes_new(c)
        return (
            c.eligible
            and not c.leaving  # `takes_new`
            and self._tolerated(request, c, now, held, asks, shapes)
            and self._required(request, c, asks, shapes)
        )

    def _feasible_seen(
        self,
        request: PlacementRequest,
        c: Cluster,
        now: datetime,
        asks: dict[tuple, tuple[Any, ...]],
        shapes: tuple[_Shape, ...],
    ) -> bool:
        """`_feasible(request, c, now, False, asks, shapes)` of a cluster in the request's scope
        (`_relevant`'s seen side): its scope is not judged again, and the toleration and
        required-terms memos are asked only where the cluster has a taint and the request
        required terms (each answers True at once otherwise), so the same rules in the same
        order give the same verdict."""
        if request.mode is SelectionMode.FIXED:
            return c.name in request.cluster_names and takes_new(c)
        return (
            c.eligible
            and not c.leaving
            and (not c.taints or self._tolerated(request, c, now, False, asks, shapes))
            and (not request.required or self._required(request, c, asks, shapes))
        )

    def _emptied_now(
        self, scope: tuple[str, ...] | None, changed: Mapping[str, tuple[Cluster | None, Cluster | None]]
    ) -> bool:
        """`_empties(scope, changed)`, its answer for the event read first (`_emptied_of`: kept
        only for a scope, with the very changes it judged)."""
        found = self._emptied_of.get(scope)  # type: ignore[arg-type]
        if found is not None and found[0] is changed:
            return found[1]
        return self._empties(scope, changed)

    def _tolerated(
        self,
        request: PlacementRequest,
        c: Cluster,
        now: datetime,
        held: bool,
        asks: dict[tuple, tuple[Any, ...]],
        shapes: tuple[_Shape, ...],
    ) -> bool:
        """`untolerated(c, request.tolerations, now, held=held) is None`, asked once per event and
        cluster of every request whose tolerations are equal: it reads the cluster's taints, the
        tolerations, `now` and `held` alone, so a key of the tolerations' shape (`_shape`: equal
        values, one shape), the cluster (by identity: a model is never changed, only replaced,
        and the entry holds it, so its id names no other while kept) and `held` is enough, `now`
        the same for every answer `asks` keeps (`_asked`)."""
        if not c.taints:
            return True
        key = (shapes[0], id(c), held)
        found = asks.get(key)
        if found is None or found[0] is not c:
            found = asks[key] = (c, untolerated(c, request.tolerations, now, held=held) is None)
        return found[1]

    def _required(
        self,
        request: PlacementRequest,
        c: Cluster,
        asks: dict[tuple, tuple[Any, ...]],
        shapes: tuple[_Shape, ...],
    ) -> bool:
        """`matches_required(request, c)`, asked once per event and cluster of every request whose
        required terms are equal: it reads the terms and the cluster alone (keyed as
        `_tolerated`'s)."""
        if not request.required:
            return True
        key = (shapes[1], id(c))
        found = asks.get(key)
        if found is None or found[0] is not c:
            found = asks[key] = (c, matches_required(request, c))
        return found[1]

    def _inputs_moved(
        self,
        request: PlacementRequest,
        before: Cluster,
        after: Cluster,
        asks: dict[tuple, tuple[Any, ...]],
        shapes: tuple[_Shape, ...],
    ) -> bool:
        """`_score_inputs(request, before) != _score_inputs(request, after)`, asked once per event
        and change of every request whose score inputs are equal: it reads the preferences, the
        spread and the two clusters alone (keyed by their shape and the clusters, as
        `_tolerated`'s)."""
        key = (shapes[2], id(before), id(after))
        found = asks.get(key)
        if found is None or found[0] is not before or found[1] is not after:
            moved = _score_inputs(request, before) != _score_inputs(request, after)
            found = asks[key] = (before, after, moved)
        return found[2]

    def _run(
        self,
        key: str,
        request: PlacementRequest,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
    ) -> bool:
        """A PickN refused by its kept picture (a strict top N's margins; a spread, a tie at the
        cut, an optimal joint answer) is judged by its sync alone against the hub as it stands
        (`_by_runs`, one greedy pass over every such Placement of the event), where that sync
        writes nothing but its decisions and what they count: no refused toleration (its
        Misconfigured row reads the available clusters) and its available clusters not taken to
        or from none (`_empties`). Refused here; `take` holds those whose run picks what they
        hold."""
        if (
            request.mode is SelectionMode.N
            and self.policies[key].toleration_error is None
            and not self._empties(request.scope, changed)
        ):
            self._runs.add(key)
        return False

    def _by_runs(self, keys: set[str], now: datetime) -> set[str]:
        """The Placements among `keys` whose sync alone against the hub as it stands (greedy,
        SolveOptions.alone: every other Placement holding what it holds, its own decisions left
        out, the busiest count as `_most_for` reads it; the first margins' pass) picks exactly
        the clusters it holds: their sync writes what they hold. Each one's answer becomes that
        run's, judged now (its margins, `ordered` for a spread), as the first margins are; the
        others' answers are replaced again by the batch that solves them."""
        taken = self._taken(keys, now, written=False)
        assert taken.answered is not None
        result = solve(taken.batch, SolveOptions(mode="greedy", seed=self.seed, alone=True))
        taken.answered(result)
        stands = set()
        for got in result.requests:
            answer = self.answers.get(got.request)
            if answer is not None and answer.selected == frozenset(self.own.get(got.request, ())):
                stands.add(got.request)
        return stands

    def _keep(self, answer: _Answer, values: tuple[Any, ...] | None = None) -> None:
        """A kept answer about to move on in place: the journal puts it back as it is (`values`:
        its fields as the caller already read them, `_answer_values`); within the checks, by
        their one note (`_notes`)."""
        notes = self._notes
        if notes is not None:
            notes.append((_put_back, answer, _answer_values(answer) if values is None else values))
            return
        journal = self.journal
        if journal.recording:
            journal.note(partial(_put_back, answer, _answer_values(answer) if values is None else values))

    def _forget(self) -> None:
        """What the caches answered (judged on a model since undone)."""
        self._moved.clear()
        self._drifts.clear()
        self._values.clear()
        self._ends_of.clear()
        self._ends_walked.clear()
        self._walks.clear()
        self._unstood.clear()
        self._unmoved.clear()
        self._remodels.clear()
        self._labels_let_go()
        self._log_reads.clear()
        self._log_pairs.clear()
        self._feasible_of.clear()
        self._orders.clear()
        self._rising.clear()
        self._held.clear()
        self._facts.clear()
        self._sorts.clear()
        self._asks.clear()
        self._touched_of = None
        self._in_trait.clear()
        self._columns.clear()
        self._trait_masks.clear()
        self._bases.clear()
        self._upper_bases.clear()
        self._shared_rise.clear()
        self._units.clear()
        self._flipped.clear()
        self._emptied_of.clear()
        self._ranked = None
        self._first_ends.clear()

    def _judged_now(self, key: str, answer: _Answer) -> None:
        """The answer's picture moved to the hub as it stands (its margins read there)."""
        self._keep(answer)
        self._moved_on(key, answer)

    def _judged_now_anchored(self, key: str, answer: _Answer, made: bool = True) -> _Answer | None:
        """`_judged_now` of an answer held at its ceiling (`_quiet`, `_ceiling_holds`,
        `_most_held`), its fields as it stood read once for the journal and the anchor; gives the
        anchor it is to keep: its own where not below the floor, else one made of it as it stood
        (`made` False: none, where a cluster newly feasible left out makes no picture a bound).
        The caller then sets its fields as judged."""
        values = _answer_values(answer)
        anchor = answer.anchor
        if not made:
            anchor = None
        elif anchor is None or anchor.seen < self.floor:
            anchor = _Answer(*values)
        self._keep(answer, values)
        self._moved_on(key, answer)
        return anchor

    def _judged_as_is(self, key: str, answer: _Answer) -> None:
        """`_judged_now` where the caller moves nothing else of the answer: the journal puts back
        the fields it moves alone (within the checks, their one note does: `_notes`)."""
        notes = self._notes
        if notes is not None:
            notes.append((_put_judged, answer, _judged_values(answer)))
        elif self.journal.recording:
            self.journal.note(partial(_put_judged, answer, _judged_values(answer)))
        self._moved_on(key, answer)

    def _judged_all(self, keys: list[str], answers: list[_Answer]) -> None:
        """`_judged_as_is` of each answer (of the Placement at the same place in `keys`), at once:
        their fields as they stand put in the checks' one note (`_notes`; else one note of its
        own), each then moved on as `_moved_on` moves it (the take's position and clock, its
        decisions per cluster as they stand, no batch-mates' moves)."""
        notes = self._notes
        kept = [(_put_judged, answer, _judged_values(answer)) for answer in answers]
        if notes is not None:
            notes.extend(kept)
        elif self.journal.recording:
            self.journal.note(partial(_put_answers_back, kept))
        seq, clock, own, none = self.seq, self.now, self.own, frozenset()
        for key, answer in zip(keys, answers, strict=True):
            answer.seen, answer.own, answer.mates, answer.up, answer.down, answer.at = (
                seq,
                own.get(key, _NO_COUNTS),
                None,
                none,
                none,
                clock,
            )

    def _moved_on(self, key: str, answer: _Answer) -> None:
        # Its decisions per cluster as they stand, kept as they are: `_owned` never changes them
        # after the take that made them.
        answer.seen, answer.own, answer.mates = self.seq, self.own.get(key, _NO_COUNTS), None
        answer.up = answer.down = frozenset()
        answer.at = self.now  # the take's clock, which the checks judge at

    def _most_held(self, key: str, request: PlacementRequest, answer: _Answer, most: int) -> bool:
        """`_stands_margins`' hold at the ceiling, judged without its path, where only the busiest
        count moved for a strict answer whose totals are each its own: the caller found no
        relevant change, no batch-mates' moves in its picture and the busiest count `most` other
        than the answer's. `_stands` would go on to `_stands_margins` (`_stands_on`), which, with
        no relevant change (no verdict asked, no cluster judged by its own total, no sorter's
        change), totals the picks where they were judged by `_total` for this request and every
        pick is in the pool: a pick in the drift (no batch-mates' moves: its last log entry after
        the picture, `_last_logged`, as `_quiet` reads it) by `_total`, any other by its Balance
        part alone (`_most_shift`: the weight times the score of its count, its decisions but the
        request's own, at each busiest count, read as `_shifted` reads it: none below 0, a count
        past the table's end as its last). This totals them so. Where no total moved (most moves
        are nil: the score truncates 100 * count / most, which a busiest count moved by one
        shifts by about count / most**2), the picks as judged equal the kept ones, and so do
        their weakest pick and the ceiling's verdict (`_held_by_ceiling` reads the request, what
        it holds, the picks' names and the weakest pick: kept per picks dict and request,
        `_ceiling_of_kept`); the kept dict (no one changes it in place) stands for them. Where
        that verdict holds, `_stands_margins` moves the answer on at once: the picks as judged,
        best left out the ceiling, the busiest count `most`, the anchor kept (the one below the
        floor let go) or made of the answer as it stood (no cluster judged by its own total), its
        totals this request's, `_judged_now`; this does the same. Anywhere else it moves nothing
        and answers False (the caller visits `_stands`): every test before the move reads only
        pure functions and memos. An answer whose best left out is a named cluster is refused at
        once (its weakest pick was not above the ceiling when judged)."""
        best, picks = answer.best_out, answer.picks
        if best is None or best[1] or not picks or answer.totalled is not request:
            return False  # (a named best left out: its weakest pick was not above the ceiling)
        _, weight, _, scored, _ = self._facts_of(request)
        if not scored:
            return False
        shift = _most_shift(weight, answer.most, most)
        last, seen, logged = len(shift) - 1, answer.seen, self._last_logged
        clusters, own = self.pool.by_name(), self.own.get(key, _NO_COUNTS)
        judged = picks  # a new dict only where a total moved
        for c, total in picks.items():
            cluster = clusters.get(c)
            if cluster is None:
                return False
            if logged.get(c, -1) > seen:  # a pick moved since: its total judged again
                now = _total(request, cluster, own, most, self._held_of(request))
            else:
                now = total + shift[min(max(0, cluster.load - own.get(c, 0)), last)]
            if now != total:
                if judged is picks:
                    judged = dict(picks)
                judged[c] = now
        if judged is picks:
            raised = self._ceiling_of_kept(request, best, picks)
        else:
            raised = self._held_by_ceiling(request, best, self._held_of(request), judged, _weakest_of(judged))
        if raised is None:
            return False
        anchor = self._judged_now_anchored(key, answer)
        answer.picks, answer.best_out, answer.most, answer.anchor = judged, raised, most, anchor
        return True

    def _stands_margins(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        relevant: Sequence[tuple[Cluster | None, Cluster | None]],
        drift: _Drift | None,
        most: int,
        now: datetime,
    ) -> bool:
        """A strict top N judged again. Each cluster's total is its own (`_scored_alone`: the
        picks' and a changed cluster's totals judged again), or its centered sorters' scores stay
        while its feasible set does (`_sorted_alone`: a cluster's total moves by exactly its
        Balance score now less its Balance score on the picture the margins were taken on, plus
        its other inputs' change; judged on the changed cluster's models before and after). A
        cluster left out ranked below the best left out on the picture, so its total now is at
        most that total plus its own rise (judged by name at equality, which is exact where the
        bound is reached); every count that did not move rises by at most what the busiest
        count's change gives any count. The rises of every moved count are taken at once
        (`_rises`: Balance is monotone in the count, so a picture's range of counts bounds them
        by its ends); only a cluster whose bound would overtake the weakest pick is looked at
        (is it feasible; if its totals are its own, what is its total). The top N stands while
        every pick still beats every such bound: nothing the sync reads can reorder it. Where
        the feasible set of a sorter may have changed (a cluster's verdict, its scope, its sorted
        property or a sorter's label match), the range it spans may have: solved."""
        _, weight, _, alone, _ = self._facts_of(request)
        held = self._held_of(request)
        own = self.own.get(key, _NO_COUNTS)
        best = answer.best_out
        if best is None and not alone:
            return False  # no feasible cluster left out then: a moved one must be new to the set
        static: dict[str, int] = {}  # a sorter's changed clusters: their inputs' change but Balance's
        exact: list[tuple[int, str]] = []  # its own totals: changed clusters left out, judged again
        if relevant:  # each cluster's verdict (`_feasible`: asked once per event and shape)
            shapes, asks = self._facts_of(request)[4], self._asked(now)
            ask = self._feasible
            verdicts = [
                [ask(request, c, now, c is not None and c.name in held, asks, shapes) for c in (old, new)]
                for old, new in relevant
            ]
        else:
            verdicts = ()  # type: ignore[assignment]
        flips = sum(1 for before, after in verdicts if before != after) if relevant else 0
        entered: set[str] = set()  # a sorter's cluster newly feasible, its total judged exactly
        for (old, new), feasible in zip(relevant, verdicts, strict=True) if relevant else ():
            name = (new or old).name  # type: ignore[union-attr]
            if name in answer.picks and not feasible[1]:
                return False
            if not alone and feasible[0] != feasible[1]:
                # The range the sorter spans moves unless the cluster lies within the others'.
                if flips > 1 or (feasible[1] and len(answer.picks) < request.count):
                    return False
                side = new if feasible[1] else old
                total = self._within_range(request, side, own, most, held, now)  # type: ignore[arg-type]
                if total is None:
                    return False
                if feasible[1]:
                    exact.append((total, name))
                    entered.add(name)
                    continue
            if not feasible[1]:
                if self._emptied(request, old, new):
                    return False
                continue
            if alone:
                if name not in answer.picks:
                    if len(answer.picks) < request.count:
                        return False  # a cluster newly feasible for one short of its N
                    exact.append((_total(request, new, own, most, held), name))  # type: ignore[arg-type]
                continue
            assert old is not None and new is not None  # feasible before and after
            if _sorted_inputs(request, old) != _sorted_inputs(request, new):
                return False
            static[name] = _static(request, new, held) - _static(request, old, held)
        # Where every pick's total is the one it had (as below), the answer's dict itself: never
        # changed in place (each check that moves a total makes a new one), so shared as it is.
        kept = answer.picks
        picks: dict[str, int]
        if alone:
            # A pick's total reads its cluster's count, the busiest count, its own decisions there,
            # what it holds and the cluster's score inputs: where the picks were judged by `_total`
            # for this request (what it holds the same), its count did not move since the picture
            # (not in the drift, its batch-mates' moves in it too), the busiest count is the same
            # and no relevant change touched it, its total is the one it had there.
            # Where only the busiest count moved for it, such a total moves by its Balance part
            # alone (`_total` is linear in it: the weight times the score of the same count at
            # each busiest count, `_most_shift`).
            clusters = self.pool.by_name()
            totalled = answer.totalled is request
            same = most == answer.most and totalled
            moved = drift.index if drift is not None else _NO_COUNTS
            touched = {(new or old).name for old, new in relevant} if relevant else ()  # type: ignore[union-attr]
            names = kept.keys()
            if (
                same
                and names <= clusters.keys()
                and self._none_moved(kept, moved)
                and (not touched or names.isdisjoint(touched))
            ):
                picks = kept
            else:
                picks = {}
                shift = _most_shift(weight, answer.most, most) if totalled and not same else None
                for c, total in kept.items():
                    cluster = clusters.get(c)
                    if cluster is None:
                        return False
                    if not totalled or c in moved or c in touched:
                        picks[c] = _total(request, cluster, own, most, held)
                    elif shift is None:
                        picks[c] = total
                    else:
                        picks[c] = _shifted(total, shift, cluster.load - own.get(c, 0))
        else:
            # A pick's Balance moved only where its count did since the picture (`_balance_moved`
            # reads the same count, own decisions and busiest count on both sides where its
            # batch-mates moved nothing, its own decisions are the same dict: never changed in
            # place, and the busiest count is the same). Where only the busiest count differs, it
            # moved by the same count's score at each (`_most_shift`).
            steady = not weight or (answer.mates is None and answer.own is own)
            quiet = steady and (not weight or most == answer.most)
            moved = self._moved_for(answer, drift) if steady and weight and kept else _NO_COUNTS
            if quiet and not static and self._none_moved(kept, moved):
                picks = kept
            else:
                picks = {}
                shift = _most_shift(weight, answer.most, most) if steady and not quiet else None
                counts = self.counts if shift is not None else _NO_COUNTS
                for c, total in kept.items():
                    if quiet and c not in moved:
                        picks[c] = total + static.get(c, 0)
                    elif shift is not None and c not in moved:
                        picks[c] = _shifted(total, shift, counts.get(c, 0) - own.get(c, 0)) + static.get(c, 0)
                    else:
                        low, _ = self._balance_moved(c, answer, own, most, weight)
                        picks[c] = total + low + static.get(c, 0)
        # The weakest pick (every pick beats a bound it does).
        weakest = self._weakest_kept(picks) if picks else None
        # The clusters left out bounded from the last check's picture, else from the anchor's
        # (its best left out and the rises since: no climb of one bound per check between).
        anchor = answer.anchor
        if anchor is not None and anchor.seen < self.floor:
            anchor = None
        raised = self._held_by_ceiling(request, best, held, picks, weakest)
        if raised is None:
            bound = (weakest, held, weight, alone, own, most, now)
            raised = self._left_out(request, answer, drift, picks, static, exact, entered, *bound)
            if raised is False and anchor is not None:
                anchored = self._drift(anchor) if drift is not None else None
                raised = self._left_out(request, anchor, anchored, picks, static, exact, entered, *bound)
            raised = self._capped(request, raised, picks, held, weakest)
            if raised is False:
                return False
        # The anchor stays while every cluster left out is bounded from it: none judged by its
        # own total (a changed one's inputs moved: its rise since the anchor is not its Balance's).
        if best is not None and not exact and static.keys() <= picks.keys():
            if anchor is None:
                anchor = _Answer(*_answer_values(answer))
        else:
            anchor = None
        self._judged_now(key, answer)  # kept first as it was (the journal puts that back)
        answer.picks, answer.best_out, answer.most, answer.anchor = picks, raised, most, anchor
        answer.totalled = request if alone else None
        return True

    def _moved_for(self, answer: _Answer, drift: _Drift | None) -> Mapping[str, Any]:
        """The clusters whose count moved since the answer's picture, for who moved alone (its
        keys): its drift's index where the drift has no batch-mates' moves (`_drift_of_log`: the
        clusters with a log entry after the picture, exactly `_moved_since`'s keys), without a
        dict made per picture; else `_moved_since` itself."""
        if drift is not None and drift.mates is None:
            return drift.index
        return self._moved_since(answer.seen)

    @staticmethod
    def _none_moved(picks: Mapping[str, int], moved: Mapping[str, Any]) -> bool:
        """Whether no pick is among the clusters `moved` (`_stands_margins` then keeps the picks'
        totals as they are; looked up in C, over the fewer)."""
        if isinstance(moved, _Places):  # a big drift's: its picks looked up one by one
            return not any(map(moved.__contains__, picks))
        return picks.keys().isdisjoint(moved.keys())

    def _left_out(
        self,
        request: PlacementRequest,
        base: _Answer,
        drift: _Drift | None,
        picks: Mapping[str, int],
        static: Mapping[str, int],
        exact: Sequence[tuple[int, str]],
        entered: AbstractSet[str],
        weakest: tuple[str, int] | None,
        held: AbstractSet[str],
        weight: int,
        alone: bool,
        own: Mapping[str, int],
        most: int,
        now: datetime,
        below: bool = False,
    ) -> tuple[int, str] | None | bool:
        """`_stands_margins`' bound of the clusters left out, from the picture of `base` (the
        answer, or its anchor) to now, `drift` the clusters moved since; False where a pick may
        not beat it (`weakest`: the weakest pick, which every pick beats a bound it beats).
        Where the weakest pick's total is above the request's ceiling (`_ceiling`), the ceiling
        at once: no cluster left out can reach it, whatever moved (counted, events 20-199 of the
        soak's stream: 70% of the calls, their drift's rises not read). `below`: the caller found
        it is not (`_quiet`, on the same request, best and picks), so that is not asked again."""
        best = base.best_out
        at = None if below else self._held_by_ceiling(request, best, held, picks, weakest)
        if at is not None:
            return at
        raised = best
        if best is not None and most != base.most:
            raised = _raised(best, _most_rise(weight, base.most, most))
        for candidate in exact:
            raised = _better(raised, candidate)
        for c in static.keys() - picks.keys() if static else ():
            if drift is None or c not in drift.index:
                _, high = self._balance_moved(c, base, own, most, weight)
                if high + static[c] > 0:
                    raised = _better(raised, (best[0] + high + static[c], c))  # type: ignore[index]
        # The moved clusters' bound only climbs from here (each found taken by `_better`): where
        # the weakest pick does not beat it already, it does not at the end either.
        if raised is not None and weakest is not None and not _beats((weakest[1], weakest[0]), raised):
            return False
        if drift is not None and drift.names:
            shared = self._shared_rises(drift, most, base.most, weight, base.mates is not None)
            patch = self._rise_patch(drift, base, own, most, weight)
            for c, change in static.items():
                at = drift.index.get(c)
                if at is not None:
                    patch[at] = (patch[at] if at in patch else int(shared[at])) + change
            index = drift.index
            if type(index) is dict:  # the picks in the drift: a set intersection in C, over the fewer
                for c in index.keys() & picks.keys():
                    patch[index[c]] = _NONE
                for at in map(index.get, entered) if entered else ():
                    if at is not None:
                        patch[at] = _NONE
            else:
                for at in map(index.get, chain(picks, entered)):
                    if at is not None:
                        patch[at] = _NONE
            found = self._quiet_bound(drift, shared, patch, best, weakest)
            if found is _LOUD:
                few = self._few_threats(drift, shared, patch, best, weakest)
                if few is not None:
                    found = self._threats_few(
                        request, drift, few[0], few[1], alone, own, most, held, now, raised
                    )
                else:
                    rises = _patched(shared, patch)
                    found = self._drifted_bound(
                        request, drift, rises, best, weakest, alone, own, most, held, now, raised
                    )
            if found is False:
                return False
            if found is not None:
                raised = _better(raised, found)
        if raised is not None and weakest is not None and not _beats((weakest[1], weakest[0]), raised):
            return False
        return raised

    def _held_by_ceiling(
        self,
        request: PlacementRequest,
        best: tuple[int, str] | None,
        held: AbstractSet[str],
        picks: Mapping[str, int],
        weakest: tuple[str, int] | None,
    ) -> tuple[int, str] | None:
        """The ceiling as the bound of the clusters left out where the weakest pick's total is above
        it and the picture had a best left out (None: not so): no cluster left out can reach it,
        whatever moved (`_left_out`'s first rule, asked by `_stands_margins` before `_left_out`,
        whose `_capped` then keeps it as it is)."""
        if best is None or weakest is None:
            return None
        ceiling = self._ceiling(request, held, picks)
        return (ceiling, "") if weakest[1] > ceiling else None

    def _capped(
        self,
        request: PlacementRequest,
        raised: tuple[int, str] | None | bool,
        picks: Mapping[str, int],
        held: AbstractSet[str],
        weakest: tuple[str, int] | None,
    ) -> tuple[int, str] | None | bool:
        """`_left_out`'s bound no higher than the request's ceiling (`_ceiling`: the greatest total
        a cluster left out can have, whatever its inputs), and where the bound refused, the
        ceiling's verdict: every cluster left out has a total at most the ceiling, so where the
        weakest pick's total (a bound from below) is above it, every pick ranks above every
        cluster left out, whatever moved since any picture (`_left_out` answers so at once where
        it had a best left out; here where it had none)."""
        if raised is None or weakest is None:
            return raised
        ceiling = self._ceiling(request, held, picks)
        if raised is False:
            return (ceiling, "") if weakest[1] > ceiling else False
        return (ceiling, "") if raised[0] > ceiling else raised

    def _ceiling(self, request: PlacementRequest, held: AbstractSet[str], picks: Mapping[str, int]) -> int:
        """The greatest total the request can give a cluster it left out: each preference's
        greatest score times its weight, each score being within [-100, 100] (Balance's,
        2 * trunc(100 * (0.5 - n / m)) or 100; a sorter's, centered or interpolated; an external
        score, which the reader holds to the CRD's bounds, `names.MAX_SCORE`), a label match's its
        weight, and Steady's 100 only where the request holds a cluster it did not pick (else
        none: every cluster left out is one it does not hold). Kept per request (by identity)."""
        found = self._ceilings.get(id(request))
        if found is None or found[0] is not request:
            base, steady = 0, 0
            for p in request.preferences:
                if p.held:
                    steady += max(0, p.weight * 100)
                elif p.balance or p.sorter is not None or p.external is not None:
                    base += abs(p.weight) * n.MAX_SCORE
                else:
                    base += max(0, p.weight)
            if len(self._ceilings) > 2 * len(self.requests) + 64:  # requests replaced since
                self._ceilings.clear()
            found = self._ceilings[id(request)] = (request, base, steady)
        _, base, steady = found
        if steady and not held <= picks.keys():
            return base + steady
        return base

    def _within_range(
        self,
        request: PlacementRequest,
        cluster: Cluster,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
    ) -> int | None:
        """A cluster entering or leaving a sorter's feasible set (the only one whose verdict moved)
        leaves the range each centered sorter spans as it was where its value lies between the
        lowest and the highest of every other feasible cluster (those are the same on the answer's
        picture: any other change since would have been judged then): then every other cluster's
        sorter scores stay, exactly. Its total over that range (Balance's on the counts as they
        stand, its sorters' as `solver.prepare.centered_scores` computes them), or None where the
        range may move (or a sorter is label-bound, or an end is not found within `_WALK`
        clusters of each end of the fleet by value)."""
        total = _total(request, cluster, own, most, held)
        for p in request.preferences:
            if p.sorter is None:
                continue
            if p.labels is not None:
                return None
            value = cluster.properties.get(p.sorter.name)
            if value is None:  # outside every range of this property: scored 0, moves none
                continue
            # Strictly inside the feasible clusters' range (the one walk every request with these
            # filters shares), it is no end of it: the others span the same. Else the others'.
            v = value.as_float()
            ends = self._ends(request, p.sorter.name, "", held, now)
            if ends is None or not ends[0] < v < ends[1]:
                ends = self._ends(request, p.sorter.name, cluster.name, held, now)
                if ends is None or not ends[0] <= v <= ends[1]:
                    return None
            total += p.weight * _centered(ends[0], ends[1], v, p.sorter.ascending)
        return total

    def _ends(
        self, request: PlacementRequest, prop: str, but: str, held: AbstractSet[str], now: datetime
    ) -> tuple[float, float] | None:
        """The lowest and the highest value of a property over the clusters the request may pick
        (in its scope, passing its filters), `but` left out; None when an end is not found. The
        clusters passing without holding anything (`_shared_ends`, shared by every request with
        the same filters), then its held clusters, which may pass a taint the others do not."""
        key = (prop, but, self._filters_number(request))  # what `admits` reads, numbered (not hashed)
        if key not in self._ends_of:
            self._ends_of[key] = self._shared_ends(request, prop, but, now)
        ends = self._ends_of[key]
        if ends is None:
            return None
        return self._held_ends(request, prop, but, ends, held, now)

    def _held_ends(
        self,
        request: PlacementRequest,
        prop: str,
        but: str,
        ends: tuple[float, float],
        held: AbstractSet[str],
        now: datetime,
    ) -> tuple[float, float]:
        """`_ends` past the shared ends: widened by the request's held clusters (`but` left out)
        that pass its filters holding them."""
        low, high = ends
        for name in held - {but}:
            c = self.pool.get(name)
            q = c.properties.get(prop) if c is not None else None
            if q is not None and not low <= q.as_float() <= high and admits(request, c, now, held=True):  # type: ignore[arg-type]
                low, high = min(low, q.as_float()), max(high, q.as_float())
        return low, high

    def _shared_ends(
        self, request: PlacementRequest, prop: str, but: str, now: datetime
    ) -> tuple[float, float] | None:
        """The lowest and the highest value of a property over the clusters that pass the
        request's filters holding nothing, `but` left out: the first such cluster from each end of
        the fleet sorted by the value; None when one is not within `_WALK` clusters.

        Each end is walked once per filters and event (`_end`, nothing left out) and shared by
        every cluster left out: a cluster that is not the end found there is passed by the walk
        without stopping it (the end is the first passing cluster; a cluster before it fails the
        filters, and every position counts as a step whether left out or not), so leaving it out
        finds the same end; only where `but` is that end is the walk continued past it."""
        ends = []
        for side in (0, 1):
            end = self._end(request, prop, side, now)
            if end is not None and end[2] == but:
                end = self._walk(request, prop, side, end[0] + 1, but, now)
            if end is None:
                return None
            ends.append(end[1])
        return ends[0], ends[1]

    def _end(
        self, request: PlacementRequest, prop: str, side: int, now: datetime
    ) -> tuple[int, float, str] | None:
        """`_walk` from one end with nothing left out, kept for the event per filters."""
        key = (prop, side, self._filters_number(request))
        if key not in self._ends_walked:
            self._ends_walked[key] = self._kept_walk(request, key, now)
        return self._ends_walked[key]

    def _kept_walk(
        self, request: PlacementRequest, key: tuple[str, int, int], now: datetime
    ) -> tuple[int, float, str] | None:
        """`_end`'s walk kept across events by (property, side, filters number). A walk reads
        the property's order from its side up to the pair it stops at (the end found, else the
        `_WALK`th), and the verdicts of those clusters holding nothing, which read the request's
        filters, the clusters' models but their load, and the clock only through a toleration
        with seconds (such filters are walked every event). Only a model replaced (`_revalue`,
        logged in `_remodels`) moves a pair or a verdict: the walk stands while no model
        replaced since, as it was or as it is, has a pair within what it read (the same clusters
        at the same steps with the same verdicts). A walk that read the whole order (shorter than
        `_WALK`, or empty) is walked again on any such move."""
        prop, side, _ = key
        if any(t.seconds is not None for t in request.tolerations):
            return self._walk(request, prop, side, 0, "", now)
        log = self._remodels
        if self._walk_stands(key) or self._walk_moved(request, key, now):
            return self._walks[key][0]
        found = self._walk(request, prop, side, 0, "", now)
        reach: tuple[float, str] | None = None
        if found is not None:
            reach = (found[1], found[2])
        else:
            pairs = self._by_value(prop)
            if len(pairs) > _WALK:  # the walk stopped short of the order's other end
                reach = pairs[_WALK - 1] if side == 0 else pairs[len(pairs) - _WALK]
        self._walks[key] = (found, len(log), reach)
        return found

    def _walk_stands(self, key: tuple[str, int, int]) -> bool:
        """Whether the walk kept for `key` stands (`_kept_walk`: no model replaced since has a
        pair within what it read), brought up to the log where it does. A walk found not to
        stand never does again (the log only grows while it is kept, the move within its reach
        stays in it): refused at once (`_unstood`, by the walk's identity), until walked afresh."""
        kept = self._walks.get(key)
        if kept is None:
            return False
        found, since, reach = kept
        log = self._remodels
        if since == len(log):
            return True
        if self._unstood.get(key) is kept:
            return False  # refused already: the log only grows while this walk is kept
        prop, side, _ = key
        if reach is not None:
            first = self._log_since(prop, side, since)
            if first is None or (first > reach if side == 0 else first < reach):
                self._walks[key] = (found, len(log), reach)
                return True
        self._unstood[key] = kept
        return False

    def _log_since(self, prop: str, side: int, since: int) -> tuple[float, str] | None:
        """The first pair (value, name) of the property, from the side's end of its order (side
        0 the least), among the models replaced since the log's `since`th entry, as they were
        and as they are (None: no such model has the property). A walk kept from `since` stands
        exactly where this pair lies past its reach: some such pair lies within it iff the first
        does (pairs are totally ordered: `as_float` is never NaN). Kept per (property, side,
        start) while the log has the length it was read at: every walk kept from one start
        (most were brought up to the log at the last event) reads the log's tail once, not once
        per filters; and each entry's least and greatest pair of the property read once
        (`_log_pairs`, by the entries' places: the log only grows while they are kept, both let
        go together), so a tail is a minimum (or maximum) over a slice of them."""
        log = self._remodels
        key = (prop, side, since)
        found = self._log_reads.get(key)
        if found is not None and found[0] == len(log):
            return found[1]
        read, at, lows, highs = self._log_pairs.setdefault(prop, ([0], [], [], []))
        for i in range(read[0], len(log)):  # the entries not read yet, each once
            pairs = [
                (q.as_float(), c.name)
                for c in log[i]
                if c is not None and (q := c.properties.get(prop)) is not None
            ]
            if pairs:
                at.append(i)
                lows.append(min(pairs))
                highs.append(max(pairs))
        read[0] = len(log)
        start = bisect_left(at, since)
        first = (min(lows[start:]) if side == 0 else max(highs[start:])) if start < len(at) else None
        self._log_reads[key] = (len(log), first)
        return first

    def _walk_moved(self, request: PlacementRequest, key: tuple[str, int, int], now: datetime) -> bool:
        """The walk kept for `key` brought up to the log where models replaced since lie within
        what it read (`_walk_stands` refused it), without walking afresh; False where it cannot
        be (it read the whole order, its end's own model was replaced, or the order read now
        reaches past what it read): then walked afresh. A cluster whose model was not replaced
        since has the same pair and the same verdict (what `_kept_walk` stands on), so of the
        pairs the walk read, those of such clusters still fail before its end, and its end (a
        pair at most `reach`, from the side's end) still passes. Where the order changed it is
        only at the replaced clusters' pairs: the first passing pair now is the first of the end
        (if found) and the replaced clusters' pairs as they are now, within what it read, that
        pass the filters now (`admits` holding nothing, as `_walk` asks), its step its place in
        the order now (`bisect_left`); past `_WALK` steps there is no end, and the walk stops
        at the `_WALK`th pair (every pair before it failing). With no end found, no such pair
        passing: every pair within what it read fails, so where the `_WALK`th pair now is still
        within it, there is no end. The same answer, step and reach a fresh walk gives."""
        kept = self._walks.get(key)
        if kept is None or self._unmoved.get(key) is kept:
            return False
        found, _, reach = kept
        if reach is None:
            self._unmoved[key] = kept
            return False
        prop, side, _ = key
        log = self._remodels
        touched = {c.name for pair in log[kept[1] :] for c in pair if c is not None}
        if found is not None and found[2] in touched:
            self._unmoved[key] = kept
            return False
        get = self.pool.get
        first = (found[1], found[2]) if found is not None else None
        for name in touched:
            c = get(name)
            q = c.properties.get(prop) if c is not None else None
            if q is None:
                continue
            at = (q.as_float(), name)
            if side == 0:
                inside = at < first if first is not None else at <= reach
            else:
                inside = at > first if first is not None else at >= reach
            if inside and admits(request, c, now):  # type: ignore[arg-type]
                first = at
        pairs = self._by_value(prop)
        size = len(pairs)
        if first is not None:
            i = bisect_left(pairs, first)
            steps = i if side == 0 else size - 1 - i
            if steps < _WALK:
                self._walks[key] = ((steps, first[0], first[1]), len(log), first)
                return True
        elif size <= _WALK or (pairs[_WALK - 1] > reach if side == 0 else pairs[size - _WALK] < reach):
            self._unmoved[key] = kept
            return False
        self._walks[key] = (None, len(log), pairs[_WALK - 1] if side == 0 else pairs[size - _WALK])
        return True

    def _ends_kept(self, request: PlacementRequest, prop: str, now: datetime) -> bool:
        """Whether `_ends(request, prop, "", ...)` is read without walking afresh: found already
        this event, or both its walks found this event or kept (`_walk_stands`, `_walk_moved`)."""
        number = self._filters_number(request)
        if (prop, "", number) in self._ends_of:
            return True
        if any(t.seconds is not None for t in request.tolerations):
            return False
        return all(
            (key := (prop, side, number)) in self._ends_walked
            or self._walk_stands(key)
            or self._walk_moved(request, key, now)
            for side in (0, 1)
        )

    def _walk(
        self, request: PlacementRequest, prop: str, side: int, start: int, but: str, now: datetime
    ) -> tuple[int, float, str] | None:
        """The first cluster passing the request's filters holding nothing (`but` left out) from
        one end of the property's order (side 0 the lowest), from step `start` on: its step, value
        and name; None when none is within `_WALK` steps."""
        pairs = self._by_value(prop)
        for steps in range(start, min(len(pairs), _WALK)):
            value, name = pairs[steps if side == 0 else len(pairs) - 1 - steps]
            c = self.pool.get(name)
            if c is not None and name != but and admits(request, c, now):
                return steps, value, name
        return None

    def _by_value(self, prop: str) -> list[tuple[float, str]]:
        """The kept clusters having a property, by its value as a sorter reads it (as_float), then
        name; kept up to date cluster by cluster (`_revalue`)."""
        found = self._values.get(prop)
        if found is None:
            clusters = self.pool.by_name().values()
            found = self._values[prop] = sorted(
                (q.as_float(), c.name) for c in clusters if (q := c.properties.get(prop)) is not None
            )
        return found

    def _revalue(self, was: Cluster | None, now: Cluster | None) -> None:
        """A cluster's place in every property order kept (`_by_value`) moved with its model (and
        the move logged for the walks kept, `_kept_walk`; past `_REMODELS` moves, the log and
        the walks are let go together)."""
        if len(self._remodels) >= _REMODELS:
            self._remodels.clear()
            self._labels_let_go()
            self._walks.clear()
            self._unstood.clear()
            self._unmoved.clear()
            self._log_reads.clear()
            self._log_pairs.clear()
        self._remodels.append((was, now))
        for prop, pairs in self._values.items():
            for c, add in ((was, False), (now, True)):
                q = c.properties.get(prop) if c is not None else None
                if q is None:
                    continue
                entry = (q.as_float(), c.name)  # type: ignore[union-attr]
                at = bisect_left(pairs, entry)
                if add:
                    pairs.insert(at, entry)
                else:
                    assert pairs[at] == entry
                    del pairs[at]

    def _stands_ordered(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        drift: _Drift | None,
        most: int,
        now: datetime,
    ) -> bool:
        """A spread's greedy run judged again (`_Answer.ordered`). Each cycle picks, among the
        clusters within every hard constraint, those of the best topology score (which reads the
        picks so far, not the totals), then the best total, then the name (held clusters first in
        the first cycle: what it holds is the same). Where no pick's total moved and no feasible
        cluster left out rose, every comparison the run made comes out the same (a cluster left
        out lost each it took part in, and still does), so the run picks the same clusters: its
        sync writes what it holds. Only Balance moved here (no changed cluster reaches it, the
        busiest count is the same): a pick's Balance score must be the same on every picture of
        its range, and a cluster left out whose score may rise must be one it cannot pick.

        The busiest count may have moved (`most`, the caller's): every pick's score is then
        judged again, moved or not, and the moved clusters' rises are taken against it. Where
        that raises a count that did not move (`_most_rise`: Balance is monotone in it, so only a
        rise of it does), such a cluster's total is bounded as below. A rising cluster it may pick
        still loses every comparison where its total now ranks below every pick's (the run
        compares the total, then held first, then the name; one it holds is not judged so).
        Without Balance (`drift` None) nothing but the changes `_lost_only` judged moved a
        score. Where this refuses (a pick's score moved, a moved busiest count's shape),
        `_picks_above` may still hold it."""
        if drift is None:  # no Balance: no score moved but the changes `_lost_only` judged
            self._judged_now(key, answer)
            return True
        if not (
            self._ordered_moves(key, request, answer, drift, most, now)
            or self._picks_above(key, request, answer, most)
        ):
            return False
        self._judged_now(key, answer)  # kept first as it was (the journal puts that back)
        answer.most = most
        return True

    def _ordered_moves(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        drift: _Drift,
        most: int,
        now: datetime,
    ) -> bool:
        """`_stands_ordered`'s judgement by the moves since the picture: no pick's score moved,
        no cluster left out that may rise above the weakest pick (its docstring).

        The answer's rises are the picture's shared ones with its own positions patched
        (`_rises` is `_patched(_shared_rises, _rise_patch)`), so the positions rising in its
        scope, its picks left out, are the shared array's rising in scope (`_rising_in_scope`,
        found once per picture and scope) less the patched positions, plus the patched ones
        rising in scope, less the picks: no array is made per answer. Each is judged by pure
        tests (its filters: `_feasible`, which is `admits` of a cluster in the scope, or
        `admits` itself for named clusters, whose scope it does not read; held; a sorter;
        its total against the weakest pick, `_weakest_pick` pure) and the verdict is their
        conjunction, so the order they are read in moves nothing."""
        own = self.own.get(key, Counter())
        weight = _balance_weight(request)
        held = self._held_of(request)
        weakest: tuple[int, str] | None = None
        if most != answer.most and _most_rise(weight, answer.most, most) > 0:
            # Every count that did not move may have risen, a count of none excepted (100
            # whatever the busiest count): where it reads Balance and what it holds alone, holds
            # nothing it left out, and its weakest pick beats the best Balance score of a count of
            # one or more, no cluster left out that did not move can overtake a pick.
            if (
                weight < 0
                or any(not (p.balance or p.held) for p in request.preferences)
                or not held <= answer.selected
            ):
                return False
            weakest = self._weakest_pick(request, answer, own, most, held)
            if weakest is None or not _beats(weakest, (weight * _balance(1, most), "")):
                return False
        shared = self._shared_rises(drift, most, answer.most, weight, answer.mates is not None)
        patch = self._rise_patch(drift, answer, own, most, weight)
        picks = answer.selected
        for c in picks:
            moved = most != answer.most or c in drift.index  # its count, or every score, moved
            if moved and self._balance_moved(c, answer, own, most, weight) != (0, 0):
                return False
        names, get = drift.names, self.pool.get
        rising = [at for at in self._rising_in_scope(request, drift, shared) if at not in patch]
        if patch:
            scope = _scope_of(request)
            rising += [
                at
                for at, rise in patch.items()
                if rise > 0 and (scope is None or self._in_scope_named(scope, names[at]))
            ]
        if not rising:
            return True
        shapes, asks = self._facts_of(request)[4], self._asked(now)
        fixed = request.mode is SelectionMode.FIXED  # its `admits` reads no scope: asked itself
        sorted_by = None
        for at in rising:
            name = names[at]
            if name in picks:
                continue
            cluster = get(name)
            if cluster is not None and (
                admits(request, cluster, now, held=name in held)
                if fixed
                else self._feasible(request, cluster, now, name in held, asks, shapes)
            ):
                # It may pick it: it still loses where its total now ranks below every pick's.
                if sorted_by is None:
                    sorted_by = any(p.sorter is not None for p in request.preferences)
                if name in held or sorted_by:
                    return False
                if weakest is None:
                    weakest = self._weakest_pick(request, answer, own, most, held)
                    if weakest is None:
                        return False
                if not _beats(weakest, (_total(request, cluster, own, most, held), name)):
                    return False
        return True

    def _rising_in_scope(self, request: PlacementRequest, drift: _Drift, shared: np.ndarray) -> list[int]:
        """The positions where a picture's shared rises (`_shared_rises`) are above 0 whose
        cluster lies in the request's scope as the clusters now stand (`_in_scope_at` of
        `shared > 0`: every one where admits reads no scope), in no particular order. They read
        the shared array (its drift's names) and the scope alone, so they are found once per
        event and shared by every request with that scope (`_rising`, by the array's identity:
        the entry holds it, and `_shared_rises` serves an array only within the take that made
        it, the clusters' traits standing). Where few rise, each one's traits are read by name
        (`_in_scope_named`, what `_in_scope_at`'s masks hold), not a mask over the drift."""
        scope = _scope_of(request)
        key = (id(shared), scope)
        found = self._rising.get(key)
        if found is None or found[0] is not shared:
            order = self._rise_order(shared)  # every position above 0
            if scope is None:
                positions = order
            elif len(order) <= _RISING_BY_NAME:
                names = drift.names
                positions = [at for at in order if self._in_scope_named(scope, names[at])]
            else:
                positions = self._in_scope_at(request, drift, shared > 0)
            found = self._rising[key] = (shared, positions)
        return found[1]

    def _in_scope_named(self, scope: tuple[str, ...], name: str) -> bool:
        """Whether the named cluster holds one of the scope's traits as the pool now stands (a
        position `_in_scope_at` keeps)."""
        with_trait = self.pool.with_trait
        for trait in scope:  # noqa: SIM110  (a plain loop: asked per rising cluster)
            if name in with_trait(trait):
                return True
        return False

    def _picks_above(self, key: str, request: PlacementRequest, answer: _Answer, most: int) -> bool:
        """Whether a spread's greedy run (`_Answer.ordered`, its changes since judged by
        `_stands_ordered`'s callers: the clusters each cycle compares are those of its picture, less
        some it left out) picks the same clusters now, whatever moved on them: every pick's total
        now beats the most any cluster it does not hold can total (Balance's, an external score's
        hull, a label match's; no Steady bonus: it holds nothing it left out; no sorter, whose
        range spans the feasible set), and the picks rank among themselves now as the run ranked
        them (`_Answer.picks`: the totals it compared; by total, then name). Each cycle picks, among
        the clusters of the best topology score (a function of the picks before it and of the
        domains, which did not move), the best total: a cluster left out loses to every pick, and
        the picks among them are those of that cycle of the run, which ranks them as it did, so
        the cycle picks what the run picked. The first cycle prefers nothing held (no
        `prefer_held`)."""
        picks = answer.picks
        if request.prefer_held or not picks or picks.keys() != answer.selected:
            return False
        held = self._held_of(request)
        if not held <= answer.selected:
            return False
        bound = 0
        for p in request.preferences:
            if p.sorter is not None:
                return False
            if p.balance:
                bound += abs(p.weight) * 100  # Balance scores lie in [-100, 100]
            elif p.external is not None:
                low, high = self._score_hull.get(p.external, (0, 0))
                bound += max(p.weight * low, p.weight * high)
            elif not p.held:
                bound += max(0, p.weight)
        own = self.own.get(key, _NO_COUNTS)
        ranked = []
        for c, then in picks.items():
            cluster = self.pool.get(c)
            if cluster is None:
                return False
            total = _total(request, cluster, own, most, held)
            if total <= bound:
                return False
            ranked.append((c, then, total))
        return sorted(ranked, key=_by_then) == sorted(ranked, key=_by_now)

    def _out_after(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        relevant: list[tuple[Cluster | None, Cluster | None]],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> bool:
        """Whether every change that reaches the spread (`relevant`) is a cluster it neither holds
        nor picked, there before and after, in the same domain of each spread key, that is not
        feasible after (out of its scope or failing its filters): it either lost its verdict (its
        scope or its filters) or had none on either side (a scope-only move). Its greedy run then
        compares the same clusters (less one that lost its verdict, which lost each comparison it
        took part in); the domains are every cluster's, in scope or not, and that one's stayed.
        With a sorter, where it had no verdict before either (the feasible clusters, whose range
        the sorter spans, are the same), or where one alone lost its verdict and its value lies
        within the range every other feasible cluster spans (`_within_range`: every other
        cluster's sorter score stays). Its status reads the available clusters only as
        none against some (`_empties`) and, with a refused toleration, themselves: neither may
        move. `_stands_ordered` judges the rest."""
        if self.policies[key].toleration_error is not None or self._empties(request.scope, changed):
            return False
        sorted_by = any(p.sorter is not None for p in request.preferences)
        held = self._held_of(request)
        lost: Cluster | None = None  # a sorter's cluster that lost its verdict
        for old, new in relevant:
            if old is None or new is None or old.name in answer.selected or old.name in held:
                return False
            if any(_domain(x, old) != _domain(x, new) for x in request.spread):
                return False
            if in_scope(request, new) and admits(request, new, now, held=False):
                return False
            if sorted_by and in_scope(request, old) and admits(request, old, now, held=False):
                if lost is not None:
                    return False
                lost = old
        own = self.own.get(key, _NO_COUNTS)
        return lost is None or self._within_range(request, lost, own, answer.most, held, now) is not None

    def _weakest_pick(
        self,
        request: PlacementRequest,
        answer: _Answer,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
    ) -> tuple[int, str] | None:
        """A spread's weakest pick in the order its run compares clusters (the total, then the
        name, `_beats`), each pick's total read now (each its own with no sorter: the spread's
        topology score is apart from the total); None where a pick is gone."""
        weakest: tuple[int, str] | None = None
        for c in answer.selected:
            cluster = self.pool.get(c)
            if cluster is None:
                return None
            mine = (_total(request, cluster, own, most, held), c)
            if weakest is None or _beats(weakest, mine):
                weakest = mine
        return weakest

    def _lost_only(
        self,
        request: PlacementRequest,
        answer: _Answer,
        relevant: list[tuple[Cluster | None, Cluster | None]],
        now: datetime,
        key: str = "",
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]] | None = None,
    ) -> bool:
        """Whether every change that reaches the spread (`relevant`) is a cluster it left out
        that passed and no longer passes, in its scope before and after, in the same domain of
        each spread key (a taint it does not tolerate, a label its filters refuse). Its greedy run
        then compares the same clusters less that one, which lost each comparison it took part
        in; the spread's domains are every cluster's, eligible or not, and that one's stayed, so
        no domain and no count of them moves; with no sorter (a centered one
        spans the feasible clusters' range) no other cluster's score moves: the run picks the
        same clusters, and `_stands_ordered` judges the rest. A cluster it neither picks nor
        holds joining or leaving is judged by `_came_or_went`; with a sorter, only one that is
        no candidate (out of its scope or failing its filters, `_no_candidate`): the feasible
        clusters, whose range a sorter reads, are then the same."""
        if not relevant:
            return True
        if any(p.sorter is not None for p in request.preferences) and not all(
            self._no_candidate(request, old, new, now) for old, new in relevant
        ):
            return False
        held = self._held_of(request)
        for old, new in relevant:
            if old is None or new is None:
                name = (new or old).name  # type: ignore[union-attr]
                if (
                    changed is None
                    or name in answer.selected
                    or name in held
                    or not self._came_or_went(key, request, answer, old, new, changed, held, now)
                ):
                    return False
                continue
            if old.name in answer.selected or old.name in held:
                return False
            if not (in_scope(request, old) and in_scope(request, new)):
                return False
            if any(_domain(x, old) != _domain(x, new) for x in request.spread):
                return False
            if not admits(request, old, now, held=False) or admits(request, new, now, held=False):
                return False
        return True

    def _came_or_went(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        old: Cluster | None,
        new: Cluster | None,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        held: AbstractSet[str],
        now: datetime,
    ) -> bool:
        """Whether a cluster that joined (`new`) or left (`old`), one the spread neither picks nor
        holds, leaves its greedy run as it was (see the module docstring). Refused where a
        refused toleration reads the available clusters (Misconfigured) or the event may take
        them to or from none (`_empties`: the status reads that). Each of its spread domains
        must be carried by a cluster the event did not change: the domains, every cluster's,
        eligible or not, are then the same list, and their counts read the held clusters and the
        picks alone. One that left lost each comparison it took part in. One that joined and
        is a candidate of the run (in its scope, passing its filters) must rank below every pick
        (the total now, then the name) and share its cell (its domain of every spread key, or
        none) with a witness: a candidate the event did not change that the spread neither picks
        nor holds (`_witness`)."""
        if self.policies[key].toleration_error is not None or self._empties(request.scope, changed):
            return False
        cluster = new or old
        assert cluster is not None
        for constraint in request.spread:
            value = _domain(constraint, cluster)
            if value is not None and not self._carried(constraint, value, changed):
                return False
        if new is not None and in_scope(request, new) and admits(request, new, now, held=False):
            own = self.own.get(key, _NO_COUNTS)
            most = self._most_for(key) if _balance_weight(request) else answer.most
            weakest = self._weakest_pick(request, answer, own, most, held)
            if weakest is None or not _beats(weakest, (_total(request, new, own, most, held), new.name)):
                return False
            return self._witness(key, request, answer, new, changed, held, now)
        return True

    @staticmethod
    def _no_candidate(
        request: PlacementRequest, old: Cluster | None, new: Cluster | None, now: datetime
    ) -> bool:
        """Whether the change is a cluster joining or leaving that is no candidate of the run: out
        of the request's scope or failing its filters (as a cluster it does not hold)."""
        if old is not None and new is not None:
            return False
        cluster = new or old
        assert cluster is not None
        return not (in_scope(request, cluster) and admits(request, cluster, now, held=False))

    def _witness(
        self,
        key: str,
        request: PlacementRequest,
        answer: _Answer,
        cluster: Cluster,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        held: AbstractSet[str],
        now: datetime,
    ) -> bool:
        """Whether a candidate of the spread's run shares the cluster's cell (its domain of every
        spread key, or none), one the event did not change and the spread neither picks nor
        holds: it was a candidate in every cycle of the run, with the cluster's topology score
        and hard verdict in each, and lost each. Looked for first where one was found before
        (checked again), then among the pool's first `_WITNESS_LOOK` clusters in its order (the
        same on every run); none found there refuses (the run judges)."""
        if not request.spread:
            return False
        cell = tuple(_domain(constraint, cluster) for constraint in request.spread)
        memo = (key, cell)
        found = self._witnesses.get(memo)
        if found is not None and self._witnessed(request, answer, found, cell, changed, held, now):
            return True
        name = self._first_witness(request, answer.selected, cell, changed, held, now)
        if name is None:
            return False
        if len(self._witnesses) >= _WITNESSES_KEPT:
            self._witnesses.clear()
        self._witnesses[memo] = name
        return True

    def _first_witness(
        self,
        request: PlacementRequest,
        selected: AbstractSet[str],
        cell: tuple[str | None, ...],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        held: AbstractSet[str],
        now: datetime,
    ) -> str | None:
        """The first witness of the cell (`_witnessed`) among the pool's first `_WITNESS_LOOK`
        clusters in its order, or None. All that a witness must be but unpicked and unheld reads
        the request's filters (`admits`), its spread keys and the cell alone, so the clusters
        passing that are listed once per event and shared by every Placement asking with the
        same ones, read lazily: each asks the listed first, in order, then reads on. The names
        read and their order are the scan's, so the verdict and the name found are too."""
        if self._looked_of[0] is not changed:
            self._looked_of = (changed, {None: tuple(islice(self.pool.by_name(), _WITNESS_LOOK))})
        known = self._looked_of[1]
        spots = tuple((x.topology_key, x.claims) for x in request.spread)
        tag = (self._filters_number(request), spots, cell)
        look = known.get(tag)
        if look is None:
            look = known[tag] = ([], iter(self._in_cell(request.spread, spots, cell, changed, known)))
        passed: list[str] = look[0]
        rest: Iterator[str] = look[1]
        for name in passed:
            if name not in selected and name not in held:
                return name
        for name in rest:
            if admits(request, self.pool.by_name()[name], now, held=False):
                passed.append(name)
                if name not in selected and name not in held:
                    return name
        return None

    def _in_cell(
        self,
        spread: Sequence[SpreadConstraint],
        spots: tuple[tuple[str, bool], ...],
        cell: tuple[str | None, ...],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        known: dict[Any, Any],
    ) -> list[str]:
        """The clusters of the pool's first `_WITNESS_LOOK` (`known[None]`) in the cell, in the
        pool's order, but those the event changed: each spread key's domains are read once per
        event (`known`, `_first_witness`'s), each domain's clusters listed in that order."""
        found = known.get((spots, cell))
        if found is None:
            lists = []
            for constraint, spot in zip(spread, spots, strict=True):
                by = known.get(spot)
                if by is None:
                    by = known[spot] = ({}, {})
                    for name in known[None]:
                        other = self.pool.get(name)
                        if other is not None and name not in changed:
                            value = by[1][name] = _domain(constraint, other)
                            by[0].setdefault(value, []).append(name)
                lists.append(by)
            found = lists[0][0].get(cell[0], [])
            if len(lists) > 1:
                found = [
                    n for n in found if all(b[1][n] == d for b, d in zip(lists[1:], cell[1:], strict=True))
                ]
            known[(spots, cell)] = found
        return found

    def _witnessed(
        self,
        request: PlacementRequest,
        answer: _Answer,
        name: str,
        cell: tuple[str | None, ...],
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        held: AbstractSet[str],
        now: datetime,
    ) -> bool:
        """Whether the named cluster is a witness of the cell (`_witness`): in the pool, not
        changed by the event, neither picked nor held, in the cell, a candidate now."""
        if name in changed or name in answer.selected or name in held:
            return False
        other = self.pool.get(name)
        return (
            other is not None
            and all(_domain(x, other) == d for x, d in zip(request.spread, cell, strict=True))
            and admits(request, other, now, held=False)
        )

    def _carried(
        self,
        constraint: SpreadConstraint,
        value: str,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
    ) -> bool:
        """Whether a cluster of the pool the event did not change carries the domain (so it did
        before the event and does after): looked for in the pool's order, the first found ends
        it; judged once per domain and event (`changed` is one mapping for the event's checks)."""
        if self._carried_of[0] is not changed:
            self._carried_of = (changed, {})
        known = self._carried_of[1]
        tag = (constraint.topology_key, constraint.claims, value)
        verdict = known.get(tag)
        if verdict is None:
            verdict = known[tag] = any(
                name not in changed and _domain(constraint, c) == value
                for name, c in self.pool.by_name().items()
            )
        return verdict

    def _drifted_bound(
        self,
        request: PlacementRequest,
        drift: _Drift,
        rises: np.ndarray,
        best: tuple[int, str] | None,
        weakest: tuple[str, int] | None,
        alone: bool,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
        floor: tuple[int, str] | None = None,
    ) -> tuple[int, str] | None | bool:
        """The best bound of the moved clusters left out (None: none rose), or False where one
        may overtake the weakest pick: those whose bound would are looked at one by one (left
        out where it cannot pick them; else its total judged again: its own where totals are its
        own, a sorter's over the range the other feasible clusters span (`_within_range`: where it
        lies within, that is its feasible set's range); else it may).

        `floor`: the best the caller holds already (its bound of what was left out). The caller
        takes the better of the two, and `_better` is a maximum over one total order (the total,
        then the name, "" the least), so a cluster whose own total does not beat the floor nor
        what was found before it cannot move that maximum whether it passes the filters or not:
        where totals are a cluster's own, its total is judged first (a few preferences) and its
        filters (the required terms' match, most of the checks' cost) only where it would."""
        rising = rises > 0
        if best is None:  # nothing was left out: a cluster rising is new to the feasible set
            threat = rises > _NONE
            bound = np.zeros(len(rises), dtype=np.int64)
        else:
            bound = best[0] + rises
            threat = rising
            if weakest is not None:
                name, total = weakest
                threat = rising & (bound > total)
                ties = drift.up_to_count(name)  # the names are in order: those at most `name`
                if ties:
                    threat[:ties] |= rising[:ties] & (bound[:ties] == total)
        found: tuple[int, str] | None = None
        rest = rising & ~threat
        if best is not None and rest.any():
            top = int(bound[rest].max())
            # The first such position has the least name (the names are in order).
            found = (top, drift.names[int(np.argmax(rest & (bound == top)))])
        return self._threats_judged(request, drift, threat, found, alone, own, most, held, now, floor)

    def _threats_judged(
        self,
        request: PlacementRequest,
        drift: _Drift,
        threat: np.ndarray,
        found: tuple[int, str] | None,
        alone: bool,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
        floor: tuple[int, str] | None,
    ) -> tuple[int, str] | None | bool:
        """`_drifted_bound` past its prelude: `threat` the moved clusters whose bound may overtake
        the weakest pick (a mask by position), `found` the best bound of the rest that rose."""
        # Most strict Placements have no cluster whose bound would overtake their weakest pick
        # (counted: 70 to 80% of them an event): then no scope is read.
        beaten = floor if found is None else _better(floor, found)
        upper = self._uppers(request, drift, own, most, held) if alone and threat.any() else None
        if upper is not None and beaten is not None:
            threat = threat & _may_beat(upper, drift.names, beaten)
        order = self._in_scope_of(request, drift, threat) if threat.any() else []
        bounds = self._scored_bounds(request, drift, upper, order) if upper is not None and order else None
        return self._judged_in_order(
            request, drift, order, bounds, found, beaten, alone, own, most, held, now
        )

    def _in_scope_of(self, request: PlacementRequest, drift: _Drift, wanted: np.ndarray) -> list[int]:
        """`_in_scope_at` of the threats `wanted`: whether each lies in one of its scope's traits
        read by position (`_column`: whether its name is among the trait's members, what
        `_in_scope_at`'s masks are made of; for a scope of several traits, among their union,
        `_members`, kept by the pool across events: one column per scope, not one per trait
        OR-ed), only where asked. `_in_scope_at` makes a mask of every moved cluster a trait and
        drift, at the first ask of the take; the threats are a few hundred of a drift's
        thousands (counted over the soak's stream: ~2 masks an event made here, ~600 us each).
        The same positions, in the same (rising) order."""
        at = np.flatnonzero(wanted)
        scope = _scope_of(request)
        if scope is None:
            return at.tolist()
        if len(scope) == 1:
            return at[self._column(drift, ("trait", scope[0]), at)].tolist()
        return at[self._column(drift, ("scope", scope), at)].tolist()  # type: ignore[arg-type]

    def _threats_few(
        self,
        request: PlacementRequest,
        drift: _Drift,
        threats: list[int],
        found: tuple[int, str] | None,
        alone: bool,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
        floor: tuple[int, str] | None,
    ) -> tuple[int, str] | None | bool:
        """`_threats_judged` of the few threats `_few_threats` gives, by position: the same steps
        on those positions alone, each read as a number in place of an array over every moved
        cluster (a loud answer has a median of 2 threats among hundreds to thousands of moved
        clusters): its bound of the total (`_upper_at`: `_uppers` at that position) against
        what it must beat (`_beats`, `_may_beat` at one position), its scope by the union of its
        traits' members (what `_in_scope_at`'s masks are made of; `_members`: one set kept by the
        pool across events, one lookup a threat); the positions in order, as the masks give
        them, so the same clusters are judged in the same order."""
        if not threats:
            return found
        beaten = floor if found is None else _better(floor, found)
        names = drift.names
        order = sorted(threats)
        upper: dict[int, int] | None = None
        if alone:
            upper = self._upper_at(request, drift, order, own, most, held)
            if beaten is not None:
                order = [at for at in order if _beats((upper[at], names[at]), beaten)]
        if order and request.scope is not None and request.mode is not SelectionMode.FIXED:
            members = self._members(request.scope)  # the union kept across events, one lookup each
            order = [at for at in order if names[at] in members]
        bounds = self._scored_parts(request, drift, upper, order) if upper is not None and order else None
        return self._judged_in_order(
            request, drift, order, bounds, found, beaten, alone, own, most, held, now
        )

    def _judged_in_order(
        self,
        request: PlacementRequest,
        drift: _Drift,
        order: list[int],
        bounds: Mapping[int, int] | None,
        found: tuple[int, str] | None,
        beaten: tuple[int, str] | None,
        alone: bool,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
    ) -> tuple[int, str] | None | bool:
        """`_threats_judged`'s last step: the threats in scope (`order`, by position) judged one
        by one, by their bound of the total (`bounds`, where totals are a cluster's own) first."""
        if bounds is not None:
            order.sort(key=lambda at: -bounds[at])  # stable: equal bounds stay in name order
        # `_inside_total`'s ends (None: not read yet; False: not kept, read again once
        # `_within_range` has walked them)
        inner: list[tuple[int, str, float, float, bool]] | bool | None = None
        if not alone and beaten is not None and order:
            if len(order) <= _FEW and self._none_admitted(request, drift, order, held, now):
                return found
            inner = self._sorter_ends(request, held, now)
            if inner:  # kept for every threat: their filters asked by total, greatest first
                return self._judged_inside(request, drift, order, inner, found, beaten, own, most, held, now)
        if not alone and len(order) >= _TERMS_CUT_FROM and request.required:
            order = self._terms_may(request, drift, order)  # the rest are refused: passed by below
        for at in order:
            name = drift.names[at]
            if bounds is not None and beaten is not None and not _beats((bounds[at], name), beaten):
                break  # neither this one nor any after it (bounded lower) moves the maximum
            cluster = self.pool.get(name)
            if cluster is None:
                continue
            if not alone and beaten is not None:  # a sorter's total first, where its range stays
                if inner is None:
                    inner = self._sorter_ends(request, held, now)
                inside = _inside_total(request, cluster, own, most, held, inner) if inner else None  # type: ignore[arg-type]
                if inside is not None:
                    if not _beats((inside, name), beaten):
                        continue  # moves no maximum, whatever its filters say
                    if not admits(request, cluster, now, held=name in held):
                        continue
                    found = _better(found, (inside, name))
                    beaten = _better(beaten, (inside, name))
                    continue
            if alone:
                total: int | None = _total(request, cluster, own, most, held)
                if beaten is not None and not _beats((total, name), beaten):  # type: ignore[arg-type]
                    continue  # moves no maximum, whatever its filters say
                if not admits(request, cluster, now, held=name in held):
                    continue
            else:  # a sorter's: over the range the others span (None: it may be an end)
                if not admits(request, cluster, now, held=name in held):
                    continue
                total = self._within_range(request, cluster, own, most, held, now)
                if total is None:
                    return False
                if inner is False:
                    inner = None
            found = _better(found, (total, name))  # type: ignore[arg-type]
            beaten = _better(beaten, (total, name))  # type: ignore[arg-type]
        return found

    def _terms_may(self, request: PlacementRequest, drift: _Drift, order: list[int]) -> list[int]:
        """The threats of `order` (positions, in its order) whose labels and claims may match one
        of the request's required terms: a term matches only where each of its selectors'
        matchLabels pairs and In requirements holds (the value present and among the values:
        `LabelRequirement.matches`), so a threat none of whose terms has them all is refused by
        `admits` (`matches_required`), whatever its other rules. A sorter's threats judged one
        by one (`_judged_in_order`, no inside totals) pass every refused threat by with nothing
        found or moved (`continue`), and a gone one too, so those left out here change nothing
        but the asks; the rest are judged as before, in the same order. Where a term has no
        such condition (its NotIn, Exists and DoesNotExist requirements, properties and traits
        are not read here) every threat may match. Each cluster's verdict is kept across
        events per value of the terms (`_terms_kept`), so a threat costs one lookup. Counted
        over the soak's 200-event stream: 83 calls of 48 threats or more, 32,682 threats, 937
        left."""
        conditions = []
        for term in request.required:
            found = [
                (kind == "label", key, values)
                for kind, selector in (("label", term.labels), ("claim", term.claims))
                if selector is not None
                for key, values in chain(
                    ((k, (v,)) for k, v in selector.match_labels),
                    ((r.key, r.values) for r in selector.match_expressions if r.operator is _IN),
                )
            ]
            if not found:
                return order
            conditions.append(found)
        store = self._terms_kept(request.required)
        names = drift.names
        named = [names[at] for at in order]
        got = list(map(store.get, named))
        if None in got:
            get = self.pool.get
            for i, verdict in enumerate(got):
                if verdict is not None:
                    continue
                c = get(named[i])
                verdict = False
                if c is not None:
                    labels, claims = c.labels, c.claims or {}
                    for term in conditions:  # plain loops: one cluster's few conditions
                        for label, key, values in term:
                            if (labels if label else claims).get(key) not in values:
                                break
                        else:
                            verdict = True
                            break
                got[i] = store[named[i]] = verdict
        return [at for at, may in zip(order, got, strict=True) if may]

    def _terms_kept(self, terms: tuple) -> dict[str, bool]:
        """`_terms_may`'s verdicts of the required terms `terms` (by value: requests with equal
        terms share them), per cluster, kept across events: a cluster's labels and claims move
        only with its model replaced (`_revalue`, logged in `_remodels`: the kept verdicts of
        every cluster replaced since are let go at each read, a gone one's too), and the keeps
        go with the log where it is let go (`_revalue` past `_REMODELS`, and `_forget`, which
        an undone event runs after the pool is put back)."""
        log = self._remodels
        if self._labels_seen != len(log):
            if self._labels_seen > len(log):  # (the log let go without the keeps: not met)
                self._labels_kept.clear()
            else:
                stores = self._labels_kept.values()
                for pair in log[self._labels_seen :]:
                    for c in pair:
                        if c is not None:
                            for store in stores:
                                store.pop(c.name, None)
            self._labels_seen = len(log)
        store = self._labels_kept.get(terms)
        if store is None:
            store = self._labels_kept[terms] = {}
        return store

    def _labels_let_go(self) -> None:
        """`_terms_kept`'s keeps let go with the log of models replaced (`_remodels`)."""
        self._labels_kept.clear()
        self._labels_seen = 0

    def _none_admitted(
        self,
        request: PlacementRequest,
        drift: _Drift,
        order: list[int],
        held: AbstractSet[str],
        now: datetime,
    ) -> bool:
        """Whether no threat of `order` still in the pool passes the request's filters (`admits`,
        holding it where the request holds it): then `_judged_in_order` answers `found`, without
        the sorters' ends (`_sorter_ends`, ~a third of a sorter's few threats' cost, kept walks
        asked again every event). Every path of it asks a threat's filters before the threat
        can move what it answers: the one-by-one loop passes a refused threat (`continue`) and
        a gone one; `_judged_inside` and `_judged_inside_of` judge a threat at or outside an end
        by `_end_judged`, which keeps what was found where the filters refuse it, and take an
        inside threat only where it passes them; so where every threat is refused, each path
        gives `found` as it was. Asked of a sorter's few threats (at most `_FEW`; counted over
        the soak's 200-event stream: ~40 asks a cluster event, 2.2 to 2.5 threats each, 72% of
        them all refused); many are judged by their inside totals first, which asks fewer filters."""
        names, get = drift.names, self.pool.get
        for at in order:
            name = names[at]
            cluster = get(name)
            if cluster is not None and admits(request, cluster, now, held=name in held):
                return False
        return True

    def _judged_inside(
        self,
        request: PlacementRequest,
        drift: _Drift,
        order: list[int],
        inner: list[tuple[int, str, float, float, bool]],
        found: tuple[int, str] | None,
        beaten: tuple[int, str],
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
    ) -> tuple[int, str] | None | bool:
        """`_judged_in_order` of a sorter's threats where `_sorter_ends` is kept (`inner`): the
        same verdict, its filters asked of fewer threats. A threat at or outside an end of a
        range (`_inside_total` None) is judged as before, by its filters then `_within_range`
        (False where that is None: every such threat is judged, in any order). Of the rest,
        those whose total beats what was found are asked their filters by total, greatest first
        (then the least name: `_beats`' order), up to the first that passes: the loop one by
        one takes the better of each that passes and beats what it found so far, a maximum over
        one total order, so its result is the better of the others' and the greatest total that
        passes where that beats them, which this one finds; the ones below it that the loop
        asked move no maximum."""
        names, get = drift.names, self.pool.get
        if len(order) >= _INSIDE_ARRAYS:
            judged = self._judged_inside_of(request, drift, order, inner, found, beaten, own, most, held, now)
            if judged is not _LOUD:
                return judged  # type: ignore[return-value]
        total_of = _total_of(request, own, most, held)
        inside: list[tuple[int, str, Cluster]] = []
        for at in order:
            name = names[at]
            cluster = get(name)
            if cluster is None:
                continue
            total = _inside_of(cluster, inner, total_of)
            if total is None:  # it may be an end: over the range the others span
                judged = self._end_judged(request, cluster, name, found, beaten, own, most, held, now)
                if judged is None:
                    return False
                found, beaten = judged
            elif _beats((total, name), beaten):
                inside.append((total, name, cluster))
        inside.sort(key=lambda x: (-x[0], x[1]))
        for total, name, cluster in inside:
            if not _beats((total, name), beaten):
                break  # neither this one nor any after it moves the maximum
            if admits(request, cluster, now, held=name in held):
                return _better(found, (total, name))
        return found

    def _end_judged(
        self,
        request: PlacementRequest,
        cluster: Cluster,
        name: str,
        found: tuple[int, str] | None,
        beaten: tuple[int, str],
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
    ) -> tuple[tuple[int, str] | None, tuple[int, str]] | None:
        """A sorter's threat at or outside an end of its range (`_judged_inside`,
        `_judged_inside_of`): by its filters, then its total over the range the others span
        (`_within_range`). What was found and what beats it raised by that total; as they were
        where its filters refuse it; None where `_within_range` refuses (the caller's False)."""
        if not admits(request, cluster, now, held=name in held):
            return found, beaten
        total = self._within_range(request, cluster, own, most, held, now)
        if total is None:
            return None
        return _better(found, (total, name)), _better(beaten, (total, name))

    def _judged_inside_of(
        self,
        request: PlacementRequest,
        drift: _Drift,
        order: list[int],
        inner: list[tuple[int, str, float, float, bool]],
        found: tuple[int, str] | None,
        beaten: tuple[int, str],
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
        now: datetime,
    ) -> tuple[int, str] | None | bool | object:
        """`_judged_inside` of many threats, their inside totals and ends read as arrays
        (`_inside_totals` over `_column`s: each cluster's load, sorted values and external
        scores read once a take, whichever answer asks first); `_LOUD` where a part is not read
        so (the caller judges them one by one). The same verdict, the same clusters asked their
        filters in the same order: the threats at or outside an end are judged first, in order,
        as the loop judges them (each one, in any order: a maximum, or False at the first
        `_within_range` refuses); the loop keeps an inside threat where it beats what was found
        so far and asks its filters only where it still beats what was found at the end
        (`_beats` is transitive and what was found only climbs), so the inside threats asked
        are those beating the final bound, by total, greatest first, then the least name, up
        to the first that passes. A moved cluster gone from the pool is passed, as the loop
        passes it."""
        at = np.asarray(order, dtype=np.int64)
        at = at[~self._column(drift, ("gone", ""), at)]
        names = drift.names
        named = [names[i] for i in at.tolist()]
        totals = _inside_totals(request, drift, at, named, inner, own, most, held, self._column)
        if totals is None:
            return _LOUD
        total, ends = totals
        get = self.pool.get
        for i in np.flatnonzero(ends).tolist():
            name = named[i]
            judged = self._end_judged(request, get(name), name, found, beaten, own, most, held, now)  # type: ignore[arg-type]
            if judged is None:
                return False
            found, beaten = judged
        floor, least = beaten
        rest = ~ends
        above = np.flatnonzero(rest & (total > floor)).tolist()
        if least:  # an equal total beats it with a smaller name ("": on the total alone)
            above += [i for i in np.flatnonzero(rest & (total == floor)).tolist() if named[i] < least]
        for minus, name in sorted((-int(total[i]), named[i]) for i in above):
            if admits(request, get(name), now, held=name in held):  # type: ignore[arg-type]
                return _better(found, (-minus, name))
        return found

    def _column(self, drift: _Drift, field: tuple[str, str], at: np.ndarray) -> np.ndarray:
        """A value of the drift's clusters at the positions `at`, as the clusters now stand: whether
        one has a trait ("trait", the trait: its name among the pool's members of it), or one of
        a scope's ("scope", the scope's traits: among their union, `_members`), whether
        one is gone from the pool ("gone"), its load ("load"), a property's value by `as_float`
        ("value", the property; NaN where absent or gone: `as_float` is a quotient of an
        integer, never NaN), an external score ("score", its name; 0 where absent). Each read
        once a take per cluster, whichever answer asks first, and kept with the take (cleared
        where `_in_trait` is: the clusters' models stand within it): over the log's names in
        order where the drift is read off the log (`_Drift.places`: every such drift of the
        take shares them; the threats of the answers are mostly the same clusters, counted ~550
        asked of ~170 an event), else over the drift's own names."""
        owner: Any
        if drift.places is not None and drift.ordered is not None:
            owner, where = drift.ordered, drift.places[at]
        else:
            owner, where = drift, at
        key = (id(owner), field)
        kept = self._columns.get(key)
        if kept is None or kept[0] is not owner:
            size = len(drift.ordered) if owner is drift.ordered else len(drift.names)  # type: ignore[arg-type]
            kind = field[0]
            dtype = np.float64 if kind == "value" else np.int64 if kind in ("load", "score") else bool
            kept = self._columns[key] = (owner, np.zeros(size, dtype=dtype), np.zeros(size, dtype=bool))
        _, values, known = kept
        missing = where[~known[where]]
        if missing.size:
            if owner is drift:
                names = drift.names
                named = [names[i] for i in missing.tolist()]
            else:
                named = owner[missing].tolist()
            kind, name = field
            read: Iterable[Any]
            if kind == "trait":
                read = map(self.pool.with_trait(name).__contains__, named)
            elif kind == "scope":  # `name` a scope's traits: in one of them (the pool's kept union)
                read = map(self._members(name).__contains__, named)  # type: ignore[arg-type]
            else:
                clusters = list(map(self.pool.get, named))
                if kind == "gone":
                    read = (c is None for c in clusters)
                elif kind == "load":
                    read = (0 if c is None else c.load for c in clusters)
                elif kind == "value":
                    read = (
                        math.nan if c is None or (q := c.properties.get(name)) is None else q.as_float()
                        for c in clusters
                    )
                else:
                    read = (0 if c is None else c.scores.get(name, 0) for c in clusters)
            values[missing] = np.fromiter(read, values.dtype, missing.size)
            known[missing] = True
        return values[where]

    def _sorter_ends(
        self, request: PlacementRequest, held: AbstractSet[str], now: datetime
    ) -> list[tuple[int, str, float, float, bool]] | bool:
        """Each centered sorter's weight, property and the feasible clusters' range of it (`_ends`
        with nothing left out, as `_within_range` reads it first), and its order; an empty list
        (`_judged_in_order` then judges each cluster by `_within_range`) where a sorter is
        label-bound or an end is not found; False where an end would be walked afresh (`_ends_kept`:
        a walk costs up to `_WALK` filter asks, more than the few threats of most answers, whose
        filters refuse them all more often than not; `_within_range` walks it where it must).

        `_ends_kept` and `_ends` read as one: each sorter's shared ends (`_shared_ends` with
        nothing left out: `_ends_of`'s, else its two walks found this event, kept, or brought up
        to the log, which are what `_end`, `_kept_walk` then give, kept for the event as they
        keep them) asked first for every sorter, False at the first a walk would be made afresh
        (or the filters have a toleration with seconds: walked every event); then, in the
        preferences' order, [] at the first sorter label-bound or with an end not found, else
        its ends widened by the held clusters (`_held_ends`, as `_ends` widens them)."""
        number = self._filters_number(request)
        shared: dict[str, tuple[float, float] | None] = {}
        timed: bool | None = None
        for p in request.preferences:
            if p.sorter is None or p.sorter.name in shared:
                continue
            prop = p.sorter.name
            key = (prop, "", number)
            if key in self._ends_of:
                shared[prop] = self._ends_of[key]
                continue
            if timed is None:
                timed = any(t.seconds is not None for t in request.tolerations)
            if timed:
                return False
            found = []
            for side in (0, 1):
                walk = (prop, side, number)
                if walk in self._ends_walked:
                    found.append(self._ends_walked[walk])
                elif self._walk_stands(walk) or self._walk_moved(request, walk, now):
                    found.append(self._walks[walk][0])
                else:
                    return False
            for side in (0, 1):
                self._ends_walked[(prop, side, number)] = found[side]
            ends = None if found[0] is None or found[1] is None else (found[0][1], found[1][1])
            shared[prop] = self._ends_of[key] = ends
        out = []
        for p in request.preferences:
            if p.sorter is None:
                continue
            ends = None if p.labels is not None else shared[p.sorter.name]
            if ends is None:
                return []
            ends = self._held_ends(request, p.sorter.name, "", ends, held, now)
            out.append((p.weight, p.sorter.name, ends[0], ends[1], p.sorter.ascending))
        return out

    def _uppers(
        self,
        request: PlacementRequest,
        drift: _Drift,
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
    ) -> np.ndarray:
        """Per moved cluster, a bound of `_total` where totals are a cluster's own (a moved
        cluster gone from the pool is never judged: its entry is any). Balance's part exactly:
        the weight times the score of its count now (`drift.now`) less the request's own
        decisions there, against the busiest count; Steady's held bonus on the clusters it holds;
        an external score at its weight times either end of a range holding every score of that
        name and 0 (`_score_hull`; read off the cluster for the few left, `_scored_bounds`); a
        label match (OCM has none) at its weight where that is above 0."""
        upper = np.zeros(len(drift.names), dtype=np.int64)
        weight = static = 0
        for p in request.preferences:
            if p.sorter is not None:
                continue
            if p.balance:
                weight += p.weight
            elif p.held:
                if p.weight:
                    for at in map(drift.index.get, held):
                        if at is not None:
                            upper[at] += p.weight * 100
            elif p.external is not None:
                low, high = self._score_hull.get(p.external, (0, 0))
                static += max(p.weight * low, p.weight * high)
            else:
                static += max(0, p.weight)
        if static:
            upper += static
        if weight:
            base = self._upper_base(drift, most)
            upper += weight * base
            for c, mine in own.items():
                at = drift.index.get(c)
                if at is not None and mine:
                    count = max(0, int(drift.now[at]) - mine)
                    upper[at] += weight * (_balance(count, most) - int(base[at]))
        return upper

    def _upper_base(self, drift: _Drift, most: int) -> np.ndarray:
        """Balance's scores (unweighted) of the drift's counts now against the busiest count,
        kept for the event (by the drift's identity: the entry holds it)."""
        key = (id(drift), most)
        found = self._upper_bases.get(key)
        if found is None or found[0] is not drift:
            found = self._upper_bases[key] = (drift, balance_scores(np.clip(drift.now, 0, most), most))
        return found[1]

    def _upper_at(
        self,
        request: PlacementRequest,
        drift: _Drift,
        order: Sequence[int],
        own: Mapping[str, int],
        most: int,
        held: AbstractSet[str],
    ) -> dict[int, int]:
        """`_uppers` at the positions of `order` alone, each a sum of the same parts: the static
        parts, Steady's held bonus where the request holds the cluster, Balance's weighted score
        of its count now less the request's own decisions there (the kept base's entry where it
        has none there: `_uppers` adds the difference to it, so the sum is the score itself). The
        preferences' sums read once per request (`_upper_parts`), the external scores' bounds
        read from the hull as it stands (it only widens)."""
        weight, bonus, static, scored = self._upper_parts(request)
        hull = self._score_hull
        for w, key in scored:
            low, high = hull.get(key, (0, 0))
            static += max(w * low, w * high)
        base = self._upper_base(drift, most) if weight else None
        names, now = drift.names, drift.now
        out: dict[int, int] = {}
        for at in order:
            name = names[at]
            upper = static + bonus if name in held else static
            if base is not None:
                mine = own.get(name, 0)
                score = _balance(max(0, int(now[at]) - mine), most) if mine else int(base[at])
                upper += weight * score
            out[at] = upper
        return out

    def _upper_parts(self, request: PlacementRequest) -> tuple[int, int, int, tuple[tuple[int, str], ...]]:
        """What `_uppers` sums of the request's preferences but its sorters, in one pass made once
        per request (kept by identity, as `_ceiling`'s: a request is never changed, only
        replaced): Balance's weights, Steady's held bonus (its weight times 100), the label
        matches' and fixed weights at most 0 dropped (`max(0, weight)` each), and the external
        scores' (weight, name) in the preferences' order, whose bounds read the hull (which
        moves) at each ask. Integers: summed in any order, the same sums."""
        found = self._upper_kept.get(id(request))
        if found is None or found[0] is not request:
            weight = bonus = static = 0
            scored: list[tuple[int, str]] = []
            for p in request.preferences:
                if p.sorter is not None:
                    continue
                if p.balance:
                    weight += p.weight
                elif p.held:
                    bonus += p.weight * 100
                elif p.external is not None:
                    scored.append((p.weight, p.external))
                else:
                    static += max(0, p.weight)
            if len(self._upper_kept) > 2 * len(self.requests) + 64:  # requests replaced since
                self._upper_kept.clear()
            found = self._upper_kept[id(request)] = (request, (weight, bonus, static, tuple(scored)))
        return found[1]

    def _scored_bounds(
        self, request: PlacementRequest, drift: _Drift, upper: np.ndarray, order: Sequence[int]
    ) -> dict[int, int]:
        """`upper` at the positions of `order`, each external score's part read off the cluster
        itself in place of its bound over the pool (`_uppers`): the totals of these few, but a
        label match's part. The scores read as the take's columns (`_column`: each cluster's
        read once a take), the sums as `_scored_parts` makes them (integers), a cluster gone
        from the pool left at its bound."""
        at = np.asarray(order, dtype=np.int64)
        bounds = upper[at]
        scored = [(p.weight, p.external or "") for p in request.preferences if _external(p)]
        if scored:
            loose = 0
            exact = np.zeros(len(at), dtype=np.int64)
            for w, k in scored:
                low, high = self._score_hull.get(k, (0, 0))
                loose += max(w * low, w * high)
                exact += w * self._column(drift, ("score", k), at)
            bounds = np.where(self._column(drift, ("gone", ""), at), bounds, bounds + exact - loose)
        return dict(zip(order, bounds.tolist(), strict=True))

    def _scored_parts(
        self, request: PlacementRequest, drift: _Drift, bounds: dict[int, int], order: Sequence[int]
    ) -> dict[int, int]:
        """`_scored_bounds` past the bounds' read: each external score's part read off the
        cluster in place of its bound over the pool, in `bounds` (the caller's own dict)."""
        scored = self._upper_parts(request)[3]
        if scored:
            loose = 0
            for w, k in scored:
                low, high = self._score_hull.get(k, (0, 0))
                loose += max(w * low, w * high)
            get, names = self.pool.get, drift.names
            for at in order:
                c = get(names[at])
                if c is not None:
                    bounds[at] += sum(w * c.scores.get(k, 0) for w, k in scored) - loose
        return bounds

    def _rises(
        self, drift: _Drift, answer: _Answer, own: Mapping[str, int], most: int, weight: int
    ) -> np.ndarray:
        """The most each moved cluster's weighted Balance score can have risen since the answer's
        picture (its others' count now against the range it had there: its count logged then,
        less the request's own decisions then, within its batch-mates' moves). The rises of the
        drift's counts as they stand are the same for every answer of the picture with the same
        Balance weight and busiest counts (`_shared_rises`, computed once: the ~500 strict
        Placements an event checks share a few weights); only the clusters of its own decisions,
        now or then, and of its own moves differ, each judged again here (Balance's score is a
        cluster's own: a table lookup by its count, so the rest are those of the shared array,
        exactly). A fresh array: the caller marks its picks in it."""
        shared = self._shared_rises(drift, most, answer.most, weight, answer.mates is not None)
        return _patched(shared, self._rise_patch(drift, answer, own, most, weight))

    def _rise_patch(
        self, drift: _Drift, answer: _Answer, own: Mapping[str, int], most: int, weight: int
    ) -> dict[int, int]:
        """Where `_rises` differs from the picture's shared rises: the answer's own clusters (its
        decisions now and then, its moves), by position in the drift. Those of them in the drift
        found by a set intersection in C over the fewer (`_in_drift`), not a look-up each."""
        patch: dict[int, int] = {}
        found = _in_drift(drift.index, own, answer)
        if not found:
            return patch
        mates = answer.mates is not None
        index = drift.index
        for c in found:
            at = index[c]
            then, mine = int(drift.then[at]), answer.own.get(c, 0)
            s_now = _balance(max(0, int(drift.now[at]) - own.get(c, 0)), most)
            low = then - int(drift.dropped[at]) + (c in answer.down) - mine
            s_low = weight * _balance(max(0, low), answer.most)
            if mates:
                high = then + int(drift.added[at]) - (c in answer.up) - mine
                s_low = min(s_low, weight * _balance(max(0, high), answer.most))
            patch[at] = weight * s_now - s_low
        return patch

    def _quiet_bound(
        self,
        drift: _Drift,
        shared: np.ndarray,
        patch: Mapping[int, int],
        best: tuple[int, str] | None,
        weakest: tuple[str, int] | None,
    ) -> tuple[int, str] | None | object:
        """`_drifted_bound` where no moved cluster threatens the weakest pick, found without an
        array per answer; `_LOUD` where one may (or nothing was left out, or there is no pick):
        the caller judges it whole. The answer's rises are the picture's shared ones (`shared`)
        but at the positions of `patch`. Let R be the greatest rise above 0 among them (at its
        first position: the least name, the names being in order). A cluster threatens where
        its bound best + rise exceeds the weakest pick's total or equals it (by name); if
        best + R is below that total, none does, and `_drifted_bound` gives the best of the rest,
        every rising cluster: (best + R, the name at R's first position), or None where none
        rises. R over the shared rises but the patched positions is read off their order by
        rise, then position (`_rise_order`, one sort per shared array and event)."""
        if best is None or weakest is None:
            return _LOUD
        top, at = 0, -1
        for i in self._rise_order(shared):
            if i not in patch:
                top, at = int(shared[i]), i
                break
        for i, rise in patch.items():
            if rise > top or (rise == top and rise > 0 and i < at):
                top, at = rise, i
        if at < 0:
            return None
        if best[0] + top >= weakest[1]:
            return _LOUD
        return best[0] + top, drift.names[at]

    def _few_threats(
        self,
        drift: _Drift,
        shared: np.ndarray,
        patch: Mapping[int, int],
        best: tuple[int, str] | None,
        weakest: tuple[str, int] | None,
    ) -> tuple[list[int], tuple[int, str] | None] | None:
        """`_drifted_bound`'s prelude read off the shared rises' order (`_rise_order`) in place of
        the answer's patched array: its threats by position (`_threats_few` judges them) and the
        best bound of the rest, or None where more than `_FEW` unpatched clusters threaten (or
        nothing was left out, or there is no pick): the caller then judges it whole. A moved
        cluster threatens where it rises and best + rise exceeds the weakest pick's total t, or
        equals it at a name at most the weakest pick's (a position below `ties`, the names being in
        order): along the order (rise descending, then position) the unpatched threats are a
        prefix, since among equal rises those below `ties` come first, and the first unpatched
        cluster past them is the best of the unpatched rest (the greatest rise, then the least
        name); the patched positions are judged one by one. Counted (events 20-139 of the soak's
        stream): a relabel's ~229 such answers have a median of 2 threats, 90% of them at most 9."""
        if best is None or weakest is None:
            return None
        name, total = weakest
        t = total - best[0]
        ties = drift.up_to_count(name)
        threats: list[int] = []
        top, at = 0, -1
        for i in self._rise_order(shared):
            if i in patch:
                continue
            rise = int(shared[i])
            if rise > t or (rise == t and i < ties):
                if len(threats) == _FEW:
                    return None
                threats.append(i)
            else:
                top, at = rise, i
                break
        for i, rise in patch.items():
            if rise <= 0:
                continue
            if rise > t or (rise == t and i < ties):
                threats.append(i)
            elif rise > top or (rise == top and i < at):
                top, at = rise, i
        return threats, (None if at < 0 else (best[0] + top, drift.names[at]))

    def _rise_order(self, shared: np.ndarray) -> list[int]:
        """The positions of a shared rises array whose rise is above 0, by rise (greatest first),
        then position; kept for the event with the array (by its identity: the entry holds it).
        A Balance weight w gives rises w times those of weight 1 or -1 by its sign (`_shared_rises`:
        each an integer), the same positions above 0 in the same order, ties and all: one sort
        serves every weight of that sign of a picture (`_unit_rises`, kept with each array)."""
        found = self._orders.get(id(shared))
        if found is None or found[0] is not shared:
            rising = np.flatnonzero(shared > 0)
            order = rising[np.argsort(-shared[rising], kind="stable")].tolist()
            found = self._orders[id(shared)] = (shared, order)
        return found[1]

    def _shared_rises(self, drift: _Drift, most: int, then: int, weight: int, mates: bool) -> np.ndarray:
        """`_rises` of an answer with no own cluster among the drift's: the weighted score of each
        count now less the least on the picture's range (read only; kept for the event with the
        picture's scores, `_balance_bases`). The weight times the weight-1 rises of its sign
        (`_unit_rises`: integers, so the product is exact), that array itself at weight 1 (most
        answers'); its order by rise (`_rise_order`) is theirs, kept with it."""
        key = (id(drift), most, then, weight, mates)
        found = self._shared_rise.get(key)
        if found is None or found[0] is not drift:
            unit, order = self._unit_rises(drift, most, then, mates, weight > 0)
            if weight == 1:
                rises = unit
            else:
                rises = weight * unit
                rises.flags.writeable = False
                if not weight:
                    order = []
            found = self._shared_rise[key] = (drift, rises)
            self._orders[id(rises)] = (rises, order)
        return found[1]

    def _unit_rises(
        self, drift: _Drift, most: int, then: int, mates: bool, up: bool
    ) -> tuple[np.ndarray, list[int]]:
        """The rises of Balance weight 1 (`up`), or those of weight -1 times -1: the arrays every
        weight of that sign scales (`_shared_rises`), and the positions where that sign's weights
        rise, by rise (greatest first), then position, the order of every such weight's rises,
        ties and all (`_rise_order`). A weight w above 0 rises by w (s_now - min(s_low, s_high));
        one below 0 by w s_now - min(w s_low, w s_high) = w (s_now - max(s_low, s_high)), rising
        where that difference is below 0, the most where it is least (without batch-mates' moves
        s_low and s_high are one: both signs read s_now - s_low). Read only; kept for the event
        with the picture's scores (`_balance_bases`)."""
        key = (id(drift), most, then, mates, up)
        found = self._units.get(key)
        if found is None or found[0] is not drift:
            s_now, s_low, s_high = self._balance_bases(drift, most, then)
            if not mates:
                unit = s_now - s_low
            elif up:
                unit = s_now - np.minimum(s_low, s_high)
            else:
                unit = s_now - np.maximum(s_low, s_high)
            unit.flags.writeable = False
            if up:
                rising = np.flatnonzero(unit > 0)
                order = rising[np.argsort(-unit[rising], kind="stable")].tolist()
            else:
                rising = np.flatnonzero(unit < 0)
                order = rising[np.argsort(unit[rising], kind="stable")].tolist()
            found = self._units[key] = (drift, unit, order)
        return found[1], found[2]

    def _balance_bases(self, drift: _Drift, most: int, then: int) -> tuple[np.ndarray, ...]:
        """Balance's scores (unweighted) of the drift's counts now against the busiest count
        `most`, and of its range's ends on the picture (`then`: its busiest count): every answer
        of one picture reads these, but on its own clusters (`_rises`); read only, kept for the
        event (by the drift's identity: the entry holds it)."""
        key = (id(drift), most, then)
        found = self._bases.get(key)
        if found is None or found[0] is not drift:
            arrays = (
                balance_scores(np.clip(drift.now, 0, most), most),
                balance_scores(np.clip(drift.then - drift.dropped, 0, then), then),
                balance_scores(np.clip(drift.then + drift.added, 0, then), then),
            )
            found = self._bases[key] = (drift, arrays)
        return found[1]

    def _balance_moved(
        self,
        c: str,
        answer: _Answer,
        own: Mapping[str, int],
        most: int,
        weight: int,
    ) -> tuple[int, int]:
        """The least and the most a cluster's weighted Balance score can have moved since the
        answer's picture: its others' count now against the range it had there."""
        if not weight:
            return 0, 0
        moved = self._moved_since(answer.seen)
        then = moved.get(c, self.counts.get(c, 0)) - answer.own.get(c, 0)
        low, high = answer.mates.range(c, answer.up, answer.down) if answer.mates else (0, 0)
        now = weight * _balance(max(0, self.counts.get(c, 0) - own.get(c, 0)), most)
        ends = [now - weight * _balance(max(0, then + d), answer.most) for d in (low, high)]
        return min(ends), max(ends)

    def _emptied(self, request: PlacementRequest, old: Cluster | None, new: Cluster | None) -> bool:
        """Whether a cluster entering or leaving the scope may take its available clusters to or
        from none (the status says which)."""
        scoped = [c is not None and in_scope(request, c) for c in (old, new)]
        return scoped[0] != scoped[1] and self._few(request.scope or ())

    def _reads_scope(
        self,
        key: str,
        request: PlacementRequest,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
    ) -> bool:
        """Whether the Placement's sync may read a cluster entering or leaving its scope that fails
        its filters on both sides (a scope-only move; see the module docstring): where its spread
        reads topology domains (a PickN's: a PickAll picks every feasible cluster, spread or
        not), where a refused toleration reads the available clusters themselves
        (`_misconfigured`), or where the event takes its available clusters to or from none (the
        status's AllManagedClusterSetsEmpty). Nothing else it writes reads a cluster that fails
        its filters."""
        if request.spread and request.mode is not SelectionMode.ALL:
            return True
        if self.policies[key].toleration_error is not None:
            return True
        return self._empties(request.scope, changed)

    def _empties(
        self, scope: tuple[str, ...] | None, changed: Mapping[str, tuple[Cluster | None, Cluster | None]]
    ) -> bool:
        """Whether the changes take the scope's clusters (the available clusters: the pool's in
        one of its sets) from none to some or from some to none, exactly, every changed cluster
        counted (several may enter or leave at once). A cluster in it now that did not enter was
        in it before too, so both counts are then above zero: found after looking at no more of
        its clusters than entered it. Otherwise it holds now only clusters that entered, and held
        before exactly those that left. Judged once per scope and event (`_emptied_of`)."""
        if not changed or scope is None:
            return False
        found = self._emptied_of.get(scope)
        if found is not None and found[0] is changed:
            return found[1]
        entered: set[str] = set()
        left = 0
        for name, (old, new) in changed.items():
            was, now = (c is not None and not c.traits.isdisjoint(scope) for c in (old, new))
            if now and not was:
                entered.add(name)
            elif was and not now:
                left += 1
        verdict = False
        if entered or left:
            members: set[str] = set()
            stays = False
            for trait in scope:
                for name in self.pool.with_trait(trait):
                    if name not in entered:
                        stays = True
                        break
                    members.add(name)
                if stays:
                    break
            verdict = not stays and (not members) != (left == 0)
        self._emptied_of[scope] = (changed, verdict)
        return verdict

    def _few(self, scope: tuple[str, ...]) -> bool:
        """Whether the scope holds at most one cluster (found without listing them all)."""
        seen: set[str] = set()
        for trait in scope:
            for name in self.pool.with_trait(trait):
                seen.add(name)
                if len(seen) > 1:
                    return False
        return True

    def _filters_number(self, request: PlacementRequest) -> int:
        """The number of the request's filters (what `admits` reads of it: its mode, scope,
        required terms and tolerations, a fixed one's names), each distinct value numbered once:
        equal filters of different requests share a number, so the terms are hashed once per
        request, not per ask. Kept per request by identity, as `_held_of`; let go with the
        numbers together (`take`), so a number names one value while kept."""
        found = self._numbered.get(id(request))
        if found is None or found[0] is not request:
            fixed = request.cluster_names if request.mode is SelectionMode.FIXED else None
            filters = (request.mode, request.scope, request.required, request.tolerations, fixed)
            number = self._filter_numbers.setdefault(filters, len(self._filter_numbers))
            found = self._numbered[id(request)] = (request, number)
        return found[1]

    def _any_feasible(self, request: PlacementRequest, drift: _Drift, now: datetime) -> bool:
        """Whether the request may pick one of the moved clusters (in its scope, passing its
        filters). Whether one passes holding nothing reads the request's filters alone (its mode,
        scope, required terms and tolerations; a fixed one's names), so it is judged once per
        event, drift and filters and shared by every request with them (`_feasible_of`). Holding a
        cluster only lets its new-only taints go, so a held cluster passes wherever it passes
        holding nothing: where none passes so, only the request's held clusters among the moved
        may, and those are judged again, held."""
        key = (id(drift), self._filters_number(request))
        found = self._feasible_of.get(key)
        if found is None or found[0] is not drift:
            verdict = False
            for at in self._in_scope_at(request, drift, None):
                cluster = self.pool.get(drift.names[at])
                if cluster is not None and admits(request, cluster, now):
                    verdict = True
                    break
            found = self._feasible_of[key] = (drift, verdict)
        if found[1]:
            return True
        for name in self._held_of(request):
            cluster = self.pool.get(name) if name in drift.index else None
            if cluster is not None and admits(request, cluster, now, held=True):
                return True
        return False

    def _set_request(self, key: str, request: PlacementRequest | None) -> None:
        """The Placement's request replaced (None: taken off), the one before let go of by
        `_held_of`'s cache too (and `_facts_of`'s): kept there, every request an event replaces
        (thousands of decisions a PickAll) would live until the cache is cleared."""
        old = self.requests.get(key)
        if old is not None and old is not request:
            self._held.pop(id(old), None)
            self._facts.pop(id(old), None)
        if request is None:
            self.journal.pop(self.requests, key)
            self._made.pop(key, None)
            self._held_own.pop(key, None)
            self.journal.discard(self.timed, key)
        else:
            self.journal.set(self.requests, key, request)
            if old is None or old.tolerations is not request.tolerations:
                if any(t.seconds is not None for t in request.tolerations):
                    self.journal.add(self.timed, key)
                else:
                    self.journal.discard(self.timed, key)

    def _request(
        self,
        key: str,
        m: Manifest,
        policy: Policy,
        required: tuple | None,
        held: list[str],
        scope: tuple[str, ...],
    ) -> PlacementRequest:
        """The Placement's request as `placement_request` makes it, a function of what it reads
        (its name, the policy's count, preferences, spread and tolerations, the required terms,
        the scope) and of `held`: the last one made is made again only where one of those differs
        (equal values: a Placement's own status, written at each of its syncs, makes a new
        manifest and policy of the same spec); else it is that one holding `held` (a copy where
        its holdings moved: the rest of a PickAll's request is not made again, nor a decision per
        cluster it holds)."""
        made = self._made.get(key)
        reads = _request_reads(m, policy, required, scope)
        if made is None or made[0] != reads:
            request = placement_request(m, policy, required, held, scope)
            self._made[key] = (reads, request)
            return request
        return self._holding(key, made[1], held)

    def _request_again(
        self, key: str, m: Manifest, policy: Policy, required: tuple | None, scope: tuple[str, ...]
    ) -> PlacementRequest | None:
        """The Placement's last request made (`_request`), where it is made of what the Placement
        reads now and known to hold exactly the clusters it counts (`_held_own`, in name order):
        `_request` would give it again (`_holding` finds it holds them), so what the Placement
        holds is neither sorted nor compared (a PickAll's thousands); else None."""
        own, kept, made = self.own.get(key), self._held_own.get(key), self._made.get(key)
        if (
            own
            and kept is not None
            and kept[1] is own
            and made is not None
            and made[1] is kept[0]
            and made[0] == _request_reads(m, policy, required, scope)
        ):
            return kept[0]
        return None

    def _holding(self, key: str, request: PlacementRequest, held: list[str]) -> PlacementRequest:
        """The request holding the clusters `held` (in name order), as a load would read it: itself
        where it holds them; the copy kept as the Placement's last made (`_request`) where the
        request is that one."""
        if len(request.existing) == len(held) and list(map(_cluster_of, request.existing)) == held:
            return request
        existing = self._shared(self._decision, held)
        out = replace(request, existing=tuple(existing))
        self._held[id(out)] = (out, frozenset(held))  # `_held_of`'s, made of the names at hand
        made = self._made.get(key)
        if made is not None and made[1] is request:
            self._made[key] = (made[0], out)
        return out

    def _held_now(self, key: str, request: PlacementRequest) -> PlacementRequest:
        """`_holding(key, request, _holdings(own))` for a Placement whose decisions this take
        moved, without sorting what it holds: a request holds its clusters in name order, each
        once (`_request`, `_holding`), so where what it holds (`_held_of`) with the clusters this
        take put in taken in and those it took out taken off (`_own_flips`) is every cluster it
        counts (each counted above 0; a set compare in C, its names' hashes kept), the request
        holding those is this one with those few entries put in or taken off at their bisect
        places. Else (someone else's decisions, a count not above 0) as `_holding` makes it. A
        PickAll's request was made again from its thousands of names, sorted, at each sync of it
        (0.2-1 ms each; a join's or leave's second take reads back tens).

        Where the request is known to hold exactly the clusters of the counts the take found
        (`_held_own`: the request and that very dict, recorded where it was made of them, by
        `_taken`, or found so here), the compare is not made, for it would find them equal: a
        Placement's counts are a fresh dict at each take that moves them (`_owned`), moved in
        place only while that take reads, before anything is recorded, so a dict recorded never
        moves after (an undone take puts back the dicts and requests before it, objects again,
        which a record of the undone one does not name); the take's flips are exactly the
        clusters its moves put in or took out of those counts (a count goes to or from none
        only there; none is kept at 0 nor goes below, each being a sum of lists' entries), so
        what it holds with them applied is every cluster counted now, each above 0. The answer
        is then recorded for the counts as they now stand (their keys are `now`)."""
        own = self.own.get(key, {})
        flips = self._own_flips.get(key, {})
        held = self._held_of(request)
        put = [c for c, flip in flips.items() if flip > 0 and c not in held]
        off = [c for c, flip in flips.items() if flip < 0 and c in held]
        if put and off:
            now = held.difference(off).union(put)
        else:  # one copy of the thousands a PickAll holds where one side is empty
            now = held.union(put) if put else held.difference(off) if off else held
        kept = self._held_own.get(key)
        start = self._own_was[key] if key in self._own_was else self.own.get(key)
        known = kept is not None and start is not None and kept[0] is request and kept[1] is start
        if not known and (not own or min(own.values()) <= 0 or now != own.keys()):
            return self._holding(key, request, _holdings(own))
        if not own:  # (known: it held clusters, none now: `_holding` holds none)
            return self._holding(key, request, [])
        if now is held:
            self._held_own[key] = (request, own)
            return request
        existing = list(request.existing)
        for c in off:
            del existing[bisect_left(existing, c, key=_cluster_of)]
        decision = self._decision
        for c in sorted(put):
            existing.insert(bisect_left(existing, c, key=_cluster_of), decision[c])
        out = replace(request, existing=tuple(existing))
        self._held[id(out)] = (out, now)  # `_held_of`'s
        self._held_own[key] = (out, own)
        made = self._made.get(key)
        if made is not None and made[1] is request:
            self._made[key] = (made[0], out)
        return out

    def _given_result(self, request: PlacementRequest, answer: tuple[str, ...]) -> RequestResult:
        """A PickAll's answer given without the solver as the solver reports it: the clusters in
        name order, none marked kept, and the decisions it gives up released. Left out, unlike the
        solver's: the scores and the report of clusters not picked, which neither OCM's emit nor
        this model reads for a PickAll (its decisions carry no score, its answer no margin). Each
        cluster's Choice is made once and shared (frozen: a PickAll's answer is hundreds). Where
        the answer is `_given`'s for what this request holds, what it releases is its one cluster
        taken out, if any (`_given_flips`: no copy of the thousands it holds made and taken off)."""
        flip = self._given_flips.get(request.key)
        picks = self._given_kept(request.key, answer, flip[2] if flip is not None else None)
        if flip is not None and flip[0] is answer and flip[1] is self._held_of(request):
            _, held, x, passes = flip
            released: tuple[str, ...] = (x,) if not passes and x in held else ()
        else:
            released = tuple(sorted(self._held_of(request).difference(answer)))
        return RequestResult(request.key, picks, released=released)

    def _given_kept(self, key: str, answer: tuple[str, ...], x: str | None) -> tuple[Choice, ...]:
        """The picks of a PickAll's answer given (`_given_result`), kept with it: its last answer
        given is this one with the one cluster `x` put in or taken out, at its bisect place (both
        in name order), or the same (checked: the names around it compared, by identity in C, not
        hashed), is patched at that place (a taint's few PickAlls name thousands each: no
        thousands of picks looked up again); else made of the names."""
        last = self._given_last.get(key)
        picks: tuple[Choice, ...] | None = None
        if last is not None and x is not None:
            was, had = last
            at = bisect_left(answer, x)
            if len(answer) == len(was) + 1 and at < len(answer) and answer[at] == x:
                if answer[:at] == was[:at] and answer[at + 1 :] == was[at:]:
                    picks = (*had[:at], self._choice[x], *had[at:])
            elif len(answer) + 1 == len(was) and was[at] == x:  # `at` within was (one longer)
                if answer[:at] == was[:at] and answer[at:] == was[at + 1 :]:
                    picks = (*had[:at], *had[at + 1 :])
            elif answer == was:
                picks = had
        if picks is None:
            picks = tuple(self._shared(self._choice, answer))
        if len(self._given_last) > 2 * len(self.requests) + 64:  # Placements gone since: let go
            self._given_last.clear()
        self._given_last[key] = (answer, picks)
        return picks

    def _shared(self, made: _Made, clusters: Iterable[str]) -> list[Any]:
        """One frozen object per cluster name, made once and shared by every request or answer that
        names it (a PickAll names hundreds): looked up in C, made (`_Made.__missing__`) only where
        new; `made` is let go whole once it outgrows the fleet (names of clusters long gone)."""
        if len(made) > 2 * len(self.clusters) + 1024:
            made.clear()
        return list(map(made.__getitem__, clusters))

    def _held_of(self, request: PlacementRequest) -> frozenset[str]:
        """The clusters the request holds (its existing decisions), made once per request (kept by
        identity: a request is never changed, only replaced, and the entry holds it, so its id
        names no other while kept)."""
        found = self._held.get(id(request))
        if found is None or found[0] is not request:
            found = self._held[id(request)] = (request, frozenset(map(_cluster_of, request.existing)))
        return found[1]

    def _in_scope_at(self, request: PlacementRequest, drift: _Drift, wanted: np.ndarray | None) -> list[int]:
        """The positions of the drift's clusters `wanted` (None: all) that lie in the request's
        scope as the clusters now stand (every one where admits reads no scope: no scope, or
        named clusters). Only these can pass its filters: admits refuses the others at its
        first rule, so leaving them out changes no verdict. Each trait's clusters among the
        drift's are found once per event and shared by every request whose scope holds it."""
        scope = _scope_of(request)
        if scope is None:
            return np.flatnonzero(wanted).tolist() if wanted is not None else list(range(len(drift.names)))
        scoped = np.zeros(len(drift.names), dtype=bool)
        for trait in scope:
            found = self._in_trait.get((id(drift), trait))
            if found is None or found[0] is not drift:
                members = self.pool.with_trait(trait)
                size = len(drift.names)
                if drift.places is not None and self._over_log(trait, drift):
                    # a slice of the trait's mask over the log's names
                    mask = self._trait_over_log(trait, members)[drift.places]
                    found = self._in_trait[(id(drift), trait)] = (drift, mask)
                    scoped |= mask
                    continue
                if 3 * len(members) < size:  # a few of a big drift's names (a join's: thousands)
                    at = list(map(drift.index.__getitem__, drift.index.keys() & members))
                    mask = np.zeros(size, dtype=bool)
                    mask[at] = True
                else:
                    mask = np.fromiter(map(members.__contains__, drift.names), bool, size)
                found = self._in_trait[(id(drift), trait)] = (drift, mask)
            scoped |= found[1]
        return np.flatnonzero(scoped if wanted is None else scoped & wanted).tolist()

    def _over_log(self, trait: str, drift: _Drift) -> bool:
        """Whether a drift read off the log takes the trait's clusters from its mask over the
        log's names: where that mask is made this event, or the drift holds at least half
        of the names (a mask over them all costs at most two of the drift's own)."""
        ordered = self._log_index.ordered
        if drift.ordered is not ordered:
            return False
        found = self._trait_masks.get(trait)
        return (found is not None and found[0] is ordered) or 2 * len(drift.names) >= len(ordered)

    def _trait_over_log(self, trait: str, members: AbstractSet[str]) -> np.ndarray:
        """Which of the log's names in order (`_LogIndex.ordered`) have the trait as the
        clusters now stand: made once per event and order (cleared with `_in_trait`), each
        drift read off the log takes its own by its places."""
        log = self._log_index
        ordered = log.ordered
        found = self._trait_masks.get(trait)
        if found is None or found[0] is not ordered:
            size = len(ordered)
            if 3 * len(members) < size:
                number, rank = log.number, log.rank
                at = [rank[number[c]] for c in members if c in number]
                mask = np.zeros(size, dtype=bool)
                mask[at] = True
            else:
                mask = np.fromiter(map(members.__contains__, log.ordered_names), bool, size)
            found = self._trait_masks[trait] = (ordered, mask)
        return found[1]

    def _drift(self, answer: _Answer) -> _Drift:
        """The clusters whose count moved since the answer's picture (and those its batch-mates
        moved), as arrays: the same for every answer of one picture, kept while the log stands
        (a picture with no batch-mates' moves: read off the log's arrays, `_drift_of_log`)."""
        length, floor = len(self.log_seq), self.floor
        key = (answer.seen, id(answer.mates))
        kept = self._drifts.get(key)
        if kept is not None and kept[0] == length and kept[1] == floor and kept[2].mates is answer.mates:
            if kept[3] != self.seq:
                self._drifts[key] = (*kept[:3], self.seq)
            return kept[2]
        mates = answer.mates
        if mates is None:
            return self._drift_of_log(answer.seen, key, kept)
        found = self._drift_of_mates(answer.seen, mates)
        if found is not None:
            self._drifts[key] = (length, floor, found, self.seq)
            return found
        moved = self._moved_since(answer.seen)
        names = sorted({*moved, *mates.added, *mates.dropped})
        # Each array read in C (a mapped dict.get: a count, its count then where it moved, a
        # batch-mate's moves; no Python frame per cluster, a drift holds hundreds to thousands).
        now = list(map(self.counts.get, names, repeat(0)))
        size = len(names)

        def column(counts: Mapping[str, int]) -> np.ndarray:
            if not counts:
                return np.zeros(size, dtype=np.int64)
            return np.fromiter(map(counts.get, names, repeat(0)), np.int64, size)

        found = _Drift(
            mates,
            names,
            dict(zip(names, range(size), strict=True)),
            np.fromiter(map(moved.get, names, now), np.int64, size),
            np.asarray(now, dtype=np.int64),
            column(mates.added),
            column(mates.dropped),
        )
        self._prune()
        self._drifts[key] = (length, floor, found, self.seq)
        return found

    def _drift_of_mates(self, seen: int, mates: _Moves) -> _Drift | None:
        """`_drift` of a picture with batch-mates' moves where each cluster they moved is among
        the clusters moved since it (their writes logged since: the usual case): the picture's
        drift read off the log (`_drift_of_log`, shared with the pictures at its position) with
        its batch-mates' moves set at their positions. The same names, counts then and now as
        the moves since it give (a cluster moved since is at its first entry's count then, every
        name of the drift is one), and its moves where the Counters hold them; None (read as
        before) where a batch-mate's cluster did not move since."""
        plain = (seen, id(None))
        base = self._drift_of_log(seen, plain, self._drifts.get(plain))
        index = base.index
        if not all(map(index.__contains__, chain(mates.added, mates.dropped))):
            return None
        size = len(base.names)
        added, dropped = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
        for column, moves in ((added, mates.added), (dropped, mates.dropped)):
            if moves:
                column[list(map(index.__getitem__, moves))] = list(moves.values())
        then, now = base.then, base.now
        return _Drift(mates, base.names, index, then, now, added, dropped, base.places, base.ordered)

    def _drift_of_log(
        self, seen: int, key: tuple[int, int], kept: tuple[int, int, _Drift, int] | None
    ) -> _Drift:
        """`_drift` of a picture with no batch-mates' moves, read off the log's arrays
        (`_LogIndex`): its clusters and counts then by comparison over the entries since the
        picture; the names, their positions and counts then of the kept drift where no cluster
        was first moved since (the same clusters: a picture's moved clusters only grow while
        the floor stands); the counts now read again."""
        length, floor = len(self.log_seq), self.floor
        log = self._log_index
        if log.floor == floor and self._log_valid < log.length:
            log.cut_back(self._log_valid)
        log.sync(self.log_cluster, self.log_before, floor)
        self._log_valid = log.length
        start = bisect_right(self.log_seq, seen)
        found = log.drifts.get(start)
        if found is not None:
            self._prune()
            self._drifts[key] = (length, floor, found, self.seq)
            return found
        at, then = log.since(start)
        size = len(at)
        last = (
            kept[2] if kept is not None and kept[1] == floor and kept[0] < length and seen >= floor else None
        )
        if last is not None and last.mates is None and len(last.names) == size:
            names, index, then = last.names, last.index, last.then
        else:
            names = log.ordered[at].tolist()
            if size >= _PLACES_FROM:
                places = np.full(len(log.names), -1, dtype=np.int64)
                places[log.order[at]] = np.arange(size, dtype=np.int64)
                index = _Places(log.number, array("q", places.tobytes()), names)
            else:
                index = dict(zip(names, range(size), strict=True))
        then.flags.writeable = False
        found = _Drift(
            None,
            names,
            index,
            then,
            log.counts_now(self.counts)[log.order[at]],
            np.zeros(size, dtype=np.int64),
            np.zeros(size, dtype=np.int64),
            at,
            log.ordered,
        )
        log.drifts[start] = found
        self._prune()
        self._drifts[key] = (length, floor, found, self.seq)
        return found

    def _prune(self) -> None:
        """At an event's first ask: the pictures no event of the last `_KEPT_EVENTS` asked for
        let go, and the least recently asked past `_KEPT` pictures or `_KEPT_CLUSTERS` clusters
        (an event asks ~10 pictures afresh, most of them asked again within a few events)."""
        if self._kept_from == self.seq:
            return
        for kept in (self._moved, self._drifts):
            old = [key for key, entry in kept.items() if entry[3] < self.seq - _KEPT_EVENTS]
            for key in old:
                del kept[key]
            if len(kept) > _KEPT:
                for key in sorted(kept, key=lambda key: kept[key][3])[: len(kept) - _KEPT]:
                    del kept[key]
            held = sum(map(_picture_size, kept.values()))
            if held > _KEPT_CLUSTERS:  # the least recently asked let go first
                for key in sorted(kept, key=lambda key: kept[key][3]):
                    held -= _picture_size(kept[key])
                    del kept[key]
                    if held <= _KEPT_CLUSTERS:
                        break
        self._kept_from = self.seq

    def _moved_since(self, seen: int) -> Mapping[str, int]:
        """Each cluster whose count moved after position `seen`, its count then (the same for
        every Placement judged at one position; read only). Kept per position and taken on from
        there as the log grows (between two cuts, which move its floor, it only grows; an event
        undone forgets what was kept): the entries after the length it was judged at add the
        clusters first moved since, each at its first such entry's count."""
        length, floor = len(self.log_seq), self.floor
        kept = self._moved.get(seen)
        if kept is not None and kept[:2] == (length, floor):
            if kept[3] != self.seq:
                self._moved[seen] = (*kept[:3], self.seq)
            return kept[2]
        if kept is not None and kept[1] == floor and kept[0] < length:
            start = max(kept[0], bisect_right(self.log_seq, seen))
            clusters, before = reversed(self.log_cluster[start:]), reversed(self.log_before[start:])
            found = dict(zip(clusters, before, strict=True))
            found.update(kept[2])  # an earlier entry's count then stands
        else:
            found = self._moved_from(seen)
        self._prune()
        self._moved[seen] = (length, floor, found, self.seq)
        return found

    def _moved_from(self, seen: int) -> dict[str, int]:
        """Each cluster whose count moved after position `seen`: its count then."""
        start = bisect_right(self.log_seq, seen)
        # The first entry of each cluster after `start`: the entries from the last back, each
        # earlier one written over the later (a dict made in C, not a setdefault per entry).
        then = dict(zip(reversed(self.log_cluster[start:]), reversed(self.log_before[start:]), strict=True))
        # Every cluster moved, back to where it was too: a batch's margins may be judged on a
        # picture between (`_moved_by`).
        return then

    def _most_for(self, key: str) -> int:
        """The busiest count Balance divides by for this Placement: every decision but its own,
        on any cluster (gone ones too)."""
        own = self.own.get(key, _NO_COUNTS)
        top = 0
        for count, clusters in self._by_count_desc():
            if count <= top:
                break
            for c in clusters:
                top = max(top, count - own.get(c, 0))
                if top == count:
                    return top
        return top

    def _by_count_desc(self) -> list[tuple[int, set[str]]]:
        """The clusters by their count of decisions, the busiest first (read only): kept while
        `by_count` holds the very sets it ranked, which move in place; a count gaining or losing
        its set lets it go (`_recount_all`, `_uncount`). Not keyed by the log: a count whose
        last cluster leaves gets a new set when one comes back, within one take too, where the
        log has no entry for it."""
        ranked = self._ranked
        if ranked is None:
            ranked = self._ranked = sorted(self.by_count.items(), key=lambda item: -item[0])
        return ranked

    def _most(self) -> int:
        return max(self.counts.values(), default=0)

    def _drifted(
        self, changed: Mapping[str, tuple[Cluster | None, Cluster | None]], enqueued: set[str], now: datetime
    ) -> None:
        """Placements not enqueued whose inputs a score's change moved anyway (its CEL outcome,
        an expired score): solved when next enqueued. A cluster's own change enqueues every
        Placement of its sets, so only scores need this."""
        if not changed:
            return
        for key, request in self.requests.items():
            if key in enqueued or key in self.dirty:
                continue
            if any(matters(request, old, new, now) for old, new in changed.values()):
                self.journal.add(self.dirty, key)

    def stale(self, mode: str) -> set[str]:
        """The Placements a full solve of the hub as it stands may change (see the docstring)."""
        self._ends_of.clear()
        self._ends_walked.clear()
        self._feasible_of.clear()
        self._orders.clear()
        self._rising.clear()
        self._held.clear()
        self._facts.clear()
        self._sorts.clear()
        self._asks.clear()
        self._touched_of = None
        self._in_trait.clear()
        self._columns.clear()
        self._trait_masks.clear()
        self._bases.clear()
        self._upper_bases.clear()
        self._shared_rise.clear()
        self._units.clear()
        # Not answered: new, or misconfigured (whose status stands or not, `_misstands`).
        out = {
            key
            for key in self.policies
            if key in self.dirty or (key not in self.answers and not self._misstands(key))
        }
        out |= {
            key for key, p in self.policies.items() if _timed(p) or any(x.external for x in p.preferences)
        }
        for key, request in self.requests.items():
            answer = self.answers.get(key)
            if answer is None or key in out or key not in self.policies:
                continue
            if mode == "optimal" and request.coupled:
                out.add(key)
                continue
            probe = replace(answer, picks=dict(answer.picks))  # judged, not moved on
            if not self._stands(key, request, probe, {}, self.now):
                out.add(key)
        return out

    # -- the batch ------------------------------------------------------------------------------

    def _taken(self, keys: set[str], now: datetime, *, written: bool = True) -> Taken:
        """The Placements solved, loaded as load.py loads a hub's (the same steps, over these
        Placements only), every cluster with every other Placement's decisions as load."""
        contexts: dict[str, PlacementContext] = {}
        requests = []
        live = self.clusters
        scopes: dict[tuple[str, ...], AbstractSet[str]] = {}
        for key in sorted(keys):
            m, policy = self.placements.get(key), self.policies.get(key)
            if m is None or policy is None:
                continue
            eligible = self.bindings.eligible(m.namespace, policy.cluster_sets)
            scope = _traits_of(eligible)
            members = scopes.get(scope)
            if members is None:
                members = scopes[scope] = self._members(scope)
            decided = self.decided_by.get(key, ())
            context = PlacementContext(
                placement=m,
                count=policy.count,
                cluster_sets=policy.cluster_sets,
                bindings=len(self.bindings.valid(m.namespace)),
                eligible=eligible,
                available=len(members),
                groups=policy.groups,
                decisions=[self.decision_objects[d][2] for d in sorted(decided)],
            )
            contexts[key] = context
            required = _required(policy, self.cel)
            # Only a toleration refused reads the available clusters themselves (misconfigured
            # only where one passes the predicates): listed for it alone.
            # (Whether one passes, in any order: each cluster's traits read as it is looked at.)
            available = [live[c] for c in members] if policy.toleration_error else []
            traits = _Made(self._traits)
            context.misconfigured = _misconfigured(policy, required, available or members, traits, self.cel)
            if context.misconfigured is not None:
                # No request, no answer: judged on what its status reads (`_misstands`), from
                # what this sync writes on (at the start: where the hub holds what it writes).
                self._set_request(key, None)
                self.journal.pop(self.answers, key)
                if written or self._synced(context):
                    self._misjudge(key, context)
                continue
            self.journal.pop(self.misjudged, key)
            request = self._request_again(key, m, policy, required, scope)
            if request is None:
                own = self.own.get(key)
                held = _holdings(own or {})
                request = self._request(key, m, policy, required, held, scope)
                if own and len(held) == len(own):  # holding every cluster counted (`_held_now`)
                    self._held_own[key] = (request, own)
            requests.append(request)
        requests.sort(key=lambda r: r.key)
        given = self._given(requests, now) if written else {}
        # Balance counts every PlacementDecision but the placement's own: the batch's (and the
        # misconfigured ones', left without decisions) are counted by the solver; a PickAll
        # answered here counts with its answer.
        taken_off = self._taken_off(contexts, given)
        clusters, loads = self.pool.loaded({c: -k for c, k in taken_off.items()})
        # The counted clusters the pool no longer holds (kept as they move, `_uncounted`: a pass
        # over the 10,000 counts read each name's entry, about 1 ms a batch, two a cluster event).
        absent = {
            c: self.counts[c] - taken_off[c]
            for c in sorted(self._uncounted)
            if self.counts[c] - taken_off[c] > 0
        }
        for r in requests:
            self._set_request(r.key, r)
        solved = tuple(r for r in requests if r.key not in given)
        # Optimal mode reports the spreads whose answer is their greedy run (`_answered`'s ordered).
        batch = Batch(
            clusters, solved, now=now, seed=self.seed, absent_load=absent, ordered=True, loads=loads
        )
        context = OcmContext(contexts, self.pool.by_name(), now, self._entries, self._group_members)
        for key in contexts:
            self.journal.discard(self.dirty, key)
        keys = frozenset(contexts)
        outside = tuple(r for r in requests if r.key in given)
        answers = tuple((r, self._given_result(r, given[r.key])) for r in outside)
        # Each given answer's clusters as a set, made by `_given` from what it holds (where the
        # answer is the one it made): read by `_answered` for that very result.
        sets = self._given_sets
        known = {
            a.request: (a, sets[r.key][1])
            for r, a in answers
            if r.key in sets and sets[r.key][0] is given[r.key]
        }
        return Taken(
            batch,
            context,
            lambda result: self._answered(batch, result, keys, written=written, given=outside, known=known),
            answers,
        )

    def _group_members(self, group: DecisionGroup) -> AbstractSet[str]:
        """The clusters a decision group matches (emit's OcmContext.members), kept by the pool."""
        return self.pool.labelled(group, group.matches)

    def _synced(self, context: PlacementContext) -> bool:
        """Whether the hub holds what a misconfigured Placement's sync writes (emitted alone:
        every object as stored, the server's fields aside, and nothing to delete)."""
        out = emit(
            OcmContext({context.key: context}, {}, self.now), Result((), SolveStats("greedy", "GREEDY"))
        )
        if out.delete:
            return False
        for obj in out.apply:
            meta = obj["metadata"]
            if obj["kind"] == n.PLACEMENT:
                stored: Obj | None = context.placement.obj
            else:
                found = self.decision_objects.get((meta["namespace"], meta["name"]))
                stored = found[2].obj if found is not None else None
            if stored is None or served(obj, stored) != stored:
                return False
        return True

    def _taken_off(self, keys: Iterable[str], given: Mapping[str, tuple[str, ...]]) -> Counter[str]:
        """Per cluster, the decisions a batch takes off its load: every decision of the Placements
        it holds (`keys`), less the answers given without the solver (`_given`), which count as
        load. Only the net counts (a cluster absent or at 0 is one taken nothing off: the pool's
        load copies and the absent load read each so): a given PickAll's answer differs from what
        it holds by one cluster, so only the clusters where they differ are counted (not its
        hundreds of decisions once up and once down), and the clusters of Placements holding one
        decision on each (nearly all) are counted at once in C. Where it holds one decision on
        each cluster it counts, that one cluster is read off `_given` (`_given_flips`): no set
        of its thousands of names made and compared."""
        ones: list[Iterable[str]] = []
        rest: list[Mapping[str, int]] = []
        flips = self._given_flips
        for key in keys:
            own = self.own.get(key, {})
            answer = given.get(key)
            single = bool(own) and min(own.values()) == 1 == max(own.values())
            flip = flips.get(key) if answer is not None and single else None
            if flip is not None and flip[0] is answer and len(flip[1]) == len(own):
                # `_given`'s answer: what its request holds (`flip[1]`, made of these counts'
                # clusters, one decision each: the same set) with its one cluster put in or
                # taken out, so only that cluster's count differs (no set of thousands made)
                _, held, x, passes = flip
                if passes != (x in held):
                    rest.append({x: -1 if passes else 1})
                continue
            if answer is not None:
                answered = set(answer)
                if single:  # the two sets' differences, found in C
                    net = dict.fromkeys(own.keys() - answered, 1)
                else:
                    net = {c: k - (c in answered) for c, k in own.items() if k != 1 or c not in answered}
                net.update(dict.fromkeys(answered.difference(own), -1))
                rest.append(net)
            elif single:
                ones.append(own)
            else:
                rest.append(own)
        taken_off = Counter(chain.from_iterable(ones))
        for counts in rest:
            taken_off.update(counts)
        return taken_off

    def _given(self, requests: Sequence[PlacementRequest], now: datetime) -> dict[str, tuple[str, ...]]:
        """The PickAlls answered without the solver, each with its answer (cluster names in name
        order): those solved for one cluster's verdict alone (`_flipped`; their answer was their
        feasible set, `_Answer.whole`, and what it holds), which is then what they hold with that
        cluster added or taken off, as the solver answers a PickAll (every feasible cluster; emit
        reads the names).

        Out of the batch, such a PickAll's decisions are the batch's outside load as answered;
        in it, the solver moves it from what it holds to its answer at its place in key order
        (solver.balance `_decide`, greedy's pass, which optimal starts from): a request before it
        judges its old decisions, one after it its new ones. They differ on the one cluster `x`,
        so the batch answers the same where no request before it with a choice may pick `x` (in
        its scope, passing its filters; a gone cluster none may) and `x` never decides the
        busiest count Balance divides by: at most what its count may reach in any picture (now,
        plus every answer in the batch that may add it) against the least any other cluster's
        count may fall to (less every batch answer holding it), which bounds every request's
        busiest count from below. Both hold on every picture, so every request's answer, its
        scores and the final decisions are the same: tests/test_live_ocm.py compares the two
        paths' deltas. One cluster per event (several moving at once: all solved)."""
        self._given_sets = {}
        self._given_flips = {}
        flipped = {r.key: self._flipped[r.key] for r in requests if r.key in self._flipped}
        if len(set(flipped.values())) != 1:
            return {}
        (x,) = set(flipped.values())
        cluster = self.pool.get(x)
        adds = 0  # the batch's answers that may add x
        first: str | None = None  # the first request with a choice that may pick x
        held_sets = [self._held_of(r) for r in requests]
        for r, held_set in zip(requests, held_sets, strict=True):
            holds = x in held_set
            may = cluster is not None and in_scope(r, cluster) and admits(r, cluster, now, held=holds)
            if may and not holds:
                adds += 1
            if may and r.mode is SelectionMode.N and first is None:
                first = r.key
        if self.counts.get(x, 0) + adds > self._least_busiest(x, lambda c: sum(c in h for h in held_sets)):
            return {}
        out = {}
        for r in requests:
            if r.key not in flipped or (first is not None and first < r.key):
                continue
            held = self._held_of(r)  # what it holds (made once per request)
            if held != self.answers[r.key].selected:  # not what its last sync wrote (none written)
                continue
            passes = cluster is not None and in_scope(r, cluster) and admits(r, cluster, now, held=x in held)
            last = self._given_last.get(r.key)
            out[r.key] = _flip(r, held, x, passes, last[0] if last is not None else None)
            # its clusters as a set, from what it holds (whose hashes the set keeps: no name read)
            self._given_sets[r.key] = (out[r.key], held | {x} if passes else held - {x})
            self._given_flips[r.key] = (out[r.key], held, x, passes)
        return out

    def _least_busiest(self, x: str, holding: Callable[[str], int]) -> int:
        """The least the busiest count of any cluster but `x` may fall to through a batch of which
        `holding(c)` answers hold cluster c (each may give it up). Only the busiest clusters are
        asked: counted over every answer's decisions, the holdings cost tens of ms an event."""
        top = 0
        for count, clusters in self._by_count_desc():
            if count <= top:
                break
            for c in clusters:
                if c != x:
                    top = max(top, count - holding(c))
        return top

    def _members(self, scope: tuple[str, ...]) -> AbstractSet[str]:
        """The clusters of the scope's sets (read-only: one set's own members are the pool's set,
        not a copy of thousands; several sets' union is kept by the pool, `ClusterPool.united`,
        and moved only by the clusters put or dropped since: a cluster event's batch unites the
        same few scopes of thousands each, batch after batch)."""
        if len(scope) == 1:
            return self.pool.with_trait(scope[0])
        if not scope:
            return set()
        return self.pool.united(scope)

    def _answered(
        self,
        batch: Batch,
        result: Result,
        keys: frozenset[str],
        *,
        written: bool = True,
        given: tuple[PlacementRequest, ...] = (),
        known: Mapping[str, tuple[RequestResult, frozenset[str]]] | None = None,
    ) -> None:
        """Each solved Placement's margins, at the counts its sync judged (before its writes;
        `written=False`: answers the hub is not given, judged only to know which hold). `given`:
        the PickAlls answered without the solver (`_given`), whose answers `result` holds too:
        judged as the batch holding them would judge them. `known`: per given answer, the result
        `_taken` made and its clusters as a set, read for that very result (`_given_sets`)."""
        requests = (*batch.requests, *given)
        # Optimal judges coupled requests' scores on the batch's final decisions, which its
        # writes leave: those answers hold from the next position on (the writes' own moves).
        joint = result.stats.mode == "optimal" and sum(1 for r in requests if r.coupled) > 1
        seen = self.seq + 1 if joint else self.seq
        by_key = {r.key: r for r in requests}
        known = known or {}
        answered = {
            r.request: k[1]
            if (k := known.get(r.request)) is not None and k[0] is r
            else frozenset(map(_cluster_of, r.selected))
            for r in result.requests
        }
        moves: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        added, dropped = Counter(), Counter()
        moved: frozenset[str] | None = None
        # Greedy answers never written (the runs pass, the first margins: SolveOptions.alone) read
        # no move of the batch: each is judged on the counts as they stand (every total checked,
        # its picture known, no batch-mate's move in it), so neither the moves nor the busiest
        # count through them (`_moved_by`, a pass over every count) are made.
        if written or result.stats.mode != "greedy":
            moves = {key: self._moves(key, answered.get(key, frozenset())) for key in keys}
            for up, down in moves.values():
                added.update(up)
                dropped.update(down)
            moved = self._moved_by(added, dropped)
        # Answers never written were each judged alone on the counts as they stand
        # (SolveOptions.alone): the picture is the log's at `seen`, no batch-mate's move in it.
        mates = _Moves(added, dropped) if (added or dropped) and written else None
        # Where the busiest count may move through the batch, a joint answer's picture is still
        # known exactly: the counts its writes leave.
        after = _After(self, added, dropped) if joint and moved is None and written else None
        for got in result.requests:
            request = by_key.get(got.request)
            if request is None:
                continue
            own = _ones(answered[got.request]) if joint else None
            most = (
                after.most_for(own) if after is not None and own is not None else self._most_for(got.request)
            )
            k = known.get(got.request)
            given_here = k is not None and k[0] is got  # a given answer: its picks carry no score
            # A PickAll's answer keeps no picks (its checks read its verdicts alone, `_flips`):
            # its thousands of totals are not read into a dict.
            whole = request.mode is SelectionMode.ALL
            answer = _margins(
                request, got, most, seen, answered[got.request], scoreless=given_here, whole=whole
            )
            answer.at = batch.now  # the clock its sync judged its verdicts at
            if own is not None:
                answer.own = own
            else:
                answer.own = _copy_counts(self.own.get(got.request, {}))
                if mates is not None:
                    answer.mates, (answer.up, answer.down) = mates, moves[got.request]
            if _scored_alone(request):
                if given_here or not answer.strict:  # no total to check: a given answer's picks
                    fits = True  # carry no score (`_given_result`); one not strict stays so
                elif after is not None:  # every reported total checked on the picture after
                    fits = self._reproduces(request, got, answer, frozenset(), after=after)
                else:  # answers never written move nothing the log sees: every total checked
                    fits = self._reproduces(
                        request, got, answer, moved if moved is not None and written else frozenset()
                    )
                answer.strict = answer.strict and fits
            else:
                answer.strict = (
                    answer.strict
                    and _sorted_alone(request)
                    and (moved is not None or after is not None or not written)
                )
            # A spread's answer that is its greedy run on a known picture: greedy's on `_moved_by`'s,
            # optimal's where the solver reports it (holding it, its greedy run on the batch's final
            # decisions picks it: `_After`'s picture, or `_moved_by`'s where it was not joint).
            if result.stats.mode == "greedy":
                run = moved is not None or not written  # the picture judged is known
            else:
                run = got.request in result.ordered and (joint or moved is not None)
            answer.ordered = bool(request.spread) and run and got.scheduled
            answer.whole = whole
            self.journal.set(self.answers, got.request, answer)
            self._arm(request, now=batch.now)

    def _moves(self, key: str, answered: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The clusters a Placement's answer adds to what it holds, and those it gives up (read off
        its counts as they are, in C: no set of the thousands a PickAll holds made). A given
        PickAll's answer (`_given`: the very set it made, `_given_sets`) is what its request holds
        with one cluster put in or taken out; where the request holds as many clusters as it
        counts (made of those counts: the same set), that cluster is its one move
        (`_given_flips`), read without comparing the thousands."""
        held = self.own.get(key, _NO_COUNTS)
        flip, made = self._given_flips.get(key), self._given_sets.get(key)
        if flip is not None and made is not None and made[1] is answered and len(flip[1]) == len(held):
            _, was, x, passes = flip
            one = frozenset((x,))
            if passes and x not in was:
                return one, frozenset()
            if not passes and x in was:
                return frozenset(), one
            return frozenset(), frozenset()
        return answered.difference(held), frozenset(held.keys() - answered)

    def _moved_by(self, added: Counter[str], dropped: Counter[str]) -> frozenset[str] | None:
        """The clusters whose count the batch's answers move (`added`, `dropped`: per cluster, by
        how many answers), where the busiest count stays as it stands through them (else None:
        every reported total is checked against the counts before the batch).

        A Placement of a batch judges its scores on a picture of its own: greedy syncs them one
        at a time, each against those before it as they answered (upstream's queue), optimal on
        the batch's final decisions. Those pictures differ from the counts before the batch only
        on the clusters the batch moves (an answer's picks against its holdings, a misconfigured
        Placement's decisions going), each within the range of the other answers' moves on it;
        every such move is logged after the batch's position, so `_moved_since` re-judges those
        clusters at the next check whatever the picture the margins were taken on. The busiest
        count a Placement divides by is the same in every picture when no moved cluster comes
        within one of the busiest count (a Placement sees the busiest count, or one less where it
        holds every busiest cluster: clusters two below it never decide it)."""
        moved = {*added, *dropped}
        most = self._most()
        if any(self.counts.get(c, 0) + added[c] > most - 2 for c in moved):
            return None
        return frozenset(moved)

    def _reproduces(
        self,
        request: PlacementRequest,
        got: RequestResult,
        answer: _Answer,
        moved: frozenset[str],
        *,
        after: _After | None = None,
    ) -> bool:
        """Whether `_total` gives the totals the solver reported (the margins are read with it):
        its picks' and those it left out, on the clusters whose count the batch did not move
        (`_moved_by`: the others' counts differ between the picture the solver judged and this
        one, and the next check judges them again). `after`: a joint answer's totals are judged
        on the counts the batch's writes leave instead, every one of them (the answer's own
        decisions then are its picks)."""
        if not _scored_alone(request):
            return False
        own = answer.own if after is not None else self.own.get(request.key, Counter())
        held: frozenset[str] | None = None  # what it holds, read at the first total judged
        # In their order, read as judged: the first total that differs ends it (a PickAll's
        # thousands of picks are not listed first).
        reported = chain(
            ((c.cluster, c.score.affinity) for c in got.selected if c.score is not None),
            (
                (u.cluster, u.score.affinity)
                for u in got.unselected
                if u.kind is FilterKind.NOT_PICKED and u.score is not None
            ),
        )
        for name, total in reported:
            if name in moved:
                continue
            cluster = self.pool.get(name)
            if cluster is not None and after is not None:
                cluster = after.cluster(cluster)
            if cluster is None:
                return False
            if held is None:
                held = self._held_of(request)
            if _total(request, cluster, own, answer.most, held) != total:
                return False
        return True

    def _arm(self, request: PlacementRequest, now: datetime | None) -> None:
        """TaintToleration's requeue: the first moment a toleration with seconds runs out on a
        cluster the Placement decided (`_first_end`)."""
        if now is not None and any(t.seconds is not None for t in request.tolerations):
            self.timers.at(self._first_end(request, now), f"toleration:{request.key}")

    def _first_end(self, request: PlacementRequest, now: datetime) -> datetime | None:
        """The first moment a toleration with seconds runs out on a cluster the request holds
        (None: none does): the least end `taint.added + t.seconds` of a timed toleration `t`
        tolerating a taint of a held cluster at `now`.

        Kept per Placement (`_first_ends`: `_rearm` asks it of every timed Placement an event
        enqueues and holds, ~45 an event, and `_arm` of each answered; a PickAll holds hundreds
        of tainted clusters), with the ends tolerated at the clock `then` it was found at, in
        order and per held cluster. A toleration with seconds tolerates a taint at a clock
        exactly where it matches the taint whatever the clock and the clock is before the end
        (`Toleration.tolerates`: now < added + seconds), so at any `now` from `then` on those
        tolerated now are those tolerated then whose end is after `now`: the first such end is
        the answer (a cluster's ends are kept from the clock they were found at, `then` or
        earlier, and read the same way). It stands while the request is the same object (its
        tolerations and held clusters) and no held cluster's taints moved since (each model put
        in, replaced or dropped with other taints is logged, `_retainted`). Else, from `then` on
        and with the same tolerations (a request holding other clusters, or a held cluster's
        taints moved), each held cluster's ends are read off those kept where its taints did
        not move (`_ends_at`); an earlier clock is found afresh."""
        held = self._held_of(request)
        log = self._retainted
        kept = self._first_ends.get(request.key)
        known, stale = None, frozenset()
        if kept is not None and kept[1] <= now:
            fresh = kept[2] == len(log)
            if kept[0] is request and (fresh or held.isdisjoint(log[kept[2] :])):
                ends = kept[3]
                if not fresh:  # the log read up to here once
                    self._first_ends[request.key] = (request, kept[1], len(log), ends, kept[4])
                at = bisect_right(ends, now)
                return ends[at] if at < len(ends) else None
            if kept[0].tolerations == request.tolerations:
                known, stale = kept[4], frozenset(log[kept[2] :])
        ends, per = self._ends_at(request, held, now, known, stale)
        self._first_ends[request.key] = (request, now, len(log), ends, per)
        at = bisect_right(ends, now)  # (a cluster's kept ends are taken as kept: some may be past)
        return ends[at] if at < len(ends) else None

    def _ends_at(
        self,
        request: PlacementRequest,
        held: AbstractSet[str],
        now: datetime,
        known: Mapping[str, list[datetime]] | None = None,
        stale: AbstractSet[str] = frozenset(),
    ) -> tuple[list[datetime], dict[str, list[datetime]]]:
        """The ends of the request's tolerations with seconds tolerating a taint of a held
        cluster at `now`, in order, and per held cluster with a taint. The tolerations with
        seconds are picked once, and a taint with no time skipped before them (the same
        `tolerates` asked, in the same order: a taint's PickAlls hold tens of tainted clusters
        each). `known`: per cluster its ends tolerated at an earlier clock by the same
        tolerations (`_first_end`'s), taken as they are for a cluster not in `stale` (its taints
        the same since): those after `now` are its ends now, so the caller reads only those
        (the rest, ends at or before `now`, are among the ends given)."""
        timed = [t for t in request.tolerations if t.seconds is not None]
        pool = self.pool
        # Only a held cluster with a taint can end a toleration (the pool's tainted clusters
        # among those held, found in C: a PickAll holds thousands, nearly all untainted).
        names = pool.tainted().intersection(held)
        per: dict[str, list[datetime]] = {}
        if known is not None:
            kept = names.intersection(known.keys()).difference(stale)
            per = {name: known[name] for name in kept}
            names -= kept
        for name in names:
            mine = per[name] = []
            for taint in pool[name].taints:
                if taint.added is not None:
                    for t in timed:
                        if t.tolerates(taint, now):
                            mine.append(taint.added + timedelta(seconds=t.seconds))  # type: ignore[arg-type]
        return sorted(chain.from_iterable(per.values())), per

    def _ran_out(
        self,
        request: PlacementRequest,
        answer: _Answer,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> bool:
        """Whether a top N reading a sorter may have lost a feasible cluster to the clock since its
        answer's picture: a toleration of it with seconds ran out on a cluster between then and
        now (`_in_window` refuses). Such a cluster's verdict moved with no event on it, so no
        relevant change shows it, yet a sorter's score spans the feasible clusters' range: every
        other cluster's score may have moved, and the sync may pick otherwise (a cluster it
        holds runs out by its timer instead, `_first_end`: dirty then). None of the checks' holds
        reads that, so none is asked: its sync alone judges it (`_run`), or it is solved. A top N
        without a sorter reads no such range (a cluster left out that turns infeasible moves no
        other cluster's total, nor a spread's domains, which span every cluster), nor does a
        PickAll (every feasible cluster, whatever the scores)."""
        if request.mode is SelectionMode.ALL or not any(t.seconds is not None for t in request.tolerations):
            return False
        if not any(p.sorter is not None for p in request.preferences):
            return False
        return not self._in_window(request, answer, changed, now)

    def _in_window(
        self,
        request: PlacementRequest,
        answer: _Answer,
        changed: Mapping[str, tuple[Cluster | None, Cluster | None]],
        now: datetime,
    ) -> bool:
        """Whether no toleration of the request with seconds runs out on a cluster between the
        answer's picture (and its anchor's) and now, nor at `now` (False where a picture's clock
        is unknown). Where it holds, a strict top N with centered sorters and such a toleration
        (`_sorted_alone`, left out of `_facts_of`'s `alone`) is judged by its margins as the
        others of its kind (`_stands_margins`); where it does not, `_ran_out` sends it to its run.

        What the margins read: the picks' totals and the best total left out, taken on the
        picture its answer was judged on (`_Answer.at`, the take's clock then; its anchor's too,
        an earlier picture the bound of the clusters left out may start from), each sorter's
        score spanning the range of that picture's feasible clusters; `_stands_margins` judges
        the event's changed clusters (their verdicts read at `now`) and the counts moved since.
        That is exact while every other cluster's verdict is the same at `now` as on the
        picture: the feasible set, so each sorter's range, then moves only by the changes it
        judges. A verdict reads the clock only through a toleration with seconds, `t`
        tolerating a taint it matches while `clock < taint.added + t.seconds`: a model's verdict
        is a step function of the clock whose only steps are those ends. Where none lies in
        `(lo, hi]` (the least and greatest of the pictures' clocks and `now`), every clock in
        `[lo, hi]` gives each model the same verdict (an end at `now` no longer tolerates: it
        counts). The models read: every cluster as it stands (`_ends_in`), and the event's
        changed ones as they were (judged at `now` on both sides, so a step of the old one
        between the picture and now would be missed). No other model was read since the
        picture: a cluster of its scope whose object changed at an earlier event enqueued it
        then (the premise every check rests on), and that check moved its picture or solved
        it; a model replaced by its scores alone holds the same taints as the one after it. A
        cluster it holds also runs out by its timer (`_first_end`: dirty then); none is read
        here."""
        at, anchor = answer.at, answer.anchor
        if at is None:
            return False
        lo = hi = at
        if anchor is not None:
            if anchor.at is None:
                return False
            lo, hi = min(lo, anchor.at), max(hi, anchor.at)
        lo, hi = min(lo, now), max(hi, now)
        olds = [old for old, _ in changed.values() if old is not None and old.taints]
        for t in request.tolerations:
            if t.seconds is not None and self._ends_in(t, lo, hi, olds):
                return False
        return True

    def _ends_in(self, t: Toleration, lo: datetime, hi: datetime, olds: Sequence[Cluster]) -> bool:
        """Whether the toleration stops tolerating a taint it matches (`_end_after`) at a
        moment in `(lo, hi]` on a cluster as it stands or on one of `olds`. The pool keeps the
        clusters with such an end after a moment (`ClusterPool.labelled`, its test asked of
        every cluster put since its last answer, of every cluster where it starts afresh; a
        load copy, which it is not asked of, holds the same taints), the moment fixed at the
        first interval asked (`_ends_from`: one starting before it is refused). Each cluster it
        asks of has its ends taken again (`_TimedEnds`), so they are those of every cluster as it
        stands, and of some gone since (more ends only refuse more)."""
        since = self._ends_from
        if since is None:
            since = self._ends_from = lo
        if lo < since:
            return True
        kept = self._ends_made.get(t)
        if kept is None or kept.since != since:  # (its own key: the pool asks it of every cluster)
            kept = self._ends_made[t] = _TimedEnds(t, since)
        self.pool.labelled(("toleration ends", kept), kept.asked)
        ends = kept.settled()
        i = bisect_right(ends, lo)
        if i < len(ends) and ends[i] <= hi:
            return True
        for c in olds:
            for taint in c.taints:
                end = _end_after(t, taint, lo)
                if end is not None and end <= hi:
                    return True
        return False


class _TimedEnds:
    """A toleration's ends after a moment on the pool's clusters (`OcmLive._ends_in`): `asked`
    is `ClusterPool.labelled`'s test, whose answer is whether a cluster has such an end; each
    cluster it is asked of has its ends noted, and `settled` puts the noted ones in place of
    what that cluster had: every end, in order."""

    def __init__(self, t: Toleration, since: datetime) -> None:
        self.t, self.since = t, since
        self.of: dict[str, list[datetime]] = {}  # per cluster, its ends
        self.ends: list[datetime] = []  # every cluster's, in order
        self.noted: list[tuple[str, list[datetime]]] = []

    def asked(self, c: Cluster) -> bool:
        if not c.taints:  # (nearly every cluster where the pool starts afresh: noted only where
            if c.name in self.of:  # it had ends)
                self.noted.append((c.name, []))
            return False
        found = [e for taint in c.taints if (e := _end_after(self.t, taint, self.since)) is not None]
        self.noted.append((c.name, found))
        return bool(found)

    def settled(self) -> list[datetime]:
        if self.noted:
            ends, of = self.ends, self.of
            for name, found in self.noted:
                for e in of.pop(name, ()):
                    del ends[bisect_left(ends, e)]
                if found:
                    of[name] = found
                    for e in found:
                        insort(ends, e)
            self.noted = []
        return self.ends


class _After:
    """The counts a batch's writes leave (its answers' moves applied), and the busiest count a
    Placement divides by there (every decision but its own, on any cluster, gone ones too)."""

    def __init__(self, live: OcmLive, added: Counter[str], dropped: Counter[str]) -> None:
        self.live = live
        self.counts = {c: live.counts.get(c, 0) + added[c] - dropped[c] for c in {*added, *dropped}}
        self.ranked = sorted(self.counts.items(), key=lambda item: -item[1])

    def cluster(self, c: Cluster) -> Cluster:
        count = self.counts.get(c.name)
        return c if count is None else with_load(c, count)

    def most_for(self, own: Mapping[str, int]) -> int:
        top = 0
        for c, count in self.ranked:
            if count <= top:
                break
            top = max(top, count - own.get(c, 0))
        for count, clusters in self.live._by_count_desc():
            if count <= top:
                break
            for c in clusters:
                if c not in self.counts:
                    top = max(top, count - own.get(c, 0))
                    if top == count:
                        return top
        return top


def _flip(
    request: PlacementRequest,
    held: frozenset[str],
    x: str,
    passes: bool,
    last: tuple[str, ...] | None = None,
) -> tuple[str, ...]:
    """What the request holds (`held`, its existing decisions' clusters) with `x` added (`passes`)
    or taken off, in name order: its decisions are listed in name order, one per cluster
    (`_holdings`), so `x` goes in or out at its place (a PickAll holds thousands: no set of them
    sorted again); sorted as a set where they are not. `last`: the Placement's last answer given
    (names in strict name order, `_given_last`): where it holds what the request holds (as many
    names, each held: a lookup per name in C), it is those names (no decision's name read)."""
    if last is not None and len(last) == len(held) and held.issuperset(last):
        names = list(last)
    else:
        names = list(map(_cluster_of, request.existing))
        if len(names) != len(held) or not all(map(lt, names, names[1:])):
            return tuple(sorted(held | {x} if passes else held - {x}))
    at = bisect_left(names, x)
    there = at < len(names) and names[at] == x
    if passes and not there:
        names.insert(at, x)
    elif not passes and there:
        del names[at]
    return tuple(names)


def _margins(
    request: PlacementRequest,
    got: RequestResult,
    most: int,
    seen: int,
    selected: frozenset[str] | None = None,
    *,
    scoreless: bool = False,
    whole: bool = False,
) -> _Answer:
    """The answer's picks and the best cluster it left out, and whether its top N was strict
    (each pick ranked above every cluster left out, by total then name: its own best response,
    whichever way it was found). `selected`: the names of its picks, where the caller made them.
    `scoreless`: an answer given without the solver (`OcmLive._given_result`), whose picks carry
    no score and which reports no cluster left out: none of its thousands of picks read.
    `whole`: a PickAll's answer, which keeps no picks and is not strict, as a given one: every
    check of a PickAll reads its verdicts alone (`OcmLive._stands_on`, `_checked`: its answer's
    clusters, `whole`, and the flips), never its totals, its strictness or its margins."""
    picks: dict[str, int] = {}
    out: list[tuple[int, str]] = []
    if not scoreless:
        if not whole:
            picks = {c.cluster: c.score.affinity for c in got.selected if c.score is not None}
        out = [
            (u.score.affinity, u.cluster)
            for u in got.unselected
            if u.kind is FilterKind.NOT_PICKED and u.score is not None
        ]
    best_out = None
    for candidate in out:
        best_out = _better(best_out, candidate)
    strict = (
        not whole
        and not request.spread
        and len(picks) == len(got.selected)
        and (best_out is None or (bool(picks) and all(_beats((t, c), best_out) for c, t in picks.items())))
    )
    if selected is None:
        selected = frozenset(map(_cluster_of, got.selected))
    return _Answer(picks, best_out, strict, most, seen, selected)


def _by_then(pick: tuple[str, int, int]) -> tuple[int, str]:
    """`_picks_above`'s order of a pick (name, total then, total now) by its total then, then name."""
    return -pick[1], pick[0]


def _by_now(pick: tuple[str, int, int]) -> tuple[int, str]:
    return -pick[2], pick[0]


def _beats(a: tuple[int, str], b: tuple[int, str]) -> bool:
    """Whether `a` ranks above `b` in the top N: a higher total, or equal and a smaller name
    (upstream's tie-break); a name "" stands for any, so it is beaten only on the total."""
    return a[0] > b[0] or (a[0] == b[0] and bool(b[1]) and a[1] < b[1])


def _better(a: tuple[int, str] | None, b: tuple[int, str]) -> tuple[int, str]:
    return b if a is None or _beats(b, a) else a


def _may_beat(upper: np.ndarray, names: Sequence[str], beaten: tuple[int, str]) -> np.ndarray:
    """Where `(upper[at], names[at])` beats `beaten` (`_beats`, at once): a higher total, or an
    equal one and a smaller name (the names are in order: the first so many), "" beaten only on
    the total."""
    total, name = beaten
    out = upper > total
    ties = bisect_left(names, name) if name else 0
    if ties:
        out[:ties] |= upper[:ties] == total
    return out


def matters(
    request: PlacementRequest,
    before: Cluster | None,
    after: Cluster | None,
    now: datetime,
    holds: Container[str] | None = None,
    scoped: bool = True,
) -> bool:
    """Whether a cluster's change (None: absent) can change the request's answer, everything else
    as it was: it entered or left the request's scope, its verdict changed, or, passing before and
    after, one of the request's score inputs on it did (what it holds read only where a rule
    reads it: a cluster entering or leaving its scope that fails its filters, or a taint that
    binds new picks alone, `_new_only`; `holds`: the clusters it holds, where the caller has
    them, asked only `name in`).

    `scoped=False`: the caller found that nothing the Placement's sync writes reads a scope-only
    move (`OcmLive._reads_scope`: no spread, no refused toleration, its available clusters not
    taken to or from none). A cluster entering or leaving the scope then matters only where it
    passes the filters on the side it is in the scope (its verdict moves: the feasible clusters
    are the only ones the answer is chosen among, scored over, or ranged over by a sorter), or
    where the request holds it (counted as before)."""
    seen = [c is not None and in_scope(request, c) for c in (before, after)]
    if not seen[0] and not seen[1]:  # out of its scope on both sides (or absent on both: a gone
        return False  # cluster's score, say)
    name = (after or before).name  # type: ignore[union-attr]
    if seen[0] != seen[1]:
        if scoped or admits(request, after if seen[1] else before, now):  # type: ignore[arg-type]
            return True
        return name in holds if holds is not None else any(d.cluster == name for d in request.existing)
    # Holding it reads only a taint that binds new picks alone (`first_untolerated`).
    held = (_new_only(before) or _new_only(after)) and (  # type: ignore[arg-type]
        name in holds if holds is not None else any(d.cluster == name for d in request.existing)
    )
    passes = [admits(request, c, now, held=held) for c in (before, after)]  # type: ignore[arg-type]
    if passes[0] != passes[1]:
        return True
    return passes[1] and _score_inputs(request, before) != _score_inputs(request, after)  # type: ignore[arg-type]


def _respecified(before: Obj | None, after: Obj | None) -> bool:
    """Whether a Placement changed beyond its status (what its own sync writes): its sync may
    then write something else."""
    if before is None or after is None:
        return True
    meta = [
        {k: v for k, v in (o.get("metadata") or {}).items() if k not in ("resourceVersion", "managedFields")}
        for o in (before, after)
    ]
    return before.get("spec") != after.get("spec") or meta[0] != meta[1]


def _balance_weight(request: PlacementRequest) -> int:
    return sum(p.weight for p in request.preferences if p.balance)


def _scored_alone(request: PlacementRequest) -> bool:
    """Whether each cluster's total is its own (`_total`): no sorter, whose range spans the
    feasible clusters, and no spread, which scores clusters together."""
    return not request.spread and not any(p.sorter is not None for p in request.preferences)


def _sorted_alone(request: PlacementRequest) -> bool:
    """Whether its sorters' scores stay while its feasible set does (`_stands_margins`): centered
    sorters only (an interpolated one spans the whole fleet), no spread. A toleration with
    seconds may move that set with no event on a cluster (it runs out): such a request's margins
    are read only within `OcmLive._in_window` (`_facts_of` leaves it out of `alone`)."""
    return not request.spread and all(p.sorter.centered for p in request.preferences if p.sorter is not None)


def _sorted_inputs(request: PlacementRequest, c: Cluster) -> tuple[Any, ...]:
    """What a cluster's sorter scores read of it (its property, a sorter's label match)."""
    return tuple(
        (c.properties.get(p.sorter.name), p.labels is None or p.labels.matches(c.labels))
        for p in request.preferences
        if p.sorter is not None
    )


@lru_cache(maxsize=1 << 16)
def _balance(others: int, most: int) -> int:
    """Balance's score of a cluster with `others` decisions (at most `most`; a function of the two
    alone, remembered: the checks ask it tens of thousands of times an event; bounded, since a
    long-lived hub's busiest count drifts and every pair under it could be asked)."""
    return int(balance_scores(np.asarray([min(others, most)], dtype=np.int64), most)[0])


def _total(
    request: PlacementRequest,
    c: Cluster,
    own: Mapping[str, int],
    most: int,
    held: AbstractSet[str],
    *,
    balance: bool = True,
) -> int:
    """The request's total score on a cluster but its sorters' (model.Preference's shapes):
    Balance counts every decision on it but the request's own, against the busiest count
    (`balance=False`: left out too)."""
    total = 0
    for p in request.preferences:
        if p.sorter is not None:
            continue
        if p.balance:
            if balance:
                total += p.weight * _balance(max(0, c.load - own.get(c.name, 0)), most)
        elif p.held:
            total += p.weight * 100 if c.name in held else 0
        elif p.external is not None:
            total += p.weight * c.scores.get(p.external, 0)
        elif p.labels is None or p.labels.matches(c.labels):
            total += p.weight
    return total


def _inside_total(
    request: PlacementRequest,
    c: Cluster,
    own: Mapping[str, int],
    most: int,
    held: AbstractSet[str],
    ends: Sequence[tuple[int, str, float, float, bool]],
) -> int | None:
    """A sorter's total on a cluster whose value of each sorted property lies strictly inside the
    feasible clusters' range (`ends`, `OcmLive._sorter_ends`) or is absent (scored 0): what
    `_within_range` gives it where it passes its filters (the others span that same range); None
    where a value lies at an end or outside (then `_within_range` judges it)."""
    total = _total(request, c, own, most, held)
    for weight, prop, low, high, ascending in ends:
        value = c.properties.get(prop)
        if value is None:
            continue
        v = value.as_float()
        if not low < v < high:
            return None
        total += weight * _centered(low, high, v, ascending)
    return total


def _preference_parts(
    request: PlacementRequest,
) -> tuple[int, int, int, list[tuple[int, str]], list[tuple[int, Any]]]:
    """A request's preferences but its sorters, summed as `_total` reads them: Balance's weights
    (over its one score), Steady's bonus (its weight times 100), the weights given to every
    cluster, and the external scores' and the label matches' (weight, what it reads)."""
    weight = bonus = fixed = 0
    scored: list[tuple[int, str]] = []
    labelled: list[tuple[int, Any]] = []
    for p in request.preferences:
        if p.sorter is not None:
            continue
        if p.balance:
            weight += p.weight
        elif p.held:
            bonus += p.weight * 100
        elif p.external is not None:
            scored.append((p.weight, p.external))
        elif p.labels is None:
            fixed += p.weight
        else:
            labelled.append((p.weight, p.labels))
    return weight, bonus, fixed, scored, labelled


def _total_of(
    request: PlacementRequest, own: Mapping[str, int], most: int, held: AbstractSet[str]
) -> Callable[[Cluster], int]:
    """`_total` of the request for any cluster, its preferences read once (for the many clusters
    one answer judges): the same parts summed (integers: in any order), Balance's weights
    summed over its one score."""
    weight, bonus, fixed, scored, labelled = _preference_parts(request)

    def total(c: Cluster) -> int:
        out = fixed
        if weight:
            out += weight * _balance(max(0, c.load - own.get(c.name, 0)), most)
        if bonus and c.name in held:
            out += bonus
        for w, key in scored:
            out += w * c.scores.get(key, 0)
        for w, labels in labelled:
            if labels.matches(c.labels):
                out += w
        return out

    return total


_INSIDE_ARRAYS = 16  # `_judged_inside`: from this many threats their inside totals are read as arrays
_TERMS_CUT_FROM = 48  # `_judged_in_order`: from this many of a sorter's threats, those no term may admit cut
_IN = LabelOperator.IN


def _inside_totals(
    request: PlacementRequest,
    drift: _Drift,
    at: np.ndarray,
    named: Sequence[str],
    ends: Sequence[tuple[int, str, float, float, bool]],
    own: Mapping[str, int],
    most: int,
    held: AbstractSet[str],
    column: Callable[[_Drift, tuple[str, str], np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray] | None:
    """`_inside_of` of the drift's clusters at the positions `at` (`named` their names, none gone)
    at once: each one's total (int64) and whether it lies at or outside an end (where
    `_inside_of` gives None; its total is then any), or None where a part is not read so (a
    label match's preference, an end not finite: the caller reads them one by one). The
    clusters' loads, sorted values and external scores are `column`s (`OcmLive._column`). The
    same parts as `_total_of` and `_centered`: Balance's score looked up in the same table
    (`balance_scores` of the load less the request's own, clipped to [0, most], as `_balance`
    reads it), Steady's bonus, each external score; a sorted value (NaN: absent, scored 0)
    scored by the same float64 operations in the same order, element by element (IEEE: the
    same bits as Python's floats), truncated toward zero."""
    weight, bonus, fixed, scored, labelled = _preference_parts(request)
    if labelled:
        return None
    if not all(math.isfinite(low) and math.isfinite(high) for _, _, low, high, _ in ends):
        return None
    size = len(named)
    total = np.full(size, fixed, dtype=np.int64)
    if weight:
        others = column(drift, ("load", ""), at)
        if own:
            others = others - np.fromiter(map(own.get, named, repeat(0)), np.int64, size)
        total += weight * balance_scores(np.clip(others, 0, most), most)
    if bonus and held:
        total += bonus * np.fromiter(map(held.__contains__, named), bool, size)
    for w, key in scored:
        total += w * column(drift, ("score", key), at)
    outside = np.zeros(size, dtype=bool)
    for w, prop, low, high, ascending in ends:
        values = column(drift, ("value", prop), at)
        within = (low < values) & (values < high)  # False where absent (NaN)
        outside |= ~np.isnan(values) & ~within
        if within.any():  # then low < high
            ratio = (values[within] - low) / (high - low)
            if ascending:
                ratio = 1.0 - ratio
            total[within] += w * np.trunc(((ratio - 0.5) * 2.0) * 100.0).astype(np.int64)
    return total, outside


def _inside_of(
    c: Cluster, ends: Sequence[tuple[int, str, float, float, bool]], total_of: Callable[[Cluster], int]
) -> int | None:
    """`_inside_total` with the request's total read through `_total_of`: its sorted values
    first (None at or outside an end, the total not read), then the total."""
    sorted_part = 0
    for weight, prop, low, high, ascending in ends:
        value = c.properties.get(prop)
        if value is None:
            continue
        v = value.as_float()
        if not low < v < high:
            return None
        sorted_part += weight * _centered(low, high, v, ascending)
    return total_of(c) + sorted_part


def _picture_size(entry: tuple[int, int, Any, int]) -> int:
    """The clusters a kept picture holds (`OcmLive._prune`: a picture's moves, or its drift)."""
    found = entry[2]
    return len(found.names) if isinstance(found, _Drift) else len(found)


def _external(p: Preference) -> bool:
    """Whether a preference is an external score's (`_total`'s order of shapes)."""
    return p.sorter is None and not p.balance and not p.held and p.external is not None


def _scope_of(request: PlacementRequest) -> tuple[str, ...] | None:
    """The traits `admits` reads a request's scope by (None: it reads none, no scope or named
    clusters; `OcmLive._in_scope_at`'s)."""
    return None if request.scope is None or request.mode is SelectionMode.FIXED else request.scope


def _in_drift(index: Mapping[str, int], own: Mapping[str, int], answer: _Answer) -> AbstractSet[str]:
    """The clusters of a Placement's decisions now (`own`) and on the answer's picture, and of the
    answer's moves, that are among a drift's (`index`: its positions by name): for a dict, a set
    intersection in C (two dicts' keys: over the fewer; a set or `_Ones`: over its names), in
    place of their union looked up one by one; a big drift's `_Places` asks each name. The same
    set of names either way."""
    if type(index) is not dict:
        return {c for c in {*own, *answer.own, *answer.up, *answer.down} if c in index}
    keys = index.keys()
    found = keys & (own.keys() if isinstance(own, dict) else own)
    then = answer.own
    if then is not own and then:
        found |= keys & (then.keys() if isinstance(then, dict) else then)
    if answer.up:
        found |= keys & answer.up
    if answer.down:
        found |= keys & answer.down
    return found


def _patched(shared: np.ndarray, patch: Mapping[int, int]) -> np.ndarray:
    """An answer's rises: a fresh copy of the picture's shared ones with its patch written in."""
    rises = shared.copy()
    for at, rise in patch.items():
        rises[at] = rise
    return rises


def _centered(low: float, high: float, v: float, ascending: bool) -> int:
    """`centered_scores`' score of `v` over the values low, high and v, where low <= v <= high
    (as `_within_range` found): the same float64 operations in the same order (the range's
    ends are low and high; Python floats are IEEE doubles, so each step gives the same bits; a
    signed zero as an end moves no step past the subtraction of 0.5), without an array per ask.
    Values not all finite are judged by `centered_scores` itself."""
    if not (math.isfinite(low) and math.isfinite(high) and math.isfinite(v)):
        values = np.asarray([low, high, v], dtype=np.float64)
        return int(centered_scores(values, np.ones(3, dtype=bool), ascending)[2])
    if high == low:
        return 100
    ratio = (v - low) / (high - low)
    if ascending:
        ratio = 1.0 - ratio
    return int(math.trunc(((ratio - 0.5) * 2.0) * 100.0))


def _static(request: PlacementRequest, c: Cluster, held: AbstractSet[str]) -> int:
    """The request's total on a cluster but its sorters' and Balance's scores."""
    return _total(request, c, {}, 0, held, balance=False)


@lru_cache(maxsize=1 << 12)
def _most_shift(weight: int, then: int, now: int) -> tuple[int, ...]:
    """How far a weighted Balance score moves when the busiest count goes from `then` to `now`,
    the cluster's count (its others' decisions) unchanged: by count 0 .. the greater of the two
    (`_balance` reads a count past its busiest count as that count, so every count past the
    greater moves as the greater does)."""
    top = max(then, now, 0)
    return tuple(weight * (_balance(k, now) - _balance(k, then)) for k in range(top + 1))


def _shifted(total: int, shift: tuple[int, ...], others: int) -> int:
    """A total moved by `_most_shift` for a cluster with `others` decisions (none below 0; past
    the table's end, as its last count moves)."""
    return total + shift[min(max(0, others), len(shift) - 1)]


@lru_cache(maxsize=1 << 12)
def _most_rise(weight: int, most: int, now: int) -> int:
    """The most a weighted Balance score can rise when the busiest count goes from `most` to
    `now`, a cluster's count itself unchanged (so at most both); a negative weight rises where
    the score falls."""
    counts = np.arange(min(most, now) + 1, dtype=np.int64)
    moved = weight * (balance_scores(counts, now) - balance_scores(counts, most))
    return max(0, int(moved.max()))


def _raised(best: tuple[int, str], rise: int) -> tuple[int, str]:
    """The best left out's bound where every cluster left out may have risen by `rise` (which
    of them unknown: beaten only on the total)."""
    return best if rise <= 0 else (best[0] + rise, "")


def _regrouped(
    old: Cluster | None, new: Cluster | None, held: frozenset[str], groups: Sequence[DecisionGroup]
) -> bool:
    """Whether a held cluster changed its decision group: each group claims the picks its
    selector matches that no group before it claimed, the rest go to "" (groups.py), and the
    chunks' length reads only how many there are; so the groups are as they were while the
    cluster's first matching group (read on its labels and claims) is."""
    if old is None or new is None or old.name not in held:
        return False
    if old.labels == new.labels and old.claims == new.claims:
        return False
    return _first_group(groups, old) != _first_group(groups, new)


def _first_group(groups: Sequence[DecisionGroup], c: Cluster) -> int:
    return next((i for i, g in enumerate(groups) if g.matches(c)), -1)


_ABSENT = object()


def _keys_moved(out: set[tuple[str, str]], tag: str, was: Mapping[str, Any], now: Mapping[str, Any]) -> None:
    """Each key whose value (or presence) differs between the two maps, tagged."""
    if was != now:
        out.update((tag, k) for k in was.keys() | now.keys() if was.get(k, _ABSENT) != now.get(k, _ABSENT))


def _touched(old: Cluster | None, new: Cluster | None) -> frozenset[tuple[str, str]] | None:
    """What of a cluster `matters` may read changed (None: it came or went, anything may): its
    labels, claims, properties and external scores by key, its traits (set memberships, CEL
    outcomes) by name, its taints, its eligibility (eligible, leaving) and its count (Balance's
    load), as `_reads` tags them. Its name is the same on both sides; nothing else of it is read
    (`matters`: `in_scope`, `admits`, `_score_inputs`)."""
    if old is None or new is None:
        return None
    out: set[tuple[str, str]] = set()
    _keys_moved(out, "l", old.labels, new.labels)
    _keys_moved(out, "c", old.claims, new.claims)
    _keys_moved(out, "p", old.properties, new.properties)
    _keys_moved(out, "s", old.scores, new.scores)
    out.update(("t", t) for t in old.traits ^ new.traits)
    if old.taints != new.taints:
        out.add(("x", ""))
    if old.eligible != new.eligible or old.leaving != new.leaving:
        out.add(("e", ""))
    if old.load != new.load:
        out.add(("n", ""))
    return frozenset(out)


def _end_after(t: Toleration, taint: Taint, after: datetime) -> datetime | None:
    """The moment the toleration with seconds stops tolerating the taint (`taint.added +
    t.seconds`: `Toleration.tolerates` holds before it), where it matches the taint but for the
    time (its key, operator, value and effect) and that moment lies after `after`; else None
    (a taint with no time added is never tolerated by it, and a moment past datetime's range
    is never reached: no step of its verdict)."""
    if taint.added is None or not _untimed(t).tolerates(taint):
        return None
    try:
        end = taint.added + timedelta(seconds=t.seconds)  # type: ignore[arg-type]
    except OverflowError:
        return None
    return end if end > after else None


@lru_cache(maxsize=256)
def _untimed(t: Toleration) -> Toleration:
    """The toleration but its seconds: it matches a taint as `t` does, whatever the time."""
    return replace(t, seconds=None)


def _new_only(c: Cluster) -> bool:
    """Whether the cluster has a taint that binds new picks alone: the only rule that reads
    whether a request holds it (`first_untolerated` lets such a taint go for a held cluster)."""
    return bool(c.taints) and any(t.new_only for t in c.taints)


class _Shape:
    """One distinct value of a part of the requests (`OcmLive._shape`): every request whose part
    is equal shares it, so an answer that reads that part alone (and the cluster) is asked once
    per cluster (`OcmLive._feasible`). Hashed and compared by identity (a key holding it hashes
    at once, not its value)."""

    __slots__ = ()


class _Holds:
    """The clusters a request holds, as `matters` asks of them (`name in`), made
    (`OcmLive._held_of`) only when first asked: a PickAll holds hundreds, and a check reads them
    only for a cluster entering or leaving its scope that fails its filters, or one with a
    new-only taint (`_new_only`)."""

    __slots__ = ("found", "live", "request")

    def __init__(self, live: OcmLive, request: PlacementRequest) -> None:
        self.live, self.request, self.found = live, request, None

    def __contains__(self, name: object) -> bool:
        if self.found is None:
            self.found = self.live._held_of(self.request)
        return name in self.found


_TAINTS_ONLY = frozenset({("x", "")})  # `_touched`: the cluster's taints moved, nothing else


def _taint_facts(old: Cluster, new: Cluster) -> tuple[bool, bool]:
    """What `_taint_matters` reads of a cluster whose taints alone moved, the same for every
    request: whether a taint on either side binds new picks alone (`_new_only`: only then does
    holding it count) and whether it takes something new now (`takes_new`: if not, the verdict
    is no, whatever the request)."""
    return _new_only(old) or _new_only(new), takes_new(new)


def _taint_matters(request: PlacementRequest, old: Cluster, new: Cluster, now: datetime, held: bool) -> bool:
    """`matters` of a filtering (not FIXED) request for a change of the cluster's taints alone:
    its scope, eligibility, labels, claims, properties, traits, scores and count the same on both
    sides, it is in the scope on both or on neither, its required terms and eligibility pass on
    both or on neither, and its score inputs are the same: the verdict moves exactly where the
    cluster is in its scope, may take something new, passes its required terms and is tolerated
    on one side only (the required terms, the dearest rule, judged last and once).
    The rule as stated, for the module docstring and the tests: `OcmLive._relevant` asks it
    through the event's memo (`_asked`), and the tests hold that to this."""
    return (
        in_scope(request, new)
        and takes_new(new)
        and (untolerated(old, request.tolerations, now, held=held) is None)
        != (untolerated(new, request.tolerations, now, held=held) is None)
        and matches_required(request, new)
    )


def _selector_keys(out: set[tuple[str, str]], tag: str, selector: LabelSelector | None) -> None:
    if selector is not None:
        out.update((tag, k) for k, _ in selector.match_labels)
        out.update((tag, r.key) for r in selector.match_expressions)


def _reads(request: PlacementRequest) -> frozenset[tuple[str, str]]:
    """Everything `matters` may read of a cluster for the request, tagged as `_touched` tags a
    change (a superset is safe: it only asks `matters`): the scope's traits (`in_scope`), the
    eligibility, and where it filters (not FIXED, which reads only the name) the taints and what
    its required terms read (labels, claims, properties, traits by key); what its score inputs
    read (`_score_inputs`: a sorter's property, a preference's label keys, an external score, the
    count where it balances, a spread's topology key)."""
    out: set[tuple[str, str]] = {("e", "")}
    if request.scope is not None:
        out.update(("t", t) for t in request.scope)
    if request.mode is not SelectionMode.FIXED:
        out.add(("x", ""))
        for term in request.required:
            _selector_keys(out, "l", term.labels)
            _selector_keys(out, "c", term.claims)
            out.update(("p", p.name) for p in term.properties)
            out.update(("t", t) for t in term.traits)
    for p in request.preferences:
        if p.sorter is not None:
            out.add(("p", p.sorter.name))
        _selector_keys(out, "l", p.labels)
        if p.external is not None:
            out.add(("s", p.external))
        if p.balance:
            out.add(("n", ""))
    out.update(("c" if s.claims else "l", s.topology_key) for s in request.spread)
    return frozenset(out)


def _verdicts(
    request: PlacementRequest,
    old: Cluster | None,
    new: Cluster | None,
    now: datetime,
    holds: Collection[str],
    scoped: bool = True,
) -> bool:
    """Whether the cluster's verdict for the request changed (`holds`: what it holds), or its
    scope did where the Placement's sync may read that (`scoped`, as `matters` reads it: else a
    cluster failing the filters on both sides moves nothing a PickAll writes, its feasible set
    and its status the same; one it holds is counted as before). The rule as
    stated, for the module docstring and the tests: `OcmLive._flips` asks it through the event's
    memo (`_asked`), and the tests hold that to this."""
    held = (new or old).name in holds  # type: ignore[union-attr]
    seen = [c is not None and in_scope(request, c) for c in (old, new)]
    passes = [
        c is not None and s and admits(request, c, now, held=held)
        for c, s in zip((old, new), seen, strict=True)
    ]
    return passes[0] != passes[1] or (seen[0] != seen[1] and (scoped or held))


def _domain(constraint: SpreadConstraint, c: Cluster) -> str | None:
    """The cluster's domain for a spread constraint: its label's (or claim's) value, if any."""
    return (c.claims if constraint.claims else c.labels).get(constraint.topology_key)


def _score_inputs(request: PlacementRequest, c: Cluster) -> tuple[Any, ...]:
    out: list[Any] = []
    for p in request.preferences:
        if p.sorter is not None:
            out.append(c.properties.get(p.sorter.name))
        if p.labels is not None:
            out.append(p.labels.matches(c.labels))
        if p.external is not None:
            out.append(c.scores.get(p.external, 0))
        if p.balance:
            out.append(c.load)
    for s in request.spread:
        out.append((c.claims if s.claims else c.labels).get(s.topology_key))
    return tuple(out)


def _traits_of(eligible: Iterable[str]) -> tuple[str, ...]:
    """A Placement's scope: the traits of its eligible sets, as `_taken` loads it."""
    return tuple(n.SET_TRAIT.format(s) for s in eligible)


def _timed(policy: Policy) -> bool:
    """Whether time alone moves its inputs: a toleration with seconds (it runs out)."""
    return any(t.seconds is not None for t in policy.tolerations)


def _resource(external: str | None) -> str | None:
    """The AddOnPlacementScore name of an external score (`addon/<resource>/<score>`)."""
    if not external:
        return None
    parts = external.split("/")
    return parts[1] if len(parts) == 3 else None


def _expiry(objs: list[Manifest], now: datetime) -> datetime | None:
    """The first validUntil still to come among a cluster's scores."""
    ends = []
    for m in objs:
        until = parse_time(Fields(m), (m.obj.get("status") or {}).get("validUntil"), "status.validUntil")
        if until != ZERO_TIME and until >= now:
            ends.append(until + _TICK)  # expired only after it
    return min(ends, default=None)


def _check(obj: Obj, own: _Entries | None = None) -> Any:
    """A changed object read as load reads it (a refusal is the event's); what `_read` takes of
    it: a cluster, a decision's owner and names, a Placement's policy (in a tuple: None is one).
    `own`: the scheduler's own decision entries and lists (`_Entries`), for `_own_names`."""
    m = manifest(obj)
    kind = obj["kind"]
    if kind == n.MANAGED_CLUSTER:
        return read_cluster(m)
    if kind == n.CLUSTER_SET:
        read_set(m)
    elif kind == n.SCORE:
        _scores([m], ZERO_TIME)
    elif kind == n.DECISION:
        return _decision_names(m, own)
    elif kind == n.PLACEMENT:
        return (_placement_policy(m, own),)
    elif kind == n.SET_BINDING:
        read_bindings([m], {})
    return None


def _decision_names(
    m: Manifest, own: _Entries | None = None, labels: dict[int, tuple[dict[str, Any], str]] | None = None
) -> tuple[tuple[str, str], list[str]]:
    """A PlacementDecision's owner (namespace, placement label) and cluster names, as load reads
    them: where every entry is one the scheduler wrote (`_own_names`: its own decisions coming
    back), or else every one is plainly well formed (`_plain_names`), read at once; else by
    load's reading, which refuses what it refuses with its message. (The labels are read as
    load reads them in every case: a labels map read before, the very object (`own.labels`, by
    id, each held: no other has its id while kept), is not read again, for an object never
    changed in place reads as it read: emit gives each decision it rewrites the labels of the
    stored one it replaces where equal, so its own writes coming back hold labels read when
    that one came in.) `labels`: that memo alone where no `own` is given (the model's first
    reading: no entry is its own yet)."""
    names = _own_names(m.obj, own) if own is not None else None
    if names is None:
        names = _plain_names(m.obj)
    if names is not None:
        memo = own.labels if own is not None else labels
        raw = m.obj["metadata"].get("labels")
        kept = memo.get(id(raw)) if memo is not None else None
        if kept is not None and kept[0] is raw:
            return (m.namespace, kept[1]), names
        label = Fields(m).labels(raw, "metadata.labels").get(n.PLACEMENT_LABEL, "")
        if memo is not None and type(raw) is dict:
            if len(memo) >= _READS_KEPT:
                memo.clear()
            memo[id(raw)] = (raw, label)
        return (m.namespace, label), names
    ((owner, items),) = _decisions([m]).items()
    return owner, items[0][1]


def _own_names(obj: Obj, own: _Entries) -> list[str] | None:
    """The cluster names of a PlacementDecision's status whose every entry is one of the
    scheduler's own shared entries (`_Entries`), which `_plain_names` reads as these names: where
    the list is one emit wrote (`_Entries.listed`) still holding the entries it was written with,
    their names as written; else each entry found by its id (in C: no entry's fields read). None
    where any entry is not its own (an object from outside, a decision loaded from the hub:
    `_plain_names` reads it). A sync's decision holds 100 entries, and a join's writes coming
    back are hundreds of decisions."""
    status = obj.get("status")
    decisions = status.get("decisions") if type(status) is dict else None
    if type(decisions) is not list:
        return None
    kept = own.lists.pop(id(decisions), None)  # the list written (`_Entries.listed`), read once
    if kept is not None and len(decisions) == len(kept[1]) and all(map(is_, decisions, kept[1])):
        return list(kept[2])  # holding the very entries it was written with: their names
    try:  # (an entry not its own found by the missing id: no name compared with None)
        return list(map(own.names_by_id.__getitem__, map(id, decisions)))
    except KeyError:
        return None


def _plain_names(obj: Obj) -> list[str] | None:
    """The cluster names of a PlacementDecision's status whose every entry is an object with a
    string clusterName and reason and no score or an integer within int64: load's reading
    (adapters.ocm.load._decisions) accepts exactly such an entry as it is, and reads these names
    (None: anything else, left to it)."""
    status = obj.get("status")
    decisions = status.get("decisions") if type(status) is dict else None
    if type(decisions) is not list:
        return None
    names = []
    for item in decisions:
        if type(item) is not dict:
            return None
        name, score = item.get("clusterName"), item.get("score")
        if type(name) is not str or type(item.get("reason")) is not str:
            return None
        if score is not None and (type(score) is not int or not -INT64 - 1 <= score <= INT64):
            return None
        names.append(name)
    return names


def _placement_policy(m: Manifest, own: _Entries | None = None) -> Policy | None:
    """The Placement's policy as load reads it (refused as load refuses it); None where upstream
    leaves it alone (disabled, being deleted). `own.policies`: the spec last read for this
    Placement and its policy (read_policy reads the spec alone, its Fields only naming what it
    refuses): where the spec is that very object, the policy read then, not read again (a stored
    object is never changed in place; the scheduler's own status writes coming back carry the
    spec they were made from, emit copying it by reference). The rest (the metadata, the status
    emit wrote) is read as before."""
    f = Fields(m)
    if not m.namespace:
        raise f.fail("a Placement is namespaced", "metadata.namespace")
    if m.obj.get("spec") is None:
        raise f.fail("required", "spec")
    metadata = m.obj["metadata"]
    annotations = f.string_map(metadata.get("annotations"), "metadata.annotations")
    if metadata.get("deletionTimestamp") is not None or annotations.get(n.DISABLE_ANNOTATION) == "true":
        return None
    _check_status(f, f.mapping(m.obj.get("status"), "status"))
    spec = m.obj.get("spec")
    if own is None:
        return read_policy(f, spec)
    key = f"{m.namespace}/{m.name}"
    kept = own.policies.get(key)
    if kept is not None and kept[0] is spec:
        return kept[1]
    policy = read_policy(f, spec)
    if len(own.policies) >= _READS_KEPT:
        own.policies.clear()
    own.policies[key] = (spec, policy)
    return policy
