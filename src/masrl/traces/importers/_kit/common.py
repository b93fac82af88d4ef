"""What every importer shares: errors that name the place (:class:`SourceError`), the result
and its provenance (:class:`ImportResult`), content hashes (no text enters a trace), the one
way files and JSON are read, a trace builder that keeps edges forward in time, and
deterministic, atomic writing. Chapter 23 of the book tells the conventions.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from masrl.files import (
    LIMIT_VARIABLE,
    InputError,
    check_input,
    compressed_hint,
    give_back,
    layout_hint,
    limit_for,
    read_input,
    read_releasable,
    reason_of,
    write_text_atomically,
)
from masrl.terminal import LIMIT, is_utf8, names_as_text, printable
from masrl.traces import graph, piecewise_json, strict_json
from masrl.traces.importers._kit.accounting import Account, figures
from masrl.traces.importers._kit.content import Budget, Ref, content_summary
from masrl.traces.importers._kit.content import content_ref as content_ref  # re-exported
from masrl.traces.schema import BASE_VERSION, oldest_version


class SourceError(ValueError):
    """Unreadable or unexpected input, located: ``FILE:WHERE: message``.

    ``where`` is a 1-based line number for JSON Lines sources and a path inside the document
    (``history[3]``, ``spans[2]``) for JSON sources; ``None`` when the whole file is at fault.
    """

    limit = LIMIT  # characters of the message kept (the refusal of ``import auto`` is longer)

    def __init__(self, file: str | os.PathLike, where: str | int | None, message: str):
        self.file, self.where, self.message = str(file), where, message
        place = self.file if where is None else f"{self.file}:{where}"
        super().__init__(f"{place}: {message}")

    def __str__(self) -> str:
        """The message with control characters escaped: file names, ids and values quoted
        from a log cannot forge a line or drive the terminal (:mod:`masrl.terminal`)."""
        return printable(super().__str__(), self.limit)


class Unrecognised(SourceError):
    """No format recognises the file: the message names each format tried and why it refused,
    one clause per format (our own text), so it may be as long as the list of formats."""

    limit = 8 * LIMIT


@dataclass
class ImportResult:
    """One imported trace and the account of what the importer did to get it."""

    format: str
    source: str
    trace: dict
    files: list[str] = field(default_factory=list)  # every file read, the source first
    skipped: Counter = field(default_factory=Counter)  # reason -> records left out
    repairs: Counter = field(default_factory=Counter)  # reason -> events kept but changed
    detected: str | None = None  # with ``import auto``: why the format was chosen
    recognised: dict | None = None  # which system (and shape) wrote the log, and the evidence
    account: Account | None = None  # records read, mapped and skipped; usage (accounting.py)
    time_origin: str | None = None  # ISO 8601 UTC time of t = 0, when the source has clock times
    labels: list[dict] = field(default_factory=list)  # the source's labels (content.label)

    def __post_init__(self) -> None:
        if self.account is None:
            self.account = Account(reasons=self.skipped)
        elif self.account.reasons is not self.skipped:
            raise AssertionError("importer bug: the account must count into result.skipped")

    def summary(self) -> dict:
        """JSON-ready account: sizes, files read, skips and repairs (sorted by reason)."""
        events = self.trace["events"]
        return {
            "format": self.format,
            "source": self.source,
            "files": list(self.files),
            "trace_id": self.trace["trace_id"],
            "events": len(events),
            "edges": len(self.trace["edges"]),
            "agents": len({e["agent"] for e in events if e["type"] != "tool_result"}),
            "skipped": dict(sorted(self.skipped.items())),
            "repairs": dict(sorted(self.repairs.items())),
            "detected": self.detected,
            "recognised": self.recognised,
            **self.account.provenance(),
            "figures": figures(self.trace, self.time_origin),
        }

    def provenance(self) -> dict:
        """The trace's ``provenance``: format, files read (relative name and SHA-256 of the
        bytes), skips and repairs by reason, and (for importers that tell several systems apart)
        ``recognised``: the system the log was recognised as and the evidence; keys sorted, no
        times, no absolute paths."""
        folder = Path(self.source).parent
        provenance = {
            "format": self.format,
            "repaired": dict(sorted(self.repairs.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "sources": [source_file(Path(name), folder) for name in self.files],
            **self.account.provenance(),
        }
        if self.time_origin is not None:
            provenance["time_origin"] = self.time_origin
        kept = content_summary(self.trace.get("events", []))
        if kept is not None:
            provenance["content"] = kept
        if self.recognised is not None:
            provenance["recognised"] = dict(sorted(self.recognised.items()))
        return dict(sorted(provenance.items()))

    def with_provenance(self) -> ImportResult:
        """Write :meth:`provenance` into the trace, as its last key; call it once the counts are
        final (an importer's last step). Returns the result itself.

        Every number of the trace must be a finite double: token counts a log gives as 1e308
        add up to infinity, which JSON cannot write; that is a :class:`SourceError` naming the
        event and its source, not a trace with ``Infinity`` in it."""
        events = self.trace.get("events", [])
        finite = _settled(events)  # hashes set after an event was added become text
        if not (finite and _all_finite([self.trace.get("costs", {}),
                                        self.trace.get("rewards", {})])):
            self._name_infinite()
        self.trace.pop("provenance", None)
        self.trace.pop("labels", None)
        if self.labels:
            self.trace["labels"] = self.labels
        self.trace["provenance"] = self.provenance()
        if "schema_version" in self.trace:
            self.trace["schema_version"] = oldest_version(self.trace)
        if not all(is_utf8(name) for name in [self.source, *self.files]):
            self.trace.update(names_as_text(self.trace))
        return self


    def _name_infinite(self) -> None:
        places = [(f"event {e['id']} ({e.get('x_source', 'no source')}): ", e)
                  for e in self.trace.get("events", [])]
        places += [("costs.", self.trace.get("costs", {})),
                   ("rewards.", self.trace.get("rewards", {}))]
        for place, fields in places:
            stack = list(fields.items())
            while stack:  # nested values too (x_usage breakdowns), without recursion
                key, value = stack.pop()
                if isinstance(value, float) and not math.isfinite(value):
                    raise SourceError(self.source, None, f"{place}{key} is {value}: the log's "
                                      "numbers add up to more than a double holds")
                if isinstance(value, dict):
                    stack.extend((f"{key}.{k}", v) for k, v in value.items())
                elif isinstance(value, list):
                    stack.extend((f"{key}[{k}]", v) for k, v in enumerate(value))



def _settled(events: list[dict]) -> bool:
    """Turn each :class:`Ref` an event holds into plain text, and tell whether every float of
    the events is finite: one pass over the values, which two passes cost a tenth of a large
    import. The usual case is told without naming any place (see ``_name_infinite``)."""
    finite = True
    for event in events:
        for key, value in event.items():
            kind = type(value)
            if kind is str or kind is int:
                continue
            if kind is Ref:
                event[key] = str(value)
            elif kind is float:
                finite = finite and math.isfinite(value)
            elif finite and not _all_finite([value]):
                finite = False
    return finite


def _all_finite(value: Any) -> bool:
    """Whether every float held in ``value`` (nested dicts and lists) is finite."""
    stack = [value]
    while stack:
        node = stack.pop()
        for item in node.values() if isinstance(node, dict) else node:
            kind = type(item)
            if kind is str or kind is int:
                continue
            if isinstance(item, (dict, list)):
                stack.append(item)
            elif isinstance(item, float) and not math.isfinite(item):
                return False
    return True


def several_runs(path: Path, fmt: str, ids: list[str], what: str, *, lead: str = "",
                 where: str | None = None) -> SourceError:
    """The error of ``import_file`` on a source of another number of runs than one: how many
    (``lead`` + count + ``what``), their ids (the first :data:`IDS_NAMED`: a collector's file
    holds thousands), and the command that imports one trace per run."""
    named = ", ".join(ids[:IDS_NAMED]) + (f" and {len(ids) - IDS_NAMED:,} more"
                                         if len(ids) > IDS_NAMED else "")
    return SourceError(path, where, f"{lead}{len(ids)} {what} ({named}); a file of "
                       "several runs imports as one trace per run "
                       f"(masrl import {fmt} FILE -o DIR)")


IDS_NAMED = 5  # run ids an error names, of a source of several runs


def one_run(path: Path, fmt: str, results: list[ImportResult], what: str, *, lead: str = "",
            where: str | None = None) -> ImportResult:
    """The trace of a source that holds one run (``results`` from the format's
    ``import_traces``), else :func:`several_runs`: what every multi-run importer's
    ``import_file`` does."""
    if len(results) != 1:
        ids = [str(r.trace["trace_id"]).removeprefix(f"{fmt}:") for r in results]
        raise several_runs(path, fmt, ids, what, lead=lead, where=where)
    return results[0]


def source_file(path: Path, folder: Path) -> dict:
    """``{name, sha256}`` of a file read: its name relative to ``folder`` (its base name when it
    lies elsewhere) with ``/`` between folders, and the SHA-256 of its bytes."""
    try:
        name = path.relative_to(folder).as_posix()
    except ValueError:
        name = path.name
    return {"name": name, "sha256": file_sha256(path)}


HASH_CHUNK = 1 << 18  # bytes hashed at a time (one buffer, read into)
_HASHED: ContextVar[dict | None] = ContextVar("masrl_files_hashed", default=None)


@contextmanager
def hashing_once():
    """While in force (one import), a file is hashed once: a source of several runs gives
    each run's provenance the hash of the same file, and hashing it again per run made a
    collector's file of 4,273 traces take a minute. A file whose status (device, inode, size,
    modification time) has changed since is hashed again; outside, every call hashes."""
    token = _HASHED.set({})
    try:
        yield
    finally:
        _HASHED.reset(token)


def file_sha256(path: Path) -> str:
    """SHA-256 of the bytes of a regular file of bounded size, read as :func:`read_bytes`
    reads it (same checks, same errors) but a chunk at a time: the provenance hashes each file
    once the records are built, when holding a large session's bytes again would double the
    import's peak memory. One buffer is read into again and again: a new chunk per read held
    two chunks at once (the next read before the last was let go), half a 4 MiB session's size
    at the import's peak."""
    limit = limit_for(path)
    status = check_input(path, limit)
    hashed = _HASHED.get()
    known = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    if hashed is not None and known in hashed:
        return hashed[known]
    digest, read = hashlib.sha256(), 0
    buffer = memoryview(bytearray(HASH_CHUNK))
    try:
        with open(path, "rb", buffering=0) as handle:
            while size := handle.readinto(buffer[:min(HASH_CHUNK, limit + 1 - read)]):
                digest.update(buffer[:size])
                read += size
                if read > limit:  # the file grew while we read it
                    raise InputError(path, f"more than the limit of {limit} bytes "
                                           f"(set {LIMIT_VARIABLE} to raise it)")
    except InputError:
        raise
    except OSError as exc:
        raise InputError(path, reason_of(exc)) from None
    found = digest.hexdigest()
    if hashed is not None:
        hashed[known] = found
    return found


