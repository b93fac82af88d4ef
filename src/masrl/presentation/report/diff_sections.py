"""The sections of ``masrl diff A B -o diff.html``: two runs of one task side by side, from
:func:`masrl.traces.diff.compare`, in the report's words and with the report's kit (tables that
fold, figures named in words, *not recorded* with the reason)."""

from __future__ import annotations

from collections import Counter

from masrl.presentation.report import labels as labelling
from masrl.presentation.report import names as naming
from masrl.presentation.report import words
from masrl.presentation.report.blocks import Bullets, Folded, Paragraph, Section, table
from masrl.presentation.report.sections import long_names_note
from masrl.presentation.tables import formatted
from masrl.traces import diff as diffs

SECTIONS = {  # key -> heading, in reading order
    "headline": "In short",
    "figures": "Figures side by side",
    "agents": "Agents",
    "tools": "Tool calls",
    "critical_path": "Critical paths",
    "credit": "Credit",
    "steps": "Step by step",
}
FIGURE_WORDS = {  # diff.FIGURES key -> (measure in words, how its value reads)
    "events": ("Events", "count"), "edges": ("Dependencies between events", "count"),
    "tool_calls": ("Tool calls", "count"), "messages": ("Messages", "count"),
    "critical_steps": ("Steps on the critical path", "count"),
    "parallelism": ("Parallelism (events per critical step)", "number:2"),
    "spawn_depth": ("Depth of spawning", "count"),
    "max_concurrency": ("Most sub-agents at once", "count"),
    "wall_clock": ("Duration", "duration"), "speedup": ("Speedup", "number:2"),
    "tokens.total": ("Tokens", "tokens"), "cost_usd.total": ("Recorded cost", "money"),
    "cost_usd_estimated.total": ("Estimated cost", "money"),
    "credit.team_reward": ("Team reward", "number"),
}
RULE_WORDS = {"shapley": "Shapley value", "recorded": "recorded rewards",
              "equal": "equal split of the team reward", None: "none (no team reward)"}
NOT_RECORDED = words.NOT_RECORDED


def shown(value, kind: str) -> str:
    if value is None:
        return NOT_RECORDED
    if kind == "duration":
        return words.duration(value)
    if kind == "money":
        return words.money(value)
    return formatted(value, kind)


def change(row: dict, kind: str) -> str:
    delta = row["change"]
    if delta is None:
        return "not comparable"
    if delta == 0:
        return "same"
    sign = "+" if delta > 0 else "−"
    if kind == "duration":
        return f"{sign}{words.duration(abs(delta))}"
    if kind == "money":
        return f"{sign}{words.money(abs(delta))}"
    return f"{sign}{formatted(abs(delta), kind)}"


def build(found: dict, label_a: str, label_b: str,
          heads: tuple[dict | None, dict | None] = (None, None)) -> list[Section]:
    """Every section of :data:`SECTIONS` for a comparison (``compare``'s result); ``heads``
    are the two traces' heads, whose labels the headline lists."""
    builders = {"headline": headline, "figures": figures, "agents": agents, "tools": tools,
                "critical_path": critical_paths, "credit": credit, "steps": steps}
    sections = [Section(key, title, builders[key](found, label_a, label_b))
                for key, title in SECTIONS.items()]
    sections[0].blocks += labels_blocks(*heads)
    sections[0].blocks += long_names_note(naming.long_names(compared_names(found, heads)))
    return sections


def page_title(found: dict) -> str:
    """The comparison page's title: the two traces' ids."""
    runs = found["runs"]
    return (f"Two runs compared: {naming.shown(runs['a']['trace_id'])} and "
            f"{naming.shown(runs['b']['trace_id'])}")


def compared_names(found: dict, heads: tuple = (None, None)) -> list[str]:
    """Every name the comparison page may show (:func:`.names.trace_names` of both runs, with
    the agents, tools and events the comparison names), each once."""
    runs, events = found["runs"], []
    for row in found["alignment"]:
        events += [step.get(key) for step in (row["a"], row["b"]) if step
                   for key in ("event", "tool")]
    return list(dict.fromkeys([
        *naming.trace_names({**(heads[0] or {}), **runs["a"]}),
        *naming.trace_names({**(heads[1] or {}), **runs["b"]}),
        *found["agents"]["per_agent"], *found["tools"],
        *(name for name in events if isinstance(name, str))]))


def label_lines(head_a: dict | None, head_b: dict | None) -> list[str]:
    """The labels of either run, one line each, A's first (:func:`.labels.line`)."""
    return [f"{side}: {labelling.line(label)}"
            for side, head in (("A", head_a), ("B", head_b))
            for label in labelling.labels_of(head)]


