"""``MASRL_MAX_INPUT_BYTES``: anything but ASCII digits is refused in one line, exit 2,
whatever the command; the package's own files are read whatever the user's limit says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masrl import files, paths
from masrl.commands import main
from masrl.traces import resources

COMMANDS = [["check-data"], ["stats"], ["intake", "--dry-run"], ["validate", "x.json"],
            ["corpus", "x", "-o", "y"]]


@pytest.mark.parametrize("value", ["-1", "1e9", "10MB", "1_000", "abc", " 100", "１０", "+5",
                                   "0x10", "1.5"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_limit_that_is_not_a_number_is_refused_in_one_line(monkeypatch, capsys, value, command):
    monkeypatch.setenv(files.LIMIT_VARIABLE, value)
    assert main(command) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == ""
    assert lines[0].startswith(f"masrl: error: {files.LIMIT_VARIABLE}=")
    assert "not a whole number of bytes" in lines[0]


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_only_ascii_digits_are_a_limit(value):
    try:
        import os
        os.environ[files.LIMIT_VARIABLE] = value
        if value.isascii() and value.isdigit():
            assert files.input_limit() == int(value)
        else:
            with pytest.raises(files.LimitSettingError):
                files.input_limit()
    except ValueError as exc:  # a NUL byte cannot be put in the environment
        assert "null" in str(exc)
    finally:
        os.environ.pop(files.LIMIT_VARIABLE, None)


def test_the_package_files_are_read_whatever_the_users_limit(monkeypatch, capsys, data_copy):
    monkeypatch.setenv(files.LIMIT_VARIABLE, "10")
    assert files.limit_for(resources.SCHEMA) == files.MAX_INPUT_BYTES
    assert files.read_input(paths.DEFAULT_DATA_DIR / paths.PAPERS)  # not refused
    assert main(["check-data"]) == 0  # the package's data directory
    capsys.readouterr()
    assert main(["check-data", "--data-dir", str(data_copy)]) == 2  # the user's: limited
    assert "more than the limit of 10 bytes" in capsys.readouterr().err
