"""``masrl validate`` / ``masrl replay`` run as a program end through ``os._exit`` (skipping the
teardown of a big trace); what they print and their exit codes must be unchanged."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from trace_helpers import FIXTURES


@pytest.mark.parametrize(("name", "code"), [("small.json", 0), ("not_json.json", 1)])
def test_replay_as_a_program(name, code):
    done = subprocess.run([sys.executable, "-m", "masrl", "replay", str(FIXTURES / name),
                           "--json"], capture_output=True, text=True, check=False)
    assert done.returncode == code
    result = json.loads(done.stdout)
    assert (result["trace_id"] == "small") if code == 0 else (result["valid"] is False)
    assert done.stderr == ("" if code == 0 else
                           f"{FIXTURES / name}: line 2 column 14: error: not JSON: "
                           "Expecting value\n")


def test_validate_as_a_program_keeps_every_line():
    done = subprocess.run([sys.executable, "-m", "masrl", "validate", "--json",
                           str(FIXTURES / "small.json"), str(FIXTURES / "non_finite.json")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert [f["valid"] for f in json.loads(done.stdout)["files"]] == [True, False]
    assert len(done.stderr.splitlines()) == 3
