"""The Gemini CLI importer on hand-written sessions shaped like its chat recording (the source,
google-gemini/gemini-cli packages/core/src/services/chatRecordingService.ts, writes them): the
current JSON Lines file (messages written again as they change, a metadata update, a rewind, an
interface note, a record of unknown shape, a sub-agent session under the session's folder) and
the earlier JSON file."""

from __future__ import annotations

import json
import shutil

import pytest
from importer_helpers import FIXTURES

from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers._kit.accounting import conservation_problems, figures
from masrl.traces.importers._kit.detect import detect

FOLDER = FIXTURES / "gemini_cli"
SESSION = FOLDER / "session-2026-02-04T10-00-a1b2c3d4.jsonl"
LEGACY = FOLDER / "legacy" / "session-2025-11-03T01-41-264c12b1.json"
SUB_ID = "a1b2c3d4-0000-4000-8000-00000000bbbb#0"
SUB = f"agent-{SUB_ID}"


def by_id(trace) -> dict:
    return {e["id"]: e for e in trace["events"]}


def test_import_auto_names_the_format():
    assert detect(SESSION)[0] == "gemini-cli"
    assert detect(LEGACY)[0] == "gemini-cli"


def test_the_conversation_as_the_recording_ends_with_it():
    """g1 is written twice (the second copy has its tool calls and tokens); u2 and g3 are
    removed by the rewind; the info note and the record of unknown shape give no event."""
    result = import_file("gemini-cli", SESSION)
    trace = result.trace
    assert [(e["id"], e["type"], e["agent"]) for e in trace["events"]
            if e["agent"] != SUB] == [
        ("main:m0", "message", "user"), ("main:m1.0", "tool_call", "main"),
        ("main:m1.1", "tool_call", "main"), ("main:m1.r0", "tool_result", "main"),
        ("main:m1.r1", "tool_result", "main"), ("main:m2", "message", "main"),
        ("main:m3", "message", "user"), ("main:m5", "spawn", "main"),
        ("main:m6", "message", "main")]
    assert result.skipped["message removed by a later $rewindTo"] == 2
    assert result.skipped["earlier copy of a message written again (the last copy is read)"] == 1
    assert result.skipped["unknown record type: ['checkpoint']"] == 1
    assert by_id(trace)["main:m1.r1"]["x_error"] is True  # status error
    assert validate_document(trace).problems == []


def test_tokens_count_thoughts_as_output_and_the_tool_prompt_as_input():
    events = by_id(import_file("gemini-cli", SESSION).trace)
    # g1: input 5000 (3000 of them cached), output 40 + thoughts 60
    assert events["main:m1.1"]["x_usage"] == {"input": 5000, "output": 100, "cached_input": 3000,
                                              "tool_use_input": 0, "reasoning_output": 60}
    assert events["main:m1.1"]["tokens"] == 5100
    assert events["main:m1.1"]["x_model_call"] == "g1"
    # g4: the tool-use prompt (100) is prompt-side
    assert events["main:m5"]["x_usage"]["input"] == 5700


def test_the_books_balance_with_the_rewound_tokens_skipped():
    trace = import_file("gemini-cli", SESSION).trace
    provenance = trace["provenance"]
    # 14 lines of the session + 4 of the sub-agent's
    assert provenance["records"] == {"mapped": 9, "read": 18, "skipped": 9, "unit": "line"}
    # g3 (5500 in, 20 out) was spent and then rewound away
    assert provenance["usage"]["skipped"] == {"cost_usd": 0, "tokens_in": 5500,
                                              "tokens_out": 20}
    assert conservation_problems(trace) == []
    assert figures(trace) == {
        "agents": 3, "spawns": 1, "tool_calls": 3, "model_calls": 6,
        "tokens_in": 5000 + 5400 + 5700 + 5800 + 900 + 1000,
        "tokens_out": 100 + 30 + 15 + 25 + 20 + 12,
        "first": "2026-02-04T10:00:01.000Z", "last": "2026-02-04T10:00:47.000Z"}


def test_sub_agent_session_spawned_by_the_call_that_names_it():
    trace = import_file("gemini-cli", SESSION).trace
    events = by_id(trace)
    assert (events["main:m5"]["type"], events["main:m5"]["to"]) == ("spawn", SUB)
    assert (events["main:m5.r0"]["type"], events["main:m5.r0"]["agent"]) == ("return", SUB)
    edges = {(e["src"], e["dst"], e["type"]) for e in trace["edges"]}
    assert ("main:m5", f"{SUB_ID}:m1", "spawn") in edges
    assert (f"{SUB_ID}:m2", "main:m5.r0", "causal") in edges
    assert trace["provenance"]["sources"][1]["name"] == \
        f"a1b2c3d4-0000-4000-8000-00000000aaaa/{SUB_ID.replace('#', '_')}.jsonl"


