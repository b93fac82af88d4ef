"""Import a Who&When failure log (Magentic-One or CaptainAgent) as an orchestration trace.

Source: one JSON file of the Who&When benchmark (Zhang et al., 2025) with a ``history`` list of
chat records, the gold labels ``mistake_agent`` / ``mistake_step`` / ``mistake_reason``, and the
verdict ``is_correct`` (spelled ``is_corrected`` in the hand-crafted files). Three shapes of
``history`` are recognised, from the records themselves, and the trace says which one and why
(``provenance.recognised``: ``system``, ``shape`` and the ``evidence``; also in the import
summary). Nothing is guessed silently: a file that fits no shape, or two, is an error.

* ``roles`` (Magentic-One, Who&When's *Hand-Crafted* subset): no record has a ``name``; each is
  ``{role, content}`` and the ``role`` names the agent and, for the orchestrator, the kind of
  record (``Orchestrator (thought)``, ``Orchestrator (-> WebSurfer)``...).
* ``autogen-0.4`` (Magentic-One run by AutoGen 0.4's ``MagenticOneGroupChat``, written in the
  Who&When shape): every record has a ``name`` (the message's ``source``) and some record comes
  from ``MagenticOneOrchestrator``, the name AutoGen gives the Magentic-One orchestrator; records
  may carry ``created_at`` times, and the agents' prompts are in ``system_prompts`` (plural).
* ``ag2-group-chat`` (CaptainAgent, Who&When's *Algorithm-Generated* subset): every record is
  ``{role, name, content}`` and none comes from ``MagenticOneOrchestrator``; the experts'
  prompts are in ``system_prompt`` (singular).

A file whose records mix the forms with and without ``name`` is an error, and so is a
group-chat file with ``system_prompts`` (the AutoGen shape) but no record from the orchestrator.

``recognised.content`` says how the records hold their messages: ``text``, or
``autogen-message-reprs`` when the ``autogen-0.4`` records are the ``str()`` of AutoGen
messages (``TextMessage: id='...' source='...' models_usage=RequestUsage(prompt_tokens=N,
completion_tokens=M) metadata={...} created_at=datetime.datetime(...) content=...``, as the
runner of mas-failure-attribution writes them). Then the importer reads, from each repr, the
message id (``x_message_id``), the model usage of the message (``x_usage``, ``tokens``, and
``x_model_call``: the message carries the model call that produced it) and its creation time
(the event's ``t``; every repr needs one, else the trace has no times and each record without
one is a counted part); a record that is the ``str()`` of the run's ``TaskResult`` (it repeats
the messages) or any other text among the reprs (the runner's closing note) gives no event and
is skipped, counted. Those skipped records are the last ones in the logs seen; the decisions are
read from the records that give events.

The unit of account (:mod:`.accounting`) is the ``history entry``: every record is read, and
mapped or skipped as above; the usage the reprs state is the usage the events carry.

What becomes an event (one event per history record ``k``, id ``h<k>``, ``x_source``
``history[k]``, ``content_ref`` the hash of the record's content):

* Magentic-One, ``roles`` shape, by ``role``:

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

* Magentic-One, ``autogen-0.4`` shape, by ``name``:

  - ``user`` -> ``message`` from ``user`` (role ``human``) to ``MagenticOneOrchestrator``;
  - ``MagenticOneOrchestrator`` -> ``orchestrator_decision``: ``delegate`` ``to`` X when the next
    record is X's (AutoGen broadcasts the instruction, then asks the chosen speaker to answer, so
    the next speaker is the one the orchestrator chose); ``stop`` when it is the last record (the
    final answer); unspecified when the orchestrator speaks again next (the task ledger: facts
    and plan);
  - any other name X -> ``message`` from X to ``MagenticOneOrchestrator`` (its report).

  In both Magentic-One shapes the team is fixed from the start: no ``spawn`` or ``return``.

* CaptainAgent: every record -> ``message`` by its ``name``, without ``to`` (the group chat
  broadcasts to every member). Agents with an entry in ``system_prompt`` get role ``expert``.
  The group-chat manager that picks each next speaker is not in the log, so the topology is
  recorded as ``unknown``.

A record whose text begins with ``exitcode: N`` (the report of AG2's code executor) also carries
``x_exit_code: N``, so a failed execution (N other than 0) is visible without the text.

What becomes an edge: the chat is strictly sequential and every speaker sees the whole history,
so record ``k`` depends on record ``k - 1``. That edge is a ``message`` edge when record ``k - 1``
is addressed to record ``k``'s agent (a delegation to it, a report to the orchestrator, the task
to the orchestrator, or in a group chat any message from another member), ``causal`` when the
same agent acts twice in a row, and ``temporal`` otherwise. In Magentic-One a delegation to X
is also joined, by a ``message`` edge with mode ``blocking``, to X's next record when a ledger
update comes in between. The longest dependency path therefore holds every record: these runs
have no parallelism to find, and the importer does not invent any.

Times: when every record has ``created_at`` (an ISO 8601 time with a UTC offset), or its repr
has a UTC ``created_at``, ``t`` is the
seconds from the earliest one (computed from whole microseconds) and ``costs.wall_clock_s`` the
latest ``t``; a record earlier than the one it follows has its ``t`` raised to that record's and
is counted as a repair. When no record has a time (the published Who&When logs record order
only), every event has ``t = 0`` and order is carried by the edges (and ``x_source``), so
wall-clock and busy times are 0. A time on some records but not all is an error. Costs: the
published logs record no tokens or money; ``costs.tokens`` is required by the schema and written
as the tokens the events carry, 0 when none are recorded (*not recorded*).
``costs.messages`` counts the ``message`` events.

Labels and reward: the event of history record ``mistake_step`` (0-based) carries
``x_mistake_step: true``, ``x_mistake_agent`` (the label's agent, as written) and
``x_mistake_reason_ref`` (hash of the reason text). ``mistake_step`` is an integer or a string
of the ASCII digits 0-9 (the published logs write ``"2"``); anything else (``2.5``, ``"2.5"``,
``"٣"``, ``true``, ``" 2"``) is an error rather than a label on some other step.
``rewards.team`` is 1 when the verdict ``is_correct`` (``is_corrected``) is ``true``, 0 when it
is ``false`` (every Who&When run is a failed one); a verdict that is not a JSON boolean (the
string ``"False"``, say) is an error, as are two verdicts that disagree.
``trace_id`` is ``who-and-when:<system>:<file stem>``, ``task_id`` the ``question_ID``.

What is lost: the message texts (hashed), the question, ground truth and mistake reason
(hashed or left out), the system prompts, the ``level``, the records' ``role`` in the named
shapes (``user``/``assistant``: the ``name`` says who speaks), and the ledger's structured fields
(the next-speaker choice is kept only through the delegation that follows it).

Errors (exit 1), each naming the place and what was found there: a file that is not JSON or not
an object; no ``history`` key, or a ``history`` that is not a non-empty list; a record that is not
an object; a ``role`` that is not a non-empty string, a ``content`` that is not a string (or, in
the named shapes, a ``name`` that is not a non-empty string); the shape conflicts above; an
unknown Magentic-One role suffix; a ``created_at`` that is not such a time, or on some records
only; a ``question_ID``, ``mistake_agent`` or ``mistake_reason`` that is not a string; a
``system_prompt`` / ``system_prompts`` that is not an object; a verdict or ``mistake_step`` as
above, or a step outside the history.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    read_json,
)
from masrl.traces.importers._kit.detect import Sample

FORMAT = "who-and-when"
ORCHESTRATOR = "Orchestrator"
AUTOGEN_ORCHESTRATOR = "MagenticOneOrchestrator"
AUTOGEN_USER = "user"
HUMAN = "human"
MAGENTIC_ONE = "magentic-one"
CAPTAIN_AGENT = "captain-agent"
ROLES, AUTOGEN, GROUP_CHAT = "roles", "autogen-0.4", "ag2-group-chat"
SYSTEMS = {MAGENTIC_ONE: "Magentic-One", CAPTAIN_AGENT: "CaptainAgent (AG2 group chat)"}
TOPOLOGY = {MAGENTIC_ONE: "centralized", CAPTAIN_AGENT: "unknown"}
ROLE_PATTERN = re.compile(r"^(?P<agent>[^()]+?)\s*\((?P<what>[^()]*)\)$")
STEP_PATTERN = re.compile(r"[0-9]+")
EXIT_PATTERN = re.compile(r"\Aexitcode: ([0-9]+)")
VERDICTS = ("is_correct", "is_corrected")
TIME_RAISED = "event time raised to the time of an event it depends on"
UNIT = "history entry"
TEXT, REPRS = "text", "autogen-message-reprs"
REPR = re.compile(r"\A(?P<type>[A-Z][A-Za-z0-9_]*): (?:id='(?P<id>[^']*)' )?source='(?P<source>"
                  r"[^']*)' models_usage=(?:None|RequestUsage\(prompt_tokens=(?P<prompt>[0-9]+), "
                  r"completion_tokens=(?P<completion>[0-9]+)\))")
CREATED = re.compile(r" created_at=datetime\.datetime\((?P<parts>[0-9, ]+), "
                     r"tzinfo=datetime\.timezone\.utc\)")
TASK_RESULT = "task result: repeats the run's messages"
RUNNER_NOTE = "runner note: not an AutoGen message of the run"
REPR_NO_TIME = "message repr without a UTC created_at: the trace has no times"
MICROSECOND = timedelta(microseconds=1)


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Who&When log (see the module docstring for the mapping)."""
    path = Path(path)
    document = read_json(path)
    if not isinstance(document, dict):
        raise SourceError(path, None, "expected a JSON object with a 'history' list, found "
                          f"{found(document)}")
    if "history" not in document:
        raise SourceError(path, None, "no 'history' key: a Who&When log holds its chat records "
                          f"in 'history' (this file has keys: {', '.join(sorted(document))})")
    history = document["history"]
    if not isinstance(history, list) or not history:
        what = "an empty list" if history == [] else found(history)
        raise SourceError(path, "history", f"must be a non-empty list of chat records, found "
                          f"{what}")
    _check_fields(path, document)
    for k, record in enumerate(history):
        if not isinstance(record, dict):
            raise SourceError(path, f"history[{k}]", "a chat record must be a JSON object, "
                              f"found {found(record)}")
    recognised = recognise(path, document)
    system, shape = recognised["system"], recognised["shape"]
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter(), recognised=recognised)
    account = result.account
    account.unit = UNIT
    reprs = _reprs(path, history) if recognised["content"] == REPRS else {}
    kept = []  # history indices that give events
    for k, record in enumerate(history):
        account.read()
        content = _text(path, f"history[{k}].content", record.get("content", _MISSING))
        if reprs and k not in reprs:
            reason = TASK_RESULT if content.startswith("TaskResult:") else RUNNER_NOTE
            account.skip(reason)
            continue
        usage = reprs[k].usage if k in reprs else None
        if usage is not None:
            account.state_usage(tokens_in=usage[0], tokens_out=usage[1])
        account.map()
        kept.append(k)
    times, origin = _times(path, history, kept, reprs, account)
    result.time_origin = origin
    build = TraceBuilder()
    pending: dict[str, str] = {}  # Magentic-One: agent -> id of the delegation awaiting it
    previous: dict | None = None
    names = [history[k].get("name") for k in kept]
    for position, k in enumerate(kept):
        event = _event(path, k, history, shape, document, names, position)
        event["t"] = times[k]
        if k in reprs:
            event.update(_repr_fields(reprs[k], k))
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
    raised = build.raise_times()
    if raised:
        result.repairs[TIME_RAISED] += raised
    _label(path, document, build, len(history))
    correct = _verdict(path, document)
    result.trace = build.document(
        trace_id=f"who-and-when:{system}:{path.stem}",
        task_id=document.get("question_ID") or path.stem,
        system=SYSTEMS[system],
        topology=TOPOLOGY[system],
        rewards={} if correct is None else {"team": 1.0 if correct else 0.0},
        costs={"tokens": sum(e.get("tokens", 0) for e in build.events),
               "wall_clock_s": max(e["t"] for e in build.events),
               "messages": build.count("message")},
    )
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


