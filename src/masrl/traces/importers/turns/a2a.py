"""Import Agent2Agent (A2A) protocol traffic (JSON-RPC records, or task and message objects) as
orchestration traces, one per conversation (``contextId``). Protocol versions 0.1, 0.2 and 1.0
are recognised and recorded. Chapter 23 of the book tells the mapping.
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
    sse_payloads,
)
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.sequential import Turns
from masrl.traces.importers._kit.timestamps import moment_ns

FORMAT = "a2a"
UNIT = "record"
CLIENT, AGENT = "user", "agent"
SEND_METHODS = {"message/send", "message/stream", "tasks/send", "tasks/sendSubscribe",
                "SendMessage", "SendStreamingMessage"}
FAILED = {"failed", "rejected", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"}
V1_WRAPPERS = {"task": "task", "message": "message", "msg": "message",
               "statusUpdate": "status-update", "artifactUpdate": "artifact-update"}
REPEATED = "nothing new: repeats a task, message or artifact already read"


def _values(path: Path) -> list[tuple[str, Any]]:
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:
        return [(f"{n}", r) for n, r in read_jsonl(path, Counter())]
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, list):
        return [(f"[{k}]", r) for k, r in enumerate(document)]
    return [("", document)]


def _kind(value: Any) -> str | None:
    """``task``, ``message``, ``status-update`` or ``artifact-update`` of an A2A object (any
    version), else ``None``."""
    if not isinstance(value, dict):
        return None
    kind = value.get("kind")
    if kind in ("task", "message", "status-update", "artifact-update"):
        return kind
    if "messageId" in value and "parts" in value and "role" in value:
        return "message"
    if "status" in value and isinstance(value.get("status"), dict):
        return "status-update" if "taskId" in value else "task"
    if "artifact" in value and "taskId" in value:
        return "artifact-update"
    return None


def _unwrap(value: Any) -> tuple[str | None, Any]:
    """A v1 result ``{task: {...}}`` or a bare object, as ``(kind, object)``."""
    kind = _kind(value)
    if kind is not None:
        return kind, value
    if isinstance(value, dict) and len(value) == 1:
        key, inner = next(iter(value.items()))
        if key in V1_WRAPPERS and isinstance(inner, dict):
            return V1_WRAPPERS[key], inner
    return None, value


def _v1_object(value: Any) -> bool:
    """A version 1.0 object as the SDK's ``MessageToDict`` writes it (no ``kind``; enum names
    such as ``ROLE_USER`` and ``TASK_STATE_COMPLETED``), bare or wrapped as a stream response
    ``{task}``, ``{message}``, ``{statusUpdate}``, ``{artifactUpdate}``."""
    kind, inner = _unwrap(value)
    if kind is None or not isinstance(inner, dict) or "kind" in inner:
        return False
    if kind == "message":
        return inner.get("role") in ("ROLE_USER", "ROLE_AGENT")
    if kind == "artifact-update":
        return isinstance(inner.get("artifact"), dict) and isinstance(inner.get("taskId"), str)
    state = inner["status"].get("state") if isinstance(inner.get("status"), dict) else None
    return isinstance(state, str) and state.startswith("TASK_STATE_")


def _context(record: Any) -> str | None:
    if not isinstance(record, dict):
        return None
    for holder in (record, record.get("result"), record.get("params")):
        if not isinstance(holder, dict):
            continue
        _, inner = _unwrap(holder)
        nested = [inner.get(k) for k in ("message", "request")] if isinstance(inner, dict) \
            else []
        for candidate in (inner, *nested):
            if isinstance(candidate, dict) and isinstance(candidate.get("contextId"), str):
                return candidate["contextId"]
    return None


def _version(values: list) -> tuple[str, str]:
    methods = {r.get("method") for _, r in values if isinstance(r, dict)
               and isinstance(r.get("method"), str)}
    if methods & {"SendMessage", "SendStreamingMessage"} or any(
            isinstance(r, dict) and isinstance(r.get("result"), dict)
            and _kind(r["result"]) is None and _unwrap(r["result"])[0] is not None
            for _, r in values) or any(
            isinstance(r, dict) and "jsonrpc" not in r and _v1_object(r) for _, r in values):
        return "1.0", "protobuf JSON: SendMessage methods, results wrapped as {task}, " \
                      "{message}..., or objects with ROLE_ and TASK_STATE_ names"
    if methods & {"tasks/send", "tasks/sendSubscribe"}:
        return "0.1", "tasks/send methods (parts with 'type', no 'kind')"
    return "0.2+", "objects with 'kind' (message/send methods)"


class _Log:
    def __init__(self, path: Path, result: ImportResult) -> None:
        self.path, self.account = path, result.account
        self.turns = Turns()
        self.seen: set[str] = set()
        self.artifacts: set[str] = set()
        self.t = 0.0
        self.count = 0
        self.origin: int | None = None  # microseconds since 1970 of the first time read
        self.of_task: dict[str, dict] = {}  # task id -> the last agent event of that task
        self.state_of: dict[str, str] = {}  # task id -> the last state read for it

    def time(self, where: str, status: Any) -> None:
        stamp = status.get("timestamp") if isinstance(status, dict) else None
        if stamp is None:
            return
        moment = moment_ns(stamp, self.path, f"{where}.status", "timestamp",
                           numbers=False) // 1000  # microseconds; UTC when it names no zone
        if self.origin is None:
            self.origin = moment
        self.t = max(self.t, (moment - self.origin) / 1_000_000)

    def message(self, where: str, message: Any) -> list[dict]:
        if not isinstance(message, dict):
            return []
        key = message.get("messageId")
        if isinstance(key, str):
            if key in self.seen:
                self.account.skip_part("message already read (a task repeats its history)")
                return []
            self.seen.add(key)
        parts = message.get("parts", message.get("content"))
        if parts is not None and not isinstance(parts, list):
            raise SourceError(self.path, f"{where}.parts", f"must be a list of parts, found "
                              f"{json_type(parts)}")
        role = message.get("role")
        agent_side = role in ("agent", "ROLE_AGENT")
        self.count += 1
        return [self.turns.turn(id=f"m{self.count}", t=self.t, type="message",
                                agent=AGENT if agent_side else CLIENT,
                                role=None if agent_side else "human",
                                to=CLIENT if agent_side else AGENT,
                                content_ref=content_ref(parts), x_source=where,
                                x_message_id=key if isinstance(key, str) else None)]

    def artifact(self, where: str, artifact: Any, append: bool) -> list[dict]:
        if not isinstance(artifact, dict):
            return []
        key = artifact.get("artifactId", artifact.get("name"))
        if isinstance(key, str) and key in self.artifacts:
            self.account.skip_part("artifact chunk appended to one already read" if append
                                   else "artifact already read")
            return []
        if isinstance(key, str):
            self.artifacts.add(key)
        self.count += 1
        return [self.turns.turn(id=f"m{self.count}", t=self.t, type="message", agent=AGENT,
                                to=CLIENT, content_ref=content_ref(artifact.get("parts")),
                                x_source=where, x_artifact=True)]

    def obj(self, where: str, kind: str, value: dict) -> list[dict]:
        added: list[dict] = []
        said: list[dict] = []  # the event of the status's message
        status = value.get("status") if isinstance(value.get("status"), dict) else None
        self.time(where, status)
        if kind == "message":
            added += self.message(where, value)
        elif kind == "task":
            history = value.get("history") if isinstance(value.get("history"), list) else []
            for j, message in enumerate(history):
                added += self.message(f"{where}.history[{j}]", message)
            if status is not None:
                said = self.message(f"{where}.status.message", status.get("message"))
                added += said
            artifacts = value.get("artifacts") if isinstance(value.get("artifacts"), list) \
                else []
            for j, artifact in enumerate(artifacts):
                added += self.artifact(f"{where}.artifacts[{j}]", artifact, False)
        elif kind == "status-update":
            if status is not None:
                said = self.message(f"{where}.status.message", status.get("message"))
                added += said
        elif kind == "artifact-update":
            added += self.artifact(f"{where}.artifact", value.get("artifact"),
                                   value.get("append") is True)
        task = value.get("id") if kind == "task" else value.get("taskId")
        task = task if isinstance(task, str) and task else None
        for event in added:
            if task is not None and event["agent"] == AGENT:
                self.of_task[task] = event
        state = status.get("state") if status is not None else None
        if isinstance(state, str) and state and not (
                task is not None and not added and self.state_of.get(task) == state):
            if task is not None:
                self.state_of[task] = state
            # the state is the status's: on its message when it has one, else on the last
            # event added, else on the last agent event of the same task (not of another one)
            target = said[-1] if said else added[-1] if added else (
                self.of_task.get(task) if task is not None else next(
                    (e for e in reversed(self.turns.events) if e["agent"] == AGENT), None))
            if target is not None:
                target["x_task_state"] = state
                if state in FAILED:
                    target["x_error"] = True
        return added

    def record(self, where: str, record: Any) -> None:
        self.account.read()
        if not isinstance(record, dict):
            raise SourceError(self.path, where, f"a record must be an object, found "
                              f"{json_type(record)}")
        if isinstance(record.get("method"), str):
            method = record["method"]
            if method in SEND_METHODS:
                params = record.get("params") if isinstance(record.get("params"), dict) else {}
                added = self.message(f"{where}.params.message", params.get(
                    "message", params.get("request")))
                self._account(added, REPEATED)
            else:
                self.account.skip(f"request: {method}")
            return
        if "error" in record and record.get("result") is None and "jsonrpc" in record:
            self.count += 1
            error = record["error"] if isinstance(record["error"], dict) else {}
            self.turns.turn(id=f"m{self.count}", t=self.t, type="message", agent=AGENT,
                            to=CLIENT, content_ref=content_ref(record["error"]),
                            x_source=f"{where}.error", x_error=True,
                            x_error_code=error.get("code") if isinstance(
                                error.get("code"), int) else None)
            self.account.map()
            return
        value = record.get("result") if "jsonrpc" in record else record
        place = f"{where}.result" if "jsonrpc" in record else where
        kind, inner = _unwrap(value)
        if kind is None:
            self.account.skip("unknown record type: " + (
                str(value.get("kind")) if isinstance(value, dict) and "kind" in value
                else json_type(value)))
            return
        added = self.obj(place, kind, inner)
        if kind == "status-update" and not added:
            self.account.skip("status update: a state, no message (kept as x_task_state)")
            return
        self._account(added, REPEATED)

    def _account(self, added: list, reason: str) -> None:
        if added:
            self.account.map()
        else:
            self.account.skip(reason)


def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per conversation (``contextId``) of the log at ``path``."""
    path = Path(path)
    values = _values(path)
    version, why = _version(values)
    if sse_payloads(read_text(path)) is not None:
        why += ", in a server-sent event stream (data: lines)"
    groups: dict[str | None, list] = {}
    current = None
    for where, record in values:
        current = _context(record) or current
        groups.setdefault(current, []).append((where, record))
    return [_import(path, key, group, version, why, len(groups)) for key, group in
            groups.items()]


