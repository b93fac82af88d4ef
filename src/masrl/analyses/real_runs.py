"""The public logs of real multi-agent runs (``../shared/traces``), imported and measured.

This is the data behind the chapter *What real runs look like as orchestration traces*. Every
number comes from an imported trace (structure, counts and metrics of :func:`masrl.traces.replay`;
never message text). The flow: :func:`discover` lists every log of each source,
:func:`import_all` imports, validates and replays each one (a log that cannot be imported is
kept with its error, never dropped), and the table functions below turn the results into frames.

Definitions (quoted by the book):

* *agents* of a run: the agents that act in it, the human who gives the task excluded (events
  whose agent has role ``human``); *sub-agents*: agents that some event spawns.
* *parallelism*, *critical steps*, *spawn depth*, *max concurrency*: as defined in
  :mod:`masrl.traces.metrics`.
* *spawner active during a sub-agent*: the number of events of the spawner strictly between the
  sub-agent's spawn and its return; 0 means the spawner waited.
* *overlapping tool calls*: tool calls of one agent whose wait (from the call to its result)
  overlaps the wait of another call of the same agent; they were issued together and waited on
  together, which is concurrency of tools, not of agents. A result that arrives while the agent
  goes on (an ``async`` tool dependency: a background command's notice) is no wait.
* *background tool calls*: tool calls with such a later, ``async`` result: commands that kept
  running while their agent went on.
* *relative position of the mistake*: (k + 1) / n for the labelled step k (0-based) of a run of
  n steps, k counted in the trace's dependency order; 1 is the last step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from masrl import paths
from masrl.files import MissingInput
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.importers import ImportResult, SourceError, import_file
from masrl.traces.replay import Replay, replay
from masrl.traces.validate import Trace, ValidationReport, validate_document

COUNTED = ["files read", "records skipped", "events repaired"]


@dataclass(frozen=True)
class Source:
    """One kind of public log, a row of ``data/log_sources.csv``: where it lives, how to import
    it, whom to credit (the data card defines each column)."""

    key: str
    label: str
    folder: str
    pattern: str
    format: str
    origin: str  # repository and commit
    url: str
    licence: str
    reference: str


def catalogue(log_sources: pd.DataFrame) -> tuple[Source, ...]:
    """The sources of the catalogue (``Dataset.log_sources``), in file order: the order of every
    table and chart of the chapter."""
    return tuple(Source(**{name: row[name] for name in Source.__dataclass_fields__})
                 for row in log_sources.to_dict("records"))


def default_catalogue() -> tuple[Source, ...]:
    """The catalogue of the repository's data directory."""
    from masrl.data.dataset import Dataset

    return catalogue(Dataset().log_sources)


def labels(sources: Iterable[Source]) -> list[str]:
    """The sources' labels, in catalogue order."""
    return [s.label for s in sources]


def logs_dir(traces_dir: str | Path | None = None) -> Path:
    return paths.public_logs_dir() if traces_dir is None else Path(traces_dir)


@dataclass(frozen=True)
class Log:
    source: Source
    path: Path

    @property
    def run(self) -> str:
        return self.path.stem

    @property
    def short(self) -> str:
        """The run's name, a session UUID cut to its first 8 characters."""
        stem = self.path.stem
        return stem[:8] if len(stem) == 36 and stem.count("-") == 4 else stem


def discover(traces_dir: str | Path | None = None,
             sources: Iterable[Source] | None = None) -> list[Log]:
    """Every log of every source (by default the repository's catalogue), sorted by source then
    file name (Claude Code: the main session files only; their sub-agent files are read by the
    importer)."""
    root = logs_dir(traces_dir)
    sources = default_catalogue() if sources is None else sources
    return [Log(source, path) for source in sources
            for path in sorted((root / source.folder).glob(source.pattern))
            if path.is_file()]


@dataclass
class Imported:
    """One log: its import, validation and replay, or the error that stopped it."""

    log: Log
    result: ImportResult | None = None
    report: ValidationReport | None = None
    replay: Replay | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.replay is not None

    @property
    def trace(self) -> Trace:
        """The replayed trace (of an imported log only)."""
        return self.replay.run.trace


def import_one(log: Log) -> Imported:
    try:
        result = import_file(log.source.format, log.path)
    except SourceError as exc:
        return Imported(log, error=str(exc))
    report = validate_document(result.trace, source=str(log.path))
    item = Imported(log, result, report, warnings=[p.message for p in report.warnings])
    if not report.valid:
        item.error = "; ".join(p.message for p in report.errors)
        return item
    item.replay = replay(report.trace)
    return item


