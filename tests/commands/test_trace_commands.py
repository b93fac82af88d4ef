"""``masrl validate`` and ``masrl replay``: exit codes, stderr lines and the --json shape."""

from __future__ import annotations

import json
import re

import pytest
from trace_helpers import FIXTURES

from masrl.commands import main

SMALL = str(FIXTURES / "small.json")
NOT_JSON = str(FIXTURES / "not_json.json")


def test_validate_valid_file(capsys):
    assert main(["validate", SMALL]) == 0
    assert capsys.readouterr() == (f"{SMALL}: valid (0 errors, 0 warnings)\n", "")


def test_validate_prints_one_line_per_problem_and_fails(capsys):
    assert main(["validate", SMALL, NOT_JSON]) == 1
    out, err = capsys.readouterr()
    assert err == f"{NOT_JSON}: line 2 column 14: error: not JSON: Expecting value\n"
    assert out == (f"{SMALL}: valid (0 errors, 0 warnings)\n"
                   f"{NOT_JSON}: invalid (1 error, 0 warnings)\n")


def test_warnings_do_not_fail(capsys, small, write_trace):
    small["costs"]["messages"] = 3
    path = write_trace(small)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().err == (
        f"{path}: /costs/messages: warning: costs.messages records 3 but the trace has "
        "1 message events\n")


