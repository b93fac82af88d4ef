"""Import a chat transcript (OpenAI-style or LangChain messages, as LangGraph, LangChain, AutoGen
0.2 and OpenAI-style agents keep their conversation) as an orchestration trace. :func:`decode`
reads one message in either form; the LangGraph and LangChain importers use it too. Chapter 23
of the book tells the mapping.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    content_ref,
    json_type,
    read_jsonl,
    read_text,
    source_error,
)
from masrl.traces.importers._kit.numbers import count
from masrl.traces.importers._kit.sampling import PYTHON_REPR, Sample
from masrl.traces.importers._kit.sequential import Turns, usage_fields

FORMAT = "chat"
UNIT = "message"
OPENAI_ROLES = {"user", "assistant", "system", "developer", "tool", "function"}
LANGCHAIN_TYPES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool",
                   "function": "function", "chat": None, "HumanMessage": "user",
                   "AIMessage": "assistant", "AIMessageChunk": "assistant",
                   "SystemMessage": "system", "ToolMessage": "tool",
                   "FunctionMessage": "function"}
SYSTEM_SKIP = "system message: instructions or the run's status, not a turn"
TRANSFER_ACK = "transfer acknowledgement: the tool message answering a handoff"
HANDOFF_PREFIXES = ("transfer_back_to_", "transfer_to_")


def handoff_target(name: Any) -> str | None:
    """The agent a handoff tool hands the conversation to (``transfer_to_<agent>``,
    ``transfer_back_to_<agent>``, as langgraph-supervisor and langgraph-swarm name them)."""
    if isinstance(name, str):
        for prefix in HANDOFF_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                return name[len(prefix):]
    return None
OPENAI, LANGCHAIN = "openai", "langchain"


@dataclass
class Message:
    """One chat message, whatever its form."""

    role: str | None  # user, assistant, system, developer, tool, function; None: unknown
    kind: str  # the role or type as written
    name: str | None
    content: Any
    id: str | None = None
    tool_calls: list[tuple[str | None, str | None, Any]] = field(default_factory=list)
    tool_call_id: str | None = None
    form: str = "openai"  # openai or langchain
    usage: tuple[float | None, float | None, dict] | None = None  # input, output, parts
    model: str | None = None  # the model that wrote it, when the message names it
    model_call: bool = False
    responses: list[tuple[str | None, Any]] = field(default_factory=list)  # AutoGen 0.2


# ---------------------------------------------------------------------------------- decoding

def decode(path: Path, where: str, value: Any, repairs: Counter | None = None) -> Message:
    """A chat message (either form) read from ``value``; a :class:`SourceError` at ``where``
    when it cannot be one. Its token counts are read by the kit's rule (text read and counted
    in ``repairs``, anything else refused)."""
    if not isinstance(value, dict):
        raise SourceError(path, where, f"a message must be an object, found {json_type(value)}")
    if "role" not in value and isinstance(value.get("data"), dict) and "type" in value:
        value = {**value["data"], "type": value["type"]}  # messages_to_dict
    value = serialised(value)
    if "role" in value:
        kind = value["role"]
        if not isinstance(kind, str):
            raise SourceError(path, f"{where}.role", f"must be a string, found "
                              f"{json_type(kind)}")
        role = kind if kind in OPENAI_ROLES else None
    else:
        kind = value.get("type")
        if not isinstance(kind, str):
            raise SourceError(path, f"{where}.type", "must be a message type (human, ai, tool, "
                              f"system...), found {json_type(kind)}")
        role = LANGCHAIN_TYPES.get(kind)
        if kind == "chat" and isinstance(value.get("role"), str):
            role = value["role"] if value["role"] in OPENAI_ROLES else None
    name = value.get("name")
    message = Message(role=role, kind=kind, name=name if isinstance(name, str) and name else None,
                      form=OPENAI if "role" in value and "type" not in value else LANGCHAIN,
                      content=value.get("content", ""),
                      id=value["id"] if isinstance(value.get("id"), str) else None)
    if role == "assistant":
        message.tool_calls = _tool_calls(path, where, value)
        message.usage = _usage(value, path, where, repairs)
        message.model = _model(value)
        metadata = value.get("response_metadata")
        message.model_call = message.usage is not None or (
            isinstance(metadata, dict) and bool(metadata)) or "usage_metadata" in value
    if role in ("tool", "function"):
        call_id = value.get("tool_call_id")
        message.tool_call_id = call_id if isinstance(call_id, str) else None
        responses = value.get("tool_responses")
        if isinstance(responses, list):
            message.responses = [(r.get("tool_call_id"), r.get("content", ""))
                                 for r in responses if isinstance(r, dict)]
    return message


def serialised(value: dict) -> dict:
    """A message LangChain serialised with ``dumpd`` (``{lc, type: constructor, id: [...,
    "AIMessage"], kwargs}``, as LangGraph's checkpointers write it) as a plain message dict;
    any other value unchanged."""
    if value.get("type") == "constructor" and isinstance(value.get("kwargs"), dict) \
            and isinstance(value.get("id"), list) and value["id"] \
            and isinstance(value["id"][-1], str):
        return {**value["kwargs"], "type": value["id"][-1]}
    return value


def _tool_calls(path: Path, where: str, value: dict) -> list[tuple]:
    """``(id, name, arguments)`` of an assistant message's tool calls: LangChain's
    ``tool_calls`` ({id, name, args}), else OpenAI's ({id, function: {name, arguments}}, also
    under ``additional_kwargs``), else a legacy ``function_call``."""
    extra = value.get("additional_kwargs") if isinstance(value.get("additional_kwargs"),
                                                          dict) else {}
    calls = value.get("tool_calls")
    place = f"{where}.tool_calls"
    if not calls:
        calls, place = extra.get("tool_calls"), f"{where}.additional_kwargs.tool_calls"
    if calls:
        if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
            raise SourceError(path, place, f"must be a list of tool calls (objects), found "
                              f"{json_type(calls)}")
        found = []
        for call in calls:
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            name = call.get("name", function.get("name"))
            arguments = call.get("args", function.get("arguments", ""))
            found.append((call.get("id") if isinstance(call.get("id"), str) else None,
                          name if isinstance(name, str) else None, arguments))
        return found
    legacy = value.get("function_call") or extra.get("function_call")
    if isinstance(legacy, dict):
        return [(None, legacy.get("name"), legacy.get("arguments", ""))]
    return []


def _usage(value: dict, path: Path, where: str, repairs: Counter | None
           ) -> tuple[float | None, float | None, dict] | None:
    """``(input, output, parts)`` a LangChain or OpenAI-style message states (see the module),
    read by the kit's rule; a side it does not state is ``None``."""

    def read(holder: dict, key: str, place: str):
        return count(holder.get(key), path, where, f"{place}.{key}", repairs)

    usage = value.get("usage_metadata")
    if isinstance(usage, dict):
        tokens_in = read(usage, "input_tokens", "usage_metadata")
        tokens_out = read(usage, "output_tokens", "usage_metadata")
        if tokens_in is not None or tokens_out is not None:
            parts = {}
            details = usage.get("input_token_details")
            if isinstance(details, dict):
                place = "usage_metadata.input_token_details"
                parts["cached_input"] = read(details, "cache_read", place) or 0
                parts["cache_creation"] = read(details, "cache_creation", place) or 0
            details = usage.get("output_token_details")
            if isinstance(details, dict):
                place = "usage_metadata.output_token_details"
                parts["reasoning_output"] = read(details, "reasoning", place) or 0
            return tokens_in, tokens_out, parts
    metadata = value.get("response_metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    for name, holder in (("response_metadata.token_usage", metadata.get("token_usage")),
                         ("response_metadata.usage", metadata.get("usage")),
                         ("usage", value.get("usage"))):
        if isinstance(holder, dict):
            key_in = "prompt_tokens" if "prompt_tokens" in holder else "input_tokens"
            key_out = "completion_tokens" if "completion_tokens" in holder else "output_tokens"
            tokens_in, tokens_out = read(holder, key_in, name), read(holder, key_out, name)
            if tokens_in is not None or tokens_out is not None:
                return tokens_in, tokens_out, {}
    return None


