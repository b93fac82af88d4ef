"""A read-only data directory (tests run as root, whom file modes do not stop: a read-only
bind mount, else the immutable attribute): ``masrl intake`` exits 2 with one line, never 3,
and nothing changes; so does the recovery of an interrupted intake that cannot write."""

from __future__ import annotations

from fault_helpers import killed_at, read_only, run_masrl

from masrl import transaction
from masrl.commands import main


def test_an_intake_into_a_read_only_folder_exits_2_and_changes_nothing(planted_intake, tmp_path):
    data = planted_intake.copy_to(tmp_path / "data")
    with read_only(data):
        result = run_masrl("intake", "--data-dir", str(data))
        assert planted_intake.state(data) == "old"
        dry = run_masrl("intake", "--dry-run", "--data-dir", str(data))
        check = run_masrl("check-data", "--data-dir", str(data))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"{data}: error: cannot write: ")
    assert "read-only file system" in lines[0].lower() or "permission denied" in lines[0]
    assert dry.returncode == 0 and "3 candidates would be moved" in dry.stdout
    assert check.returncode == 0, check.stderr


def test_an_interrupted_intake_in_a_read_only_folder_is_refused_in_one_line(planted_intake,
                                                                          tmp_path):
    data = planted_intake.copy_to(tmp_path / "data")
    assert killed_at(19, lambda: main(["intake", "--data-dir", str(data)])) is None
    assert (data / transaction.JOURNAL).exists()
    with read_only(data):
        result = run_masrl("intake", "--data-dir", str(data))
        check = run_masrl("check-data", "--data-dir", str(data))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot recover the interrupted command" in lines[0], lines
    assert check.returncode == 1
    assert "an interrupted intake left its journal" in check.stderr
    # once writable again, the next intake completes it
    after = run_masrl("intake", "--data-dir", str(data))
    assert after.returncode == 0 and planted_intake.state(data) == "new"
    assert "an interrupted intake in" in after.stderr and "was completed" in after.stderr
