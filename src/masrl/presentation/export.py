"""Downloads of the pool offered by the book: CSV, JSON, BibTeX and RIS (for Zotero, EndNote,
Mendeley), written deterministically (stable column and row order, no timestamps) and
atomically (temporary file, then rename)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import bibtexparser
import pandas as pd
import rispy
from rispy.writer import RisWriter

from masrl import paths
from masrl.data import reading
from masrl.files import write_text_atomically


def pool_downloads(papers: pd.DataFrame, directory: Path,
                   data_dir: str | os.PathLike | None = None) -> dict[str, Path]:
    """Write ``masrl-pool.csv``, ``masrl-pool.json``, ``masrl-pool.bib`` and ``masrl-pool.ris``
    into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    targets = {
        "csv": directory / "masrl-pool.csv",
        "json": directory / "masrl-pool.json",
        "bib": directory / "masrl-pool.bib",
        "ris": directory / "masrl-pool.ris",
    }
    write_text_atomically(targets["csv"], papers.to_csv(index=False, lineterminator="\n"))
    records = json.loads(papers.to_json(orient="records", force_ascii=False))
    write_text_atomically(targets["json"], json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    bib_text = reading.read_text(paths.BIBTEX, data_dir)  # as validated: no BOM, no control bytes
    write_text_atomically(targets["bib"], pool_bib(bib_text, list(papers["key"])))
    write_text_atomically(targets["ris"], pool_ris(papers))
    return targets


def pool_bib(bib_text: str, keys: list[str]) -> str:
    """The entries of ``bib_text`` whose keys are ``keys`` (the pool shown), each as written in
    ``papers.bib``, in the file's order: the BibTeX download holds the same papers as the CSV."""
    wanted = set(keys)
    blocks = [entry.raw.strip() for entry in bibtexparser.parse_string(bib_text).entries
              if entry.key in wanted]
    return "\n\n".join(blocks) + "\n"


class _RisWriter(RisWriter):
    """rispy's RIS writer without its numbered header line: what reference managers write."""

    def set_header(self, count: int) -> str:
        return ""


TAGS = ("category", "is_rl", "reward_type", "credit_granularity", "orchestration_form",
        "credit_mechanism")  # written as keywords, `field: value`, for filtering in a manager


def pool_ris(papers: pd.DataFrame) -> str:
    """The pool as RIS, one reference per row in pool order: the type (a preprint for an arXiv
    row, else generic), title, first author, year, first public date (``YYYY/MM/DD/`` at its
    precision), venue, addresses, the pool key as ID, the tags as keywords and our summary as
    the abstract. ``masrl intake --from`` reads it back."""
    references = []
    for row in papers.to_dict("records"):
        reference = {
            "type_of_reference": "UNPB" if row["arxiv_id"] else "GEN",
            "title": row["title"],
            "authors": [row["first_author"]] if row["first_author"] else [],
            "year": str(row["year"]),
            "urls": [u.strip() for u in row["url"].split(" ; ") if u.strip()],
            "secondary_title": row["venue"],
            "id": row["key"],
            "keywords": [f"{tag}: {row[tag]}" for tag in TAGS],
            "abstract": row["summary"],
        }
        if row["first_public"]:
            reference["date"] = "/".join(row["first_public"].split("-")) + "/"
        if row["arxiv_id"]:
            reference["doi"] = f"10.48550/arXiv.{row['arxiv_id']}"
        references.append(reference)
    return rispy.dumps(references, implementation=_RisWriter)
