"""Property (issue 18): the Codex importer balances its books on generated rollouts, in both
orders Codex writes token counts (after the response they price, as 0.125 does, or before it,
as 0.40 does).

The generator writes turns of model responses (a message, a tool call and its output, or
reasoning only), their token counts (cumulative totals, so no two differ only by chance; some
repeated word for word, as Codex does), counts without usage, interface events, and record types
no version had; it keeps its own books: lines written, tokens stated (each count once), tokens of
responses that give no event (reasoning only: skipped), and which response each count prices.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.traces.importers import import_file
from masrl.traces.importers._kit.accounting import conservation_problems

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
THREAD = "0199c0de-0000-7000-8000-00000000abcd"

response = st.tuples(st.sampled_from(["message", "call", "reasoning"]),
                     st.integers(min_value=0, max_value=9000),
                     st.integers(min_value=0, max_value=900), st.booleans())
noise = st.sampled_from(["null_count", "agent_message", "mystery"])
turn = st.tuples(st.lists(response, min_size=1, max_size=4), st.lists(noise, max_size=2))
plans = st.lists(turn, min_size=1, max_size=4)


def write(folder, plan, before: bool):
    lines: list[dict] = []
    books = {"stated": [0, 0], "skipped": [0, 0], "priced": [], "unknown": 0}
    total = [0, 0]

    def add(kind, payload):
        lines.append({"timestamp": f"2026-04-01T10:{len(lines) // 60:02d}:"
                                   f"{len(lines) % 60:02d}.000Z", "type": kind,
                      "payload": payload})

    add("session_meta", {"id": THREAD, "cli_version": "0.40.0" if before else "0.125.0"})
    for k, (responses, extras) in enumerate(plan):
        add("event_msg", {"type": "user_message", "message": f"task {k}"})
        add("turn_context", {"model": "m"})
        for extra in extras:
            if extra == "null_count":
                add("event_msg", {"type": "token_count", "info": None})
            elif extra == "agent_message":
                add("event_msg", {"type": "agent_message", "message": "..."})
            else:
                add("mystery_record", {"x": 1})
                books["unknown"] += 1
        for j, (kind, tokens_in, tokens_out, repeat) in enumerate(responses):
            total[0] += tokens_in
            total[1] += tokens_out
            last = {"input_tokens": tokens_in, "cached_input_tokens": tokens_in // 2,
                    "output_tokens": tokens_out, "reasoning_output_tokens": tokens_out // 3}
            info = {"total_token_usage": {"input_tokens": total[0], "output_tokens": total[1]},
                    "last_token_usage": last}
            counts = [{"type": "token_count", "info": info}] * (2 if repeat else 1)
            books["stated"][0] += tokens_in
            books["stated"][1] += tokens_out
            if before:
                for count in counts:
                    add("event_msg", count)
            add("response_item", {"type": "reasoning", "summary": [], "content": None})
            if kind == "message":
                add("response_item", {"type": "message", "role": "assistant",
                                       "content": [{"type": "output_text", "text": "ok"}]})
                books["priced"].append((len(lines), tokens_in + tokens_out))
            elif kind == "call":
                add("response_item", {"type": "function_call", "name": "shell",
                                       "arguments": "{}", "call_id": f"c{k}.{j}"})
                books["priced"].append((len(lines), tokens_in + tokens_out))
            else:
                books["skipped"][0] += tokens_in
                books["skipped"][1] += tokens_out
            if not before:
                for count in counts:
                    add("event_msg", count)
            if kind == "call":
                add("response_item", {"type": "function_call_output", "call_id": f"c{k}.{j}",
                                       "output": "done"})
    path = folder / f"rollout-2026-04-01T10-00-00-{THREAD}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path, len(lines), books


@PROPERTY
@given(plan=plans, before=st.booleans())
def test_codex_books_balance_in_either_order(tmp_path_factory, plan, before):
    path, written, books = write(tmp_path_factory.mktemp("codex"), plan, before)
    result = import_file("codex", path)
    provenance = result.trace["provenance"]
    records, usage = provenance["records"], provenance["usage"]
    assert records["read"] == written == records["mapped"] + records["skipped"]
    assert [usage["source"]["tokens_in"], usage["source"]["tokens_out"]] == books["stated"]
    assert [usage["skipped"]["tokens_in"], usage["skipped"]["tokens_out"]] == books["skipped"]
    assert conservation_problems(result.trace) == []
    assert result.recognised["shape"] == ("token_count before the response it prices" if before
                                          else "token_count after the response it prices")
    priced = {int(e["id"].split(":")[1]): e["tokens"] for e in result.trace["events"]
              if "tokens" in e}
    assert priced == dict(books["priced"])  # every count on the response it prices
    assert sum(v for k, v in result.skipped.items() if k.startswith("unknown record type")) == \
        books["unknown"]
