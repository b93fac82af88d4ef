"""Import a Who&When failure log (Magentic-One or CaptainAgent) as an orchestration trace.

Source: one JSON file of the Who&When benchmark (Zhang et al., 2025) with a ``history`` list of
``{role, content}`` records (Magentic-One, the *Hand-Crafted* subset) or ``{role, name, content}``
records (CaptainAgent/AG2 group chats, the *Algorithm-Generated* subset), the gold labels
``mistake_agent`` / ``mistake_step`` / ``mistake_reason``, and ``is_correct`` (spelled
``is_corrected`` in the hand-crafted files). The subset is recognised from the records: with a
``name`` on every record it is a CaptainAgent chat, with none it is Magentic-One; a mix is an
error.

What becomes an event (one event per history record ``k``, id ``h<k>``, ``x_source``
``history[k]``, ``content_ref`` the hash of the record's content):

* Magentic-One, by ``role``:

  - ``human`` -> ``message`` from ``human`` (role ``human``) to ``Orchestrator`` (the task);
  - ``Orchestrator (thought)`` -> ``orchestrator_decision`` by ``Orchestrator``, sub-decision left
    unspecified (the ledger update: plan, progress, choice of the next speaker);
  - ``Orchestrator (-> X)`` -> ``orchestrator_decision`` with ``decision`` ``delegate`` and
    ``to`` X (the instruction that hands X its next task);
  - ``Orchestrator (termination condition)`` -> ``orchestrator_decision`` with ``decision``
    ``stop``;
  - any other role X (``WebSurfer``, ``FileSurfer``, ``Assistant``, ``ComputerTerminal``) ->
    ``message`` from X to ``Orchestrator`` (its report);
  - a role with any other parenthesised suffix is an error (an unknown record type).

  The team is fixed from the start, so there are no ``spawn`` or ``return`` events.

* CaptainAgent: every record -> ``message`` by its ``name``, without ``to`` (the group chat
  broadcasts to every member). Agents with an entry in ``system_prompt`` get role ``expert``.
  The group-chat manager that picks each next speaker is not in the log, so the topology is
  recorded as ``unknown``.

What becomes an edge: the chat is strictly sequential and every speaker sees the whole history,
so record ``k`` depends on record ``k - 1``. That edge is a ``message`` edge when record ``k - 1``
is addressed to record ``k``'s agent (a delegation to it, a report to the Orchestrator, the task
to the Orchestrator, or in a group chat any message from another member), ``causal`` when the
same agent acts twice in a row, and ``temporal`` otherwise. In Magentic-One a delegation to X
is also joined, by a ``message`` edge with mode ``blocking``, to X's next record when a ledger
update comes in between. The longest dependency path therefore holds every record: these runs
have no parallelism to find, and the importer does not invent any.

Times: the logs record order only. Every event has ``t = 0``; order is carried by the edges (and
``x_source``), so wall-clock and busy times are 0. Costs: no tokens or money are recorded;
``costs.tokens`` and ``costs.wall_clock_s`` are required by the schema and are written as 0,
which here means *not recorded*. ``costs.messages`` counts the ``message`` events.

Labels and reward: the event of history record ``mistake_step`` (0-based) carries
``x_mistake_step: true``, ``x_mistake_agent`` (the label's agent, as written) and
``x_mistake_reason_ref`` (hash of the reason text). ``rewards.team`` is 1 when ``is_correct``
(``is_corrected``) is true, else 0 (every Who&When run is a failed one).
``trace_id`` is ``who-and-when:<system>:<file stem>``, ``task_id`` the ``question_ID``.

What is lost: the message texts (hashed), the question, ground truth and mistake reason
(hashed or left out), the CaptainAgent system prompts, the ``level``, and the ledger's structured
fields (the next-speaker choice is kept only through the delegation that follows it).

Errors (exit 1): a file that is not JSON; no ``history`` list or an empty one; a record that is
not an object or lacks a string ``role`` / ``content`` (or ``name`` in a group chat); a mix of
records with and without ``name``; an unknown Magentic-One role suffix; a ``mistake_step`` that
is not an integer inside the history.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from masrl.traces.importers.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_json,
)

FORMAT = "who-and-when"
ORCHESTRATOR = "Orchestrator"
HUMAN = "human"
MAGENTIC_ONE = "magentic-one"
CAPTAIN_AGENT = "captain-agent"
SYSTEMS = {MAGENTIC_ONE: "Magentic-One", CAPTAIN_AGENT: "CaptainAgent (AG2 group chat)"}
TOPOLOGY = {MAGENTIC_ONE: "centralized", CAPTAIN_AGENT: "unknown"}
ROLE_PATTERN = re.compile(r"^(?P<agent>[^()]+?)\s*\((?P<what>[^()]*)\)$")


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Who&When log (see the module docstring for the mapping)."""
    path = Path(path)
    document = read_json(path)
    if not isinstance(document, dict):
        raise SourceError(path, None, "expected a JSON object with a 'history' list")
    history = document.get("history")
    if not isinstance(history, list) or not history:
        raise SourceError(path, "history", "expected a non-empty list of chat records")
    system = _system(path, history)
    build = TraceBuilder()
    pending: dict[str, str] = {}  # Magentic-One: agent -> id of the delegation awaiting it
    previous: dict | None = None
    for k, record in enumerate(history):
        event = _event(path, k, record, system, document)
        build.event(**event)
        if previous is not None:
            build.edge(previous["id"], event["id"], _edge_type(previous, event, system),
                       "blocking" if pending.get(event["agent"]) == previous["id"] else None)
        delegated = pending.pop(event["agent"], None)
        if delegated is not None and delegated != previous["id"]:
            build.edge(delegated, event["id"], "message", "blocking")
        if event.get("decision") == "delegate":
            pending[event["to"]] = event["id"]
        previous = event
    _label(path, document, build, len(history))
    correct = document.get("is_correct", document.get("is_corrected"))
    trace = build.document(
        trace_id=f"who-and-when:{system}:{path.stem}",
        task_id=str(document.get("question_ID") or path.stem),
        system=SYSTEMS[system],
        topology=TOPOLOGY[system],
        rewards={} if correct is None else {"team": 1.0 if correct else 0.0},
        costs={"tokens": 0, "wall_clock_s": 0, "messages": build.count("message")},
    )
    return ImportResult(FORMAT, str(path), trace, files=[str(path)], skipped=Counter(),
                        repairs=Counter()).with_provenance()


