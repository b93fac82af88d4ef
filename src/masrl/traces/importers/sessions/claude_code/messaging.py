"""Messages between the agents of a session: what Claude Code writes when one agent talks to
another rather than to a tool or the person.

Three shapes are read (Claude Code 2.1.x, agent teams and later):

- a ``SendMessage`` tool call, by the sender: ``{"type", "recipient", "content", "summary"}``
  (agent teams) or ``{"to", "message", "summary"}`` (later; ``to`` may be the agent id of a
  finished sub-agent, which the message resumes);
- a user record, in the receiver's log, whose text holds ``<teammate-message teammate_id="NAME"
  ...>BODY</teammate-message>`` envelopes (sometimes after a line saying another session sent
  it); a body may be a protocol notice in JSON (``{"type": "idle_notification", ...}``);
- a ``<task-notification>`` user record naming the sub-agent (``<task-id>``) that finished
  again after a resume.
"""

from __future__ import annotations

import json
import re

MESSAGE_TOOLS = ("SendMessage",)
LEAD = "team-lead"  # the name teammates give the agent that created their team
BROADCAST = "*"  # a recipient that means every teammate
ENVELOPE = re.compile(r'<teammate-message\s+teammate_id="([^"]*)"[^>]*>(.*?)</teammate-message>',
                      re.S)
RELAY_LINE = "Another Claude session sent a message:"  # a line before some envelopes
NOTIFICATION = re.compile(r"\A\s*<task-notification>.*?<task-id>([^<]+)</task-id>"
                          r".*</task-notification>", re.S)
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
    found = [(m.group(1), m.group(2).strip("\n")) for m in ENVELOPE.finditer(text)]
    if not found:
        return None
    rest = ENVELOPE.sub("", text).replace(RELAY_LINE, "").strip()
    return found, rest


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


def notified(text: str) -> str | None:
    """The ``<task-id>`` of a ``<task-notification>`` record's text, else None."""
    match = NOTIFICATION.match(text)
    return match.group(1).strip() if match else None
