"""``masrl attribution score`` and ``masrl attribution baseline``: output, exit codes 0/1/2,
messages without tracebacks, the same bytes twice."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from attribution_helpers import GOLD, GOLD_ANSWERS, answers

from masrl.commands import main

PERFECT = {**GOLD_ANSWERS, "hand-crafted/2": ("FileSurfer", 3)}  # one log wrong at both levels


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "masrl", "attribution", *args],
                          capture_output=True, text=True)


def test_score_prints_a_table(write_predictions, capsys):
    path = write_predictions(answers(PERFECT))
    assert main(["attribution", "score", str(GOLD), str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{path} against {GOLD} (bootstrap: 2000 resamples, seed 0, 95% "
                      "intervals)")
    assert out[2].split()[:5] == ["predictions", "algorithm-generated", "2", "100.00%", "(2)"]
    assert out[3].split()[:5] == ["predictions", "hand-crafted", "3", "66.67%", "(2)"]


def test_score_json(write_predictions, capsys):
    path = write_predictions(answers(PERFECT))
    assert main(["attribution", "score", str(GOLD), str(path), "--json", "--seed", "7",
                 "--resamples", "50"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {k: payload[k] for k in ("gold_dir", "predictions", "seed", "resamples",
                                    "confidence")} == {
        "gold_dir": str(GOLD), "predictions": str(path), "seed": 7, "resamples": 50,
        "confidence": 0.95}
    hc = payload["subsets"]["hand-crafted"]
    assert (hc["logs"], hc["agent"]["correct"], hc["agent"]["accuracy"], hc["step"]["correct"]) \
        == (3, 2, 0.666667, 2)
    assert list(payload["subsets"]) == ["algorithm-generated", "hand-crafted"]


def test_score_a_subset(write_predictions, capsys):
    path = write_predictions(answers(PERFECT)[:2])
    assert main(["attribution", "score", str(GOLD), str(path), "--json",
                 "--subset", "algorithm-generated"]) == 0
    assert list(json.loads(capsys.readouterr().out)["subsets"]) == ["algorithm-generated"]


def test_same_input_same_bytes(write_predictions):
    path = write_predictions(answers(PERFECT))
    first = run("score", str(GOLD), str(path), "--json")
    assert first.returncode == 0
    assert run("score", str(GOLD), str(path), "--json").stdout == first.stdout


@pytest.mark.parametrize("lines, code, message", [
    ([{"id": "hand-crafted/1", "agent": "WebSurfer", "step": 2.5}], 1,
     ":1: 'step' must be an integer or null, found 2.5 (a number)"),
    ([], 1, ": no prediction for 5 of the 5 gold logs"),
])
def test_bad_predictions_exit_1_with_the_place(write_predictions, lines, code, message):
    path = write_predictions(lines)
    result = run("score", str(GOLD), str(path))
    assert result.returncode == code
    assert result.stderr.startswith(f"{path}{message}")
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_broken_gold_log_exits_1(gold_copy, write_predictions):
    (gold_copy / "hand-crafted" / "2.json").write_text('{"history": [', encoding="utf-8")
    result = run("score", str(gold_copy), str(write_predictions(answers(PERFECT))))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{gold_copy / 'hand-crafted' / '2.json'}:1:14: not JSON")


def test_missing_files_and_usage_exit_2(tmp_path, write_predictions):
    path = write_predictions(answers(PERFECT))
    missing = run("score", str(tmp_path / "nowhere"), str(path))
    assert (missing.returncode, missing.stderr) == (
        2, f"masrl attribution: {tmp_path / 'nowhere'}: no such directory\n")
    empty = run("score", str(tmp_path), str(path))
    assert empty.returncode == 2 and "no algorithm-generated/ or hand-crafted/ folder" in \
        empty.stderr
    absent = run("score", str(GOLD), str(tmp_path / "none.jsonl"))
    assert (absent.returncode, absent.stderr) == (
        2, f"{tmp_path / 'none.jsonl'}: error: cannot read: no such file\n")
    assert run("score", str(GOLD)).returncode == 2
    assert run("score", str(GOLD), str(path), "--subset", "both").returncode == 2
    assert run("score", str(GOLD), str(path), "--resamples", "0").returncode == 2
    assert run("baseline", str(GOLD), "--write", "oracle", str(tmp_path / "o.jsonl")
               ).returncode == 2


def test_baseline_table_and_json(capsys):
    assert main(["attribution", "baseline", str(GOLD)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == [
        m for m in ("random", "random-agents", "first-agent", "first-non-orchestrator",
                    "last-agent", "first-failed-execution") for _ in range(2)]
    assert lines[3].split()[:5] == ["random", "hand-crafted", "3", "19.76%", "(0.59)"]
    assert main(["attribution", "baseline", str(GOLD), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    ffe = payload["methods"]["first-failed-execution"]["subsets"]["algorithm-generated"]
    assert (ffe["agent"]["correct"], ffe["step"]["correct"]) == (2, 2)
    random_hc = payload["methods"]["random"]["subsets"]["hand-crafted"]["agent"]
    assert random_hc["accuracy"] == round(83 / 420, 6)
    assert random_hc["correct"] == round(83 / 140, 6)


def test_baseline_writes_a_rule_that_score_reads_back(tmp_path, capsys):
    out = tmp_path / "last.jsonl"
    assert main(["attribution", "baseline", str(GOLD), "--write", "last-agent", str(out),
                 "--json"]) == 0
    baseline = json.loads(capsys.readouterr().out)["methods"]["last-agent"]["subsets"]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {"id": "algorithm-generated/1", "agent": "Checker_Expert",
                                    "step": 3}
    assert main(["attribution", "score", str(GOLD), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["subsets"] == baseline
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.jsonl"]  # nothing half-written


def test_help_lists_the_commands():
    result = run("--help")
    assert result.returncode == 0 and "score" in result.stdout and "baseline" in result.stdout


def test_baseline_predictions_never_overwrite_a_gold_log(gold_copy, capsys):
    """Any log of the gold folder, of a subset asked for or not, is an input: writing the
    predictions over one is refused and the log is kept byte for byte."""
    from masrl.commands import main

    logs = sorted(gold_copy.glob("*/*.json"))
    target = logs[-1]
    before = target.read_bytes()
    code = main(["attribution", "baseline", str(gold_copy), "--subset", "algorithm-generated",
                 "--resamples", "10", "--write", "first-agent", str(target)])
    assert code == 2
    assert "is the input" in capsys.readouterr().err
    assert target.read_bytes() == before