def labels_blocks(head_a: dict | None, head_b: dict | None) -> list:
    """What the source says of either run beyond what happened (its labels), one line each;
    nothing when neither run carries labels."""
    lines = label_lines(head_a, head_b)
    if not lines:
        return []
    counts = [len(labelling.labels_of(head)) for head in (head_a, head_b)]
    said = "; ".join(f"{side} carries {words.count(n, 'label', zero='no')}"
                     for side, n in zip("AB", counts))
    return [Paragraph(f"Labels the sources give: {said}, one line each below (masrl report "
                      "on either run shows them in full)."), Bullets(lines)]


def headline(found: dict, label_a: str, label_b: str) -> list:
    runs = found["runs"]
    task = found["same_task"]
    same = (f"Both are runs of task {naming.shown(runs['a']['task_id'])}." if task else
            f"They are runs of different tasks ({naming.shown(runs['a']['task_id'])} and "
            f"{naming.shown(runs['b']['task_id'])}), compared anyway." if task is False else
            "A run without a task id cannot be checked to be of the same task.")
    blocks = [Paragraph(f"A is {naming.shown(runs['a']['trace_id'])} ({label_a}); B is "
                        f"{naming.shown(runs['b']['trace_id'])} ({label_b}). {same}")]
    said = []
    for key in ("events", "tool_calls", "wall_clock", "tokens.total", "cost_usd.total",
                "credit.team_reward"):
        row, (measure, kind) = found["figures"][key], FIGURE_WORDS[key]
        left, right = shown(row["a"], kind), shown(row["b"], kind)
        said.append(f"{measure.lower()} {left} in both" if left == right != NOT_RECORDED
                    else f"{measure.lower()} not recorded in either" if left == right
                    else f"{measure.lower()} {left} in A and {right} in B")
    sentence = words.words(said)
    blocks.append(Paragraph(sentence[:1].upper() + sentence[1:] + "."))
    people = found["agents"]
    both = [name for name in people["per_agent"] if name not in people["only_a"]
            and name not in people["only_b"]]
    acting = ("no agent acts" if not both else
              f"{words.count(len(both), 'agent')} {'acts' if len(both) == 1 else 'act'}"
              ) + " in both runs"
    blocks.append(Paragraph(
        acting[:1].upper() + acting[1:]
        + (f"; {words.listed(naming.shown_all(people['only_a']))} only in A"
           if people["only_a"] else "")
        + (f"; {words.listed(naming.shown_all(people['only_b']))} only in B"
           if people["only_b"] else "")
        + "."))
    events = found["figures"]["events"]
    blocks.append(Paragraph(divergence_sentence(found["first_divergence"],
                                                (events["a"], events["b"]))))
    return blocks


VERBS = {  # event type -> what its agent does, as a sentence says it
    "orchestrator_decision": "makes a decision", "spawn": "spawns an agent",
    "despawn": "ends an agent", "message": "sends a message", "tool_call": "calls a tool",
    "tool_result": "answers a tool call", "return": "returns its result",
    "aggregate": "aggregates results", "human_intervention": "intervenes",
    "safety_event": "raises a safety event",
}


def _step(event: dict | None, run: str, ended: bool) -> str:
    if event is None:  # a step of the other run only: this run has ended, or goes on otherwise
        return f"{run} has ended" if ended else f"{run} takes no such step"
    tool = f" ({naming.shown(event['tool'])})" if event.get("tool") else ""
    return f"in {run}, {naming.shown(event['agent'])} {VERBS[event['type']]}{tool}"


def _first_steps(n: int) -> str:
    """``first step`` for one, ``first 21 steps`` for more."""
    return "first step" if n == 1 else f"first {words.count(n, 'step')}"


def divergence_sentence(first: dict | None, steps: tuple[int, int]) -> str:
    """Where two runs part, in words; ``steps`` is each run's number of steps (its events), so
    that a run with no step there is said to have ended only when it has none left."""
    if first is None:
        return "The two runs take the same steps, agent by agent, in the same order."
    shared = first["same_steps_before"]
    start = (f"The runs take the same {_first_steps(shared)}, then part" if shared
             else "The runs part at their first step")
    return (f"{start}: {_step(first['a'], 'A', steps[0] <= shared)}, "
            f"where {_step(first['b'], 'B', steps[1] <= shared)}.")


def figures(found: dict, label_a: str, label_b: str) -> list:
    rows = []
    notes = []
    for key, row in found["figures"].items():
        measure, kind = FIGURE_WORDS[key]
        rows.append([measure, shown(row["a"], kind), shown(row["b"], kind), change(row, kind)])
        why = {side: words.reason(text) for side, text in (row.get("not_recorded") or {}).items()}
        if len(why) == 2 and why["a"] == why["b"]:
            notes.append(f"{measure} in both: {why['a']}")
        else:
            notes += [f"{measure} in {side.upper()}: {reason}" for side, reason in why.items()]
    shown_table = table(["measure", "A", "B", "change from A to B"], ["text", "number", "number",
                                                                "number"], rows,
                  "The two runs' figures", notes=("Not recorded: " + "; ".join(notes) + ".")
                  if notes else None)
    return [shown_table]


