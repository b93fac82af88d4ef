"""The DuckDB views and queries of the book, and the cost estimate, on known inputs."""

from __future__ import annotations

import json

import pytest

from masrl.data import benchmark_results
from masrl.traces import corpus
from masrl.traces.corpus import estimate, queries
from masrl.traces.synthetic import write_training_run


def test_per_step_queries_count_what_the_run_holds(tmp_path):
    write_training_run(tmp_path / "run", steps=2, prompts=2, samples=3, broken_per_step=2)
    corpus.build([tmp_path / "run"], tmp_path / "out", workers=1)
    db = queries.connect(tmp_path / "out")
    per_step = db.sql(queries.PER_STEP).df()
    assert per_step["step"].tolist() == [0, 1]
    assert per_step["rollouts"].tolist() == [6, 6] and per_step["invalid"].tolist() == [2, 2]
    expected = db.sql("SELECT avg(team_reward) FROM traces WHERE file LIKE '%step-0001%'").fetchall()[0]
    assert per_step["success_rate"].iloc[1] == pytest.approx(expected[0])
    assert db.sql(queries.PROBLEMS).fetchall() == [("time-order", 4, 4)]
    shares = db.sql(queries.CREDIT_PER_STEP).df()
    assert (shares["equal_share_per_agent"] <= 1.0).all()


def test_connect_reads_a_folder_whose_name_has_a_quote(tmp_path):
    from trace_helpers import FIXTURES

    out = tmp_path / "it's"
    corpus.build([FIXTURES / "small.json"], out, workers=1)
    assert queries.connect(out).sql("SELECT count(*) FROM events").fetchall()[0] == (9,)


def test_analysis_cost_by_hand(tmp_path):
    figures = {"corpus_cpu_s": 1e-4, "corpus_bytes": 2_000, "events": 10,
               "parquet_bytes": {"traces": 5, "events": 15}}
    cost = estimate.analysis_cost(figures, events_per_trace=1_000, traces_per_step=3_600,
                                  steps=10, cores=4)
    assert cost["events_per_core_s"] == 100_000
    assert cost["core_hours_per_step"] == pytest.approx(3_600_000 / 100_000 / 3600)
    assert cost["core_hours_per_run"] == pytest.approx(0.1)
    assert cost["hours_per_run_on_cores"] == pytest.approx(0.025)
    assert cost["seconds_per_step_on_cores"] == pytest.approx(9.0)
    assert cost["input_gib_per_step"] == pytest.approx(3_600_000 * 200 / 2**30)
    assert cost["tables_gib_per_step"] == pytest.approx(3_600_000 * 2 / 2**30)


def test_recorded_benchmark_figures_are_read_and_checked(tmp_path):
    recorded = benchmark_results.corpus_results()
    assert recorded is not None and recorded["traces"] >= 1000
    assert recorded["ratio"] == pytest.approx(recorded["corpus_s"] / recorded["json_load_s"],
                                              rel=0.01)
    assert benchmark_results.corpus_results(tmp_path / "none.json") is None
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"traces": 1}), encoding="utf-8")
    with pytest.raises(ValueError, match="partial.json: missing corpus_bytes, corpus_cpu_s"):
        benchmark_results.corpus_results(partial)


def test_the_per_step_chart_has_one_panel_per_metric_and_a_text_alternative():
    import pandas as pd

    from masrl.presentation import corpus_charts as charts

    frame = pd.DataFrame({"step": [0, 1], "success_rate": [0.25, 0.5], "sub_agents": [1.0, 2.0],
                          "parallelism": [1.0, 1.5], "tokens": [100.0, 250.0]})
    spec = charts.per_step(frame, title="run").to_dict()
    assert spec["facet"]["field"] == "metric" and spec["columns"] == 2
    assert spec["description"].startswith("success rate (mean team reward): 0.25, 0.5;")
    assert spec["description"].endswith("(steps 0, 1)")
    (rows,) = spec["datasets"].values()
    assert len(rows) == 8 and sorted(rows[0]) == ["metric", "step", "value"]
