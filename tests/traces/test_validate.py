"""Every validation rule, each with a failing example and its exact message, place and pointer."""

from __future__ import annotations

import json

from trace_helpers import FIXTURES, event, found

from masrl.traces.validate import validate_document, validate_file


def test_the_small_fixture_is_valid_without_warnings(small):
    assert validate_document(small).problems == []


# ------------------------------------------------------------------------------- parsing

def test_not_json_names_line_and_column():
    report = validate_file(FIXTURES / "not_json.json")
    assert found(report) == [
        ("error", "not-json", "line 2 column 14", "", "not JSON: Expecting value")]
    assert report.trace is None


def test_not_utf8(write_trace, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"trace_id": "caf\xe9"}')
    assert found(validate_file(path)) == [("error", "not-json", "byte 17", "", "not UTF-8 text")]


def test_nan_infinity_and_overflow_are_located():
    assert found(validate_file(FIXTURES / "non_finite.json")) == [
        ("error", "non-finite", "events[1] (id e2) /events/1/t", "/events/1/t",
         "NaN is not a JSON number"),
        ("error", "non-finite", "/rewards/team", "/rewards/team", "Infinity is not a JSON number"),
        ("error", "non-finite", "/costs/tokens", "/costs/tokens",
         "1e999 is too large a number: a double holds at most about 1.8e308"),
    ]


# ------------------------------------------------------------------------------- schema

def test_every_schema_violation_is_reported(small):
    small["events"][2]["t"] = -1
    small["costs"]["tokens"] = -5
    small["edges"][0]["weight"] = 2
    small["events"][0]["decision"] = "retry"
    assert found(validate_document(small)) == [
        ("error", "schema", "/costs/tokens", "/costs/tokens", "-5 is less than the minimum of 0"),
        ("error", "schema", "edges[0] (e1 -> e2) /edges/0", "/edges/0",
         "Additional properties are not allowed ('weight' was unexpected)"),
        ("error", "schema", "events[0] (id e1) /events/0/decision", "/events/0/decision",
         '"retry" is not one of "spawn", "delegate" or 3 other candidates'),
        ("error", "schema", "events[2] (id e3) /events/2/t", "/events/2/t",
         "-1 is less than the minimum of 0"),
    ]


def test_end_and_duration_together_are_a_schema_error(small):
    small["events"][3]["duration"] = 2
    assert found(validate_document(small)) == [
        ("error", "schema", "events[3] (id e4) /events/3", "/events/3",
         "not allowed: t_end and duration are alternatives.")]


def test_graph_checks_wait_for_a_schema_valid_trace(small):
    small["events"][1]["id"] = "e1"  # a duplicate id, not reported yet
    del small["rewards"]
    assert found(validate_document(small)) == [
        ("error", "schema", "/", "", '"rewards" is a required property')]


# ------------------------------------------------------------------------------- graph errors

def test_duplicate_event_id(small):
    small["events"][4]["id"] = "e2"
    small["edges"][4]["src"] = "e2"
    assert ("error", "duplicate-id", "events[4] (id e2) /events/4/id", "/events/4/id",
            "duplicate event id 'e2' (first used by events[1])") in found(validate_document(small))


def test_edge_to_and_from_unknown_events(small):
    small["edges"][2]["src"] = "ghost"
    small["edges"][9]["dst"] = "nowhere"
    errors = [p for p in found(validate_document(small)) if p[1] == "unknown-event"]
    assert errors == [
        ("error", "unknown-event", "edges[2] (ghost -> e4) /edges/2/src", "/edges/2/src",
         "edge src 'ghost' is not the id of an event"),
        ("error", "unknown-event", "edges[9] (id last) /edges/9/dst", "/edges/9/dst",
         "edge dst 'nowhere' is not the id of an event"),
    ]


def test_self_loop(small):
    small["edges"].append({"src": "e6", "dst": "e6", "type": "causal"})
    assert found(validate_document(small)) == [
        ("error", "cycle", "edges[10] (e6 -> e6) /edges/10", "/edges/10",
         "self-loop: event 'e6' depends on itself")]


def test_cycle_among_simultaneous_events(small):
    small["edges"].append({"src": "e3", "dst": "e2", "type": "temporal"})
    small["edges"].append({"src": "e2", "dst": "e3", "type": "temporal"})
    assert found(validate_document(small)) == [
        ("error", "cycle", "edges[11] (e2 -> e3) /edges/11", "/edges/11",
         "edges form a cycle: e3 -> e2 -> e3")]


def test_edge_back_in_time_and_the_cycle_it_closes(small):
    small["edges"].append({"src": "e9", "dst": "e7", "type": "causal"})
    assert found(validate_document(small)) == [
        ("error", "time-order", "edges[10] (e9 -> e7) /edges/10", "/edges/10",
         "destination 'e7' (t=5) starts before source 'e9' (t=7)"),
        ("error", "cycle", "edges[10] (e9 -> e7) /edges/10", "/edges/10",
         "edges form a cycle: e7 -> e9 -> e7"),
    ]


