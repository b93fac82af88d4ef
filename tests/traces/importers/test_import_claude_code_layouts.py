"""The Claude Code importer on the older layouts (v2.0.x: sub-agent logs beside the session;
v1.0.x: sidechain records inline), on compaction runs whose prompt follows their own records,
on parentUuid loops (issue 9) and on records whose containers have the wrong type."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from importer_helpers import FIXTURES, source_file

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file

FOLDER = FIXTURES / "claude_code"
V2 = FOLDER / "v2_0" / "s3.jsonl"
V1 = FOLDER / "v1_0" / "s4.jsonl"
LOOP = FOLDER / "loop.jsonl"


def shape(trace: dict) -> list[tuple]:
    return [(e["id"], e["t"], e["type"], e["agent"], e.get("to") or e.get("tool"),
             e.get("tokens")) for e in trace["events"]]


def edges(trace: dict) -> set[tuple]:
    return {(e["src"], e["dst"], e["type"], e.get("mode")) for e in trace["edges"]}


def every_line_accounted(result) -> bool:
    """Each line read gives events, is counted as skipped, or is a prompt carried by a spawn."""
    lines = sum(len(Path(f).read_text(encoding="utf-8").splitlines()) for f in result.files)
    sources = {e["x_source"] for e in result.trace["events"]}
    merged = result.repairs["sub-agent prompt record carried by its spawn event"]
    return lines == len(sources) + sum(result.skipped.values()) + merged


def test_v2_layout_reads_the_sub_agent_log_beside_the_session():
    result = import_file("claude-code", V2)
    trace = result.trace
    assert shape(trace) == [
        ("main:1", 0.0, "message", "user", "main", None),
        ("main:2", 1.0, "spawn", "main", "agent-e1", 130),
        ("main:3", 6.0, "return", "agent-e1", "main", None),
        ("main:4", 7.0, "message", "main", "user", 209),
        ("e1:2", 2.0, "tool_call", "agent-e1", "Glob", 48),
        ("e1:3", 3.0, "tool_result", "agent-e1", "Glob", None),
        ("e1:4", 5.0, "message", "agent-e1", None, 62),
    ]
    assert edges(trace) == {
        ("main:1", "main:2", "message", None),
        ("main:2", "e1:2", "spawn", "blocking"),
        ("e1:2", "e1:3", "tool_dependency", "blocking"),
        ("e1:3", "e1:4", "causal", None),
        ("e1:4", "main:3", "causal", None),
        ("main:3", "main:4", "return", None),
    }
    # agent-x9.jsonl lies in the same folder but belongs to another session: not read
    assert trace["provenance"]["sources"] == [
        source_file(V2, "s3.jsonl"), source_file(V2.parent / "agent-e1.jsonl", "agent-e1.jsonl")]
    assert trace["system"] == "Claude Code 2.0.30"
    assert validate_document(trace).problems == []
    assert every_line_accounted(result)


def test_v2_layout_without_agent_id_is_matched_by_the_prompt(tmp_path, edit_file):
    copy = tmp_path / "v2_0"
    shutil.copytree(V2.parent, copy)
    edit_file(copy / "s3.jsonl", '"agentId":"e1",', "")
    expected = import_file("claude-code", V2).trace
    trace = import_file("claude-code", copy / "s3.jsonl").trace
    assert shape(trace) == shape(expected) and edges(trace) == edges(expected)


def test_v1_layout_inline_sidechains_become_sub_agents():
    result = import_file("claude-code", V1)
    trace = result.trace
    assert shape(trace) == [
        ("main:1", 0.0, "message", "user", "main", None),
        ("main:2", 1.0, "spawn", "main", "task-t1", None),
        ("main:3", 1.2, "spawn", "main", "task-t2", 40),
        ("main:10", 4.5, "return", "task-t2", "main", None),
        ("main:11", 5.0, "return", "task-t1", "main", None),
        ("main:12", 6.0, "message", "main", "user", 38),
        # the sidechain rooted at line 5 repeats t1's prompt, the one at line 4 t2's
        ("main:6", 2.0, "tool_call", "task-t1", "Read", 10),
        ("main:8", 3.0, "tool_result", "task-t1", "Read", None),
        ("main:9", 4.0, "message", "task-t1", None, 15),
        ("main:7", 2.5, "message", "task-t2", None, 9),
    ]
    assert edges(trace) == {
        ("main:1", "main:2", "message", None),
        ("main:2", "main:3", "causal", None),
        ("main:2", "main:6", "spawn", "blocking"),
        ("main:6", "main:8", "tool_dependency", "blocking"),
        ("main:8", "main:9", "causal", None),
        ("main:9", "main:11", "causal", None),
        ("main:3", "main:7", "spawn", "blocking"),
        ("main:7", "main:10", "causal", None),
        ("main:10", "main:12", "return", None),
        ("main:11", "main:12", "return", None),
    }
    assert result.repairs == {"sub-agent prompt record carried by its spawn event": 2}
    assert validate_document(trace).problems == []
    assert every_line_accounted(result)


def test_v1_sidechain_without_the_prompt_joins_the_call_before_it(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "v1_0" / "s4.jsonl"
    edit_file(path, '"content":"Check module B"}}', '"content":"Look at B"}}')
    edit_file(path, '"content":"Check module A"}}', '"content":"Look at A"}}')
    result = import_file("claude-code", path)
    assert result.repairs["sidechain joined to the Task call before it (its prompt does not "
                          "repeat the call's)"] == 2
    by_id = {e["id"]: e for e in result.trace["events"]}
    assert (by_id["main:7"]["agent"], by_id["main:6"]["agent"]) == ("task-t1", "task-t2")
    assert validate_document(result.trace).valid


def test_sidechain_that_no_task_spawns(fixture_copy, edit_file):
    """Was an error; now the sidechain's lines are skipped and counted, with its tokens."""
    path = fixture_copy("claude_code") / "v1_0" / "s4.jsonl"
    edit_file(path, '"name":"Task","input":{"description":"B"',
              '"name":"Bash","input":{"description":"B"')
    result = import_file("claude-code", path)
    reason = "sub-agent log that no Task call of the session spawns"
    assert result.skipped[reason] == 2  # the lines of the sidechain rooted at line 4
    provenance = result.trace["provenance"]
    assert provenance["usage"]["skipped"]["tokens_in"] > 0
    assert provenance["records"]["read"] == provenance["records"]["mapped"] + \
        provenance["records"]["skipped"]


