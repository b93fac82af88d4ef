"""Import LangChain's records of a run (tracer and LangSmith runs, one trace per root run, or
``astream_events`` callback events) as orchestration traces. Chapter 23 of the book tells the
mapping.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    content_ref,
    json_type,
    latest_end,
    one_run,
    read_jsonl,
    read_text,
    source_error,
)
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.sequential import Turns, usage_fields
from masrl.traces.importers._kit.timestamps import moment_ns
from masrl.traces.importers.turns.chat import decode, is_message

FORMAT = "langchain"
SYSTEM = "LangChain"
RUNS, EVENTS = "runs", "callback-events"
MODEL_RUNS = {"llm", "chat_model"}
TOOL_RUNS = {"tool", "retriever"}
GLUE_RUNS = {"chain": "chain run: structure, its children carry the turns",
             "prompt": "prompt run: formatting, not a turn",
             "parser": "parser run: formatting, not a turn",
             "embedding": "embedding run: not a turn"}


# ---------------------------------------------------------------------------------- reading

def _values(path: Path) -> tuple[list[tuple[str, Any]], Any]:
    text = read_text(path)
    document, findings = strict_json.parse_fast(text)
    if findings and findings[0].parts is None:
        return [(f"{n}", r) for n, r in read_jsonl(path, Counter())], None
    if findings:
        raise source_error(path, None, findings[0])
    if isinstance(document, dict) and isinstance(document.get("runs"), list):
        return [(f"runs[{k}]", r) for k, r in enumerate(document["runs"])], document
    if isinstance(document, list):
        return [(f"[{k}]", r) for k, r in enumerate(document)], document
    return [("", document)], document


def _is_run(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("run_type"), str) \
        and ("start_time" in value or "child_runs" in value or "parent_run_id" in value)


def _is_callback(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("event"), str) \
        and value["event"].startswith("on_") and ("run_id" in value or "data" in value)


def _flatten(path: Path, values: list) -> list[tuple[str, dict]]:
    """Every run, nested ``child_runs`` included, each once (by id) with its place."""
    runs, seen = [], set()
    stack = list(reversed(values))
    while stack:
        where, run = stack.pop()
        if not isinstance(run, dict):
            raise SourceError(path, where, f"a run must be an object, found {json_type(run)}")
        key = run.get("id")
        if isinstance(key, str) and key in seen:
            continue
        if isinstance(key, str):
            seen.add(key)
        runs.append((where, run))
        children = run.get("child_runs")
        if isinstance(children, list):
            for k in range(len(children) - 1, -1, -1):
                child = children[k]
                if isinstance(child, dict) and "parent_run_id" not in child:
                    child = {**child, "parent_run_id": run.get("id")}
                stack.append((f"{where}.child_runs[{k}]", child))
    return runs


def _time(path: Path, where: str, field: str, value: Any) -> int | None:
    """Microseconds since 1970 of a run's ISO 8601 time (UTC when it names no zone)."""
    if value is None:
        return None
    return moment_ns(value, path, where, field, numbers=False) // 1000


# ---------------------------------------------------------------------------------- runs

def import_traces(path: str | Path) -> list[ImportResult]:
    """One trace per root run (or per trace id) of a runs file; one for callback events."""
    path = Path(path)
    values, _ = _values(path)
    if values and all(_is_callback(v) for _, v in values[:5]):
        return [_callbacks(path, values)]
    runs = _flatten(path, values)
    if not runs:
        raise SourceError(path, None, "the file holds no run")
    by_id = {r["id"]: r for _, r in runs if isinstance(r.get("id"), str)}

    def root(run: dict) -> str:
        if isinstance(run.get("trace_id"), str):
            return run["trace_id"]
        seen = set()
        while isinstance(run.get("parent_run_id"), str) and run["parent_run_id"] in by_id \
                and run["parent_run_id"] not in seen:
            seen.add(run["parent_run_id"])
            run = by_id[run["parent_run_id"]]
        return str(run.get("id"))

    groups: dict[str, list] = defaultdict(list)
    for where, run in runs:
        groups[root(run)].append((where, run))
    return [_trace(path, key, group, by_id, len(groups)) for key, group in groups.items()]


def import_file(path: str | Path) -> ImportResult:
    """The trace of a file that holds one run tree (a :class:`SourceError` for several: use
    :func:`import_traces`)."""
    return one_run(Path(path), FORMAT, import_traces(path), "traces (root runs)",
                   lead="the file holds ")