# ---------------------------------------------------------------------------------- recognising

def recognise(path: Path, document: dict) -> dict:
    """``{system, shape, evidence}``: which system wrote the log, in which shape, and the
    evidence, from the records (see the module docstring); a :class:`SourceError` when the
    records fit no shape or contradict each other."""
    history = document["history"]
    named = ["name" in r for r in history]
    if not any(named):
        return {"system": MAGENTIC_ONE, "shape": ROLES, "content": TEXT,
                "evidence": "no record has a 'name': the agent is read from 'role', as in "
                            "Who&When's hand-crafted Magentic-One logs"}
    if not all(named):
        k = named.index(not named[0])
        raise SourceError(path, f"history[{k}]", "records mix the group-chat form (with 'name') "
                          "and the Magentic-One form (without)")
    for k, record in enumerate(history):
        _text(path, f"history[{k}].name", record.get("name", _MISSING), empty=False)
    first = next((k for k, r in enumerate(history) if r["name"] == AUTOGEN_ORCHESTRATOR), None)
    if first is not None:
        evidence = (f"every record has a 'name' and {AUTOGEN_ORCHESTRATOR!r} (the orchestrator "
                    f"of AutoGen 0.4's MagenticOneGroupChat) speaks, first in history[{first}]")
        written = next((k for k, r in enumerate(history)
                        if isinstance(r.get("content"), str) and REPR.match(r["content"])), None)
        if written is None:
            return {"system": MAGENTIC_ONE, "shape": AUTOGEN, "content": TEXT,
                    "evidence": evidence}
        return {"system": MAGENTIC_ONE, "shape": AUTOGEN, "content": REPRS,
                "evidence": f"{evidence}; the contents are AutoGen messages written with str() "
                            f"('<Type>: id=... source=... models_usage=...'), first in "
                            f"history[{written}]"}
    if "system_prompts" in document:
        raise SourceError(path, "system_prompts", "the AutoGen 0.4 Magentic-One shape, but no "
                          f"record is from {AUTOGEN_ORCHESTRATOR!r}: cannot tell which system "
                          "wrote this log")
    return {"system": CAPTAIN_AGENT, "shape": GROUP_CHAT, "content": TEXT,
            "evidence": f"every record has a 'name' and none is from {AUTOGEN_ORCHESTRATOR!r}: "
                        "an AG2 group chat, as in Who&When's algorithm-generated CaptainAgent "
                        "logs"}


