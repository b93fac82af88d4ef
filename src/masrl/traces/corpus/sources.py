"""Where the traces of a corpus are: files, folders and JSON Lines files, each trace with a
stable id and a place in a stable order.

Rules (quoted by the book):

* A SRC that is a folder stands for every ``*.json``, ``*.jsonl`` and ``*.ndjson`` file below
  it (hidden files and folders, whose names start with ``.``, are left out).
* A ``.jsonl`` or ``.ndjson`` file holds one trace per line; blank lines hold none and are
  skipped. Any other file holds one trace.
* A trace's *source* (its id) is its file's path relative to the deepest folder that holds every
  SRC, with ``/`` between folders, followed for a JSON Lines file by ``:`` and the line number
  (1-based). So the ids do not depend on where the corpus lies on disk or on the current folder.
  A file named twice (directly and through its folder) is read once.
* Order: files by relative path (as text), then lines by number. Traces are cut into *shards* of
  ``shard_size`` consecutive traces in that order; each shard is the unit of work and of output.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from masrl.files import InputError, check_input, read_input

LINES_SUFFIXES = (".jsonl", ".ndjson")
TRACE_SUFFIXES = (".json", *LINES_SUFFIXES)
CHUNK = 1 << 26  # bytes read at a time while finding the lines of a JSON Lines file
WHITESPACE = b" \t\r\n"


class SourceMissing(FileNotFoundError):
    """A SRC argument that names nothing on disk."""


@dataclass(frozen=True)
class TraceSource:
    """One trace: where its bytes are and what it is called."""

    source: str  # the stable id
    file: str  # the file, relative (as in source)
    path: str  # the file on disk, absolute
    line: int | None = None  # 1-based line of a JSON Lines file; None for a JSON file
    offset: int = 0  # first byte of the trace in the file
    length: int = -1  # bytes of the trace (-1: the whole file)
    error: str | None = None  # why the file could not be read while its lines were found


@dataclass(frozen=True)
class Shard:
    """Consecutive traces, in source order; ``index`` names its output files."""

    index: int
    sources: tuple[TraceSource, ...]


def find_files(arguments: Iterable[str | os.PathLike]) -> list[tuple[str, Path]]:
    """``(relative name, absolute path)`` of every trace file the SRC arguments stand for, in
    source order, each file once. Raises :class:`SourceMissing` naming a SRC that does not
    exist."""
    roots = []
    for argument in arguments:
        path = Path(argument)
        if not path.exists():
            raise SourceMissing(f"{argument}: no such file or folder")
        roots.append(path.resolve())
    if not roots:
        return []
    base = Path(os.path.commonpath([root.parent for root in roots]))
    found: dict[Path, str] = {}
    for root in roots:
        for path in _trace_files(root):
            found.setdefault(path, path.relative_to(base).as_posix())
    return sorted(((name, path) for path, name in found.items()), key=lambda item: item[0])


def _trace_files(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        yield root
        return
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and name.endswith(TRACE_SUFFIXES):
                yield Path(folder) / name


def is_lines(path: Path | str) -> bool:
    """Whether a file holds one trace per line (by its suffix)."""
    return str(path).endswith(LINES_SUFFIXES)


def trace_sources(files: list[tuple[str, Path]]) -> list[TraceSource]:
    """Every trace of the files, in source order. A JSON Lines file that cannot be read stands
    as one unreadable trace named after the file (its ``error`` says why)."""
    sources = []
    for name, path in files:
        try:
            check_input(path)  # a FIFO or a device would hang the reader; a huge file is refused
        except InputError as exc:
            sources.append(TraceSource(name, name, str(path), error=_reason(exc)))
            continue
        if not is_lines(path):
            sources.append(TraceSource(name, name, str(path)))
            continue
        try:
            spans = line_spans(path)
        except OSError as exc:
            sources.append(TraceSource(name, name, str(path), error=_reason(exc)))
            continue
        sources.extend(TraceSource(f"{name}:{number}", name, str(path), number, start, end - start)
                       for number, start, end in spans)
    return sources


def _reason(exc: OSError) -> str:
    return f"cannot read: {getattr(exc, 'reason', None) or exc.strerror or exc}"


def line_spans(path: Path) -> list[tuple[int, int, int]]:
    """``(line number, first byte, end byte)`` of every non-blank line of a file (the newline
    excluded; a last line without a newline counts)."""
    spans = []
    number, position = 0, 0
    carry = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            data = carry + chunk
            ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10).tolist()
            start = 0
            for end in ends:
                number += 1
                if data[start:end].strip(WHITESPACE):
                    spans.append((number, position + start, position + end))
                start = end + 1
            carry = data[start:]
            position += start
    if carry.strip(WHITESPACE):
        spans.append((number + 1, position, position + len(carry)))
    return spans


def shards(sources: list[TraceSource], shard_size: int) -> list[Shard]:
    """The sources cut into shards of ``shard_size`` consecutive traces."""
    return [Shard(k, tuple(sources[start:start + shard_size]))
            for k, start in enumerate(range(0, len(sources), shard_size))]


def fingerprint(sources: list[TraceSource], shard_size: int) -> str:
    """SHA-256 of the ids, sizes and shard size: what a resumed run must find unchanged."""
    digest = hashlib.sha256(f"shard_size {shard_size}\n".encode())
    for s in sources:
        size = s.length if s.length >= 0 else _size(s.path)
        digest.update(f"{s.source}\t{size}\n".encode())
    return digest.hexdigest()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def read_shard(shard: Shard) -> Iterator[tuple[TraceSource, bytes | str]]:
    """Each trace of a shard with its bytes, or the message saying why it could not be read."""
    handle, opened = None, None
    try:
        for source in shard.sources:
            if source.error is not None:
                yield source, source.error
                continue
            try:
                if source.line is None:
                    yield source, read_input(source.path)
                    continue
                if opened != source.path:
                    if handle is not None:
                        handle.close()
                    handle, opened = None, None
                    # kept open across the shard's lines of one file, closed below
                    handle, opened = open(source.path, "rb"), source.path  # noqa: SIM115
                handle.seek(source.offset)
                data = handle.read(source.length)
            except OSError as exc:
                yield source, _reason(exc)
                continue
            if len(data) != source.length:
                yield source, f"cannot read: the file changed, line {source.line} is cut short"
                continue
            yield source, data
    finally:
        if handle is not None:
            handle.close()
