"""The Who&When paper's published accuracies (``data/who_and_when_published.yaml``, loaded by
:mod:`masrl.data.who_and_when_published`) and what the logs say about them.

Two checks need nothing but the published numbers and the logs (definitions quoted by the
book):

* **The Random row, recomputed**: :func:`random_comparison` sets each published Random figure
  beside the expected accuracy computed exactly from the logs
  (:mod:`.baselines`, both candidate sets), and names any other cell of the published row that
  our value equals (a sign of two cells exchanged).
* **Whole numbers of logs**: an accuracy over the N logs of a subset is k/N for a whole number k
  of correct logs. :func:`fractions` tests every published figure of the methods (not Random,
  an expectation) for the subset's N: a figure is *whole* when some k gives ``round(100 k / N, 2)``
  equal to it, and otherwise lists the nearby log counts (N - 5 to N + 5) for which it would be.
"""

from __future__ import annotations

import pandas as pd

from masrl.data.who_and_when_published import Published
from masrl.traces.attribution import baselines
from masrl.traces.attribution.gold import SUBSETS, Run, by_subset

LEVELS = ("agent", "step")
NEAR = 5  # log counts either side of N tried by :func:`fractions`


def table(published: Published) -> pd.DataFrame:
    """One row per published figure: method, label, level, subset, accuracy (percent)."""
    return pd.DataFrame([
        {"method": key, "label": method.label, "level": level, "subset": subset,
         "accuracy": getattr(method, level)[subset]}
        for key, method in published.methods.items() for level in LEVELS for subset in SUBSETS])


def wide(published: Published) -> pd.DataFrame:
    """The published table as the paper lays it out: one row per method, a column per level
    and subset."""
    rows = []
    for method in published.methods.values():
        row = {"method": method.label}
        for level in LEVELS:
            for subset in SUBSETS:
                row[f"{level}-level, {subset}"] = getattr(method, level)[subset]
        rows.append(row)
    return pd.DataFrame(rows).set_index("method")


def percent(value: float) -> float:
    """A share (0-1) as a percentage with two decimals, as the paper prints it."""
    return round(100 * value, 2)


def random_ours(runs: list[Run]) -> dict[tuple[str, str, str], float]:
    """``(method, level, subset) -> expected accuracy (percent, two decimals)`` of the two Random
    baselines over ``runs``."""
    found = {}
    for method in baselines.RANDOM:
        for subset, part in by_subset(runs).items():
            means = baselines.random_values(part, method).mean(axis=0)
            for j, level in enumerate(LEVELS):
                found[(method, level, subset)] = percent(float(means[j]))
    return found


def random_definitions(runs: list[Run]) -> pd.DataFrame:
    """The Random baseline's expected agent-level accuracy (percent) per subset under each way
    of counting a run's candidate agents C (mean over runs of 1/|C|, or of [gold in C]/|C| for
    the exact variant): the speakers as the paper's code lists them, the agents with the human,
    the agents without the human, and the latter with the label spelled exactly."""
    definitions = {
        "speakers, as the paper's code lists them": lambda r: 1 / len(r.speakers),
        "agents, the human included": lambda r: 1 / len(
            {s.agent for s in r.steps}),
        "agents, the human left out": lambda r: 1 / len(r.agents),
        "agents, the human left out, label spelled exactly":
            lambda r: (r.gold_agent in r.agents) / len(r.agents),
    }
    rows = []
    for name, expect in definitions.items():
        row = {"candidate agents of a run": name}
        for subset, part in by_subset(runs).items():
            row[subset] = percent(sum(expect(r) for r in part) / len(part))
        rows.append(row)
    return pd.DataFrame(rows).set_index("candidate agents of a run")


def random_comparison(runs: list[Run], published: Published) -> pd.DataFrame:
    """Each published Random figure beside our exact values (module docstring): ``published``,
    ``as the paper counts`` (method ``random``), ``over the run's agents`` (``random-agents``),
    whether the first equals the published figure, and which published cell it equals instead."""
    ours = random_ours(runs)
    row = published.methods["random"]
    cells = {(level, subset): getattr(row, level)[subset] for level in LEVELS for subset in SUBSETS}
    rows = []
    for (level, subset), value in cells.items():
        if ("random", level, subset) not in ours:
            continue
        counted = ours[("random", level, subset)]
        elsewhere = [f"{lv}-level, {sb}" for (lv, sb), v in cells.items()
                     if (lv, sb) != (level, subset) and v == counted]
        rows.append({"level": level, "subset": subset, "published": value,
                     "as the paper counts": counted,
                     "over the run's agents": ours[("random-agents", level, subset)],
                     "equal": counted == value,
                     "our value is published at": ", ".join(elsewhere)})
    return pd.DataFrame(rows)


def whole(value: float, logs: int) -> int | None:
    """The whole number k of correct logs with ``round(100 k / logs, 2) == value``, if any."""
    k = round(value * logs / 100)
    return k if 0 <= k <= logs and abs(round(100 * k / logs, 2) - value) < 1e-9 else None


def fractions(published: Published) -> pd.DataFrame:
    """Every published method figure (Random left out) tested for a whole number of correct logs
    out of its subset's log count (module docstring)."""
    rows = []
    for key, method in published.methods.items():
        if key == "random":
            continue
        for level in LEVELS:
            for subset in SUBSETS:
                value, logs = getattr(method, level)[subset], published.logs[subset]
                k = whole(value, logs)
                near = [n for n in range(logs - NEAR, logs + NEAR + 1)
                        if n != logs and whole(value, n) is not None]
                rows.append({"method": method.label, "level": level, "subset": subset,
                             "published": value, "logs": logs,
                             "correct logs": "" if k is None else f"{k} of {logs}",
                             "whole": k is not None,
                             "whole for": ", ".join(f"{whole(value, n)} of {n}" for n in near)})
    return pd.DataFrame(rows)


def fractions_off(published: Published, subset: str) -> list[str]:
    """``method/level`` of the figures of one subset that are no whole number of its logs."""
    frame = fractions(published)
    off = frame[(frame["subset"] == subset) & ~frame["whole"]]
    keys = {m.label: k for k, m in published.methods.items()}
    return [f"{keys[r.method]}/{r.level}" for r in off.itertuples()]
