"""Importers: real multi-agent logs in, orchestration traces out (schema 1.0, or 1.2 when they
carry the source's labels or, on request, the events' text).

:func:`import_file` and :func:`import_traces` take a format name of
:data:`registry.REGISTRY <masrl.traces.importers.registry.REGISTRY>` (or ``auto``) and a path;
the result is an :class:`ImportResult` (the trace, the files read, counted skips and repairs).
Unreadable or unexpected input raises :class:`SourceError`, naming the file and the place.
The importers live by family (``sessions/``, ``spans/``, ``turns/``) beside their shared parts
(``_kit/``); chapter 23 of the book tells each mapping. Importing this package is cheap: an
importer module is imported when its format is used.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from masrl.traces.importers.registry import AUTO, FORMATS, load

if TYPE_CHECKING:
    from masrl.traces.importers._kit.common import (
        ImportResult,
        SourceError,
        dumps,
        write_trace,
    )

_KIT = {"ImportResult", "SourceError", "dumps", "write_trace"}


def __getattr__(name: str) -> Any:
    """The shared names of :mod:`._kit.common`, imported on first use (start-up time)."""
    if name in _KIT:
        from masrl.traces.importers._kit import common

        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextmanager
def _reading(keep: bool):
    """While one log is read: the events keep their text when ``keep`` (:mod:`._kit.content`),
    the collector is paused, and each file is hashed once (:func:`._kit.common.hashing_once`)."""
    from masrl.traces import collector  # here: the registry's readers import this package
    from masrl.traces.importers._kit.common import hashing_once
    from masrl.traces.importers._kit.content import keeping

    with keeping() if keep else nullcontext(), collector.paused(), hashing_once():
        yield


def _chosen(format: str, path: str | Path) -> tuple[str, str | None]:
    """The format to read ``path`` in, and why when it was recognised (``auto``)."""
    if format == AUTO:
        from masrl.traces.importers._kit.detect import detect

        return detect(path)
    return format, None


def import_traces(format: str, path: str | Path, *, keep_content: bool = False
                  ) -> list[ImportResult]:
    """Every run the log at ``path`` holds, one trace each, never merged; ``format`` and
    ``keep_content`` as for :func:`import_file`."""
    if format != AUTO:
        load(format)  # an unknown name is said before the file is read
    format, detected = _chosen(format, path)
    with _reading(keep_content):
        results = load(format).import_traces(Path(path))
    for result in results:
        result.detected = detected
    return results


def import_file(format: str, path: str | Path, *, keep_content: bool = False) -> ImportResult:
    """Import the log at ``path`` in ``format`` (a name of :data:`FORMATS`, or ``auto``: the
    format recognised from the content, recorded in the result's ``detected``). With
    ``keep_content`` the events keep their text, bounded (schema 1.2, ``content``); by default
    a trace holds only hashes of it."""
    if format != AUTO:
        load(format)
    format, detected = _chosen(format, path)
    with _reading(keep_content):
        result = load(format).import_file(Path(path))
    if detected is not None:
        result.detected = detected
    return result


__all__ = ["AUTO", "FORMATS", "ImportResult", "SourceError", "dumps", "import_file",
           "import_traces", "write_trace"]
