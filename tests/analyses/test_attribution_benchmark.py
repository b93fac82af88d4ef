"""The benchmark's structure and the comparison tables of the chapter, on the fixture logs."""

from __future__ import annotations

import pandas as pd
import pytest

from masrl.analyses import attribution_benchmark as benchmark
from masrl.data.dataset import Dataset
from masrl.presentation import attribution_charts, charts
from masrl.traces.attribution import baselines, gold


@pytest.fixture
def runs(gold_dir):
    return gold.load_gold(gold_dir)


def test_structure(runs):
    table = benchmark.structure(runs)
    ag = table.loc["Algorithm-Generated (CaptainAgent)"]
    hc = table.loc["Hand-Crafted (Magentic-One)"]
    assert (ag["logs"], ag["steps per run"], ag["agents per run"]) == (2, "4.5 [4-5]", "3 [3-3]")
    assert (hc["logs"], hc["steps per run"], hc["agents per run"]) == (3, "6 [5-8]", "2 [2-3]")
    assert hc["speakers per run (the paper's count)"] == "5 [4-7]"
    assert hc["orchestrator steps"] == f"{12 / 19:.0%}"  # 4 + 5 + 3 of 6 + 8 + 5 steps
    assert ag["orchestrator steps"] == "0%"
    assert hc["labelled agents"] == ("3 distinct; most often WebSurfer 1, Orchestrator 1, "
                                     "Websurfer 1")


def test_where_mistakes_fall(runs):
    table = benchmark.mistakes(runs).set_index("id")
    assert table.loc["hand-crafted/2", "relative position"] == 2 / 8
    assert table.loc["hand-crafted/2", "step type"] == "orchestrator_decision"
    assert table["spoken by another agent"].to_dict() == {
        "algorithm-generated/1": False, "algorithm-generated/2": False, "hand-crafted/1": False,
        "hand-crafted/2": False, "hand-crafted/10": True}
    summary = benchmark.mistake_summary(benchmark.mistakes(runs))
    hc = summary.loc["Hand-Crafted (Magentic-One)"]
    assert (hc["at an orchestrator decision"], hc["blamed on an orchestrator"],
            hc["labelled step spoken by another agent"], hc["labelled agent outside the run"],
            hc["those runs"]) == (1, 1, 1, 1, "hand-crafted/10")
    assert hc["median relative position"] == round(4 / 6, 2)  # 4/6, 2/8, 4/5
    ag = summary.loc["Algorithm-Generated (CaptainAgent)"]
    median = round((1 / 4 + 3 / 5) / 2, 2)  # 1/4 and 3/5
    assert (ag["median relative position"], ag["in the first half"]) == (median, "50%")


def test_scores_table_and_the_comparison_with_the_published_methods(runs):
    results = baselines.evaluate(runs, ("random", "first-failed-execution", "last-agent"))
    table = benchmark.scores_table(results)
    assert table.loc[("first-failed-execution", "algorithm-generated"),
                     "agent-level % [95% interval]"] == "100.00 [100.00, 100.00]"
    frame = benchmark.against_published(results, Dataset().who_and_when_published)
    assert set(frame["kind"]) == {"published", "baseline (ours)"}
    assert len(frame[frame["kind"] == "published"]) == 12  # 3 methods x 2 levels x 2 subsets
    best = benchmark.beaten(frame).set_index(["level", "subset"])
    row = best.loc[("step", "algorithm-generated")]
    assert row["best published"] == "Step-by-Step (GPT-4o) 25.51"
    assert row["best rule"] == "first-failed-execution 100.00 [100.00, 100.00]"
    assert (row["difference"], row["published inside the rule's interval"]) == (74.49, False)
    random_rows = frame[frame["method"] == "random"]
    assert not random_rows.empty and "random" not in set(best["best rule"].str.split().str[0])


def test_charts_say_what_they_show(runs):
    chart = charts.show(attribution_charts.position_chart(benchmark.mistakes(runs)))
    assert chart.title == "Where the labelled mistake falls"
    assert "Hand-Crafted (Magentic-One): median 0.67 over 3 runs" in chart.description
    results = baselines.evaluate(runs, ("first-agent",))
    figure = charts.show(attribution_charts.accuracy_chart(
        benchmark.against_published(results, Dataset().who_and_when_published)))
    assert "step-level hand-crafted: best published Step-by-Step (GPT-4o) 7.02, best rule " \
           "first-agent 33.33 [0.00, 100.00]" in figure.description
    assert figure.svg.startswith("<svg")


def test_scores_frame_is_long(runs):
    frame = benchmark.scores_frame(baselines.evaluate(runs, ("last-agent",)))
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["method", "subset", "level", "accuracy", "low", "high",
                                   "correct", "logs"]
    assert len(frame) == 4
