"""Scale envelopes (``data/envelopes.csv``) and the scale gap between deployments and training.

* ``load_envelopes`` -> one row per industrial system and per academic RL setup: agents per run,
  the horizon of one task, model size, source and confidence. Unknown numbers stay empty (NaN
  after loading); they are never filled in.
* ``scale_gap``      -> orders of magnitude between the industrial and the academic envelopes.
* ``trace_estimate`` -> what an orchestration trace of a given size would weigh (events, edges,
  bytes), from a synthetic trace built in the shape of the minimal trace schema and serialised;
  ``replay_check`` validates and replays that trace with :mod:`masrl.traces`.

Horizon units differ (tool calls for deployments, turns or rounds for training setups): the
comparison is a rough one, as it is in the survey, and says nothing about industrial training
traces themselves.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pandera.pandas as pa

from masrl import paths, tables
from masrl.problems import Problem
from masrl.traces import synthetic
from masrl.vocabulary import Vocabulary

PathLike = str | os.PathLike | None

ENVELOPES = "envelopes.csv"
NUMBER = r"\d+(\.\d+)?"
URL = r"https?://\S+"
URLS = rf"{URL}( ; {URL})*"
# (number column, its bound column, the unit column that must be filled with it, if any)
MEASURED = [("agents", "agents_bound", None), ("horizon", "horizon_bound", "horizon_unit")]
# Horizon units compared in the scale gap: per-task tool calls of deployments against the
# interaction length of training setups. Sessions (a whole project) compare with neither.
INDUSTRIAL_HORIZON = ["tool_calls"]
ACADEMIC_HORIZON = ["turns", "rounds", "steps", "passes", "branches"]


def envelopes_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    number = tables.matches(NUMBER, "a number, or empty when unknown", optional=True)
    return pa.DataFrameSchema({
        "system": tables.text(tables.nonempty("a system name"), unique=True),
        "kind": tables.tag(vocab, "kind"),
        "key": tables.text(tables.matches(r"[a-z0-9][a-z0-9-]*", "a pool key or empty", optional=True)),
        "date": tables.text(tables.matches(r"\d{4}-\d{2}(-\d{2})?", "a date as YYYY-MM(-DD), or empty",
                                    optional=True)),
        "agents": tables.text(number),
        "agents_bound": tables.tag(vocab, "bound", optional=True),
        "horizon": tables.text(number),
        "horizon_unit": tables.tag(vocab, "horizon_unit", optional=True),
        "horizon_bound": tables.tag(vocab, "bound", optional=True),
        "model": tables.text(),
        "model_size_b": tables.text(number),
        "source_url": tables.text(tables.matches(URLS, "http(s) URLs separated by ' ; '")),
        "confidence": tables.tag(vocab, "confidence"),
        "note": tables.text(tables.nonempty("a note on the source's wording")),
    }, strict=True)


def load_envelopes(data_dir: PathLike = None) -> pd.DataFrame:
    """The envelopes, with ``agents``, ``horizon`` and ``model_size_b`` as floats (NaN when
    unknown). A number needs its bound (and a horizon its unit), an empty number has neither,
    and a key must be a pool key."""
    from masrl.pool import load_pool

    keys = set(load_pool(data_dir)["key"])

    def consistency(frame: pd.DataFrame) -> list[Problem]:
        problems = []
        for row in frame.to_dict("records"):
            line = str(row[tables.LINE])
            if row["key"] and row["key"] not in keys:
                problems.append(Problem(ENVELOPES, line, "key",
                                        f"{row['key']!r} is not a key of {paths.PAPERS}"))
            for number, bound, unit in MEASURED:
                for companion in filter(None, (bound, unit)):
                    if bool(row[number]) != bool(row[companion]):
                        state = "given" if row[number] else "empty"
                        problems.append(Problem(
                            ENVELOPES, line, companion,
                            f"{number} is {state}, so {companion} must be "
                            f"{'given' if row[number] else 'empty'}"))
        return problems

    frame = tables.load_table(ENVELOPES, envelopes_schema, data_dir, consistency)
    for column in ("agents", "horizon", "model_size_b"):
        frame[column] = pd.to_numeric(frame[column].replace("", float("nan")))
    return frame


# --- the scale gap ----------------------------------------------------------------------------

def comparable_horizon(envelopes: pd.DataFrame) -> pd.Series:
    """Each row's horizon where its unit enters the comparison, else NaN."""
    units = envelopes["kind"].map({"industrial": INDUSTRIAL_HORIZON, "academic": ACADEMIC_HORIZON})
    keep = [unit in allowed for unit, allowed in zip(envelopes["horizon_unit"], units)]
    return envelopes["horizon"].where(keep)


def scale_gap(envelopes: pd.DataFrame) -> pd.DataFrame:
    """Width (agents per run) and horizon, industrial against academic: the largest and the
    median known value of each side, and the gap between them in orders of magnitude
    (log10 of the ratio, one decimal). Rows with the number unknown are left out, not guessed."""
    horizon = comparable_horizon(envelopes)
    rows = []
    for name, values in (("width (agents per run)", envelopes["agents"]),
                         ("horizon (tool calls against turns)", horizon)):
        side = {kind: values[envelopes["kind"] == kind].dropna()
                for kind in ("industrial", "academic")}
        row = {"dimension": name,
               "industrial rows": len(side["industrial"]), "academic rows": len(side["academic"])}
        for stat in ("max", "median"):
            ind, aca = getattr(side["industrial"], stat)(), getattr(side["academic"], stat)()
            row[f"industrial {stat}"] = ind
            row[f"academic {stat}"] = aca
            row[f"orders ({stat})"] = round(math.log10(ind / aca), 1)
        rows.append(row)
    return pd.DataFrame(rows).set_index("dimension")


