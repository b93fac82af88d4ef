"""Import a Google ADK session, or the events of ADK runs, as orchestration traces (one per
session of a listing). Pydantic's camelCase and snake_case dumps are both read. Chapter 23 of
the book tells the mapping.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
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
    sse_payloads,
)
from masrl.traces.importers._kit.numbers import count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.sequential import Turns, usage_fields
from masrl.traces.importers._kit.timestamps import moment_ns

FORMAT = "adk"
UNIT = "event"
SYSTEM = "Google ADK"
USER = "user"
TRANSFER = "transfer_to_agent"
CODE_TOOL = "code_execution"
SESSION, EVENTS, LINES, SESSIONS = "session", "events", "event-lines", "sessions"
STREAM = "event-stream"  # a server-sent event stream of events (``/run_sse``)
ACTIONS_ONLY = "actions only: a state or artifact update, no turn"
PARTIAL = "partial: a streamed piece of a response that follows whole"
THOUGHT = "thought part: reasoning text of a model call"
TRANSFER_ACK = "transfer acknowledgement: the response to transfer_to_agent"


def field(value: dict, camel: str, snake: str | None = None) -> Any:
    """A field written in camelCase (``by_alias``) or snake_case."""
    if camel in value:
        return value[camel]
    return value.get(snake or _snake(camel))


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# ---------------------------------------------------------------------------------- reading

def _read(path: Path) -> tuple[str, list[tuple[str | None, str, list, dict | None]]]:
    """``(shape, [(session id, place prefix, events, session)])``."""
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:
        records = read_jsonl(path, Counter())
        shape = STREAM if sse_payloads(text) is not None else LINES
        return shape, [(None, "", [(f"{n}", r) for n, r in records], None)]
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, dict) and isinstance(document.get("sessions"), list):
        sessions = []
        for k, session in enumerate(document["sessions"]):
            if not isinstance(session, dict):
                raise SourceError(path, f"sessions[{k}]", f"a session must be an object, found "
                                  f"{json_type(session)}")
            sessions.append(_session(path, session, f"sessions[{k}]."))
        return SESSIONS, sessions
    if isinstance(document, dict) and "events" in document:
        return SESSION, [_session(path, document, "")]
    if isinstance(document, list):
        return EVENTS, [(None, "", [(f"[{k}]", e) for k, e in enumerate(document)], None)]
    if isinstance(document, dict) and "author" in document:  # JSON Lines of one event
        return LINES, [(None, "", [("1", document)], None)]
    raise SourceError(path, None, "expected an ADK session ({id, appName or context, "
                      "events...}), a list "
                      f"of events or JSON Lines of events; found {json_type(document)}")


def _session(path: Path, session: dict, prefix: str) -> tuple:
    events = session.get("events")
    if not isinstance(events, list):
        raise SourceError(path, f"{prefix}events", f"must be a list of events, found "
                          f"{json_type(events)}")
    sid = session.get("id")
    return (sid if isinstance(sid, str) else None, prefix,
            [(f"{prefix}events[{k}]", e) for k, e in enumerate(events)], session)


# ---------------------------------------------------------------------------------- importing

def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per session of the file at ``path`` (a listing holds several)."""
    path = Path(path)
    shape, sessions = _read(path)
    return [_import_session(path, shape, sid, events, session, len(sessions))
            for sid, _, events, session in sessions]


def import_file(path: str | Path) -> ImportResult:
    """The trace of a file that holds one session or one run's events (a
    :class:`SourceError` for a listing of several: use :func:`import_traces`)."""
    return one_run(Path(path), FORMAT, import_traces(path), "sessions",
                   lead="the file holds ", where="sessions")


