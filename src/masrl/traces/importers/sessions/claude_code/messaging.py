"""Messages between the agents of a session: what Claude Code writes when one agent talks to
another rather than to a tool or the person.

Three shapes are read (Claude Code 2.1.x, agent teams and later):

- a ``SendMessage`` tool call, by the sender: ``{"type", "recipient", "content", "summary"}``
  (agent teams) or ``{"to", "message", "summary"}`` (later; ``to`` may be the agent id of a
  finished sub-agent, which the message resumes);
- a user record, in the receiver's log, whose text holds ``<teammate-message teammate_id="NAME"
  ...>BODY</teammate-message>`` envelopes (sometimes after a line saying another session sent
  it); a body may be a protocol notice in JSON (``{"type": "idle_notification", ...}``);
- a ``<task-notification>`` user record (or queued attachment) naming the background task
  that finished: a sub-agent (``<task-id>``, its return), or a background shell command or
  workflow (``<tool-use-id>``, the call it answers); the harness's notice, never the person's.
"""

from __future__ import annotations

import json
import re

MESSAGE_TOOLS = ("SendMessage",)
LEAD = "team-lead"  # the name teammates give the agent that created their team
BROADCAST = "*"  # a recipient that means every teammate
# An envelope: an opening tag naming its sender, a body, the first closing tag after it. Found by
# a scan, not by one pattern with a lazy body: a pattern tries each opening against the rest of
# the text, so a text of openings without closings (or of unended tags) took time in its square
# (a 560 KB user record: 47 s).
HEAD, CLOSING = "<teammate-message", "</teammate-message>"
SENDER = re.compile(r'\s+teammate_id="')  # after the head; the id runs to the next quote
RELAY_LINE = "Another Claude session sent a message:"  # a line before some envelopes
NOTICE_OPEN, NOTICE_CLOSE = "<task-notification>", "</task-notification>"
# Protocol notices in an envelope: the ones that give no event, and why (counted by kind).
SKIPPED_NOTICES = {
    "idle_notification": "teammate message: idle_notification (a protocol notice: the "
                         "teammate's turn ended, no content)",
    "teammate_terminated": "teammate message: teammate_terminated (a protocol notice; the "
                           "teammate's end is the despawn of its shutdown_approved)",
}
ENDING_NOTICES = ("shutdown_approved",)  # the teammate agrees to stop and ends: a despawn


def teammate_spawn(params: dict) -> str | None:
    """The name a Task/Agent call gives the teammate it spawns (a call with ``team_name`` and
    ``name``), else None (an ordinary sub-agent)."""
    name, team = params.get("name"), params.get("team_name")
    return name if isinstance(name, str) and name and isinstance(team, str) and team else None


def sent(params: dict) -> tuple[str | None, object, str | None] | None:
    """(recipient, content, message type) of a ``SendMessage`` call's input, else None when
    the input names no recipient and is no broadcast (then it stays a tool call)."""
    kind = params.get("type") if isinstance(params.get("type"), str) else None
    to = params.get("to", params.get("recipient"))
    content = params.get("message", params.get("content"))
    if kind == "broadcast" or to == BROADCAST:
        return None, content, "broadcast"
    if not isinstance(to, str) or not to:
        return None
    return to, content, kind


def envelopes(text: str) -> tuple[list[tuple[str, str]], str] | None:
    """The (sender, body) of each ``<teammate-message>`` envelope of ``text`` and what is left
    of the text outside them (the relay line removed), or None when it holds none."""
    found, outside, at = [], [], 0
    while (opening := _opening(text, at)) is not None:
        start, end, sender = opening
        close = text.find(CLOSING, end)
        if close < 0:  # no closing after this opening, hence none after a later one
            break
        found.append((sender, text[end:close].strip("\n")))
        outside.append(text[at:start])
        at = close + len(CLOSING)
    if not found:
        return None
    rest = ("".join(outside) + text[at:]).replace(RELAY_LINE, "").strip()
    return found, rest


def _opening(text: str, at: int) -> tuple[int, int, str] | None:
    """(start, end, sender) of the first opening tag at or after ``at``: the head, then
    ``teammate_id="ID"`` and anything up to the first ``>`` after the id's closing quote."""
    while (start := text.find(HEAD, at)) >= 0:
        sender = SENDER.match(text, start + len(HEAD))
        if sender is not None:
            quote = text.find('"', sender.end())
            end = text.find(">", quote + 1) if quote >= 0 else -1
            if end < 0:  # no later opening can end either
                return None
            return start, end + 1, text[sender.end():quote]
        at = start + 1
    return None


def notice(body: str) -> str | None:
    """The ``type`` of a protocol notice (a JSON object with a string ``type``), else None."""
    if not body.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def notified(text: str, field: str = "task-id") -> str | None:
    """The ``<task-id>`` (or another field, such as ``tool-use-id``) of a
    ``<task-notification>`` record's text (one that opens with the tag and closes it after the
    field), else None: the first such field that holds text without a tag, found by a scan
    whose time is linear in the text."""
    body = text.lstrip()
    if not body.startswith(NOTICE_OPEN):
        return None
    opening, closing = f"<{field}>", f"</{field}>"
    last = body.rfind(NOTICE_CLOSE)
    at = body.find(opening, len(NOTICE_OPEN))
    while 0 <= at < last:
        start = at + len(opening)
        tag = body.find("<", start)  # the field runs to the next tag (at most the last
        if tag > start and body.startswith(closing, tag):  # closing), which must close it
            return body[start:tag].strip()
        at = body.find(opening, tag)
    return None


def is_notification(text: str) -> bool:
    """Whether a user record's text is a ``<task-notification>``: the harness telling an agent
    that a background task (a sub-agent, a shell command, a workflow) finished, never the
    person's words."""
    return text.lstrip().startswith(NOTICE_OPEN)
