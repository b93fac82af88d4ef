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
* :func:`conformance_summary` and :func:`conformance_refusals`: the conformance corpus of the
  tests (``tests/traces/importers/conformance``: the figures a person read from each real log of
  ``../shared/traces``), one row per folder of logs, and the files that must be refused with the
  reason the refusal must give. They read only that data, never the logs, so the book shows them
  on a machine without ``../shared``.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pandas as pd

from masrl.traces.importers import MODULES, SourceError, claude_code, detect, import_file


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
            if path.suffix not in (".json", ".jsonl", ".log") or (
                    fmt == "claude-code" and claude_code.workflow_metadata(path)):
                continue  # not a log (Workflow metadata is read with its session)
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


FIGURES = ("agents", "spawns", "tool_calls", "model_calls", "tokens_in", "tokens_out", "first",
           "last")
"""The figures of a conformance row; ``?`` marks one a person could not read from the file."""


def _conformance_rows(folder: str | Path) -> pd.DataFrame:
    frames = []
    for path in sorted(Path(folder).glob("*.csv")):
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        frames.append(frame.assign(folder=path.stem.replace("__", "/")))
    return pd.concat(frames, ignore_index=True)


def conformance_summary(folder: str | Path) -> pd.DataFrame:
    """Per folder of real logs: the files, the runs they hold, the runs imported (by the formats
    named), the files read with another one, the files refused, and the share of figures a
    person could read (the rest are ``?``)."""
    rows = _conformance_rows(folder)
    out = []
    for name, group in rows.groupby("folder", sort=True):
        own = group[group["read_with"] == ""]
        imported = own[own["format"] != ""]
        figures = imported[list(FIGURES)].to_numpy().ravel()
        out.append({"folder": name, "files": group["file"].nunique(),
                    "runs imported": len(imported),
                    "formats": ", ".join(sorted(set(imported["format"]))),
                    "read with another file": int((group["read_with"] != "").sum()),
                    "refused": int((own["format"] == "").sum()),
                    "figures known": (figures != "?").sum() / len(figures) if len(figures)
                    else float("nan")})
    return pd.DataFrame(out)


def conformance_refusals(folder: str | Path) -> pd.DataFrame:
    """The real files that must be refused, with the phrase the refusal must contain."""
    rows = _conformance_rows(folder)
    refused = rows[(rows["format"] == "") & (rows["read_with"] == "")]
    return refused[["file", "refusal"]].reset_index(drop=True)