MODEL_KEYS = ("model_name", "model")  # where LangChain and OpenAI name the model


def _model(value: dict) -> str | None:
    """The model a message names (LangChain's ``response_metadata``, OpenAI's ``model``)."""
    metadata = value.get("response_metadata")
    for holder in (metadata if isinstance(metadata, dict) else {}, value):
        for key in MODEL_KEYS:
            if isinstance(holder.get(key), str) and holder[key]:
                return holder[key]
    return None


def embedded_update(content: Any) -> list | None:
    """The messages inside a LangGraph ``updates`` chunk written as JSON text in a message's
    content (``{node: {"messages": [...]}}``), as ``(node, message)`` pairs; ``None`` when the
    content is not one."""
    if not isinstance(content, str) or not content.startswith("{"):
        return None
    try:
        chunk = json.loads(content)
    except ValueError:
        return None
    if not isinstance(chunk, dict) or not chunk:
        return None
    inner = []
    for node, update in chunk.items():
        messages = update.get("messages") if isinstance(update, dict) else None
        if not isinstance(messages, list) or not all(
                isinstance(m, dict) and isinstance(m.get("type"), str) for m in messages):
            return None
        inner.extend((node, m) for m in messages)
    return inner


# ---------------------------------------------------------------------------------- reading

def _read(path: Path) -> tuple[list[tuple[str, Any]], str]:
    """``[(where, message)]`` and the container (``list``, ``object``, ``lines``)."""
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:
        if PYTHON_REPR.match(text):
            raise SourceError(path, None, "not JSON: a Python repr (single-quoted strings, "
                              "None/True/False), as print() or str() writes a list; write the "
                              "transcript with json.dump")
        records = read_jsonl(path, Counter())
        return [(f"{number}", record) for number, record in records], "lines"
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return [(f"messages[{k}]", m) for k, m in enumerate(document["messages"])], "object"
    if isinstance(document, list):
        return [(f"[{k}]", m) for k, m in enumerate(document)], "list"
    raise SourceError(path, None, "expected a chat transcript: a list of messages, an object "
                      f"with a 'messages' list, or JSON Lines of messages; found "
                      f"{json_type(document)}")


