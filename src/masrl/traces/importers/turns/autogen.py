"""Import the messages and events of AutoGen AgentChat runs (0.4 and later, Magentic-One included)
as orchestration traces: a run_stream recorder (one trace per attempt), a TaskResult or message
dumps. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    content_ref,
    json_type,
    latest_end,
    one_run,
    read_jsonl,
    read_text,
    source_error,
)
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.sequential import Turns, usage_fields
from masrl.traces.importers._kit.timestamps import moment_ns

FORMAT = "autogen"
UNIT = "item"
SYSTEM = "AutoGen AgentChat"
MAGENTIC = "MagenticOneOrchestrator"
USER = "user"
RECORDER, TASK_RESULT_SHAPE, LIST, LINES, STATE = ("stream-recorder", "task-result",
                                                   "message-list", "message-lines",
                                                   "team-state")
CHAT = {"TextMessage", "MultiModalMessage", "ToolCallSummaryMessage", "HandoffMessage",
        "StopMessage"}
SKIPPED = {
    "ThoughtEvent": "thought: the reasoning of a model call another item answers",
    "ModelClientStreamingChunkEvent": "streaming chunk: a piece of a message that follows whole",
    "MemoryQueryEvent": "memory query: context read from memory, not an action",
    "UserInputRequestedEvent": "user input requested: the user's answer follows as a message",
    "TaskResult": "task result: repeats the run's messages",
}
EVENT_TYPES = {"ToolCallRequestEvent", "ToolCallExecutionEvent", "SelectSpeakerEvent",
               "CodeGenerationEvent", "CodeExecutionEvent"}
KNOWN = CHAT | EVENT_TYPES | set(SKIPPED)
NOT_DUMPED = "not dumped: the recorder could not serialise the item"
EMPTY_TOOL_EVENT = "tool event without calls or results"
CODE_TOOL = "code_execution"


# ---------------------------------------------------------------------------------- reading

def _read(path: Path) -> tuple[str, Any]:
    """``(shape, items-or-document)`` of the file."""
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:  # not one JSON document: JSON Lines?
        records = read_jsonl(path, Counter())
        return LINES, [(f"{number}", record) for number, record in records]
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, dict) and isinstance(document.get("events"), list):
        return RECORDER, document
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return TASK_RESULT_SHAPE, document
    if isinstance(document, dict) and document.get("type") == "TeamState":
        return STATE, document
    if isinstance(document, list):
        return LIST, [(f"[{k}]", item) for k, item in enumerate(document)]
    if _is_dump(document):  # JSON Lines of one line
        return LINES, [("1", document)]
    raise SourceError(path, None, "expected AutoGen AgentChat items: an object with 'events' "
                      "(a stream recorder) or 'messages' (a TaskResult), or a list of message "
                      f"dumps; found {json_type(document)}")


def _manager(path: Path, state: dict) -> tuple[str, list]:
    """``(name, message thread)`` of a team state's group chat manager: the one agent state
    with a ``message_thread``."""
    agents = state.get("agent_states")
    if not isinstance(agents, dict):
        raise SourceError(path, "agent_states", f"a TeamState must hold its agents' states "
                          f"as an object, found {json_type(agents)}")
    managers = [name for name, agent in agents.items()
                if isinstance(agent, dict) and "message_thread" in agent]
    if len(managers) != 1:
        raise SourceError(path, "agent_states", f"expected one group chat manager state with "
                          f"a 'message_thread', found {len(managers)}")
    thread = agents[managers[0]]["message_thread"]
    where = f"agent_states.{managers[0]}.message_thread"
    if not isinstance(thread, list):
        raise SourceError(path, where, f"must be a list of message dumps, found "
                          f"{json_type(thread)}")
    if not thread:
        raise SourceError(path, where, "empty: the team was reset (or never run) before "
                          "save_state(); export the run_stream items or the TaskResult instead")
    return managers[0], thread


def _state_runs(path: Path, state: dict) -> list[tuple[str | None, list, dict | None]]:
    """The runs of a team state's message thread. A team run again without ``reset()`` keeps
    one thread: each run starts with its task, a message of ``user`` after another source's
    (unless a participant is itself named ``user``, when the thread is one run)."""
    name, thread = _manager(path, state)
    items = [(f"agent_states.{name}.message_thread[{k}]", m) for k, m in enumerate(thread)]
    if USER in state["agent_states"]:
        return [(None, items, None)]
    runs: list[list] = []
    previous = None
    for where, item in items:
        source = item.get("source") if isinstance(item, dict) else None
        if not runs or (source == USER and previous not in (None, USER)):
            runs.append([])
        runs[-1].append((where, item))
        previous = source
    if len(runs) == 1:
        return [(None, runs[0], None)]
    return [(f"run-{k}", run, None) for k, run in enumerate(runs, start=1)]


def _runs(path: Path, shape: str, read: Any) -> list[tuple[str | None, list, dict | None]]:
    """``(label, [(where, item)], attempt record)`` of every run of the file (the label,
    ``attempt-N`` or ``run-N``, names a run of a file that holds several)."""
    if shape in (LIST, LINES):
        return [(None, read, None)]
    if shape == STATE:
        return _state_runs(path, read)
    if shape == TASK_RESULT_SHAPE:
        return [(None, [(f"messages[{k}]", m) for k, m in enumerate(read["messages"])], None)]
    events = []
    for k, record in enumerate(read["events"]):
        where = f"events[{k}]"
        if not isinstance(record, dict):
            raise SourceError(path, where, f"an event must be an object, found "
                              f"{json_type(record)}")
        events.append((where, record))
    attempts = read.get("attempts")
    if not attempts:
        return [(None, events, None)]
    if not isinstance(attempts, list) or not all(
            isinstance(a, dict) and _whole(a.get("events_before_fail"))
            for a in attempts):
        raise SourceError(path, "attempts", "must be a list of {index, events_before_fail, "
                          "error} objects with a whole number of events")
    total = sum(a["events_before_fail"] for a in attempts)
    if total != len(events):
        raise SourceError(path, "attempts", f"the attempts hold {total} events, the file "
                          f"{len(events)}: cannot tell which events belong to which attempt")
    runs, start = [], 0
    for k, attempt in enumerate(attempts):
        size = attempt["events_before_fail"]
        label = f"attempt-{attempt.get('index', k + 1)}"
        runs.append((label, events[start:start + size], attempt))
        start += size
    return runs


def _item(path: Path, where: str, record: dict, shape: str) -> tuple[str, dict | None]:
    """``(type, dump)`` of one stream item; ``dump`` is ``None`` when the recorder could not
    dump it."""
    if shape == RECORDER:
        kind = record.get("type")
        dump = record.get("model_dump")
        if dump is None:
            fallback = {k: record[k] for k in ("source", "content", "models_usage", "id")
                        if k in record}
            dump = fallback if "source" in fallback else None
        elif not isinstance(dump, dict):
            raise SourceError(path, f"{where}.model_dump", f"must be an object, found "
                              f"{json_type(dump)}")
    else:
        kind, dump = record.get("type"), record
    if kind is None and dump is not None:
        kind = dump.get("type")
    if not isinstance(kind, str) or not kind:
        if dump is not None and "messages" in dump and "stop_reason" in dump:
            kind = "TaskResult"
        else:
            raise SourceError(path, f"{where}.type", f"must be a message type name, found "
                              f"{json_type(kind)}")
    return kind, dump


# ---------------------------------------------------------------------------------- importing

def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per run (per attempt of a stream recorder) of the file at ``path``."""
    path = Path(path)
    shape, read = _read(path)
    runs = _runs(path, shape, read)
    return [_import_run(path, shape, read, label, items, attempt, len(runs))
            for label, items, attempt in runs]


