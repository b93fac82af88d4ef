"""Conservation (``accounting.py``) of the chat and event-log importers, one hypothesis
property per importer: documents generated with random records (record types the importer
does not know, and records with usage that it skips, among them) import into traces whose books
balance against what the generator put in: every record read is mapped or skipped, unknown
types are counted under their own reason, and the tokens the source states are found in the
events or among the skipped records."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems, trace_usage

PROPERTY = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
AGENTS = ["Planner", "Coder", "WebSurfer"]
tokens = st.integers(min_value=0, max_value=50_000)
usage = st.one_of(st.none(), st.tuples(tokens, tokens))


def write(tmp_path_factory, name: str, document) -> object:
    path = tmp_path_factory.mktemp("conservation") / name
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    return path


def check_books(trace: dict, read: int, skipped: int, stated: tuple, reasons: dict) -> None:
    records = trace["provenance"]["records"]
    assert (records["read"], records["skipped"]) == (read, skipped)
    assert records["read"] == records["mapped"] + records["skipped"]
    source = trace["provenance"]["usage"]["source"]
    assert (source["tokens_in"], source["tokens_out"]) == stated
    carried = trace_usage(trace)
    skipped_usage = trace["provenance"]["usage"]["skipped"]
    assert carried["tokens_in"] + skipped_usage["tokens_in"] == stated[0]
    assert carried["tokens_out"] + skipped_usage["tokens_out"] == stated[1]
    for reason, n in reasons.items():
        assert trace["provenance"]["skipped"].get(reason, 0) == n, reason
    assert conservation_problems(trace) == []


# ---------------------------------------------------------------------------------- Who&When

def repr_record(name: str, k: int, used) -> dict:
    models = "None" if used is None else \
        f"RequestUsage(prompt_tokens={used[0]}, completion_tokens={used[1]})"
    return {"role": "Assistant", "name": name,
            "content": f"TextMessage: id='m{k}' source='{name}' models_usage={models} "
                       f"metadata={{}} created_at=datetime.datetime(2026, 1, 1, 10, 0, {k % 60}, "
                       f"tzinfo=datetime.timezone.utc) content='invented' type='TextMessage'"}


@st.composite
def autogen_logs(draw):
    turns = draw(st.lists(st.tuples(st.sampled_from(AGENTS + ["MagenticOneOrchestrator"]), usage),
                          min_size=1, max_size=12))
    extra = draw(st.lists(st.sampled_from(["task result", "note"]), max_size=3))
    history = [repr_record("user", 0, None)]
    history += [repr_record(name, k + 1, used) for k, (name, used) in enumerate(turns)]
    history += [{"role": "Assistant", "name": "unknown", "content": "TaskResult: messages=[]"}
                if what == "task result" else
                {"role": "Assistant", "name": "Runner", "content": "finished"} for what in extra]
    history.insert(1, repr_record("MagenticOneOrchestrator", 99, None))
    stated = (sum(u[0] for _, u in turns if u), sum(u[1] for _, u in turns if u))
    return {"question_ID": "q", "history": history}, stated, extra


@PROPERTY
@given(case=autogen_logs())
def test_who_and_when_books_balance(tmp_path_factory, case):
    document, stated, extra = case
    trace = import_file("who-and-when", write(tmp_path_factory, "log.json", document)).trace
    check_books(trace, len(document["history"]), len(extra), stated, {
        "task result: repeats the run's messages": extra.count("task result"),
        "runner note: not an AutoGen message of the run": extra.count("note")})


# ---------------------------------------------------------------------------------- AutoGen

@st.composite
def autogen_items(draw):
    items, stated, skipped, unknown = [], [0, 0], 0, {}
    calls = 0
    for _ in range(draw(st.integers(min_value=1, max_value=14))):
        kind = draw(st.sampled_from(["TextMessage", "ToolCallRequestEvent",
                                     "ToolCallExecutionEvent", "ThoughtEvent", "StopMessage",
                                     "ModelClientStreamingChunkEvent", "InventedEvent",
                                     "SelectSpeakerEvent"]))
        used = draw(usage)
        item = {"type": kind, "source": draw(st.sampled_from(AGENTS)), "content": "x"}
        if kind == "ToolCallRequestEvent":
            n = draw(st.integers(min_value=0, max_value=3))
            item["content"] = [{"id": f"c{calls + j}", "name": "t", "arguments": "{}"}
                               for j in range(n)]
            calls += n
            skipped += n == 0  # a request without calls gives no event
        elif kind == "ToolCallExecutionEvent":
            item["content"] = [{"call_id": f"c{draw(st.integers(0, max(calls, 1)))}",
                                "content": "r", "name": "t"}]
        elif kind == "SelectSpeakerEvent":
            item["content"] = [draw(st.sampled_from(AGENTS))]
        if used is not None:
            item["models_usage"] = {"prompt_tokens": used[0], "completion_tokens": used[1]}
            stated[0] += used[0]
            stated[1] += used[1]
        if kind in ("ThoughtEvent", "ModelClientStreamingChunkEvent", "InventedEvent"):
            skipped += 1
        if kind == "InventedEvent":
            unknown["unknown record type: InventedEvent"] = \
                unknown.get("unknown record type: InventedEvent", 0) + 1
        items.append(item)
    items.insert(0, {"type": "TextMessage", "source": "user", "content": "task"})
    return items, tuple(stated), skipped, unknown


@PROPERTY
@given(case=autogen_items(), lines=st.booleans())
def test_autogen_books_balance(tmp_path_factory, case, lines):
    items, stated, skipped, unknown = case
    text = "\n".join(json.dumps(i) for i in items) + "\n" if lines else json.dumps(items)
    trace = import_file("autogen", write(tmp_path_factory, "items.json", text)).trace
    check_books(trace, len(items), skipped, stated, unknown)


# ---------------------------------------------------------------------------------- chat

@st.composite
def transcripts(draw):
    messages, stated, skipped, unknown = [], [0, 0], 0, {}
    for k in range(draw(st.integers(min_value=1, max_value=14))):
        role = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "system",
                                     "narrator"]))
        message = {"role": role, "content": "x", "name": draw(st.sampled_from(AGENTS))}
        used = draw(usage) if role == "assistant" else None
        if role == "assistant" and draw(st.booleans()):
            message["tool_calls"] = [{"id": f"c{k}", "type": "function",
                                      "function": {"name": "t", "arguments": "{}"}}]
        if role == "tool" and draw(st.booleans()):
            message["tool_call_id"] = f"c{draw(st.integers(0, 14))}"
        if used is not None:
            message["usage"] = {"prompt_tokens": used[0], "completion_tokens": used[1]}
            stated[0] += used[0]
            stated[1] += used[1]
        if role in ("system", "narrator"):
            skipped += 1
        if role == "narrator":
            unknown["unknown record type: narrator"] = \
                unknown.get("unknown record type: narrator", 0) + 1
        messages.append(message)
    messages.insert(0, {"role": "user", "content": "task"})
    return messages, tuple(stated), skipped, unknown


@PROPERTY
@given(case=transcripts(), wrapped=st.booleans())
def test_chat_books_balance(tmp_path_factory, case, wrapped):
    messages, stated, skipped, unknown = case
    document = {"messages": messages} if wrapped else messages
    trace = import_file("chat", write(tmp_path_factory, "chat.json", document)).trace
    check_books(trace, len(messages), skipped, stated, unknown)


# ---------------------------------------------------------------------------------- ADK

@st.composite
def adk_events(draw):
    events, stated, skipped, unknown = [], [0, 0], 0, {}
    for k in range(draw(st.integers(min_value=1, max_value=14))):
        kind = draw(st.sampled_from(["text", "call", "response", "state", "partial",
                                     "no author", "thought"]))
        event = {"author": draw(st.sampled_from(AGENTS)), "invocationId": "e-1", "id": f"v{k}",
                 "timestamp": 1760000000 + k}
        parts = {"text": [{"text": "x"}], "call": [{"functionCall": {"id": f"c{k}", "name": "t",
                                                                     "args": {}}}],
                 "response": [{"functionResponse": {"id": f"c{draw(st.integers(0, 14))}",
                                                    "name": "t", "response": {}}}],
                 "thought": [{"text": "x", "thought": True}],
                 "partial": [{"text": "x"}], "state": None, "no author": [{"text": "x"}]}[kind]
        if parts is not None:
            event["content"] = {"role": "model", "parts": parts}
        else:
            event["actions"] = {"stateDelta": {"k": k}}
        if kind == "partial":
            event["partial"] = True
        if kind == "no author":
            del event["author"]
            unknown["unknown record type: an event without author"] = \
                unknown.get("unknown record type: an event without author", 0) + 1
        used = draw(usage)
        if used is not None:
            event["usageMetadata"] = {"promptTokenCount": used[0],
                                      "candidatesTokenCount": used[1]}
            stated[0] += used[0]
            stated[1] += used[1]
        # skipped: partial and author-less events, and a state update without usage (with
        # usage it is a model response, kept as a message)
        skipped += kind in ("partial", "no author") or (kind == "state" and used is None)
        events.append(event)
    events.insert(0, {"author": "user", "invocationId": "e-1",
                      "content": {"role": "user", "parts": [{"text": "task"}]}})
    return events, tuple(stated), skipped, unknown


@PROPERTY
@given(case=adk_events(), session=st.booleans())
def test_adk_books_balance(tmp_path_factory, case, session):
    events, stated, skipped, unknown = case
    document = {"id": "s", "appName": "a", "userId": "u", "state": {}, "events": events} \
        if session else events
    trace = import_file("adk", write(tmp_path_factory, "adk.json", document)).trace
    check_books(trace, len(events), skipped, stated, unknown)


# ---------------------------------------------------------------------------------- LangGraph

@st.composite
def update_chunks(draw):
    chunks, stated, skipped, ids = [], [0, 0], 0, []
    for k in range(draw(st.integers(min_value=1, max_value=12))):
        kind = draw(st.sampled_from(["ai", "ai", "tool", "state", "interrupt", "null",
                                     "repeat"]))
        node = draw(st.sampled_from(AGENTS))
        if kind == "interrupt":
            chunks.append({"__interrupt__": [{"value": "?"}]})
            skipped += 1
            continue
        if kind == "null":
            chunks.append({node: None})
            skipped += 1
            continue
        if kind == "state":  # a node writing other channels, with or without a message
            if draw(st.booleans()):
                chunks.append({node: {"messages": [], "plan": [k]}})
            else:
                chunks.append({node: {"messages": [{"type": "ai", "content": "x",
                                                    "id": f"m{k}"}]}})
                ids.append(f"m{k}")
            continue
        if kind == "repeat" and ids:
            repeated = draw(st.sampled_from(ids))
            chunks.append({node: {"messages": [{"type": "ai", "content": "x", "id": repeated,
                                                "usage_metadata": {"input_tokens": 5,
                                                                   "output_tokens": 5}}]}})
            skipped += 1  # every message of the chunk was read before
            continue
        message = {"type": "ai" if kind != "tool" else "tool", "content": "x", "id": f"m{k}"}
        if kind == "tool":
            message["tool_call_id"] = f"c{draw(st.integers(0, 12))}"
        else:
            if draw(st.booleans()):
                message["tool_calls"] = [{"name": "t", "args": {}, "id": f"c{k}"}]
            used = draw(usage)
            if used is not None:
                message["usage_metadata"] = {"input_tokens": used[0], "output_tokens": used[1]}
                stated[0] += used[0]
                stated[1] += used[1]
        ids.append(f"m{k}")
        chunks.append({node: {"messages": [message]}})
    return chunks, tuple(stated), skipped


@PROPERTY
@given(case=update_chunks())
def test_langgraph_books_balance(tmp_path_factory, case):
    chunks, stated, skipped = case
    chunks.insert(0, {"user": {"messages": [{"type": "human", "content": "task", "id": "h"}]}})
    trace = import_file("langgraph", write(tmp_path_factory, "updates.json", chunks)).trace
    check_books(trace, len(chunks), skipped, stated, {})


# ---------------------------------------------------------------------------------- LangChain

@st.composite
def run_lists(draw):
    runs = [{"id": "root", "name": "graph", "run_type": "chain",
             "start_time": "2026-01-01T00:00:00", "end_time": "2026-01-01T00:10:00"}]
    stated, cost, skipped, unknown = [0, 0], 0.0, 1, {}
    for k in range(draw(st.integers(min_value=1, max_value=12))):
        kind = draw(st.sampled_from(["llm", "llm", "tool", "chain", "embedding", "oddity"]))
        start = draw(st.integers(min_value=0, max_value=500))
        run = {"id": f"r{k}", "name": f"n{k}", "run_type": kind, "parent_run_id": "root",
               "start_time": f"2026-01-01T00:{start // 60:02d}:{start % 60:02d}",
               "end_time": f"2026-01-01T00:{(start + 5) // 60:02d}:{(start + 5) % 60:02d}",
               "extra": {"metadata": {"langgraph_node": draw(st.sampled_from(AGENTS))}}}
        used = draw(usage) if kind in ("llm", "embedding") else None
        if used is not None:
            run.update(prompt_tokens=used[0], completion_tokens=used[1])
            price = draw(st.sampled_from([0, 0.5, 0.125]))
            run["total_cost"] = price
            stated[0] += used[0]
            stated[1] += used[1]
            cost += price
        if kind not in ("llm", "tool"):
            skipped += 1
        if kind == "oddity":
            unknown["unknown record type: oddity"] = \
                unknown.get("unknown record type: oddity", 0) + 1
        runs.append(run)
    if not any(r["run_type"] in ("llm", "tool") for r in runs):
        runs.append({"id": "last", "name": "t", "run_type": "tool", "parent_run_id": "root",
                     "start_time": "2026-01-01T00:09:00"})
    return runs, tuple(stated), cost, skipped, unknown


@PROPERTY
@given(case=run_lists())
def test_langchain_books_balance(tmp_path_factory, case):
    runs, stated, cost, skipped, unknown = case
    trace = import_file("langchain", write(tmp_path_factory, "runs.json", runs)).trace
    check_books(trace, len(runs), skipped, stated, unknown)
    usage = trace["provenance"]["usage"]
    assert usage["source"]["cost_usd"] == pytest.approx(cost)
    carried = sum(e.get("cost_usd", 0) for e in trace["events"])
    assert carried + usage["skipped"]["cost_usd"] == pytest.approx(cost)


# ---------------------------------------------------------------------------------- A2A

@st.composite
def a2a_records(draw):
    records, skipped, unknown, seen = [], 0, {}, []
    for k in range(draw(st.integers(min_value=1, max_value=12))):
        kind = draw(st.sampled_from(["send", "status", "state", "artifact", "query", "oddity",
                                     "repeat"]))
        if kind == "send":
            records.append({"jsonrpc": "2.0", "id": k, "method": "message/send", "params": {
                "message": {"kind": "message", "messageId": f"u{k}", "role": "user",
                            "parts": [{"kind": "text", "text": "x"}]}}})
            seen.append(f"u{k}")
        elif kind == "status":
            records.append({"jsonrpc": "2.0", "id": k, "result": {
                "kind": "status-update", "taskId": "t", "status": {"state": "working",
                "message": {"kind": "message", "messageId": f"a{k}", "role": "agent",
                            "parts": []}}}})
            seen.append(f"a{k}")
        elif kind == "state":
            records.append({"jsonrpc": "2.0", "id": k, "result": {
                "kind": "status-update", "taskId": "t", "status": {"state": "completed"}}})
            skipped += 1
        elif kind == "artifact":
            records.append({"kind": "artifact-update", "taskId": "t",
                            "artifact": {"artifactId": f"r{k}", "parts": []}})
        elif kind == "query":
            records.append({"jsonrpc": "2.0", "id": k, "method": "tasks/get",
                            "params": {"id": "t"}})
            skipped += 1
        elif kind == "oddity":
            records.append({"jsonrpc": "2.0", "id": k, "result": {"kind": "invented"}})
            skipped += 1
            unknown["unknown record type: invented"] = \
                unknown.get("unknown record type: invented", 0) + 1
        elif seen:  # a task that repeats messages already read
            records.append({"kind": "task", "id": "t", "status": {"state": "working"},
                            "history": [{"kind": "message", "messageId": draw(
                                st.sampled_from(seen)), "role": "user", "parts": []}]})
            skipped += 1
    records.insert(0, {"kind": "message", "messageId": "first", "role": "user", "parts": []})
    return records, skipped, unknown


@PROPERTY
@given(case=a2a_records())
def test_a2a_books_balance(tmp_path_factory, case):
    records, skipped, unknown = case
    trace = import_file("a2a", write(tmp_path_factory, "a2a.json", records)).trace
    check_books(trace, len(records), skipped, (0, 0), unknown)


# ---------------------------------------------------------------------------------- ChatDev

tokens_small = st.integers(min_value=0, max_value=5000)


@st.composite
def chatdev_logs(draw):
    lines, stated, cost, skipped, unknown, waiting = [], [0, 0], 0.0, 0, {}, 0
    roles = ("Chief Executive Officer", "Programmer")
    for k in range(draw(st.integers(min_value=1, max_value=12))):
        kind = draw(st.sampled_from(["phase", "turn", "usage", "usage", "notice", "oddity"]))
        stamp = f"[2026-10-01 09:{k // 60:02d}:{k % 60:02d} INFO] "
        if kind == "phase":
            lines.append(stamp + "System: **[chatting]**\n\n| **assistant_role_name** | "
                         "Programmer |\n| **user_role_name** | Chief Executive Officer |\n"
                         "| **phase_name** | Coding |\n")
            skipped += waiting  # usage entries of the last phase that priced no turn
            waiting = 0
        elif kind == "turn":
            speaker = draw(st.sampled_from(roles))
            lines.append(stamp + f"{speaker}: **Programmer<->Chief Executive Officer on : "
                         f"Coding, turn {k}**\n\ntext\n")
            waiting = max(waiting - 1, 0)  # the turn takes the earliest waiting usage
        elif kind == "usage":
            tokens = (draw(tokens_small), draw(tokens_small))
            price = draw(st.sampled_from([0, 0.5, 0.25]))
            lines.append(stamp + f"**[OpenAI_Usage_Info Receive]**\nprompt_tokens: {tokens[0]}"
                         f"\ncompletion_tokens: {tokens[1]}\n" + (f"cost: ${price}\n"
                                                                   if price else ""))
            stated[0] += tokens[0]
            stated[1] += tokens[1]
            cost += price
            waiting += 1
        elif kind == "notice":
            lines.append(stamp + "flask app.py did not start for online log")
            skipped += 1
        else:
            lines.append(stamp + "**[Invented Kind]**\n\nx\n")
            skipped += 1
            unknown["unknown record type: Invented Kind"] = \
                unknown.get("unknown record type: Invented Kind", 0) + 1
    # a closing turn: it is priced by the earliest usage entry still waiting, if any; the
    # others price no turn
    skipped += max(waiting - 1, 0)
    lines.append("[2026-10-01 10:00:00 INFO] Programmer: **Programmer<->Chief Executive "
                 "Officer on : Coding, turn 99**\n\nend\n")
    return "\n".join(lines) + "\n", len(lines), tuple(stated), cost, skipped, unknown


@PROPERTY
@given(case=chatdev_logs())
def test_chatdev_books_balance(tmp_path_factory, case):
    text, entries, stated, cost, skipped, unknown = case
    trace = import_file("chatdev", write(tmp_path_factory, "run.log", text)).trace
    check_books(trace, entries, skipped, stated, unknown)
    usage = trace["provenance"]["usage"]
    carried = sum(e.get("cost_usd", 0) for e in trace["events"])
    assert carried + usage["skipped"]["cost_usd"] == pytest.approx(cost)
