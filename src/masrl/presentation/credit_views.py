"""Counterfactual credit as readers see it: the players of a recorded game with their kind,
change and credit, the credit of every item at every unit, a chart of signed credit, and the
figures the counterfactual-credit chapter glues.

Builders return numeric frames (``NaN`` where a rule does not apply) that
:func:`masrl.presentation.trace_views.shown` formats; trace-supplied names reach the page only
through DataFrames and Altair, which escape them.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from masrl.analyses import attribution_benchmark as benchmark
from masrl.presentation import charts
from masrl.traces import credit as credit_rules
from masrl.traces.attribution import gold
from masrl.traces.attribution.scoring import Score
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay

RULES = {"leave_one_out": "leave-one-out", "shapley": "Shapley"}


def _kind(replay: Replay, event_id: str, tags: dict) -> str:
    events = replay.run.trace.events
    position = int(events.index.positions([event_id])[0])
    if position < 0:
        return "(not an event)"
    kind = EVENT_TYPES[events.types[position]]
    decision = credit_rules.decision_of(replay.run, position)
    if kind in credit_rules.ORCHESTRATION_TYPES:
        tag = tags.get(event_id)
        return f"{kind} {decision or ''} ({tag})".replace("  ", " ") if tag else kind
    return kind


def players_frame(replay: Replay) -> pd.DataFrame:
    """The recorded game's players: their event kind (with the sub-decision of an
    orchestration decision), how the rollouts change them, whether they are consumed, and
    their leave-one-out and Shapley credit; largest Shapley value first."""
    found = replay.credit["counterfactual"]
    columns = ["kind", "changed as", "consumed", *RULES.values()]
    if not found:
        return pd.DataFrame(columns=columns)
    tags = {d["event"]: d["subdecision"] for d in replay.credit["decisions"] or ()}
    zero = set(found["zero_by_construction"] or ())
    rows = []
    for player in found["players"]:
        event_level = found["unit"] in credit_rules.EVENT_UNITS
        rows.append({
            found["unit"]: player,
            "kind": _kind(replay, player, tags) if event_level else found["unit"],
            "changed as": found["interventions"][player],
            "consumed": "no: zero by construction" if player in zero else "yes",
            **{label: _value(found[rule], player) for rule, label in RULES.items()},
        })
    frame = pd.DataFrame(rows).set_index(found["unit"])
    return frame.sort_values(["Shapley", "leave-one-out"], ascending=False, kind="stable")


def _value(values: dict | None, key: str) -> float:
    return math.nan if values is None or key not in values else values[key]


def units_frame(replay: Replay) -> pd.DataFrame:
    """Every item of every unit a counterfactual game reaches: its sub-decision (orchestrator
    items), whether it plays, and its leave-one-out and Shapley credit (NaN where it is not
    measured: no player event of it was changed)."""
    found = replay.credit["counterfactual_units"]
    if not found:
        return pd.DataFrame(columns=["unit", "item", "sub-decision", "status", *RULES.values()])
    tags = {d["event"]: d["subdecision"] for d in replay.credit["decisions"] or ()}
    rows = []
    for unit, game in found["units"].items():
        names, _, _ = credit_rules.items(replay.run, unit)
        playing, zero = set(game["players"] or ()), set(game["zero_by_construction"] or ())
        for name in names:
            if name not in playing and name not in zero:
                continue
            rows.append({"unit": unit, "item": name, "sub-decision": tags.get(name, ""),
                         "status": "player" if name in playing else "zero by construction",
                         **{label: _value(game[rule], name) for rule, label in RULES.items()}})
    return pd.DataFrame(rows).set_index(["unit", "item"])


def rollouts_frame(replay: Replay) -> pd.DataFrame:
    """The recorded rollouts: their id, the players they change and the outcome that
    followed."""
    spec = replay.run.trace.head.get("counterfactuals") or {"outcomes": []}
    rows = [{"rollout": o.get("id", f"outcomes[{k}]"),
             "changed": ", ".join(c["player"] for c in o["changed"]) if "changed" in o
             else "all but " + (", ".join(o["coalition"]) or "nobody"),
             "reward": o["reward"], "runs": o.get("runs", math.nan)}
            for k, o in enumerate(spec["outcomes"])]
    return pd.DataFrame(rows, columns=["rollout", "changed", "reward", "runs"]).set_index(
        "rollout")


def credit_chart(frame: pd.DataFrame, *, title: str) -> alt.Chart:
    """Horizontal bars of signed credit per player (a :func:`players_frame`), one panel per
    rule, zero marked."""
    long = (frame[list(RULES.values())].rename_axis("player").reset_index()
            .melt(id_vars="player", var_name="rule", value_name="credit"))
    order = list(frame.index)
    panels = []
    for label in RULES.values():
        base = alt.Chart(long[long["rule"] == label]).encode(
            y=alt.Y("player:N", sort=order, title=None),
            x=alt.X("credit:Q", title=f"{label} credit"),
            color=alt.condition("datum.credit < 0", alt.value(charts.OKABE_ITO[3]),
                                alt.value(charts.OKABE_ITO[0])),
        )
        zero = base.mark_rule(color="#000000").encode(x=alt.datum(0))
        panels.append(alt.layer(base.mark_bar(), zero).properties(width=240))
    layered = alt.hconcat(*panels)
    description = ("Bar chart of counterfactual credit per player, leave-one-out and Shapley: "
                   + "; ".join(f"{p} {r['leave-one-out']:+.3g} and {r['Shapley']:+.3g}"
                               for p, r in frame.iterrows()))
    return charts.finish(layered, title, description)


# ---------------------------------------------------------------------------------- figures

def example_formula(terms: dict[str, float]) -> str:
    """The worked example's success rate as LaTeX, from
    :func:`masrl.traces.synthetic.example_terms`: ``v = base + plan P + delegate D + fix F +
    fix_later F (1 - T)``."""
    return (f"v = {terms['base']:.2f} + {terms['plan']:.2f}\\,P + {terms['delegate']:.2f}\\,D"
            f" + {terms['fix']:.2f}\\,F + {terms['fix_later']:.2f}\\,F\\,(1 - T)")


def example_figures(replay: Replay) -> dict[str, float | str | int]:
    """What the chapter quotes of the worked example: each player's two credits
    (``loo_PLAYER``, ``shapley_PLAYER``), their Shapley sum, v(N) and v(empty), and the
    items the orchestrator and agent games rank last."""
    found = replay.credit["counterfactual"]
    figures: dict[str, float | str | int] = {}
    for rule, key in (("leave_one_out", "loo"), ("shapley", "shapley")):
        for player, value in found[rule].items():
            figures[f"{key}_{player}"] = value
    figures["shapley_sum"] = round(sum(found["shapley"].values()), 12)
    figures["n_players"] = len(found["players"])
    figures["n_rollouts"] = len(replay.run.trace.head["counterfactuals"]["outcomes"])
    figures["zero_players"] = ", ".join(found["zero_by_construction"])
    units = replay.credit["counterfactual_units"]["units"]
    for unit in ("orchestrator", "agent"):
        values = units[unit]["leave_one_out"]
        worst = min(values, key=lambda k: (values[k], k))
        figures[f"worst_{unit}"], figures[f"worst_{unit}_loo"] = worst, values[worst]
    for unit, game in units.items():
        figures[f"zero_{unit}"] = ", ".join(game["zero_by_construction"]) or "none"
    return figures


def attribution_table(method: str, scores: dict[str, Score],
                      baselines: dict[str, dict[str, Score]]) -> pd.DataFrame:
    """The counterfactual method beside the baselines, as the attribution chapter shows them
    (accuracy and 95% interval, percent, per level and subset)."""
    return benchmark.scores_table({method: scores, **baselines})


def attribution_figures(scores: dict[str, Score],
                        baselines: dict[str, dict[str, Score]]) -> dict[str, str | int]:
    """Per subset: the step-level accuracy with its interval (``step_SUBSET``), the labelled
    steps that got the most negative credit (``correct_SUBSET``) out of the logs
    (``logs_SUBSET``), and the baselines whose step and agent predictions score exactly the
    same (``same_SUBSET``)."""
    figures: dict[str, str | int] = {}
    for subset, score in scores.items():
        key = subset.replace("-", "_")
        step = score.step
        figures[f"step_{key}"] = (f"{100 * step.accuracy:.2f}% [{100 * step.interval[0]:.2f}, "
                                  f"{100 * step.interval[1]:.2f}]")
        figures[f"agent_{key}"] = f"{100 * score.agent.accuracy:.2f}%"
        figures[f"correct_{key}"] = int(step.correct)
        figures[f"logs_{key}"] = score.logs
        figures[f"label_{key}"] = gold.SUBSET_LABELS[subset]
        same = [name for name, found in baselines.items()
                if found[subset].step.correct == step.correct
                and found[subset].agent.correct == score.agent.correct]
        figures[f"same_{key}"] = ", ".join(same) or "none"
    return figures
