"""What a format's ``sniff`` sees of a file: the :class:`Sample` read once by :func:`sample`
(the parsed JSON document, the first JSON Lines records, or the start of a text log)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.files import layout_hint
from masrl.traces import strict_json
from masrl.traces.importers._kit.common import (
    SourceError,
    document_fault,
    read_text,
    source_error,
    sse_payloads,
    text_offset,
)

SAMPLE_RECORDS = 50  # JSON Lines records a sniffer sees
TEXT_CHARS = 20_000  # characters of a text log (neither JSON nor JSON Lines) a sniffer sees
PYTHON_REPR = re.compile(r"\A\s*[\[({]\s*(?:[\[({]\s*)*'")
"""The start of a Python list, dict or tuple whose first string is single-quoted (JSON has
none), as ``print(messages)`` writes it."""


@dataclass(frozen=True)
class Sample:
    """What a sniffer sees of a file.

    ``document`` is the file parsed as one JSON document (``None`` when it is not one);
    ``records`` the JSON objects of its first :data:`SAMPLE_RECORDS` non-blank lines when the
    file is JSON Lines (or its first objects when it holds JSON objects one after another)
    (``None`` otherwise, and for a file that is a single JSON document); ``text`` the start of
    a file that is neither (a text log, such as ChatDev's), with ``refused`` the error
    :func:`detect` raises when no format reads it. ``values`` holds every JSON Lines value of
    those lines in order, arrays included, when some line is an array (LangGraph streams
    ``[namespace, record]`` pairs with ``subgraphs=True``); ``None`` otherwise. A file whose
    lines are all arrays has ``values`` and no ``records``.
    """

    path: Path
    document: Any = None
    records: list[dict] | None = None
    one_line: bool = False  # the file holds a single non-blank line
    text: str | None = None  # a text log, neither JSON nor JSON Lines: its first TEXT_CHARS
    refused: SourceError | None = None  # why the text is not JSON, raised when nothing reads it
    values: list | None = None  # every JSON Lines value, when some line is an array

    @property
    def lines(self) -> list[dict]:
        """The JSON Lines records; a file of one JSON object on a single line (a one-record
        log) is also a JSON document, so that object is its one record."""
        if self.records is not None:
            return self.records
        return [self.document] if isinstance(self.document, dict) and self.one_line else []

    @property
    def keys(self) -> set[str]:
        """Top-level keys of a JSON object document (empty otherwise)."""
        return set(self.document) if isinstance(self.document, dict) else set()


def sample(path: str | Path) -> Sample:
    """Read ``path`` once and parse it as JSON, else as JSON Lines (a :class:`SourceError` when
    it is neither)."""
    path = Path(path)
    text = read_text(path, cut_last=True)  # a log still being written: see the records
    document, findings = strict_json.parse_fast(text)
    if not findings or findings[0].parts is not None:  # a document (the importer reports faults)
        return Sample(path, document=document, one_line=text.strip().count("\n") == 0)
    if findings[0].syntax is None:  # nested too deeply
        raise source_error(path, None, findings[0])
    events = sse_payloads(text)
    if events is not None:  # a server-sent event stream: its data are the records
        parsed = (strict_json.parse_fast(data) for _, data in events[:SAMPLE_RECORDS])
        streamed = [record for record, found in parsed if not found and isinstance(record, dict)]
        if streamed:
            return Sample(path, records=streamed)
    records: list[dict] = []
    values: list = []  # objects and arrays, in order
    arrays = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record, found = strict_json.parse_fast(line)
        if found and found[0].parts is None:
            if found[0].syntax is None:
                raise source_error(path, number, found[0])
            if records:  # a truncated later line: the sample so far is enough to recognise
                break
            concatenated = _concatenated(text)
            if concatenated and not _text_after_one(text, concatenated, findings[0]):
                return Sample(path, records=concatenated)
            if PYTHON_REPR.match(text):
                raise SourceError(path, None, "not JSON: a Python repr (single-quoted strings, "
                                  "None/True/False), as print() or str() writes a list or dict; "
                                  "no importer reads it: write the log with json.dump")
            return Sample(path, text=text[:TEXT_CHARS], refused=document_fault(path, text)
                          or SourceError(path, number,
                                         f"neither JSON nor JSON Lines ({found[0].syntax})"
                                         + layout_hint(text)))
        if isinstance(record, dict):
            records.append(record)
        if isinstance(record, (dict, list)) and len(values) < SAMPLE_RECORDS:
            values.append(record)
            arrays = arrays or isinstance(record, list)
        if len(records) >= SAMPLE_RECORDS or (not records and len(values) >= SAMPLE_RECORDS):
            break  # (a file led by arrays is sampled by its first values)
    if not records and not arrays:
        raise SourceError(path, None, "neither a JSON document nor JSON Lines records")
    return Sample(path, records=records or None, values=values if arrays else None)


def _text_after_one(text: str, values: list[dict], finding: strict_json.Finding) -> bool:
    """Whether ``text`` is one JSON document followed by what starts no other value (a line
    of garbage after it): no concatenation of objects, but a document at fault there."""
    if len(values) != 1 or finding.syntax != "Extra data" or finding.line is None:
        return False
    return text[text_offset(text, finding.line, finding.column):][:1] not in ("{", "[")


def _concatenated(text: str) -> list[dict]:
    """The first :data:`SAMPLE_RECORDS` objects of JSON values written one after another
    (indented objects, as OpenTelemetry's Python ``ConsoleSpanExporter`` prints them); empty
    when the text does not start with one."""
    values = strict_json.parse_sequence(text, prefix=True)
    return [value for _, value, _ in values if isinstance(value, dict)][:SAMPLE_RECORDS]
