"""The book's table of contents (``_toc.yml`` at the repository root): its chapters in reading
order and their titles. Data files that point into the book (a claim names the chapter that
computes it) are checked against it.

A chapter is named as in ``_toc.yml``: its path without suffix, from the repository root
(``notebooks/31_readings``, ``book/bibliography``); its title is the first ``#`` heading of its
source (``notebooks/31_readings.md``).

Chapters are numbered as a reader counts them: 1, 2, 3... along the reading order, across the
parts (:func:`chapter_numbers`). The landing page (the root) and the pages under ``book/`` (the
bibliography: a list, not a chapter) have no number. A file's own number (``31`` of
``notebooks/31_readings``) only keeps the files in reading order; it is not the chapter's
number.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from masrl import paths

TITLE = re.compile(r"^# (.+)$", re.MULTILINE)


def reading_order(toc_path: str | Path | None = None) -> list[str]:
    """Every document of the book in reading order: the root, then each part's chapters and
    their sections, depth first. An absent ``_toc.yml`` (the package installed without the book)
    gives an empty list."""
    toc_path = Path(toc_path) if toc_path is not None else paths.TOC
    if not toc_path.is_file():
        return []
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    order = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                order.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part["chapters"])
    walk(toc.get("chapters", []))
    return order


def chapter_numbers(toc_path: str | Path | None = None) -> dict[str, int]:
    """The chapter number of every numbered document (see the module docstring): the computing
    chapters (``notebooks/``) after the root, 1, 2, 3... in reading order."""
    order = reading_order(toc_path)
    chapters = [doc for doc in order[1:] if doc.startswith("notebooks/")]
    return {doc: number for number, doc in enumerate(chapters, start=1)}


def title(chapter: str, root: str | Path | None = None) -> str:
    """The first ``#`` heading of a chapter's source (``chapter`` itself when it has none)."""
    source = Path(root or paths.REPO_ROOT) / f"{chapter}.md"
    found = TITLE.search(source.read_text(encoding="utf-8")) if source.is_file() else None
    return found.group(1).strip() if found else chapter