def test_sub_agent_matched_by_time_without_agent_id(tmp_path):
    copy = tmp_path / "chats"
    shutil.copytree(FOLDER, copy)
    path = copy / SESSION.name
    path.write_text(path.read_text(encoding="utf-8").replace(f'"agentId": "{SUB_ID}", ', ""),
                    encoding="utf-8")
    events = by_id(import_file("gemini-cli", path).trace)
    assert (events["main:m5"]["type"], events["main:m5"]["to"]) == ("spawn", SUB)


def test_sub_agent_matched_to_no_call_is_spawned_by_main(tmp_path):
    copy = tmp_path / "chats"
    shutil.copytree(FOLDER, copy)
    path = copy / SESSION.name
    text = path.read_text(encoding="utf-8").replace(f'"agentId": "{SUB_ID}", ', "")
    path.write_text(text.replace('"status": "success", "timestamp": "2026-02-04T10:00:45.000Z"',
                                 '"status": "success", "timestamp": "2026-02-04T10:00:32.500Z"'),
                    encoding="utf-8")
    result = import_file("gemini-cli", path)
    assert result.repairs["sub-agent session matched to no tool call (spawned by main at its "
                          "start)"] == 1
    report = validate_document(result.trace)
    assert report.errors == []
    # the log holds no return for it: the validator says so, as it should
    assert [p.code for p in report.warnings] == ["never-ended"]


def test_earlier_json_session_file():
    result = import_file("gemini-cli", LEGACY)
    trace = result.trace
    assert result.recognised["shape"] == "JSON session file (earlier recording)"
    assert trace["provenance"]["records"] == {"mapped": 3, "read": 4, "skipped": 1,
                                              "unit": "message"}
    assert figures(trace)["tokens_in"] == 7000 + 7100
    assert figures(trace)["tokens_out"] == 12 + 80 + 8
    assert result.skipped["error message (an interface note)"] == 1


