"""The orchestration-trace toolkit: check, replay, measure and credit multi-agent runs.

One way through::

    file -> validate (parse, JSON Schema, graph checks) -> Trace -> replay -> metrics, credit

Public API:

* :func:`validate_file` (path) and :func:`validate_document` (parsed JSON) return a
  :class:`ValidationReport`: ``.valid``, ``.problems`` (each a :class:`TraceProblem` with
  ``severity``, ``code``, ``where``, ``pointer``, ``message``), ``.trace`` and ``.to_dict()``.
* :func:`load_trace` (path) returns a validated :class:`Trace` or raises
  :class:`InvalidTraceError` (its ``.report`` holds every problem).
* :func:`replay` (trace) returns a :class:`Replay`: ``.run`` (the reconstructed
  :class:`Run`: timeline, agents, spawn tree), ``.metrics``, ``.credit`` and ``.to_dict()``,
  the object that ``masrl replay --json`` prints.
* :data:`SCHEMA_PATH`, :data:`SCHEMA_VERSION`, :func:`load_schema`: our trace schema.

Many traces at once (a training run's rollouts) go through :mod:`masrl.traces.corpus`
(``masrl corpus``: Parquet tables, local or Ray); :mod:`masrl.traces.rewards` computes the
survey's orchestration rewards from a replayed trace and builds a trainer's reward function;
:mod:`masrl.traces.synthetic` generates deterministic traces and training runs.

The definitions behind every metric and credit rule are in the docstrings of
:mod:`masrl.traces.metrics`, :mod:`masrl.traces.credit`, :mod:`masrl.traces.run` and
:mod:`masrl.traces.lifecycle`; the rules of validation in :mod:`masrl.traces.validate`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

# Each public name and the module that defines it. They are imported when first asked for
# (PEP 562), so that ``masrl validate`` (which imports masrl.traces.validate, hence this
# package) does not pay for replay, credit and metrics.
_PUBLIC = {
    "Replay": "masrl.traces.replay", "replay": "masrl.traces.replay",
    "Run": "masrl.traces.run",
    "SCHEMA_PATH": "masrl.traces.schema", "SCHEMA_VERSION": "masrl.traces.schema",
    "load_schema": "masrl.traces.schema",
    **dict.fromkeys(("InvalidTraceError", "Trace", "TraceProblem", "ValidationReport",
                     "validate_document", "validate_file"), "masrl.traces.validate"),
}


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_trace(path: str | Path):
    """Read and validate the trace at ``path`` (a :class:`Trace`); raise
    :class:`InvalidTraceError` on errors."""
    from masrl.traces.validate import InvalidTraceError, validate_file

    report = validate_file(path)
    if not report.valid:
        raise InvalidTraceError(report)
    return report.trace


__all__ = [
    "SCHEMA_PATH", "SCHEMA_VERSION", "InvalidTraceError", "TraceProblem", "Replay", "Run", "Trace",
    "ValidationReport", "load_schema", "load_trace", "replay", "validate_document", "validate_file",
]
