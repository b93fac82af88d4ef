"""A trace file truncated by another process while masrl reads it (issue 29, class 3): the
command reports the file, it is never killed. A memory-mapped file that shrinks under the reader
raises SIGBUS, which no handler turns into an error; so a trace file is read, never mapped."""

from __future__ import annotations

import json
import mmap
import os

import pytest

from masrl import files
from masrl.commands import main
from masrl.files import InputError
from masrl.traces import resources, rewards, synthetic, validate
from masrl.traces.validate import validate_file


def refuse_file_maps(fileno, *args, **kwargs):
    """``mmap.mmap`` that maps anonymous memory (``fileno`` -1: this process's own, which a
    large file is read into) and refuses to map a file."""
    if fileno != -1:
        raise AssertionError("a trace file was mapped into memory")
    ANONYMOUS_MAPS.append(args[0])
    return REAL_MMAP(fileno, *args, **kwargs)


REAL_MMAP = mmap.mmap
ANONYMOUS_MAPS: list[int] = []


def test_no_trace_file_is_mapped_into_memory(monkeypatch, tmp_path):
    large = tmp_path / "large.json"  # large enough to be read into anonymous memory
    large.write_text(json.dumps(synthetic.swarm_trace([400] * 30)), encoding="utf-8")
    assert large.stat().st_size >= validate.RELEASED_FROM
    monkeypatch.setattr(mmap, "mmap", refuse_file_maps)
    for path in (resources.example("hierarchical"), large):
        for keep in (True, False):
            report = validate_file(path, keep_document=keep)
            assert report.valid, report.lines()[:3]
    if files.GIVES_BACK:  # the large file's text, not kept, was read into anonymous memory
        assert large.stat().st_size in ANONYMOUS_MAPS


def test_a_file_truncated_between_its_check_and_its_read_is_reported(monkeypatch, tmp_path,
                                                                   capsys):
    path = tmp_path / "trace.json"
    text = resources.example("hierarchical").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    checked = files.check_input

    def check_then_truncate(target, limit=None):  # another process cuts the file meanwhile
        found = checked(target, limit)
        with open(target, "r+b") as handle:
            handle.truncate(len(text) // 2)
        return found

    monkeypatch.setattr(files, "check_input", check_then_truncate)
    report = validate_file(path, keep_document=False)
    assert not report.valid and report.problems
    assert main(["validate", str(path)]) == 1
    assert str(path) in capsys.readouterr().out
    json.loads(text)  # the whole file was a valid trace: only the cut makes it invalid


@pytest.mark.parametrize("make", [os.mkfifo, lambda p: os.symlink("/dev/zero", p)],
                         ids=["fifo", "dev-zero"])
def test_a_reward_function_refuses_what_is_not_a_regular_file(tmp_path, make):
    """issue 29, class 7: a reward function given a FIFO or /dev/zero as its trace would block
    or fill the memory; it refuses the path as every command does."""
    path = tmp_path / "trace.json"
    make(path)
    reward = rewards.reward_function({"outcome": 1.0})
    with pytest.raises(InputError, match="not a regular file"):
        reward(path)
    assert reward(resources.example("hierarchical")) == pytest.approx(
        rewards.reward_function({"outcome": 1.0})(
            resources.example("hierarchical").read_bytes()))
