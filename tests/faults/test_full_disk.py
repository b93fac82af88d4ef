"""A full disk (a small tmpfs, or a file-size limit where mounting is not allowed) while
``masrl intake`` writes: exit 2 with one line, and the data directory as it was, byte for
byte; never exit 3, never some files new and others old."""

from __future__ import annotations

import resource

import pytest
from fault_helpers import fill, run_masrl, small_disk


@pytest.mark.parametrize("free", [0, 8 * 1024, 48 * 1024, 96 * 1024, 1024 * 1024])
def test_a_disk_that_fills_while_the_intake_writes(planted_intake, free):
    with small_disk(4 * 1024 * 1024) as disk:
        if disk is None:
            pytest.skip("tmpfs cannot be mounted here; the file-size limit test covers it")
        data = planted_intake.copy_to(disk / "data")
        fill(disk, leave=free)
        result = run_masrl("intake", "--data-dir", str(data))
        state = planted_intake.state(data)
    assert result.returncode in (0, 2), result.stderr
    if result.returncode == 2:
        assert state == "old"
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
        assert "nothing was written" in lines[0]
    else:  # enough room: the whole intake
        assert state == "new"


@pytest.mark.parametrize("limit", [1, 4_000, 30_000, 40_000])
def test_a_file_size_limit_while_the_intake_writes(planted_intake, tmp_path, limit):
    """RLIMIT_FSIZE, in the child only: every write past ``limit`` bytes fails as a full disk
    would (EFBIG), whichever file it hits first."""
    data = planted_intake.copy_to(tmp_path / "data")

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = run_masrl("intake", "--data-dir", str(data), preexec=limited)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "error: cannot write" in lines[0], result.stderr
    assert "larger than allowed" in lines[0]
    assert planted_intake.state(data) == "old"