# ---------------------------------------------------------------------------------- records

def _event(path: Path, k: int, history: list, shape: str, document: dict, names: list,
           position: int) -> dict:
    where = f"history[{k}]"
    record = history[k]
    role = _text(path, f"{where}.role", record.get("role", _MISSING), empty=False)
    content = _text(path, f"{where}.content", record.get("content", _MISSING))
    base = {"id": f"h{k}", "t": 0, "content_ref": content_ref(content), "x_source": where}
    exit_code = EXIT_PATTERN.match(content)
    if exit_code:
        base["x_exit_code"] = int(exit_code.group(1))
    if shape == GROUP_CHAT:
        name = record["name"]
        prompts = document.get("system_prompt")
        return {**base, "type": "message", "agent": name,
                "role": "expert" if prompts is not None and name in prompts else None}
    if shape == AUTOGEN:
        return _autogen_event(base, names, position)
    role = role.strip()
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


def _autogen_event(base: dict, names: list, position: int) -> dict:
    """The event of the record at ``position`` among the records that give events, whose
    speakers are ``names`` (the next speaker tells what an orchestrator message decided)."""
    name = names[position]
    if name == AUTOGEN_USER:
        return {**base, "type": "message", "agent": name, "role": HUMAN,
                "to": AUTOGEN_ORCHESTRATOR}
    if name != AUTOGEN_ORCHESTRATOR:
        return {**base, "type": "message", "agent": name, "to": AUTOGEN_ORCHESTRATOR}
    event = {**base, "type": "orchestrator_decision", "agent": name}
    if position == len(names) - 1:
        return {**event, "decision": "stop"}
    following = names[position + 1]
    if following not in (AUTOGEN_ORCHESTRATOR, AUTOGEN_USER):
        return {**event, "decision": "delegate", "to": following}
    return event


