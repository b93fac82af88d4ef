"""``masrl diff A B``: a summary in words, the comparison as JSON, or one offline page; logs are
imported first; an invalid run or a missing file is said in one line. On two real runs of one
task (Who&When's logs of one question by Magentic-One and by CaptainAgent) when the public logs
are there."""

from __future__ import annotations

import copy
import json

import pytest
from trace_helpers import FIXTURES

from masrl import paths
from masrl.commands import main
from masrl.traces import resources

CENTRALIZED = resources.EXAMPLES / "centralized.json"
WHO_AND_WHEN = paths.public_logs_dir() / "who-and-when"
SAME_QUESTION = (WHO_AND_WHEN / "hand-crafted" / "17.json",
                 WHO_AND_WHEN / "algorithm-generated" / "103.json")
CLAUDE_CODE = paths.public_logs_dir() / "claude-code"


@pytest.fixture
def two_runs(tmp_path) -> tuple:
    document = json.loads(CENTRALIZED.read_text(encoding="utf-8"))
    other = copy.deepcopy(document)
    other["trace_id"] = "again"
    other["events"].append({"id": "c9", "t": 31.0, "type": "tool_call", "agent": "lead",
                            "tool": "web.fetch"})
    other["edges"].append({"src": "d3", "dst": "c9", "type": "causal"})
    other["costs"]["tool_calls"] = 5
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other), encoding="utf-8")
    return CENTRALIZED, b


def test_a_summary_in_words(two_runs, capsys):
    assert main(["diff", str(two_runs[0]), str(two_runs[1])]) == 0
    out = capsys.readouterr().out
    assert out.startswith("A is example-centralized (")
    assert "Events 21 in A and 22 in B, tool calls 4 in A and 5 in B" in out
    assert "The runs take the same first 21 steps, then part: A has ended, where in B, lead " \
           "calls a tool (web.fetch)." in out


def test_a_step_of_one_run_only_is_not_said_to_end_the_other(tmp_path, capsys):
    """B takes an extra step early on and goes on with the same steps as A: where they part,
    A has not ended (it takes no such step and goes on), and the sentence does not say it has
    (two real Claude Code sessions were said to part where one "has ended" 615 steps early)."""
    other = json.loads(CENTRALIZED.read_text(encoding="utf-8"))
    other["events"].insert(1, {"id": "c0", "t": 1.0, "type": "tool_call", "agent": "lead",
                               "tool": "web.fetch"})
    other["edges"].append({"src": "d1", "dst": "c0", "type": "causal"})
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other), encoding="utf-8")
    assert main(["diff", str(CENTRALIZED), str(b)]) == 0
    out = capsys.readouterr().out
    assert "The runs take the same first step, then part: A takes no such step, where in B, " \
           "lead calls a tool (web.fetch)." in out
    assert "has ended" not in out


