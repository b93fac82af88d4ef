"""The problems the data directory would have with some of its files replaced: what the intake
and the import of an export check before they write anything (and what a dry run says)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from masrl import files
from masrl.data.dataset import Dataset
from masrl.data.problems import DataProblem


def problems_if_written(directory: Path, texts: dict[str, str], what: str) -> list[DataProblem]:
    """The problems of ``directory`` with each file named in ``texts`` holding that text,
    checked in a scratch folder (those files written there, links to the others; nothing of
    ``directory`` changes). :class:`masrl.files.OutputError` when no scratch folder can be made
    (``what``: the step, for its message: "the intake")."""
    try:
        with tempfile.TemporaryDirectory(prefix="masrl-trial-") as scratch:
            trial = Path(scratch) / "data"
            trial.mkdir()
            for item in directory.iterdir():
                if item.name not in texts and not item.name.startswith("."):
                    os.symlink(item.resolve(), trial / item.name)
            for name, text in texts.items():
                (trial / name).write_text(text, encoding="utf-8")
            return Dataset(trial).problems()
    except OSError as exc:
        raise files.OutputError(tempfile.gettempdir(), f"cannot check {what}'s result in a "
                                f"scratch folder ({files.reason_of(exc)}); nothing was written"
                                ) from None
