"""Presentation of replayed traces for the book's worked examples (chapter 21): the spawn tree
as text, the critical path, credit and the topologies side by side as pandas DataFrames, and the
figures the chapter's prose quotes. What the trace report shows too (the agents, the figures
in words, the critical path folded by agent, the timeline) is built once, in
:mod:`masrl.presentation.report`, and used from there.

Builders return numeric frames (``NaN`` where a value does not apply), so that tests and callers
can compute with them; :func:`shown` turns one into the strings a reader sees. Trace-supplied
text (agent names, ids, roles) is only ever placed in markup HTML-escaped: DataFrames escape
their cells, and :class:`Preformatted` escapes its lines itself.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from itertools import combinations, islice

import numpy as np
import pandas as pd

from masrl.presentation.report.agents import agent_kinds, agent_order  # noqa: F401 (re-exported)
from masrl.traces import credit, metrics
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay

NOT_APPLICABLE = "–"
NOT_RECORDED = "not recorded"  # a figure the trace cannot support (masrl.traces.recorded)


# ---------------------------------------------------------------------------------- agents

class Preformatted:
    """Lines of text (the spawn tree, a note) shown as escaped preformatted text in HTML."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f'<pre class="masrl-text">{html.escape(self.text)}</pre>'


MAX_DRAWN_DEPTH = 40


def spawn_tree(replay: Replay) -> Preformatted:
    """Each acting root with the agents it spawned below it (role, spawn event, time alive),
    then the tools on one line. Past :data:`MAX_DRAWN_DEPTH` levels the tree is not indented
    further (each line says its depth instead), so a chain thousands deep stays a page of text
    linear in its length rather than quadratic."""
    run = replay.run
    kinds = agent_kinds(run)

    def label(name: str) -> str:
        agent = run.agents[name]
        role = f" ({agent.role})" if agent.role else ""
        if agent.parent is None:
            return f"{name}{role}"
        end = "end of trace" if agent.ended_at is None else f"{agent.ended_at:g} s"
        return (f"{name}{role}: spawned by {agent.spawn_event} at {agent.spawned_at:g} s, "
                f"alive to {end}")

    lines: list[str] = []
    for root in run.roots:
        if kinds[root.name] == "tool":
            continue
        stack = [(root.name, "", True, True)]  # depth first, without recursion
        while stack:
            name, prefix, last, top = stack.pop()
            branch = "└── " if last else "├── "
            depth = run.agents[name].depth
            shown = f"[depth {depth}] " if depth > MAX_DRAWN_DEPTH else ""
            lines.append(label(name) if top else f"{prefix}{branch}{shown}{label(name)}")
            children = run.agents[name].children
            inner = "" if top else prefix + ("    " if last else "│   ")
            if depth >= MAX_DRAWN_DEPTH:  # a deeper tree is not indented further
                inner = prefix
            stack.extend((child, inner, k == len(children) - 1, False)
                         for k, child in reversed(list(enumerate(children))))
    tools = [name for name, kind in kinds.items() if kind == "tool"]
    if tools:
        lines.append("tools (never spawned, only answer calls): " + ", ".join(tools))
    return Preformatted(lines)


def critical_path_frame(replay: Replay) -> pd.DataFrame:
    """The events of the critical path in order: id, type, agent, start and end (in seconds;
    in steps, ``start (step)``, when the trace has no clock: :mod:`masrl.traces.recorded`)."""
    run = replay.run
    events = run.trace.events
    path = metrics.critical_path(run)
    times = {"start (s)": [float(events.start[i]) for i in path],
             "end (s)": [float(events.end[i]) for i in path]}
    if run.recorded.clock == "steps":  # start and end are the event's step
        times = {"start (step)": [int(events.start[i]) for i in path]}
    return pd.DataFrame({
        "event": [events.ids[i] for i in path],
        "type": [EVENT_TYPES[events.types[i]] for i in path],
        "agent": [events.agent(i) for i in path],
        **times,
    }, index=pd.RangeIndex(1, len(path) + 1, name="step"))


