"""Metrics against values computed by hand on small traces.

``small.json``: root (lead) spawns a and b at t=1; a calls the search tool over [2, 4] and
returns at 5; b messages a over [2, 5] and returns at 6; root aggregates over [7, 8].
Longest dependency path: e1 e2 e4 e5 e7 e9 (6 events); the b branch e1 e3 e6 e7 e9 has 5.
"""

from __future__ import annotations

import pytest
from trace_helpers import event, replayed


def run_of(document):
    return replayed(document).metrics


def test_counts(small):
    m = run_of(small)
    assert (m["events"], m["edges"], m["tool_calls"], m["messages"]) == (9, 10, 1, 1)
    assert m["event_types"]["spawn"] == 2 and m["event_types"]["despawn"] == 0
    assert m["decisions"] == {"spawn": 1, "delegate": 0, "communicate": 0, "aggregate": 0,
                              "stop": 0}
    assert m["edge_modes"] == {"blocking": 1, "handoff": 0, "async": 2, "unspecified": 7}


def test_critical_path_and_parallelism(small):
    m = run_of(small)
    assert m["critical_path"] == ["e1", "e2", "e4", "e5", "e7", "e9"]
    assert m["critical_steps"] == 6
    assert m["parallelism"] == pytest.approx(9 / 6)


def test_an_event_without_edges_is_a_path_of_one(small):
    small["edges"] = []
    small["events"] = [e for e in small["events"] if e["agent"] == "root"]
    small["costs"].update(tool_calls=0, messages=0)
    m = run_of(small)
    assert (m["critical_steps"], m["parallelism"]) == (1, 4.0)


def test_simultaneous_events_are_ordered_by_their_edges(small):
    small["events"][2]["t"] = 1  # e3 and e2 both at t=1; make e3 depend on e2
    small["edges"].append({"src": "e2", "dst": "e3", "type": "temporal"})
    assert run_of(small)["critical_path"] == ["e1", "e2", "e3", "e6", "e7", "e9"]


def test_spawn_depth_tree_and_concurrency(small):
    m = run_of(small)
    assert m["spawn_depth"] == 1
    assert m["spawn_tree"] == [
        {"agent": "root", "role": "lead", "spawn_event": None, "children": [
            {"agent": "a", "role": "worker", "spawn_event": "e2", "children": []},
            {"agent": "b", "role": "critic", "spawn_event": "e3", "children": []}]},
        {"agent": "search", "role": None, "spawn_event": None, "children": []},
    ]
    assert m["max_concurrency"] == 2  # a lives [1, 5], b [1, 6]


def test_nothing_spawned_means_depth_and_concurrency_zero(small):
    small["events"] = [event("only", 0, "message", "solo")]
    small["edges"], small["counterfactuals"] = [], {"unit": "agent", "players": ["solo"],
                                                    "outcomes": []}
    small["costs"].update(tool_calls=0, messages=1)
    m = run_of(small)
    assert (m["spawn_depth"], m["max_concurrency"], m["spawn_tree"][0]["children"]) == (0, 0, [])


def test_grandchildren_deepen_the_tree(small):
    small["events"] += [event("g1", 4.5, "spawn", "b", to="c"),
                        event("g2", 5.6, "return", "c", to="b")]
    small["edges"] += [{"src": "e6", "dst": "g1", "type": "spawn"},
                       {"src": "g1", "dst": "g2", "type": "causal"}]
    m = run_of(small)
    assert m["spawn_depth"] == 2
    assert m["spawn_tree"][0]["children"][1]["children"][0]["agent"] == "c"
    assert m["max_concurrency"] == 3  # over [4.5, 5]: a (ends at 5, inclusive), b and c


def test_lifetimes_touching_at_one_instant_overlap(small):
    small["events"] = [event("s1", 1, "spawn", "root", to="a"), event("r1", 5, "return", "a"),
                       event("s2", 5, "spawn", "root", to="b"), event("r2", 6, "return", "b")]
    small["edges"], small["costs"] = [], {"tokens": 0, "wall_clock_s": 5}
    assert run_of(small)["max_concurrency"] == 2  # a alive [1, 5] and b [5, 6] share t=5
    small["events"][2]["t"] = 5.5
    assert run_of(small)["max_concurrency"] == 1


def test_agent_never_ending_lives_to_the_end(small):
    small["events"] += [event("s9", 7.5, "spawn", "root", to="late")]
    small["edges"].append({"src": "e9", "dst": "s9", "type": "spawn"})
    assert run_of(small)["max_concurrency"] == 2  # late lives [7.5, 8], alone


def test_wall_clock_busy_time_and_speedup(small):
    m = run_of(small)
    assert m["wall_clock"] == 8.0  # from e1 at 0 to the end of e9 at 8
    assert m["busy_time"] == {"root": 2.0, "a": 2.0, "b": 3.0, "search": 0.0}
    assert m["speedup"] == pytest.approx(7 / 8)


def test_overlapping_events_of_one_agent_count_once(small):
    small["events"][8]["duration"] = 3  # root aggregates over [7, 10]
    small["events"].append(event("e10", 8, "message", "root", to="a", duration=4))  # [8, 12]
    small["costs"]["messages"] = 2
    busy = run_of(small)["busy_time"]
    assert busy["root"] == 1 + 5  # [0, 1] and [7, 12]


def test_no_durations_no_speedup(small):
    for e in small["events"]:
        e.pop("duration", None)
        e.pop("t_end", None)
    assert run_of(small)["speedup"] is None


def test_token_and_cost_rollups(small):
    small["events"] += [event("g1", 5.5, "spawn", "b", to="c"),
                        event("g2", 5.6, "return", "c", to="b", tokens=5, cost_usd=0.05)]
    small["edges"] += [{"src": "e6", "dst": "g1", "type": "spawn"},
                       {"src": "g1", "dst": "g2", "type": "causal"}]
    m = run_of(small)
    assert m["tokens"] == {
        "total": 255.0, "recorded": 250,
        "per_agent": {"root": 140.0, "a": 70.0, "b": 40.0, "search": None, "c": 5.0},
        "per_subtree": {"root": 255.0, "b": 45.0},
    }
    assert m["cost_usd"]["per_subtree"] == pytest.approx({"root": 0.8, "b": 0.05})
    assert m["cost_usd"]["recorded"] == 0.75
