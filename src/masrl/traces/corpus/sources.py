"""Where the traces of a corpus are: files, folders and JSON Lines files, each trace with a
stable id and a place in a stable order.

Rules (quoted by the book):

* A SRC that is a folder stands for every ``*.json``, ``*.jsonl`` and ``*.ndjson`` file below
  it (hidden files and folders, whose names start with ``.``, are left out). A link to a
  folder is followed, once: a folder reached again (a loop of links, or two links to one
  folder) is not read twice, and a note says so. The output folder is never read, even when
  it lies inside a SRC (a note says so).
* A file is one file however many names it has (links, hard links, a SRC named directly and
  through its folder): it is read once, under its first name in source order, and a note names
  the others.
* A ``.jsonl`` or ``.ndjson`` file holds one trace per line; blank lines hold none and are
  skipped. Any other file holds one trace.
* A trace's *source* (its id) is its file's path relative to the deepest folder that holds every
  SRC, with ``/`` between folders, followed for a JSON Lines file by ``:`` and the line number
  (1-based). So the ids do not depend on where the corpus lies on disk or on the current folder.
  A name that is not UTF-8 (a file system allows any bytes) shows each byte that is not as
  ``\\xNN`` in its id, with a note; two files whose ids would then be the same are refused.
* Order: files by relative path (as text), then lines by number. Traces are cut into *shards* of
  ``shard_size`` consecutive traces in that order; each shard is the unit of work and of output.
* A trace's *digest* (:func:`trace_digest`) is the SHA-256 of its bytes as read: what a resumed
  run compares to decide whether a shard written earlier still holds the tables of these
  inputs (a file changed with the same size is caught).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from masrl.files import InputError, check_input, read_input
from masrl.terminal import is_utf8, names_as_text

LINES_SUFFIXES = (".jsonl", ".ndjson")
TRACE_SUFFIXES = (".json", *LINES_SUFFIXES)
CHUNK = 1 << 26  # bytes read at a time while finding the lines of a JSON Lines file
WHITESPACE = b" \t\r\n"


class SourceMissing(FileNotFoundError):
    """A SRC argument that names nothing on disk."""


class SourceConflict(ValueError):
    """The SRC arguments cannot be read as a corpus: a SRC inside the output folder, or two
    files with one id."""


@dataclass
class Found:
    """The trace files of the SRC arguments, and notes on what was left out or renamed."""

    files: list[tuple[str, Path]]
    notes: list[str]

    def __iter__(self):  # unpacks as (files, notes)
        return iter((self.files, self.notes))


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


def find_files(arguments: Iterable[str | os.PathLike],
               output: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """``(relative name, absolute path)`` of every trace file the SRC arguments stand for, in
    source order, each file once (see :func:`find` for the rules and the notes)."""
    return find(arguments, output).files


def find(arguments: Iterable[str | os.PathLike],
         output: str | os.PathLike | None = None) -> Found:
    """Every trace file the SRC arguments stand for (module docstring), the folder ``output``
    left out. Raises :class:`SourceMissing` naming a SRC that does not exist,
    :class:`SourceConflict` for a SRC inside ``output`` or two files with one id."""
    arguments, roots = list(arguments), []
    for argument in arguments:
        path = Path(argument)
        if not path.exists():
            raise SourceMissing(f"{argument}: no such file or folder")
        roots.append(path.resolve())
    notes: list[str] = []
    if not roots:
        return Found([], notes)
    out = Path(output).resolve() if output is not None else None
    for argument, root in zip(arguments, roots):
        if out is not None and root == out:
            raise SourceConflict(f"{argument}: also the output folder (-o {output}); the "
                                 "tables go in a folder of their own")
        if out is not None and root.is_relative_to(out):
            raise SourceConflict(f"{argument}: inside the output folder {output}; the tables "
                                 "are not traces")
    base = Path(os.path.commonpath([root.parent for root in roots]))
    walk = _Walk(out, notes)
    found: dict[Path, str] = {}
    for root in roots:
        for path in walk.files(root):
            found.setdefault(path, _name(path.relative_to(base), notes))
    return Found(_once(found, notes), notes)


def _name(relative: Path, notes: list[str]) -> str:
    """The id of a file: its relative path with ``/``, bytes that are not UTF-8 as ``\\xNN``."""
    text = relative.as_posix()
    if is_utf8(text):
        return text
    shown = names_as_text(text)
    notes.append(f"{shown}: the file name is not UTF-8; its id writes those bytes as \\xNN")
    return shown


def _once(found: dict[Path, str], notes: list[str]) -> list[tuple[str, Path]]:
    """The files in source order, each file once however many names lead to it (the first name
    in source order holds); two files with one id are refused."""
    kept, named, first = [], {}, {}
    for path, name in sorted(found.items(), key=lambda item: item[1]):
        if name in named:
            raise SourceConflict(f"{named[name]} and {path}: both have the id {name} (a name "
                                 "that is not UTF-8 written as \\xNN); rename one")
        named[name] = path
        identity = _identity(path)
        if identity in first:
            notes.append(f"{name}: the same file as {first[identity]}; read once, as "
                         f"{first[identity]}")
            continue
        first[identity] = name
        kept.append((name, path))
    return kept


def _identity(path: Path) -> tuple[int, int] | Path:
    """What makes a file one file (device and inode); the path itself when it cannot be
    opened (a link to nothing is reported under each of its names)."""
    try:
        status = path.stat()
    except OSError:
        return path
    return (status.st_dev, status.st_ino)


class _Walk:
    """The trace files below the roots, each folder entered once (links to folders followed),
    the output folder never."""

    def __init__(self, output: Path | None, notes: list[str]):
        self.output = output
        self.notes = notes
        self.entered: dict[tuple[int, int], Path] = {}

    def files(self, root: Path) -> Iterator[Path]:
        if not root.is_dir():
            yield root
            return
        if self._entered(root) is not None:
            return
        for folder, subfolders, files in os.walk(root, followlinks=True):
            kept = []
            for name in sorted(d for d in subfolders if not d.startswith(".")):
                path = Path(folder) / name
                if self.output is not None and path.resolve() == self.output:
                    self.notes.append(f"{path}: the output folder; not read")
                elif (first := self._entered(path)) is not None:
                    self.notes.append(f"{path}: the same folder as {first} (a link); read "
                                      "once, there")
                else:
                    kept.append(name)
            subfolders[:] = kept
            for name in sorted(files):
                if not name.startswith(".") and name.endswith(TRACE_SUFFIXES):
                    yield Path(folder) / name

    def _entered(self, folder: Path) -> Path | None:
        """Where ``folder`` was entered already, else ``None`` (and it is marked entered)."""
        try:
            status = folder.stat()
        except OSError:
            return None
        key = (status.st_dev, status.st_ino)
        if key in self.entered:
            return self.entered[key]
        self.entered[key] = folder
        return None


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


def trace_digest(data: bytes | str) -> str:
    """What a resumed run compares for one trace: the SHA-256 of its bytes, or why they could
    not be read."""
    if isinstance(data, str):
        return f"unreadable: {data}"
    return hashlib.sha256(data).hexdigest()


def input_digests(shard: Shard) -> dict[str, str]:
    """Each trace of a shard -> its :func:`trace_digest`, as the inputs are now (read again)."""
    return {source.source: trace_digest(data) for source, data in read_shard(shard)}


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
