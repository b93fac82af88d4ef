"""Views of counterfactual credit on the worked example (values known by construction, see
tests/traces/test_counterfactual_credit.py), and the text readers see escaped."""

from __future__ import annotations

import math

import pytest
from trace_helpers import replayed

from masrl.presentation import charts
from masrl.presentation import credit_views as views
from masrl.traces.synthetic import counterfactual_example


@pytest.fixture(scope="module")
def example():
    return replayed(counterfactual_example())


def test_players_frame_orders_by_shapley_and_says_what_each_player_is(example):
    frame = views.players_frame(example)
    assert list(frame.index) == ["m_fix", "m_plan", "d_delegate", "m_style", "d_stop"]
    assert frame.loc["d_stop", "kind"] == "orchestrator_decision stop (O5)"
    assert frame.loc["d_stop", "changed as"] == "stopped_later"
    assert frame.loc["m_style", "consumed"] == "no: zero by construction"
    assert frame.loc["m_fix", "Shapley"] == pytest.approx(0.5)


def test_units_frame_lists_players_and_zeros_only(example):
    frame = views.units_frame(example)
    assert frame.loc[("orchestrator", "d_stop"), "sub-decision"] == "O5"
    assert frame.loc[("orchestrator", "s_reviewer"), "status"] == "zero by construction"
    assert ("orchestrator", "d_spawn") not in frame.index  # no rollout changed it
    assert frame.loc[("agent", "lead"), "leave-one-out"] == pytest.approx(-0.15)


def test_rollouts_and_figures(example):
    rollouts = views.rollouts_frame(example)
    assert len(rollouts) == 32 and rollouts.loc["change d_stop", "reward"] == pytest.approx(0.85)
    figures = views.example_figures(example)
    assert (figures["worst_orchestrator"], figures["worst_agent"]) == ("d_stop", "lead")
    assert figures["shapley_sum"] == pytest.approx(0.55)
    assert figures["zero_orchestrator"] == "s_reviewer"


def test_the_chart_describes_every_player(example):
    chart = views.credit_chart(views.players_frame(example), title="credit")
    description = chart.to_dict()["description"]
    assert "m_fix +0.4 and +0.5" in description and "d_stop -0.2 and -0.1" in description
    assert "<svg" in charts.show(chart)._repr_html_()


def test_a_trace_without_rollouts_gives_empty_frames():
    document = counterfactual_example()
    del document["counterfactuals"]
    plain = replayed(document)
    assert views.players_frame(plain).empty and views.units_frame(plain).empty
    assert math.isnan(views._value(None, "x"))