def import_all(traces_dir: str | Path | None = None,
               sources: Iterable[Source] | None = None, missing_hint: str = "") -> list[Imported]:
    """Import, validate and replay every discovered log; a missing folder is a
    :class:`masrl.files.MissingInput` ending with ``missing_hint``."""
    root = logs_dir(traces_dir)
    if not root.is_dir():
        raise MissingInput(root, "the public logs are not there (a fresh clone has no "
                           "../shared/traces; the book keeps the chapter's committed outputs)",
                           missing_hint)
    return [import_one(log) for log in discover(root, sources)]


def _in_order(items: list[Imported]) -> list[str]:
    """The labels of the sources present in ``items``, in catalogue order (``discover`` lists
    logs source by source)."""
    return list(dict.fromkeys(i.log.source.label for i in items))


def _table_order(table: pd.DataFrame, column: str = "source") -> list[str]:
    return list(dict.fromkeys(table[column]))


# ---------------------------------------------------------------------------------- tables

def account(items: list[Imported], sources: Iterable[Source]) -> pd.DataFrame:
    """Per source of ``sources`` (those without logs included): logs found, imported (valid
    traces), not imported, files read, and the records the importers skipped and the events they
    repaired (summed over its logs)."""
    rows = []
    for source in sources:
        mine = [i for i in items if i.log.source == source]
        results = [i.result for i in mine if i.result is not None]
        rows.append({
            "source": source.label,
            "logs": len(mine),
            "imported": sum(i.ok for i in mine),
            "not imported": sum(not i.ok for i in mine),
            "files read": sum(len(r.files) for r in results),
            "records skipped": sum(sum(r.skipped.values()) for r in results),
            "events repaired": sum(sum(r.repairs.values()) for r in results),
        })
    return pd.DataFrame(rows)


def carried(items: list[Imported]) -> pd.DataFrame:
    """Per source, what the valid traces carry in their own ``provenance``, summed over them:
    traces, files read (the ``sources`` listed, each with its SHA-256), records skipped and
    events repaired (the counts by reason, added up). Read from the traces alone, these must
    equal the import's counts of the same logs (:func:`carried_agrees`)."""
    rows = []
    for item in items:
        if not item.ok:
            continue
        provenance = item.trace.head["provenance"]
        rows.append({"source": item.log.source.label, "traces": 1,
                     "files read": len(provenance["sources"]),
                     "records skipped": sum(provenance["skipped"].values()),
                     "events repaired": sum(provenance["repaired"].values())})
    frame = pd.DataFrame(rows, columns=["source", "traces", *COUNTED])
    return frame.groupby("source", sort=False).sum()


def carried_agrees(items: list[Imported], sources: Iterable[Source]) -> bool:
    """True when :func:`carried` gives, for every source with a valid trace, the files read,
    records skipped and events repaired that :func:`account` counts over the same traces."""
    found = carried(items)
    valid = account([i for i in items if i.ok], sources).set_index("source")
    return bool((found[COUNTED] == valid.loc[found.index, COUNTED]).all().all())


