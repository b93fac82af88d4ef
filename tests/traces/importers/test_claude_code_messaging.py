"""The readers of messages between agents (claude_code.messaging): envelopes and task
notifications are found by a scan whose time is linear in the text, with what a plain pattern
finds (held to it on texts made of the tags' pieces), and a hostile text of openings without
closings is read in one pass (it took time in its square: 47 s for 560 KB)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from masrl.traces.importers.sessions.claude_code import messaging

# the plain patterns the scans replaced: right, but slow on texts of unclosed openings
ENVELOPE = re.compile(r'<teammate-message\s+teammate_id="([^"]*)"[^>]*>(.*?)</teammate-message>',
                      re.S)
NOTIFICATION = re.compile(r"\A\s*<task-notification>.*?<task-id>([^<]+)</task-id>"
                          r".*</task-notification>", re.S)

PIECES = ['<teammate-message teammate_id="a">', '<teammate-message teammate_id="',
          '<teammate-message  teammate_id="b" color="x">',
          "</teammate-message>", "<teammate-message", ' teammate_id="', "hello", "\n", " ", "<",
          ">", '"', messaging.RELAY_LINE, "<task-notification>", "</task-notification>",
          "<task-id>", "</task-id>", "t1", "<status>done</status>"]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


def envelopes_by_pattern(text: str):
    found = [(m.group(1), m.group(2).strip("\n")) for m in ENVELOPE.finditer(text)]
    if not found:
        return None
    return found, ENVELOPE.sub("", text).replace(messaging.RELAY_LINE, "").strip()


@settings(max_examples=600, deadline=None)
@given(texts)
def test_envelopes_are_what_the_pattern_finds(text):
    assert messaging.envelopes(text) == envelopes_by_pattern(text)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_the_task_id_is_what_the_pattern_finds(text):
    match = NOTIFICATION.match(text)
    assert messaging.notified(text) == (match.group(1).strip() if match else None)


def test_a_text_of_unclosed_openings_is_read_in_one_pass():
    # 200,000 openings (7 MB): the pattern would try each against the rest of the text
    opening = '<teammate-message teammate_id="a">'
    opened = opening * 200_000
    assert messaging.envelopes(opened) is None
    assert messaging.envelopes(opened + "</teammate-message>") == (
        [("a", opened[len(opening):])], "")
    unended = '<teammate-message teammate_id="a"' * 200_000  # no tag ever ends
    assert messaging.envelopes(unended) is None
    assert messaging.envelopes('<teammate-message teammate_id="a>b" x>hi</teammate-message>') \
        == ([("a>b", "hi")], "")
    noted = "<task-notification>" + "<task-id>x" * 200_000 + "</task-id>"
    assert messaging.notified(noted) is None
    assert messaging.notified(noted + "</task-notification>") == "x"