def import_file(path: str | Path) -> ImportResult:
    """The trace of a file that holds one run (a :class:`SourceError` for several: use
    :func:`import_traces`)."""
    return one_run(Path(path), FORMAT, import_traces(path), "runs (attempts, or runs of a "
                   "team state's thread)", lead="the file holds ", where="attempts")


def _import_run(path: Path, shape: str, read: Any, label: str | None, records: list,
                attempt: dict | None, runs: int) -> ImportResult:
    items = []
    for where, record in records:
        if not isinstance(record, dict):
            raise SourceError(path, where, f"an item must be an object, found "
                              f"{json_type(record)}")
        kind, dump = _item(path, where, record, shape)
        if dump is not None:
            source = dump.get("source")
            if kind != "TaskResult" and not (isinstance(source, str) and source):
                raise SourceError(path, f"{where}.source", "must be the name of the agent "
                                  f"that sent the item, found {json_type(source)}")
        items.append((where, record, kind, dump))
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    account = result.account
    account.unit = UNIT
    orchestrators = {MAGENTIC} | {d["source"] for _, _, k, d in items
                                  if k == "SelectSpeakerEvent" and d is not None}
    magentic = any(d is not None and d.get("source") == MAGENTIC for _, _, _, d in items)
    mapped = []
    for index, (where, record, kind, dump) in enumerate(items):
        account.read()
        usage = _usage(dump, path, where, result.repairs)
        if usage is not None:
            account.state_usage(tokens_in=usage[0] or 0, tokens_out=usage[1] or 0)
        reason = None
        if dump is None:
            reason = NOT_DUMPED
        elif kind in SKIPPED:
            reason = SKIPPED[kind]
        elif kind not in KNOWN and not kind.startswith("StructuredMessage"):
            reason = f"unknown record type: {kind}"
        elif kind in ("ToolCallRequestEvent", "ToolCallExecutionEvent") \
                and not _list(path, where, dump):
            reason = EMPTY_TOOL_EVENT
        if reason is not None:
            account.skip(reason, usage=None if usage is None else {
                "tokens_in": usage[0] or 0, "tokens_out": usage[1] or 0})
            continue
        account.map()
        mapped.append((where, record, kind, dump, index))
    times, origin = _times(path, mapped)
    result.time_origin = origin
    failed = attempt is not None and attempt.get("error") not in (None, "")
    turns = Turns()
    code_calls: dict[str, str] = {}  # source -> its code generation awaiting execution
    sources = [m[3]["source"] for m in mapped]
    for position, (where, _, kind, dump, index) in enumerate(mapped):
        t = times[position]
        _add(path, turns, position, f"e{index}", where, kind, dump, t, sources, orchestrators,
             MAGENTIC if magentic else None, code_calls, failed)
    if not turns.events:
        raise SourceError(path, None, "no item of the run gives an event (every item is "
                          "skipped: " + ", ".join(sorted(account.reasons)) + ")")
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    events = turns.events
    stem = path.stem if label is None or runs == 1 else f"{path.stem}:{label}"
    result.recognised = _recognised(shape, [m[3] for m in mapped], magentic, read)
    task = read.get("task") if isinstance(read, dict) else None
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{stem}",
        task_id=f"task-{content_ref(task)[7:23]}" if isinstance(task, str) else path.stem,
        system=f"{SYSTEM} (Magentic-One)" if magentic else SYSTEM,
        topology="centralized" if magentic or len(orchestrators) > 1 else "unknown",
        rewards={"team": 0.0} if failed else {},
        costs={"tokens": sum(e.get("tokens", 0) for e in events),
               "wall_clock_s": latest_end(events),
               "messages": turns.build.count("message"),
               "tool_calls": turns.build.count("tool_call")},
    )
    return result.with_provenance()


