"""The last resort: a bug (an exception no command expects) is one line and exit 3, never a
traceback that looks like a verdict on the input; ``MASRL_DEBUG=1`` shows the traceback. The
hostile-input tests assert that no input reaches this handler."""

from __future__ import annotations

import pytest

from masrl.commands import main


@pytest.fixture
def broken(monkeypatch):
    def fail(path, **_):
        raise KeyError("a bug\x1b[2K\nx.json: valid")

    monkeypatch.setattr("masrl.traces.validate.validate_file", fail)


def test_an_internal_error_is_one_line_and_exit_3(broken, capsys, monkeypatch):
    monkeypatch.delenv("MASRL_DEBUG", raising=False)
    assert main(["validate", "any.json"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("masrl: internal error: KeyError: 'a bug\\x1b[2K\\nx.json: valid'; please "
                   "report it (set MASRL_DEBUG=1 to see the traceback)\n")


def test_masrl_debug_shows_the_traceback(broken, monkeypatch):
    monkeypatch.setenv("MASRL_DEBUG", "1")
    with pytest.raises(KeyError, match="a bug"):
        main(["validate", "any.json"])
