"""The log formats ``masrl import`` reads: one declaration per format, and the contract every
importer module keeps (:class:`Importer`).

Everything that lists the formats reads :data:`REGISTRY`: the command line's choices and help,
``import auto`` (in this order), the README's table of formats and chapter 23 of the book. This
module is cheap to import (no importer, no numpy): building the ``masrl`` parser reads it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from masrl.traces.importers._kit.common import ImportResult
    from masrl.traces.importers._kit.sampling import Sample

FAMILIES = {"sessions": "session logs of agent harnesses",
            "spans": "span exports of tracing tools",
            "turns": "turn and chat logs of multi-agent frameworks"}
"""The folder of each family of importers (``importers/<family>/``) and what it holds."""


@runtime_checkable
class Importer(Protocol):
    """What every importer module provides (checked by mypy in the tests, and at load time)."""

    def import_file(self, path: str | Path) -> ImportResult:
        """The trace of a log that holds one run (a :class:`SourceError` otherwise)."""
        ...

    def import_traces(self, path: str | Path) -> list[ImportResult]:
        """One trace per run the log holds, in the log's order."""
        ...

    def sniff(self, sample: Sample) -> str | None:
        """A short reason when the sampled file is in this format, else ``None``."""
        ...

    def refusal(self, sample: Sample) -> str:
        """Why the sampled file is not in this format (for ``import auto``'s message)."""
        ...


@dataclass(frozen=True)
class Format:
    """One log format: its name on the command line, where its importer lives, and how a
    reader and ``import auto`` know it."""

    name: str  # as ``masrl import`` takes it
    module: str  # the importer module, imported only when the format is used
    title: str  # what the logs are, as a heading says it
    description: str  # one line: what the importer reads
    recognised_by: str  # one line: what its ``sniff`` looks for
    variants: tuple[str, ...]  # the versions and shapes it knows
    several_runs: bool  # whether one file can hold several runs (one trace each)

    @property
    def family(self) -> str:
        """The family folder the importer lives in (a key of :data:`FAMILIES`)."""
        return self.module.split(".")[3]


_ROOT = "masrl.traces.importers"