def _add(path: Path, turns: Turns, position: int, eid: str, where: str, kind: str, dump: dict,
         t: float,
         sources: list, orchestrators: set, magentic: str | None, code_calls: dict,
         broke_off: bool) -> None:
    source = dump["source"]
    base = {"t": t, "x_source": where, "x_message_id": dump.get("id")
            if isinstance(dump.get("id"), str) else None}
    usage = _usage(dump, path, where, None)  # read (and repairs counted) when accounted
    model = usage_fields(*usage, dump.get("id") or where) if usage is not None else {}
    if kind == "ToolCallRequestEvent":
        calls = _list(path, where, dump)
        events = []
        for j, call in enumerate(calls):
            events.append({**base, "id": f"{eid}.c{j}", "type": "tool_call", "agent": source,
                           "tool": _name(call), "content_ref": content_ref(
                               call.get("arguments", "")), "call_id": call.get("id")})
        events[-1].update(model)
        turns.calls_made(events)
        return
    if kind == "ToolCallExecutionEvent":
        results = []
        for j, outcome in enumerate(_list(path, where, dump)):
            results.append({**base, "id": f"{eid}.r{j}", "type": "tool_result", "agent": source,
                            "tool": _name(outcome),
                            "content_ref": content_ref(outcome.get("content", "")),
                            "x_error": True if outcome.get("is_error") is True else None,
                            "call": turns.call_for(outcome.get("call_id"))})
        results[-1].update(model)
        turns.results(results)
        return
    if kind == "CodeGenerationEvent":
        call = turns.calls_made([{**base, "id": eid, "type": "tool_call", "agent": source,
                                  "tool": CODE_TOOL, "content_ref": content_ref(
                                      dump.get("content", "")), **model}])[0]
        code_calls[source] = call["id"]
        return
    if kind == "CodeExecutionEvent":
        turns.results([{**base, "id": eid, "type": "tool_result", "agent": source,
                        "tool": CODE_TOOL, "content_ref": content_ref(dump.get("result", "")),
                        "call": code_calls.pop(source, None), **model}])
        return
    ref = content_ref(dump.get("content", ""))
    if kind == "SelectSpeakerEvent":
        chosen = dump.get("content")
        chosen = chosen if isinstance(chosen, list) else [chosen]
        speaker = chosen[0] if chosen and isinstance(chosen[0], str) else None
        turns.turn(**base, id=eid, type="orchestrator_decision", agent=source,
                   decision="delegate" if speaker else None, to=speaker, content_ref=ref,
                   **model)
        return
    if kind == "StopMessage":
        turns.turn(**base, id=eid, type="orchestrator_decision", agent=source, decision="stop",
                   content_ref=ref, **model)
        return
    if source in orchestrators:
        decision, to = _decision(sources, position, broke_off)
        turns.turn(**base, id=eid, type="orchestrator_decision", agent=source,
                   decision=decision, to=to, content_ref=ref, **model)
        return
    if kind == "HandoffMessage":
        turns.turn(**base, id=eid, type="message", agent=source, to=dump.get("target"),
                   content_ref=ref, x_handoff=True, **model)
        return
    human = source == USER
    turns.turn(**base, id=eid, type="message", agent=source, role="human" if human else None,
               to=magentic if magentic != source else None, content_ref=ref, **model)


