"""Codex CLI versions as data (issue 18): 0.40 writes each token_count before the response it
prices, 0.125 after it; the importer tells the order from the data, records it, and puts every
count on its own response either way (read the 0.125 way, a 0.40 rollout lost its first count
and shifted every later one onto the response before its own)."""

from __future__ import annotations

import json
from pathlib import Path

from importer_helpers import FIXTURES

from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures
from masrl.traces.importers._kit.detect import Sample
from masrl.traces.importers.sessions import codex
from masrl.traces.importers.sessions.codex import token_order

V040 = next((FIXTURES / "codex" / "v0_40").glob("rollout-*.jsonl"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def priced(path: Path) -> dict[str, int]:
    """Event id -> the tokens put on it."""
    return {e["id"]: e["tokens"] for e in import_file("codex", path).trace["events"]
            if "tokens" in e}


def after_order_copy(tmp_path: Path) -> Path:
    """The 0.40 fixture rewritten as 0.125 writes it: each count moved after the model output
    that follows it (the response it prices), the version changed; nothing else."""
    lines = records(V040)
    lines[0]["payload"]["cli_version"] = "0.125.0"
    out, held = [], []
    for record in lines:
        payload = record["payload"]
        output = record["type"] == "response_item" and (
            payload.get("type") in ("reasoning", "function_call")
            or payload.get("role") == "assistant")
        if record["type"] == "event_msg" and payload.get("type") == "token_count" \
                and payload.get("info"):
            held.append(record)
            continue
        out.append(record)
        if output and held and payload.get("type") != "reasoning":
            out.extend(held)
            held = []
    out.extend(held)
    path = tmp_path / V040.name
    path.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    return path


def kinds(path: Path) -> list[tuple]:
    """(type, agent, tokens) of the priced events, sorted."""
    return sorted((e["type"], e["agent"], e["tokens"])
                  for e in import_file("codex", path).trace["events"] if "tokens" in e)


def test_0_40_counts_price_the_response_after_them():
    result = import_file("codex", V040)
    # line 7 (2000 + 40) prices the shell call of line 9, line 11 (2100 + 80) the message of
    # line 13, line 16 (2300 + 25; line 17 repeats it) the message of line 18
    assert priced(V040) == {"main:9": 2040, "main:13": 2180, "main:18": 2325}
    assert result.recognised["shape"] == "token_count before the response it prices"
    assert result.recognised["version"] == "0.40.0"
    by_id = {e["id"]: e for e in result.trace["events"]}
    assert by_id["main:9"]["x_usage"] == {"input": 2000, "output": 40, "cached_input": 1500,
                                          "reasoning_output": 10}
    assert by_id["main:9"]["x_model_call"] == f"{V040.name}:7"
    assert result.skipped["event_msg:token_count repeating the previous count (stated once)"] \
        == 1
    provenance = result.trace["provenance"]
    assert provenance["usage"]["source"]["tokens_in"] == 2000 + 2100 + 2300
    assert conservation_problems(result.trace) == []


def test_either_order_puts_each_count_on_the_same_response(tmp_path):
    copy = after_order_copy(tmp_path)
    result = import_file("codex", copy)
    assert result.recognised["shape"] == "token_count after the response it prices"
    assert kinds(copy) == kinds(V040)
    assert figures(result.trace)["tokens_in"] == figures(import_file("codex", V040).trace)[
        "tokens_in"] == 6400


def test_order_told_by_the_data_not_the_version(tmp_path):
    """A 0.40-labelled rollout whose counts follow their responses is read as it is written."""
    copy = after_order_copy(tmp_path)
    lines = records(copy)
    lines[0]["payload"]["cli_version"] = "0.40.0"
    copy.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    order, evidence = token_order([(k, r) for k, r in enumerate(lines, start=1)], "0.40.0")
    assert order == "after" and "cli_version 0.40.0" in evidence
    assert sorted(priced(copy).values()) == [2040, 2180, 2325]


def test_version_decides_when_no_turn_tells():
    meta = {"type": "session_meta", "payload": {"id": "x"}}
    assert token_order([(1, meta)], "0.40.0")[0] == "before"
    assert token_order([(1, meta)], "0.125.0")[0] == "after"
    assert token_order([(1, meta)], None)[0] == "after"


OLDER = next((FIXTURES / "codex" / "v0_1").glob("rollout-*.jsonl"))


def test_an_older_rollout_is_read_in_order_without_times():
    """The older layout: a first line {id, timestamp, instructions}, items without the
    envelope, state lines between; no item has a time or a token count."""
    sample = Sample(OLDER, records=records(OLDER))
    assert codex.sniff(sample).startswith("an older Codex rollout")
    result = import_file("auto", OLDER)
    trace = result.trace
    assert [(e["type"], e["agent"], e.get("tool")) for e in trace["events"]] == [
        ("message", "user", None), ("tool_call", "main", "shell"),
        ("tool_result", "main", "shell"), ("tool_call", "main", "shell"),
        ("tool_result", "main", "shell"), ("message", "main", None)]
    assert {e["t"] for e in trace["events"]} == {0.0}  # the log keeps order, not times
    assert result.time_origin is None and "time_origin" not in trace["provenance"]
    assert result.skipped["state record (older layout: the session's state, no step)"] == 4
    assert trace["provenance"]["recognised"]["shape"].startswith("older layout")
    assert conservation_problems(trace) == []
    assert trace["task_id"] == "5f1c9a2e-0000-4000-8000-00000000b0b0"


def test_an_item_of_an_older_rollout_without_a_type_names_its_line(tmp_path):
    path = tmp_path / OLDER.name
    lines = OLDER.read_text(encoding="utf-8").splitlines()
    lines[3] = '{"role": "user", "content": []}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sample = Sample(path, records=[json.loads(line) for line in lines])
    assert codex.sniff(sample) is None  # not the older layout: no format claims it
    assert "older rollout" in codex.refusal(sample)
