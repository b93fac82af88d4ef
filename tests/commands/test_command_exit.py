"""``masrl validate`` / ``masrl replay`` run as a program end through ``os._exit`` (skipping the
teardown of a big trace); what they print and their exit codes must be unchanged."""

from __future__ import annotations

import json
import os
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


@pytest.mark.parametrize(("preset", "seen"), [(None, "1"), ("2", "2")])
def test_numpy_runs_on_one_thread_unless_the_user_says_otherwise(preset, seen):
    """``masrl`` sets OPENBLAS_NUM_THREADS before numpy is imported (an idle thread per core
    costs every command tens of milliseconds), and leaves a value the user set alone."""
    code = ("import os; from masrl.commands import main; "
            f"main(['replay', {str(FIXTURES / 'small.json')!r}, '--json']); "
            "import numpy; print(os.environ['OPENBLAS_NUM_THREADS'])")
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    assert done.stdout.splitlines()[-1] == seen
