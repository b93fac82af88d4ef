"""The six example traces replayed, and a hostile copy, for the view and chart tests."""

from __future__ import annotations

import json

from masrl.traces import Replay, load_trace, replay, resources, validate_document

EXAMPLES = resources.EXAMPLES
NAMES = ["centralized", "planner_executor_critic", "debate", "swarm", "hierarchical", "harness"]
HOSTILE = '<img src=x onerror="alert(1)">&amp;'


def example(name: str) -> Replay:
    return replay(load_trace(EXAMPLES / f"{name}.json"))


def hostile_replay() -> Replay:
    """The centralized example with the researcher on the critical path renamed to markup."""
    text = (EXAMPLES / "centralized.json").read_text(encoding="utf-8")
    text = text.replace('"researcher_2"', json.dumps(HOSTILE))
    return replay(validate_document(json.loads(text)).trace)
