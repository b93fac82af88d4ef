"""The citable release of the living survey's data: one per screening round.

Each round of ``data/search_protocol.yaml`` names the data release it makes (``version``,
MAJOR.MINOR.PATCH): ``1.0.0`` is the survey's pool at its cut-off (round 0), and each later
round raises the minor number (``1.1.0`` round 1, ``1.2.0`` round 2); a correction of tags
without a new search raises the patch number, and the major number changes only if the data's
format stops reading the same way. The data release is versioned apart from the Python package
(``pyproject.toml``): a round changes the data, not the code, and the code can change without a
round.

:func:`current` is what the book's landing page shows ("version 1.1.0, assessed as up to date
on 2026-12-04"): the release of the latest round, the day its searches reach
(``searched_through``), and the day it was released (the round's date). ``CITATION.cff`` and
``.zenodo.json`` state the same version and date (``tests/data/test_release.py`` checks it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from masrl.data.dataset import Dataset


@dataclass(frozen=True)
class Release:
    """The data release of one screening round."""

    version: str
    assessed: str  # the last day the round's searches cover: "assessed as up to date on"
    released: str  # the round's date
    round: int
    label: str

    def sentence(self) -> str:
        """``Data release 1.1.0 (round 1), assessed as up to date on 2026-12-04.``"""
        return (f"Data release {self.version} (round {self.round}), assessed as up to date on "
                f"{self.assessed}.")


def releases(data: Dataset | None = None) -> list[Release]:
    """Every round's release, in order."""
    data = data or Dataset()
    return [Release(r.version, r.searched_through, r.date, r.id, r.label)
            for r in data.search_protocol.rounds]


def current(data_dir: str | os.PathLike | None = None) -> Release:
    """The latest round's release (what a citation of the data today should name)."""
    return releases(Dataset(data_dir))[-1]