@pytest.mark.parametrize("fmt", ["auto", "gemini-cli"])
@pytest.mark.parametrize("indent", [None, 2])
def test_logs_json_is_refused_with_its_reason(tmp_path, fmt, indent):
    """Named or found by ``auto``, on one line or written over many as Gemini CLI writes it
    (the named import read a many-line file as JSON Lines and blamed its line 1)."""
    path = tmp_path / "logs.json"
    path.write_text(json.dumps([{"sessionId": "s", "messageId": 0, "type": "user",
                                 "message": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
                               indent=indent), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file(fmt, path)
    assert "Gemini CLI's logs.json: the user's prompts only" in str(caught.value)


def test_a_json_array_is_refused_as_a_whole(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"id": "u"}], indent=2), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("gemini-cli", path)
    assert str(caught.value) == f"{path}: a JSON array, not a Gemini CLI session (an object " \
        "with sessionId and messages, or JSON Lines)"


@pytest.mark.parametrize("text, where, message", [
    ('{"projectHash": "x"}\n', 1, "no session metadata line (sessionId, projectHash)"),
    ('{"sessionId": "s", "projectHash": "x"}\n{"id": "u", "type": "user", "content": "hi"}\n',
     "s.jsonl:2", "message has no timestamp"),
    ('{"sessionId": "s", "projectHash": "x"}\n', None, "no message to import"),
])
def test_bad_sessions_name_the_place(tmp_path, text, where, message):
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file("gemini-cli", path)
    place = str(path) if where is None else f"{path}:{where}" if isinstance(where, int) else \
        f"{tmp_path}/{where}"
    assert str(caught.value) == f"{place}: {message}"


def _delegating(call: dict) -> dict:
    """A legacy session whose first tool call is ``call`` (an id and a name added)."""
    document = json.loads(LEGACY.read_text(encoding="utf-8"))
    message = next(m for m in document["messages"] if m.get("toolCalls"))
    message["toolCalls"][0].update(call)
    return document


@pytest.mark.parametrize(("marks", "agent", "role"), [
    ({"description": "Delegating to agent 'generalist'", "name": "generalist"},
     "agent-generalist:", "generalist"),
    ({"resultDisplay": {"isSubagentProgress": True, "agentName": "codebase_investigator",
                        "recentActivity": [], "state": "error"}},
     "agent-codebase_investigator:", "codebase_investigator"),
    ({"agentId": "f00d#0", "name": "cli_help"}, "agent-f00d#0", "cli_help"),
    ({"name": "delegate_to_agent", "description": "Hands a task to one of the sub-agents.",
      "args": {"objective": "Find where the files are listed.", "agent_name": "scout"},
      "resultDisplay": "Subagent scout Finished"}, "agent-scout:", "scout"),
])
def test_a_sub_agent_without_a_session_of_its_own_is_spawned_by_its_call(tmp_path, marks,
                                                                        agent, role):
    """Gemini CLI runs a sub-agent as a tool call and may keep no session of it (earlier
    versions kept none): the call that the log marks as one (its agent id, a display of
    sub-agent progress, "Delegating to agent '...'", or the earlier ``delegate_to_agent`` tool
    naming its ``agent_name``) is the sub-agent's spawn and its result
    the sub-agent's return, as a Claude Code Task call known only by its result. It was a plain
    tool call: no spawn, the sub-agent not counted among the agents."""
    path = tmp_path / LEGACY.name
    path.write_text(json.dumps(_delegating(marks)), encoding="utf-8")
    plain = figures(import_file("gemini-cli", LEGACY).trace)
    result = import_file("gemini-cli", path)
    trace = result.trace
    spawn = next(e for e in trace["events"] if e["type"] == "spawn")
    assert spawn["to"].startswith(agent) and spawn["role"] == role
    back = [e for e in trace["events"] if e["type"] == "return"]
    assert [e["agent"] for e in back] in ([spawn["to"]], [])  # a call not finished: no return
    got = figures(trace)
    assert (got["spawns"], got["agents"], got["tool_calls"]) == \
        (1, plain["agents"] + 1, plain["tool_calls"] - 1)
    assert validate_document(trace).errors == []
    assert conservation_problems(trace) == []
    assert "1 sub-agent with no session of its own" in result.recognised["evidence"]


class _Visits(list):
    """A list that counts the items its loops visit (``for``, ``dict(...)``, comprehensions):
    each loop counts as long as the list is then."""

    visits = 0

    def __iter__(self):
        type(self).visits += len(self)
        return super().__iter__()


def _repeated(folder, copies: int):
    """The fixture session's conversation ``copies`` times, each copy with its own message
    ids, its rewind and a sub-agent session of its own; the path of the main file."""
    import re
    import uuid

    main_id = "a1b2c3d4-0000-4000-8000-00000000aaaa"
    sub_id = SUB_ID.split("#")[0]
    lines = SESSION.read_text().splitlines()
    sub = (FOLDER / main_id / f"{sub_id}_0.jsonl").read_text()
    (folder / main_id).mkdir()
    out = [lines[0]]
    for copy in range(copies):
        fresh = str(uuid.UUID(int=copy + 1))
        renamed = [re.sub(r'"(id|\$rewindTo)": "([^"]+)"', rf'"\1": "\2-{copy}"',
                          line.replace(sub_id, fresh))
                   for line in lines[1:] if "checkpoint" not in line]
        out += renamed
        (folder / main_id / f"{fresh}_0.jsonl").write_text(sub.replace(sub_id, fresh))
    path = folder / SESSION.name
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize("copies", [3, 30])
def test_the_events_and_lines_are_visited_a_fixed_number_of_times(tmp_path, monkeypatch,
                                                                   copies):
    """However many sub-agents and rewinds a session holds, its events and lines are visited
    a few times each: each sub-agent's returns were found by a loop over every event, and
    each removed message's usage by a dict of every line (both quadratic in a long
    session)."""
    from masrl.traces.importers._kit import common
    from masrl.traces.importers.sessions import gemini_cli

    builder_init = common.TraceBuilder.__init__

    def counted_events(self, *args, **kwargs):
        builder_init(self, *args, **kwargs)
        self.events = _Visits()

    read = []
    reader = gemini_cli.read_session_lines
    monkeypatch.setattr(common.TraceBuilder, "__init__", counted_events)
    monkeypatch.setattr(gemini_cli, "read_session_lines",
                        lambda *a: read.append(_Visits(reader(*a))) or read[-1])
    _Visits.visits = 0
    trace = import_file("gemini-cli", _repeated(tmp_path, copies)).trace
    assert sum(e["type"] == "return" for e in trace["events"]) == copies
    assert sum(e["type"] == "spawn" for e in trace["events"]) == copies
    size = len(trace["events"]) + sum(len(lines) for lines in read)
    assert _Visits.visits <= 12 * size, (_Visits.visits, size)
