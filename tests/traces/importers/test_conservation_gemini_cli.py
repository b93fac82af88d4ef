"""Property (issue 18): the Gemini CLI importer balances its books on generated sessions.

The generator writes a JSON Lines session as Gemini CLI's recorder does: a metadata line, then
user turns and model responses (some written twice: first without, then with their tokens and
tool calls), metadata updates, interface notes, records of unknown shape and rewinds that drop
the end of the conversation. It keeps its books independently: lines written; for each message
id the copy that stands at the end; the tokens stated (each message once, its last copy); the
tokens of messages a rewind removed (skipped).
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

tokens = st.fixed_dictionaries({"input": st.integers(0, 9000), "output": st.integers(0, 500),
                                "cached": st.integers(0, 100), "thoughts": st.integers(0, 300),
                                "tool": st.integers(0, 50)})
action = st.one_of(
    st.tuples(st.just("user")),
    st.tuples(st.just("gemini"), tokens, st.booleans(), st.integers(0, 2)),  # rewritten, calls
    st.tuples(st.just("note")),
    st.tuples(st.just("set")),
    st.tuples(st.just("odd")),
    st.tuples(st.just("rewind"), st.integers(0, 10)))
plans = st.lists(action, min_size=1, max_size=12)


def write(folder, plan):
    lines = [{"sessionId": "prop", "projectHash": "h", "startTime": "2026-06-01T00:00:00Z",
              "lastUpdated": "2026-06-01T00:00:00Z"}]
    conversation: list[str] = []  # message ids, in order
    final: dict[str, dict] = {}  # id -> its last copy
    skipped = [0, 0]
    clock = [0]

    def stamp():
        clock[0] += 1
        return f"2026-06-01T00:{clock[0] // 60:02d}:{clock[0] % 60:02d}Z"

    def stated(message):
        t = message.get("tokens")
        return (t["input"] + t["tool"], t["output"] + t["thoughts"]) if t else (0, 0)

    for k, item in enumerate(plan):
        kind = item[0]
        if kind == "user":
            message = {"id": f"u{k}", "timestamp": stamp(), "type": "user",
                       "content": [{"text": "go"}]}
            lines.append(message)
        elif kind == "gemini":
            _, usage, rewritten, calls = item
            message = {"id": f"g{k}", "timestamp": stamp(), "type": "gemini", "content": "ok",
                       "model": "m"}
            if rewritten:
                lines.append(dict(message))
            message["tokens"] = dict(usage, total=0)
            if calls:
                message["toolCalls"] = [{"id": f"c{k}.{j}", "name": "read_file", "args": {},
                                         "status": "success", "result": [], "timestamp": stamp()}
                                        for j in range(calls)]
            lines.append(message)
        elif kind == "note":
            message = {"id": f"n{k}", "timestamp": stamp(), "type": "info", "content": "note"}
            lines.append(message)
        elif kind == "set":
            lines.append({"$set": {"lastUpdated": stamp()}})
            continue
        elif kind == "odd":
            lines.append({"surprise": k})
            continue
        else:
            if not conversation:
                continue
            target = conversation[min(item[1], len(conversation) - 1)]
            cut = conversation.index(target)
            for gone in conversation[cut:]:
                tokens_in, tokens_out = stated(final.pop(gone))
                skipped[0] += tokens_in
                skipped[1] += tokens_out
            del conversation[cut:]
            lines.append({"$rewindTo": target})
            continue
        conversation.append(message["id"])
        final[message["id"]] = message
    path = folder / "session-2026-06-01T00-00-prop.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    kept = [final[i] for i in conversation]
    stated_total = [skipped[0] + sum(stated(m)[0] for m in kept),
                    skipped[1] + sum(stated(m)[1] for m in kept)]
    return path, len(lines), kept, stated_total, skipped


@PROPERTY
@given(plan=plans)
def test_gemini_cli_books_balance(tmp_path_factory, plan):
    path, written, kept, stated, skipped = write(tmp_path_factory.mktemp("gemini"), plan)
    if not any(m["type"] in ("user", "gemini") for m in kept):
        return  # nothing to import: an error, not a trace
    result = import_file("gemini-cli", path)
    provenance = result.trace["provenance"]
    records, usage = provenance["records"], provenance["usage"]
    assert records["read"] == written == records["mapped"] + records["skipped"]
    assert records["mapped"] == sum(m["type"] in ("user", "gemini") for m in kept)
    assert [usage["source"]["tokens_in"], usage["source"]["tokens_out"]] == stated
    assert [usage["skipped"]["tokens_in"], usage["skipped"]["tokens_out"]] == skipped
    assert conservation_problems(result.trace) == []
    model_calls = sum("x_model_call" in e for e in result.trace["events"])
    assert model_calls == sum(m["type"] == "gemini" for m in kept)
