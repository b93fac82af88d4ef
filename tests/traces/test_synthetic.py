"""The synthetic generator: valid traces of the stated shape, and a reproducible training run."""

from __future__ import annotations

import json

import pytest
from trace_helpers import replayed

from masrl.traces import synthetic


@pytest.mark.parametrize("calls, waves", [([1], 1), ([3, 1, 2], 1), ([3, 1, 2], 3), ([2] * 5, 2)])
def test_swarm_traces_are_valid_with_the_stated_shape(calls, waves):
    result = replayed(synthetic.swarm_trace(calls, waves=waves, call_seconds=0.25,
                                            tokens_per_call=10, return_reward=0.5))
    m = result.metrics
    agents = len(calls)
    assert m["events"] == 2 * sum(calls) + 2 * agents + 2 * waves + 1
    assert m["tool_calls"] == sum(calls) and m["decisions"]["spawn"] == waves
    assert m["tokens"]["total"] == m["tokens"]["recorded"] == 10 * sum(calls)
    assert m["max_concurrency"] == max(synthetic.spread(agents, waves))
    if waves == agents:  # one sub-agent at a time: every event on one dependency chain
        assert m["critical_steps"] == m["events"]


def test_wave_and_duration_rules_are_checked():
    with pytest.raises(ValueError, match="1 <= waves <= agents"):
        synthetic.swarm_trace([1, 1], waves=3)
    with pytest.raises(ValueError, match="call_seconds"):
        synthetic.swarm_trace([1], call_seconds=0.5)


def test_a_rollout_does_not_depend_on_the_others_drawn():
    alone = synthetic.draw_rollout(7, 3, 10, 5, 2)
    run = {(s, json.dumps(t)) for s, t in synthetic.training_run_traces(10, 6, 3, seed=7)}
    assert (3, json.dumps(synthetic.rollout_trace(alone))) in run
    assert synthetic.draw_rollout(8, 3, 10, 5, 2) != alone  # the seed matters


def test_training_run_files_are_reproducible_and_broken_on_purpose(tmp_path):
    first = synthetic.write_training_run(tmp_path / "a", 2, 3, 2, broken_per_step=1)
    second = synthetic.write_training_run(tmp_path / "b", 2, 3, 2, broken_per_step=1)
    assert [f.name for f in first] == ["step-0000.jsonl", "step-0001.jsonl"]
    assert [f.read_bytes() for f in first] == [f.read_bytes() for f in second]
    lines = first[0].read_text().splitlines()
    assert len(lines) == 6
    assert json.loads(lines[0])["edges"][-1] == {"src": "stop", "dst": "d0", "type": "causal"}
    assert json.loads(lines[1])["provenance"] == {"format": "masrl-synthetic", "x_step": 0,
                                                  "x_sample": 1}
