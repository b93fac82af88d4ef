"""Property (issue 18): the Claude Code importer balances its books on generated sessions.

Each example writes a session of random conversation records (responses streamed over several
lines whose usage grows, thinking-only responses, tool calls and results, hook progress, system
records, synthetic harness messages, record types no version had), and sometimes a warm-up run
beside it (2.0.x layout). The generator keeps its own books, independently of the importer: the
lines it wrote, the tokens each response states (the largest value of each count over its
lines) and the tokens of responses that cannot be carried by an event (thinking only, warm-up).
The import must find the same: lines read = written, read = mapped + skipped, tokens stated =
the generator's, skipped = the generator's, and the events carry the rest.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems, trace_usage

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
SESSION = "sess-p"

counts = st.integers(min_value=0, max_value=5000)
usage = st.fixed_dictionaries({"input_tokens": counts, "cache_creation_input_tokens": counts,
                               "cache_read_input_tokens": counts, "output_tokens": counts})
block_kinds = st.lists(st.sampled_from(["text", "tool_use", "thinking"]), min_size=1, max_size=3)
steps = st.lists(st.one_of(
    st.tuples(st.just("response"), block_kinds, usage, st.integers(min_value=0, max_value=40)),
    st.tuples(st.just("user")),
    st.tuples(st.just("hook")),
    st.tuples(st.just("system")),
    st.tuples(st.just("synthetic")),
    st.tuples(st.just("unknown"), st.sampled_from(["teleport", "agent-name", "x"])),
), min_size=1, max_size=12)


class Books:
    """What the generator wrote and what it expects the account to say."""

    def __init__(self):
        self.lines = 0
        self.stated = [0, 0]
        self.skipped = [0, 0]
        self.unknown = 0

    def response(self, parts: dict, carried: bool) -> None:
        tokens_in = sum(parts[k] for k in ("input_tokens", "cache_creation_input_tokens",
                                           "cache_read_input_tokens"))
        self.stated[0] += tokens_in
        self.stated[1] += parts["output_tokens"]
        if not carried:
            self.skipped[0] += tokens_in
            self.skipped[1] += parts["output_tokens"]


def write_session(folder, plan, warmup) -> Books:
    books = Books()
    records = []
    clock = [0]

    def add(record: dict) -> dict:
        clock[0] += 1
        record.setdefault("uuid", f"u{len(records)}")
        record.setdefault("parentUuid", records[-1]["uuid"] if records else None)
        record.update(sessionId=SESSION, version="2.0.76", isSidechain=False,
                      timestamp=f"2026-03-01T10:{clock[0] // 60:02d}:{clock[0] % 60:02d}.000Z")
        records.append(record)
        return record

    add({"type": "user", "message": {"role": "user", "content": "Start."}})
    for k, step in enumerate(plan):
        kind = step[0]
        if kind == "response":
            _, blocks, parts, growth = step
            calls = []
            for j, block in enumerate(blocks):
                grown = dict(parts, output_tokens=max(0, parts["output_tokens"] - growth *
                                                      (len(blocks) - 1 - j)))
                content = {"text": {"type": "text", "text": f"say {k}.{j}"},
                           "thinking": {"type": "thinking", "thinking": "hmm"},
                           "tool_use": {"type": "tool_use", "id": f"t{k}.{j}", "name": "Read",
                                        "input": {"n": j}}}[block]
                if block == "tool_use":
                    calls.append(f"t{k}.{j}")
                add({"type": "assistant", "message": {
                    "id": f"msg_{k}", "model": "m", "role": "assistant", "content": [content],
                    "usage": grown}})
            books.response(parts, carried=any(b != "thinking" for b in blocks))
            for call in calls:
                add({"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "content": "ok"}]}})
        elif kind == "user":
            add({"type": "user", "message": {"role": "user", "content": f"more {k}"}})
        elif kind == "hook":
            add({"type": "progress", "data": {"type": "hook_progress"}})
        elif kind == "system":
            add({"type": "system", "subtype": "stop_hook_summary"})
        elif kind == "synthetic":
            add({"type": "assistant", "message": {
                "id": f"syn{k}", "model": "<synthetic>", "role": "assistant",
                "content": [{"type": "text", "text": "No response requested."}],
                "usage": {"input_tokens": 0, "output_tokens": 0}}})
        else:
            add({"type": step[1], "note": "a record type no importer knows"})
            books.unknown += 1
    (folder / f"{SESSION}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    books.lines += len(records)
    if warmup is not None:
        first = {"type": "user", "uuid": "w1", "parentUuid": None, "sessionId": SESSION,
                 "agentId": "aw", "isSidechain": True, "timestamp": "2026-03-01T09:59:00.000Z",
                 "message": {"role": "user", "content": "Warmup"}}
        reply = {"type": "assistant", "uuid": "w2", "parentUuid": "w1", "sessionId": SESSION,
                 "agentId": "aw", "isSidechain": True, "timestamp": "2026-03-01T09:59:01.000Z",
                 "message": {"id": "msg_w", "model": "m", "role": "assistant",
                             "content": [{"type": "text", "text": "Ready."}], "usage": warmup}}
        (folder / "agent-aw.jsonl").write_text(json.dumps(first) + "\n" + json.dumps(reply)
                                               + "\n", encoding="utf-8")
        books.lines += 2
        books.response(warmup, carried=False)
    return books


@PROPERTY
@given(plan=steps, warmup=st.none() | usage)
def test_claude_code_books_balance(tmp_path_factory, plan, warmup):
    folder = tmp_path_factory.mktemp("cc")
    books = write_session(folder, plan, warmup)
    result = import_file("claude-code", folder / f"{SESSION}.jsonl")
    provenance = result.trace["provenance"]
    records, usage_ = provenance["records"], provenance["usage"]
    assert records["read"] == books.lines
    assert records["read"] == records["mapped"] + records["skipped"]
    assert (usage_["source"]["tokens_in"], usage_["source"]["tokens_out"]) == tuple(books.stated)
    assert (usage_["skipped"]["tokens_in"], usage_["skipped"]["tokens_out"]) == \
        tuple(books.skipped)
    carried = trace_usage(result.trace)
    assert (carried["tokens_in"], carried["tokens_out"]) == (
        books.stated[0] - books.skipped[0], books.stated[1] - books.skipped[1])
    assert conservation_problems(result.trace) == []
    assert sum(v for k, v in result.skipped.items() if k.startswith("unknown record type")) == \
        books.unknown