def _system(path: Path, history: list) -> str:
    named = [isinstance(r, dict) and "name" in r for r in history]
    if all(named):
        return CAPTAIN_AGENT
    if not any(named):
        return MAGENTIC_ONE
    k = named.index(not named[0])
    raise SourceError(path, f"history[{k}]", "records mix the group-chat form (with 'name') and "
                      "the Magentic-One form (without)")


def _event(path: Path, k: int, record, system: str, document: dict) -> dict:
    where = f"history[{k}]"
    if not isinstance(record, dict):
        raise SourceError(path, where, "a chat record must be a JSON object")
    for key in ("role", "content") + (("name",) if system == CAPTAIN_AGENT else ()):
        if not isinstance(record.get(key), str):
            raise SourceError(path, where, f"'{key}' must be a string")
    base = {"id": f"h{k}", "t": 0, "content_ref": content_ref(record["content"]),
            "x_source": where}
    if system == CAPTAIN_AGENT:
        name = record["name"]
        prompts = document.get("system_prompt")
        role = "expert" if isinstance(prompts, dict) and name in prompts else None
        return {**base, "type": "message", "agent": name, "role": role}
    role = record["role"].strip()
    match = ROLE_PATTERN.match(role)
    if match is None:
        if role == HUMAN:
            return {**base, "type": "message", "agent": HUMAN, "role": HUMAN, "to": ORCHESTRATOR}
        return {**base, "type": "message", "agent": role, "to": ORCHESTRATOR}
    agent, what = match["agent"].strip(), match["what"].strip()
    if what == "thought":
        return {**base, "type": "orchestrator_decision", "agent": agent}
    if what == "termination condition":
        return {**base, "type": "orchestrator_decision", "agent": agent, "decision": "stop"}
    if what.startswith("->") and what[2:].strip():
        return {**base, "type": "orchestrator_decision", "agent": agent, "decision": "delegate",
                "to": what[2:].strip()}
    raise SourceError(path, where, f"unknown record type: role {role!r} (expected 'X', "
                      "'X (thought)', 'X (-> Y)' or 'X (termination condition)')")


def _edge_type(previous: dict, event: dict, system: str) -> str:
    if previous["agent"] == event["agent"]:
        return "causal"
    if system == CAPTAIN_AGENT or previous.get("to") == event["agent"]:
        return "message"
    return "temporal"


def _label(path: Path, document: dict, build: TraceBuilder, length: int) -> None:
    if "mistake_step" not in document:
        return
    step = document["mistake_step"]
    try:
        k = int(step)
    except (TypeError, ValueError):
        raise SourceError(path, "mistake_step", f"{step!r} is not an integer") from None
    if not 0 <= k < length:
        raise SourceError(path, "mistake_step", f"{k} is outside the history (0..{length - 1})")
    event = build.by_id[f"h{k}"]
    event["x_mistake_step"] = True
    if isinstance(document.get("mistake_agent"), str):
        event["x_mistake_agent"] = document["mistake_agent"]
    if isinstance(document.get("mistake_reason"), str):
        event["x_mistake_reason_ref"] = content_ref(document["mistake_reason"])


def sniff(sample) -> str | None:
    """A JSON object with a ``history`` list of chat records (see
    :mod:`masrl.traces.importers.detect`)."""
    history = sample.document.get("history") if "history" in sample.keys else None
    if isinstance(history, list) and history and all(isinstance(r, dict) and "role" in r
                                                     for r in history[:5]):
        return "a 'history' list of chat records with roles"
    return None
