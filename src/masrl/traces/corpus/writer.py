"""The output folder of ``masrl corpus``: partitioned, atomic and resumable writes.

Layout::

    OUT/corpus.json                 what the folder holds (inputs' fingerprint, shards, tables)
    OUT/<table>/part-00000.parquet  one file per table and shard (traces, agents, events, ...)
    OUT/shards/part-00000.json      the record of a shard: its inputs' digests, its files' digests

Rules (quoted by the book):

* A shard is written in three steps: its files are written under hidden names
  (``.part-00000.parquet.pending``), then its record is written (to a temporary name, then
  renamed: the commit), then the files are renamed to their real names, ``traces`` last. A
  process stopped at any point (killed, crashed, interrupted) leaves either the shard's old
  state or, once the next run has finished the renames its record allows, the new one: the
  next run completes a committed shard and removes the files of an uncommitted one before
  anything else. Readers of ``OUT/<table>/*.parquet`` never see a half-written file.
* A shard is *done* when its record is there and every file it lists has the bytes the record
  holds a digest of (SHA-256). Run the same command again after a stop and only the shards not
  done are computed, so nothing is lost and nothing is counted twice.
* A done shard is checked before it is kept: its inputs are read again and their digests
  compared with the record's (a file changed since, even with the same size, is caught), and
  its files with the record's digests (a damaged file is caught). A shard that fails either
  check is computed again, and a note says which file and why.
* ``corpus.json`` records a fingerprint of the inputs (every trace id and size, and the shard
  size) and the tables written; it is written once, atomically. A folder written for other
  inputs or tables, or by an earlier version of this writer, is refused rather than mixed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from masrl.traces.corpus.tables import CORPUS_SCHEMA_VERSION, TABLE_NAMES

MANIFEST = "corpus.json"
RECORDS = "shards"  # the folder of the shards' records
WRITER_VERSION = 2  # 2: shards committed by a record (1 had no records)
WRITE_ORDER = ("events", "credit", "agents", "problems", "traces")  # traces last
PENDING = ".pending"


class OutputConflict(ValueError):
    """The output folder holds something else than the tables of these inputs."""


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def record_name(index: int) -> str:
    return f"part-{index:05d}.json"


def pending_name(index: int) -> str:
    return f".{part_name(index)}{PENDING}"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target``: a hidden temporary file beside it, then a rename."""
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                       suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Record:
    """What a shard's record says: the digest of each of its inputs (``source -> digest``,
    :func:`masrl.traces.corpus.sources.trace_digest`) and of each of its files."""

    inputs: dict[str, str]
    files: dict[str, str]

    def to_bytes(self) -> bytes:
        text = json.dumps({"inputs": self.inputs, "files": self.files}, indent=1,
                          sort_keys=True)
        return (text + "\n").encode("utf-8")


class CorpusWriter:
    """Writes the shards of one corpus into ``out``."""

    def __init__(self, out: str | os.PathLike, fingerprint: str, shards: int, shard_size: int,
                 traces: int, selected: tuple[str, ...] = TABLE_NAMES):
        self.out = Path(out)
        self.selected = selected
        self.manifest = {"corpus_schema": CORPUS_SCHEMA_VERSION, "fingerprint": fingerprint,
                         "shard_size": shard_size, "shards": shards, "traces": traces,
                         "tables": list(selected), "writer": WRITER_VERSION}

    def open(self) -> None:
        """Create the folder (or check that it holds a run over the same inputs), finish or
        undo what a stopped run left (module docstring), and write ``corpus.json``."""
        if self.out.exists() and not self.out.is_dir():
            raise OutputConflict(f"{self.out}: a file, not a folder; -o names the folder the "
                                 "tables are written in (a new one, or one of an earlier run)")
        self.out.mkdir(parents=True, exist_ok=True)
        existing = self.out / MANIFEST
        if existing.exists():
            self._check_manifest(existing)
        else:
            allowed = {*TABLE_NAMES, RECORDS}
            strangers = sorted(p.name for p in self.out.iterdir() if p.name not in allowed)
            if strangers:
                raise OutputConflict(f"{self.out}: not empty ({', '.join(strangers[:3])}); "
                                     "write to a new folder")
        for name in (*self.selected, RECORDS):
            (self.out / name).mkdir(exist_ok=True)
        self._recover()
        if not existing.exists():
            text = json.dumps(self.manifest, indent=2, sort_keys=True) + "\n"
            atomic_write(existing, text.encode("utf-8"))

    def _check_manifest(self, existing: Path) -> None:
        try:
            recorded = json.loads(existing.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise OutputConflict(f"{existing}: cannot be read as the folder's manifest (damaged?); "
                                 "write to another folder or remove this one") from None
        if isinstance(recorded, dict) and recorded.get("writer") != WRITER_VERSION:
            raise OutputConflict(f"{self.out}: written by an earlier version of masrl corpus, "
                                 "whose shards cannot be checked; write to another folder or "
                                 "remove this one")
        if recorded != self.manifest:
            raise OutputConflict(
                f"{self.out}: holds the tables of other inputs (or another shard size, or "
                "other tables); write to another folder or remove this one")

    def _recover(self) -> None:
        """Finish the renames of every committed shard whose files are pending, then remove
        every pending or temporary file left (those of shards never committed)."""
        for path in sorted((self.out / RECORDS).glob("part-*.json")):
            record = self._record(path)
            if record is None:
                continue
            index = int(path.stem.removeprefix("part-"))
            for table in WRITE_ORDER:
                pending = self.out / table / pending_name(index)
                if (table in record.files and pending.exists()
                        and digest(pending.read_bytes()) == record.files[table]):
                    os.replace(pending, self.out / table / part_name(index))
        for name in (*self.selected, RECORDS):
            for left in (*(self.out / name).glob(f".*{PENDING}"),
                         *(self.out / name).glob(".*.partial")):
                left.unlink()

    @staticmethod
    def _record(path: Path) -> Record | None:
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
            record = Record(dict(found["inputs"]), dict(found["files"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return record

    def done(self, index: int) -> tuple[Record | None, str | None]:
        """The record of shard ``index`` if its files are all there with the bytes it holds a
        digest of, and otherwise why not (``None`` when nothing was written for it)."""
        path = self.out / RECORDS / record_name(index)
        if not path.exists():
            return None, None
        record = self._record(path)
        if record is None or set(record.files) != set(self.selected):
            return None, f"{path}: damaged (not a record of this run)"
        for table in self.selected:
            part = self.out / table / part_name(index)
            try:
                data = part.read_bytes()
            except OSError:
                return None, f"{part}: missing"
            if digest(data) != record.files[table]:
                return None, f"{part}: damaged (its bytes are not those written)"
        return record, None

    def write(self, index: int, files: dict[str, bytes], inputs: dict[str, str]) -> None:
        """Write the files of shard ``index`` and commit them (module docstring)."""
        name = part_name(index)
        for table in WRITE_ORDER:
            if table in self.selected:
                pending = self.out / table / pending_name(index)
                with open(pending, "wb") as stream:
                    stream.write(files[table])
                os.chmod(pending, 0o644)
        record = Record(inputs, {table: digest(files[table]) for table in self.selected})
        atomic_write(self.out / RECORDS / record_name(index), record.to_bytes())
        for table in WRITE_ORDER:
            if table in self.selected:
                os.replace(self.out / table / pending_name(index), self.out / table / name)
