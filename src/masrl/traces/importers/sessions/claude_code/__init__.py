"""Import a Claude Code session (JSON Lines, with its sub-agents) as an orchestration trace.

The import runs in four steps, one module each: :mod:`.discovery` finds the session's files
(sub-agent logs in any of the three layouts, inline sidechains, workflow runs),
:mod:`.linking` decides who spawns whom, :mod:`.emission` writes the events and edges (with
:mod:`.tokens` for the usage of each model response), and :mod:`.recognition` records the
layouts found; :mod:`.ledger` counts every line read. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

from pathlib import Path

from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import ImportResult, latest_end
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers.sessions.claude_code.discovery import discover
from masrl.traces.importers.sessions.claude_code.emission import Emitter
from masrl.traces.importers.sessions.claude_code.ledger import Ledger
from masrl.traces.importers.sessions.claude_code.linking import link
from masrl.traces.importers.sessions.claude_code.recognition import recognise
from masrl.traces.importers.sessions.claude_code.records import FORMAT, MAIN, workflow_metadata

TIME_RAISED = "event time raised to the time of an event it depends on"


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Claude Code session, its sub-agents included."""
    path = Path(path)
    ledger = Ledger(path)
    files = discover(path, ledger)
    cast = link(files, ledger)
    emitter = Emitter(cast, ledger)
    build = emitter.emit()
    tokens = emitter.responses.attach(build)
    ledger.sweep()
    raised = build.raise_times()
    if raised:
        ledger.repairs[TIME_RAISED] += raised
    start = min(e["t"] for e in build.events)
    result = ledger.result
    result.time_origin = iso_from_ns(start * 1000)
    for event in build.events:
        event["t"] = (event["t"] - start) / 1_000_000
        if "t_end" in event:  # a tool call that lasts until its result
            event["t_end"] = (event["t_end"] - start) / 1_000_000
    main = cast.agents[MAIN].records
    first = next((r.data for r in main if r.data.get("sessionId")), {})
    session = str(first.get("sessionId") or path.stem)
    version = next((r.data["version"] for r in main if isinstance(r.data.get("version"), str)),
                   None)
    result.recognised = recognise(files, cast, build, len(emitter.inline_compactions), version)
    result.trace = build.document(
        trace_id=f"{FORMAT}:{session}",
        task_id=session,
        system=f"Claude Code {version}" if version else "Claude Code",
        topology="harness",
        rewards={},
        costs={"tokens": tokens,
               "wall_clock_s": latest_end(build.events),
               "tool_calls": build.count("tool_call"),
               "messages": build.count("message")},
    )
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def sniff(sample: Sample) -> str | None:
    """JSON Lines records with ``sessionId`` and ``uuid``."""
    records = sample.lines
    if any("sessionId" in r and "uuid" in r for r in records):
        return "JSON Lines records with sessionId and uuid"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return "looks for JSON Lines records with sessionId and uuid"


__all__ = ["import_file", "import_traces", "refusal", "sniff", "workflow_metadata"]
