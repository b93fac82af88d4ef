"""pytest hooks for the executed chapters (nbval runs every notebooks/*.ipynb).

Some chapters (listed in notebooks/needs_real_logs.txt, which the Makefile reads too) are
computed from public logs that are not part of this project: they are read from ../shared/traces
beside the repository. On a fresh clone that folder is absent, the book is rendered from the
committed outputs, and re-executing those chapters cannot reproduce them, so their nbval cells
are skipped with a reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from masrl import paths

LIST = Path(__file__).with_name("needs_real_logs.txt")
NEEDS_REAL_LOGS = {line.strip() for line in LIST.read_text(encoding="utf-8").splitlines()
                   if line.strip() and not line.startswith("#")}
REASON = "real logs in ../shared/traces are absent"


def pytest_collection_modifyitems(config, items):
    if paths.public_logs_dir().is_dir():
        return
    skip = pytest.mark.skip(reason=REASON)
    for item in items:
        if Path(str(item.path)).name in NEEDS_REAL_LOGS:
            item.add_marker(skip)