def reasons(items: list[Imported]) -> pd.DataFrame:
    """Every reason for a skip or a repair, per source, with its count over the source's logs
    and the number of logs it occurs in."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for item in items:
        if item.result is None:
            continue
        for what, found in (("skipped", item.result.skipped), ("repaired", item.result.repairs)):
            for reason, n in found.items():
                entry = counts.setdefault((item.log.source.label, what, reason), [0, 0])
                entry[0] += n
                entry[1] += 1
    rows = [{"source": source, "what": what, "reason": reason, "count": n, "logs": logs}
            for (source, what, reason), (n, logs) in counts.items()]
    frame = pd.DataFrame(rows, columns=["source", "what", "reason", "count", "logs"])
    frame["order"] = frame["source"].map(_in_order(items).index)
    return frame.sort_values(["order", "what", "count", "reason"],
                             ascending=[True, False, False, True]).drop(columns="order")


def failures(items: list[Imported]) -> pd.DataFrame:
    """The logs that could not be imported, with the importer's or validator's message."""
    return pd.DataFrame([{"source": i.log.source.label, "log": i.log.path.name,
                          "reason": i.error} for i in items if not i.ok],
                        columns=["source", "log", "reason"])


def runs(items: list[Imported]) -> pd.DataFrame:
    """One row per imported run: its size and shape, from the replayed trace."""
    rows = []
    for item in items:
        if not item.ok:
            continue
        metrics, run = item.replay.metrics, item.replay.run
        agents = [a for a in run.agents.values() if a.role != "human"]
        rows.append({
            "source": item.log.source.label,
            "run": item.log.run,
            "events": metrics["events"],
            "edges": metrics["edges"],
            "agents": len(agents),
            "sub-agents": sum(a.parent is not None for a in run.agents.values()),
            "spawn depth": metrics["spawn_depth"],
            "critical steps": metrics["critical_steps"],
            "parallelism": metrics["parallelism"],
            "max concurrency": metrics["max_concurrency"],
            "tool calls": metrics["tool_calls"],
            "messages": metrics["messages"],
            "decisions": metrics["event_types"]["orchestrator_decision"],
            "tokens": metrics["tokens"]["total"],
            "wall clock (s)": metrics["wall_clock"],
            "overlapping tool calls": overlapping_tool_calls(item),
            "background tool calls": background_tool_calls(item),
        })
    return pd.DataFrame(rows)


def by_source(table: pd.DataFrame) -> pd.DataFrame:
    """Per source: runs, and the median [min-max] of each measure over its runs."""
    measures = ["events", "agents", "spawn depth", "critical steps", "parallelism",
                "max concurrency", "tool calls", "overlapping tool calls"]
    rows = []
    for label in _table_order(table):
        part = table[table["source"] == label]
        row = {"source": label, "runs": len(part)}
        for m in measures:
            values = part[m]
            row[m] = f"{_fmt(values.median())} [{_fmt(values.min())}-{_fmt(values.max())}]"
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def overlapping_tool_calls(item: Imported) -> int:
    """Tool calls whose wait overlaps another call's wait in the same agent (module docstring);
    a wait runs from the call's start to its result's start (``tool_dependency`` edges)."""
    trace = item.trace
    events, edges = trace.events, trace.edges
    waits: dict[str, list[tuple[float, float]]] = {}
    modes = trace.edge_records.optional("mode")
    for k, kind in enumerate(trace.edge_records.column("type")):
        if kind != "tool_dependency" or modes[k] == "async":  # no wait: the agent went on
            continue
        call, result = int(edges.src[k]), int(edges.dst[k])
        waits.setdefault(events.agent(call), []).append(
            (float(events.start[call]), float(events.start[result])))
    count = 0
    for spans in waits.values():
        for k, (start, end) in enumerate(spans):
            if any(j != k and s < end and start < e for j, (s, e) in enumerate(spans)):
                count += 1
    return count


def background_tool_calls(item: Imported) -> int:
    """Tool calls with an ``async`` result (module docstring): commands that ran on while
    their agent went on."""
    trace = item.trace
    kinds, modes = trace.edge_records.column("type"), trace.edge_records.optional("mode")
    return len({int(trace.edges.src[k]) for k, (kind, mode) in enumerate(zip(kinds, modes))
                if kind == "tool_dependency" and mode == "async"})


def delegations(items: list[Imported], source_key: str = "magentic-one") -> pd.DataFrame:
    """Orchestrator delegations (``decision`` ``delegate``) per addressee, over a source's runs:
    how many, their share, and in how many runs the addressee is delegated to at least once."""
    counts: dict[str, int] = {}
    runs_with: dict[str, int] = {}
    for item in items:
        if not item.ok or item.log.source.key != source_key:
            continue
        seen = set()
        records = item.trace.event_records
        for decision, to in zip(records.optional("decision"), records.optional("to")):
            if decision == "delegate":
                counts[to] = counts.get(to, 0) + 1
                seen.add(to)
        for name in seen:
            runs_with[name] = runs_with.get(name, 0) + 1
    total = sum(counts.values())
    frame = pd.DataFrame([{"agent": name, "delegations": n, "share": n / total,
                           "runs": runs_with[name]} for name, n in counts.items()],
                         columns=["agent", "delegations", "share", "runs"])
    return frame.sort_values(["delegations", "agent"], ascending=[False, True],
                             ignore_index=True)


def mistakes(items: list[Imported]) -> pd.DataFrame:
    """Per labelled run: the mistake step's place in dependency order and who acts there (the
    importer's ``x_mistake_step`` and ``x_mistake_agent``, read from the event records)."""
    rows = []
    for item in items:
        if not item.ok:
            continue
        trace = item.trace
        records = trace.event_records
        order = trace.order.tolist()
        flagged = set(np.flatnonzero(records.optional("x_mistake_step", False)).tolist())
        steps = [k for k, i in enumerate(order) if i in flagged]
        if not steps:
            continue
        k = steps[0]
        i = order[k]
        rows.append({
            "source": item.log.source.label,
            "run": item.log.run,
            "steps": len(order),
            "mistake step": k,
            "relative position": (k + 1) / len(order),
            "labelled agent": records.value(i, "x_mistake_agent"),
            "acting agent": trace.events.agent(i),
            "event type": EVENT_TYPES[trace.events.types[i]],
            "decision": records.value(i, "decision", ""),
        })
    return pd.DataFrame(rows, columns=["source", "run", "steps", "mistake step",
                                       "relative position", "labelled agent", "acting agent",
                                       "event type", "decision"])


