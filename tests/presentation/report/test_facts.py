"""What a replay says and what it cannot: a log without a clock is in steps, and every figure
the log cannot support is *not recorded* with its reason, never 0: the replay decides both
(masrl.traces.recorded), the report reads them."""

from __future__ import annotations

import json

import numpy as np
from replay_examples import EXAMPLES, example
from trace_helpers import replayed

from masrl.presentation.report import words
from masrl.presentation.report.facts import SECONDS, STEPS, Facts
from masrl.traces import recorded


def document(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def test_a_recorded_run_has_a_clock_and_its_figures():
    found = Facts(example("hierarchical"))
    assert found.clock == SECONDS
    assert found.get("wall_clock") == found.data["wall_clock"] > 0
    assert found.get("tokens.total") == 16370
    assert found.get("cost_usd.total") == found.data["cost_usd"]["total"]
    assert found.get("credit.team_reward") == 0.85
    assert found.not_recorded.keys() == found.data["not_recorded"].keys()
    for key, why in found.data["not_recorded"].items():  # in words: no field names in brackets
        assert found.not_recorded[key] == words.reason(why)


def test_a_reason_is_said_without_the_field_names_the_json_gives():
    assert words.reason(recorded.NO_COSTS) == "no event records a cost in US dollars"
    assert words.reason(recorded.NO_PRICEABLE) == ("no model call names its model with its "
                                                   "input and output tokens")
    assert words.reason(recorded.NO_GAME).endswith("(masrl replay --outcome)")  # a command stays


def test_times_that_only_order_the_events_are_steps():
    trace = document("debate")
    for event in trace["events"]:
        event["t"] = 0
        event.pop("t_end", None)
        event.pop("duration", None)
    found = Facts(replayed(trace))
    assert found.clock == STEPS
    for key in ("wall_clock", "busy_time", "speedup"):
        assert found.get(key) is None
        assert found.reason(key) == words.reason(recorded.ORDER_ONLY)
    assert found.reason("busy_time.debater_1") == recorded.ORDER_ONLY  # inside busy_time
    start, end = found.positions()
    assert sorted(start.tolist()) == list(range(1, len(trace["events"]) + 1))  # from 1
    assert np.array_equal(start, end)
    assert found.get("critical_steps") == found.data["critical_steps"]  # steps stay


def test_unrecorded_durations_tokens_costs_and_reward_are_unknown_not_zero():
    trace = document("centralized")
    for event in trace["events"]:
        for key in ("t_end", "duration", "tokens", "cost_usd", "reward"):
            event.pop(key, None)
    trace["rewards"] = {}
    found = Facts(replayed(trace))
    assert found.clock == SECONDS and found.get("wall_clock") > 0
    assert found.get("busy_time") is None
    assert found.reason("busy_time") == words.reason(recorded.NO_DURATIONS)
    assert found.get("tokens.total") is None and found.reason("tokens.total")
    assert found.get("cost_usd.total") is None
    assert found.reason("cost_usd.total") == words.reason(recorded.NO_COSTS)
    assert found.reason("credit.team_reward") == words.reason(recorded.NO_TEAM_REWARD)
    assert found.recorded_by("tokens") == dict.fromkeys(found.run.agents, False)


def test_per_agent_recording():
    found = Facts(example("harness"))
    found_tokens = found.recorded_by("tokens")
    assert found_tokens["main"] and not found_tokens["Bash"]
