"""Requests that divide replicas among clusters (PlacementRequest.replicas): upstream's per-request
algorithm, in neutral words.

Each request is filtered, ordered, selected and divided as upstream's scheduler does one binding
(pkg/scheduler/core), attempt by attempt over its failover tiers, in upstream's queue order
(priority descending, then order). Greedy sees every cluster's capacity as given: nothing one
request takes is deducted before the next (upstream's estimates are refreshed only by its
clusters' status), so greedy over-commits where upstream does. Both modes run through the
capacity coupling (solver.replicas.capacity): greedy is this algorithm, optimal the joint capacity
solve (solver.replicas.joint), both measured on the same levels.

The package by job: `problem` (the requests and each attempt's candidates, shared with the joint
solve), `estimate` (the general estimator), `order` (the filters and the canonical order),
`selection` (group spreads), `division` (the division rules and overflow tiers), `webster`
(apportionment), `tiers` (attempts over failover tiers), `results` (RequestResults and
explanations), `messages` (upstream's texts).
"""
