"""The citable release of the living survey: one per screening round.

The companion has one version, for the package, its data and its citation files. Each round of
``data/search_protocol.yaml`` names the release that publishes it (``version``,
MAJOR.MINOR.PATCH): ``0.1.0`` published the survey's pool at its cut-off (round 0), ``0.1.1``
round 1 and ``0.2.0`` round 2; a round raises the minor number when it ships with a new toolkit
and the patch number when it changes the data alone (a correction of tags without a new search
raises the patch number too).

:func:`current` is what the book's landing page shows ("release 0.2.0, assessed as up to date on
2026-12-04"): the release of the latest round, the day its searches reach (``searched_through``),
and the day it was released (``released``, else the round's date). ``CITATION.cff``,
``.zenodo.json`` and the package (``masrl.__version__``) state the same version
(``tests/data/test_release.py`` checks it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from masrl.data.dataset import Dataset


@dataclass(frozen=True)
class Release:
    """The release that publishes one screening round."""

    version: str
    assessed: str  # the last day the round's searches cover: "assessed as up to date on"
    released: str  # the round's date
    round: int
    label: str

    def sentence(self) -> str:
        """``Release 0.2.0 (screening round 2), assessed as up to date on 2026-12-04.``"""
        return (f"Release {self.version} (screening round {self.round}), assessed as up to date "
                f"on {self.assessed}.")


def releases(data: Dataset | None = None) -> list[Release]:
    """Every round's release, in order."""
    data = data or Dataset()
    return [Release(r.version, r.searched_through, r.released or r.date, r.id, r.label)
            for r in data.search_protocol.rounds]


def current(data_dir: str | os.PathLike | None = None) -> Release:
    """The latest round's release (what a citation of the data today should name)."""
    return releases(Dataset(data_dir))[-1]
