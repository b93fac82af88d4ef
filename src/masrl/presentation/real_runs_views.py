"""What the real-runs chapter shows of :mod:`masrl.analyses.real_runs`: the figures its prose
quotes (each a name for ``myst_nb.glue`` and its value as a reader sees it), its tables
formatted for reading, and the citation of each source.

Every figure is computed here, from the tables of :mod:`masrl.analyses.real_runs`; the chapter
only glues them. Figures per source are named after the source's ``key`` in
``data/log_sources.csv`` (``n_claude-code``, ``skipped_claude-code``...), so that no source is
named in code.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd

from masrl.analyses import real_runs
from masrl.analyses.real_runs import Imported, Source
from masrl.data.vocabulary import Vocabulary
from masrl.presentation.trace_views import NOT_RECORDED


class SourceList:
    """The sources as a list with links, for citing them; every value is escaped."""

    def __init__(self, sources: Iterable[Source]):
        self.sources = list(sources)

    def __repr__(self) -> str:
        return "\n".join(f"- {s.label}: {s.reference}; {s.origin} <{s.url}>, licence {s.licence}."
                         for s in self.sources)

    def _repr_html_(self) -> str:
        items = "".join(
            f"<li><strong>{html.escape(s.label)}</strong>: {html.escape(s.reference)}; "
            f'<a href="{html.escape(s.url, quote=True)}" rel="noopener">'
            f"<code>{html.escape(s.origin)}</code></a>, licence {html.escape(s.licence)}.</li>"
            for s in self.sources)
        return f'<ul class="masrl-sources">{items}</ul>'


def import_figures(items: list[Imported], sources: Iterable[Source]) -> dict[str, int | str]:
    """Logs found, imported and not; files read; validation warnings; per source its logs
    (``n_KEY``), the records its importer skipped (``skipped_KEY``) and the events it repaired
    (``repaired_KEY``); and whether the traces' own provenance repeats those counts."""
    sources = list(sources)
    account = real_runs.account(items, sources).set_index("source")
    figures: dict[str, int | str] = {
        "n_logs": len(items),
        "n_imported": sum(i.ok for i in items),
        "n_failed": sum(not i.ok for i in items),
        "n_files": int(account["files read"].sum()),
        "n_warnings": sum(len(i.warnings) for i in items),
        "n_with_provenance": int(real_runs.carried(items)["traces"].sum()),
        "provenance_agreement": ("equal to" if real_runs.carried_agrees(items, sources)
                                 else "different from"),
    }
    for source in sources:
        row = account.loc[source.label]
        figures[f"n_{source.key}"] = int(row["logs"])
        figures[f"imported_{source.key}"] = int(row["imported"])
        figures[f"skipped_{source.key}"] = int(row["records skipped"])
        figures[f"repaired_{source.key}"] = int(row["events repaired"])
    return figures


def shape_figures(table: pd.DataFrame) -> dict[str, int | str]:
    """Runs; pure chains (parallelism exactly 1); the largest parallelism, spawn depth and
    concurrency over all runs; the sources that hold a run with parallelism above 1."""
    branching = set(table.loc[table["parallelism"] > 1, "source"])
    return {
        "n_runs": len(table),
        "n_sequential": int((table["parallelism"] == 1).sum()),
        "max_parallelism": f"{table['parallelism'].max():.2f}",
        "max_depth": int(table["spawn depth"].max()),
        "max_concurrency": int(table["max concurrency"].max()),
        "branching_sources": ", ".join(label for label in dict.fromkeys(table["source"])
                                       if label in branching),
    }


def delegation_figures(delegated: pd.DataFrame) -> dict[str, int | str]:
    """All delegations, the addressees, and the most delegated-to agent with its share of the
    delegations and the number of runs in which it is delegated to."""
    top = delegated.iloc[0]
    return {
        "delegations": int(delegated["delegations"].sum()),
        "n_addressees": len(delegated),
        "top_addressee": top["agent"],
        "top_share": f"{top['share']:.0%}",
        "top_runs": int(top["runs"]),
    }