def test_end_before_start(small):
    small["events"][3]["t_end"] = 1.5
    assert found(validate_document(small)) == [
        ("error", "end-before-start", "events[3] (id e4) /events/3/t_end", "/events/3/t_end",
         "t_end 1.5 is before t 2")]


def test_agent_acting_before_its_spawn(small):
    small["events"].append(event("early", 0.5, "aggregate", "b"))
    assert found(validate_document(small)) == [
        ("error", "before-spawn", "events[9] (id early) /events/9/t", "/events/9/t",
         "agent 'b' acts at t=0.5 before its spawn 'e3' at t=1")]


def test_agents_spawning_each_other(small):
    small["events"] = [event("s1", 1, "spawn", "x", to="y"), event("s2", 1, "spawn", "y", to="x"),
                       event("r1", 2, "return", "y", to="x"), event("r2", 2, "return", "x", to="y")]
    small["edges"], small["costs"] = [], {"tokens": 0, "wall_clock_s": 1}
    del small["counterfactuals"]
    assert found(validate_document(small)) == [
        ("error", "spawn-cycle", "events[0] (id s1) /events/0/to", "/events/0/to",
         "agent 'y' is spawned by its own descendant: y <- x <- y"),
        ("error", "spawn-cycle", "events[1] (id s2) /events/1/to", "/events/1/to",
         "agent 'x' is spawned by its own descendant: x <- y <- x"),
    ]


def test_counterfactual_coalitions_must_name_players_once(small):
    outcomes = small["counterfactuals"]["outcomes"]
    outcomes.append({"coalition": ["a", "root"], "reward": 0.5})
    outcomes.append({"coalition": ["b"], "reward": 0.1})
    assert found(validate_document(small)) == [
        ("error", "unknown-player",
         "counterfactuals.outcomes[2] /counterfactuals/outcomes/2/coalition/1",
         "/counterfactuals/outcomes/2/coalition/1",
         "'root' is not one of the counterfactual players"),
        ("error", "duplicate-coalition",
         "counterfactuals.outcomes[3] /counterfactuals/outcomes/3/coalition",
         "/counterfactuals/outcomes/3/coalition",
         "rollout leaves the same players as recorded as counterfactuals.outcomes[1]"),
    ]


def event_rollouts(small, players, outcomes, unit="message"):
    small["schema_version"] = "1.1"
    small["counterfactuals"] = {"unit": unit, "players": players, "outcomes": outcomes}
    return found(validate_document(small))


def test_a_rollout_that_names_an_unknown_event_is_named_with_the_field(small):
    """The error names the counterfactual (its place and id) and the field."""
    problems = event_rollouts(small, ["e6", "e66"], [
        {"id": "no-e66", "changed": [{"player": "e66"}], "reward": 0.4},
        {"id": "no-x", "changed": [{"player": "x"}], "reward": 0.4}])
    assert problems == [
        ("error", "unknown-event", "counterfactuals.players[1] /counterfactuals/players/1",
         "/counterfactuals/players/1",
         "counterfactual player 'e66' is not the id of an event"),
        ("error", "unknown-player",
         "counterfactuals.outcomes[1] (id no-x) /counterfactuals/outcomes/1/changed/0/player",
         "/counterfactuals/outcomes/1/changed/0/player",
         "'x' is not one of the counterfactual players"),
    ]


def test_event_players_must_be_of_the_units_type(small):
    problems = event_rollouts(small, ["e4"], [{"changed": [{"player": "e4"}], "reward": 0}])
    assert [p[1] for p in problems] == ["wrong-unit"]
    assert "is a tool_call event, not one of unit message" in problems[0][4]
    assert event_rollouts(small, ["e4", "e6"], [{"changed": [{"player": "e4"}], "reward": 0}],
                          unit="event") == []


def test_a_player_is_changed_one_way_and_only_a_stop_stops_later(small):
    problems = event_rollouts(small, ["e6"], [
        {"id": "a", "changed": [{"player": "e6", "how": "replaced"}], "reward": 0.1},
        {"id": "b", "changed": [{"player": "e6", "how": "stopped_later"}], "reward": 0.2}])
    assert [(p[1], p[3]) for p in problems] == [
        ("inconsistent-change", "/counterfactuals/outcomes/1/changed/0/how"),
        ("not-a-stop", "/counterfactuals/outcomes/1/changed/0/how"),
        ("duplicate-coalition", "/counterfactuals/outcomes/1/changed")]


def test_a_stop_decision_may_be_stopped_later(small):
    small["events"][0]["decision"] = "stop"  # e1, an orchestrator_decision
    assert event_rollouts(small, ["e1"], [
        {"changed": [{"player": "e1", "how": "stopped_later"}], "reward": 1.5}],
        unit="orchestrator") == []


def test_a_rollout_gives_a_coalition_or_the_players_changed_not_both(small):
    problems = event_rollouts(small, ["e6"], [
        {"coalition": [], "changed": [{"player": "e6"}], "reward": 0}])
    assert [p[1] for p in problems] == ["schema"]


