"""masrl.transaction: several files written as one; names reserved first; never over an input."""

from __future__ import annotations

import json

import pytest

from masrl import transaction
from masrl.files import OutputError


def test_distinct_names_never_give_one_name_twice():
    assert transaction.distinct_names(["x", "x", "x-2"]) == ["x", "x-3", "x-2"]
    assert transaction.distinct_names(["a.json", "a.json", "a-2.json"], suffix=".json") == [
        "a.json", "a-3.json", "a-2.json"]
    names = ["r"] * 5 + ["r-2", "r-4"]
    assert len(set(transaction.distinct_names(names))) == len(names)


def test_a_name_reserved_twice_and_an_input_are_refused(tmp_path):
    source = tmp_path / "in.json"
    source.write_text("{}")
    with transaction.Transaction(tmp_path, "test", reads=[source]) as tx:
        tx.reserve(tmp_path / "a")
        with pytest.raises(OutputError, match="named twice"):
            tx.reserve(tmp_path / "a")
        with pytest.raises(OutputError, match="is the input"):
            tx.reserve(tmp_path / "." / "in.json")
        with pytest.raises(OutputError, match="outside the output folder"):
            tx.reserve(tmp_path.parent / "elsewhere")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json"]  # nothing left


def test_leaving_without_commit_writes_nothing(tmp_path):
    (tmp_path / "a").write_text("old")
    with transaction.Transaction(tmp_path, "test") as tx:
        tx.write_text(tmp_path / "a", "new")
        tx.write_text(tmp_path / "b", "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]
    assert (tmp_path / "a").read_text() == "old"


def test_a_target_changed_meanwhile_is_not_overwritten(tmp_path):
    (tmp_path / "a").write_text("old")
    with transaction.Transaction(tmp_path, "test") as tx:
        tx.write_text(tmp_path / "a", "new", based_on=b"old")
        tx.write_text(tmp_path / "b", "new")
        (tmp_path / "a").write_text("edited by hand")
        with pytest.raises(OutputError, match="changed while the command ran"):
            tx.commit()
    assert (tmp_path / "a").read_text() == "edited by hand" and not (tmp_path / "b").exists()


def test_one_command_at_a_time_in_a_folder(tmp_path):
    with transaction.Transaction(tmp_path, "first"), \
            pytest.raises(OutputError, match="another masrl command"), \
            transaction.Transaction(tmp_path, "second"):
        pass


def test_a_journal_that_cannot_be_trusted_stops_the_recovery(tmp_path):
    (tmp_path / transaction.JOURNAL).write_text(json.dumps({
        "format": transaction.FORMAT, "command": "x", "id": "0" * 12, "state": "ready",
        "files": [{"path": "../outside", "old": None, "new": "0"}]}))
    with pytest.raises(OutputError, match="not a journal masrl can read"):
        transaction.recover(tmp_path)
    assert "cannot read" in transaction.pending(tmp_path)


def test_a_file_edited_after_a_crash_is_never_overwritten(tmp_path):
    (tmp_path / "a").write_text("old")
    tx = transaction.Transaction(tmp_path, "test").__enter__()
    tx.write_text(tmp_path / "a", "new")
    tx._keep_old(tx._entries["a"])
    tx._write_journal("ready")  # as if killed here
    (tmp_path / "a").write_text("edited after the crash")
    tx._unlock()
    with pytest.raises(OutputError, match="a was changed since"):
        transaction.recover(tmp_path)
    assert (tmp_path / "a").read_text() == "edited after the crash"
