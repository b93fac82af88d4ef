"""Downloads of the pool offered by the book: CSV, JSON and BibTeX, written deterministically
(stable column and row order, no timestamps) and atomically (temporary file, then rename)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from masrl import paths
from masrl.data import reading
from masrl.files import write_text_atomically


def pool_downloads(papers: pd.DataFrame, directory: Path,
                   data_dir: str | os.PathLike | None = None) -> dict[str, Path]:
    """Write ``masrl-pool.csv``, ``masrl-pool.json`` and ``masrl-pool.bib`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    targets = {
        "csv": directory / "masrl-pool.csv",
        "json": directory / "masrl-pool.json",
        "bib": directory / "masrl-pool.bib",
    }
    write_text_atomically(targets["csv"], papers.to_csv(index=False, lineterminator="\n"))
    records = json.loads(papers.to_json(orient="records", force_ascii=False))
    write_text_atomically(targets["json"], json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    bib_text = reading.read_text(paths.BIBTEX, data_dir)  # as validated: no BOM, no control bytes
    write_text_atomically(targets["bib"], bib_text)
    return targets
