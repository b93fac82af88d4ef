"""Property (issue 18): the ATIF importer balances its books on generated trajectories.

The generator writes a root trajectory of random steps (user turns, agent turns with a message,
tool calls answered or not, metrics with prompt and completion tokens and a cost, or only a
total; system steps; steps copied from an earlier segment) whose observation results may
reference several embedded sub-agents at once, each with steps of its own; it keeps its books
independently: steps written (sub-agents included), steps that must be skipped (system steps
without references, copied steps), the tokens and dollars the metrics state, and the sub-agents
that must be spawned.
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

metrics = st.one_of(
    st.none(),
    st.tuples(st.just("split"), st.integers(0, 5000), st.integers(0, 500),
              st.sampled_from([None, 0.001, 0.25])),
    st.tuples(st.just("total"), st.integers(0, 5000)))
step = st.one_of(
    st.tuples(st.just("user")),
    st.tuples(st.just("system")),
    st.tuples(st.just("copied")),
    st.tuples(st.just("agent"), st.integers(0, 3), st.booleans(), metrics,
              st.integers(0, 3)))  # calls, answered, metrics, sub-agents referenced
plans = st.lists(step, min_size=1, max_size=8)


class Books:
    def __init__(self):
        self.steps = 0
        self.skipped = 0
        self.stated = [0, 0, 0.0]
        self.subagents = 0


def agent_step(number, calls, answered, usage, books, prefix):
    step = {"step_id": number, "source": "agent", "message": f"turn {number}",
            "timestamp": f"2026-05-01T10:00:{number:02d}Z"}
    if calls:
        step["tool_calls"] = [{"tool_call_id": f"{prefix}c{number}.{k}", "function_name": "run",
                               "arguments": {"k": k}} for k in range(calls)]
        if answered:
            step["observation"] = {"results": [{"source_call_id": f"{prefix}c{number}.{k}",
                                                "content": "ok"} for k in range(calls)]}
    if usage is not None and usage[0] == "split":
        _, prompt, completion, cost = usage
        step["metrics"] = {"prompt_tokens": prompt, "completion_tokens": completion}
        books.stated[0] += prompt
        books.stated[1] += completion
        if cost is not None:
            step["metrics"]["cost_usd"] = cost
            books.stated[2] += cost
    elif usage is not None:
        step["metrics"] = {"extra": {"total_tokens": usage[1]}}
    return step


def build(plan) -> tuple[dict, Books]:
    books = Books()
    steps, subs = [], []
    for number, item in enumerate(plan, start=1):
        books.steps += 1
        kind = item[0]
        if kind in ("user", "system", "copied"):
            step = {"step_id": number, "source": "system" if kind == "system" else "user",
                    "message": kind, "timestamp": f"2026-05-01T10:00:{number:02d}Z"}
            if kind == "copied":
                step["is_copied_context"] = True
            books.skipped += kind != "user"
            steps.append(step)
            continue
        _, calls, answered, usage, referenced = item
        step = agent_step(number, calls, answered, usage, books, "")
        if referenced:
            refs = []
            for m in range(referenced):
                name = f"sub-{number}-{m}"
                refs.append({"trajectory_id": name})
                subs.append({"schema_version": "ATIF-v1.8", "trajectory_id": name,
                             "agent": {"name": "helper", "version": "1"},
                             "steps": [{"step_id": 1, "source": "user", "message": "task",
                                        "timestamp": f"2026-05-01T10:00:{number:02d}Z"},
                                       agent_step(2, 1, True, ("split", 10 * (m + 1), m, None),
                                                  books, name)]})
                books.steps += 2
                books.subagents += 1
            step.setdefault("observation", {"results": []})["results"].append(
                {"content": "delegated", "subagent_trajectory_ref": refs})
        steps.append(step)
    document = {"schema_version": "ATIF-v1.8", "session_id": "p", "trajectory_id": "root",
                "agent": {"name": "prop", "version": "1"}, "steps": steps}
    if subs:
        document["subagent_trajectories"] = subs
    return document, books


@PROPERTY
@given(plan=plans)
def test_atif_books_balance(tmp_path_factory, plan):
    document, books = build(plan)
    if all(item[0] in ("system", "copied") for item in plan):
        return  # nothing to import: an error, not a trace
    path = tmp_path_factory.mktemp("atif") / "trajectory.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = import_file("atif", path)
    provenance = result.trace["provenance"]
    records, usage = provenance["records"], provenance["usage"]
    assert records["read"] == books.steps == records["mapped"] + records["skipped"]
    assert records["skipped"] == books.skipped
    stated = usage["source"]
    assert (stated["tokens_in"], stated["tokens_out"]) == tuple(books.stated[:2])
    assert abs(stated["cost_usd"] - books.stated[2]) < 1e-9
    assert conservation_problems(result.trace) == []
    spawned = [e for e in result.trace["events"] if e["type"] == "spawn"]
    returned = [e for e in result.trace["events"] if e["type"] == "return"]
    assert len(spawned) == len(returned) == books.subagents
