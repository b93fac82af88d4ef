"""The Codex importer on a hand-written rollout with parallel tool calls, an apply_patch custom
tool, and a sub-agent (spawn_agent, send_input, wait, close_agent) whose own rollout lies beside
it next to another session's rollout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from importer_helpers import FIXTURES, source_file

from masrl.traces import replay, validate_document
from masrl.traces.importers import SourceError, dumps, import_file

FOLDER = FIXTURES / "codex"
MAIN_ID = "0190a1b2-0000-7000-8000-00000000aaaa"
CHILD_ID = "0190a1b2-0000-7000-8000-00000000cccc"
MAIN = FOLDER / f"rollout-2026-02-03T10-00-00-{MAIN_ID}.jsonl"
CHILD = FOLDER / f"rollout-2026-02-03T10-00-03-{CHILD_ID}.jsonl"
CHILD_AGENT = f"agent-{CHILD_ID}"


def short(name: str | None) -> str | None:
    return None if name is None else name.replace(CHILD_ID, "C")


def shape(trace: dict) -> list[tuple]:
    return [(short(e["id"]), e["t"], e["type"], short(e["agent"]),
             short(e.get("to") or e.get("tool")), e.get("tokens")) for e in trace["events"]]


def edges(trace: dict) -> set[tuple]:
    return {(short(e["src"]), short(e["dst"]), e["type"], e.get("mode")) for e in trace["edges"]}


def test_events():
    assert shape(import_file("codex", MAIN).trace) == [
        ("main:5", 0.0, "message", "user", "main", None),
        ("main:8", 1.997, "tool_call", "main", "shell", None),
        ("main:9", 2.097, "spawn", "main", "agent-C", 1260),
        ("main:11", 2.997, "tool_result", "main", "shell", None),
        ("main:14", 4.997, "tool_call", "main", "apply_patch", 1490),
        ("main:16", 5.497, "tool_result", "main", "apply_patch", None),
        ("main:18", 5.997, "message", "main", "agent-C", None),  # send_input
        ("main:20", 6.497, "tool_call", "main", "wait", 1540),
        ("main:22", 14.997, "return", "agent-C", "main", None),  # the wait's output
        ("main:23", 15.997, "message", "main", "user", 1730),
        ("main:26", 16.497, "despawn", "main", "agent-C", None),  # close_agent
        ("C:5", 3.997, "tool_call", "agent-C", "shell", 520),
        ("C:7", 4.497, "tool_result", "agent-C", "shell", None),
        ("C:10", 8.997, "message", "agent-C", None, 715),
    ]


def test_edges():
    assert edges(import_file("codex", MAIN).trace) == {
        ("main:5", "main:8", "message", None),
        ("main:8", "main:9", "causal", None),
        ("main:8", "main:11", "tool_dependency", "blocking"),
        ("main:11", "main:14", "causal", None),
        ("main:14", "main:16", "tool_dependency", "blocking"),
        ("main:16", "main:18", "causal", None),
        ("main:18", "main:20", "causal", None),
        ("main:20", "main:22", "causal", None),
        ("main:22", "main:23", "return", None),
        ("main:23", "main:26", "causal", None),
        ("main:9", "C:5", "spawn", "async"),
        ("C:5", "C:7", "tool_dependency", "blocking"),
        ("C:7", "C:10", "causal", None),
        ("main:18", "C:10", "message", None),  # the send_input reached the sub-agent
        ("C:10", "main:22", "causal", None),
    }


def test_roles_tokens_run_fields_and_provenance():
    result = import_file("codex", MAIN)
    trace = result.trace
    by_id = {short(e["id"]): e for e in trace["events"]}
    assert by_id["main:9"]["role"] == "explorer"
    assert by_id["main:9"]["x_usage"] == {"input": 1200, "cached_input": 800, "output": 60,
                                          "reasoning_output": 20}
    assert by_id["main:9"]["x_model"] == "gpt-test-codex"
    assert by_id["C:5"]["x_model"] == "gpt-test-codex-mini"
    assert by_id["main:5"]["role"] == "human"
    assert by_id["main:11"]["trusted"] is False
    assert (trace["trace_id"], trace["task_id"], trace["system"], trace["topology"]) == (
        f"codex:{MAIN_ID}", MAIN_ID, "Codex CLI 0.80.0", "harness")
    assert trace["costs"] == {"tokens": 7255, "wall_clock_s": 16.497, "tool_calls": 4,
                              "messages": 4}
    # the other session's rollout in the same folder is not read
    assert trace["provenance"]["sources"] == [source_file(MAIN, MAIN.name),
                                              source_file(CHILD, CHILD.name)]
    assert trace["provenance"]["repaired"] == {
        "sub-agent task (its first user message) carried by its spawn event": 1}
    assert trace["provenance"]["skipped"] == {
        "event_msg:agent_message": 1,
        "event_msg:collab_agent_spawn_end": 1,
        "event_msg:patch_apply_end": 1,
        "event_msg:task_complete": 1,
        "event_msg:user_message of a sub-agent (carried by its spawner's send_input)": 1,
        "function_call_output of close_agent (carried by its event)": 1,
        "function_call_output of send_input (carried by its event)": 1,
        "function_call_output of spawn_agent (carried by the spawn)": 1,
        "response_item:message (developer: instructions, injected context or a copy of a "
        "user_message event)": 1,
        "response_item:message (user: instructions, injected context or a copy of a "
        "user_message event)": 4,
        "response_item:reasoning": 1,
        "session_meta": 2,
        "turn_context": 2,
    }


def test_every_line_is_accounted_for():
    result = import_file("codex", MAIN)
    texts = [Path(f).read_text(encoding="utf-8") for f in result.files]
    lines = sum(len(text.splitlines()) for text in texts)
    sources = {e["x_source"] for e in result.trace["events"]}
    token_counts = sum(1 for text in texts for line in text.splitlines()
                       if '"type":"token_count"' in line)
    assert lines == len(sources) + sum(result.skipped.values()) + token_counts + 1  # + task


def test_replays_with_a_sub_agent_running_beside_its_spawner():
    report = validate_document(import_file("codex", MAIN).trace)
    assert report.problems == []
    metrics = replay(report.trace).metrics
    assert metrics["spawn_depth"] == 1
    assert metrics["max_concurrency"] == 1
    # the sub-agent works while main goes on: main acts 5 times between spawn and return
    trace = import_file("codex", MAIN).trace
    spawn, ret = (next(e["t"] for e in trace["events"] if e["type"] == kind)
                  for kind in ("spawn", "return"))
    assert sum(1 for e in trace["events"] if e["agent"] == "main" and spawn < e["t"] < ret) == 5


def test_content_is_hashed_never_copied():
    text = dumps(import_file("codex", MAIN).trace)
    for secret in ("failing test", "edge cases", "pytest", "negative numbers", "division",
                   "def div", "calc.py"):
        assert secret not in text


def test_same_bytes_wherever_the_folder_lies(fixture_copy):
    copy = fixture_copy("codex")
    assert dumps(import_file("codex", copy / MAIN.name).trace) == dumps(
        import_file("codex", MAIN).trace)


def test_faulty_rollouts_of_other_sessions_beside_it_do_not_refuse_the_session(fixture_copy):
    """The folder holds every session of a day: another session's rollout being written (a
    character cut at its end) is read no further than its first line, and one that cannot be
    opened (a FIFO here) is named in the evidence, not a reason to refuse this session."""
    folder = fixture_copy("codex")
    other = folder / "rollout-2026-02-03T12-00-00-0190a1b2-0000-7000-8000-00000000ffff.jsonl"
    other.write_bytes(b'{"timestamp":"2026-02-03T12:00:00Z","type":"session_meta",'
                      b'"payload":{"id":"0190a1b2-0000-7000-8000-00000000ffff"}}\n'
                      b'{"timestamp":"2026-02-03T12:00:01Z","type":"event_msg","payload":'
                      b'{"type":"agent_message","message":"caf\xc3')
    fifo = folder / "rollout-2026-02-03T13-00-00-0190a1b2-0000-7000-8000-00000000eeee.jsonl"
    os.mkfifo(fifo)
    result = import_file("codex", folder / MAIN.name)
    alone = import_file("codex", MAIN).trace
    assert (result.trace["events"], result.trace["edges"]) == (alone["events"], alone["edges"])
    assert result.recognised["evidence"].endswith(
        f"1 rollout beside it not looked at, as it cannot be read ({fifo.name}: not a "
        "regular file (a FIFO, device or socket); give a file)")


def test_failed_spawn_is_a_tool_call_with_its_result(fixture_copy, edit_file):
    folder = fixture_copy("codex")
    edit_file(folder / MAIN.name, '{\\"agent_id\\": \\"' + CHILD_ID + '\\", \\"nickname\\": '
              '\\"Ada\\"}', "Agent depth limit reached.")
    (folder / CHILD.name).unlink()
    trace = import_file("codex", folder / MAIN.name).trace
    by_id = {e["id"]: e for e in trace["events"]}
    assert (by_id["main:9"]["type"], by_id["main:9"]["tool"]) == ("tool_call", "spawn_agent")
    assert (by_id["main:12"]["type"], by_id["main:12"]["tool"]) == ("tool_result",
                                                                    "spawn_agent")
    assert validate_document(trace).valid


SPAWN_END = FOLDER / "spawn_end"
END_MAIN = SPAWN_END / "rollout-2026-11-02T08-00-00-019b2f00-0000-7000-8000-0000000000d1.jsonl"
END_CHILD = "agent-019b2f00-0000-7000-8000-0000000000d2"


def test_a_spawn_without_output_is_named_by_its_spawn_end_event():
    """A spawn_agent call whose output record is missing still names its sub-agent: the
    collab_agent_spawn_end event gives the new thread (the rollout beside it was refused as
    spawned by nothing, and the spawn had no target). A failed spawn, whose end event names no
    thread, stays a tool call with its result."""
    result = import_file("codex", END_MAIN)
    trace = result.trace
    by_id = {e["id"]: e for e in trace["events"]}
    spawn = by_id["main:4"]
    assert (spawn["type"], spawn["to"]) == ("spawn", END_CHILD)
    assert (by_id["main:7"]["type"], by_id["main:7"]["tool"]) == ("tool_call", "spawn_agent")
    assert "to" not in by_id["main:7"]
    child = [e for e in trace["events"] if e["agent"] == END_CHILD]
    assert sorted(e["type"] for e in child) == ["message", "return", "tool_call", "tool_result"]
    first = next(e for e in child if e["type"] == "tool_call")
    assert {(e["src"], e["type"]) for e in trace["edges"] if e["dst"] == first["id"]} == \
        {("main:4", "spawn")}
    assert result.skipped["event_msg:collab_agent_spawn_end"] == 2
    assert validate_document(trace).errors == []


def test_a_spawn_end_before_the_output_gives_the_same_trace(fixture_copy):
    """The end event written before the spawn's output (the output names the thread too):
    the same events and edges as when it follows, and the sub-agent counted once."""
    folder = fixture_copy("codex")
    lines = (folder / MAIN.name).read_text(encoding="utf-8").splitlines(keepends=True)
    ends = [k for k, line in enumerate(lines) if '"collab_agent_spawn_end"' in line]
    assert ends == [12] and '"call_2"' in lines[11]  # the output, then its end event
    lines[11], lines[12] = lines[12], lines[11]
    (folder / MAIN.name).write_text("".join(lines), encoding="utf-8")
    moved, alone = import_file("codex", folder / MAIN.name).trace, import_file("codex", MAIN).trace
    for trace in (moved, alone):
        for event in trace["events"]:
            event.pop("x_source", None)
    assert (moved["events"], moved["edges"]) == (alone["events"], alone["edges"])


def test_sub_agent_rollout_that_nothing_spawns(fixture_copy, edit_file):
    folder = fixture_copy("codex")
    edit_file(folder / MAIN.name, '"name":"spawn_agent"', '"name":"shell"')
    with pytest.raises(SourceError) as caught:
        import_file("codex", folder / MAIN.name)
    assert str(caught.value) == (f"{folder / CHILD.name}: no spawn_agent call of {MAIN.name} "
                                 f"spawns thread {CHILD_ID}")


def first_lines(n: int) -> str:
    return "".join(MAIN.read_text(encoding="utf-8").splitlines(keepends=True)[:n])


@pytest.mark.parametrize("text, where, message", [
    ('{"timestamp":"2026-02-03T10:00:00.000Z","type":"event_msg","payload":{"type":'
     '"user_message","message":"hi"}}\n', 1, "a rollout starts with a session_meta record"),
    (first_lines(1) + '{"timestamp":"2026-02-03T10:00:00.000Z","type":"event_msg",'
     '"payload":"hi"}\n', 2, "payload must be an object"),
    (first_lines(1) + '{"type":"event_msg","payload":{"type":"user_message"}}\n', 2,
     "record has no timestamp"),
    (first_lines(1) + '{"timestamp":"soon","type":"event_msg","payload":{"type":'
     '"user_message"}}\n', 2, 'timestamp must be an ISO 8601 time, found the string "soon"'),
    (first_lines(1) + '{"timestamp":"2026-02-03T10:00:00.000Z","type":"event_msg",\n', 2,
     "not a JSON record (Expecting property name enclosed in double quotes at column 60); is "
     "the line truncated?"),
])
def test_bad_rollouts_name_file_and_line(tmp_path, text, where, message):
    path = tmp_path / "rollout-bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("codex", path)
    assert str(caught.value) == f"{path}:{where}: {message}"


def test_timed_out_wait_is_a_tool_result(fixture_copy, edit_file):
    folder = fixture_copy("codex")
    status = json.dumps(json.dumps({"status": {CHILD_ID: {"completed": "No edge cases "
                                                                        "missed."}},
                                    "timed_out": False}))[1:-1]
    edit_file(folder / MAIN.name, status, json.dumps(json.dumps(
        {"status": {CHILD_ID: "running"}, "timed_out": True}))[1:-1])
    trace = import_file("codex", folder / MAIN.name).trace
    by_id = {e["id"]: e for e in trace["events"]}
    assert (by_id["main:22"]["type"], by_id["main:22"]["tool"]) == ("tool_result", "wait")
    assert validate_document(trace).valid


def test_unknown_record_type_is_skipped_and_counted(tmp_path):
    """Was an error; a record type the importer does not know is counted under its own reason
    (issue 18), and the rest of the rollout imports as before."""
    text = MAIN.read_text(encoding="utf-8")
    path = tmp_path / MAIN.name
    lines = text.splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + '{"timestamp":"2026-02-03T10:00:00.002Z",'
                    '"type":"hologram","payload":{}}\n' + "".join(lines[3:]), encoding="utf-8")
    result = import_file("codex", path)
    assert result.skipped["unknown record type: hologram"] == 1
    records = result.trace["provenance"]["records"]
    assert records["read"] == len(lines) + 1 == records["mapped"] + records["skipped"]


def test_records_are_kept_without_the_fields_the_import_never_reads():
    """A rollout's records are held as items whose payloads keep only what the import reads
    (the trace above is what they give): token counts their info (packed), turn contexts their
    model, a skipped event or item its type alone, shared; the items the trace is made of
    whole; the time as microseconds since 1970."""
    from collections import Counter

    from masrl.traces.importers._kit.common import read_jsonl
    from masrl.traces.importers._kit.timestamps import moment_ns
    from masrl.traces.importers.sessions import codex
    from masrl.traces.importers.sessions.codex_counts import PackedInfo, info_of

    raw = [json.loads(line) for line in MAIN.read_text("utf-8").splitlines() if line.strip()]
    items = [item for _, item in read_jsonl(MAIN, Counter(), codex.ItemReader())]
    assert all(type(item) is codex.Item for item in items)
    kept = {"token_count": {"type", "info"}, "user_message": {"type", "message"},
            "collab_agent_spawn_end": {"type", "call_id", "new_thread_id"}}
    for record, item in zip(raw, items, strict=True):
        assert item.time == moment_ns(record["timestamp"], MAIN, 1, "timestamp") // 1000
        assert item.type == record["type"] and item.type is codex.NAMES[record["type"]]
        sub = record["payload"].get("type")
        if record["type"] == "session_meta" or sub in codex.ITEMS_READ:
            assert item.payload == record["payload"]
        elif record["type"] == "turn_context":
            assert item.payload == {k: record["payload"][k] for k in ("model",)
                                    if k in record["payload"]}
        elif record["type"] == "event_msg" and sub in kept:
            payload = dict(item.payload)
            if "info" in payload:
                payload["info"] = info_of(payload)
            assert payload == {k: v for k, v in record["payload"].items() if k in kept[sub]}
        else:
            assert item.payload == {"type": sub}
    assert any(type(item.payload.get("info")) is PackedInfo for item in items)
    assert any(r["type"] == "turn_context" and len(r["payload"]) > 1 for r in raw)
    assert any(r["payload"].get("type") == "token_count" and "rate_limits" in r["payload"]
               for r in raw)
    first, second = ({"timestamp": "2026-02-03T10:00:00Z", "type": "event_msg",
                      "payload": {"type": "agent_message", "message": text}} for text in "ab")
    reader = codex.ItemReader()
    assert reader(1, first).payload is reader(2, second).payload


def _record(kind: str, payload: dict, stamp: str = "2026-02-03T10:00:00.5Z") -> dict:
    return {"timestamp": stamp, "type": kind, "payload": payload}


def test_repeated_payloads_of_a_rollout_are_held_once():
    """A payload kept of the same fields as the previous one and equal to it, its values texts
    or packed counts, is that one; one that differs, or whose values are equal without being
    the same (a count as text, a model as a number), is its own."""
    from masrl.traces.importers.sessions import codex
    from masrl.traces.importers.sessions.codex_counts import info_of

    read = codex.ItemReader()
    usage = {"input_tokens": 1200, "output_tokens": 60}
    info = {"last_token_usage": usage, "model_context_window": 272000}
    turns = [read(k, _record("turn_context", {"model": model, "cwd": f"/w{k}"}))
             for k, model in enumerate(["gpt-5", "gpt-5", "o3", "o3"])]
    assert turns[0].payload is turns[1].payload and turns[2].payload is turns[3].payload
    assert turns[1].payload is not turns[2].payload
    counts = [read(k, _record("event_msg", {"type": "token_count", "info": json.loads(
        json.dumps(i)), "rate_limits": {"k": k}})) for k, i in enumerate(
        [info, info, {**info, "model_context_window": 272001}, info])]
    assert counts[0].payload is counts[1].payload
    assert counts[2].payload is not counts[1].payload is not counts[3].payload
    assert [info_of(c.payload) for c in counts] == [info, info, {**info,
                                                                 "model_context_window": 272001},
                                                    info]
    texts = [read(k, _record("event_msg", {"type": "token_count", "info": {
        "last_token_usage": {**usage, "input_tokens": value}}})) for k, value in
        enumerate([1200, "1200", 1200.0, True])]
    assert [type(info_of(t.payload)["last_token_usage"]["input_tokens"]) for t in texts] == [
        int, str, float, bool]
    models = [read(k, _record("turn_context", {"model": m})) for k, m in enumerate([1, 1.0])]
    assert models[0].payload is not models[1].payload
    assert type(models[1].payload["model"]) is float


def test_a_timestamp_that_does_not_read_the_usual_way_is_kept_as_written():
    """Read the usual way, a time is held as microseconds; any other is kept as written and
    read by the rule when its line is emitted (refused there, on the line that has it)."""
    from masrl.traces.importers.sessions import codex

    read = codex.ItemReader()
    assert read(1, _record("compacted", {}, "2026-02-03T10:00:00.5Z")).time == \
        1_770_112_800_500_000
    for stamp in ("2026-02-30T10:00:00Z", "yesterday", "10000-01-01T00:00:00Z"):
        assert read(2, _record("compacted", {}, stamp)).time == stamp


def _text_input(info: dict) -> dict:
    return {**info, "last_token_usage": {**info["last_token_usage"], "input_tokens": "1200"}}


@pytest.mark.parametrize("change, both, repeats, repaired", [
    (lambda info: info, False, 1, 0),
    (lambda info: dict(reversed(info.items())), False, 1, 0),  # keys in another order
    (lambda info: {**info, "last_token_usage": {**info["last_token_usage"],
                                                "input_tokens": 1200.0}}, False, 1, 0),
    (_text_input, False, 1, 1),
    (_text_input, True, 1, 2),  # the count and its repeat as text: each text read (repaired)
    (lambda info: {**info, "model_context_window": 1}, False, 0, 0),
])
def test_a_count_written_again_is_a_repeat_whatever_its_form(tmp_path, change, both, repeats,
                                                             repaired):
    """The repeat check compares counts as read: written again with its keys in another
    order, a count as a float or as text, it is the same count (stated once; each text
    counted as repaired); with any value changed, another."""
    lines = [json.loads(line) for line in MAIN.read_text("utf-8").splitlines()]
    at = next(k for k, r in enumerate(lines) if r["payload"].get("type") == "token_count"
              and r["payload"].get("info"))
    assert lines[at]["payload"]["info"]["last_token_usage"]["input_tokens"] == 1200
    again = json.loads(json.dumps(lines[at]))
    again["payload"]["info"] = change(again["payload"]["info"])
    if both:
        lines[at]["payload"]["info"] = change(lines[at]["payload"]["info"])
    lines.insert(at + 1, again)
    folder = tmp_path / "s"
    folder.mkdir()
    path = folder / MAIN.name
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    result = import_file("codex", path)
    told = "event_msg:token_count repeating the previous count (stated once)"
    assert result.skipped.get(told, 0) == repeats
    assert result.repairs.get("count written as text (read as the number its digits spell)",
                              0) == repaired
