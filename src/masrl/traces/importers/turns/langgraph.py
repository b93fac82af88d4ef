"""Import what a LangGraph graph streams or checkpoints (its update or debug stream, or its state
history) as an orchestration trace; the messages inside are read by :mod:`.chat`. Chapter 23 of
the book tells the mapping.
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
    read_jsonl,
    read_text,
    source_error,
)
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.timestamps import moment_ns
from masrl.traces.importers.turns.chat import Conversation, decode, is_message

FORMAT = "langgraph"
UNIT = "chunk"
SYSTEM = "LangGraph"
UPDATES, DEBUG, HISTORY, CHECKPOINT = "updates", "debug", "history", "checkpoint"
DEBUG_TYPES = {"task", "task_result", "checkpoint"}
INTERRUPT = "__interrupt__"


# ---------------------------------------------------------------------------------- reading

def _records(path: Path) -> list[tuple[str, Any]]:
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:
        return [(f"{n}", r) for n, r in read_jsonl_values(path, text)]
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, list):
        return [(f"[{k}]", r) for k, r in enumerate(document)]
    return [("", document)]


def read_jsonl_values(path: Path, text: str) -> list[tuple[int, Any]]:
    """JSON Lines whose lines may be pairs (lists) as well as objects."""
    from masrl.traces.importers._kit.common import json_values

    if all(line.lstrip().startswith("{") for line in text.splitlines() if line.strip()):
        return read_jsonl(path, Counter())
    return json_values(path, text)


def _shape(records: list) -> str | None:
    values = [r for _, r in records]
    if len(values) == 1 and isinstance(values[0], dict):
        one = values[0]
        if "channel_values" in one:
            return CHECKPOINT
        if isinstance(one.get("checkpoint"), dict) and "channel_values" in one["checkpoint"]:
            return CHECKPOINT
    if values and all(_is_snapshot(v) for v in values[:5]):
        return HISTORY
    if values and all(_is_debug(v) for v in values[:5]):
        return DEBUG
    chunks = [_update_chunk(v) for v in values[:10]]
    if values and all(c is not None for c in chunks) and any(_speaks(c[2]) for c in chunks):
        return UPDATES
    return None


def _is_snapshot(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("values"), dict) \
        and isinstance(value.get("metadata"), dict) and "next" in value


def _is_debug(value: Any) -> bool:
    """A debug record, alone or as the ``[namespace, record]`` pair that ``subgraphs=True``
    streams."""
    value = _unwrap(value)
    return isinstance(value, dict) and isinstance(value.get("type"), str) \
        and value["type"] in DEBUG_TYPES \
        and isinstance(value.get("payload"), dict) and "step" in value


def _unwrap(value: Any) -> Any:
    """The record of a ``[namespace, record]`` pair (a subgraph's), else ``value``."""
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], list) \
            and all(isinstance(n, str) for n in value[0]):
        return value[1]
    return value


def _writes(result: Any) -> list:
    """A task result's writes as ``[channel, value]`` pairs: LangGraph lists them as pairs,
    or (1.x) gives them as an object ``{channel: value}``."""
    if isinstance(result, dict):
        return [[channel, value] for channel, value in result.items()]
    return result if isinstance(result, list) else []


def _update_chunk(value: Any) -> tuple[str | None, str | None, dict] | None:
    """``(mode, namespace, {node: update})`` of an update chunk, ``None`` when it is not one."""
    mode = namespace = None
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        mode, value = value  # [mode, chunk]
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], list):
        namespace = "|".join(str(n) for n in value[0])
        value = value[1]  # [namespace, chunk]
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) \
            and mode is None:
        mode, value = value
    if not isinstance(value, dict) or not value:
        return None
    if mode not in (None, "updates"):
        return mode, namespace, value
    if not all(isinstance(update, (dict, list)) or update is None for update in value.values()):
        return None
    if any(k in value for k in ("type", "role", "content", "author", "event", "run_type")):
        return None
    return mode, namespace, value


