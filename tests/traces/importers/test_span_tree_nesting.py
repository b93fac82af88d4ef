"""Which spans another span encloses (:func:`masrl.traces.importers.spans.tree._nested`): one
preorder walk of the tree gives each span a range, and the answer equals a walk up from each
span to the top, on random forests (with orphans, self-parents and cycles, which ``link``
repairs), at any depth."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from masrl.traces.importers.spans.tree import MODEL, Span, _nested, _preorder, link


def _walked(span: Span, among: set[int]) -> bool:
    """The reference: some strict ancestor of ``span`` is one of ``among``."""
    node = span.parent
    while node is not None:
        if id(node) in among:
            return True
        node = node.parent
    return False


def _linked(parents: list[int]) -> list[Span]:
    spans = [Span(f"s{i}", f"s{parent}" if parent >= 0 else None, i, i + 1, MODEL, f"line {i}")
             for i, parent in enumerate(parents)]
    return link(Path("spans.json"), spans, Counter())


@given(st.lists(st.integers(-1, 15), min_size=1, max_size=16), st.data())
def test_the_enclosed_spans_equal_a_walk_to_the_top(parents, data):
    spans = _linked(parents)
    chosen = data.draw(st.lists(st.sampled_from(spans), max_size=len(spans)))
    among = {id(span) for span in chosen}
    assert _nested(_preorder(spans), chosen) == {id(s) for s in chosen if _walked(s, among)}


def test_a_chain_deeper_than_the_recursion_limit():
    """Each span of a chain of 5,000 is enclosed by the one above it, the top one by none."""
    spans = _linked([i - 1 for i in range(5000)])
    found = _nested(_preorder(spans), spans)
    assert found == {id(span) for span in spans if span.span_id != "s0"}
    assert _nested(_preorder(spans), spans[::2]) == {id(s) for s in spans[2::2]}
