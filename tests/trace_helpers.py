"""Helpers for the trace-toolkit tests (importable: pytest puts this directory on sys.path)."""

from __future__ import annotations

from pathlib import Path

from masrl.traces import Replay, replay
from masrl.traces.validate import ValidationReport, validate_document

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "traces"


def found(report: ValidationReport) -> list[tuple[str, str, str, str, str]]:
    """The problems of a report as (severity, code, where, pointer, message) tuples."""
    return [(p.severity, p.code, p.where, p.pointer, p.message) for p in report.problems]


def event(event_id: str, t: float, kind: str, agent: str, **fields) -> dict:
    """One event dictionary."""
    return {"id": event_id, "t": t, "type": kind, "agent": agent, **fields}


def replayed(document: dict) -> Replay:
    """Validate a trace document (it must be valid) and replay it."""
    report = validate_document(document)
    assert report.valid, report.lines()
    return replay(report.trace)
