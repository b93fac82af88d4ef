"""The importers at a glance, for the book's import chapter and the README: the formats of
the registry, what each hand-written fixture gives when imported, and the conformance corpus of
the tests (the figures a person read from each real log; only that data is read, never the logs,
so the book shows it on a machine without ``../shared``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit import detect
from masrl.traces.importers.registry import FAMILIES, FORMATS, REGISTRY
from masrl.traces.importers.sessions import claude_code


def formats_table(family: str | None = None) -> pd.DataFrame:
    """One row per format of the registry (of one family, when given): its name (as ``masrl
    import`` takes it), its family, what it reads, what ``import auto`` recognises it by, the
    variants it knows and whether one file may hold several runs."""
    return pd.DataFrame([{"format": entry.name, "family": entry.family, "reads": entry.description,
                          "recognised by": entry.recognised_by,
                          "variants": ", ".join(entry.variants),
                          "runs per file": "several" if entry.several_runs else "one"}
                         for entry in REGISTRY if family in (None, entry.family)])


def formats_markdown() -> str:
    """The README's table of formats, as Markdown (the README holds this text; a test keeps
    them equal)."""
    lines = ["| format | family | reads | runs per file |", "| --- | --- | --- | --- |"]
    for entry in REGISTRY:
        lines.append(f"| `{entry.name}` | {entry.family} | {entry.description} | "
                     f"{'several' if entry.several_runs else 'one'} |")
    return "\n".join(lines) + "\n"


def families_table() -> pd.DataFrame:
    """The families of importers: the folder, what it holds and its formats."""
    return pd.DataFrame([{"family": family, "holds": holds,
                          "formats": ", ".join(e.name for e in REGISTRY if e.family == family)}
                         for family, holds in FAMILIES.items()])


def fixtures_table(folder: str | Path) -> pd.DataFrame:
    """One row per fixture file of every format (see the module docstring)."""
    folder = Path(folder)
    rows = []
    for fmt in FORMATS:
        for path in sorted((folder / fmt.replace("-", "_")).rglob("*")):
            if path.suffix not in (".json", ".jsonl", ".log") or (
                    fmt == "claude-code" and claude_code.workflow_metadata(path)):
                continue  # not a log (Workflow metadata is read with its session)
            row = {"format": fmt, "fixture": path.relative_to(folder).as_posix()}
            try:
                row["recognised as"] = detect.detect(path)[0]
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
