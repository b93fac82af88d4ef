"""Import a Who&When failure log (Magentic-One or CaptainAgent) as an orchestration trace, with
its gold labels on the mistaken step. The shape of the history (roles, AutoGen 0.4 names, AG2
group chat) is recognised from the records and recorded. Chapter 23 of the book tells the mapping.
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
    latest_end,
    read_json,
)
from masrl.traces.importers._kit.content import GOLD, label
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.timestamps import moment_ns

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
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Who&When log (chapter 23 of the book tells the mapping)."""
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
    labelled = _label(path, document, build, len(history))
    correct = _verdict(path, document)
    result.labels = gold_labels(document, labelled, correct)
    result.trace = build.document(
        trace_id=f"who-and-when:{system}:{path.stem}",
        task_id=document.get("question_ID") or path.stem,
        system=SYSTEMS[system],
        topology=TOPOLOGY[system],
        rewards={} if correct is None else {"team": 1.0 if correct else 0.0},
        costs={"tokens": sum(e.get("tokens", 0) for e in build.events),
               "wall_clock_s": latest_end(build.events),
               "messages": build.count("message")},
    )
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


# ---------------------------------------------------------------------------------- recognising

def recognise(path: Path, document: dict) -> dict:
    """``{system, shape, evidence}``: which system wrote the log, in which shape, and the
    evidence, from the records (chapter 23 of the book); a :class:`SourceError` when the
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
        micros = moment_ns(record["created_at"], path, f"history[{k}]", "created_at",
                           naive=False, numbers=False) // 1000
        stamps[k] = EPOCH + timedelta(microseconds=micros)
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
    """The run-level fields the importer reads have the right types (chapter 23 of the book)."""
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


GOLD_SOURCE = "Who&When"  # the benchmark the gold labels come from (labels' source)


def gold_labels(document: dict, step: str | None, correct: bool | None) -> list[dict]:
    """The log's gold labels as the trace's ``labels`` (schema 1.2), in the log's order of
    fields: the mistaken agent and step (on its event ``step``), the reason in the annotators'
    words (bounded), the task's expected answer, and whether the run was right."""
    found = []
    for key in ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth"):
        if key not in document:
            continue
        value = document[key]
        if key == "mistake_step":
            value = step_index(value)
        if value is None or (isinstance(value, str) and not value):
            continue
        found.append(label(key, value, GOLD, GOLD_SOURCE, where=key,
                           event=step if key in ("mistake_step", "mistake_reason") else None,
                           agent=value if key == "mistake_agent" else None))
    if correct is not None:
        key = next(k for k in VERDICTS if k in document)
        found.append(label(key, correct, GOLD, GOLD_SOURCE, where=key))
    return found


def _label(path: Path, document: dict, build: TraceBuilder, length: int) -> str | None:
    """Mark the labelled step's event (``x_mistake_*``) and return its id (``None`` when the
    log labels no step)."""
    if "mistake_step" not in document:
        return None
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
    return event["id"]


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
    """A JSON object with a ``history`` list of chat records."""
    history = sample.document.get("history") if "history" in sample.keys else None
    if isinstance(history, list) and history and all(isinstance(r, dict) and "role" in r
                                                     for r in history[:5]):
        return "a 'history' list of chat records with roles"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return 'looks for a JSON object with a history list of chat records'