def _decision(sources: list, position: int, broke_off: bool) -> tuple[str | None, str | None]:
    """What an orchestrator's chat message decided, from the source of the next mapped item:
    ``stop`` when none follows (unless the run ``broke_off`` with an error: then nothing was
    decided), unspecified when the orchestrator speaks again (its plan), else ``delegate`` to
    the next speaker (the user excepted)."""
    me = sources[position]
    if position == len(sources) - 1:
        return (None if broke_off else "stop"), None
    following = sources[position + 1]
    if following in (me, USER):
        return None, None
    return "delegate", following


def _list(path: Path, where: str, dump: dict) -> list[dict]:
    content = dump.get("content")
    if not isinstance(content, list) or not all(isinstance(c, dict) for c in content):
        raise SourceError(path, f"{where}.content", "must be a list of function calls or "
                          f"results (objects), found {json_type(content)}")
    return content


def _name(value: dict) -> str | None:
    name = value.get("name")
    return name if isinstance(name, str) and name else None


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _usage(dump: dict | None, path: Path, where: str, repairs: Counter | None
           ) -> tuple[int | None, int | None] | None:
    """``models_usage`` by the kit's rule; ``None`` when it states neither count."""
    usage = dump.get("models_usage") if dump is not None else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = (count(usage.get(key), path, where, f"models_usage.{key}", repairs)
                          for key in ("prompt_tokens", "completion_tokens"))
    if prompt is None and completion is None:
        return None
    return prompt, completion


