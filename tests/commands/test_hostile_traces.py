"""Hostile traces through the commands: each finishes with a verdict (exit 0 or 1) or a clear
error, never a traceback and never exit 3 (how long they take: ``benchmarks/hostile_inputs.py``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hostile_traces import spawn_chain, spawn_loop, with_players
from trace_helpers import FIXTURES

from masrl.commands import main

SMALL = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
LATE = {**SMALL, "events": [{**e, **{k: e[k] + 1e300 for k in ("t", "t_end") if k in e}}
                            for e in SMALL["events"]]}  # valid: a run that starts at 1e300 s


def write(tmp_path, document, name="t.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code != 3, err
    assert "Traceback" not in err
    return code, out, err


def test_replay_json_of_a_1500_deep_chain_as_a_program(tmp_path):
    # timed by benchmarks/hostile_inputs.py
    path = write(tmp_path, spawn_chain(1500))
    done = subprocess.run([sys.executable, "-m", "masrl", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"spawn_depth": 1500' in done.stdout
    tree = done.stdout[done.stdout.index('"spawn_tree"'):]  # credit's decisions name agents too
    assert tree.count('"agent": "a') == 1501


@pytest.mark.parametrize(("document", "code", "message"), [
    (spawn_loop(3000), 1, "is spawned by its own descendant"),
    (with_players(SMALL, 30), 0, ""),
    ({**SMALL, "events": [{**e, "tokens": 1.5e308} for e in SMALL["events"]]}, 1,
     "tokens.total is inf: the trace's numbers add up to more than a double holds"),
])
def test_replay_of_a_hostile_trace(tmp_path, capsys, document, code, message):
    # timed by benchmarks/hostile_inputs.py
    found, out, err = run(["replay", "--json", write(tmp_path, document)], capsys)
    assert found == code and message in err
    if code == 0:
        result = json.loads(out)["credit"]["counterfactual"]
        assert (result["shapley_method"], result["shapley"]) == ("monte_carlo", None)


@pytest.mark.parametrize(("document", "fmt", "code", "message"), [
    (spawn_chain(1500), "atif", 1, "cannot export as atif: the spawn tree is more than 100 "
     "agents deep"),
    (spawn_chain(1500), "otlp", 0, ""),
    (LATE, "atif", 1, "is past the year 9999, which an ATIF timestamp cannot write"),
    (LATE, "otlp", 0, ""),
])
def test_export_of_a_trace_the_format_cannot_hold(tmp_path, capsys, document, fmt, code,
                                                   message):
    out = tmp_path / "out.json"
    found, _, err = run(["export", fmt, write(tmp_path, document), "-o", out], capsys)
    assert found == code and message in err
    assert out.exists() == (code == 0)