def test_a_sub_agent_log_imported_alone_says_so():
    path = FOLDER / "v2_0" / "agent-e1.jsonl"
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == (f"{path}: every record is a sidechain record: this is a "
                                 "sub-agent log; import the session file whose Task call spawns it")


def test_parent_uuid_loop_is_an_error_not_a_hang():
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", LOOP)
    assert str(caught.value) == (f"{LOOP}:3: parentUuid chain loops: u2 -> u3 -> u2 (each "
                                 "record names the next as its parent)")


def test_record_that_is_its_own_parent(fixture_copy, edit_file):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, '"uuid":"u10","parentUuid":"u9"', '"uuid":"u10","parentUuid":"u10"')
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == (f"{path}:14: parentUuid chain loops: u10 -> u10 (each record "
                                 "names the next as its parent)")


def test_compaction_prompt_after_its_own_records(fixture_copy, edit_file):
    """Its prompt follows the compaction's own context copy: the spawner was the compaction
    itself ("spawned by its own descendant"); now the record that copy follows is used."""
    folder = fixture_copy("claude_code")
    compaction = folder / "s1/subagents/agent-acompact-c1.jsonl"
    edit_file(compaction, '"uuid":"c-u1","parentUuid":"u13"', '"uuid":"c-u1","parentUuid":"u15"')
    edit_file(compaction, '"uuid":"c-u2","parentUuid":"u15"', '"uuid":"c-u2","parentUuid":"c-u1"')
    result = import_file("claude-code", folder / "s1.jsonl")
    assert validate_document(result.trace).problems == []
    assert result.repairs["compaction prompt that follows the compaction's own records (the "
                          "record they follow is used)"] == 1
    by_id = {e["id"]: e for e in result.trace["events"]}
    assert (by_id["acompact-c1:2"]["type"], by_id["acompact-c1:2"]["agent"]) == ("spawn", "main")
    assert (by_id["main:21"]["type"], by_id["main:21"]["agent"]) == ("return",
                                                                      "agent-acompact-c1")
    original = import_file("claude-code", FOLDER / "s1.jsonl").trace
    assert {(e["src"], e["dst"]) for e in result.trace["edges"]} == {
        (e["src"], e["dst"]) for e in original["edges"]}


@pytest.mark.parametrize("old, new, line, message", [
    ('"message":{"role":"user","content":"Count the words in notes.txt and summarise them."}',
     '"message":"Count the words"', 2, "message must be an object, not string"),
    ('{"role":"user","content":"Count the words in notes.txt and summarise them."}',
     '{"role":"user","content":{"text":"Count"}}', 2,
     "message.content must be a string or an array, not object"),
    ('"usage":{"input_tokens":5,', '"usage":[5],"x":{"input_tokens":5,', 14,
     "message.usage must be an object, not array"),
    ('{"type":"tool_use","id":"t4"', '{"type":"tool_use","id":["t4"]', 19,
     "message.content[0].id must be a string, not array"),
    ('{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"wc -w notes.txt"}}',
     '{"type":"tool_use","id":"t4","name":"Bash","input":"wc -w notes.txt"}', 19,
     "message.content[0].input must be an object, not string"),
    ('"content":[{"type":"tool_result","tool_use_id":"t4"', '"content":["t4",{"type":"x"', 20,
     "message.content[0] must be an object, not string"),
    ('"uuid":"u13","parentUuid":"u12"', '"uuid":"u13","parentUuid":12', 17,
     "parentUuid must be a string, not number"),
    ('"data":{"type":"hook_progress","hookEvent":"PreToolUse"}', '"data":["hook"]', 7,
     "data must be an object, not array"),
    ('"message":{"id":"msg_b1","model":"model-y"', '"message":{"id":7,"model":"model-y"', 12,
     "data.message.message.id must be a string, not number"),
    ('"agentId":"b1","prompt":"Summarise notes.txt","message":{"type":"user"',
     '"agentId":"b1","prompt":"Summarise notes.txt","message":["user"],"x":{"type":"user"', 11,
     "data.message must be an object, not array"),
])
def test_wrong_container_types_name_the_place(fixture_copy, edit_file, old, new, line, message):
    path = fixture_copy("claude_code") / "s1.jsonl"
    edit_file(path, old, new)
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == f"{path}:{line}: {message}"