def _speaks(chunk: dict) -> bool:
    """An update chunk in which a node writes messages (or the graph is interrupted)."""
    return any(isinstance(u, dict) and "messages" in u or k == INTERRUPT
               for k, u in chunk.items())


# ---------------------------------------------------------------------------------- importing

class _Graph:
    def __init__(self, path: Path, result: ImportResult) -> None:
        self.path, self.result, self.account = path, result, result.account
        self.chat = Conversation(path, result)
        self.turns = self.chat.turns
        self.seen: set[str] = set()
        self.count = 0

    def update(self, where: str, node: str, update: Any, error: bool = False) -> bool:
        """The events of one node's update; ``False`` when it gives none."""
        if node == INTERRUPT or update is None:
            return False
        messages = update.get("messages") if isinstance(update, dict) else None
        if isinstance(messages, dict):
            messages = [messages]
        if isinstance(messages, list):
            mapped = False
            for j, value in enumerate(messages):
                place = f"{where}.{node}.messages[{j}]"
                message = decode(self.path, place, value, self.result.repairs)
                if message.id is not None and message.id in self.seen:
                    self.account.skip_part("message read before: the node repeats history")
                    continue
                if message.id is not None:
                    self.seen.add(message.id)
                self.chat.state(message)
                self.count += 1
                speaker = (message.name or node) if message.role == "assistant" \
                    else message.name
                mapped |= self.chat.map(f"g{self.count}", place, message, speaker)
            if mapped or not set(update) - {"messages"}:
                return mapped
        self.count += 1
        self.turns.turn(t=self.chat.t, id=f"g{self.count}", type="message", agent=node,
                        content_ref=content_ref(update), x_source=f"{where}.{node}",
                        x_error=True if error else None)
        return True

    def chunk(self, where: str, chunk: dict, skip_reason: str) -> None:
        self.account.read()
        mapped = False
        for node, update in chunk.items():
            if node == INTERRUPT:
                self.account.skip_part("interrupt: the graph waits for a human")
                continue
            mapped |= self.update(where, node, update)
        if mapped:
            self.account.map()
        else:
            self.account.skip(skip_reason)


def _time(path: Path, where: str, field: str, value: Any) -> int:
    """Microseconds since 1970 of an ISO 8601 time with a UTC offset."""
    return moment_ns(value, path, where or None, field, naive=False, numbers=False) // 1000


def import_file(path: str | Path) -> ImportResult:
    """The trace of a LangGraph stream or state history (chapter 23 of the book)."""
    path = Path(path)
    records = _records(path)
    shape = _shape(records)
    if shape is None:
        raise SourceError(path, None, "expected LangGraph update chunks ({node: {messages}}), "
                          "debug records ({type, step, payload}), state snapshots ({values, "
                          "next, metadata}) or a checkpoint ({channel_values})")
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    result.account.unit = UNIT
    graph = _Graph(path, result)
    {UPDATES: _updates, DEBUG: _debug, HISTORY: _history, CHECKPOINT: _checkpoint}[shape](
        path, records, graph, result)
    turns = graph.turns
    if not turns.events:
        raise SourceError(path, None, "no chunk of the stream gives an event (" + ", ".join(
            f"{n} {reason}" for reason, n in sorted(result.skipped.items())) + ")")
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    nodes = sorted({e["agent"] for e in turns.events if e.get("role") != "human"})
    evidence = {UPDATES: "update chunks {node: {messages: [...]}}",
                DEBUG: "debug records {type: task | task_result | checkpoint, step, payload}",
                HISTORY: "state snapshots {values, next, metadata: {writes}} (get_state_history)",
                CHECKPOINT: "a checkpoint {channel_values} read through its messages"}[shape]
    result.recognised = {"system": "langgraph", "shape": shape,
                         "evidence": f"{evidence}; nodes or speakers: {', '.join(nodes)}"}
    events = turns.events
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}", task_id=path.stem, system=SYSTEM, topology="unknown",
        rewards={}, costs={"tokens": sum(e.get("tokens", 0) for e in events),
                           "wall_clock_s": latest_end(events),
                           "messages": turns.build.count("message"),
                           "tool_calls": turns.build.count("tool_call")})
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def _updates(path: Path, records: list, graph: _Graph, result: ImportResult) -> None:
    for where, value in records:
        parsed = _update_chunk(value)
        if parsed is None:
            graph.account.read()
            if isinstance(value, (dict, list)):
                graph.account.skip("unknown record type: not an update chunk")
                continue
            raise SourceError(path, where, f"an update chunk must be an object, found "
                              f"{json_type(value)}")
        mode, _, chunk = parsed
        if mode not in (None, "updates"):
            graph.account.read()
            graph.account.skip(f"stream mode {mode}: not read (the updates carry the turns)")
            continue
        graph.chunk(where, chunk, "update without a turn (interrupts or empty updates)")


