"""The Langfuse importer on a hand-written API trace (agents, generations, a tool, skipped
types, an error level, an open observation) and on the list form; bad input names the place."""

from __future__ import annotations

import json

import pytest
from importer_helpers import FIXTURES, assert_source_error, changed_text, source_file

from masrl.traces import validate_document
from masrl.traces.importers import dumps, import_file
from masrl.traces.importers.spans.langfuse import NO_END

FOLDER = FIXTURES / "langfuse"
TRACE = FOLDER / "trace.json"
RAW = json.loads(TRACE.read_text(encoding="utf-8"))


def test_observations_become_events_by_type():
    result = import_file("langfuse", TRACE)
    trace = result.trace
    assert [(e["id"], e["type"], e["agent"], e.get("to") or e.get("tool"), e.get("tokens"),
             e.get("cost_usd")) for e in trace["events"]] == [
        ("obs-2", "message", "manager", None, 250, 0.0012),
        ("obs-3.spawn", "spawn", "manager", "researcher", None, None),
        ("obs-3.return", "return", "researcher", "manager", None, None),
        ("obs-4.call", "tool_call", "researcher", "web_search", None, None),
        ("obs-4.result", "tool_result", "researcher", "web_search", None, None),
        ("obs-6", "message", "researcher", None, 380, 0.0021),
        ("obs-7", "message", "manager", None, None, None),  # the EVENT: a step the run logged
        ("obs-8", "message", "manager", None, 120, 0.0009),
    ]
    by_id = {e["id"]: e for e in trace["events"]}
    assert by_id["obs-6"]["x_error"] is True and by_id["obs-2"]["x_model"] == "model-f"
    assert by_id["obs-2"]["x_usage"] == {"input": 200, "output": 50}
    # 300 + 80 = 380, the total: the 100 cached tokens are a part of the input, not added
    assert by_id["obs-6"]["x_usage"] == {"input": 300, "output": 80, "input_cached_tokens": 100}
    assert "x_model_call" not in by_id["obs-7"] and by_id["obs-8"]["x_model_call"] == "obs-8"
    assert trace["costs"] == {"tokens": 750, "wall_clock_s": 6.0, "tool_calls": 1,
                              "messages": 4, "usd": 0.0042}
    assert dict(result.skipped) == {"span: RETRIEVER": 1}
    assert trace["provenance"]["records"] == {"unit": "observation", "read": 8, "mapped": 7,
                                              "skipped": 1}
    assert trace["provenance"]["usage"]["source"] == {  # the three generations, by hand
        "tokens_in": 200 + 300 + 90, "tokens_out": 50 + 80 + 30,
        "cost_usd": pytest.approx(0.0012 + 0.0021 + 0.0009)}
    assert dict(result.repairs) == {NO_END: 1}
    assert (trace["trace_id"], trace["system"]) == ("langfuse:7f3e1c2a-trace-0001", "Langfuse")
    assert validate_document(trace).problems == []
    assert "an invented" not in dumps(trace)
    assert trace["provenance"]["sources"] == [source_file(TRACE, "trace.json")]


def test_the_list_form_with_one_trace_and_no_agent():
    trace = import_file("langfuse", FOLDER / "traces_list.json").trace
    assert {e["agent"] for e in trace["events"]} == {"agent"}
    assert [e["tokens"] for e in trace["events"] if e["type"] == "message"] == [64]
    assert validate_document(trace).problems == []


def changed(change) -> str:
    return changed_text(RAW, change)


@pytest.mark.parametrize("text, where, message", [
    ("[]", None, "0 traces (); a file of several runs imports as one trace per run (masrl "
     "import langfuse FILE -o DIR)"),
    (json.dumps([RAW, RAW]), None, ("2 traces (7f3e1c2a-trace-0001, 7f3e1c2a-trace-0001); a "
     "file of several runs imports as one trace per run (masrl import langfuse FILE -o DIR)")),
    ('{"data": [{"id": "t", "observations": ["o1", "o2"]}]}', "data[0].observations",
     ("observations are ids only (as the trace list returns them); export the trace itself "
     "(GET /api/public/traces/{traceId})")),
    ('"x"', None, ("expected a Langfuse trace ({'id', 'observations': [...]}, or {'trace', "
     "'observations'}), a list of traces or {'data': [...]}; found a string")),
    (changed(lambda d: d.update(observations={})), "observations",
     "observations must be a list, found an object"),
    (changed(lambda d: d["observations"][1].update(startTime="soon")), "observations[1]",
     'observation obs-2: startTime must be an ISO 8601 time, found the string "soon"'),
    (changed(lambda d: d["observations"][1].update(endTime=[1])), "observations[1]",
     "observation obs-2: endTime must be an ISO 8601 time, found an array"),
    (changed(lambda d: d["observations"][1].update(endTime="2025-06-10T11:00:00Z")),
     "observations[1]", ("observation obs-2 ends (2025-06-10T11:00:00Z) before it starts "
     "(2025-06-10T12:00:00.100Z)")),
    (changed(lambda d: d["observations"][1].update(traceId="other")), "observations[1]",
     "observation obs-2 belongs to trace other, not 7f3e1c2a-trace-0001"),
    (changed(lambda d: d["observations"][1].update(usageDetails=[1])),
     "observations[1].usageDetails", "must be an object, found an array"),
    (changed(lambda d: d["observations"][2].pop("type")), "observations[2]",
     "observation obs-3 has no type (found null)"),
])
def test_bad_input_is_an_error_naming_the_place(tmp_path, text, where, message):
    assert_source_error("langfuse", tmp_path / "trace.json", text, where, message)


