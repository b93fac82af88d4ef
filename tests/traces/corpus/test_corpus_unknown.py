"""Unknown is not zero in the corpus tables (issue 26): a figure a trace cannot support is null
and ``not_recorded`` says why, with the reasons of ``masrl replay --json``; a log without a
clock has clock ``steps`` and no times; estimated cost stays apart from recorded cost."""

from __future__ import annotations

import json

import pytest
from trace_helpers import FIXTURES

from masrl.commands import main
from masrl.traces import recorded, replay
from masrl.traces.corpus import shard
from masrl.traces.corpus.summary import read_table
from masrl.traces.validate import validate_file

SMALL = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))


def bare(document: dict) -> dict:
    """The trace without durations, tokens, costs or rewards (what many real logs give)."""
    events = [{k: v for k, v in e.items()
               if k not in ("t_end", "duration", "tokens", "cost_usd", "reward")}
              for e in document["events"]]
    head = {k: v for k, v in document.items() if k != "counterfactuals"}
    return {**head, "events": events, "rewards": {}, "costs": {"tokens": 0, "wall_clock_s": 0}}


@pytest.fixture
def tables(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "full.json").write_text(json.dumps(SMALL), encoding="utf-8")
    (run / "bare.json").write_text(json.dumps(bare(SMALL)), encoding="utf-8")
    unclocked = bare(SMALL)
    unclocked["events"] = [{**e, "t": 0} for e in unclocked["events"]]
    (run / "steps.json").write_text(json.dumps(unclocked), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["corpus", str(run), "-o", str(out), "--workers", "1"]) == 0
    return run, out


def rows(out, table):
    return read_table(out, table).to_pylist()


def test_what_a_trace_lacks_is_null_with_the_replays_reason(tables):
    run, out = tables
    by_source = {r["source"]: r for r in rows(out, "traces")}
    full, bare_row = by_source["run/full.json"], by_source["run/bare.json"]
    assert full["busy_time"] == 7 and full["tokens"] == 250 and full["clock"] == "seconds"
    said = dict(bare_row["not_recorded"])
    for column in ("busy_time", "speedup", "tokens", "cost_usd", "team_reward"):
        assert bare_row[column] is None, column
    expected = replay(validate_file(run / "bare.json").trace).to_dict()["not_recorded"]
    for column, key in shard.REPLAY_KEYS.items():
        if column in said and key in expected:
            assert said[column] == expected[key], column
    assert said["busy_time"] == recorded.NO_DURATIONS
    assert said["team_reward"] == recorded.NO_TEAM_REWARD


def test_every_null_figure_of_a_valid_trace_has_a_reason(tables):
    _, out = tables
    for row in rows(out, "traces"):
        said = dict(row["not_recorded"])
        nulls = {k for k, v in row.items()
                 if v is None and k not in ("line", "system", "topology", "task_id",
                                            "trace_id", "not_recorded")}
        assert nulls <= set(said), (row["source"], nulls - set(said))
        assert recorded.UNEXPLAINED not in said.values()


def test_a_log_without_a_clock_is_in_steps_without_times(tables):
    _, out = tables
    row = next(r for r in rows(out, "traces") if r["source"] == "run/steps.json")
    assert row["clock"] == "steps" and row["wall_clock"] is None
    assert dict(row["not_recorded"])["wall_clock"] == recorded.ORDER_ONLY
    events = [e for e in rows(out, "events") if e["source"] == "run/steps.json"]
    assert events and all(e["t"] is None and e["end"] is None for e in events)
    assert [e["position"] for e in events] == list(range(len(events)))


def test_credit_splits_are_null_without_rewards_and_estimates_stay_apart(tables):
    _, out = tables
    credit = [r for r in rows(out, "credit") if r["source"] == "run/bare.json"]
    assert credit and all(r["equal"] is None and r["recorded"] is None for r in credit)
    full = [r for r in rows(out, "credit") if r["source"] == "run/full.json"]
    assert all(r["equal"] is not None for r in full)
    for row in rows(out, "traces"):
        assert row["cost_usd_estimated"] is None  # nothing names a model: no estimate
        assert row["cost_usd"] != row["cost_usd_estimated"] or row["cost_usd"] is None


def test_a_trace_whose_analysis_fails_leaves_only_its_row(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    for name in ("a", "b"):
        (run / f"{name}.json").write_text(json.dumps({**SMALL, "trace_id": name}),
                                          encoding="utf-8")
    real = shard.ShardBuilder._credit

    def fails_on_b(self, run_, first_id):
        real(self, run_, first_id)
        if run_.trace.head["trace_id"] == "b":
            raise RuntimeError("a bug")

    monkeypatch.setattr(shard.ShardBuilder, "_credit", fails_on_b)
    out = tmp_path / "out"
    assert main(["corpus", str(run), "-o", str(out), "--workers", "1"]) == 1
    traces = rows(out, "traces")
    assert [r["source"] for r in traces] == ["run/a.json", "run/b.json"]
    assert traces[1]["valid"] is False and traces[1]["events"] is None
    for table in ("agents", "events", "credit"):
        assert {r["source"] for r in rows(out, table)} == {"run/a.json"}, table
