"""The importers at a glance, for the book's import chapter: what each format recognises, and
what each hand-written fixture gives when imported.

* :func:`formats_table`: one row per format of :data:`masrl.traces.importers.MODULES`: its name
  (as ``masrl import`` takes it), the module that documents its mapping, and what ``import
  auto`` recognises it by (the first sentence of the module's ``sniff`` docstring).
* :func:`fixtures_table`: one row per fixture file under a folder laid out as
  ``<format with _ for ->/...``: the format ``auto`` recognises in it, and, when the file imports
  on its own, the trace's events, edges and agents (the human and tools left out, as in
  :meth:`ImportResult.summary`) and its skips and repairs; a file that is read only with the
  session that spawns it (a sub-agent log) or that is rejected says so.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pandas as pd

from masrl.traces.importers import MODULES, SourceError, detect, import_file


def recognises(module) -> str:
    """``module.sniff``'s docstring as plain text (no double backquotes), without its reference
    to :mod:`detect` (``(see ...)`` or ``; see ...``)."""
    text = " ".join((inspect.getdoc(module.sniff) or "").split())
    text = re.split(r"\s*[(;]\s*see :mod:", text)[0]
    return text.replace("``", "").rstrip(".") + "."


def formats_table() -> pd.DataFrame:
    """One row per importable format (see the module docstring)."""
    return pd.DataFrame([{"format": name, "mapping": module.__name__,
                          "recognised by": recognises(module)}
                         for name, module in MODULES.items()])


def fixtures_table(folder: str | Path) -> pd.DataFrame:
    """One row per fixture file of every format (see the module docstring)."""
    folder = Path(folder)
    rows = []
    for fmt in MODULES:
        for path in sorted((folder / fmt.replace("-", "_")).rglob("*")):
            if path.suffix not in (".json", ".jsonl", ".log"):
                continue
            row = {"format": fmt, "fixture": path.relative_to(folder).as_posix()}
            try:
                row["recognised as"] = detect.detect(path, MODULES)[0]
            except SourceError:
                row["recognised as"] = "(none)"
            try:
                summary = import_file(fmt, path).summary()
            except SourceError as exc:
                row["note"] = exc.message
            else:
                row.update(events=summary["events"], edges=summary["edges"],
                           agents=summary["agents"], files=len(summary["files"]),
                           skipped=sum(summary["skipped"].values()),
                           repaired=sum(summary["repairs"].values()), note="")
            rows.append(row)
    columns = ["format", "fixture", "recognised as", "files", "events", "edges", "agents",
               "skipped", "repaired", "note"]
    frame = pd.DataFrame(rows, columns=columns)
    for column in ("files", "events", "edges", "agents", "skipped", "repaired"):
        frame[column] = frame[column].astype("Int64")
    return frame