# ---------------------------------------------------------------------------------- content

# content_ref (a hash that remembers its content, kept as text on request) lives in .content

# ---------------------------------------------------------------------------------- reading
# The one way in for every importer: files through masrl.files (a regular file of bounded size;
# anything else raises its InputError, an OSError: the command exits 2), JSON through
# masrl.traces.strict_json (no repeated keys, finite numbers, bounded nesting, UTF-8 only).

def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of bounded size (:func:`masrl.files.read_input`)."""
    return read_input(path)


def read_text(path: Path, *, cut_last: bool = False) -> str:
    """The file as UTF-8 text; a file that is not UTF-8 is a :class:`SourceError`. With
    ``cut_last``, a UTF-8 character cut short at the end of the file (a log read while it is
    written: see :func:`read_session_lines`) is left out."""
    data = read_bytes(path)
    return utf8_text(path, whole_characters(data) if cut_last else data)


def whole_characters(data: bytes) -> bytes:
    """``data`` without the first bytes of a UTF-8 character that it ends with, cut short
    (when the last line has no newline); the rest is left as it is, for the reader to judge."""
    if data[-1:] in (b"", b"\n"):
        return data
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:  # a continuation byte: look further back for the lead
            continue
        need = 2 if 0xC0 <= byte < 0xE0 else 3 if 0xE0 <= byte < 0xF0 else \
            4 if 0xF0 <= byte < 0xF8 else 1
        return data[:-back] if need > back else data
    return data


def utf8_text(path: Path, data: bytes, begin: int = 0, number: int = 1) -> str:
    """``data`` read from ``path`` as UTF-8 text (:func:`read_text` of bytes at hand), from
    byte ``begin`` on, the start of line ``number`` (when the bytes before are known to be
    UTF-8: see :func:`_fast_jsonl`); a fault names its line and its byte in the file. A
    byte-order mark that starts the file (Windows tools write one) is left out."""
    rest = data if begin == 0 and isinstance(data, bytes) else data[begin:]  # (or a map's)
    try:
        text = rest.decode("utf-8")
        return text[1:] if begin == 0 and text.startswith("\ufeff") else text
    except UnicodeDecodeError as exc:
        line = number + rest[:exc.start].count(b"\n")
        raise SourceError(path, line, f"not UTF-8 text (byte {begin + exc.start})"
                          + (compressed_hint(data) if begin == 0 else "")) from None


def read_json(path: Path) -> Any:
    """One JSON document; a syntax error is reported with its line and column."""
    return parse_json(read_text(path), path)


def parse_json(text: str, path: Path, where: str | int | None = None) -> Any:
    """The JSON document in ``text`` (strict, see above), or a :class:`SourceError` at ``where``
    (for a syntax error with no ``where``, at its ``LINE:COLUMN``)."""
    document, findings = strict_json.parse_fast(text)
    if findings:
        raise source_error(path, where, findings[0], text)
    return document


def source_error(path: Path, where: str | int | None, finding: strict_json.Finding,
                 text: str | None = None) -> SourceError:
    """The :class:`SourceError` of a strict-JSON finding, naming the field it concerns; with
    the ``text`` parsed, a syntax error where the text stops asks whether the file is cut."""
    if finding.syntax is not None and where is None:
        where = f"{finding.line}:{finding.column}"
    message = finding.message
    if finding.syntax is not None and text is not None and _ends_too_soon(text, finding):
        message += TRUNCATED
    if finding.code == strict_json.NON_FINITE:
        message = f"not JSON: {message}"
    if finding.parts is not None:
        message += f" (at {strict_json.pointer(finding.parts) or '/'})"
    return SourceError(path, where, message)


def json_values(path: Path, text: str) -> list[tuple[int, Any]]:
    """The JSON values of ``text`` (read from ``path``) written one after another (JSON Lines,
    or indented objects concatenated), each with the line it starts on; a fault is a
    :class:`SourceError` naming that line."""
    try:
        values = strict_json.parse_sequence(text)
    except strict_json.StrictJSONError as exc:  # a syntax error names its line and column
        where = exc.finding.line if exc.finding.syntax is None else None
        raise source_error(path, where, exc.finding, text) from None
    for line, _, findings in values:
        if findings:
            raise source_error(path, line, findings[0])
    return [(line, value) for line, value, _ in values]


SSE_FIELD = re.compile(r"(data|event|id|retry)(:|$)|:")
"""A line of a server-sent event stream (``text/event-stream``): a field or a comment."""


def sse_payloads(text: str) -> list[tuple[int, str]] | None:
    """``(line number, data)`` of each event of ``text`` when it is a server-sent event stream
    (``curl -N`` of an A2A ``message/stream`` or an ADK ``/run_sse``: ``data: {...}`` lines,
    maybe with ``event:``, ``id:``, ``retry:`` and ``:`` comment lines, events between blank
    lines; the ``data`` lines of one event joined by newlines, numbered by the first), else
    ``None``: every non-blank line must be such a line and one must be ``data``."""
    events: list[tuple[int, str]] = []
    data: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            if data:
                events.append((first, "\n".join(data)))
            data = []
            continue
        if not SSE_FIELD.match(line):
            return None
        if line.startswith("data"):
            value = line[5:]
            if not data:
                first = number
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        events.append((first, "\n".join(data)))
    return events or None


CUT_LINE = "last line cut short (no newline at its end: the log was still being written)"


def read_session_lines(path: Path, account: Account,
                       shape: Callable[[int, dict], dict] | None = None
                       ) -> list[tuple[int, dict]]:
    """:func:`read_jsonl` of a harness's session log, which may be read while the harness still
    writes it (a running Claude Code, Codex or Gemini CLI session): a last line without its
    newline that is JSON cut short is skipped under :data:`CUT_LINE`, not refused; a faulty
    line anywhere else is refused naming it. Every line is counted on ``account`` (read, and
    skipped when blank or cut)."""
    found: Counter = Counter()
    lines = read_jsonl(path, found, shape, cut_last=True)
    account.read(len(lines) + sum(found.values()))
    for reason, n in sorted(found.items()):
        account.skip(reason, n)
    return lines


def _cut_last_line(data: bytes) -> bool:
    """Whether the last line of ``data`` has no newline and is a JSON value cut short: its
    text stops inside a value (or inside a UTF-8 character), as a line being written does."""
    if not len(data) or data[-1:] == b"\n":
        return False
    start = data.rfind(b"\n") + 1
    tail = bytes(data[start:])
    try:
        text = tail.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end != len(tail) or exc.reason != "unexpected end of data":
            return False  # a wrong byte, not a character cut: refused as not UTF-8
        try:
            text = tail[:exc.start].decode("utf-8")
        except UnicodeDecodeError:
            return False
    text = text.removeprefix("\ufeff") if start == 0 else text
    if not text.strip():
        return False
    _, findings = strict_json.parse_fast(text)
    return bool(findings) and findings[0].syntax is not None \
        and _ends_too_soon(text, findings[0])


def read_jsonl(path: Path, skipped: Counter, shape: Callable[[int, dict], dict] | None = None,
               *, cut_last: bool = False) -> list[tuple[int, dict]]:
    """``(line number, record)`` of every non-blank line of a JSON Lines file, or of every
    event of a server-sent event stream of JSON records (:func:`sse_payloads`).

    A line that is not one JSON object (a truncated last line, say) is an error naming the line;
    blank lines hold no record and are counted under ``blank line``. ``shape(number, record)``,
    when given, checks each record as soon as it is read and returns what is kept of it (so
    that a large file is never held whole as records); the first :class:`SourceError` it
    raises is raised once the whole file is read, as if the records had been checked after
    reading (a fault of the JSON itself is said first).

    With ``cut_last``, a last line without its newline that is JSON cut short (a log still
    being written) is left out and counted under :data:`CUT_LINE` (see
    :func:`read_session_lines`).
    """
    shaping = _Shaping(shape)
    data = read_releasable(path, released_from=RELEASED_FROM)
    if not _maybe_sse(data):
        cut = cut_last and _cut_last_line(data)
        try:
            records = _fast_jsonl(path, data, skipped, shaping, drop_last=cut)
        except SourceError:  # the first line of a document spread over lines is no record
            fault = document_fault(path, data[:]) if _opens_document(data) else None
            if fault is not None:
                raise fault from None
            raise
        shaping.done()
        if cut:
            skipped[CUT_LINE] += 1
        return records
    text = utf8_text(path, data if isinstance(data, bytes) else data[:])
    del data
    events = sse_payloads(text)
    if events is not None:
        records = [(number, _record(path, number, data)) for number, data in events]
    else:
        records = []
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline that ends the last line
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                skipped["blank line"] += 1
                continue
            records.append((number, _record(path, number, line)))
    records = [(number, shaping(number, record)) for number, record in records]
    shaping.done()
    return records


DOCUMENT_OPENINGS = ("{", "[")
TRUNCATED = "; the document ends too soon: is the file truncated?"


def _opens_document(data: bytes) -> bool:
    """Whether the first non-blank line among the first bytes of ``data`` only opens a JSON
    object or array (see :func:`document_fault`); looked at before the whole file is."""
    head = bytes(data[:SSE_PREFIX]).decode("utf-8", errors="ignore").removeprefix("\ufeff")
    lines = [line.strip() for line in head.splitlines(keepends=True)
             if line.strip() and line.endswith("\n")]
    return bool(lines) and lines[0] in DOCUMENT_OPENINGS


def document_fault(path: Path, data: bytes | str) -> SourceError | None:
    """The fault of a JSON document written over several lines (its first non-blank line only
    opens an object or an array, as ``json.dump(indent=...)`` and ``JSON.stringify(v, null,
    2)`` write one) that does not parse: at the line and column where it breaks, asking
    whether the file is cut when nothing but blanks follows (a log still being written, a
    copy made mid-write). Read as JSON Lines, such a file fails on its first line, which is
    no record, so that error would name the wrong line. ``None`` when the text is not such a
    document, or parses, or is not UTF-8 (the reader's own error says so)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        return None
    text = text[1:] if text.startswith("\ufeff") else text
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first not in DOCUMENT_OPENINGS:
        return None
    _, findings = strict_json.parse_fast(text)
    if not findings or findings[0].syntax is None or findings[0].line is None:
        return None
    return source_error(path, None, findings[0], text)


def _ends_too_soon(text: str, finding: strict_json.Finding) -> bool:
    """Whether the syntax error ``finding`` of ``text`` is where the text stops (nothing but
    blanks after it, or a string never closed): a file cut short, not a wrong character."""
    if finding.syntax.startswith("Unterminated string"):
        return True
    return not text[text_offset(text, finding.line, finding.column):].strip()


def text_offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of 1-based ``line`` and ``column`` as the JSON parser counts them
    (lines end at a line feed alone: not at the other breaks ``str.splitlines`` knows)."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


class _Shaping:
    """A ``shape`` of :func:`read_jsonl` applied in line order, its first error kept until the
    file is read (then no more records are shaped)."""

    def __init__(self, shape: Callable[[int, dict], dict] | None):
        self.shape, self.error = shape, None

    def __call__(self, number: int, record: dict) -> dict:
        if self.shape is None or self.error is not None:
            return record
        try:
            return self.shape(number, record)
        except SourceError as exc:
            self.error = exc
            return record

    def many(self, records: list[tuple[int, dict]]) -> list[tuple[int, dict]]:
        """``(number, shaped record)`` of each of ``records`` (in line order), as one call
        each would give: a call less per record, the usual case of a file without fault."""
        shape = self.shape
        if shape is None or self.error is not None:
            return records
        shaped: list[tuple[int, dict]] = []
        keep = shaped.append
        try:
            for number, record in records:
                keep((number, shape(number, record)))
        except SourceError as exc:  # the first fault kept, it and the rest as read (a shape
            self.error = exc        # may hold state: none is shaped twice)
            shaped.extend(records[len(shaped):])
        return shaped

    def done(self) -> None:
        if self.error is not None:
            raise self.error


SSE_PREFIX = 4096  # bytes of a file looked at to tell it is not a server-sent event stream


def _maybe_sse(data: bytes) -> bool:
    """Whether :func:`sse_payloads` could find a server-sent event stream in ``data``: ``False``
    when a whole line among its first bytes is neither blank nor an SSE line (the function
    stops at the first such line), so that the text need not be split to know."""
    head = data[:SSE_PREFIX].decode("utf-8", errors="ignore").removeprefix("\ufeff")
    lines = head.splitlines()
    if len(data) > SSE_PREFIX and lines:
        lines.pop()  # maybe cut
    return not any(line.strip() and not SSE_FIELD.match(line) for line in lines)


CHUNK_BYTES = 1 << 18  # lines decoded at a time (then shaped) when a file is read fast
RELEASED_FROM = 4 * CHUNK_BYTES  # a larger JSON Lines file's pages are given back as it is read


def _fast_jsonl(path: Path, data: bytes, skipped: Counter, shaping: _Shaping,
                drop_last: bool = False) -> list[tuple[int, dict]]:
    """What :func:`read_jsonl` returns for a file that is not a server-sent event stream: each
    line decoded by msgspec when it is certainly strict JSON
    (:func:`masrl.traces.strict_json.fast_values`), the others read as before, in order (the
    first fault met is the one reported, as line by line), a chunk of lines at a time, each
    record shaped before the next chunk is decoded. When ``data`` is anonymous memory
    (:func:`masrl.files.read_releasable`) the pages of each chunk are given back once its
    records are shaped, so that the file's text does not stay in memory beside them; the error
    paths read only the text of the chunk at hand and after it. ``drop_last``: the last line
    that is not blank is left out (a line cut short, see :func:`_cut_last_line`)."""
    begins, ends, numbers, blank = _line_spans(data)
    if drop_last:
        begins, ends, numbers = begins[:-1], ends[:-1], numbers[:-1]
    view = memoryview(data)
    records: list[tuple[int, dict]] = []
    releasable, released = hasattr(data, "madvise"), 0
    start = 0
    while start < len(begins):
        base = int(begins[start])
        stop = max(start + 1, int(np.searchsorted(ends, base + CHUNK_BYTES, side="right")))
        chunk = zip((begins[start:stop] - base).tolist(), (ends[start:stop] - base).tolist())
        values = strict_json.fast_values(view[base:int(ends[stop - 1])], list(chunk))
        read: list[tuple[int, dict]] = []
        for k, value in zip(range(start, stop), values):
            if type(value) is not dict:
                line = _line_text(path, data, (int(begins[k]), int(ends[k])), numbers[k])
                if not line.strip():  # blank to Python, not to bytes (say "\x1c")
                    blank += 1
                    continue
                value = _utf8_first(path, data, (int(begins[k]), numbers[k]), line)
            read.append((numbers[k], value))
        records.extend(shaping.many(read))
        del read, values
        start = stop
        if releasable:
            released = give_back(data, released, int(begins[stop]) if stop < len(begins)
                                 else len(data))
    if blank:
        skipped["blank line"] += blank
    return records


WHITE_BYTES = np.zeros(256, dtype=bool)  # what bytes.strip() strips: a line of them is blank
WHITE_BYTES[list(b" \t\n\r\x0b\x0c")] = True


def _line_spans(data: bytes):
    """Where the lines of ``data`` that are not blank begin and end (byte offsets, numpy
    arrays), their 1-based numbers (a list) and how many blank lines there are. Found with
    numpy, in arrays, not a tuple per line (which cost half a log's size at the peak): only a
    line that starts with a blank byte is looked at in Python."""
    text = np.frombuffer(data, dtype=np.uint8)
    begins, ends = piecewise_json.line_bounds(data)  # (a line feed ends a line, in bytes)
    doubt = np.flatnonzero((begins == ends) | WHITE_BYTES[text[np.minimum(begins,
                                                                          max(len(data) - 1,
                                                                              0))]]
                           if len(data) else np.zeros(0, dtype=np.int64))
    keep = np.ones(len(begins), dtype=bool)
    for k in doubt.tolist():
        keep[k] = bool(data[begins[k]:ends[k]].strip())
    numbers = np.flatnonzero(keep) + 1
    return begins[keep], ends[keep], numbers.tolist(), len(begins) - len(numbers)


def _utf8_first(path: Path, data: bytes, place: tuple[int, int], line: str) -> dict:
    """:func:`_record` of a line (``place``: its first byte and its number), except that a
    file that is not UTF-8 is refused as a whole first (as when the whole text is decoded
    before its lines are read)."""
    try:
        return _record(path, place[1], line)
    except SourceError:
        utf8_text(path, data, *place)
        raise


def _line_text(path: Path, data: bytes, span: tuple[int, int], number: int) -> str:
    """The text of one line of ``data`` (line ``number``); when it is not UTF-8, the error of
    the whole file."""
    try:
        return data[span[0]:span[1]].decode("utf-8")
    except UnicodeDecodeError:
        utf8_text(path, data, span[0], number)
        raise AssertionError("unreachable: the file decodes whole but not line by line") \
            from None


def _record(path: Path, number: int, line: str) -> dict:
    """The JSON object of one line (or one event's data), else an error naming the line."""
    record, findings = strict_json.parse_fast(line)
    if findings and findings[0].syntax is not None:
        fault = findings[0]
        raise SourceError(path, number, f"not a JSON record ({fault.syntax} at column "
                          f"{fault.column})" + ("; is the line truncated?"
                                                if _ends_too_soon(line, fault) else "")
                          + (layout_hint(line) if number == 1 else ""))
    if findings:
        raise source_error(path, number, findings[0])
    if not isinstance(record, dict):
        raise SourceError(path, number, f"a record must be a JSON object, not "
                          f"{json_type(record)}")
    return record


# ---------------------------------------------------------------------------------- building

DROP = (None, "")  # optional field values that are left out of an event


class TraceBuilder:
    """Collects events and edges in emission order; ids must be unique.

    An importer whose event ids come from the log (ids it restores, step numbers it is given)
    passes ``duplicate``: it is called with the id, the event that has it and the new event's
    fields, and returns the :class:`SourceError` to raise (naming both places in the log).
    Without it a repeated id is an importer bug."""

    def __init__(self, duplicate: Any = None) -> None:
        self.events: list[dict] = []
        self.edges: list[dict] = []
        self.by_id: dict[str, dict] = {}
        self._edge_keys: set[tuple[str, str]] = set()
        self._duplicate = duplicate
        self._budget = Budget()  # the text the trace may still take (masrl import --keep-content)

    def event(self, id: str, t: float, type: str, agent: str, **fields: Any) -> dict:
        """Add an event; optional fields whose value is ``None`` or ``""`` are left out."""
        if id in self.by_id:
            if self._duplicate is not None:
                raise self._duplicate(id, self.by_id[id], fields)
            raise AssertionError(f"importer bug: duplicate event id {id!r}")
        event = {"id": id, "t": t, "type": type, "agent": agent}
        ref = fields.get("content_ref")
        if isinstance(ref, Ref):
            text = self._budget.content(ref)
            if text is not None:
                fields["content"] = text
            fields["content_ref"] = str(ref)  # a plain string in the trace
        later = []  # x_ fields last, each group in the order given
        for key, value in fields.items():
            if value is None or (isinstance(value, str) and value == ""):  # left out
                continue
            if key.startswith("x_"):
                later.append((key, value))
            else:
                event[key] = value
        event.update(later)
        self.events.append(event)
        self.by_id[id] = event
        return event

    def edge(self, src: str, dst: str, type: str, mode: str | None = None) -> bool:
        """Add a dependency ``src -> dst`` unless one already joins them (the first one wins)."""
        if src == dst or (src, dst) in self._edge_keys:
            return False
        self._edge_keys.add((src, dst))
        edge = {"src": src, "dst": dst, "type": type}
        if mode is not None:
            edge["mode"] = mode
        self.edges.append(edge)
        return True

    def link(self, src: str, dst: str, answers: set[tuple[str, str]] | frozenset = frozenset(),
             spawn_mode: str = "blocking") -> bool:
        """Add the dependency ``src -> dst`` with the edge type its two events imply: ``spawn``
        (``spawn_mode``) from a spawn to the spawned agent's event, ``return`` from a return to
        the agent it returns to, ``tool_dependency`` (blocking) for a pair in ``answers`` (call,
        result), ``message`` from a message to its addressee's event, else ``causal``."""
        a, b = self.by_id[src], self.by_id[dst]
        if a["type"] == "spawn" and b["agent"] == a.get("to"):
            return self.edge(src, dst, "spawn", spawn_mode)
        if a["type"] == "return" and b["agent"] == a.get("to"):
            return self.edge(src, dst, "return")
        if (src, dst) in answers:
            return self.edge(src, dst, "tool_dependency", "blocking")
        if a["type"] == "message" and a.get("to") == b["agent"]:
            return self.edge(src, dst, "message")
        return self.edge(src, dst, "causal")

    def raise_times(self) -> int:
        """Raise each event's start to the latest start among its dependencies; return how many
        events moved. Events are visited in a topological order of the edges: the emission
        order when every edge goes forward in it, else :func:`masrl.traces.graph.kahn_order`'s
        (any such order gives the same times, as an event is visited once its sources are
        final); a cycle is an importer bug. Then a tool call that its result answers later (a
        ``tool_dependency`` edge) and that has no end of its own lasts until that result
        (``t_end``): the log's start and end of the call, so that busy time can be computed."""
        events = self.events
        src, dst = self._positions()
        forward = bool(np.all(src < dst))  # every edge forward: the emission order is one
        order = np.arange(len(events)) if forward else graph.kahn_order(len(events), src, dst)
        if order is None:
            raise AssertionError("importer bug: the edges form a cycle")
        # each event's sources, in edge order, as one list cut by offsets (a list per event
        # cost a third of a large trace's memory at the import's peak)
        starts = np.zeros(len(events) + 1, dtype=np.int64)
        np.cumsum(np.bincount(dst, minlength=len(events)), out=starts[1:])
        sources = src[np.argsort(dst, kind="stable")].tolist()
        del src, dst
        starts = starts.tolist()
        moved = 0
        for node in order.tolist():
            first, last = starts[node], starts[node + 1]
            if first == last:
                continue
            event = events[node]
            latest = max(events[u]["t"] for u in sources[first:last])
            if latest > event["t"]:
                event["t"] = latest
                if "t_end" in event and event["t_end"] < event["t"]:
                    event["t_end"] = event["t"]
                moved += 1
        for edge in self.edges:
            call, answer = self.by_id[edge["src"]], self.by_id[edge["dst"]]
            if (edge["type"] == "tool_dependency" and call["type"] == "tool_call"
                    and answer["type"] == "tool_result" and answer["t"] > call["t"]
                    and "t_end" not in call and "duration" not in call):
                call["t_end"] = answer["t"]
        return moved

    def _positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions in :attr:`events` of each edge's source and destination."""
        position = {e["id"]: k for k, e in enumerate(self.events)}
        count = len(self.edges)
        return (np.fromiter((position[e["src"]] for e in self.edges), np.int64, count),
                np.fromiter((position[e["dst"]] for e in self.edges), np.int64, count))

    def count(self, type: str) -> int:
        return sum(1 for e in self.events if e["type"] == type)

    def document(self, *, trace_id: str, task_id: str, system: str, topology: str,
                 rewards: dict, costs: dict) -> dict:
        """The trace in the schema's key order."""
        return {
            "schema_version": BASE_VERSION,  # importers write no field of a later version
            "trace_id": trace_id,
            "task_id": task_id,
            "system": system,
            "topology": topology,
            "events": self.events,
            "edges": self.edges,
            "rewards": rewards,
            "costs": costs,
        }


def latest_end(events: list[dict]) -> float:
    """The latest end among ``events`` (``t_end``, else ``t + duration``, else ``t``), in
    seconds from the run's origin: a run's ``costs.wall_clock_s``. The latest start alone
    would cut off the last event's own length (a LangGraph task that ends after every other
    task has started)."""
    return max((e["t_end"] if "t_end" in e else e["t"] + e.get("duration", 0))
               for e in events)


def dumps(document: dict) -> str:
    """The trace as UTF-8 JSON text: one space of indentation, keys in insertion order.

    The text is exactly that of ``json.dumps(document, indent=1, ensure_ascii=False,
    allow_nan=False)``, made faster: the standard library indents in Python, three times
    slower than its C encoder writes the compact text, so the compact text is indented by
    ``msgspec.json.format``, which changes only whitespace (``tests/traces/importers/
    test_dumps.py`` checks the two agree on any JSON value). A string that cannot be UTF-8 (a
    lone surrogate) takes the standard library's way, and is refused where it always was.
    """
    import msgspec

    compact = json.dumps(document, ensure_ascii=False, allow_nan=False)
    try:
        data = compact.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    del compact
    return msgspec.json.format(data, indent=1).decode("utf-8") + "\n"


def write_trace(document: dict, out: str | os.PathLike,
                inputs: list[str | os.PathLike] | tuple = ()) -> Path:
    """Write ``document`` to ``out`` atomically, never over one of ``inputs``
    (:func:`masrl.files.write_text_atomically`)."""
    return write_text_atomically(out, dumps(document), inputs)


def json_type(value: Any) -> str:
    """JSON's name of a value's type, with its article: ``an object``, ``an array``, ``a
    string``, ``a number``; ``true``, ``false`` and ``null`` by themselves."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