def _edge_type(previous: dict, event: dict, system: str) -> str:
    if previous["agent"] == event["agent"]:
        return "causal"
    if system == CAPTAIN_AGENT or previous.get("to") == event["agent"]:
        return "message"
    return "temporal"


def _times(path: Path, history: list, kept: list[int], reprs: dict, account
           ) -> tuple[dict[int, float], str | None]:
    """Seconds from the earliest time of the records that give events (``created_at``, or the
    time inside an AutoGen message repr), all 0 when the records have none; and the
    ``time_origin`` (ISO 8601 UTC of t = 0) when they have times."""
    if reprs:
        stamps = {k: reprs[k].created_at for k in kept}
        missing = [k for k, stamp in stamps.items() if stamp is None]
        for _ in missing:
            account.skip_part(REPR_NO_TIME)
        if missing:
            return dict.fromkeys(kept, 0), None
        return _offsets(stamps)
    timed = ["created_at" in r for r in history]
    if not any(timed):
        return dict.fromkeys(kept, 0), None
    if not all(timed):
        k = timed.index(False)
        raise SourceError(path, f"history[{k}].created_at", "missing, while other records "
                          f"have one (history[{timed.index(True)}]): give every record a time "
                          "or none")
    stamps = {}
    for k, record in enumerate(history):
        value = record["created_at"]
        try:
            stamp = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            stamp = None
        if stamp is None or stamp.utcoffset() is None:
            raise SourceError(path, f"history[{k}].created_at", "must be an ISO 8601 time with "
                              "a UTC offset (e.g. 2025-03-01T10:00:00.000000Z), found "
                              f"{found(value)}")
        stamps[k] = stamp
    return _offsets({k: stamps[k] for k in kept})