def _agent(run: dict, by_id: dict, root_name: str, known: dict[int, str] | None = None) -> str:
    """The agent of ``run``: the nearest ``langgraph_node`` named on it or up its parents (the
    worker holding it when that node is inside a subgraph, :func:`_graph_agent`), else
    ``root_name``. ``known`` (``id`` of a run -> its agent) carries the answers of one trace:
    every run passed on the way up has the same answer, so a deep tree is walked once, not once
    per run (quadratic in its depth)."""
    known = {} if known is None else known
    passed: list[int] = []
    seen = set()
    found = root_name
    while isinstance(run, dict):
        if id(run) in known:
            found = known[id(run)]
            break
        passed.append(id(run))
        extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
        node = next((_graph_agent(holder) for holder in (extra.get("metadata"),
                                                        run.get("metadata"))
                     if isinstance(holder, dict) and isinstance(holder.get("langgraph_node"), str)),
                    None)
        if node is not None:
            found = node
            break
        parent = run.get("parent_run_id")
        if not isinstance(parent, str) or parent in seen:
            break
        seen.add(parent)
        run = by_id.get(parent)
    for key in passed:
        known[key] = found
    return found


def _model_name(run: dict) -> str | None:
    extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
    metadata = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else {}
    name = metadata.get("ls_model_name")
    return name if isinstance(name, str) else None


def _run_usage(run: dict, path: Path, where: str, repairs: Counter | None
               ) -> tuple[float | None, float | None, float | None]:
    """``(tokens in, tokens out, dollars)`` a model run states (chapter 23 of the book), read
    by the kit's rule; what it does not state is ``None``."""
    prompt, completion = (count(run.get(key), path, where, key, repairs)
                          for key in ("prompt_tokens", "completion_tokens"))
    cost = amount(run.get("total_cost"), path, where, "total_cost", repairs)
    if prompt is not None or completion is not None:
        return prompt, completion, cost
    outputs = run.get("outputs") if isinstance(run.get("outputs"), dict) else {}
    usage = (outputs.get("llm_output") or {}).get("token_usage") \
        if isinstance(outputs.get("llm_output"), dict) else None
    if isinstance(usage, dict):
        return (*(count(usage.get(key), path, f"{where}.outputs.llm_output.token_usage", key,
                        repairs) for key in ("prompt_tokens", "completion_tokens")), cost)
    generations = outputs.get("generations")
    while isinstance(generations, list) and generations:
        generations = generations[0]
    message = generations.get("message") if isinstance(generations, dict) else None
    if isinstance(message, dict) and is_message(message):
        decoded = decode(path, f"{where}.outputs.generations[0].message", message, repairs)
        if decoded.usage is not None:
            return decoded.usage[0], decoded.usage[1], cost
    return None, None, cost