# ---------------------------------------------------------------------------------- importing

class Conversation:
    """The events of chat messages read one after another (shared with :mod:`.langgraph`)."""

    def __init__(self, path: Path, result: ImportResult) -> None:
        self.path, self.result, self.account = path, result, result.account
        self.turns = Turns()
        self.last_speaker: str | None = None
        self.first = True
        self.forms: Counter = Counter()
        self.embedded = 0
        self.t: float = 0  # the time of the messages being read (a transcript has none)
        self.transfers: set[str] = set()  # ids of handoff tool calls

    def message(self, k: int, where: str, value: Any) -> None:
        self.account.read()
        message = decode(self.path, where, value, self.result.repairs)
        self.forms[message.form] += 1
        inner = embedded_update(message.content) if message.role is not None else None
        if inner is not None:
            self.embedded += 1
            speaker = message.name or message.kind
            mapped = False
            for j, (_, nested) in enumerate(inner):
                part = decode(self.path, f"{where}.content[{j}]", nested, self.result.repairs)
                self._state(part)
                mapped |= self._map(f"m{k}.{j}", f"{where}.content[{j}]", part, speaker)
            if mapped:
                self.account.map()
            else:
                self.account.skip("update without a turn (system messages only)")
            return
        self._state(message)
        if message.role in ("system", "developer"):
            self.account.skip(SYSTEM_SKIP, usage=None)
            return
        if message.role is None:
            self.account.skip(f"unknown record type: {message.kind}")
            return
        self._map(f"m{k}", where, message, message.name)
        self.account.map()

    def state(self, message: Message) -> None:
        """Count the usage ``message`` states."""
        self._state(message)

    def _state(self, message: Message) -> None:
        if message.usage is not None:
            self.account.state_usage(tokens_in=message.usage[0] or 0,
                                     tokens_out=message.usage[1] or 0)

    def map(self, eid: str, where: str, message: Message, speaker: str | None) -> bool:
        """Events of one message (ids from ``eid``, by ``speaker``); ``False`` when it gives
        none (a system message, counted as a skipped part)."""
        return self._map(eid, where, message, speaker)

    def _map(self, eid: str, where: str, message: Message, speaker: str | None) -> bool:
        turns, base = self.turns, {"t": self.t, "x_source": where}
        ref = content_ref(message.content)
        if message.role in ("system", "developer") or message.role is None:
            self.account.skip_part(SYSTEM_SKIP if message.role else
                                   f"unknown record type: {message.kind}")
            return False
        if message.role == "user":
            agent = speaker or "user"
            human = self.first or speaker is None or agent == "user"
            turns.turn(**base, id=eid, type="message", agent=agent,
                       role="human" if human else None, content_ref=ref)
        elif message.role == "assistant":
            agent = speaker or "assistant"
            model = {}
            if message.model_call:
                tokens_in, tokens_out, parts = message.usage or (None, None, {})
                model = usage_fields(tokens_in, tokens_out, message.id or where, parts,
                                     message.model)
            text = message.content not in ("", None, [])
            if text or not message.tool_calls:
                turns.turn(**base, id=eid, type="message", agent=agent, content_ref=ref,
                           x_message_id=message.id, **({} if message.tool_calls else model))
            calls, handoffs = [], []
            for j, (call_id, name, arguments) in enumerate(message.tool_calls):
                target = handoff_target(name)
                if target is not None:
                    handoffs.append({**base, "id": f"{eid}.c{j}", "type": "orchestrator_decision",
                                     "agent": agent, "decision": "delegate", "to": target,
                                     "x_handoff": True, "content_ref": content_ref(arguments)})
                    if call_id is not None:
                        self.transfers.add(call_id)
                    continue
                calls.append({**base, "id": f"{eid}.c{j}", "type": "tool_call", "agent": agent,
                              "tool": name, "content_ref": content_ref(arguments),
                              "call_id": call_id})
            if calls:
                calls[-1].update(model if not handoffs else {})
                turns.calls_made(calls)
            for k, handoff in enumerate(handoffs):
                turns.turn(**handoff, **(model if k == len(handoffs) - 1 else {}))
        else:  # tool, function
            answers = message.responses or [(message.tool_call_id, message.content)]
            results = []
            for j, (call_id, content) in enumerate(answers):
                if call_id is not None and call_id in self.transfers:
                    self.account.skip_part(TRANSFER_ACK)
                    continue
                call = turns.call_for(call_id) or (turns.open_calls[0] if turns.open_calls
                                                   else None)
                if call is None:  # the transcript has the output, not the call
                    caller = self.last_speaker or "assistant"
                    call = turns.calls_made([{**base, "id": f"{eid}.c{j}", "type": "tool_call",
                                              "agent": caller, "tool": message.name,
                                              "x_implied_call": True}])[0]["id"]
                caller = turns.build.by_id[call]["agent"]
                results.append({**base, "id": f"{eid}.r{j}" if len(answers) > 1 else eid,
                                "type": "tool_result", "agent": caller, "tool": message.name
                                or turns.build.by_id[call].get("tool"),
                                "content_ref": content_ref(content), "call": call})
            turns.results(results)
            self.first = False
            return bool(results)
        self.last_speaker = agent
        self.first = False
        return True