def test_validate_json_report(capsys):
    assert main(["validate", "--json", SMALL, NOT_JSON]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False and report["unreadable"] == []
    assert [(f["file"], f["valid"], f["errors"], f["warnings"]) for f in report["files"]] == [
        (SMALL, True, 0, 0), (NOT_JSON, False, 1, 0)]
    assert report["files"][1]["problems"] == [
        {"severity": "error", "code": "not-json", "where": "line 2 column 14", "pointer": "",
         "message": "not JSON: Expecting value"}]


def test_missing_file_is_exit_2(capsys, tmp_path):
    missing = tmp_path / "absent.json"
    assert main(["validate", SMALL, str(missing)]) == 2
    assert capsys.readouterr().err == f"{missing}: file: error: cannot read: no such file\n"
    assert main(["replay", str(missing)]) == 2


def test_usage_error_is_exit_2(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["validate"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit) as exited:
        main(["replay", SMALL, "--bogus"])
    assert exited.value.code == 2


def test_replay_json(capsys):
    assert main(["replay", SMALL, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["critical_steps"], result["parallelism"], result["spawn_depth"],
            result["max_concurrency"]) == (6, 1.5, 1, 2)
    assert result["credit"]["counterfactual"]["shapley"] == {"a": 0.7, "b": 0.3}


def test_replay_output_is_deterministic(capsys):
    main(["replay", SMALL, "--json"])
    first = capsys.readouterr().out
    main(["replay", SMALL, "--json"])
    assert capsys.readouterr().out == first
    assert list(json.loads(first)) == sorted(json.loads(first))


def test_replay_text_summary(capsys):
    assert main(["replay", SMALL]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "trace small (centralized): 9 events, 10 edges, 1 tool call, 1 message",
        "critical steps 6, parallelism 1.50, spawn depth 1, max concurrency 2",
        "wall clock 8 s, speedup 0.88, tokens 250 (recorded 250)",
        "cost US$ 0.7500 (recorded US$ 0.7500), estimated from tokens not recorded",
        "team reward 1: equal split 0.333333 per agent over 3 agents",
        "may be low: speedup, busy time: 5 of the 9 events last no time in the log (the time "
        "they took, if any, is inside no event)",
        "partly recorded: cost: 4 model calls (events that record tokens) record no cost of "
        "their own; the total adds up the others",
        "not recorded: estimated cost: no model call names its model (x_model) with its input "
        "and output tokens (x_usage.input, x_usage.output)",
    ]


def test_no_caveat_on_the_speedup_when_every_event_lasts(capsys, small, write_trace):
    for record in small["events"]:
        record.pop("duration", None)
        record["t_end"] = record["t"] + 0.5
    assert main(["replay", str(write_trace(small))]) == 0
    assert "may be low" not in capsys.readouterr().out


def test_a_small_speedup_is_not_printed_as_zero(capsys, small, write_trace):
    """Events of a few milliseconds over minutes: the speedup is small, not 0.00."""
    for record in small["events"]:
        record.pop("duration", None)
        if "t_end" in record:
            record["t_end"] = record["t"] + 0.001
    small["events"][-1]["t"] = 600
    assert main(["replay", str(write_trace(small))]) == 0
    line = capsys.readouterr().out.splitlines()[2]
    speedup = re.search(r"speedup ([^,]+),", line).group(1)
    assert re.fullmatch(r"\d\.\de-0\d", speedup), line


def test_replay_text_summary_says_what_is_not_recorded_and_why(capsys, small, write_trace):
    """A log that keeps the order of its records but no times, tokens, costs or rewards."""
    for record in small["events"]:
        for key in ("t_end", "duration", "tokens", "cost_usd", "reward"):
            record.pop(key, None)
        record["t"] = 0
    small.pop("counterfactuals")
    small["rewards"], small["costs"] = {}, {"tokens": 0, "wall_clock_s": 0}
    assert main(["replay", str(write_trace(small))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        "clock: steps (the events are replayed in their order, one step each)",
        "wall clock not recorded, speedup not recorded, tokens not recorded",
        "cost not recorded, estimated from tokens not recorded",
        "team reward not recorded: no credit to split (counterfactual credit from an outcome "
        "model: masrl replay FILE --outcome decisive_step)",
        "not recorded: wall clock, busy time, speedup: the log records the order of events, "
        "not their times",
        "not recorded: tokens: no event records tokens",
        "not recorded: recorded tokens: the trace's costs.tokens is 0 and no event records "
        "tokens: a required field filled in, not a count",
        "not recorded: cost: no event records a cost in US dollars (cost_usd)",
        "not recorded: recorded cost: the trace's costs give no total in US dollars (costs.usd)",
        "not recorded: estimated cost: no event records a model call's tokens",
        "not recorded: team reward: the trace records no team reward (rewards.team)",
    ]
    assert "0.00" not in "\n".join(lines) and "-" not in "\n".join(lines[3:5])


def test_replay_text_summary_shows_the_estimated_cost(capsys, small, write_trace):
    pytest.importorskip("genai_prices", reason="the prices extra is not installed")
    small["events"][0].update(x_model="gpt-4o", x_usage={"input": 60, "output": 40})
    small["events"][3].update(x_model="our-own-model", x_usage={"input": 30, "output": 20})
    assert main(["replay", str(write_trace(small))]) == 0
    cost_line = capsys.readouterr().out.splitlines()[3]
    assert re.fullmatch(r"cost US\$ 0\.7500 \(recorded US\$ 0\.7500\), estimated from tokens "
                        r"US\$ 0\.\d{4} \(genai-prices [\w.]+\), partial: 5 of 6 model calls "
                        r"not priced", cost_line), cost_line


def test_no_caveat_on_the_cost_when_every_model_call_records_one(capsys, small, write_trace):
    for record in small["events"]:
        if "tokens" in record:
            record.setdefault("cost_usd", 0.01)
    assert main(["replay", str(write_trace(small)), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cost_usd"]["model_calls_without_cost"] == 0
    assert main(["replay", str(write_trace(small))]) == 0
    assert "partly recorded" not in capsys.readouterr().out


def test_replay_refuses_an_invalid_trace(capsys, small, write_trace):
    small["events"][3]["t_end"] = 1
    path = write_trace(small)
    assert main(["replay", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"{path}: events[3] (id e4) /events/3/t_end: error: t_end 1 is before t 2\n")
    assert json.loads(captured.out)["valid"] is False


# ---------------------------------------------------------------------------------- credit

def test_replay_names_the_costliest_decision_of_the_worked_example(capsys, write_trace):
    from masrl.traces.synthetic import counterfactual_example

    path = write_trace(counterfactual_example())
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert ("leave-one-out credit per orchestrator (recorded rollouts): largest d_delegate (O2) "
            "+0.05, most negative d_stop (O5) -0.2") in out
    assert "leave-one-out credit per message (recorded rollouts): largest m_fix +0.4\n" in out
    assert main(["replay", str(path), "--json"]) == 0
    credit = json.loads(capsys.readouterr().out)["credit"]
    assert credit["counterfactual_units"]["units"]["message"]["zero_by_construction"] == [
        "m_style"]
    assert {d["event"]: d["subdecision"] for d in credit["decisions"]}["d_stop"] == "O5"


def test_replay_with_an_outcome_model(capsys):
    assert main(["replay", SMALL, "--json", "--outcome", "token_penalty"]) == 0
    units = json.loads(capsys.readouterr().out)["credit"]["counterfactual_units"]
    assert units["source"] == "model" and units["model"] == "token_penalty"
    # removing b's events (e6: 30 tokens, e8: 10) saves 0.04 thousand tokens
    assert units["units"]["agent"]["leave_one_out"]["b"] == pytest.approx(-0.04)
    with pytest.raises(SystemExit) as exited:  # a usage error
        main(["replay", SMALL, "--outcome", "nope"])
    assert exited.value.code == 2


def test_replay_with_a_model_the_trace_cannot_feed_fails_with_a_line(capsys, small, write_trace):
    del small["rewards"]["team"]
    small["counterfactuals"]["channel"] = "process"
    path = write_trace(small)
    assert main(["replay", str(path), "--outcome", "decisive_step"]) == 1
    assert capsys.readouterr().err.endswith(
        "error: the decisive-step model needs the recorded outcome: the trace has no "
        "rewards.team\n")