def _trace(path: Path, key: str, group: list, by_id: dict, traces: int) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    account = result.account
    account.unit = "run"
    stamps = {}
    for where, run in group:
        start = _time(path, where, "start_time", run.get("start_time"))
        end = _time(path, where, "end_time", run.get("end_time"))
        stamps[id(run)] = (start, end)
    known = [s for s, _ in stamps.values() if s is not None]
    origin = min(known) if known else None
    if origin is not None:
        result.time_origin = iso_from_ns(origin * 1000)

    def seconds(moment):
        return 0.0 if moment is None or origin is None else (moment - origin) / 1_000_000

    roots = [r for _, r in group if not (isinstance(r.get("parent_run_id"), str)
                                         and r["parent_run_id"] in by_id)]
    root_name = next((r.get("name") for r in roots if isinstance(r.get("name"), str)), "agent")
    order = sorted(range(len(group)), key=lambda k: (
        seconds(stamps[id(group[k][1])][0]), group[k][1].get("dotted_order") or "", k))
    turns = Turns()
    agents: dict[int, str] = {}  # id of a run -> its agent (:func:`_agent`)
    batch: list[tuple[int, str, dict]] = []

    def flush():
        if not batch:
            return
        calls = turns.calls_made([{**call} for _, _, call, _ in batch])
        turns.results([{**res, "call": c["id"]} for (_, _, _, res), c in zip(batch, calls)])
        batch.clear()

    for k in order:
        where, run = group[k]
        account.read()
        kind = run.get("run_type")
        kind = kind.lower() if isinstance(kind, str) else None
        start, end = (seconds(m) for m in stamps[id(run)])
        end = max(end, start) if stamps[id(run)][1] is not None else start
        agent = _agent(run, by_id, root_name, agents)
        rid = run.get("id") if isinstance(run.get("id"), str) else where
        error = True if run.get("error") not in (None, "") else None
        if kind in MODEL_RUNS:
            tokens_in, tokens_out, cost = _run_usage(run, path, where, result.repairs)
            account.state_usage(tokens_in=tokens_in or 0, tokens_out=tokens_out or 0,
                                cost_usd=cost or 0)
            flush()
            model = usage_fields(tokens_in, tokens_out, rid, model=_model_name(run))
            turns.turn(id=f"r{k}", t=start, t_end=end if end > start else None, type="message",
                       agent=agent, content_ref=content_ref(run.get("outputs")),
                       x_source=where, x_error=error,
                       cost_usd=cost or None, **model)
            account.map()
        elif kind in TOOL_RUNS:
            if batch and all(start >= e for _, e, _, _ in batch):
                flush()
            call = {"id": f"r{k}.c", "t": start, "type": "tool_call", "agent": agent,
                    "t_end": end if end > start else None,
                    "tool": run.get("name"), "content_ref": content_ref(run.get("inputs")),
                    "x_source": where}
            res = {"id": f"r{k}.r", "t": end, "type": "tool_result", "agent": agent,
                   "tool": run.get("name"), "content_ref": content_ref(run.get("outputs")),
                   "x_source": where, "x_error": error}
            batch.append((k, end, call, res))
            account.map()
        else:
            reason = GLUE_RUNS.get(kind or "", f"unknown record type: {kind}")
            tokens_in, tokens_out, cost = _run_usage(run, path, where, result.repairs) \
                if kind == "embedding" else (0, 0, 0)
            tokens_in, tokens_out, cost = tokens_in or 0, tokens_out or 0, cost or 0
            account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)
            account.skip(reason, usage={"tokens_in": tokens_in, "tokens_out": tokens_out,
                                        "cost_usd": cost})
    flush()
    if not turns.events:
        raise SourceError(path, None, "no run of the trace is a model or tool run (" + ", ".join(
            f"{n} {reason}" for reason, n in sorted(result.skipped.items())) + ")")
    raised = turns.build.raise_times()
    if raised:
        result.repairs["event time raised to the time of an event it depends on"] += raised
    result.recognised = {"system": "langchain", "shape": RUNS,
                         "evidence": "runs with run_type (chain, llm, tool...), start_time "
                                     "and parent ids, as LangChain tracers and LangSmith keep "
                                     "them"}
    events = turns.events
    stem = path.stem if traces == 1 else f"{path.stem}:{key}"
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{stem}", task_id=key, system=f"{SYSTEM} ({root_name})",
        topology="unknown", rewards={},
        costs={"tokens": sum(e.get("tokens", 0) for e in events),
               "wall_clock_s": latest_end(events),
               "messages": turns.build.count("message"),
               "tool_calls": turns.build.count("tool_call")})
    return result.with_provenance()


# ---------------------------------------------------------------------------------- callbacks

CALLBACK_SKIPS = {"stream": "stream chunk: a piece of an output that follows whole",
                  "chain": "chain event: structure, not a turn",
                  "prompt": "prompt event: formatting, not a turn",
                  "parser": "parser event: formatting, not a turn",
                  "custom": "custom event: the application's own"}


def _graph_agent(metadata: dict) -> str:
    """Who acts in a run or a callback event, from its metadata: the graph node that runs it,
    or, inside a subgraph (a worker built as a graph of its own, such as a ReAct agent under a
    supervisor), the node of the enclosing graph that holds that subgraph ("researcher", not
    its inner "agent" or "tools"). LangGraph names the nesting in ``langgraph_checkpoint_ns``
    (``researcher:<task>|agent:<task>``, the node last) or ``checkpoint_ns`` (the enclosing
    graph's namespace within a subgraph, the node's own at the top)."""
    node = metadata.get("langgraph_node") if isinstance(metadata.get("langgraph_node"), str) \
        else None
    for key in ("langgraph_checkpoint_ns", "checkpoint_ns"):
        namespace = metadata.get(key)
        if not isinstance(namespace, str) or not namespace:
            continue
        names = [part.split(":", 1)[0] for part in namespace.split("|")]
        if node is not None and names[-1] == node:
            names.pop()  # the node's own place: the graph that holds it is before
        if names and names[-1]:
            return names[-1]
        break
    return node if node is not None else "agent"