# ---------------------------------------------------------------------------------- credit

def credit_items_frame(replay: Replay, unit: str) -> pd.DataFrame:
    """Per item of ``unit``: its equal share and its recorded rewards, plus leave-one-out and
    Shapley credit when the trace's counterfactual players are of this unit."""
    run = replay.run
    recorded = credit.recorded(run, unit)
    equal = credit.equal(run, unit)
    frame = pd.DataFrame({
        "equal": [math.nan if equal is None else equal[name] for name in recorded],
        "recorded": list(recorded.values()),
    }, index=pd.Index(list(recorded), name=unit))
    found = replay.credit["counterfactual"]
    if found and found["unit"] == unit:
        frame = frame.reindex(list(dict.fromkeys([*frame.index, *found["players"]])))
        frame.index.name = unit
        for rule in ("leave_one_out", "shapley"):
            values = found[rule] or {}
            frame[rule.replace("_", "-")] = [values.get(name, math.nan) for name in frame.index]
    return frame


def coalitions_frame(replay: Replay, limit: int = 2 ** credit.MAX_EXACT_SHAPLEY_PLAYERS
                     ) -> pd.DataFrame:
    """The coalitions of the counterfactual players, smallest first, with their value v(S) and
    where that value comes from (empty frame without counterfactuals); at most ``limit`` rows
    (30 players have a billion coalitions)."""
    found = replay.credit["counterfactual"]
    columns = ["coalition", "size", "v(S)", "source"]
    if not found:
        return pd.DataFrame(columns=columns)
    values = credit.coalition_values(replay.run)
    recorded = {frozenset(o["coalition"])
                for o in replay.run.trace.head["counterfactuals"]["outcomes"]}
    players = found["players"]
    rows = []
    every = (members for size in range(len(players) + 1)
             for members in combinations(players, size))
    for members in islice(every, limit):
        key, size = frozenset(members), len(members)
        if key in recorded:
            source = "counterfactual outcome"
        elif key in values and size == len(players):
            source = f"recorded {found['channel']} reward"
        elif key in values:
            source = "assumed 0"
        else:
            source = "not recorded"
        rows.append({"coalition": " + ".join(members) or "(nobody)", "size": size,
                     "v(S)": values.get(key, math.nan), "source": source})
    return pd.DataFrame(rows, columns=columns).set_index("coalition")


# ---------------------------------------------------------------------------------- comparison

COMPARED = ["events", "critical_steps", "parallelism", "spawn_depth", "max_concurrency",
            "wall_clock", "speedup"]
# the unit a compared metric's header names, so that a bare number does not pass for a count
COMPARED_UNITS = {"wall_clock": "s"}


