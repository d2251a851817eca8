"""The API server's name and label rules (adapters.kube.validation) remember the texts they judged
good, so that a hub's thousands of repeats are judged once; what they remember is bounded, so that
a long-lived scheduler, which sees ever new names and values, does not grow without end."""

from __future__ import annotations

import pytest

from adapters.kube import validation

REMEMBERED = ("_GOOD_KEYS", "_GOOD_VALUES", "_GOOD_FINALIZERS", "_GOOD_ANNOTATION_KEYS", "_GOOD_NAMESPACES")


@pytest.fixture(autouse=True)
def _forget_afterwards():
    """The tests fill what the rules remember: the other tests find it as they left it."""
    kept = {name: set(getattr(validation, name)) for name in REMEMBERED}
    yield
    for name, texts in kept.items():
        remembered = getattr(validation, name)
        remembered.clear()
        remembered.update(texts)


def test_what_the_rules_remember_is_bounded() -> None:
    for i in range(validation._GOOD_LIMIT + 100):
        text = f"n{i}"
        assert validation.label_problem(text, text) is None
        assert validation.finalizer_problem(text) is None
        assert validation.annotations_problem({text: ""}) is None
        assert validation.name_problem("Thing", "x", text) is None
    for name in REMEMBERED:
        assert len(getattr(validation, name)) <= validation._GOOD_LIMIT, name


def test_a_text_past_the_bound_is_still_judged() -> None:
    for i in range(validation._GOOD_LIMIT + 1):
        validation.label_problem(f"k{i}", "v")
    assert validation.label_problem("-bad", "v") is not None
    assert validation.label_problem("good", "-bad") is not None
