"""The output folder of ``masrl corpus``: partitioned, atomic and resumable writes.

Layout::

    OUT/corpus.json                 what the folder holds (inputs' fingerprint, shards, tables)
    OUT/<table>/part-00000.parquet  one file per table and shard (traces, agents, events, ...)

Rules (quoted by the book):

* Every file is written to a hidden temporary name in its folder and renamed into place, so a
  reader (or a crash) never leaves half a file under a real name.
* A shard is *done* when its files exist, one per table written (all five unless ``--tables``
  chose fewer); ``traces`` is written last. A run that stops
  (killed, crashed, interrupted) keeps every done shard; run the same command again and it
  computes only the shards not done, rewriting any of their files that exist, so nothing is lost
  and nothing is counted twice.
* ``corpus.json`` records a fingerprint of the inputs (every trace id and size, and the shard
  size) and the tables written. A folder written for other inputs or tables is refused rather
  than mixed.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from masrl.traces.corpus.tables import CORPUS_SCHEMA_VERSION, TABLE_NAMES

MANIFEST = "corpus.json"
WRITE_ORDER = ("events", "credit", "agents", "problems", "traces")  # traces last: shard done


class OutputConflict(ValueError):
    """The output folder holds something else than the tables of these inputs."""


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


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


class CorpusWriter:
    """Writes the shards of one corpus into ``out``."""

    def __init__(self, out: str | os.PathLike, fingerprint: str, shards: int, shard_size: int,
                 traces: int, selected: tuple[str, ...] = TABLE_NAMES):
        self.out = Path(out)
        self.selected = selected
        self.manifest = {"corpus_schema": CORPUS_SCHEMA_VERSION, "fingerprint": fingerprint,
                         "shard_size": shard_size, "shards": shards, "traces": traces,
                         "tables": list(selected)}

    def open(self) -> None:
        """Create the folder (or check that it holds a run over the same inputs), remove
        temporary files a crash left, and write ``corpus.json``."""
        self.out.mkdir(parents=True, exist_ok=True)
        existing = self.out / MANIFEST
        if existing.exists():
            try:
                recorded = json.loads(existing.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                recorded = None
            if recorded != self.manifest:
                raise OutputConflict(
                    f"{self.out}: holds the tables of other inputs (or another shard size, or "
                    "other tables); write to another folder or remove this one")
        else:
            strangers = sorted(p.name for p in self.out.iterdir() if p.name not in TABLE_NAMES)
            if strangers:
                raise OutputConflict(f"{self.out}: not empty ({', '.join(strangers[:3])}); "
                                     "write to a new folder")
        for name in self.selected:
            folder = self.out / name
            folder.mkdir(exist_ok=True)
            for partial in folder.glob(".*.partial"):
                partial.unlink()
        if not existing.exists():
            text = json.dumps(self.manifest, indent=2, sort_keys=True) + "\n"
            atomic_write(existing, text.encode("utf-8"))

    def done(self, index: int) -> bool:
        """Whether every file of shard ``index`` is in place."""
        name = part_name(index)
        return all((self.out / table / name).exists() for table in self.selected)

    def write(self, index: int, files: dict[str, bytes]) -> None:
        """Write the files of shard ``index`` (each atomically; ``traces`` last)."""
        name = part_name(index)
        for table in WRITE_ORDER:
            if table in self.selected:
                atomic_write(self.out / table / name, files[table])
