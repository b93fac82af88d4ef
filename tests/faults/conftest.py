"""The fault suite's fixtures: a data directory with an intake to do, its state before (old)
and after (new) the intake, byte for byte."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from fault_helpers import add_candidates, excluded, included, snapshot

from masrl import paths
from masrl.commands import main


@dataclass(frozen=True)
class Intake:
    """A data directory whose intake moves three candidates (six files change)."""

    source: Path  # the data directory before the intake (never written: copy it)
    old: dict[str, bytes]
    new: dict[str, bytes]

    def copy_to(self, target: Path) -> Path:
        shutil.copytree(self.source, target)
        return target

    def state(self, folder: Path) -> str:
        """``old``, ``new``, or ``mixed`` when the folder holds neither, byte for byte."""
        found = snapshot(folder)
        return "old" if found == self.old else "new" if found == self.new else "mixed"

    def changed(self) -> list[str]:
        return sorted(name for name in self.new if self.new[name] != self.old.get(name))


@pytest.fixture(scope="session")
def planted_intake(tmp_path_factory) -> Intake:
    folder = tmp_path_factory.mktemp("intake")
    source = folder / "data"
    shutil.copytree(paths.DEFAULT_DATA_DIR, source)
    add_candidates(source, included("C915", "stopper-a", "2611.00001"),
                   included("C916", "stopper-b", "2611.00003",
                            title="Termination Policies for Agent Crews Trained with Rewards"),
                   excluded("C917", "A prompted team for spreadsheets", "2611.00002"))
    after = folder / "after"
    shutil.copytree(source, after)
    assert main(["intake", "--data-dir", str(after)]) == 0
    intake = Intake(source, snapshot(source), snapshot(after))
    assert intake.changed() == ["audit.csv", "candidates.csv", "credit_evidence.csv",
                                "excluded.csv", "papers.bib", "papers.csv"]
    return intake