def test_version_1_0_with_a_field_of_1_1_is_warned(small):
    small["counterfactuals"]["outcomes"][0]["id"] = "only-a"
    report = validate_document(small)
    assert report.valid
    assert [(p.code, p.pointer) for p in report.warnings] == [
        ("newer-field", "/counterfactuals/outcomes/0/id")]


def test_all_problems_are_reported_at_once(small):
    small["events"][4]["id"] = "e1"
    small["events"][3]["t_end"] = 1
    small["costs"]["messages"] = 4
    codes = [(p[1], p[3]) for p in found(validate_document(small))]
    assert codes == [("duplicate-id", "/events/4/id"), ("unknown-event", "/edges/3/dst"),
                     ("unknown-event", "/edges/4/src"), ("end-before-start", "/events/3/t_end"),
                     ("count-mismatch", "/costs/messages")]


# ------------------------------------------------------------------------------- warnings

def test_recorded_counts_that_disagree_are_warnings(small):
    small["costs"]["tool_calls"] = 3
    small["costs"]["messages"] = 0
    report = validate_document(small)
    assert report.valid
    assert found(report) == [
        ("warning", "count-mismatch", "/costs/tool_calls", "/costs/tool_calls",
         "costs.tool_calls records 3 but the trace has 1 tool_call events"),
        ("warning", "count-mismatch", "/costs/messages", "/costs/messages",
         "costs.messages records 0 but the trace has 1 message events"),
    ]


def test_return_to_someone_other_than_the_spawner(small):
    small["events"][6]["to"] = "b"
    assert found(validate_document(small)) == [
        ("warning", "return-not-to-spawner", "events[6] (id e7) /events/6/to", "/events/6/to",
         "return addressed to 'b' but 'a' was spawned by 'root'")]


def test_agent_never_returned_nor_despawned(small):
    small["events"][7]["type"] = "message"
    small["costs"]["messages"] = 2
    assert found(validate_document(small)) == [
        ("warning", "never-ended", "events[2] (id e3) /events/2/to", "/events/2/to",
         "agent 'b' is spawned here but never returns nor is despawned")]


def test_despawn_ends_an_agent(small):
    small["events"][7].update(type="despawn", agent="root", to="b")
    assert validate_document(small).problems == []


def test_report_as_dict(small):
    small["costs"]["messages"] = 2
    assert validate_document(small, source="x.json").to_dict() == {
        "file": "x.json", "valid": True, "errors": 0, "warnings": 1,
        "problems": [{"severity": "warning", "code": "count-mismatch", "where": "/costs/messages",
                      "pointer": "/costs/messages",
                      "message": "costs.messages records 2 but the trace has 1 message events"}],
    }


def test_a_key_of_non_ascii_digits_is_sorted_as_text_not_read_as_a_number():
    """Problems are sorted by pointer, numbers as numbers: a key such as ``²`` (a digit to
    ``str.isdigit``, not to ``int``) crashed the sort (exit 3)."""
    from masrl.traces.validate import validate_document

    document = {"trace_id": "t", "task_id": "t", "edges": [],
                "events": [{"id": "a", "t": 0, "type": "message", "agent": "x"}],
                "rewards": {"²": "x", "3": "y", "١": "z"},
                "costs": {"tokens": 0, "wall_clock_s": 0}}
    pointers = [p.pointer for p in validate_document(document).problems]
    assert pointers == ["/rewards/3", "/rewards/²", "/rewards/١"]


def test_absent_numbers_read_as_zero_as_nan_to_num_reads_them():
    """Trace.numeric's own NaN-to-zero gives what np.nan_to_num gives, infinities included."""
    import numpy as np

    from masrl.traces.validate import _absent_as_zero

    for values in ([1.5, float("nan"), 0.0, -2.0], [float("nan")] * 3, [],
                   [float("inf"), float("nan"), -float("inf"), 3.0]):
        array = np.array(values, dtype=np.float64)
        found = _absent_as_zero(array)
        assert found.dtype == np.float64
        assert found.tolist() == np.nan_to_num(array, nan=0.0).tolist()
        assert np.isnan(array).sum() == sum(v != v for v in values)  # the input is unchanged


def test_an_event_that_is_not_an_object_is_one_error(small):
    """An event written as a string is said to be no object, and nothing else: the schema's
    rule against both t_end and duration applies to objects (it also said "not allowed: t_end
    and duration are alternatives" of a string)."""
    trace = {**small, "events": [small["events"][0], "x", *small["events"][2:]]}
    problems = [p for p in validate_document(trace).problems if p.severity == "error"]
    assert [(p.pointer, p.message) for p in problems if p.pointer == "/events/1"] == [
        ("/events/1", '"x" is not of type "object"')]
    both = json.loads(json.dumps(small))
    both["events"][1].update(t_end=both["events"][1]["t"] + 1, duration=1)
    assert any("t_end and duration are alternatives" in p.message
               for p in validate_document(both).problems)
