"""What a replay says about a run, and what it cannot say: the figures the report shows, each
either a value or *not recorded* with the reason the log gives none (the contract "unknown is
not zero").

The replay decides both (:mod:`masrl.traces.recorded`): ``to_dict()`` carries the ``clock``
(seconds, or steps for a log that only orders its events) and ``not_recorded``, the reason for
every figure it leaves null. The report reads them and works out nothing of its own, so the
page, ``masrl replay --json`` and the corpus tables cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from masrl.presentation.report import words
from masrl.traces.recorded import SECONDS, STEPS  # noqa: F401 (the clocks, for the sections)
from masrl.traces.replay import Replay


class Facts:
    """One replay's figures as the report reads them: :meth:`get` a value by its dotted key
    (``None`` when not recorded), :meth:`reason` why not; ``clock`` says what the time axis
    counts."""

    def __init__(self, replay: Replay):
        self.replay = replay
        self.data = replay.to_dict()
        self.clock = self.data["clock"]
        # the engine's reasons, in words (without the JSON's field names)
        self.not_recorded: dict[str, str] = {key: words.reason(why) for key, why
                                             in self.data["not_recorded"].items()}

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
        or, without a clock, its step (its place in the run's order, from 1, as the report's
        tables and lists count steps) for both."""
        events = self.run.trace.events
        if self.clock == SECONDS:
            return events.start, events.end
        step = np.empty(events.count, dtype=np.float64)
        step[self.run.timeline] = np.arange(1, events.count + 1, dtype=np.float64)
        return step, step

    def instants(self) -> int:
        """How many events record neither an end time (``t_end``) nor a duration: each is an
        instant in the log, whatever time it took (:attr:`EventColumns.instants`)."""
        return self.run.trace.events.instants

    def recorded_by(self, key: str) -> dict[str, bool]:
        """Agent -> whether any of its events records the numeric field ``key``."""
        events = self.run.trace.events
        present = ~np.isnan(self.run.trace.recorded(key))
        seen = np.bincount(events.agent_codes, weights=present.astype(np.float64),
                           minlength=len(events.agent_names))
        found = {name: bool(seen[k] > 0) for k, name in enumerate(events.agent_names)}
        return {name: found.get(name, False) for name in self.run.agents}
