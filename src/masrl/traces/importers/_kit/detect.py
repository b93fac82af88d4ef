"""Recognise a log's format from its content (``masrl import auto``), never from its name alone.

:func:`sample` reads the file once (:class:`Sample`); :func:`detect` asks each format of the
registry, in order, whether its ``sniff`` recognises the sample, and returns the one that does,
with its reason. No format, or several, is a :class:`SourceError`; when none, the message names
every format tried with its ``refusal``.
"""

from __future__ import annotations

from pathlib import Path

from masrl.terminal import abbreviated
from masrl.traces.importers import registry
from masrl.traces.importers._kit.common import SourceError, Unrecognised, json_type
from masrl.traces.importers._kit.sampling import PYTHON_REPR, Sample, sample


def detect(path: str | Path) -> tuple[str, str]:
    """``(format, reason)`` of the log at ``path``; a :class:`SourceError` when no format or
    several formats recognise it."""
    seen = sample(path)
    importers = {name: registry.load(name) for name in registry.FORMATS}
    found = [(name, reason) for name, importer in importers.items()
             if (reason := importer.sniff(seen)) is not None]
    if seen.refused is not None and not found:  # a text that no text-log format reads
        raise seen.refused
    if len(found) == 1:
        return found[0]
    if not found:
        tried = "; ".join(f"{name}: {importer.refusal(seen)}"
                          for name, importer in importers.items())
        raise Unrecognised(path, None, f"no known log format recognises this file ({_shape(seen)}). "
                          f"Tried {tried}")
    raise SourceError(path, None, "several formats recognise this file: " + "; ".join(
        f"{name} ({reason})" for name, reason in found) + "; name the format instead of 'auto'")


def _shape(seen: Sample) -> str:
    """What the file looks like, for the message when nothing recognises it."""
    if seen.values is not None:
        kinds = sorted({"arrays" if isinstance(v, list) else "objects" for v in seen.values})
        return "JSON Lines of " + " and ".join(kinds)
    if seen.records is not None:
        keys = sorted({k for r in seen.records for k in r})[:8]
        return f"JSON Lines records with keys {_names(keys)}"
    if isinstance(seen.document, dict):
        return f"a JSON object with keys {_names(sorted(seen.document)[:8]) or '(none)'}"
    return f"a JSON document that is {json_type(seen.document)}"


def _names(keys: list[str]) -> str:
    """Keys quoted from the file, each cut to 80 characters (a key can be as long as the file)."""
    return ", ".join(abbreviated(key, 80) for key in keys)


__all__ = ["PYTHON_REPR", "Sample", "detect", "sample"]
