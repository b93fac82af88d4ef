"""What a replay says and what it cannot: a log without a clock is in steps, and every figure
the log cannot support is *not recorded* with its reason, never 0; the replay engine's own
``clock`` and ``not_recorded`` win when it gives them (the contract "unknown is not zero")."""

from __future__ import annotations

import json

import numpy as np
from replay_examples import EXAMPLES, example
from trace_helpers import replayed

from masrl.presentation.report import facts as facts_module
from masrl.presentation.report.facts import SECONDS, STEPS, Facts
from masrl.traces import Replay


def document(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def test_a_recorded_run_has_a_clock_and_its_figures():
    found = Facts(example("hierarchical"))
    assert found.clock == SECONDS
    assert found.get("wall_clock") == found.data["wall_clock"] > 0
    assert found.get("tokens.total") == 16370
    assert found.get("cost_usd.total") == found.data["cost_usd"]["total"]
    assert found.get("credit.team_reward") == 0.85
    assert set(found.not_recorded) == {"cost_usd_estimated.total"}  # no price table yet


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
        assert found.reason(key) == facts_module.NO_TIMES
    assert found.reason("busy_time.debater_1") == facts_module.NO_TIMES  # inside busy_time
    start, end = found.positions()
    assert sorted(start.tolist()) == list(range(len(trace["events"])))
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
    assert found.data["busy_time"]["lead"] == 0.0  # what the replay says today...
    assert found.get("busy_time") is None  # ...is not what the report shows
    assert found.reason("busy_time") == facts_module.NO_DURATIONS
    assert found.get("tokens.total") is None and found.reason("tokens.total")
    assert found.get("cost_usd.total") is None
    assert found.reason("cost_usd.total") == facts_module.NO_COST
    assert found.reason("credit.team_reward") == facts_module.NO_REWARD
    assert found.recorded_by("tokens") == dict.fromkeys(found.run.agents, False)


def test_the_engine_s_own_answers_are_used_when_it_gives_them():
    """Once ``to_dict()`` carries ``clock`` and ``not_recorded`` (the engine's side of the
    contract), the report reads them instead of working them out."""
    base = example("swarm")

    class Engine(Replay):
        def to_dict(self) -> dict:
            found = super().to_dict()
            found["clock"] = "steps"
            found["tokens"] = {**found["tokens"], "total": None}
            found["not_recorded"] = {"tokens.total": "the engine says so"}
            return found

    found = Facts(Engine(base.run, base.metrics, base.credit))
    assert found.clock == STEPS
    assert found.not_recorded == {"tokens.total": "the engine says so"}
    assert found.get("tokens.total") is None
    assert found.get("wall_clock") == base.metrics["wall_clock"]  # not in the engine's list


def test_per_agent_recording():
    found = Facts(example("harness"))
    recorded = found.recorded_by("tokens")
    assert recorded["main"] and not recorded["Bash"]


def test_one_agent_has_no_speedup_to_speak_of():
    trace = {"trace_id": "solo", "task_id": "t", "topology": "unknown", "rewards": {},
             "costs": {"tokens": 0, "wall_clock_s": 2},
             "events": [{"id": "a", "t": 0, "type": "message", "agent": "solo", "duration": 1},
                        {"id": "b", "t": 1, "type": "tool_call", "agent": "solo", "tool": "x",
                         "duration": 1},
                        {"id": "c", "t": 2, "type": "tool_result", "agent": "x", "tool": "x"}],
             "edges": [{"src": "a", "dst": "b", "type": "causal"},
                       {"src": "b", "dst": "c", "type": "tool_dependency"}]}
    found = Facts(replayed(trace))
    assert found.data["speedup"] is not None  # the replay gives one today...
    assert found.get("speedup") is None  # ...that does not apply
    assert found.reason("speedup") == facts_module.ONE_AGENT