class _Session:
    def __init__(self, path: Path, result: ImportResult) -> None:
        self.path, self.result, self.account = path, result, result.account
        self.turns = Turns()
        self.camel = Counter()
        self.transfer: str | None = None  # target of a transfer_to_agent call not yet done
        # Agents that run side by side write their events in branches: "parent.child" for a
        # ParallelAgent's sub-agents, "node@1" for a Workflow's parallel nodes (ADK 2). Each
        # branch follows the events before the fork; the first event outside them follows
        # every branch.
        self.fork: tuple[str, list[str]] | None = None  # (parent branch, frontier at the fork)
        self.branches: dict[str, list[str]] = {}  # branch -> its own frontier

    def _enter_branch(self, branch: Any) -> str | None:
        """Set the frontier for an event of ``branch``; the branch whose frontier to keep."""
        turns = self.turns
        branch = branch if isinstance(branch, str) and branch else None
        inside = branch is not None and self.fork is not None and (
            self.fork[0] == "" or branch.startswith(self.fork[0] + "."))
        if not inside and self.fork is not None:  # the parallel block is over: join it
            turns.frontier = [e for frontier in self.branches.values() for e in frontier]
            self.fork, self.branches = None, {}
        if branch is not None and self.fork is None:
            self.fork = (branch.rsplit(".", 1)[0] if "." in branch else "",
                         list(turns.frontier))
        if self.fork is None or branch is None:
            return None
        turns.frontier = list(self.branches.get(branch, self.fork[1]))
        return branch

    def event(self, k: int, where: str, event: Any, t: float | None) -> None:
        self.account.read()
        if not isinstance(event, dict):
            raise SourceError(self.path, where, f"an event must be an object, found "
                              f"{json_type(event)}")
        branch = self._enter_branch(event.get("branch"))
        try:
            self._event(k, where, event, t)
        finally:
            if branch is not None:
                self.branches[branch] = list(self.turns.frontier)

    def _event(self, k: int, where: str, event: dict, t: float | None) -> None:
        self.camel["camel" if any(key in event for key in ("invocationId", "usageMetadata",
                                                            "longRunningToolIds"))
                   else "snake"] += 1
        author = event.get("author")
        usage = _usage(field(event, "usageMetadata"), self.path, where, self.result.repairs)
        if usage is not None:
            self.account.state_usage(tokens_in=usage[0] or 0, tokens_out=usage[1] or 0)
        as_skipped = None if usage is None else {"tokens_in": usage[0] or 0,
                                                 "tokens_out": usage[1] or 0}
        if not isinstance(author, str) or not author:
            self.account.skip("unknown record type: an event without author", usage=as_skipped)
            return
        if event.get("partial") is True:
            self.account.skip(PARTIAL, usage=as_skipped)
            return
        parts = _parts(self.path, where, event)
        actions = event.get("actions") if isinstance(event.get("actions"), dict) else {}
        base = {"t": 0 if t is None else t, "x_source": where,
                "x_invocation": field(event, "invocationId") or None,
                "x_branch": event.get("branch") or None,
                "x_escalate": True if actions.get("escalate") is True else None,
                "x_error": True if (field(event, "errorCode") or field(event, "errorMessage"))
                else None}
        content = event.get("content") if isinstance(event.get("content"), dict) else {}
        model_call = author != USER and (usage is not None or (
            content.get("role") == "model" and any(
                isinstance(p.get("text"), str) or field(p, "functionCall") is not None
                or field(p, "executableCode") is not None for p in parts)))
        model = {}
        if model_call:
            tokens_in, tokens_out, named = usage if usage is not None else (None, None, {})
            eid = event.get("id") if isinstance(event.get("id"), str) and event["id"] else where
            model = usage_fields(tokens_in, tokens_out, eid, named,
                                 _text(field(event, "modelVersion")))
        added, carried = self._parts(k, base, author, parts, actions)
        if not added and carried and not model:
            self.account.map()  # the transfer its actions complete is the call's event
            return
        if not added:
            if model:  # a model response with nothing but thoughts or empty text
                added = [self.turns.turn(**base, id=f"a{k}", type="message", agent=author,
                                         content_ref=content_ref(content))]
            else:
                self.account.skip(ACTIONS_ONLY, usage=as_skipped)
                return
        added[-1].update(model)
        self.account.map()

    def _parts(self, k: int, base: dict, author: str, parts: list, actions: dict
               ) -> tuple[list[dict], bool]:
        """The events of an event's parts, and whether its ``transferToAgent`` completes a
        transfer an earlier call already gave as a decision."""
        turns, added = self.turns, []
        calls, results = [], []
        transferred = False

        def flush_calls():
            if calls:
                added.extend(turns.calls_made(list(calls)))
                calls.clear()

        def flush_results():
            if results:
                added.extend(turns.results(list(results)))
                results.clear()

        for j, part in enumerate(parts):
            eid = f"a{k}.{j}"
            if part.get("thought") is True:
                self.account.skip_part(THOUGHT)
                continue
            call = field(part, "functionCall")
            response = field(part, "functionResponse")
            code = field(part, "executableCode")
            outcome = field(part, "codeExecutionResult")
            if isinstance(call, dict):
                flush_results()
                args = call.get("args") if isinstance(call.get("args"), dict) else {}
                if call.get("name") == TRANSFER:
                    flush_calls()
                    target = args.get("agent_name")
                    added.append(turns.turn(**base, id=eid, type="orchestrator_decision",
                                            agent=author, decision="delegate",
                                            to=target if isinstance(target, str) else None,
                                            x_handoff=True, content_ref=content_ref(args)))
                    transferred = True
                    self.transfer = target if isinstance(target, str) else None
                    continue
                calls.append({**base, "id": eid, "type": "tool_call", "agent": author,
                              "tool": call.get("name") if isinstance(call.get("name"), str)
                              else None, "content_ref": content_ref(args),
                              "call_id": call.get("id") if isinstance(call.get("id"), str)
                              else None})
            elif isinstance(response, dict):
                flush_calls()
                if response.get("name") == TRANSFER:
                    self.account.skip_part(TRANSFER_ACK)
                    continue
                call_id = response.get("id") if isinstance(response.get("id"), str) else None
                results.append({**base, "id": eid, "type": "tool_result", "agent": author,
                                "tool": response.get("name") if isinstance(
                                    response.get("name"), str) else None,
                                "content_ref": content_ref(response.get("response")),
                                "call": turns.call_for(call_id)})
            elif isinstance(code, dict):
                flush_results()
                calls.append({**base, "id": eid, "type": "tool_call", "agent": author,
                              "tool": CODE_TOOL, "content_ref": content_ref(code),
                              "call_id": f"code:{author}"})
            elif isinstance(outcome, dict):
                flush_calls()
                results.append({**base, "id": eid, "type": "tool_result", "agent": author,
                                "tool": CODE_TOOL, "content_ref": content_ref(outcome),
                                "call": turns.calls.pop(f"code:{author}", None)})
            elif isinstance(part.get("text"), str) and part["text"]:
                flush_calls()
                flush_results()
                human = author == USER
                added.append(turns.turn(**base, id=eid, type="message", agent=author,
                                        role="human" if human else None,
                                        content_ref=content_ref(part["text"])))
            else:
                self.account.skip_part("part without text, call or response")
        flush_calls()
        flush_results()
        target = field(actions, "transferToAgent")
        carried = False
        if isinstance(target, str) and target and not transferred:
            if target == self.transfer:  # the call of an earlier event asked for it
                carried = True
            else:
                added.append(turns.turn(**base, id=f"a{k}.t", type="orchestrator_decision",
                                        agent=author, decision="delegate", to=target,
                                        x_handoff=True))
            self.transfer = None
        return added, carried