def test_the_comparison_as_json(two_runs, capsys):
    assert main(["diff", str(two_runs[0]), str(two_runs[1]), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["figures"]["tool_calls"] == {"a": 4, "b": 5, "change": 1}
    assert found["first_divergence"]["b"]["event"] == "c9"
    assert {"runs", "same_task", "figures", "agents", "tools", "critical_path", "credit",
            "first_divergence", "alignment"} == set(found)


def test_the_comparison_as_a_page(two_runs, tmp_path, capsys):
    out = tmp_path / "diff.html"
    assert main(["diff", str(two_runs[0]), str(two_runs[1]), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<title>Two runs compared: example-centralized and again</title>" in page
    for heading in ("In short", "Figures side by side", "Agents", "Tool calls",
                    "Critical paths", "Credit", "Step by step"):
        assert f"<h2>{heading}</h2>" in page
    assert "<script" not in page  # no chart: no libraries
    assert 'src="http' not in page and "<link" not in page
    assert capsys.readouterr().out == ""


def test_an_invalid_run_is_said_and_nothing_written(two_runs, tmp_path, capsys):
    out = tmp_path / "diff.html"
    assert main(["diff", str(two_runs[0]), str(FIXTURES / "not_json.json"),
                 "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "not_json.json: line 2 column 14: error: not JSON" in err  # the error itself
    assert "not_json.json: invalid: 1 error; " in err and "diff.html not written" in err
    assert not out.exists()


def test_a_missing_run_exits_2(two_runs, tmp_path, capsys):
    assert main(["diff", str(two_runs[0]), str(tmp_path / "nowhere.json")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nowhere.json'}: error: cannot read: " \
                                      "no such file\n"


def test_diff_is_one_of_the_commands():
    from masrl.commands import COMMANDS

    assert COMMANDS["diff"].module == "masrl.commands.diff"


def test_two_real_runs_of_one_question(tmp_path, capsys):
    if not all(p.is_file() for p in SAME_QUESTION):
        pytest.skip(f"the public Who&When logs are not at {WHO_AND_WHEN} (a fresh clone has "
                    "no ../shared/traces)")
    out = tmp_path / "diff.html"
    assert main(["diff", *map(str, SAME_QUESTION), "--json", "-o", str(out)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["same_task"] is True
    assert found["runs"]["a"]["trace_id"] == "who-and-when:magentic-one:17"
    assert found["runs"]["b"]["trace_id"] == "who-and-when:captain-agent:103"
    # the logs record no times and no tokens: null with the reason, never 0
    for key in ("wall_clock", "tokens.total"):
        row = found["figures"][key]
        assert row["a"] is None and row["b"] is None and row["change"] is None
        assert "not_recorded" in row
    assert found["figures"]["wall_clock"]["not_recorded"]["a"] == (
        "the log records the order of events, not their times")
    assert set(found["agents"]["only_a"]) == {"human", "Orchestrator", "WebSurfer"}
    assert "Computer_terminal" in found["agents"]["only_b"]
    assert "The runs part at their first step" in out.read_text(encoding="utf-8")


def test_two_real_claude_code_sessions(tmp_path, capsys):
    sessions = sorted(CLAUDE_CODE.glob("*-*-*-*-*.jsonl")) if CLAUDE_CODE.is_dir() else []
    if len(sessions) < 2:
        pytest.skip(f"the public Claude Code sessions are not at {CLAUDE_CODE} (a fresh clone "
                    "has no ../shared/traces)")
    assert main(["diff", str(sessions[0]), str(sessions[1]), "--json"]) == 0
    captured = capsys.readouterr()
    found = json.loads(captured.out)
    assert "different tasks" in captured.err
    assert found["figures"]["tokens.total"]["a"] > 0
    assert found["agents"]["per_agent"]["main"]["events"][0] > 0
    assert found["tools"]["Bash"][0] > 0


WHO_AND_WHEN_FIXTURES = paths.REPO_ROOT / "tests" / "fixtures" / "importers" / "who_and_when"


def test_labels_of_either_run_one_line_each(tmp_path, capsys):
    a, b = WHO_AND_WHEN_FIXTURES / "magentic_one.json", WHO_AND_WHEN_FIXTURES / "captain_agent.json"
    out = tmp_path / "diff.html"
    assert main(["diff", str(a), str(b), "-o", str(out)]) == 0
    assert main(["diff", str(a), str(b)]) == 0
    printed = capsys.readouterr().out.splitlines()
    labels = [json.loads(p.read_text(encoding="utf-8")) for p in (a, b)]
    assert f"A: mistake_agent: {labels[0]['mistake_agent']} (Who&When, gold answer)" in printed
    assert f"B: mistake_step: {labels[1]['mistake_step']} (Who&When, gold answer; on event " \
           f"h{labels[1]['mistake_step']})" in printed
    assert sum(line.startswith(("A: ", "B: ")) for line in printed) == 10  # 5 labels each
    page = out.read_text(encoding="utf-8")
    assert "Labels the sources give: A carries 5 labels; B carries 5 labels" in page
    assert page.count("<li>A: ") == 5 and page.count("<li>B: ") == 5


def test_runs_without_labels_add_no_line(two_runs, capsys):
    assert main(["diff", str(two_runs[0]), str(two_runs[1])]) == 0
    assert not any(line.startswith(("A: ", "B: "))
                   for line in capsys.readouterr().out.splitlines())
