"""A process killed (SIGTERM) in the middle of writing several files: no file is ever half
written, and the next run completes or rolls back what was interrupted, so the folder then
holds the old state or the complete new one, byte for byte; the next command says so in one
line."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_helpers import killed_at, run_masrl, snapshot

from masrl import transaction
from masrl.commands import main

OLD = {"a.txt": b"old a\n", "sub/b.txt": b"old b\n" * 1000}
NEW = {"a.txt": b"new a\n" * 500, "sub/b.txt": b"new b\n", "c.txt": b"new c\n",
       "sub/d.txt": b"new d\n" * 50}


def write_all(folder: Path) -> int:
    with transaction.Transaction(folder, "test") as tx:
        tx.reserve(*(folder / name for name in NEW))
        for name, data in NEW.items():
            tx.write_bytes(folder / name, data)
        tx.commit()
    return 0


def lay_out(folder: Path) -> None:
    (folder / "sub").mkdir(parents=True)
    for name, data in OLD.items():
        (folder / name).write_bytes(data)


def test_a_transaction_killed_at_every_step_is_completed_or_rolled_back(tmp_path):
    seen = set()
    for step in range(1, 200):
        folder = tmp_path / f"run{step}"
        lay_out(folder)
        code = killed_at(step, lambda folder=folder: write_all(folder))
        files = {name: data for name, data in snapshot(folder).items()
                 if not Path(name).name.startswith(".")}
        for name, data in files.items():  # each file is whole: its old or its new bytes
            assert data in (OLD.get(name), NEW.get(name)), (step, name)
        if code is not None:  # the child ran to the end before this step
            assert code == 0 and files == {**OLD, **NEW}
            assert snapshot(folder) == {**OLD, **NEW}  # nothing of its own left behind
            break
        message = transaction.recover(folder)
        state = snapshot(folder)
        assert state in (OLD, {**OLD, **NEW}), step
        seen.add("new" if state != OLD else "old")
        if message is not None:  # a journal was left: said in one line
            assert message.startswith("masrl: an interrupted test in ")
            assert "\n" not in message
        assert transaction.recover(folder) is None  # recovered once, for good
    else:
        pytest.fail("the transaction never finished")
    assert seen == {"old", "new"}  # some kills were rolled back, later ones completed


# the intake's transaction makes 33 such calls: 1-3 its journal of names, 4-9 the six staged
# files, 10-15 the links to the old files, 16-18 the journal "ready", 19-24 the renames, 25-33
# the clean-up; a kill at each phase
@pytest.mark.parametrize("step", [1, 2, 5, 10, 17, 19, 22, 26, 32])
def test_an_intake_killed_half_way_is_recovered_by_the_next(planted_intake, tmp_path, capsys,
                                                           step):
    data = planted_intake.copy_to(tmp_path / "data")
    code = killed_at(step, lambda: main(["intake", "--data-dir", str(data)]))
    assert code is None, "the intake finished before the kill"
    for name in planted_intake.changed():  # no file half-written
        assert (data / name).read_bytes() in (planted_intake.old[name], planted_intake.new[name])
    capsys.readouterr()
    assert main(["intake", "--dry-run", "--data-dir", str(data)]) in (0, 1)
    waiting = capsys.readouterr().err
    if (data / transaction.JOURNAL).exists():
        assert "an interrupted intake left its journal" in waiting
    assert main(["intake", "--data-dir", str(data)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert planted_intake.state(data) == "new"
    assert len(err) <= 1
    if err:
        assert "an interrupted intake in" in err[0]
        assert "was completed" in err[0] or "was rolled back" in err[0]


@pytest.mark.parametrize("delay", [0.5, 1.5, 2.5, 3.5])
def test_sigterm_at_any_moment_leaves_the_old_or_the_new_state(planted_intake, tmp_path, delay):
    """A real ``masrl intake`` process, sent SIGTERM after ``delay`` seconds, wherever it is."""
    data = planted_intake.copy_to(tmp_path / "data")
    command = str(Path(sys.executable).with_name("masrl"))
    child = subprocess.Popen([command, "intake", "--data-dir", str(data)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    child.send_signal(signal.SIGTERM)
    child.wait()
    transaction.recover(data)
    assert planted_intake.state(data) in ("old", "new")
    result = run_masrl("intake", "--data-dir", str(data))
    assert result.returncode == 0 and planted_intake.state(data) == "new"
