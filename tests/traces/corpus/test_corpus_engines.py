"""Both engines, any number of workers, any run: the same bytes; and what the tables hold."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from corpus_helpers import tree_bytes

from masrl.commands import main
from masrl.traces import replay
from masrl.traces.corpus.summary import read_table
from masrl.traces.validate import validate_file

HAS_RAY = importlib.util.find_spec("ray") is not None


def run(corpus, out, *options) -> int:
    return main(["corpus", str(corpus), "-o", str(out), "--shard-size", "4", *options])


@pytest.fixture
def local_tables(corpus, tmp_path):
    out = tmp_path / "local-1"
    assert run(corpus, out, "--workers", "1") == 1  # invalid and unreadable traces: exit 1
    return out


def test_worker_counts_and_repeated_runs_give_the_same_bytes(corpus, tmp_path, local_tables):
    expected = tree_bytes(local_tables)
    assert len(expected) == 1 + 5 * 4 + 4  # corpus.json, five tables and the records of 4 shards
    again = tmp_path / "local-2"
    assert run(corpus, again, "--workers", "2") == 1
    assert tree_bytes(again) == expected
    third = tmp_path / "local-3"
    assert run(corpus, third, "--workers", "1") == 1
    assert tree_bytes(third) == expected


@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed")
def test_the_ray_engine_writes_the_same_bytes(corpus, tmp_path, local_tables):
    out = tmp_path / "ray"
    assert run(corpus, out, "--engine", "ray", "--workers", "2") == 1
    assert tree_bytes(out) == tree_bytes(local_tables)


def test_every_trace_is_one_row_invalid_ones_included(local_tables):
    traces = read_table(local_tables, "traces").to_pylist()
    by_source = {row["source"]: row for row in traces}
    assert list(by_source) == sorted(by_source, key=list(by_source).index)  # no duplicates
    assert len(traces) == 13
    invalid = {s for s, row in by_source.items() if not row["valid"]}
    assert invalid == {"corpus/bad_line.jsonl:3", "corpus/bad_line.jsonl:4",
                       "corpus/gone.json", "corpus/not_json.json"}
    broken = by_source["corpus/bad_line.jsonl:3"]
    assert broken["trace_id"] == "step0001-task002-sample01"  # identity kept when readable
    assert broken["events"] is None and broken["line"] == 3
    assert by_source["corpus/gone.json"]["bytes"] is None


def test_problems_list_every_invalid_trace_with_its_errors(local_tables):
    problems = read_table(local_tables, "problems").to_pylist()
    errors = {(p["source"], p["code"]) for p in problems if p["severity"] == "error"}
    assert errors == {("corpus/bad_line.jsonl:3", "time-order"),
                      ("corpus/bad_line.jsonl:4", "not-json"),
                      ("corpus/gone.json", "unreadable"),
                      ("corpus/not_json.json", "not-json")}
    time_order = next(p for p in problems if p["code"] == "time-order")
    assert time_order["pointer"].startswith("/edges/") and "starts before" in time_order["message"]


def test_rows_agree_with_masrl_replay(corpus, local_tables):
    expected = replay(validate_file(corpus / "small.json").trace).to_dict()
    row = next(r for r in read_table(local_tables, "traces").to_pylist()
               if r["source"] == "corpus/small.json")
    for key in ("events", "edges", "critical_steps", "parallelism", "spawn_depth",
                "max_concurrency", "wall_clock", "speedup", "event_types", "edge_types",
                "edge_modes"):
        assert row[key] == expected[key], key
    assert row["decisions"] == {**expected["decisions"], "unspecified": 0}  # every field
    assert row["tokens"] == expected["tokens"]["total"] == 250
    assert row["busy_time"] == sum(expected["busy_time"].values()) == 7
    assert row["rewards"] == [("process", 0.6), ("team", 1.0)]
    assert row["reward_critical_steps_ratio"] == 1.5 and row["reward_token_penalty"] == -0.25

    events = [r for r in read_table(local_tables, "events").to_pylist()
              if r["source"] == "corpus/small.json"]
    assert [e["id"] for e in events if e["critical"]] == expected["critical_path"]
    assert [e["position"] for e in events] == list(range(9))
    assert events[3] == {"source": "corpus/small.json", "position": 3, "id": "e4",
                         "type": "tool_call", "agent": "a", "role": None, "tool": "search",
                         "decision": None, "t": 2.0, "end": 4.0, "tokens": 50.0,
                         "cost_usd": 0.5, "reward": None, "critical": True}

    agents = {r["agent"]: r for r in read_table(local_tables, "agents").to_pylist()
              if r["source"] == "corpus/small.json"}
    assert agents["root"]["subtree_tokens"] == 250 and agents["root"]["children"] == 2
    assert agents["a"]["parent"] == "root" and agents["a"]["busy_time"] == 2
    assert agents["search"]["acting"] is False


def test_credit_rows_hold_every_unit_and_method(corpus, local_tables):
    expected = replay(validate_file(corpus / "small.json").trace).to_dict()["credit"]
    rows = [r for r in read_table(local_tables, "credit").to_pylist()
            if r["source"] == "corpus/small.json"]
    for method in ("equal", "recorded"):
        for unit, summary in expected[method].items():
            shares = {r["item"]: r[method] for r in rows if r["unit"] == unit}
            assert shares == pytest.approx(summary["shares"]), (method, unit)
    loo = {r["item"]: r["leave_one_out"] for r in rows
           if r["unit"] == "agent" and r["leave_one_out"] is not None}
    assert loo == pytest.approx(expected["counterfactual"]["leave_one_out"])
    shapley = {r["item"]: r["shapley"] for r in rows
               if r["unit"] == "agent" and r["shapley"] is not None}
    assert shapley == pytest.approx(expected["counterfactual"]["shapley"])
    for unit, game in expected["counterfactual_units"]["units"].items():  # role, team: grouped
        found = {r["item"]: r["shapley"] for r in rows
                 if r["unit"] == unit and r["shapley"] is not None}
        assert found == pytest.approx(game["shapley"]), unit
    decisions = {r["item"]: r["subdecision"] for r in rows if r["unit"] == "orchestrator"}
    assert decisions == {"e1": "O1", "e2": "O1", "e3": "O1", "e9": "O4"}  # small.json's
    assert all(r["consumed"] for r in rows if r["unit"] == "agent")


def test_files_carry_no_time_and_a_fixed_writer(local_tables):
    for path in sorted(local_tables.rglob("*.parquet")):
        meta = pq.read_metadata(path)
        assert meta.created_by.startswith("parquet-cpp-arrow version ")
        assert set(meta.metadata) == {b"ARROW:schema", b"masrl.table", b"masrl.corpus_schema"}
        assert meta.metadata[b"masrl.table"].decode() == path.parent.name


FORKSERVER_BY_DEFAULT = """
import multiprocessing, sys
multiprocessing.set_start_method("forkserver")  # Python 3.14's default on Linux
from masrl.commands import main
sys.exit(main(["corpus", sys.argv[1], "-o", sys.argv[2], "--shard-size", "4",
               "--workers", "2"]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux")
def test_workers_are_forked_whatever_the_default_start_method(corpus, tmp_path, local_tables):
    """Where Python starts processes with a forkserver by default, the workers are still forked
    from the command (a forkserver's worker is not its child, and imports everything again):
    the run succeeds and writes the same bytes."""
    out = tmp_path / "forkserver-default"
    done = subprocess.run([sys.executable, "-c", FORKSERVER_BY_DEFAULT, str(corpus), str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr  # invalid and unreadable traces: exit 1, not 3
    assert tree_bytes(out) == tree_bytes(local_tables)


def test_no_more_workers_start_than_there_are_shards(corpus, monkeypatch):
    """A corpus of one shard starts one worker, whatever was asked; nothing left to do starts
    none."""
    from masrl.traces.corpus import engine, sources

    started = []

    class Counted(engine.ProcessPoolExecutor):
        def __init__(self, max_workers, **options):
            started.append(max_workers)
            super().__init__(max_workers, **options)

    monkeypatch.setattr(engine, "ProcessPoolExecutor", Counted)
    plan = sources.shards(sources.trace_sources(sources.find([corpus]).files), 1000)
    outputs = []
    engine.run_local(plan, outputs.append, 4)
    assert len(plan) == 1 and started == [1]
    assert outputs[0].traces == len(plan[0].sources)
    engine.run_local([], outputs.append, 4)
    assert started == [1] and len(outputs) == 1


def test_the_summary_counts_the_workers_started_not_asked(corpus, tmp_path):
    """One shard to write: one worker starts, and the summary says one, not the two asked; a
    run resumed with nothing left starts none and says so."""
    from masrl.traces.corpus import build

    out = tmp_path / "out"
    assert build([corpus], out, workers=2).workers == 1
    again = build([corpus], out, workers=2)
    assert again.resumed == again.shards and again.workers == 0


FIRST_SHARD_IMPORTS = """
import sys
from masrl.traces.corpus import engine, sources
from masrl.traces.corpus.shard import encode_shard
plan = sources.shards(sources.trace_sources(sources.find([sys.argv[1]]).files), 1000)
if sys.argv[2] == "loaded":
    engine.load_before_forking()
engine.worker_start()
before = set(sys.modules)
encode_shard(plan[0])
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_workers_inherit_what_they_would_load_on_their_first_shard(corpus):
    """After :func:`load_before_forking`, a worker's first shard (valid, invalid and unreadable
    traces) imports nothing more: each forked worker would otherwise import it again."""
    def imported(kind: str) -> set[str]:
        done = subprocess.run([sys.executable, "-c", FIRST_SHARD_IMPORTS, str(corpus), kind],
                              capture_output=True, text=True, check=True)
        return set(done.stdout.split())

    assert {"numpy.ma", "pyarrow.compute"} <= imported("plain")
    assert imported("loaded") == set()
