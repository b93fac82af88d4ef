"""Tabs and dropdowns: every tab's content is in the page, one tab open, labels escaped; a
dropdown keeps its body Markdown inside a <details> element."""

from __future__ import annotations

import pandas as pd

from masrl.presentation import blocks, tables


def test_tabs_hold_every_output_with_the_first_one_open():
    one = tables.table(pd.DataFrame({"a": [1]}), "First")
    two = tables.table(pd.DataFrame({"b": [2]}), "Second")
    page = blocks.Tabs("Planner executor", {"<One>": one, "Two": two})._repr_html_()
    assert page.count('type="radio"') == 2 and page.count('checked="checked"') == 1
    assert page.index('checked="checked"') < page.index("First") < page.index("Second")
    assert 'name="masrl-tabs-planner-executor"' in page and "&lt;One&gt;" in page
    assert "[<One>]" in repr(blocks.Tabs("t", {"<One>": one}))


def test_a_dropdown_keeps_its_body_markdown_and_escapes_its_title():
    shown = blocks.dropdown("<b>Mapping</b>", "* **bold** item").markdown
    assert shown.startswith("<details") and shown.rstrip().endswith("</details>")
    assert "&lt;b&gt;Mapping&lt;/b&gt;" in shown
    assert "\n\n* **bold** item\n\n" in shown  # blank lines around: parsed as Markdown