def _import_session(path: Path, shape: str, sid: str | None, events: list, session: dict | None,
                    sessions: int) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    result.account.unit = UNIT
    times, result.time_origin = _times(path, events)
    reader = _Session(path, result)
    for k, (where, event) in enumerate(events):
        reader.event(k, where, event, times.get(k))
    turns = reader.turns
    if not turns.events:
        raise SourceError(path, None, "no event of the session is a turn (" + ", ".join(
            f"{n} {reason}" for reason, n in sorted(result.skipped.items())) + ")"
            if result.skipped else "the session holds no event")
    keys = "camelCase" if reader.camel["camel"] >= reader.camel["snake"] else "snake_case"
    app = _app(session)
    what = {SESSION: "an ADK Session {id, appName, userId, state, events}" if session and (
                "appName" in session or "app_name" in session)
            else "an ADK session as ADK saves it {id, context, events}",
            SESSIONS: "a listing of ADK sessions", EVENTS: "a list of ADK events (a /run "
            "response)", LINES: "JSON Lines of ADK events",
            STREAM: "a server-sent event stream of ADK events (a /run_sse response)"}[shape]
    result.recognised = {"system": "google-adk", "shape": shape, "keys": keys,
                         "evidence": f"{what}: events with 'author' and "
                                     f"{'invocationId' if keys == 'camelCase' else 'invocation_id'}"
                                     f" ({keys} field names)"}
    name = sid or path.stem
    events_out = turns.events
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}" if sessions == 1 else f"{FORMAT}:{path.stem}:{name}",
        task_id=name, system=f"{SYSTEM} ({app})" if isinstance(app, str) and app else SYSTEM,
        topology="unknown", rewards={},
        costs={"tokens": sum(e.get("tokens", 0) for e in events_out),
               "wall_clock_s": latest_end(events_out),
               "messages": turns.build.count("message"),
               "tool_calls": turns.build.count("tool_call")})
    return result.with_provenance()