# ---------------------------------------------------------------------------------- no tool ids

NO_IDS = FOLDER / "no_ids" / "n1.jsonl"


def test_a_task_call_without_an_id_finds_its_sub_agent_through_the_parent_chain():
    """The Task call has no id, nor its result a tool_use_id, nor the progress record a
    parentToolUseID: the call is named by its place, and the result and the progress copy
    that chain back to it are joined to it; the sub-agent is its file, by the agentId the
    result names; never main spawned by its own descendant."""
    result = import_file("claude-code", NO_IDS)
    trace = result.trace
    spawns = [(e["agent"], e["to"]) for e in trace["events"] if e["type"] == "spawn"]
    returns = [(e["agent"], e["to"]) for e in trace["events"] if e["type"] == "return"]
    assert spawns == [("main", "agent-c7")] and returns == [("agent-c7", "main")]
    assert result.repairs["tool call without an id (named by its place in the log)"] == 1
    assert result.repairs["record naming no tool call joined to the call without an id up its "
                          "parent chain"] == 2
    assert [Path(f).name for f in result.files] == ["n1.jsonl", "agent-c7.jsonl"]
    assert validate_document(trace).problems == []


def test_a_tool_call_lasts_until_its_result():
    trace = import_file("claude-code", NO_IDS).trace
    calls = {e["id"]: (e["t"], e.get("t_end")) for e in trace["events"]
             if e["type"] == "tool_call"}
    assert calls == {"main:5": (24.0, 24.8), "c7:2": (8.0, 9.2)}


def test_a_result_whose_call_cannot_be_told_is_refused_naming_it(tmp_path):
    shutil.copytree(FOLDER / "no_ids", tmp_path / "no_ids")
    path = tmp_path / "no_ids" / "n1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace('"parentUuid":"n-u2"', '"parentUuid":null')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == (
        f"{path}:4: message.content[0]: a tool_result without tool_use_id, and no tool call "
        "without an id up its chain of parent records: the call it belongs to cannot be told")


def test_two_calls_without_ids_before_one_result_are_refused(tmp_path):
    shutil.copytree(FOLDER / "no_ids", tmp_path / "no_ids")
    path = tmp_path / "no_ids" / "n1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    task = '{"type":"tool_use","name":"Task","input":{"description":"find the bug"'
    assert task in lines[1]
    lines[1] = lines[1].replace('"content":[{', '"content":[{"type":"tool_use","name":"Grep",'
                                '"input":{"pattern":"x"}},{', 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"n1.jsonl:3: an agent_progress record without "
                       r"parentToolUseID follows 2 tool calls without ids"):
        import_file("claude-code", path)


def test_a_sub_agent_claimed_by_two_calls_is_refused_never_a_self_spawn(tmp_path):
    shutil.copytree(FOLDER / "no_ids", tmp_path / "no_ids")
    child = tmp_path / "no_ids" / "n1" / "subagents" / "agent-c7.jsonl"
    lines = child.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"name":"Grep","input":{"pattern":"range\\\\(len","path":"quill"}',
                                '"name":"Task","input":{"prompt":"again"}')
    lines[2] = lines[2].replace('"toolUseResult":{"mode":"content","numLines":1,'
                                '"durationMs":35}', '"toolUseResult":{"agentId":"c7"}')
    child.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", tmp_path / "no_ids" / "n1.jsonl")
    assert str(caught.value) == (
        f"{child}:2: Task call toolu_grep1 of agent-c7 names agent-c7 itself as the sub-agent "
        "it starts: an agent never spawns itself")


def test_a_uuid_repeated_in_a_file_is_refused(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = (FOLDER / "progress_only.jsonl").read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].replace('"uuid":"d-3"', '"uuid":"d-1"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("claude-code", path)
    assert str(caught.value) == (f"{path}:5: data.message.uuid d-1 is also that of line 3: "
                                 "records are chained by their uuids, which must differ within "
                                 "a file")
