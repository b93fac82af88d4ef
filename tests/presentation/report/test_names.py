"""Long names on the report's pages: shortened by one rule (:mod:`masrl.presentation.report.names`)
wherever the page says them, still told apart, still escaped, and given in full once, folded
away; short names left exactly as they were."""

from __future__ import annotations

import html
import json
import re

from hostile_traces import LONG_AGENT, MARKUP_NAME, TWINS, long_names
from trace_helpers import FIXTURES

from masrl.presentation.report import Subject, build, diff_sections, names, page, page_title
from masrl.presentation.report import replayed as replay_of
from masrl.presentation.report.blocks import FullNames
from masrl.presentation.report.facts import Facts
from masrl.traces.diff import compare
from masrl.traces.validate import validate_document

LIBRARIES = "window.vegaEmbed = function () { return Promise.resolve(); };"
SMALL = FIXTURES / "small.json"


def small() -> dict:
    return json.loads(SMALL.read_text(encoding="utf-8"))


def report_page(document: dict) -> str:
    checked = validate_document(document, source="t.json")
    sections = build(checked, replay_of(checked), Subject("t.json", "t.json"))
    return page.render(sections, page_title(document, "t.json"), libraries=LIBRARIES)


def diff_page(a: dict, b: dict) -> str:
    replays = [replay_of(validate_document(d, source=f"{side}.json"))
               for side, d in (("a", a), ("b", b))]
    facts = [Facts(r) for r in replays]
    found = compare(*replays, reasons_a=facts[0].not_recorded, reasons_b=facts[1].not_recorded)
    sections = diff_sections.build(found, "a.json", "b.json", heads=(a, b))
    return page.render(sections, diff_sections.page_title(found), libraries=LIBRARIES,
                       command="masrl diff")


def without_full_names(markup: str) -> str:
    """The page without its folded table of full names and without its scripts."""
    markup = re.sub(r'<details class="masrl-more masrl-full-names">.*?</details>', "", markup,
                    flags=re.S)
    return re.sub(r"<script\b[^>]*>.*?</script>", "", markup, flags=re.S)


def reader_text(markup: str) -> str:
    """What a reader reads of a page: its text, its attributes' values and its charts' data
    (scripts' code and styles left out), entities decoded."""
    specs = "".join(re.findall(r'<script type="application/json" class="masrl-spec">(.*?)'
                               r"</script>", markup, flags=re.S))
    markup = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", "", markup, flags=re.S)
    return html.unescape(markup) + json.loads(json.dumps(specs))


# ------------------------------------------------------------------------------ the rule

def test_a_short_name_is_shown_as_it_is():
    for name in ("root", "x" * names.LONGEST, "héllo wörld", "a\u202eb"):
        assert names.shown(name) == name and not names.is_long(name)


def test_a_long_name_keeps_its_ends_around_a_code_of_the_whole():
    shown = names.shown(LONG_AGENT)
    assert shown == f"{'A' * 12}\u2026#{names.code(LONG_AGENT)}\u2026{'A' * 12}"
    assert len(shown) < names.LONGEST and names.is_long(LONG_AGENT)
    assert names.shown(LONG_AGENT) == shown  # the same on every page


def test_names_that_shorten_alike_stay_apart():
    first, second = (names.shown(name) for name in TWINS)
    assert first != second
    assert first[:12] == second[:12] and first[-12:] == second[-12:]
    # the code comes early, so that a chart's axis that cuts a label still shows it
    assert first.index("#") < 15


def test_a_name_that_looks_shortened_is_shortened_too():
    """Else a short name written to look like another's shortened form would read as it."""
    forged = names.shown(LONG_AGENT)
    assert names.is_long(forged) and names.shown(forged) != forged
    assert len(names.shown(forged)) == len(forged)


def test_a_long_name_with_control_characters_is_cut_after_they_are_made_visible():
    shown = names.shown(MARKUP_NAME)
    assert "\u202e" not in shown and "\x1b" not in shown
    assert shown.startswith("<script>ale") and shown.endswith("</code>end")


def test_long_names_lists_each_shortened_name_with_its_full_text():
    found = names.long_names(["root", LONG_AGENT, *TWINS])
    assert found == [(names.shown(n), n) for n in (LONG_AGENT, *TWINS)]


# ------------------------------------------------------------------------------ the pages

def test_short_names_leave_the_page_as_it_was():
    markup = report_page(small())
    assert "masrl-full-names" not in markup and "characters around a code" not in markup


def test_a_page_names_a_10000_character_agent_in_full_once_and_folded():
    markup = report_page(long_names(small()))
    assert markup.count(LONG_AGENT) == 1
    assert without_full_names(markup).count("A" * 100) == 0
    for long in ("t" * 5_000, "T" * 4_000, "K" * 4_000):  # a tool, the trace and task ids
        assert markup.count(long) == 1
    assert markup.count("x" * 3_000) == 9  # each of the 9 long event ids, once
    assert "<title>Trace report: TTTTTTTTTTTT\u2026#" in markup


def test_the_page_of_long_names_stays_about_as_long_as_the_page_of_short_ones():
    short = len(reader_text(report_page(small())))
    long = len(reader_text(without_full_names(report_page(long_names(small())))))
    assert long < 1.5 * short, (long, short)


def test_names_that_shorten_alike_stay_apart_on_the_page():
    text = reader_text(report_page(long_names(small())))
    for name in TWINS:
        shown = names.shown(name)
        assert text.count(shown) >= 5, shown  # headline, tables, graph, timeline, steps...


def test_long_names_stay_escaped():
    markup = report_page(long_names(small()))
    assert "<script>alert" not in markup and "\u202e" not in markup and "\x1b" not in markup
    assert "&lt;script&gt;alert(1)" in markup and "\\u202e" in markup
    assert "</code>end" not in markup.replace("&lt;/code&gt;end", "")


def test_the_full_names_block_says_each_name_once_in_its_plain_text():
    block = FullNames(names.long_names([LONG_AGENT]))
    assert repr(block) == f"{names.shown(LONG_AGENT)}: 10,000 characters"
    assert block._repr_html_().startswith('<details class="masrl-more masrl-full-names">')


def test_the_comparison_page_shortens_long_names_too():
    markup = diff_page(small(), long_names(small()))
    assert markup.count(LONG_AGENT) == 1 and markup.count("t" * 5_000) == 1
    assert without_full_names(markup).count("A" * 100) == 0
    assert "<title>Two runs compared: small and TTTTTTTTTTTT\u2026#" in markup
    assert "<script>alert" not in markup and "\u202e" not in markup
    assert "masrl-full-names" not in diff_page(small(), small())


def test_a_chart_axis_labels_a_long_name_by_its_start_and_the_same_code():
    assert names.label("root") == "root"
    for name in (LONG_AGENT, *TWINS):
        assert names.label(name) == f"{name[:names.AXIS_KEPT]}\u2026#{names.code(name)}"
        assert names.shown(name).endswith(names.label(name)[-11:] + "\u2026" + name[-12:])
    assert names.label(TWINS[0]) != names.label(TWINS[1])


def test_a_sentence_quoting_a_long_name_keeps_its_words_and_shortens_the_name():
    said = f"agent '{LONG_AGENT}' is spawned here but never returns"
    assert names.shown_within(said) == (f"agent '{names.shown(LONG_AGENT)}' is spawned here "
                                        "but never returns")
    assert names.shown_within("a short sentence") == "a short sentence"
