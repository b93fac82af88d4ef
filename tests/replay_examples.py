"""The six example traces replayed, and hostile copies, for the view and chart tests."""

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


HOSTILE_TEXT = ('</script><script>alert(1)</script><img src=x onerror="alert(2)">&amp; '
                "bell\x07 escape\x1b[31m nul\x00 separator\u2028 c1\x9b end\r\nnext line\t"
                + "y" * 3000)


def hostile_content_trace() -> dict:
    """The centralized example with text kept on one event and a label on it, both holding
    markup, a script's end tag, control characters and a very long line."""
    document = json.loads((EXAMPLES / "centralized.json").read_text(encoding="utf-8"))
    document["schema_version"] = "1.2"
    document["events"][1]["content"] = {"text": HOSTILE_TEXT, "truncated": True,
                                        "bytes": 123_456}
    document["labels"] = [{"name": "</script><b>name", "value": '<img src=x onerror="a()">',
                           "kind": "annotation", "source": "<i>tool</i>",
                           "event": document["events"][1]["id"], "comment": "c\x1b[2J"}]
    return document