def _callbacks(path: Path, values: list) -> ImportResult:
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)], skipped=Counter(),
                          repairs=Counter())
    account = result.account
    account.unit = "callback event"
    turns = Turns()
    started: dict[str, str] = {}  # run id -> the place of its *_start, until its end
    calls: dict[str, str] = {}  # tool run id -> tool_call event id
    for k, (where, record) in enumerate(values):
        account.read()
        if not _is_callback(record):
            account.skip("unknown record type: " + (str(record.get("event")) if isinstance(
                record, dict) else json_type(record)))
            continue
        name = record["event"]
        run = str(record.get("run_id"))
        metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
        agent = _graph_agent(metadata)
        data = record.get("data") if isinstance(record.get("data"), dict) else {}
        tool = record.get("name") if isinstance(record.get("name"), str) else None
        base = {"t": 0, "x_source": where, "agent": agent}
        if name.endswith("_stream"):
            account.skip(CALLBACK_SKIPS["stream"])
        elif name in ("on_chat_model_start", "on_llm_start"):
            started[run] = where  # carried by its end
        elif name in ("on_chat_model_end", "on_llm_end"):
            output = data.get("output")
            usage = None
            model_name = None
            if isinstance(output, dict) and is_message(output):
                decoded = decode(path, f"{where}.data.output", output, result.repairs)
                usage, model_name = decoded.usage, decoded.model
            elif isinstance(output, dict) and isinstance(output.get("llm_output"), dict):
                holder = output["llm_output"].get("token_usage")
                if isinstance(holder, dict):
                    place = f"{where}.data.output.llm_output.token_usage"
                    usage = (*(count(holder.get(key), path, place, key, result.repairs)
                               for key in ("prompt_tokens", "completion_tokens")), {})
                    if usage[0] is None and usage[1] is None:
                        usage = None
            tokens_in, tokens_out, parts = usage if usage is not None else (None, None, {})
            if usage is not None:
                account.state_usage(tokens_in=tokens_in or 0, tokens_out=tokens_out or 0)
            turns.turn(**base, id=f"c{k}", type="message", content_ref=content_ref(output),
                       **usage_fields(tokens_in, tokens_out, run, parts, model_name))
            account.map(2 if started.pop(run, None) is not None else 1)
        elif name in ("on_tool_start", "on_retriever_start"):
            call = turns.calls_made([{**base, "id": f"c{k}", "type": "tool_call", "tool": tool,
                                      "content_ref": content_ref(data.get("input"))}])[0]
            calls[run] = call["id"]
            account.map()
        elif name in ("on_tool_end", "on_tool_error", "on_retriever_end", "on_retriever_error"):
            call = calls.pop(run, None)
            if call is None:  # the end of a call whose start the file does not hold
                call = turns.calls_made([{**base, "id": f"c{k}.c", "type": "tool_call",
                                          "tool": tool, "x_implied_call": True}])[0]["id"]
            turns.results([{**base, "id": f"c{k}", "type": "tool_result", "tool": tool,
                            "content_ref": content_ref(data.get("output", data.get("error"))),
                            "x_error": True if name.endswith("_error") else None,
                            "call": call}])
            account.map()
        else:
            family = name[3:].split("_")[0]
            account.skip(CALLBACK_SKIPS.get(family, f"unknown record type: {name}"))
    if started:
        account.skip("model start without an end", len(started))
    if not turns.events:
        raise SourceError(path, None, "no callback event is a model or tool event (" + ", ".join(
            f"{n} {reason}" for reason, n in sorted(result.skipped.items())) + ")")
    result.recognised = {"system": "langchain", "shape": EVENTS,
                         "evidence": "records {event: on_..., run_id, data}, as "
                                     "astream_events yields them"}
    events = turns.events
    result.trace = turns.build.document(
        trace_id=f"{FORMAT}:{path.stem}", task_id=path.stem, system=SYSTEM, topology="unknown",
        rewards={}, costs={"tokens": sum(e.get("tokens", 0) for e in events), "wall_clock_s": 0,
                           "messages": turns.build.count("message"),
                           "tool_calls": turns.build.count("tool_call")})
    return result.with_provenance()


# ---------------------------------------------------------------------------------- sniffing

def sniff(sample: Sample) -> str | None:
    """LangChain runs (objects with ``run_type`` and ``start_time`` or ``child_runs``, as
    tracers and LangSmith keep them) or callback events (``{event: "on_...", run_id, data}``
    from ``astream_events``)."""
    document = sample.document
    if isinstance(document, dict) and isinstance(document.get("runs"), list):
        values = document["runs"]
    elif isinstance(document, list):
        values = document
    elif document is not None:
        values = [document]
    else:
        values = sample.records or []
    if values and all(_is_run(v) for v in values[:5]):
        return "LangChain runs with run_type"
    if values and all(_is_callback(v) for v in values[:5]):
        return "LangChain callback events (astream_events)"
    return None


def refusal(sample: Sample) -> str:
    """What the sniffer looked for."""
    return ("looks for LangChain runs ({run_type, start_time, parent_run_id} or child_runs) or "
            "callback events ({event: on_..., run_id, data})")