def import_file(path: str | Path) -> ImportResult:
    """The trace of a log of one conversation (a :class:`SourceError` for several: use
    :func:`import_traces`)."""
    return one_run(Path(path), FORMAT, import_traces(path), "conversations (contextId)",
                   lead="the log holds ")


def _import(path: Path, key: str | None, group: list, version: str, why: str,
            contexts: int) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    result.account.unit = UNIT
    log = _Log(path, result)
    for where, record in group:
        log.record(where, record)
    turns = log.turns
    if not turns.events:
        raise SourceError(path, None, "no record of the log is a message, a task or an "
                          "artifact (" + ", ".join(f"{n} {r}" for r, n in
                                                  sorted(result.skipped.items())) + ")")
    if log.origin is not None:
        result.time_origin = iso_from_ns(log.origin * 1000)
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    shape = "json-rpc" if any(isinstance(r, dict) and "jsonrpc" in r for _, r in group) \
        else "objects"
    result.recognised = {"system": "a2a", "version": version, "shape": shape,
                         "evidence": f"A2A {why}"}
    events = turns.events
    name = key or path.stem
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}" if contexts == 1 else f"{FORMAT}:{path.stem}:{name}",
        task_id=name, system="A2A", topology="centralized", rewards={},
        costs={"tokens": 0, "wall_clock_s": latest_end(events),
               "messages": turns.build.count("message")})
    return result.with_provenance()