def _app(session: dict | None) -> str | None:
    """The app a session belongs to: its ``appName`` (``app_name``), else the one its
    ``context`` names (a session as ADK saves it)."""
    if not session:
        return None
    app = field(session, "appName")
    context = session.get("context")
    if app is None and isinstance(context, dict):
        app = field(context, "appName")
    return app if isinstance(app, str) and app else None


def _parts(path: Path, where: str, event: dict) -> list[dict]:
    content = event.get("content")
    if content is None:
        return []
    if not isinstance(content, dict):
        raise SourceError(path, f"{where}.content", f"must be an object {{role, parts}}, found "
                          f"{json_type(content)}")
    parts = content.get("parts")
    if parts is None:
        return []
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise SourceError(path, f"{where}.content.parts", f"must be a list of parts (objects), "
                          f"found {json_type(parts)}")
    return parts


def _usage(metadata: Any, path: Path, where: str, repairs: Counter
           ) -> tuple[float | None, float | None, dict] | None:
    """Gemini's counts (the kit's rule): the tool-use prompt goes with the prompt, the thinking
    with the candidates; ``None`` when neither the prompt nor the candidates are stated."""
    if not isinstance(metadata, dict):
        return None

    def read(name: str):  # named as the log writes it: camelCase or snake_case
        key = name if name in metadata else _snake(name)
        holder = "usageMetadata" if key == name else "usage_metadata"
        return count(metadata.get(key), path, where, f"{holder}.{key}", repairs)

    prompt, candidates = read("promptTokenCount"), read("candidatesTokenCount")
    thoughts = read("thoughtsTokenCount") or 0
    tool_prompt = read("toolUsePromptTokenCount") or 0
    if prompt is None and candidates is None:
        return None
    named = {"cached_input": read("cachedContentTokenCount") or 0,
             "tool_use_input": tool_prompt, "reasoning_output": thoughts}
    return (None if prompt is None else prompt + tool_prompt,
            None if candidates is None else candidates + thoughts, named)


MICRO = 1_000_000


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _times(path: Path, events: list) -> tuple[dict[int, float], str | None]:
    """Seconds from the earliest timestamp, by event index, and that earliest time (ISO 8601
    UTC); empty and ``None`` when no event has one. ADK writes seconds since the epoch (a
    float); an ISO 8601 time is read too (:func:`.timestamps.moment_ns`)."""
    stamps = {}
    for k, (where, event) in enumerate(events):
        if not isinstance(event, dict) or "timestamp" not in event:
            continue
        stamps[k] = moment_ns(event["timestamp"], path, where, "timestamp", unit=1) // 1000
    if not stamps:
        return {}, None
    first = min(stamps.values())
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=first)
    return ({k: (v - first) / MICRO for k, v in stamps.items()},
            moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))


# ---------------------------------------------------------------------------------- sniffing

def is_event(value: Any) -> bool:
    """An ADK event: an object with ``author`` and an invocation id, ``actions`` or
    ``content`` of ``parts``."""
    if not isinstance(value, dict) or not isinstance(value.get("author"), str):
        return False
    content = value.get("content")
    return ("invocationId" in value or "invocation_id" in value
            or (isinstance(content, dict) and "parts" in content))


def sniff(sample: Sample) -> str | None:
    """A Google ADK session ({id, appName, events}) or ADK events (objects with ``author`` and
    ``invocationId``, content ``parts``), as a list, JSON Lines or a sessions listing."""
    document = sample.document
    if isinstance(document, dict):
        sessions = document.get("sessions")
        if isinstance(sessions, list) and sessions and all(
                isinstance(s, dict) and isinstance(s.get("events"), list)
                and ("appName" in s or "app_name" in s) for s in sessions[:5]):
            return "a listing of ADK sessions"
        events = document.get("events")
        if isinstance(events, list) and ("appName" in document or "app_name" in document) \
                and all(is_event(e) for e in events[:5]):
            return "an ADK session: appName and events with authors"
        if isinstance(events, list) and events and isinstance(document.get("id"), str) \
                and all(is_event(e) for e in events[:5]):
            return "an ADK session as ADK saves it: an id and events with authors"
    if isinstance(document, list) and document and all(is_event(e) for e in document[:5]):
        return "a list of ADK events with authors and invocation ids"
    if sample.records and all(is_event(r) for r in sample.records[:5]):
        return "JSON Lines of ADK events"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for a Google ADK session ({id, appName, events}, or {id, context, events} "
            "as ADK saves it) or ADK events ({author, invocationId, content: {parts}})")
