"""Importers: real multi-agent logs in, orchestration traces (schema 1.0) out.

One function per source format, each ``path -> ImportResult`` (the trace as a dictionary, the
files read, and counted skips and repairs); :func:`import_file` picks one by its format name:

* ``otel``: OpenTelemetry GenAI spans in every exported shape (OTLP JSON, Python and JavaScript
  SDK span JSON, any-agent, flat span dicts and ADOT bundles, Phoenix's REST spans) and attribute
  convention (GenAI, OpenInference attribute or Phoenix's ``span_kind`` field, Vercel AI SDK,
  OpenLLMetry, AG2, BeeAI), one trace per trace id (:mod:`.otel`);
* ``langfuse``: Langfuse traces with their observations (the API's trace, the UI's download, many
  traces in a list or one per line), one trace each (:mod:`.langfuse`);
* ``openai-agents``: OpenAI Agents SDK traces and spans, one trace per trace id
  (:mod:`.openai_agents`);
* ``claude-code``: a Claude Code session with its sub-agents (:mod:`.claude_code`);
* ``who-and-when``: a Who&When log, Magentic-One or CaptainAgent (:mod:`.who_and_when`);
* ``atif``: an ATIF trajectory (Agent Trajectory Interchange Format v1.4-v1.8) with its
  sub-agent trajectories and continuation segments (:mod:`.atif`);
* ``codex``: a Codex CLI rollout with its sub-agent rollouts (:mod:`.codex`);
* ``gemini-cli``: a Gemini CLI session (JSON or JSON Lines chat recording) with its sub-agent
  sessions (:mod:`.gemini_cli`);
* ``autogen``: the messages and events of an AutoGen AgentChat run (0.4 and later, Magentic-One
  included), as a run_stream recorder, a TaskResult or message dumps (:mod:`.autogen`);
* ``chat``: a chat transcript, a list of OpenAI-style or LangChain messages (:mod:`.chat`);
* ``adk``: a Google ADK session, or the events of ADK runs (:mod:`.adk`);
* ``langgraph``: a LangGraph graph's update or debug stream, or its state history
  (:mod:`.langgraph`);
* ``langchain``: LangChain runs (tracer dumps, LangSmith exports; one trace per root run) or
  ``astream_events`` callback events (:mod:`.langchain`);
* ``a2a``: Agent2Agent protocol traffic, JSON-RPC records or task and message objects (one
  trace per conversation) (:mod:`.a2a`);
* ``chatdev``: a ChatDev run log, the text file of its chat chain (:mod:`.chatdev`).

Each module's docstring documents its mapping: what becomes an event, what becomes an edge, what
is lost and which inputs are errors. The conventions they share (no content, only hashes;
``x_`` extension fields; times; forward edges; counted skips and repairs; the ``provenance`` every
trace carries; determinism) are in :mod:`.common`. Importers only produce traces: metrics
come from :func:`masrl.traces.replay`.

Unreadable or unexpected input raises :class:`SourceError`, whose message names the file and the
line (or the place inside a JSON document).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from masrl.traces.importers import (
    a2a,
    adk,
    atif,
    autogen,
    chat,
    chatdev,
    claude_code,
    codex,
    detect,
    gemini_cli,
    langchain,
    langfuse,
    langgraph,
    openai_agents,
    otel,
    who_and_when,
)
from masrl.traces.importers.common import ImportResult, SourceError, dumps, write_trace

MODULES = {"otel": otel, "claude-code": claude_code, "who-and-when": who_and_when,
           "langfuse": langfuse, "openai-agents": openai_agents, "atif": atif, "codex": codex,
           "gemini-cli": gemini_cli, "autogen": autogen, "chat": chat, "adk": adk,
           "langgraph": langgraph, "langchain": langchain,
           "a2a": a2a, "chatdev": chatdev}
"""Format name -> importer module; each has ``import_file(path)`` and ``sniff(sample)``."""
FORMATS: dict[str, Callable[[Path], ImportResult]] = {
    name: module.import_file for name, module in MODULES.items()}
AUTO = "auto"


def import_traces(format: str, path: str | Path) -> list[ImportResult]:
    """Every run the log at ``path`` holds, one trace each, never merged: a format whose files
    can hold several runs (many traces in one export) has ``import_traces(path)``; for the
    others this is :func:`import_file`'s one result. ``format`` as for :func:`import_file`."""
    detected = None
    if format == AUTO:
        format, detected = detect.detect(path, MODULES)
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    module = MODULES[format]
    many = getattr(module, "import_traces", None)
    results = many(Path(path)) if many is not None else [module.import_file(Path(path))]
    for result in results:
        result.detected = detected
    return results


def import_file(format: str, path: str | Path) -> ImportResult:
    """Import the log at ``path`` in ``format`` (a key of :data:`FORMATS`, or ``auto``: the
    format :func:`.detect.detect` recognises from the content, recorded in the result)."""
    if format == AUTO:
        format, reason = detect.detect(path, MODULES)
        result = FORMATS[format](Path(path))
        result.detected = reason
        return result
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    return FORMATS[format](Path(path))


__all__ = ["AUTO", "FORMATS", "MODULES", "ImportResult", "SourceError", "dumps", "import_file",
           "import_traces", "write_trace"]