def comparison_frame(replays: Mapping[str, Replay]) -> pd.DataFrame:
    """One row per replayed trace, the headline metrics side by side (columns named as the
    metrics, with spaces for underscores so that headers can wrap)."""
    rows = []
    for name, replay in replays.items():
        found = replay.metrics
        row = {"trace": name, **{_compared_header(key): _or_not_recorded(found[key])
                                 for key in COMPARED}}
        row["tokens"] = _or_not_recorded(found["tokens"]["total"])
        row["team reward"] = _or_not_recorded(replay.credit["team_reward"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("trace")


def _compared_header(key: str) -> str:
    """A metric's column header: its name with spaces, and its unit when it has one."""
    unit = COMPARED_UNITS.get(key)
    return key.replace("_", " ") + (f" ({unit})" if unit else "")


# ---------------------------------------------------------------------------------- figures
# What a chapter's prose quotes of a replay: plain Python numbers and strings under the names
# the chapter glues (``myst_nb.glue``), computed here so that cells only glue them.

def headline_figures(replay: Replay) -> dict[str, int | float | str | None]:
    """The headline metrics of one replay (as :mod:`masrl.traces.metrics` defines them), total
    tokens, the team reward, the number of spawned agents and of tools (:func:`agent_kinds`),
    the spawned agents on the critical path (comma-separated, in path order), the recorded
    rewards credited to the team unit and, summed, to the agent unit, what the agent unit's
    recorded rewards leave unexplained (its residual) and the agents they go to
    (comma-separated, largest share first)."""
    found, run = replay.metrics, replay.run
    kinds = agent_kinds(run)
    on_path = dict.fromkeys(critical_path_frame(replay)["agent"])
    agents = replay.credit["recorded"]["agent"]
    values = {
        **{key: found[key] for key in ("events", "critical_steps", "parallelism", "spawn_depth",
                                       "max_concurrency", "wall_clock", "speedup")},
        "tokens": None if found["tokens"]["total"] is None else int(found["tokens"]["total"]),
        "team_reward": replay.credit["team_reward"],
        "spawned": sum(kind == "spawned" for kind in kinds.values()),
        "tools": sum(kind == "tool" for kind in kinds.values()),
        "path_spawned": ", ".join(a for a in on_path if kinds[a] == "spawned"),
        "recorded_team": replay.credit["recorded"]["team"]["total"],
        "recorded_agents": agents["total"],
        "recorded_agents_residual": agents["residual"],
        "recorded_agents_by": ", ".join(
            name for name, share in sorted((agents.get("shares") or {}).items(),
                                           key=lambda item: -item[1]) if share),
    }
    return {key: plain(value) for key, value in values.items()}


def extreme_figures(table: pd.DataFrame, columns: list[str]) -> dict[str, int | float | str]:
    """For each column of a comparison frame (:func:`comparison_frame`): its largest and
    smallest value (``top_COLUMN``, ``low_COLUMN``, spaces as underscores) and the rows that hold
    them (``top_COLUMN_name``, joined by "and")."""
    figures = {}
    for column in columns:
        key = column.replace(" ", "_")
        for end, value in (("top", table[column].max()), ("low", table[column].min())):
            figures[f"{end}_{key}_name"] = " and ".join(table.index[table[column] == value])
            figures[f"{end}_{key}"] = plain(value)
    return figures


def counterfactual_figures(replay: Replay, unit: str) -> dict[str, int | float]:
    """Counterfactual credit of the players of ``unit``: per player its Shapley value and its
    leave-one-out credit (``shapley_PLAYER``, ``loo_PLAYER``; NaN where the rule cannot be
    computed), their sums, and the coalitions recorded against those the Shapley value needs
    (the full team and the empty one counted)."""
    found = replay.credit["counterfactual"]
    if not found:
        return {}
    items = credit_items_frame(replay, unit)
    figures: dict[str, int | float] = {}
    for rule, key in (("shapley", "shapley"), ("leave-one-out", "loo")):
        column = items[rule] if rule in items else pd.Series(math.nan, index=items.index)
        for player in found["players"]:
            figures[f"{key}_{player}"] = plain(column.get(player, math.nan))
        figures[f"{key}_sum"] = plain(column[found["players"]].sum(min_count=1))
    figures["coalitions_recorded"] = found["coalitions_recorded"]
    figures["coalitions_needed"] = found["coalitions_needed"]
    return figures


# ---------------------------------------------------------------------------------- display

def number(value) -> str:
    """A value as a reader sees it: integers plainly, floats to six significant digits, ``–``
    for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_APPLICABLE
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def plain(value):
    """A NumPy scalar as the Python number it holds (what ``glue`` can format), else itself."""
    return value.item() if isinstance(value, np.generic) else value


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every cell formatted by :func:`number` (for display only)."""
    return frame.map(number)


# ---------------------------------------------------------------------------------- definitions

def _or_nan(value) -> float:
    return math.nan if value is None else value


def _or_not_recorded(value):
    """A replay's figure, or :data:`NOT_RECORDED` where the replay says the trace cannot
    support it (``None``)."""
    return NOT_RECORDED if value is None else value