def agents(found: dict, label_a: str, label_b: str) -> list:
    rows = []
    for name, values in found["agents"]["per_agent"].items():
        row = [naming.shown(name)]
        for key, kind in (("events", "count"), ("tool_calls", "count"), ("tokens", "tokens")):
            left, right = values[key]
            row += [_absent(left, kind, name in found["agents"]["only_b"]),
                    _absent(right, kind, name in found["agents"]["only_a"])]
        rows.append(row)
    return [Folded(table(["agent", "events in A", "events in B", "tool calls in A",
                          "tool calls in B", "tokens in A", "tokens in B"],
                         ["code", "number", "number", "number", "number", "number", "number"],
                         rows, "Each agent in each run"))]


def _absent(value, kind: str, missing_agent: bool) -> str:
    if missing_agent:
        return "not in this run"
    return shown(value, kind)


def tools(found: dict, label_a: str, label_b: str) -> list:
    if not found["tools"]:
        return [Paragraph("Neither run calls a tool.")]
    rows = [[naming.shown(tool), formatted(a, "count"), formatted(b, "count"),
             change({"change": b - a}, "count")] for tool, (a, b) in found["tools"].items()]
    return [Folded(table(["tool", "calls in A", "calls in B", "change"],
                         ["code", "count", "count", "text"], rows, "Tool calls per tool"))]


def critical_paths(found: dict, label_a: str, label_b: str) -> list:
    paths = found["critical_path"]
    same = paths["same_first_steps"]
    agree = (f"The two paths take the same {_first_steps(same)}." if same
             else "The two paths differ from their first step.")
    blocks = [Paragraph(
        "Each run's critical path (its longest chain of events in which each waited for the "
        f"one before), folded into runs of consecutive steps by one agent. {agree}")]
    for side in ("a", "b"):
        rows, step = [], 1
        for run in paths[side]:
            last = step + run["steps"] - 1
            rows.append([f"{step:,}" if step == last else f"{step:,} to {last:,}",
                         naming.shown(run["agent"]),
                         formatted(run["steps"], "count")])
            step = last + 1
        blocks.append(Folded(table(["steps", "agent", "events"], ["text", "code", "count"],
                                   rows, f"The critical path of {side.upper()}")))
    return blocks


def credit(found: dict, label_a: str, label_b: str) -> list:
    rules = found["credit"]["rule"]
    if rules["a"] is None and rules["b"] is None:
        return [Paragraph("Neither run records a team reward, so neither has credit to "
                          "compare. masrl replay with an outcome model (--outcome) gives "
                          "each run credit from an outcome; see masrl report on either run.")]
    people = found["agents"]
    rows = [[naming.shown(name), _absent(a, "number:3", name in people["only_b"]),
             _absent(b, "number:3", name in people["only_a"])]
            for name, (a, b) in found["credit"]["per_agent"].items()]
    return [Paragraph(f"Credit per agent: in A, {RULE_WORDS[rules['a']]}; in B, "
                      f"{RULE_WORDS[rules['b']]}."),
            Folded(table(["agent", "credit in A", "credit in B"], ["code", "number", "number"],
                         rows, "Credit per agent in each run"))]


def steps(found: dict, label_a: str, label_b: str) -> list:
    tally: dict[str, Counter] = {}
    for row in found["alignment"]:
        tally.setdefault(row["agent"], Counter())[row["status"]] += 1
    statuses = (diffs.SAME, diffs.CHANGED, diffs.ONLY_A, diffs.ONLY_B)
    summary = [[naming.shown(agent), *(formatted(counts.get(s, 0), "count") for s in statuses)]
               for agent, counts in tally.items()]
    blocks: list = [
        Paragraph("Each agent's steps in A matched with its steps in B, in order (a longest "
                  "common run of the same kinds of step): the same, changed (the step at that "
                  "place differs), or found in one run only."),
        Folded(table(["agent", "same", "changed", "only in A", "only in B"],
                     ["code", "count", "count", "count", "count"], summary,
                     "Steps matched, agent by agent"))]
    differing = [row for row in found["alignment"] if row["status"] != diffs.SAME]
    if differing:
        rows = [[naming.shown(row["agent"]), row["status"], _event_text(row["a"]),
                 _event_text(row["b"])]
                for row in differing]
        blocks.append(Folded(table(["agent", "how", "step in A", "step in B"],
                                   ["code", "text", "text", "text"], rows,
                                   "The steps that differ")))
    return blocks


def _event_text(event: dict | None) -> str:
    if event is None:
        return "none"
    tool = f" ({naming.shown(event['tool'])})" if event.get("tool") else ""
    return (f"{event['step']:,}: {event['type'].replace('_', ' ')}{tool}, "
            f"event {naming.shown(event['event'])}")