def crew_observation(oid: str, parent: str | None, kind: str, name: str, start: float,
                     end: float, metadata: dict | None = None, **fields) -> dict:
    stamp = "2026-02-03T10:00:{:06.3f}Z"
    return {"id": oid, "traceId": "crew-1", "parentObservationId": parent, "type": kind,
            "name": name, "startTime": stamp.format(start), "endTime": stamp.format(end),
            "metadata": json.dumps(metadata or {}), "totalCost": 0, "inputUsage": 0,
            "outputUsage": 0, "totalUsage": 0, **fields}


def test_a_crewai_run_names_its_agent_by_role_and_its_telemetry_as_such(tmp_path):
    """OpenInference's CrewAI instrumentation names the agent span after a method
    (``Task._execute_core``) and writes the agent in ``input.value``; CrewAI's telemetry spans
    (``Crew Created``) are no step of the run. The run is still one model call among six
    observations: validation says the import is thin, with the counts."""
    agent = ("id=UUID('0f0e0d0c-0000-4000-8000-000000000001') role='Quill editor' "
             "goal='Edit the invented quill guide' backstory='Careful.'")
    crew_scope = {"scope": {"name": "openinference.instrumentation.crewai"}}
    document = {"trace": {"id": "crew-1", "name": "crew-run", "scores": []}, "observations": [
        crew_observation("o1", None, "SPAN", "crew-run", 0, 4),
        crew_observation("o2", "o1", "SPAN", "Crew.kickoff", 0.01, 3.9, {
            "attributes": {"openinference.span.kind": "CHAIN"}, **crew_scope}),
        crew_observation("o3", "o2", "SPAN", "Crew Created", 0.02, 0.03,
                         {"scope": {"name": "crewai.telemetry"}}),
        crew_observation("o4", "o2", "SPAN", "Task._execute_core", 0.05, 3.8, {
            "attributes": {"openinference.span.kind": "AGENT",
                           "input.value": json.dumps({"agent": agent})}, **crew_scope}),
        crew_observation("o5", "o4", "SPAN", "Task Created", 0.05, 0.05,
                         {"scope": {"name": "crewai.telemetry"}}),
        crew_observation("o6", "o4", "GENERATION", "completion", 0.1, 3.7,
                         usageDetails={"input": 190, "output": 164, "total": 354},
                         model="model-c", totalCost=0.0002)]}
    path = tmp_path / "crew.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = import_file("langfuse", path)
    trace = result.trace
    assert [(e["agent"], e["type"], e.get("x_model")) for e in trace["events"]] == [
        ("Quill editor", "message", "model-c")]
    assert result.skipped == {"span: CrewAI telemetry span (that a crew or a task was created: "
                              "no step of the run)": 2, "span: SPAN": 2}
    problems = validate_document(trace).problems
    assert [(p.code, p.severity) for p in problems] == [("thin-import", "warning")]
    assert problems[0].message.startswith("thin import: 2 of 6 observations of the log gave "
                                          "events (1 event); skipped: ")


def test_observations_listed_by_the_api_are_grouped_into_their_traces(tmp_path):
    """The observations API (Langfuse 3 and later, {data, meta}) lists observations without
    their trace: each traceId becomes a trace, its observations read as a trace's own, and a
    bad field is named by its place in the file's data list."""
    from masrl.traces.importers import import_traces

    results = import_traces("langfuse", FOLDER / "observations_v2.json")
    assert [r.trace["trace_id"] for r in results] == ["langfuse:trace-lantern",
                                                      "langfuse:trace-other"]
    lantern = results[0].trace
    assert [(e["id"], e["type"], e["agent"]) for e in lantern["events"]] == [
        ("ob-2", "message", "lamplighter"), ("ob-3.spawn", "spawn", "lamplighter"),
        ("ob-3.return", "return", "oil-counter"), ("ob-4.call", "tool_call", "oil-counter"),
        ("ob-4.result", "tool_result", "oil-counter")]
    assert [r.trace["costs"]["tokens"] for r in results] == [40 + 9, 5 + 2]
    assert lantern["provenance"]["records"]["read"] == 4
    for result in results:
        assert validate_document(result.trace).problems == []
    text = (FOLDER / "observations_v2.json").read_text(encoding="utf-8")
    bad = text.replace('"startTime": "2026-05-02T14:00:02.500000Z"', '"startTime": "soon"')
    assert bad != text
    with pytest.raises(Exception) as raised:
        import_traces("langfuse", _written(tmp_path, bad))
    assert "data[3]" in str(raised.value) and "startTime" in str(raised.value)


def _written(folder, text):
    path = folder / "observations.json"
    path.write_text(text, encoding="utf-8")
    return path
