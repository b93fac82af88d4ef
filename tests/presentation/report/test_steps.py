"""The step list: every event in the run's order, the labelled ones highlighted with their labels,
and, when the trace keeps it, each step's text behind a ``<details>`` a reader opens: escaped,
control characters shown, marked where it was cut; what the trace kept of its text, counted."""

from __future__ import annotations

import json
import re

from replay_examples import hostile_content_trace
from trace_helpers import replayed

from masrl import paths
from masrl.presentation.report import steps as step_lists
from masrl.presentation.report import words
from masrl.presentation.report.blocks import STEPS_SHOWN, StepList, strip_markup
from masrl.presentation.report.facts import Facts
from masrl.traces.importers import import_file
from masrl.traces.synthetic import swarm_trace

MAGENTIC = paths.REPO_ROOT / "tests" / "fixtures" / "importers" / "who_and_when" / \
    "magentic_one.json"



def facts_of(document: dict) -> Facts:
    return Facts(replayed(json.loads(json.dumps(document))))


def magentic(keep_content: bool) -> Facts:
    return facts_of(import_file("auto", MAGENTIC, keep_content=keep_content).trace)


def test_every_step_in_order_with_its_text_when_kept():
    found = magentic(keep_content=True)
    listed = step_lists.step_list(found)
    ids = found.run.trace.events.ids
    assert [s.event for s in listed] == [ids[i] for i in found.run.timeline.tolist()]
    assert [s.number for s in listed] == list(range(1, len(listed) + 1))
    source = json.loads(MAGENTIC.read_text(encoding="utf-8"))["history"]
    for step in listed:
        k = int(step.event[1:])  # h<k> is history[k]
        assert step.text == source[k]["content"] and not step.truncated
    (labelled,) = [s for s in listed if s.labels]
    assert labelled.event == "h4"
    assert [label.name for label in labelled.labels] == ["mistake_step", "mistake_reason"]
    account = step_lists.content_account(found)
    assert account["kept"] == len(listed) and account["asked"]
    assert (account["truncated"], account["left_out"]) == (0, 0)
    assert account["event_bytes"] == 4096


def test_without_text_each_step_is_listed_and_the_text_counted_as_left_out():
    found = magentic(keep_content=False)
    listed = step_lists.step_list(found)
    assert all(s.text is None for s in listed)
    account = step_lists.content_account(found)
    refs = sum(r is not None for r in found.run.trace.event_records.optional("content_ref"))
    assert (account["kept"], account["left_out"], account["asked"]) == (0, refs, False)
    assert refs == len(listed)
    markup = StepList(listed)._repr_html_()
    assert "<details class=\"masrl-said\"" not in markup and "masrl-labelled" in markup


def test_hostile_text_is_shown_as_text_never_as_markup():
    found = facts_of(hostile_content_trace())
    markup = StepList(step_lists.step_list(found))._repr_html_()
    for raw in ("<script", "</script", "<img", "<b>", "<i>", "\x07", "\x1b", "\x00", "\u2028",
                "\x9b", "\r"):
        assert raw not in markup, raw
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x" in markup
    assert "&lt;/script&gt;&lt;b&gt;name" in markup  # the label's name
    # control characters are shown as escapes; line breaks and tabs stay
    shown = strip_markup(markup)
    assert r"bell\x07 escape\x1b[31m nul\x00 separator\u2028 c1\x9b end" in shown
    assert "end\nnext line\t" in shown
    assert r"comment: c\x1b[2J" in shown
    # cut text: said in the summary and at the cut
    assert "cut: the whole text is 123,456 bytes" in shown
    assert "[cut here: the whole text is 123,456 bytes; the trace keeps its first" in shown
    # the long line is kept whole (the page wraps it)
    assert "y" * 3000 in markup


def test_visible_text():
    assert words.visible("a\r\nb\x07\tc\u2029") == "a\nb\\x07\tc\\u2029"
    assert words.visible("plain, «accents» 名") == "plain, «accents» 名"
    # bidirectional controls reorder what follows them: shown as escapes, as on a terminal
    assert words.visible("x\u202ey\u2066z\u200f") == "x\\u202ey\\u2066z\\u200f"
    assert words.visible("עברית and العربية") == "עברית and العربية"  # right-to-left text stays


def test_the_first_steps_and_each_labelled_step_are_in_view_the_rest_folded():
    document = swarm_trace([6] * 4, trace_id="steps")
    found = facts_of(document)
    listed = step_lists.step_list(found)
    assert len(listed) > STEPS_SHOWN + 5
    late = listed[-3]
    document["schema_version"] = "1.2"
    document["labels"] = [{"name": "mistake_step", "value": 1, "kind": "gold", "source": "t",
                           "event": late.event}]
    found = facts_of(document)
    block = StepList(step_lists.step_list(found))
    shown = block.visible()
    assert shown[:STEPS_SHOWN] == [True] * STEPS_SHOWN
    n = len(shown)
    assert shown[n - 4:n - 1] == [True, True, True]  # the labelled step and its neighbours
    assert not any(shown[STEPS_SHOWN:n - 4]) and not shown[-1]
    markup = block._repr_html_()
    assert f"Show steps {STEPS_SHOWN + 1} to {n - 4}" in markup
    assert f"Show step {n}" in markup
    assert markup.count('class="masrl-step masrl-labelled"') == 1
    assert re.search(rf"Step {n - 2}</span> <code>[^<]+</code>", markup)


def test_an_empty_text_is_said_to_be_empty():
    document = hostile_content_trace()
    document["events"][1]["content"] = {"text": ""}
    markup = StepList(step_lists.step_list(facts_of(document)))._repr_html_()
    assert "Its text is empty." in markup and '<details class="masrl-said">' not in markup


def test_a_long_run_lists_its_first_steps_and_every_labelled_one():
    document = swarm_trace([6] * 4, trace_id="long")
    found = facts_of(document)
    order = [found.run.trace.events.ids[i] for i in found.run.timeline.tolist()]
    document["schema_version"] = "1.2"
    document["labels"] = [{"name": "mistake_step", "value": 1, "kind": "gold", "source": "t",
                           "event": order[-5]}]
    found = facts_of(document)
    listed = step_lists.step_list(found, limit=10)
    n = len(order)
    assert [s.number for s in listed] == [*range(1, 11), n - 5, n - 4, n - 3]
    assert [s.event for s in listed] == [order[k - 1] for k in (*range(1, 11), n - 5, n - 4,
                                                                 n - 3)]
    assert [bool(s.labels) for s in listed].count(True) == 1 and listed[-2].labels
    assert len(step_lists.step_list(found)) == n  # under the page's limit: every step