def mistake_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per source: labelled runs, median relative position, and the share of mistakes in the
    first half, in the first tenth and at an orchestrator decision."""
    rows = []
    for label in _table_order(table):
        part = table[table["source"] == label]
        rows.append({
            "source": label,
            "labelled runs": len(part),
            "median relative position": part["relative position"].median(),
            "in the first half": (part["relative position"] <= 0.5).mean(),
            "in the first tenth": (part["relative position"] <= 0.1).mean(),
            "at an orchestrator decision": (part["event type"] == "orchestrator_decision").mean(),
        })
    return pd.DataFrame(rows)


def subagents(items: list[Imported], source_key: str = "claude-code") -> pd.DataFrame:
    """Per session and sub-agent: role, tokens, token share, lifetime and whether its spawner
    acted while it was alive, plus whether it overlapped another sub-agent."""
    rows = []
    for item in items:
        if not item.ok or item.log.source.key != source_key:
            continue
        run, metrics = item.replay.run, item.replay.metrics
        total = metrics["tokens"]["total"]
        subtree = metrics["tokens"]["per_subtree"]
        own = metrics["tokens"]["per_agent"]
        events = run.trace.events
        acting = np.array(events.agent_names, dtype=object)[events.agent_codes]
        lives = [a for a in run.agents.values() if a.parent is not None]
        for agent in lives:
            end = run.trace_end if agent.ended_at is None else agent.ended_at
            during = int(np.count_nonzero((acting == agent.parent)
                                          & (events.start > agent.spawned_at)
                                          & (events.start < end)))
            overlaps = any(o is not agent and o.spawned_at < end
                           and agent.spawned_at < (run.trace_end if o.ended_at is None
                                                   else o.ended_at) for o in lives)
            tokens = subtree.get(agent.name, own.get(agent.name))  # None: not recorded
            rows.append({
                "session": item.log.short,
                "sub-agent": agent.name,
                "kind": "compaction" if agent.role == "compaction" else "Task",
                "role": agent.role,
                "tokens": tokens,
                "token share": tokens / total if total and tokens is not None else None,
                "lifetime (s)": end - agent.spawned_at,
                "spawner events while alive": during,
                "overlaps another sub-agent": overlaps,
            })
    return pd.DataFrame(rows, columns=["session", "sub-agent", "kind", "role", "tokens",
                                       "token share", "lifetime (s)",
                                       "spawner events while alive",
                                       "overlaps another sub-agent"])


def token_shares(items: list[Imported], source_key: str = "claude-code") -> pd.DataFrame:
    """Per session: share of tokens spent by the main agent, Task sub-agents and compaction."""
    table = subagents(items, source_key)
    rows = []
    for item in items:
        if not item.ok or item.log.source.key != source_key:
            continue
        session = item.log.short
        total = item.replay.metrics["tokens"]["total"]
        part = table[table["session"] == session]
        task = part.loc[part["kind"] == "Task", "tokens"].sum()
        compaction = part.loc[part["kind"] == "compaction", "tokens"].sum()
        for kind, tokens in (("main agent", total - task - compaction),
                             ("Task sub-agents", task), ("compaction", compaction)):
            rows.append({"session": session, "spent by": kind, "tokens": tokens,
                         "share": tokens / total if total else 0.0})
    return pd.DataFrame(rows)


COMPARABLE_UNIT = "tool_calls"


def comparable_envelopes(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The industrial envelopes that can stand beside the public logs: those that report agents
    per run and a horizon counted in tool calls (``horizon_unit`` ``tool_calls``), the two
    quantities :func:`runs` counts; their bounds come with them (``data/envelopes.csv``)."""
    part = envelopes[(envelopes["kind"] == "industrial")
                     & (envelopes["horizon_unit"] == COMPARABLE_UNIT)
                     & envelopes["agents"].notna() & envelopes["horizon"].notna()]
    return part[["system", "agents", "agents_bound", "horizon", "horizon_unit",
                 "horizon_bound", "source_url"]].reset_index(drop=True)


def scale_points(table: pd.DataFrame, envelopes: pd.DataFrame | None) -> pd.DataFrame:
    """Largest agents per run and tool calls per run of each public source, beside the
    :func:`comparable_envelopes` (when their data is available)."""
    rows = []
    for label in _table_order(table):
        part = table[table["source"] == label]
        rows.append({"who": label, "kind": "public log: largest run",
                     "agents per run": part["agents"].max(),
                     "tool calls per run": part["tool calls"].max()})
    if envelopes is not None:
        for row in comparable_envelopes(envelopes).itertuples():
            rows.append({"who": row.system, "kind": "industrial: reported bound",
                         "agents per run": row.agents, "tool calls per run": row.horizon})
    return pd.DataFrame(rows)
