"""Counts said with their noun (masrl.wording): one thing in the singular, others in the plural,
the same rule in the terminal's summaries as on the report's pages."""

from __future__ import annotations

import pytest

from masrl import wording
from masrl.commands.corpus import report
from masrl.presentation.report import words


@pytest.mark.parametrize(("n", "noun", "said"), [
    (0, "worker", "0 workers"), (1, "worker", "1 worker"), (2, "shard", "2 shards"),
    (1, "tool call", "1 tool call"), (3, "tool call", "3 tool calls"),
    (2, "entry", "2 entries"), (2, "day", "2 days"), (2, "match", "2 matches"),
    (12345, "event", "12,345 events"), (1.0, "trace", "1 trace"),
])
def test_counts_take_the_singular_for_one_only(n, noun, said):
    assert wording.count(n, noun) == said


def test_the_pages_say_counts_by_the_same_rule():
    assert words.count is wording.count and words.plural_of is wording.plural_of


def test_a_corpus_of_one_says_one_trace_one_shard_one_worker():
    result = {"traces": 1, "valid": 1, "invalid": 0, "unreadable": 0, "events": 1,
              "warnings": 1, "tables": ["traces"], "output": "out", "shards": 1,
              "shards_resumed": 0, "engine": "local", "workers": 1, "seconds": 0.25}
    assert report(result).splitlines() == [
        "1 trace: 1 valid, 0 invalid (0 unreadable); 1 event in the valid ones; 1 warning",
        "tables traces written to out (1 shard, 0 already done; local engine, 1 worker, 0.2 s)",
    ]
    many = {**result, "traces": 2000, "events": 910000, "shards": 4, "workers": 2,
            "warnings": 0}
    assert report(many).splitlines()[0] == (
        "2,000 traces: 1 valid, 0 invalid (0 unreadable); 910,000 events in the valid ones; "
        "0 warnings")
    assert "(4 shards, 0 already done; local engine, 2 workers, " in report(many)