def mistake_figures(mistaken: pd.DataFrame, sources: Iterable[Source]) -> dict[str, str]:
    """Per labelled source (``KEY``): the median relative position of the labelled mistake
    (``mistake_median_KEY``), the share of runs that go wrong in their first half
    (``first_half_KEY``) and at an orchestrator decision (``at_decision_KEY``); over all runs,
    the share in which the labelled agent is the agent acting at the labelled step."""
    summary = real_runs.mistake_summary(mistaken).set_index("source")
    figures = {"label_matches":
               f"{(mistaken['labelled agent'] == mistaken['acting agent']).mean():.0%}"}
    for source in sources:
        if source.label not in summary.index:
            continue
        row = summary.loc[source.label]
        figures[f"mistake_median_{source.key}"] = f"{row['median relative position']:.2f}"
        figures[f"first_half_{source.key}"] = f"{row['in the first half']:.0%}"
        figures[f"at_decision_{source.key}"] = f"{row['at an orchestrator decision']:.0%}"
    return figures


def mistake_summary_shown(mistaken: pd.DataFrame) -> pd.DataFrame:
    """:func:`masrl.analyses.real_runs.mistake_summary` as a reader sees it: positions to two
    decimals, shares as percentages."""
    shown = real_runs.mistake_summary(mistaken).set_index("source")
    shown["median relative position"] = shown["median relative position"].map("{:.2f}".format)
    for column in ("in the first half", "in the first tenth", "at an orchestrator decision"):
        shown[column] = shown[column].map("{:.0%}".format)
    return shown


def subagent_figures(subs: pd.DataFrame, shares: pd.DataFrame,
                     runs: pd.DataFrame) -> dict[str, int | str]:
    """Over the sessions of one source (``runs`` are its rows of the runs table): sessions,
    sessions with Task sub-agents, Task sub-agents, compactions, the smallest and largest share
    of a session's tokens spent by its Task sub-agents, events of a spawner while its sub-agent
    is alive, sub-agents that overlap another, tool calls that overlap another call, and tool
    calls that ran on in the background."""
    tasks = subs[subs["kind"] == "Task"]
    task_share = shares[(shares["spent by"] == "Task sub-agents") & (shares["tokens"] > 0)]
    return {
        "sessions": len(runs),
        "with_tasks": int(tasks["session"].nunique()),
        "tasks": len(tasks),
        "compactions": int((subs["kind"] == "compaction").sum()),
        "task_share_min": f"{task_share['share'].min():.1%}",
        "task_share_max": f"{task_share['share'].max():.1%}",
        "spawner_busy": int(subs["spawner events while alive"].sum()),
        "overlaps": int(subs["overlaps another sub-agent"].sum()),
        "overlapping_calls": int(runs["overlapping tool calls"].sum()),
        "background_calls": int(runs["background tool calls"].sum()),
        "tool_calls": int(runs["tool calls"].sum()),
    }


def _formatted(pattern: str):
    """A formatter of ``pattern`` that writes a missing value (None, NaN) as not recorded."""
    return lambda value: NOT_RECORDED if pd.isna(value) else pattern.format(value)


def subagents_shown(subs: pd.DataFrame) -> pd.DataFrame:
    """:func:`masrl.analyses.real_runs.subagents` as a reader sees it, one row per session and
    sub-agent: token share as a percentage, tokens with thousands separators, lifetime to a
    tenth of a second."""
    shown = subs.copy()
    shown["token share"] = shown["token share"].map(_formatted("{:.1%}"))
    shown["tokens"] = shown["tokens"].map(_formatted("{:,.0f}"))
    shown["lifetime (s)"] = shown["lifetime (s)"].map("{:.1f}".format)
    return shown.set_index(["session", "sub-agent"])


def envelope_sentence(envelopes: pd.DataFrame, vocabulary: Vocabulary) -> str:
    """The :func:`masrl.analyses.real_runs.comparable_envelopes` in words, each number worded by
    its bound as the vocabulary's ``bound`` phrases say: ``Kimi K2.5 Agent Swarm runs up to 100
    agents and up to 1,500 tool calls per task``; the systems joined by semicolons."""
    bound, unit = vocabulary["bound"], vocabulary["horizon_unit"]
    parts = []
    for row in real_runs.comparable_envelopes(envelopes).itertuples():
        agents = bound.phrase(row.agents_bound, f"{row.agents:,.0f}")
        horizon = bound.phrase(row.horizon_bound, f"{row.horizon:,.0f}")
        what = row.horizon_unit.replace("_", " ") if row.horizon_unit in unit.values else ""
        parts.append(f"{row.system} runs {agents} agents and {horizon} {what} per task")
    return "; ".join(parts) if parts else "no industrial system reports comparable figures"
