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
import os
import sys
import types

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


# Public names that are also the names of sub-modules: ``replay`` is the function and the module
# that defines it. The import system binds a sub-module to its package's attribute of the same
# name when the sub-module is first imported (``from masrl.traces.replay import ...`` anywhere),
# and a bound attribute is found before ``__getattr__`` is asked: ``from masrl.traces import
# replay`` would then give the module. These names are properties of the package's class
# instead, which the binding cannot replace (tests/traces/test_package_names.py).
SHADOWED = ("replay",)


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


class _Package(types.ModuleType):
    """This package, whose :data:`SHADOWED` names are properties: the public object, never the
    sub-module of the same name. Setting one to a module (the import system binding the
    sub-module) is ignored; setting it to anything else (a test's stand-in) is kept until
    deleted."""


def _shadowed(name: str) -> property:
    key = f"_{name}_set"

    def get(package):
        found = package.__dict__.get(key)
        return found if found is not None else __getattr__(name)

    def put(package, value) -> None:
        if not isinstance(value, types.ModuleType):
            package.__dict__[key] = value

    def remove(package) -> None:
        package.__dict__.pop(key, None)

    return property(get, put, remove, f"The public ``{name}`` (not the sub-module).")


for _name in SHADOWED:
    setattr(_Package, _name, _shadowed(_name))
del _name
sys.modules[__name__].__class__ = _Package


def load_trace(path: str | os.PathLike):
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