def _debug(path: Path, records: list, graph: _Graph, result: ImportResult) -> None:
    records = [(where, _unwrap(value)) for where, value in records]
    stamps = {}
    for where, value in records:
        if isinstance(value, dict) and "timestamp" in value:
            stamps[where] = _time(path, where, "timestamp", value["timestamp"])
    origin = min(stamps.values()) if stamps else None
    if origin is not None:
        result.time_origin = iso_from_ns(origin * 1000)
    started: dict[str, float] = {}  # task id -> start time, until its result is read
    for where, value in records:
        graph.account.read()
        if not _is_debug(value):
            graph.account.skip("unknown record type: " + (str(value.get("type"))
                               if isinstance(value, dict) else json_type(value)))
            continue
        t = (stamps[where] - origin) / 1_000_000 if where in stamps else 0
        payload = value["payload"]
        if value["type"] == "checkpoint":
            graph.account.skip("checkpoint: the state after a step (repeats the writes)")
            continue
        if value["type"] == "task":
            started[str(payload.get("id"))] = t
            continue
        task = str(payload.get("id"))
        had_task = task in started
        graph.chat.t = started.pop(task, t)
        node = payload.get("name") if isinstance(payload.get("name"), str) else "node"
        writes = _writes(payload.get("result"))
        update: dict = {}
        for write in writes:
            if isinstance(write, list) and len(write) == 2 and isinstance(write[0], str):
                if write[0] == "messages":
                    update.setdefault("messages", [])
                    extra = write[1] if isinstance(write[1], list) else [write[1]]
                    update["messages"].extend(extra)
                else:
                    update[write[0]] = write[1]
        before = len(graph.turns.events)
        mapped = graph.update(where, node, update or {"result": writes},
                              error=payload.get("error") is not None)
        for event in graph.turns.events[before:]:
            if t > event["t"]:
                event["t_end"] = t
            if payload.get("error") is not None:
                event["x_error"] = True
        if mapped:
            graph.account.map(2 if had_task else 1)  # the task is carried by its result
        else:
            graph.account.skip("task result without a turn", 2 if had_task else 1)
    if started:
        graph.account.skip("task without a result: the node did not finish", len(started))