def _times(path: Path, mapped: list) -> tuple[list[float], str | None]:
    stamps = []
    for where, _, _, dump, _ in mapped:
        value = dump.get("created_at")
        if value is None:
            break
        stamps.append(moment_ns(value, path, where, "created_at", naive=False,
                                numbers=False) // 1000)
    if mapped and len(stamps) == len(mapped):
        earliest = min(stamps)
        return [(s - earliest) / 1_000_000 for s in stamps], iso_from_ns(earliest * 1000)
    received = [amount(record.get("timestamp_s"), path, where, "timestamp_s", what="a time")
                for where, record, _, _, _ in mapped]
    if mapped and all(r is not None for r in received):
        first = min(received)
        return [round(r - first, 6) for r in received], None
    return [0.0] * len(mapped), None


def _recognised(shape: str, dumps: list[dict], magentic: bool, read: Any) -> dict:
    fields = [f for f in ("id", "created_at") if dumps and all(f in d for d in dumps)]
    what = {RECORDER: "an object with 'events' of {type, module, model_dump, timestamp_s} "
                      "(a run_stream recorder)",
            TASK_RESULT_SHAPE: "a TaskResult dump {messages, stop_reason}",
            LIST: "a list of AgentChat message dumps", LINES: "JSON Lines of AgentChat "
                                                          "message dumps",
            STATE: "a TeamState (save_state) read through its manager's message_thread (the "
                   "selector's speaker choices and the stop reason are not in it; the agents' "
                   "own contexts repeat it)"}[shape]
    since = {"id": "message ids (recent AgentChat)",
             "created_at": "creation times (AgentChat since mid-2025)"}
    carried = ", ".join(since[f] for f in fields) or "neither ids nor creation times " \
        "(AgentChat 0.4-0.5)"
    evidence = f"{what}; the messages carry {carried}"
    if magentic:
        evidence += f"; {MAGENTIC!r} speaks: a Magentic-One team"
    return {"system": "autogen-agentchat", "shape": shape,
            "fields": ", ".join(fields) or "none", "evidence": evidence}


# ---------------------------------------------------------------------------------- sniffing

def _is_dump(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("source"), str)
            and isinstance(value.get("type"), str)
            and (value["type"] in KNOWN or value["type"].startswith("StructuredMessage")))


def sniff(sample: Sample) -> str | None:
    """AutoGen AgentChat items: a run_stream recorder ({events: [{type, model_dump}]}), a
    TaskResult ({messages, stop_reason}) or AgentChat message dumps (objects with ``source``
    and a ``type`` such as TextMessage or ToolCallRequestEvent), as JSON or JSON Lines."""
    document = sample.document
    if isinstance(document, dict):
        events = document.get("events")
        if isinstance(events, list) and events and all(
                isinstance(e, dict) and isinstance(e.get("type"), str)
                and ("model_dump" in e or "model_dump_error" in e) for e in events[:5]):
            return "a run_stream recorder: events of {type, model_dump}"
        messages = document.get("messages")
        if "stop_reason" in document and isinstance(messages, list) and messages and all(
                _is_dump(m) for m in messages[:5]):
            return "a TaskResult: messages and stop_reason"
    if isinstance(document, dict) and document.get("type") == "TeamState" \
            and isinstance(document.get("agent_states"), dict) and any(
                isinstance(a, dict) and isinstance(a.get("message_thread"), list)
                for a in document["agent_states"].values()):
        return "a TeamState (save_state): its manager's message_thread"
    if isinstance(document, list) and document and all(_is_dump(m) for m in document[:5]):
        return "a list of AgentChat message dumps"
    if sample.records and all(_is_dump(r) for r in sample.records[:5]):
        return "JSON Lines of AgentChat message dumps"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for AutoGen AgentChat items (objects with 'source' and a 'type' such as "
            "TextMessage or ToolCallRequestEvent, or a recorder's 'events' with 'model_dump')")
