"""The fast YAML reader's scan for indicators that may begin a node (adapters.kube.codec): the
pattern that finds them indicator first finds exactly what the plain reading of the rule finds
(an indicator at the start of a line, or after white space or a flow character)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from adapters.kube import codec

# The rule as it reads: at a line start or after white space or a flow character.
RULE = re.compile(r"(?:^|(?<=[\s\[\]{},]))[!&*|>%?@`]", re.MULTILINE)

PIECES = st.sampled_from(
    [" ", "\n", "\t", "\r", "\xa0", "\u2028", "\x85", "[", "]", "{", "}", ",", "a", ":", "-", "'", '"']
    + list("!&*|>%?@`")
)


@given(st.lists(PIECES, max_size=40).map("".join))
def test_indicator_scan_is_the_rule(text: str) -> None:
    found = [m.start() for m in codec._INDICATOR_AT_TOKEN.finditer(text)]
    assert found == [m.start() for m in RULE.finditer(text)]


def test_cel_operators_inside_plain_scalars_are_seen() -> None:
    text = "- managedCluster.scores('a').all(e, e.value > 0) && x\n>folded\n"
    found = [m.start() for m in codec._INDICATOR_AT_TOKEN.finditer(text)]
    assert found == [44, 49, 54]  # ">", the first "&" (the second follows the first), ">folded"
