"""pytest hooks for the executed chapters (nbval runs every notebooks/*.ipynb).

The chapter on real runs (23_real_runs) is computed from public logs that are not part of this
project: they are read from ../shared/traces beside the repository. On a fresh clone that folder
is absent, the book is rendered from the committed outputs, and re-executing the chapter cannot
reproduce them, so its nbval cells are skipped with a reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from masrl import paths

NEEDS_REAL_LOGS = {"23_real_runs.ipynb"}
REASON = "real logs in ../shared/traces are absent"


def pytest_collection_modifyitems(config, items):
    if paths.public_logs_dir().is_dir():
        return
    skip = pytest.mark.skip(reason=REASON)
    for item in items:
        if Path(str(item.path)).name in NEEDS_REAL_LOGS:
            item.add_marker(skip)
