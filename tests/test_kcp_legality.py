"""The v0.5 state machine's legality check, on its own: each actor's steps, and the steps it may
not take; and the scheduler's steps on random v0.5 hubs."""

import json

from hypothesis import given

from adapters.kcp.legality import illegal_transitions
from tests.fixtures.kcp import PLACEMENT, hubs_v05
from tests.fixtures.pipeline import GREEDY, OPTIMAL, Hub, run

K1, K2 = "ws+east+c1", "ws+west+c1"


def text(entries):
    return json.dumps(entries)


def test_scheduler_steps():
    assert illegal_transitions(None, text({K1: "Pending"}), actor="scheduler") == []
    assert illegal_transitions(text({K1: "Bound"}), text({K1: "Removing"}), actor="scheduler") == []
    assert illegal_transitions(text({K1: "Unbound"}), text({}), actor="scheduler") == []
    # a revival: the cluster it was leaving, Bound again in another location
    assert illegal_transitions(text({K1: "Removing"}), text({K2: "Bound"}), actor="scheduler") == []


def test_scheduler_may_not_adopt_or_unbind():
    assert illegal_transitions(text({K1: "Pending"}), text({K1: "Bound"}), actor="scheduler") == [
        "scheduler: ws+east+c1: Pending -> Bound"
    ]
    assert illegal_transitions(text({K1: "Removing"}), text({K1: "Unbound"}), actor="scheduler")
    assert illegal_transitions(text({}), text({K1: "Bound"}), actor="scheduler") == [
        "scheduler: ws+east+c1: - -> Bound without an entry of that cluster to revive"
    ]


def test_namespace_controller_steps():
    assert illegal_transitions(text({K1: "Pending"}), text({K1: "Bound"}), actor="namespace-controller") == []
    assert (
        illegal_transitions(text({K1: "Removing"}), text({K1: "Unbound"}), actor="namespace-controller") == []
    )
    assert illegal_transitions(text({K1: "Bound"}), text({K1: "Removing"}), actor="namespace-controller")


def test_unreadable_annotations_are_not_judged():
    assert illegal_transitions('{"x":', text({K1: "Bound"}), actor="scheduler") == []


@given(hubs_v05())
def test_the_scheduler_takes_only_its_own_state_steps(objects):
    """Every v0.5 annotation entry moves only as the state machine lets the scheduler move it."""
    before = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Namespace"}
    for options in (GREEDY, OPTIMAL):
        for obj in run(Hub(objects), options).apply:
            if obj["kind"] != "Namespace":
                continue
            was = (before[obj["metadata"]["name"]]["metadata"].get("annotations") or {}).get(PLACEMENT)
            now = (obj["metadata"].get("annotations") or {}).get(PLACEMENT)
            assert illegal_transitions(was, now, actor="scheduler") == []