def _is_record(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("jsonrpc") == "2.0":
        method = value.get("method")
        if isinstance(method, str):
            return method in SEND_METHODS or method.startswith("tasks/") \
                or method in ("GetTask", "CancelTask")
        return "result" in value and _unwrap(value.get("result"))[0] is not None \
            or "error" in value
    kind = value.get("kind")
    return isinstance(kind, str) and kind in ("task", "message", "status-update",
                                              "artifact-update") or _v1_object(value)


def sniff(sample: Sample) -> str | None:
    """A2A protocol traffic: JSON-RPC records (``message/send`` requests, results that are
    tasks, messages or stream events), A2A objects with ``kind`` ``task`` / ``message`` /
    ``status-update`` / ``artifact-update``, or version 1.0 objects (``_v1_object``)."""
    document = sample.document
    values = document if isinstance(document, list) else (
        [document] if document is not None else sample.records or [])
    if values and all(_is_record(v) for v in values[:10]) and any(
            isinstance(v, dict) and (v.get("method") in SEND_METHODS or _kind(v) is not None
                                     or isinstance(v.get("result"), dict) or _v1_object(v))
            for v in values[:10]):
        return "A2A JSON-RPC records or task and message objects"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for A2A JSON-RPC records (message/send, tasks...), objects with kind "
            "task, message, status-update or artifact-update, or version 1.0 objects (ROLE_ "
            "and TASK_STATE_ names, bare or wrapped as {task}, {statusUpdate}...)")