def _offsets(stamps: dict[int, datetime]) -> tuple[dict[int, float], str]:
    earliest = min(stamps.values())
    origin = earliest.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {k: ((s - earliest) // MICROSECOND) / 1_000_000 for k, s in stamps.items()}, origin


# ------------------------------------------------------------------------- AutoGen message reprs

@dataclass(frozen=True)
class Written:
    """What the ``str()`` of an AutoGen message says before its content: its type, id,
    source, the model usage that produced it and its creation time."""

    type: str
    id: str | None
    source: str
    usage: tuple[int, int] | None  # prompt tokens, completion tokens
    created_at: datetime | None


def _reprs(path: Path, history: list) -> dict[int, Written]:
    """The records whose content is an AutoGen message written with ``str()``, by index."""
    found_reprs = {}
    for k, record in enumerate(history):
        content = record.get("content")
        match = REPR.match(content) if isinstance(content, str) else None
        if match is None:
            continue
        usage = None
        if match["prompt"] is not None:
            usage = (int(match["prompt"]), int(match["completion"]))
        when = CREATED.search(content, match.end())
        found_reprs[k] = Written(match["type"], match["id"], match["source"], usage,
                                 _repr_time(when))
    return found_reprs


def _repr_time(match: re.Match | None) -> datetime | None:
    """The UTC time of ``datetime.datetime(Y, M, D[, h[, m[, s[, us]]]], tzinfo=utc)``."""
    if match is None:
        return None
    parts = [int(p) for p in match["parts"].split(",")]
    if not 3 <= len(parts) <= 7:
        return None
    try:
        return datetime(*parts, tzinfo=UTC)
    except ValueError:
        return None


def _repr_fields(written: Written, k: int) -> dict:
    """The fields a message repr adds to its event: the message id and, when a model produced
    the message, its usage (the event carries that model call)."""
    fields = {"x_message_id": written.id}
    if written.usage is not None:
        prompt, completion = written.usage
        fields.update(tokens=prompt + completion,
                      x_usage={"input": prompt, "output": completion},
                      x_model_call=written.id or f"history[{k}]")
    return fields


# ------------------------------------------------------------------------------ run-level fields

def _check_fields(path: Path, document: dict) -> None:
    """The run-level fields the importer reads have the right types (module docstring)."""
    for key in ("question_ID", "mistake_agent", "mistake_reason"):
        if key in document:
            _text(path, key, document[key])
    for key in ("system_prompt", "system_prompts"):
        if key in document and not isinstance(document[key], dict):
            raise SourceError(path, key, "must be an object (agent name -> prompt), found "
                              f"{found(document[key])}")


def _verdict(path: Path, document: dict) -> bool | None:
    """``is_correct`` / ``is_corrected``: a JSON boolean, or ``None`` when neither is given."""
    given = {key: document[key] for key in VERDICTS if key in document}
    for key, value in given.items():
        if not isinstance(value, bool):
            raise SourceError(path, key, f"must be true or false, found {found(value)}")
    values = list(given.values())
    if len(set(values)) > 1:
        raise SourceError(path, VERDICTS[1], f"disagrees with {VERDICTS[0]!r} "
                          f"({str(values[1]).lower()} against {str(values[0]).lower()})")
    return values[0] if values else None


def step_index(value: Any) -> int | None:
    """A ``mistake_step`` as an index: an integer (not a boolean), or a string of the ASCII
    digits 0-9; ``None`` for anything else (``2.5``, ``"2.5"``, ``"٣"``, ``" 2"``, ``true``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    if isinstance(value, str) and STEP_PATTERN.fullmatch(value):
        return int(value)
    return None


def _label(path: Path, document: dict, build: TraceBuilder, length: int) -> None:
    if "mistake_step" not in document:
        return
    step = document["mistake_step"]
    k = step_index(step)
    if k is None:
        raise SourceError(path, "mistake_step", "must be a step index (an integer, or a string "
                          f"of the digits 0-9), found {found(step)}")
    if not k < length:
        raise SourceError(path, "mistake_step", f"{k} is outside the history (0..{length - 1})")
    event = build.by_id.get(f"h{k}")
    if event is None:
        raise SourceError(path, "mistake_step", f"{k} labels history[{k}], a record that gives "
                          "no event (a task result or a runner note)")
    event["x_mistake_step"] = True
    if "mistake_agent" in document:
        event["x_mistake_agent"] = document["mistake_agent"]
    if "mistake_reason" in document:
        event["x_mistake_reason_ref"] = content_ref(document["mistake_reason"])


# ---------------------------------------------------------------------------------- messages

_MISSING = object()


def _text(path: Path, where: str, value: Any, *, empty: bool = True) -> str:
    """``value`` when it is a string (non-empty unless ``empty``), else a :class:`SourceError`."""
    if isinstance(value, str) and (empty or value):
        return value
    wanted = "a string" if empty else "a non-empty string"
    raise SourceError(path, where, f"must be {wanted}, found {found(value)}")


def found(value: Any) -> str:
    """What was found, for an error message: the value itself for booleans, numbers and short
    strings (the texts of a log are never repeated), its kind otherwise."""
    if value is _MISSING:
        return "nothing (the key is missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        return f"{value!r} (a string)" if len(value) <= 40 else "a string"
    return "an array" if isinstance(value, list) else "an object"


def sniff(sample: Sample) -> str | None:
    """A JSON object with a ``history`` list of chat records (see
    :mod:`masrl.traces.importers._kit.detect`)."""
    history = sample.document.get("history") if "history" in sample.keys else None
    if isinstance(history, list) and history and all(isinstance(r, dict) and "role" in r
                                                     for r in history[:5]):
        return "a 'history' list of chat records with roles"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return 'looks for: A JSON object with a history list of chat records'
