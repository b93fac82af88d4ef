"""Exporters: a validated orchestration trace out, another tool's format in.

Each module has ``export(document: dict) -> dict``: it takes a trace that validates (raising
:class:`masrl.traces.InvalidTraceError` otherwise) and returns the document of the other format,
deterministically (the same trace gives the same bytes). ``masrl export FORMAT TRACE -o OUT``
(:mod:`masrl.commands.exports`) validates TRACE, exports it and writes OUT atomically.

* ``atif``: an Agent Trajectory Interchange Format trajectory (ATIF-v1.8), sub-agents as embedded
  ``subagent_trajectories`` (:mod:`.atif`).
* ``otlp``: OTLP JSON, OpenTelemetry GenAI spans (:mod:`.otlp`).
"""

from __future__ import annotations

from masrl.traces.exporters import atif, otlp

EXPORTERS = {"atif": atif, "otlp": otlp}
"""Format name -> exporter module; each has ``export(document) -> dict``."""

__all__ = ["EXPORTERS"]
