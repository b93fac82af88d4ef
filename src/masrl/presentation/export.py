"""Downloads of the pool offered by the book: CSV, JSON and BibTeX, written deterministically
(stable column and row order, no timestamps) and atomically (temporary file, then rename)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from masrl import paths


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(partial, 0o644)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def pool_downloads(papers: pd.DataFrame, directory: Path,
                   data_dir: str | os.PathLike | None = None) -> dict[str, Path]:
    """Write ``masrl-pool.csv``, ``masrl-pool.json`` and ``masrl-pool.bib`` into ``directory``."""
    targets = {
        "csv": directory / "masrl-pool.csv",
        "json": directory / "masrl-pool.json",
        "bib": directory / "masrl-pool.bib",
    }
    write_atomically(targets["csv"], papers.to_csv(index=False, lineterminator="\n"))
    records = json.loads(papers.to_json(orient="records", force_ascii=False))
    write_atomically(targets["json"], json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    bib_text = paths.data_file(paths.BIBTEX, data_dir).read_text(encoding="utf-8")
    write_atomically(targets["bib"], bib_text)
    return targets
