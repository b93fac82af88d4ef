"""What a replay says about a run, and what it cannot say: the figures the report shows, each
either a value or *not recorded* with the reason the log gives none (the contract "unknown is
not zero").

The replay's own ``to_dict()`` is read first: when it carries ``clock`` and ``not_recorded``
(the replay engine's side of the contract), those are used as they are. A replay without them
gets the same two answers from :func:`detected_clock` and :func:`derived_unknowns`, which read
the trace: one place to switch once every replay carries them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from masrl.traces import credit
from masrl.traces.replay import Replay

SECONDS, STEPS = "seconds", "steps"
NO_TIMES = "the log records the order of events, not their times"
NO_DURATIONS = "no event records an end time or a duration"
NO_TOKENS = "no event records tokens"
NO_COST = "no event records a cost in dollars"
NO_PRICES = "this version of masrl has no price table to estimate a cost from tokens"
NO_REWARD = "the log records no team reward"
ONE_AGENT = "one agent: nothing runs in parallel"
DURATION_KEYS = ("wall_clock", "busy_time", "speedup")


def detected_clock(replay: Replay) -> str:
    """:data:`STEPS` when the events carry no usable clock (every event starts and ends at one
    and the same time, as in logs that only order their events), else :data:`SECONDS`."""
    events = replay.run.trace.events
    times = np.concatenate([events.start, events.end])
    return STEPS if times.size and bool((times == times[0]).all()) else SECONDS


def acting_agents(replay: Replay) -> list[str]:
    """The names that act in at least one event other than a tool result (tools left out)."""
    events = replay.run.trace.events
    acts = credit.acting(replay.run).tolist()
    return [name for name, act in zip(events.agent_names, acts) if act]


def derived_unknowns(replay: Replay, clock: str) -> dict[str, str]:
    """The figures the trace cannot support, keyed as in ``masrl replay --json`` (dotted), each
    with its reason: durations without a clock or without end times, a speedup of one agent
    (which does not apply), tokens and dollars no event records, a team reward the trace does
    not have, an estimate without a price table."""
    trace = replay.run.trace
    events = trace.events
    found: dict[str, str] = {}
    if clock == STEPS:
        found.update(dict.fromkeys(DURATION_KEYS, NO_TIMES))
    elif not bool((events.end > events.start).any()):
        found.update(dict.fromkeys(("busy_time", "speedup"), NO_DURATIONS))
    if "speedup" not in found and len(acting_agents(replay)) == 1:
        found["speedup"] = ONE_AGENT
    if bool(np.isnan(trace.recorded("tokens")).all()):
        found["tokens.total"] = NO_TOKENS
    if bool(np.isnan(trace.recorded("cost_usd")).all()):
        found["cost_usd.total"] = NO_COST
    found["cost_usd_estimated.total"] = NO_PRICES
    if replay.credit.get("team_reward") is None:
        found["credit.team_reward"] = NO_REWARD
    return dict(sorted(found.items()))


class Facts:
    """One replay's figures as the report reads them: :meth:`get` a value by its dotted key
    (``None`` when not recorded), :meth:`reason` why not; ``clock`` says what the time axis
    counts."""

    def __init__(self, replay: Replay):
        self.replay = replay
        self.data = replay.to_dict()
        self.clock = self.data.get("clock") or detected_clock(replay)
        given = self.data.get("not_recorded")
        self.not_recorded: dict[str, str] = (dict(given) if isinstance(given, Mapping)
                                             else derived_unknowns(replay, self.clock))

    @property
    def run(self):
        return self.replay.run

    def reason(self, key: str) -> str | None:
        """Why the figure at ``key`` (dotted) is not recorded, or ``None`` when it is; a figure
        inside an unknown one is unknown for the same reason (``busy_time.main`` under
        ``busy_time``)."""
        parts = key.split(".")
        for end in range(len(parts), 0, -1):
            found = self.not_recorded.get(".".join(parts[:end]))
            if found is not None:
                return found
        return None

    def get(self, key: str) -> Any:
        """The figure at ``key`` (dotted) of ``to_dict()``, ``None`` when it is not recorded (or
        absent, or not a finite number)."""
        if self.reason(key) is not None:
            return None
        value: Any = self.data
        for part in key.split("."):
            if not isinstance(value, Mapping) or part not in value:
                return None
            value = value[part]
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """Each event's start and end on the time axis the report draws: its times in seconds,
        or, without a clock, its step (its place in the run's order) for both."""
        events = self.run.trace.events
        if self.clock == SECONDS:
            return events.start, events.end
        step = np.empty(events.count, dtype=np.float64)
        step[self.run.timeline] = np.arange(events.count, dtype=np.float64)
        return step, step

    def recorded_by(self, key: str) -> dict[str, bool]:
        """Agent -> whether any of its events records the numeric field ``key``."""
        events = self.run.trace.events
        present = ~np.isnan(self.run.trace.recorded(key))
        seen = np.bincount(events.agent_codes, weights=present.astype(np.float64),
                           minlength=len(events.agent_names))
        found = {name: bool(seen[k] > 0) for k, name in enumerate(events.agent_names)}
        return {name: found.get(name, False) for name in self.run.agents}
