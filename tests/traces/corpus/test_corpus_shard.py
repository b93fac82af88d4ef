"""One shard's builder: a trace whose analysis fails half-way leaves nothing behind but its row.

The builder keeps what each table gathers as shard-wide columns, codes and dictionaries, so a
trace that fails after some of them grew must take back exactly its own part: the other
traces' rows must read as they do when nothing fails.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from masrl.traces.corpus import sources
from masrl.traces.corpus.shard import ShardBuilder, build_shard


def one_shard(corpus) -> sources.Shard:
    found = sources.find([corpus])
    return sources.shards(sources.trace_sources(found.files), 1000)[0]


def without(table: pa.Table, source: str) -> pa.Table:
    return table.filter(pc.not_equal(table["source"], source))


@pytest.mark.parametrize("stage", ["_events", "_credit"])
def test_a_trace_that_fails_midway_leaves_only_its_row(corpus, monkeypatch, stage):
    shard = one_shard(corpus)
    whole = build_shard(shard).tables()
    failing = "corpus/examples/debate.json"  # valid, with valid traces before and after it
    original = getattr(ShardBuilder, stage)

    def fail_after(self, *args, **kwargs):
        original(self, *args, **kwargs)  # the trace's columns grew: then the analysis fails
        if self.sources[-1] == failing:
            raise RuntimeError("planted failure")

    monkeypatch.setattr(ShardBuilder, stage, fail_after)
    failed = build_shard(shard).tables()
    for name in ("agents", "events", "credit"):
        assert failing in whole[name]["source"].to_pylist(), name
        assert failed[name].equals(without(whole[name], failing)), name
    row = failed["traces"].filter(pc.equal(failed["traces"]["source"], failing)).to_pylist()
    assert [(r["valid"], r["errors"], r["events"]) for r in row] == [(False, 1, None)]
    problems = failed["problems"].filter(pc.equal(failed["problems"]["source"], failing))
    assert problems["code"].to_pylist() == ["internal-error"]
    assert "planted failure" in problems["message"][0].as_py()
    others = [n for n in whole["traces"]["source"].to_pylist() if n != failing]
    assert without(failed["traces"], failing)["source"].to_pylist() == others
