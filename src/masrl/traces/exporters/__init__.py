"""Exporters: orchestration traces out, in other formats.

Each module has ``export(document: dict) -> dict``: a validated trace document in, the other
format's JSON document out, deterministically (no clock, no random ids).

* ``otlp``: OTLP JSON, OpenTelemetry GenAI spans (:mod:`.otlp`).
"""

from __future__ import annotations

from masrl.traces.exporters import otlp

EXPORTERS = {"otlp": otlp}
"""Format name -> exporter module with ``export(document) -> dict``."""

__all__ = ["EXPORTERS"]
