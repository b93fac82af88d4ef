"""Candidates appended to a data copy, as a screening would write them (for the intake tests)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

EXPORTS = Path(__file__).resolve().parent / "fixtures" / "intake"  # reference exports

SCREENED = {"screener": "a test", "date_screened": "2026-12-04", "screening_round": "1",
            "stage": "abstract_screen", "source": "arXiv", "query_family": "credit assignment"}


def add_candidates(data_dir: Path, *rows: dict) -> None:
    """Append candidates (unnamed columns empty) to the copy's candidates.csv."""
    path = data_dir / "candidates.csv"
    columns = next(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    buffer = io.StringIO()
    csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n").writerows(
        [{c: row.get(c, "") for c in columns} for row in rows])
    path.write_text(path.read_text(encoding="utf-8") + buffer.getvalue(), encoding="utf-8")