def _history(path: Path, records: list, graph: _Graph, result: ImportResult) -> None:
    snapshots = [(where, v) for where, v in records]
    def step(item):
        metadata = item[1].get("metadata") if isinstance(item[1], dict) else {}
        value = metadata.get("step") if isinstance(metadata, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else 0
    ordered = sorted(snapshots, key=step)  # oldest first, whatever order the file has
    stamps = {where: _time(path, where, "created_at", v["created_at"])
              for where, v in ordered if isinstance(v, dict) and v.get("created_at") is not None}
    origin = min(stamps.values()) if stamps else None
    if origin is not None:
        result.time_origin = iso_from_ns(origin * 1000)
    with_writes = any(isinstance(v.get("metadata"), dict) and "writes" in v["metadata"]
                      for _, v in ordered if isinstance(v, dict))
    if not with_writes:
        last = ordered[-1]
        for _ in ordered[:-1]:
            graph.account.read()
            graph.account.skip("earlier state: the last state holds its messages")
        _state_messages(path, last[0], last[1].get("values"), graph)
        return
    for where, value in ordered:
        if not _is_snapshot(value):
            graph.account.read()
            graph.account.skip("unknown record type: not a state snapshot")
            continue
        if where in stamps:
            graph.chat.t = (stamps[where] - origin) / 1_000_000
        writes = value["metadata"].get("writes")
        if not isinstance(writes, dict) or not writes:
            graph.account.read()
            graph.account.skip("snapshot without writes (the start, or a step that wrote "
                               "nothing)")
            continue
        if value["metadata"].get("source") == "input":
            writes = {"user" if k == "__start__" else k: v for k, v in writes.items()}
        graph.chunk(f"{where}.metadata.writes", writes, "snapshot without a turn")


def _checkpoint(path: Path, records: list, graph: _Graph, result: ImportResult) -> None:
    where, value = records[0]
    checkpoint = value.get("checkpoint") if isinstance(value.get("checkpoint"), dict) else value
    if checkpoint.get("ts") is not None:
        stamp = _time(path, where, "ts", checkpoint["ts"])
        result.time_origin = iso_from_ns(stamp * 1000)
    _state_messages(path, where, checkpoint.get("channel_values"), graph)


def _state_messages(path: Path, where: str, values: Any, graph: _Graph) -> None:
    """A state's messages read as a transcript: one chunk, the state."""
    graph.account.read()
    messages = values.get("messages") if isinstance(values, dict) else None
    if not isinstance(messages, list) or not messages:
        graph.account.skip("state without messages")
        return
    mapped = False
    for j, value in enumerate(messages):
        place = f"{where}.messages[{j}]"
        message = decode(path, place, value, graph.result.repairs)
        graph.chat.state(message)
        graph.count += 1
        mapped |= graph.chat.map(f"g{graph.count}", place, message, message.name)
    if mapped:
        graph.account.map()
    else:
        graph.account.skip("state without a turn")


# ---------------------------------------------------------------------------------- sniffing

def _sample_values(sample) -> list:
    document = sample.document
    if isinstance(document, list):
        return document
    if document is not None:
        return [document]
    if sample.values is not None:  # JSON Lines of [namespace, record] pairs (subgraphs=True)
        return sample.values
    return sample.records or []


def sniff(sample: Sample) -> str | None:
    """LangGraph output: update chunks ``{node: {messages: [...]}}`` (as a list or JSON Lines,
    with subgraph namespaces or stream modes), debug records ``{type: task | task_result |
    checkpoint, step, payload}``, state snapshots ``{values, next, metadata}`` or a checkpoint
    ``{channel_values}``."""
    values = _sample_values(sample)
    if sample.records is not None and sample.document is None and not values:
        return None
    shape = _shape([("", v) for v in values[:10]]) if values else None
    if shape == CHECKPOINT:
        one = values[0]
        state = one.get("checkpoint", one).get("channel_values")
        messages = state.get("messages") if isinstance(state, dict) else None
        if isinstance(messages, list) and messages and all(is_message(m) for m in messages[:5]):
            return "a LangGraph checkpoint whose channel_values hold messages"
        return None
    return {UPDATES: "LangGraph update chunks: {node: {messages}}",
            DEBUG: "LangGraph debug records: {type, step, payload}",
            HISTORY: "LangGraph state snapshots: {values, next, metadata}"}.get(shape)


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for LangGraph update chunks ({node: {messages}}), debug records ({type: "
            "task/task_result/checkpoint, step, payload}), state snapshots ({values, next, "
            "metadata}) or a checkpoint ({channel_values: {messages}})")
