"""The failure-attribution chapter's figures, on small frames shaped like the computations'."""

from __future__ import annotations

import pandas as pd

from masrl.presentation import attribution_views as views


def comparison(rows):
    return pd.DataFrame(rows, columns=["level", "subset", "published", "as the paper counts"])


def test_two_cells_that_hold_each_others_values_are_exchanged():
    swapped = comparison([("agent", "hand-crafted", 12.0, 19.06),
                          ("step", "algorithm-generated", 19.06, 12.0)])
    assert views.exchanged(swapped)
    other = comparison([("agent", "hand-crafted", 12.0, 19.06),
                        ("step", "algorithm-generated", 19.0, 12.0)])
    assert not views.exchanged(other)
    assert not views.exchanged(swapped.iloc[:1])


def test_rule_figures_name_each_cell():
    best = pd.DataFrame([
        {"level": "agent", "subset": "hand-crafted", "best published": "A 50.00",
         "best rule": "r 55.00 [40.00, 70.00]", "difference": 5.0,
         "published inside the rule's interval": True},
        {"level": "step", "subset": "algorithm-generated", "best published": "B 20.00",
         "best rule": "s 10.00 [5.00, 15.00]", "difference": -10.0,
         "published inside the rule's interval": False}])
    figures = views.rule_figures(best)
    assert figures["best_rule_agent_hand_crafted"] == "r 55.00 [40.00, 70.00]"
    assert figures["best_pub_step_algorithm_generated"] == "B 20.00"
    assert (figures["n_rule_ahead"], figures["n_outside_interval"]) == (1, 1)
