"""The Who&When benchmark as orchestration traces: its size, its agents and steps, where the
labelled mistakes fall, and how the baselines compare with the published methods.

Everything is computed from the imported traces (:mod:`.gold`): structure, counts and labels,
never message text. Definitions (quoted by the book), per run of $n$ steps labelled at step $k$:

* *relative position* of the mistake: $(k + 1) / n$, so 1 is the last step (as in the real-runs
  chapter);
* *labelled step spoken by another agent*: the agent of step $k$ is not the labelled agent;
* *labelled agent outside the run*: the labelled agent, spelled exactly, is none of the run's
  agents, so no prediction that names an agent of the run can be right on it;
* *at an orchestrator decision*: step $k$ is an ``orchestrator_decision`` event (hand-crafted runs
  only: a CaptainAgent chat has no orchestrator in its log).
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from masrl.analyses.attribution_published import LEVELS, percent
from masrl.data.who_and_when_published import Published
from masrl.traces.attribution.gold import SUBSET_LABELS, SUBSETS, Run, by_subset
from masrl.traces.attribution.scoring import Score


def _range(values: list[float]) -> str:
    series = pd.Series(values)
    median = series.median()
    shown = f"{median:.0f}" if float(median).is_integer() else f"{median:.1f}"
    return f"{shown} [{series.min():g}-{series.max():g}]"


def structure(runs: list[Run]) -> pd.DataFrame:
    """Per subset: logs, steps, agents and speakers per run (median [min-max]), the share of
    steps taken by an orchestrator, and the labelled agents."""
    rows = []
    for subset, part in by_subset(runs).items():
        steps = [s for r in part for s in r.steps]
        orchestrated = sum(s.agent in r.orchestrators for r in part for s in r.steps)
        labelled = Counter(r.gold_agent for r in part)
        top = ", ".join(f"{name} {n}" for name, n in labelled.most_common(3))
        rows.append({
            "subset": SUBSET_LABELS[subset],
            "logs": len(part),
            "steps per run": _range([r.n_steps for r in part]),
            "agents per run": _range([len(r.agents) for r in part]),
            "speakers per run (the paper's count)": _range([len(r.speakers) for r in part]),
            "orchestrator steps": f"{orchestrated / len(steps):.0%}",
            "labelled agents": f"{len(labelled)} distinct; most often {top}",
        })
    return pd.DataFrame(rows).set_index("subset")


def mistakes(runs: list[Run]) -> pd.DataFrame:
    """One row per run: where its labelled mistake falls and who acts there."""
    return pd.DataFrame([{
        "id": r.id, "subset": r.subset, "steps": r.n_steps, "mistake step": r.gold_step,
        "relative position": (r.gold_step + 1) / r.n_steps,
        "labelled agent": r.gold_agent, "acting agent": r.gold_actor,
        "step type": r.steps[r.gold_step].type,
        "labelled agent is an orchestrator": r.gold_agent in r.orchestrators,
        "spoken by another agent": r.gold_actor != r.gold_agent,
        "labelled agent outside the run": r.gold_agent not in r.agents,
    } for r in runs])


def mistake_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per subset: median relative position, shares in the first half and tenth, at an
    orchestrator decision and blamed on an orchestrator, and the runs whose labelled step is
    spoken by another agent or whose labelled agent is outside the run (ids listed)."""
    rows = []
    for subset in SUBSETS:
        part = table[table["subset"] == subset]
        if part.empty:
            continue
        other = part[part["spoken by another agent"]]
        outside = part[part["labelled agent outside the run"]]
        rows.append({
            "subset": SUBSET_LABELS[subset],
            "median relative position": round(float(part["relative position"].median()), 2),
            "in the first half": f"{(part['relative position'] <= 0.5).mean():.0%}",
            "in the first tenth": f"{(part['relative position'] <= 0.1).mean():.0%}",
            "at an orchestrator decision":
                int((part["step type"] == "orchestrator_decision").sum()),
            "blamed on an orchestrator": int(part["labelled agent is an orchestrator"].sum()),
            "labelled step spoken by another agent": len(other),
            "labelled agent outside the run": len(outside),
            "those runs": ", ".join(sorted(set(other["id"]) | set(outside["id"]),
                                           key=lambda i: (len(i), i))),
        })
    return pd.DataFrame(rows).set_index("subset")


# ---------------------------------------------------------------------------------- methods

def scores_frame(results: dict[str, dict[str, Score]]) -> pd.DataFrame:
    """Method -> subset -> Score as long rows: method, subset, level, accuracy and interval
    (percent), correct logs (expected for Random)."""
    rows = []
    for method, scores in results.items():
        for subset, sc in scores.items():
            for level in LEVELS:
                lv = getattr(sc, level)
                rows.append({"method": method, "subset": subset, "level": level,
                             "accuracy": percent(lv.accuracy), "low": percent(lv.interval[0]),
                             "high": percent(lv.interval[1]), "correct": lv.correct,
                             "logs": lv.logs})
    return pd.DataFrame(rows)


def scores_table(results: dict[str, dict[str, Score]]) -> pd.DataFrame:
    """One row per method and subset: each level as ``accuracy [low, high]`` (percent)."""
    frame = scores_frame(results)
    frame["cell"] = [f"{r.accuracy:.2f} [{r.low:.2f}, {r.high:.2f}]" for r in frame.itertuples()]
    wide = frame.pivot_table(index=["method", "subset"], columns="level", values="cell",
                             aggfunc="first", sort=False)
    wide.columns = [f"{c}-level % [95% interval]" for c in wide.columns]
    return wide


def against_published(results: dict[str, dict[str, Score]], published: Published
                      ) -> pd.DataFrame:
    """Our baselines and the published methods in one long frame (percent): ``kind`` is
    ``published`` or ``baseline (ours)``; published rows have no interval."""
    ours = scores_frame(results).assign(kind="baseline (ours)")
    theirs = pd.DataFrame([
        {"method": m.label, "subset": subset, "level": level,
         "accuracy": getattr(m, level)[subset], "kind": "published"}
        for key, m in published.methods.items() if key != "random"
        for level in LEVELS for subset in SUBSETS])
    return pd.concat([ours, theirs], ignore_index=True)


def beaten(frame: pd.DataFrame) -> pd.DataFrame:
    """Per level and subset: the best published method and the best of our rules (Random left
    out), with our rule's interval and whether the published figure lies inside it."""
    rows = []
    for level in LEVELS:
        for subset in SUBSETS:
            cell = frame[(frame["level"] == level) & (frame["subset"] == subset)]
            if cell.empty:
                continue
            theirs = cell[cell["kind"] == "published"].sort_values("accuracy").iloc[-1]
            rules = cell[(cell["kind"] != "published") & ~cell["method"].str.startswith("random")]
            ours = rules.sort_values(["accuracy", "method"], ascending=[True, False]).iloc[-1]
            rows.append({"level": level, "subset": subset,
                         "best published": f"{theirs['method']} {theirs['accuracy']:.2f}",
                         "best rule": f"{ours['method']} {ours['accuracy']:.2f} "
                                      f"[{ours['low']:.2f}, {ours['high']:.2f}]",
                         "difference": round(ours["accuracy"] - theirs["accuracy"], 2),
                         "published inside the rule's interval":
                             bool(ours["low"] <= theirs["accuracy"] <= ours["high"])})
    return pd.DataFrame(rows)


