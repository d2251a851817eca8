"""A purpose's template that lists another purpose makes clusters that purpose can use: upstream's
queue finds them as candidates for the rest of the run (they list the purpose and carry labels its
selector accepts), and Balanced finds a just-created cluster emptiest."""

from __future__ import annotations

import pytest

from tests.fixtures.openmcp import MODES, Written, cluster, config, fin, purpose, request, stale

CONFIG = config(
    platform=purpose(
        count=3, namespace="platform", purposes=["platform", "onboarding"], labels={"tier": "p"}
    ),
    onboarding=purpose(namespace="platform", name="onboarding"),
    solo=purpose(count=2, namespace="solo", purposes=["solo"]),
)


def hub():
    return [
        cluster("platform", "onboarding", "onboarding", finalizers=[stale(str(i)) for i in range(5)]),
        request("team", "p1", "platform", at_minute=1),
        request("team", "o1", "onboarding", at_minute=2),
    ]


def test_upstream_queue_puts_the_next_request_on_the_cluster_just_created(tmp_path) -> None:
    out = Written.solve(tmp_path, hub(), CONFIG, "greedy")
    created = out.granted("team/p1")
    assert created is not None and created.startswith("platform/platform-")
    assert out.granted("team/o1") == created  # 1 request there against 5 on the onboarding cluster
    assert sorted(out.finalizers(created)) == sorted([fin("team", "p1"), fin("team", "o1")])


@pytest.mark.parametrize("mode", MODES)
def test_a_template_not_listing_the_purpose_makes_no_candidate(tmp_path, mode) -> None:
    objects = [*hub(), request("team", "s1", "solo", at_minute=0)]
    out = Written.solve(tmp_path, objects, CONFIG, mode)
    assert out.granted("team/s1").startswith("solo/solo-")
    assert not out.granted("team/o1").startswith("solo/")


def test_optimal_is_never_worse_and_checked(tmp_path) -> None:
    greedy = Written.solve(tmp_path, hub(), CONFIG, "greedy")
    optimal = Written.solve(tmp_path, hub(), CONFIG, "optimal")
    assert optimal.plan["summary"]["objective"] >= greedy.plan["summary"]["objective"]
    assert len(optimal.new_clusters(hub())) <= len(greedy.new_clusters(hub()))