DISPLAY_COLUMNS = ["system", "kind", "agents", "agents_bound", "horizon", "horizon_unit",
                   "horizon_bound", "model", "model_size_b", "confidence", "source_url"]


def display_frame(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The envelopes for reading: numbers written plainly, unknown numbers left blank."""
    frame = envelopes[DISPLAY_COLUMNS].copy()
    for column in ("agents", "horizon", "model_size_b"):
        frame[column] = [f"{v:g}" if pd.notna(v) else "" for v in frame[column]]
    return frame


def plotted(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The rows with both agents and horizon known (the points of the scale chart), with a
    label naming the system and the horizon unit."""
    rows = envelopes.dropna(subset=["agents", "horizon"]).copy()
    rows["label"] = rows["system"] + " (" + rows["horizon_unit"].str.replace("_", " ") + ")"
    rows["source"] = rows["source_url"].str.split(" ; ").str[0]
    return rows.reset_index(drop=True)


def unplotted(envelopes: pd.DataFrame) -> pd.DataFrame:
    """Rows left off the chart, and which of the two numbers is unknown."""
    missing = envelopes[envelopes[["agents", "horizon"]].isna().any(axis=1)]
    return pd.DataFrame({
        "system": missing["system"], "kind": missing["kind"],
        "unknown": [", ".join(c for c in ("agents", "horizon") if pd.isna(r[c]))
                    for _, r in missing.iterrows()],
    }).reset_index(drop=True)


# --- how much a trace of that size would weigh ------------------------------------------------

def synthetic_trace(agents: int, tool_calls: int) -> dict:
    """A swarm trace in the shape of the minimal schema: one orchestrator decision, ``agents``
    spawned sub-agents sharing ``tool_calls`` tool calls (each answered by a tool result, with
    content replaced by a sha256 reference), their returns, one aggregate and a stop decision.
    Deterministic: ids, times and hashes are derived from positions. It is the trace toolkit's
    one generator, :func:`masrl.traces.synthetic.swarm_trace`, with the calls spread evenly."""
    return synthetic.swarm_trace(synthetic.spread(tool_calls, agents))


def trace_estimate(agents: int, tool_calls: int) -> dict[str, int | float]:
    """Events, edges and bytes (compact JSON, UTF-8) of :func:`synthetic_trace`."""
    trace = synthetic_trace(agents, tool_calls)
    size = len(json.dumps(trace, separators=(",", ":")).encode("utf-8"))
    return {"agents": agents, "tool_calls": tool_calls, "events": len(trace["events"]),
            "edges": len(trace["edges"]), "bytes": size,
            "bytes_per_event": round(size / len(trace["events"]), 1)}


def replay_check(agents: int, tool_calls: int) -> dict[str, int | float | bool]:
    """Validate and replay :func:`synthetic_trace` with the trace toolkit (``masrl.traces``):
    whether it is valid, and what replay reconstructs (agents running at once, critical steps)."""
    from masrl import traces

    report = traces.validate_document(synthetic_trace(agents, tool_calls))
    if not report.valid:
        return {"valid": False}
    result = traces.replay(report.trace).to_dict()
    return {"valid": True, "replayed events": result["events"],
            "max concurrency": result["max_concurrency"],
            "critical steps": result["critical_steps"], "spawn depth": result["spawn_depth"]}


def trace_estimates(envelopes: pd.DataFrame, *, replay: bool = True) -> pd.DataFrame:
    """:func:`trace_estimate` (and, if ``replay``, :func:`replay_check`) for every industrial
    envelope whose agents and per-task tool calls are both known (the Kimi swarms)."""
    rows = envelopes[(envelopes["kind"] == "industrial")
                     & (envelopes["horizon_unit"].isin(INDUSTRIAL_HORIZON))
                     ].dropna(subset=["agents", "horizon"])
    estimates = []
    for r in rows.itertuples():
        agents, calls = int(r.agents), int(r.horizon)
        row = {"system": r.system, **trace_estimate(agents, calls)}
        if replay:
            row.update(replay_check(agents, calls))
        estimates.append(row)
    return pd.DataFrame(estimates)



THROUGHPUT_KEYS = ("agents", "events", "file_bytes", "json_load_peak_mib", "json_load_s",
                   "memory_ratio", "ratio", "replay_peak_mib", "replay_s", "tool_calls")


def throughput_results(path: str | os.PathLike | None = None) -> dict | None:
    """The figures of the last run of ``benchmarks/trace_throughput.py`` (its results file), or
    ``None`` when no run has been recorded. Raises ``ValueError`` naming a missing key."""
    target = Path(path) if path else paths.BENCHMARK_RESULTS / "trace_throughput.json"
    if not target.exists():
        return None
    figures = json.loads(target.read_text(encoding="utf-8"))
    missing = [key for key in THROUGHPUT_KEYS if key not in figures]
    if missing:
        raise ValueError(f"{target}: missing {', '.join(missing)}")
    return figures