REGISTRY: tuple[Format, ...] = (
    Format("otel", f"{_ROOT}.spans.otel", "OpenTelemetry GenAI spans",
           "OpenTelemetry spans of agent runs, in every exported shape and attribute convention",
           "OTLP JSON (resourceSpans), or spans with OpenTelemetry ids: Python (context), flat "
           "span dicts (trace_id and span_id) or JavaScript (traceId / spanContext)",
           ("OTLP JSON", "Python and JavaScript SDK span JSON", "console output",
            "any-agent traces", "flat span dicts and ADOT bundles", "Phoenix REST spans",
            "Phoenix span annotations",
            "GenAI, OpenInference, Vercel AI SDK, OpenLLMetry, AG2 and BeeAI attributes"),
           several_runs=True),
    Format("claude-code", f"{_ROOT}.sessions.claude_code", "Claude Code sessions",
           "a Claude Code session with its sub-agents, compactions and workflow agents",
           "JSON Lines records with sessionId and uuid",
           ("2.1 sub-agent folder", "2.0 sub-agent logs beside the session",
            "1.0 inline sidechains", "agent_progress copies", "Task results only",
            "workflow runs"),
           several_runs=False),
    Format("who-and-when", f"{_ROOT}.turns.who_and_when", "Who&When failure logs",
           "a labelled Who&When log of a Magentic-One or CaptainAgent run",
           "a JSON object with a history list of chat records",
           ("Magentic-One (hand-crafted)", "CaptainAgent group chats (algorithm-generated)",
            "AutoGen message reprs"),
           several_runs=False),
    Format("langfuse", f"{_ROOT}.spans.langfuse", "Langfuse traces",
           "Langfuse traces with their observations",
           "a trace with observations (alone, as the UI's download, in a list, under data, or "
           "one per line)",
           ("the API's trace", "the UI's download", "a list or the list endpoint's data",
            "one trace per line", "scores"),
           several_runs=True),
    Format("openai-agents", f"{_ROOT}.spans.openai_agents", "OpenAI Agents SDK spans",
           "traces and spans of the OpenAI Agents SDK",
           "records with object trace.span (alone, in a list, under data, or one per line)",
           ("processor JSON Lines", "the backend exporter's payload"),
           several_runs=True),
    Format("atif", f"{_ROOT}.sessions.atif", "ATIF trajectories",
           "an ATIF trajectory with its sub-agent trajectories and continuation segments",
           "a JSON object whose schema_version starts with ATIF and that has steps",
           ("ATIF v1.4 to v1.8", "embedded or file-referenced sub-agents",
            "continuation segments", "Terminus keystroke commands",
            "files prefixed before trajectory.json"),
           several_runs=False),
    Format("codex", f"{_ROOT}.sessions.codex", "Codex CLI rollouts",
           "a Codex CLI rollout with the rollouts of its sub-agents",
           "JSON Lines records {timestamp, type, payload} whose first is session_meta, or an "
           "older rollout's first line {id, timestamp, instructions} followed by items",
           ("token counts after the response they price (0.125)",
            "token counts before it (0.40)", "sub-agent rollouts",
            "the older layout: items without the envelope"),
           several_runs=False),
    Format("gemini-cli", f"{_ROOT}.sessions.gemini_cli", "Gemini CLI sessions",
           "a Gemini CLI chat recording with the sessions of its sub-agents",
           "a JSON object with sessionId, projectHash and messages, or JSON Lines whose first "
           "record has sessionId and projectHash",
           ("JSON Lines recordings", "earlier JSON recordings"),
           several_runs=False),
    Format("autogen", f"{_ROOT}.turns.autogen", "AutoGen AgentChat runs",
           "the messages and events of AutoGen AgentChat runs (0.4 and later)",
           "a run_stream recorder, a TaskResult, AgentChat message dumps (JSON or JSON Lines) "
           "or a team's save_state()",
           ("run_stream recorder", "TaskResult", "message dumps", "a TeamState (save_state)",
            "Magentic-One teams"),
           several_runs=True),
    Format("chat", f"{_ROOT}.turns.chat", "Chat transcripts",
           "a chat transcript: OpenAI-style or LangChain messages",
           "a list (or an object's messages, or JSON Lines) of chat messages with a role or a "
           "LangChain type and content",
           ("OpenAI-style messages", "LangChain message dicts", "AutoGen 0.2 chat_messages",
            "a LangGraph state's messages"),
           several_runs=False),
    Format("adk", f"{_ROOT}.turns.adk", "Google ADK sessions",
           "a Google ADK session, or the events of ADK runs",
           "an ADK session ({id, appName, events}, or {id, context, events} as ADK saves it) or "
           "ADK events (author, invocationId, content parts), as a list, JSON Lines or a "
           "sessions listing",
           ("a saved session", "a session as ADK saves it to a file", "a sessions listing",
            "/run events", "/run_sse streams", "camelCase and snake_case fields"),
           several_runs=True),
    Format("langgraph", f"{_ROOT}.turns.langgraph", "LangGraph streams and state history",
           "a LangGraph graph's update or debug stream, or its state history",
           "update chunks {node: {messages}}, debug records, state snapshots or a checkpoint",
           ("updates stream", "debug stream", "state history", "a checkpoint",
            "subgraph namespaces"),
           several_runs=False),
    Format("langchain", f"{_ROOT}.turns.langchain", "LangChain runs and callback events",
           "LangChain runs (one trace per root run) or astream_events callback events",
           "LangChain runs (run_type with start_time or child_runs) or callback events "
           "({event: on_..., run_id, data})",
           ("run trees", "flat runs joined by parent_run_id", "LangSmith exports",
            "astream_events"),
           several_runs=True),
    Format("a2a", f"{_ROOT}.turns.a2a", "Agent2Agent traffic",
           "Agent2Agent protocol traffic, one trace per conversation",
           "JSON-RPC records of A2A methods, or A2A task, message and update objects",
           ("protocol 0.1, 0.2 and 1.0", "JSON-RPC records", "task and message objects",
            "server-sent event streams"),
           several_runs=True),
    Format("chatdev", f"{_ROOT}.turns.chatdev", "ChatDev logs",
           "the text log of a ChatDev run's chat chain",
           "text entries [date time INFO] with ChatDev's markers and role turns",
           ("WareHouse run logs",),
           several_runs=False),
)
"""Every format, in the order ``import auto`` asks them (and lists them when none fits)."""

FORMATS: tuple[str, ...] = tuple(entry.name for entry in REGISTRY)
"""The format names, as ``masrl import`` takes them."""

AUTO = "auto"
"""The format name that recognises the format from the file's content."""

_BY_NAME = {entry.name: entry for entry in REGISTRY}


def entry(name: str) -> Format:
    """The declaration of the format ``name`` (a :class:`KeyError` for an unknown one)."""
    return _BY_NAME[name]


def load(name: str) -> Importer:
    """The importer module of the format ``name``, imported now; a :class:`ValueError` for an
    unknown name."""
    if name not in _BY_NAME:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(_BY_NAME[name].module)
    if not isinstance(module, Importer):  # pragma: no cover - the tests check every module
        raise TypeError(f"importer bug: {module.__name__} does not keep the Importer contract")
    return module
