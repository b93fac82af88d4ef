"""Spawns and ends of agents."""

from __future__ import annotations

from trace_helpers import event

from masrl.traces.graph import event_columns
from masrl.traces.lifecycle import ended_agent, lifecycle


def life_of(events):
    return lifecycle(events, event_columns(events))


def test_despawn_ends_the_named_agent_or_the_actor_itself():
    assert ended_agent(event("d", 1, "despawn", "boss", to="w")) == "w"
    assert ended_agent(event("d", 1, "despawn", "w")) == "w"
    assert ended_agent(event("r", 1, "return", "w", to="boss")) == "w"
    assert ended_agent(event("m", 1, "message", "w")) is None


def test_first_spawn_and_first_end_after_it_count():
    life = life_of([
        event("r0", 0, "return", "w"),  # before any spawn: ends nothing
        event("s1", 1, "spawn", "boss", to="w"),
        event("s2", 2, "spawn", "other", to="w"),
        event("r1", 3, "return", "w"),
        event("r2", 4, "return", "w"),
        event("s3", 5, "spawn", "boss"),  # names nobody: ignored
    ])
    assert (life.spawn_event, life.spawner, life.end_event) == (
        {"w": 1}, {"w": "boss"}, {"w": 3})
    assert life.children() == {"boss": ["w"]}
