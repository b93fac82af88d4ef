"""The book's one table style: no index unless asked, whole text, numbers formatted by kind,
missing values as a dash, no raw Python values, every text escaped, a caption."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from masrl.presentation import tables

LONG = "A title much longer than the fifty characters pandas shows before it cuts the text"


def test_long_text_is_never_cut():
    shown = tables.table(pd.DataFrame({"title": [LONG]}), "Titles")
    assert shown.cells("title") == [LONG]
    assert LONG in shown._repr_html_() and "..." not in shown._repr_html_()


def test_the_index_is_dropped_unless_asked_for():
    frame = pd.DataFrame({"n": [1, 2]}, index=pd.Index(["a", "b"], name="value"))
    assert tables.table(frame, "c").header == ["n"]
    shown = tables.table(frame, "c", index=True)
    assert shown.header == ["value", "n"] and shown.cells("value") == ["a", "b"]
    assert '<th class="masrl-text masrl-nowrap" scope="row">a</th>' in shown._repr_html_()


def test_one_header_row_aligned_like_its_column():
    frame = pd.DataFrame({"name": ["x"], "papers": [3]})
    page = tables.table(frame, "c")._repr_html_()
    assert page.count("<tr>") == 2  # one header row, one body row
    assert '<th class="masrl-text" scope="col">name</th>' in page
    assert '<th class="masrl-num" scope="col">papers</th>' in page


@pytest.mark.parametrize("value, kind, shown", [
    (1234, "count", "1,234"), (8000.0, "tokens", "8,000"), (0.983498, "share", "98.3%"),
    (12.5, "percent", "12.5%"), (1.5, "seconds", "1.50"), (0.983498, "number", "0.983"),
    (5.39811e-05, "number", "5.4 × 10⁻⁵"), (2.0, "number", "2"), (0.5, "number:2", "0.50"),
    (0.00306, "number:2", "3.1 × 10⁻³"), (-0.004, "number:2", "-4.0 × 10⁻³"),
    (-0.0, "number:2", "0.00"), (0.005, "number:2", "0.01"), (0.0, "number:3", "0.000"),
    (True, "flag", "yes"), (np.False_, "flag", "no"), (["a", "b", "c"], "list", "a, b and c"),
    ({"broad_only": 7, "strict": 2}, "text", "broad only: 7; strict: 2"),
    (None, "count", "—"), (math.nan, "number", "—"), (pd.NA, "text", "—"),
    ("a, b", "keys", "a, b"),
])
def test_values_are_formatted_by_kind(value, kind, shown):
    assert tables.formatted(value, kind) == shown


def test_kinds_are_inferred_from_the_data():
    frame = pd.DataFrame({"t": ["x", None], "n": pd.array([1, None], dtype="Int64"),
                          "f": [0.25, 0.5], "w": [1.0, 2.0], "b": [True, False],
                          "s": pd.array(["p", "q"], dtype="string")})
    shown = tables.table(frame, "c")
    assert shown.kinds == ["text", "count", "number", "count", "flag", "text"]
    assert shown.rows[1] == ["—", "—", "0.5", "2", "no", "q"]


def test_no_raw_python_reaches_the_reader():
    frame = pd.DataFrame({"v": [{"a": 1}, True, None, [1, 2]]}, dtype=object)
    text = repr(tables.table(frame, "c")) + tables.table(frame, "c")._repr_html_()
    for raw in ("{'", "True", "None", "[1", "<NA>", "nan"):
        assert raw not in text


def test_every_text_is_escaped_and_keys_link_to_the_bibliography():
    frame = pd.DataFrame({"title": ["<script>alert(1)</script>"], "key": ["<b>"],
                          "papers": ["magrpo, marft"]})
    page = tables.table(frame, "<i>caption</i>", {"key": "code", "papers": "keys"})._repr_html_()
    assert "<script>" not in page and "<i>" not in page and "&lt;b&gt;" in page
    assert '<a class="masrl-cite" href="../book/bibliography.html#cite-magrpo">' in page
    assert '<caption class="masrl-caption">&lt;i&gt;caption&lt;/i&gt;</caption>' in page


def test_keys_in_running_text_link_to_their_entries():
    html = tables.cite_text_html("strict: magrpo and c3; not c3po", {"magrpo", "c3"})
    assert html.count('class="masrl-cite"') == 2 and "c3po" in html
    assert "#cite-c3po" not in html


def test_an_outer_index_level_is_written_once_per_group():
    index = pd.MultiIndex.from_tuples([("otel", "a"), ("otel", "b"), ("atif", "a")],
                                      names=["format", "fixture"])
    shown = tables.table(pd.DataFrame({"n": [1, 2, 3]}, index=index), "c", index=True)
    assert shown.cells("format") == ["otel", "", "atif"]
    assert shown.cells("fixture") == ["a", "b", "a"]


def test_the_plain_text_form_is_an_aligned_table():
    text = repr(tables.table(pd.DataFrame({"name": ["a"], "n": [1234]}), "Caption"))
    assert text.splitlines() == ["Caption", "name      n", "----  -----", "a     1,234"]


def test_unknown_kinds_and_columns_are_refused():
    frame = pd.DataFrame({"a": [1]})
    with pytest.raises(ValueError, match="unknown column kinds"):
        tables.table(frame, "c", {"a": "money"})
    with pytest.raises(ValueError, match="does not have"):
        tables.table(frame, "c", {"b": "count"})


def test_names_break_only_after_their_separators_and_dates_not_at_all():
    frame = pd.DataFrame({
        "agent": ["PythonDebugging_Expert", "Orchestrator"],
        "path": ["../shared/traces/who-and-when", "a.b"],
        "date": ["2026-05-14", "2026-05"],
    })
    html = tables.table(frame, "c", {"path": "code"})._repr_html_()
    assert "PythonDebugging_<wbr>Expert" in html  # 22 characters: may break after "_" only
    assert "<code>..<wbr>/shared/<wbr>traces/<wbr>who-and-when</code>" not in html
    assert "<code>../<wbr>shared/<wbr>traces/<wbr>who-and-when</code>" in html
    assert '<td class="masrl-text masrl-nowrap" data-label="agent">Orchestrator</td>' in html
    assert '<td class="masrl-text masrl-nowrap" data-label="date">2026-05-14</td>' in html
    assert '<code>a.b</code>' in html  # short ids are left whole


def test_a_column_of_long_text_is_marked_to_get_the_room():
    frame = pd.DataFrame({"id": ["C001", "C002"], "title": ["A title of some forty characters, or so"] * 2,
                          "reason": ["A reason that runs on for a long while, " * 5] * 2})
    html = tables.table(frame, "c")._repr_html_()
    assert '<td class="masrl-text masrl-nowrap" data-label="id">C001</td>' in html
    assert 'class="masrl-text masrl-medium" data-label="title">A title' in html
    assert 'class="masrl-text masrl-long" data-label="reason">A reason' in html
    assert '<table class="masrl-table masrl-has-long">' in html
    assert '<th class="masrl-text masrl-long" scope="col">reason</th>' in html