def import_file(path: str | Path) -> ImportResult:
    """The trace of one chat transcript (chapter 23 of the book tells the mapping)."""
    path = Path(path)
    messages, container = _read(path)
    if not messages:
        raise SourceError(path, None, "the transcript holds no message")
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    result.account.unit = UNIT
    transcript = Conversation(path, result)
    for k, (where, value) in enumerate(messages):
        transcript.message(k, where, value)
    turns = transcript.turns
    if not turns.events:
        raise SourceError(path, None, "no message of the transcript is a turn (only system "
                          "messages or unknown roles: " + ", ".join(sorted(result.skipped)) + ")")
    form = OPENAI if transcript.forms[OPENAI] >= transcript.forms[LANGCHAIN] else LANGCHAIN
    evidence = {OPENAI: "messages with 'role' (user, assistant, tool...)",
                LANGCHAIN: "LangChain messages with 'type' (human, ai, tool...)"}[form]
    container_text = {"list": "a JSON list", "object": "an object's 'messages'",
                      "lines": "JSON Lines"}[container]
    evidence = f"{evidence} in {container_text}"
    if transcript.embedded:
        evidence += (f"; {transcript.embedded} messages hold a LangGraph 'updates' chunk as JSON "
                     "text, read for the messages inside")
    result.recognised = {"system": "chat transcript", "shape": form,
                         "embedded": "langgraph-updates" if transcript.embedded else "none",
                         "evidence": evidence}
    events = turns.events
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}", task_id=path.stem, system="chat transcript",
        topology="unknown", rewards={},
        costs={"tokens": sum(e.get("tokens", 0) for e in events), "wall_clock_s": 0,
               "messages": turns.build.count("message"),
               "tool_calls": turns.build.count("tool_call")})
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


# ---------------------------------------------------------------------------------- sniffing

def is_message(value: Any, known: bool = True) -> bool:
    """A chat message in either form (chapter 23 of the book); with ``known`` false, a
    ``{role, content}`` object whose role is some other string counts too."""
    if not isinstance(value, dict):
        return False
    value = serialised(value)
    kind = value.get("type") if isinstance(value.get("type"), str) else None
    if isinstance(value.get("data"), dict) and kind in LANGCHAIN_TYPES:
        value = value["data"]
        kind = value.get("type") if isinstance(value.get("type"), str) else kind
    if "source" in value or "history" in value:  # AutoGen AgentChat dumps, Who&When logs
        return False
    role = value.get("role") if isinstance(value.get("role"), str) else None
    if role in OPENAI_ROLES or (not known and role is not None and "type" not in value):
        return "content" in value or "tool_calls" in value or "function_call" in value
    return kind in LANGCHAIN_TYPES and "content" in value


def _messages(sample) -> list | None:
    document = sample.document
    if isinstance(document, list):
        return document
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return document["messages"]
    return sample.records


def sniff(sample: Sample) -> str | None:
    """A chat transcript: a list (or an object's ``messages``, or JSON Lines) of chat messages
    with ``role`` (user, assistant, tool...) or a LangChain ``type`` (human, ai, tool...) and
    ``content``."""
    messages = _messages(sample)
    if messages and all(is_message(m, known=False) for m in messages[:10]) and any(
            is_message(m) for m in messages[:10]):
        return "a list of chat messages with roles and contents"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for a list of chat messages ({role, content} or LangChain {type: human/ai/"
            "tool, content})")
