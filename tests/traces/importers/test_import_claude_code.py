"""The Claude Code importer on a hand-written session with a sub-agent file, progress copies, a
compaction run, parallel tool calls and a clock-skewed result, and on a session whose sub-agent
exists only in its progress records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from importer_helpers import FIXTURES, source_file

from masrl.traces import replay, validate_document
from masrl.traces.importers import SourceError, dumps, import_file

FOLDER = FIXTURES / "claude_code"
SESSION = FOLDER / "s1.jsonl"
PROGRESS_ONLY = FOLDER / "progress_only.jsonl"


def sha(value) -> str:
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["t"], e["type"], e["agent"], e.get("to") or e.get("tool"),
             e.get("tokens")) for e in trace["events"]]


def edges(trace: dict) -> set[tuple]:
    return {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}


def test_session_events():
    trace = import_file("claude-code", SESSION).trace
    assert shape(trace) == [
        ("main:2", 0.0, "message", "user", "main", None),
        ("main:4", 1.5, "message", "main", "user", None),
        ("main:5", 2.0, "tool_call", "main", "Read", None),
        ("main:6", 2.2, "tool_call", "main", "Grep", 130),  # last block of response msg_a
        ("main:8", 2.9, "tool_result", "main", "Grep", None),
        ("main:9", 3.1, "tool_result", "main", "Read", None),
        ("main:10", 4.0, "spawn", "main", "agent-b1", 190),
        ("main:13", 9.0, "return", "agent-b1", "main", None),
        ("main:14", 10.0, "message", "main", "user", 213),
        ("main:17", 20.0, "message", "user", "main", None),
        ("main:19", 21.0, "tool_call", "main", "Bash", 305),
        ("main:20", 21.0, "tool_result", "main", "Bash", None),  # logged at 20.99: raised
        ("main:21", 40.0, "return", "agent-acompact-c1", "main", None),
        ("main:23", 41.0, "message", "main", "user", 59),
        ("b1:2", 5.0, "tool_call", "agent-b1", "Read", 57),
        ("b1:4", 5.5, "tool_result", "agent-b1", "Read", None),
        ("b1:5", 8.0, "message", "agent-b1", None, 87),
        ("acompact-c1:2", 30.0, "spawn", "main", "agent-acompact-c1", None),
        ("acompact-c1:3", 39.0, "message", "agent-acompact-c1", None, 353),
    ]


def test_session_edges():
    trace = import_file("claude-code", SESSION).trace
    assert edges(trace) == {
        ("main:2", "main:4", "message", None),
        ("main:4", "main:5", "causal", None),
        ("main:5", "main:6", "causal", None),
        ("main:5", "main:9", "tool_dependency", "blocking"),
        ("main:6", "main:8", "tool_dependency", "blocking"),
        ("main:9", "main:10", "causal", None),  # parentUuid chain
        ("main:8", "main:10", "causal", None),  # the other parallel result, gathered
        ("main:10", "b1:2", "spawn", "blocking"),
        ("b1:2", "b1:4", "tool_dependency", "blocking"),
        ("b1:4", "b1:5", "causal", None),
        ("b1:5", "main:13", "causal", None),
        ("main:13", "main:14", "return", None),
        ("main:14", "main:17", "message", None),  # through a hook summary and a meta record
        ("main:17", "main:19", "message", None),
        ("main:19", "main:20", "tool_dependency", "blocking"),
        ("main:20", "acompact-c1:2", "causal", None),
        ("acompact-c1:2", "acompact-c1:3", "spawn", "blocking"),
        ("acompact-c1:3", "main:21", "causal", None),
        ("main:21", "main:23", "return", None),  # through the compact summary record
        ("main:20", "main:23", "causal", None),
    }
    assert len(trace["edges"]) == 20


def test_session_roles_tokens_and_run_fields():
    result = import_file("claude-code", SESSION)
    trace = result.trace
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["main:10"]["role"] == "Explore"
    assert by_id["acompact-c1:2"]["role"] == "compaction"
    assert by_id["main:2"]["role"] == "human"
    # the sub-agent's last response was logged before its output was complete: the Task
    # result's usage (output 30) is merged in because its input counts match
    # x_usage.input is every prompt-side token: uncached 2 + cache creation 5 + cache read 50
    assert by_id["b1:5"]["x_usage"] == {"input": 57, "output": 30, "uncached_input": 2,
                                        "cache_creation": 5, "cache_read": 50}
    assert by_id["b1:5"]["tokens"] == 87
    assert by_id["b1:5"]["x_model_call"] == "msg_b2"
    assert by_id["b1:5"]["x_model"] == "model-y"
    assert by_id["main:20"]["x_error"] is True and by_id["main:20"]["trusted"] is False
    assert by_id["b1:2"]["x_source"] == "s1/subagents/agent-b1.jsonl:2"
    assert (trace["trace_id"], trace["task_id"], trace["system"], trace["topology"]) == (
        "claude-code:s1", "s1", "Claude Code 9.9.9", "harness")
    assert trace["rewards"] == {}
    assert trace["costs"] == {"tokens": 1394, "wall_clock_s": 41.0, "tool_calls": 4,
                              "messages": 7}
    assert result.files == [str(SESSION), str(FOLDER / "s1/subagents/agent-b1.jsonl"),
                            str(FOLDER / "s1/subagents/agent-acompact-c1.jsonl")]


def test_session_skips_and_repairs_are_counted():
    result = import_file("claude-code", SESSION)
    assert dict(result.skipped) == {
        "file-history-snapshot": 1,
        "assistant block: thinking": 1,
        "progress:hook_progress": 2,
        "progress:agent_progress (copy of a sub-agent file record)": 2,
        "system:stop_hook_summary": 1,
        "user:isMeta (context injected by the harness)": 2,
        "queue-operation": 1,
        "user:isCompactSummary (the summary a compaction returns)": 1,
    }
    assert dict(result.repairs) == {
        "sub-agent prompt record carried by its spawn event": 1,
        "event time raised to the time of an event it depends on": 1,
    }
    lines = sum(len(Path(f).read_text(encoding="utf-8").splitlines()) for f in result.files)
    sources = {e["x_source"] for e in result.trace["events"]}
    assert lines == len(sources) + sum(result.skipped.values()) + 1  # + the merged prompt


def test_session_provenance_names_every_file_and_counts_as_the_summary():
    trace = import_file("claude-code", SESSION).trace
    assert trace["provenance"] == {
        "format": "claude-code",
        "recognised": {"evidence": "1 Task sub-agent log and 1 compaction log in "
                                   "s1/subagents/",
                       "shape": "2.1: sub-agent logs in <session>/subagents/",
                       "system": "Claude Code", "version": "9.9.9"},
        # 23 + 5 + 3 lines; the 11 skipped are the line-level reasons below
        "records": {"unit": "line", "read": 31, "mapped": 20, "skipped": 11},
        # the responses msg_a (130), msg_b (83), msg_c (305), msg_d (59) of main, msg_b1
        # (57) and msg_b2 (87) of b1, and the compaction's (353): 1394 tokens, costs.tokens
        "usage": {"source": {"tokens_in": 1233, "tokens_out": 161, "cost_usd": 0},
                  "skipped": {"tokens_in": 0, "tokens_out": 0, "cost_usd": 0}},
        "time_origin": "2026-01-01T10:00:00.000000Z",
        "repaired": {
            "event time raised to the time of an event it depends on": 1,
            "sub-agent prompt record carried by its spawn event": 1,
        },
        "skipped": {
            "assistant block: thinking": 1,
            "file-history-snapshot": 1,
            "progress:agent_progress (copy of a sub-agent file record)": 2,
            "progress:hook_progress": 2,
            "queue-operation": 1,
            "system:stop_hook_summary": 1,
            "user:isCompactSummary (the summary a compaction returns)": 1,
            "user:isMeta (context injected by the harness)": 2,
        },
        "sources": [
            source_file(SESSION, "s1.jsonl"),
            source_file(FOLDER / "s1/subagents/agent-b1.jsonl", "s1/subagents/agent-b1.jsonl"),
            source_file(FOLDER / "s1/subagents/agent-acompact-c1.jsonl",
                        "s1/subagents/agent-acompact-c1.jsonl"),
        ],
    }
    assert list(trace)[-1] == "provenance"
    assert json.dumps(trace["provenance"], sort_keys=True) == json.dumps(trace["provenance"])


def test_progress_only_provenance():
    assert import_file("claude-code", PROGRESS_ONLY).trace["provenance"] == {
        "format": "claude-code",
        "recognised": {"evidence": "1 sub-agent only as agent_progress records",
                       "shape": "sub-agents as agent_progress records only",
                       "system": "Claude Code", "version": "9.9.9"},
        "records": {"unit": "line", "read": 9, "mapped": 9, "skipped": 0},
        "usage": {"source": {"tokens_in": 41, "tokens_out": 24, "cost_usd": 0},
                  "skipped": {"tokens_in": 0, "tokens_out": 0, "cost_usd": 0}},
        "time_origin": "2026-01-02T08:00:00.000000Z",
        "repaired": {
            "sub-agent final response missing from the log (its usage put on the return event)": 1,
            "sub-agent prompt record carried by its spawn event": 1,
        },
        "skipped": {},
        "sources": [source_file(PROGRESS_ONLY, "progress_only.jsonl")],
    }


def test_provenance_follows_the_files_read(fixture_copy, edit_file):
    """A changed file changes its hash, a blank line is counted in the provenance too."""
    path = fixture_copy("claude_code") / "s1.jsonl"
    original = import_file("claude-code", SESSION).trace["provenance"]
    edit_file(path, "\n", "\n\n", count=path.read_text(encoding="utf-8").count("\n"))
    provenance = import_file("claude-code", path).trace["provenance"]
    assert provenance["sources"][0] == source_file(path, "s1.jsonl") != original["sources"][0]
    assert provenance["sources"][1:] == original["sources"][1:]
    lines = path.read_text(encoding="utf-8").count("\n") // 2
    assert provenance["skipped"] == dict(sorted({**original["skipped"],
                                                 "blank line": lines}.items()))


def test_session_replays_as_sequential_delegation():
    report = validate_document(import_file("claude-code", SESSION).trace)
    assert report.problems == []
    metrics = replay(report.trace).metrics
    assert metrics["spawn_depth"] == 1
    assert metrics["max_concurrency"] == 1
    assert metrics["tokens"]["per_agent"]["agent-b1"] == 57 + 87
    assert metrics["critical_steps"] == 18  # 19 events: the Read call waits beside the Grep call


def test_content_is_hashed_never_copied():
    result = import_file("claude-code", SESSION)
    by_id = {e["id"]: e for e in result.trace["events"]}
    assert by_id["main:2"]["content_ref"] == sha(
        "Count the words in notes.txt and summarise them.")
    assert by_id["main:5"]["content_ref"] == sha({"file_path": "notes.txt"})
    assert by_id["main:10"]["content_ref"] == sha("Summarise notes.txt")
    text = dumps(result.trace)
    for secret in ("Count the words", "I will look", "alpha beta", "A short summary",
                   "Summarise notes", "Two words", "wc -w", "Summary of the conversation"):
        assert secret not in text


def test_progress_only_sub_agent():
    result = import_file("claude-code", PROGRESS_ONLY)
    trace = result.trace
    assert shape(trace) == [
        ("main:1", 0.0, "message", "user", "main", None),
        ("main:2", 1.0, "spawn", "main", "agent-d1", 15),
        ("main:8", 6.0, "return", "agent-d1", "main", 20),  # its final response is not logged
        ("main:9", 7.0, "message", "main", "user", 23),
        ("main.d1:4", 2.0, "tool_call", "agent-d1", "Grep", None),
        ("main.d1:5", 2.5, "tool_call", "agent-d1", "Glob", 7),
        ("main.d1:6", 3.0, "tool_result", "agent-d1", "Glob", None),
        ("main.d1:7", 4.0, "tool_result", "agent-d1", "Grep", None),
    ]
    assert edges(trace) == {
        ("main:1", "main:2", "message", None),
        ("main:2", "main.d1:4", "spawn", "blocking"),
        ("main.d1:4", "main.d1:5", "causal", None),  # the same response, not the result
        ("main.d1:5", "main.d1:6", "tool_dependency", "blocking"),
        ("main.d1:4", "main.d1:7", "tool_dependency", "blocking"),
        ("main.d1:6", "main:8", "causal", None),  # both results end the sub-agent
        ("main.d1:7", "main:8", "causal", None),
        ("main:8", "main:9", "return", None),
    }
    assert trace["events"][4]["x_source"] == "progress_only.jsonl:4 (agent_progress)"
    assert dict(result.skipped) == {}
    assert dict(result.repairs) == {
        "sub-agent prompt record carried by its spawn event": 1,
        "sub-agent final response missing from the log (its usage put on the return event)": 1,
    }
    assert validate_document(trace).problems == []


def test_output_does_not_depend_on_where_the_session_lies(fixture_copy):
    copy = fixture_copy("claude_code")
    assert dumps(import_file("claude-code", copy / "s1.jsonl").trace) == dumps(
        import_file("claude-code", SESSION).trace)


def test_background_task_gives_an_async_spawn(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"subagent_type":"Explore"', '"subagent_type":"Explore",'
              '"run_in_background":true')
    assert ("main:10", "b1:2", "spawn", "async") in edges(import_file("claude-code", path).trace)


def test_blank_lines_are_counted(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, "\n", "\n\n", count=23)
    result = import_file("claude-code", path)
    assert result.skipped["blank line"] == 23


def test_dangling_parent_starts_a_chain(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"uuid":"u13","parentUuid":"u12"', '"uuid":"u13","parentUuid":"gone"')
    result = import_file("claude-code", path)
    assert result.repairs["record whose parentUuid names no record of the session (starts a "
                          "new chain)"] == 1
    assert not [e for e in result.trace["edges"] if e["dst"] == "main:17"]
    assert validate_document(result.trace).valid


def test_result_without_its_call_is_joined_to_its_parent(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"tool_use_id":"t4"', '"tool_use_id":"t-unknown"')
    result = import_file("claude-code", path)
    assert result.repairs["tool result whose call is not in the log (joined to the record it "
                          "follows)"] == 1
    assert ("main:19", "main:20", "causal", None) in edges(result.trace)  # not a matched pair


def first_line(path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize("old, new, line, message", [
    ('{"type":"text","text":"Two words."}', '{"type":"hologram"}', 23,
     "unknown assistant content block 'hologram'"),
    ('{"type":"text","text":"Now count the words."}', '{"type":"video"}', 17,
     "unknown user content block 'video'"),
    ('"timestamp":"2026-01-01T10:00:10.000Z",', "", 14, "record has no timestamp"),
    ('"2026-01-01T10:00:10.000Z"', '"yesterday"', 14,
     'timestamp must be an ISO 8601 time, found the string "yesterday"'),
    ('{"type":"queue-operation","operation":"enqueue"', '[1, 2, {"type":"queue-operation"', 18,
     "not a JSON record (Expecting ',' delimiter at column 115); is the line truncated?"),
    ('"content":"and be quick"}', '"content":"and be quick"}\n[1, 2]', 19,
     "a record must be a JSON object, not an array"),
    ('"preTokens":700', '"preTokens":NaN', 21,
     "not JSON: NaN is not a JSON number (at /compactMetadata/preTokens)"),
])
def test_bad_session_is_an_error_naming_file_and_line(fixture_copy, edit_file, old, new, line,
                                                     message):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, old, new)
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == f"{path}:{line}: {message}"


def test_unknown_record_type_is_skipped_and_counted(fixture_copy, edit_file):
    """Was an error naming the line; later Claude Code versions add record types, so a type the
    importer does not know is skipped under its own reason and counted, never dropped."""
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"type":"queue-operation"', '"type":"teleport"')
    result = import_file("claude-code", path)
    original = import_file("claude-code", SESSION)
    assert result.skipped["unknown record type: teleport"] == 1
    assert "queue-operation" not in result.skipped
    assert result.trace["provenance"]["records"] == original.trace["provenance"]["records"]
    assert result.trace["events"] == original.trace["events"]


def test_truncated_last_line(fixture_copy):
    """Without its newline, a cut last line is one the harness is still writing: skipped and
    counted (test_import_hostile.py); with it, the log is damaged: refused naming the line."""
    path = fixture_copy("claude_code") / "s1.jsonl"
    text = path.read_text(encoding="utf-8")
    cut = text[:text.rindex("\n", 0, len(text) - 1) + 41]
    path.write_text(cut + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == (f"{path}:23: not a JSON record (Unterminated string at column "
                                 "34); is the line truncated?")
    path.write_text(cut, encoding="utf-8")
    result = import_file("claude-code", path)
    assert result.skipped["last line cut short (no newline at its end: the log was still being "
                          "written)"] == 1


def test_not_utf8(fixture_copy):
    path = fixture_copy("claude_code") / "s1.jsonl"
    path.write_bytes(b'{"type":"user"}\n\xff\n')
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte 16)"


def test_sub_agent_file_that_nothing_spawns_is_skipped_and_counted(fixture_copy):
    """A sub-agent log no Task call explains no longer refuses the session (issue 18): its
    lines are skipped for a reason that says so, the file is listed among those read."""
    folder = fixture_copy("claude_code")
    stray = folder / "s1/subagents/agent-zz.jsonl"
    stray.write_text(first_line(folder / "s1/subagents/agent-b1.jsonl") + "\n", encoding="utf-8")
    result = import_file("claude-code", folder / "s1.jsonl")
    assert result.skipped["sub-agent log that no Task call of the session spawns"] == 1
    assert str(stray) in result.files
    assert result.trace["provenance"]["records"] == {"unit": "line", "read": 32, "mapped": 20,
                                                     "skipped": 12}
    assert "1 skipped: sub-agent log that no Task call of the session spawns" in \
        result.recognised["evidence"]


def test_first_main_record_marked_sidechain_is_skipped_and_counted(fixture_copy, edit_file):
    """Sidechain records of the main file that no Task call spawns were an error; they are a
    counted skip now, like a sub-agent log that nothing spawns."""
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"uuid":"u1","parentUuid":null,"sessionId":"s1","version":"9.9.9",'
              '"timestamp":"2026-01-01T10:00:00.000Z","isSidechain":false',
              '"uuid":"u1","parentUuid":null,"sessionId":"s1","version":"9.9.9",'
              '"timestamp":"2026-01-01T10:00:00.000Z","isSidechain":true')
    result = import_file("claude-code", path)
    assert result.skipped["sub-agent log that no Task call of the session spawns"] == 1
    assert "main:2" not in {e["id"] for e in result.trace["events"]}


def test_compaction_without_its_prompt(fixture_copy, edit_file):
    folder = fixture_copy("claude_code")
    compaction = folder / "s1/subagents/agent-acompact-c1.jsonl"
    edit_file(compaction, '"uuid":"c-u2","parentUuid":"u15",',
              '"uuid":"c-u2","parentUuid":"u15","isMeta":true,')
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", folder / "s1.jsonl")
    assert str(caught.value) == (f"{compaction}: compaction run without its prompt (a non-meta "
                                 "user record)")


def test_session_without_conversation(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text('{"type":"file-history-snapshot","messageId":"m","snapshot":{}}\n',
                    encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == f"{path}: no conversation record to import"
