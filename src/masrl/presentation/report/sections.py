"""The sections of the trace report, built from a validation report and a replay as plain rows
and sentences: what ``masrl report`` writes into its page and what the book's chapter 22 shows,
from the same builders.

:data:`SECTIONS` is the one list of sections, in the order a reader meets them; :func:`build`
returns them all, for a valid trace or an invalid one (whose later sections say they were
skipped). Figures the log cannot support are *not recorded*, with the reason
(:mod:`.facts`); metric names are words, each with a line saying what it means.
"""

from __future__ import annotations

import shlex
from collections import Counter
from dataclasses import dataclass

import numpy as np

from masrl.presentation.report import agent_graph, names, words
from masrl.presentation.report import labels as labelling
from masrl.presentation.report import steps as step_lists
from masrl.presentation.report import timeline as timelines
from masrl.presentation.report.agents import SPAWNED, TOOL, agent_kinds, agent_order
from masrl.presentation.report.blocks import (
    Chart,
    Commands,
    Drawing,
    Folded,
    FullNames,
    Paragraph,
    Section,
    StepList,
    table,
)
from masrl.presentation.report.facts import SECONDS, Facts
from masrl.presentation.tables import Table, formatted
from masrl.traces import credit, metrics
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.provenance import thin
from masrl.traces.replay import NonFiniteResult, Replay
from masrl.traces.validate import TraceProblem, ValidationReport

SECTIONS = {  # key -> the heading a reader sees, in reading order
    "headline": "In short",
    "validation": "Validation",
    "numbers": "The run in numbers",
    "labels": "Labels",
    "agents": "Who worked with whom",
    "timeline": "Timeline",
    "critical_path": "Critical path",
    "steps": "Step by step",
    "credit": "Credit",
}
NOT_RECORDED = words.NOT_RECORDED
SKIPPED_LISTED = 3  # reasons named in the first line of a thin import
MAX_RANKED_ROWS = 100  # the ranking's table lists this many first ranks, and every labelled step
EVENT_WORDS = words.EVENT_WORDS
UNIT_WORDS = {  # credit unit -> how the table names it
    "team": "the team", "orchestrator": "orchestration decisions", "role": "roles",
    "agent": "agents", "turn": "turns", "message": "messages", "tool_call": "tool calls",
    "token": "tokens",
}


@dataclass
class Subject:
    """What the report is about: ``label`` names the file on the page; ``path`` is the file
    the reader has (for the commands the page suggests); ``imported_as`` the log format it was
    imported from (``None`` for a trace file)."""

    label: str
    path: str
    imported_as: str | None = None


def replayed(report: ValidationReport) -> Replay | None:
    """The replay of a valid trace, else ``None``. A trace whose figures overflow a double
    (:class:`~masrl.traces.replay.NonFiniteResult`) gets ``None`` too, its reason added to the
    report's problems, so the report shows why instead of a traceback."""
    from masrl.traces import replay as replay_trace

    if not report.valid:
        return None
    try:
        return replay_trace(report.trace)
    except NonFiniteResult as exc:
        report.problems.append(TraceProblem("error", "non-finite", exc.key, "", str(exc)))
        return None


def verdict(report: ValidationReport) -> str:
    """One line: valid or invalid, with the numbers of errors and warnings."""
    state = "valid" if report.valid else "invalid"
    return (f"{state}: {words.count(len(report.errors), 'error')}, "
            f"{words.count(len(report.warnings), 'warning')}")


def build(report: ValidationReport, replay: Replay | None, subject: Subject) -> list[Section]:
    """Every section of :data:`SECTIONS`, in order, for one trace."""
    facts = Facts(replay) if replay is not None else None
    builders = {"headline": headline, "validation": validation, "numbers": numbers,
                "labels": labels_section, "agents": agents, "timeline": timeline,
                "critical_path": critical_path, "steps": steps_section,
                "credit": credit_section}
    found = []
    for key, title in SECTIONS.items():
        if key in ("headline", "validation"):
            blocks = builders[key](report, facts, subject)
        elif facts is None:
            blocks = [skipped()]
        else:
            blocks = builders[key](facts, subject)
        found.append(Section(key, title, blocks))
    return found


def skipped(reason: str = "the trace is invalid (see Validation)") -> Paragraph:
    """What a section shows instead of its content."""
    return Paragraph(f"Skipped: {reason}.")


# ---------------------------------------------------------------------------------- headline

def import_account(head: dict, events: int) -> dict | None:
    """What an importer kept of its source (``None`` for a trace not imported, or imported by
    an importer that keeps no account): records ``read``, ``mapped``, ``skipped``, their
    ``unit``, the ``reasons`` records were skipped for (largest first) and whether the import
    is ``thin`` by the toolkit's one rule (:func:`masrl.traces.provenance.thin`, which
    ``masrl import`` and ``masrl validate`` warn by), for a trace of ``events`` events."""
    provenance = head.get("provenance") or {}
    records = provenance.get("records")
    if not isinstance(records, dict) or not records.get("read"):
        return None
    reasons = sorted((provenance.get("skipped") or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    return {**records, "format": provenance.get("format"), "reasons": reasons,
            "thin": thin(provenance, events) is not None}


def import_line(account: dict, events: int) -> Paragraph:
    """The first line of a thin import's report: how many events from how many records, and
    what was skipped."""
    unit = account["unit"]
    named = [f"{reason} ({n:,})" for reason, n in account["reasons"][:SKIPPED_LISTED]]
    more = len(account["reasons"]) - SKIPPED_LISTED
    if more > 0:
        named.append(f"{more} more reasons")
    return Paragraph(
        f"A thin import: {words.count(events, 'event')} from the log's "
        f"{words.count(account['read'], unit)}; {words.count(account['mapped'], unit)} kept, "
        f"{account['skipped']:,} skipped ({words.share(account['skipped'] / account['read'])})"
        + (f": {words.listed(named, SKIPPED_LISTED + 1)}" if named else "")
        + ". Everything below describes only what was kept.", tone="warning")


def headline(report: ValidationReport, facts: Facts | None, subject: Subject) -> list:
    blocks: list = []
    trace = report.trace
    account = import_account(trace.head, trace.events.count) if trace is not None else None
    if account is not None and account["thin"]:
        blocks.append(import_line(account, trace.events.count))
    if facts is None:
        blocks.append(Paragraph(f"The trace at {subject.label} is {verdict(report)}. "
                                "Validation lists its problems; nothing else can be computed "
                                "from an invalid trace."))
        return blocks
    blocks.append(Paragraph(run_sentence(facts)))
    blocks.append(Paragraph(parallelism_sentence(facts)))
    blocks.append(Paragraph(usage_sentence(facts)))
    said = labels_sentence(facts)
    if said:
        blocks.append(Paragraph(said))
    return blocks


def labels_sentence(facts: Facts) -> str | None:
    """What the source's labels are about, in one sentence (``None`` without labels)."""
    found = labelling.labels_of(facts.run.trace.head)
    if not found:
        return None
    given = words.listed(list(dict.fromkeys(label.given_by for label in found)), 3)
    topics = list(dict.fromkeys(labelling.about(facts, label) for label in found))
    return (f"The log carries {words.count(len(found), 'label')} ({given}), about "
            f"{words.listed(topics, 3)}: Labels lists them{_marked(facts)}.")


def _marked(facts: Facts) -> str:
    """Where the page marks what the labels name (``""`` when they name no step or agent)."""
    steps, agents = labelling.labelled_events(facts), labelling.labelled_agents(facts)
    if steps and agents:
        return ("; the timeline marks the labelled steps and agents, the step list the "
                "labelled steps")
    if steps:
        return "; the timeline and the step list mark the labelled steps"
    if agents:
        return "; the timeline marks the labelled agents"
    return ""


def acting_agents(facts: Facts) -> list[str]:
    kinds = agent_kinds(facts.run)
    return [name for name in agent_order(facts.run) if kinds[name] != TOOL]


def run_sentence(facts: Facts) -> str:
    """Who took part, what they did, for how long, and how much of it was one chain."""
    kinds = agent_kinds(facts.run)
    agents = acting_agents(facts)
    spawned = sum(kinds[name] == SPAWNED for name in agents)
    spawn_note = f", {spawned} of them spawned by another" if spawned else ""
    data = facts.data
    if facts.clock == SECONDS and facts.get("wall_clock") is not None:
        over = f" over {words.duration(facts.get('wall_clock'))}"
    else:
        over = (f"; its duration is {NOT_RECORDED} "
                f"({facts.reason('wall_clock') or 'the log records no times'})")
    sentence = (f"This run has {words.count(len(agents), 'agent')} "
                f"({words.listed(names.shown_all(agents))}{spawn_note}) that made "
                f"{words.count(data['tool_calls'], 'tool call', zero='no')} and sent "
                f"{words.count(data['messages'], 'message', zero='no')}{over}. ")
    path = metrics.critical_path(facts.run)
    events = data["events"]
    sentence += (f"Its critical path, the longest chain of events in which each waited for the "
                 f"one before, holds {len(path):,} of its {words.count(events, 'event')} "
                 f"({words.share(len(path) / events)})")
    share = critical_time_share(facts)
    if share is not None:
        sentence += f" and spans {words.share(share)} of the run's time"
    return sentence + "."


def critical_time_share(facts: Facts) -> float | None:
    """The share of the run's duration between the start of the critical path's first event
    and the end of its last (``None`` without a clock or a duration)."""
    wall = facts.get("wall_clock")
    if facts.clock != SECONDS or not wall:
        return None
    events = facts.run.trace.events
    path = metrics.critical_path(facts.run)
    return float(events.end[path[-1]] - events.start[path[0]]) / wall


def parallelism_sentence(facts: Facts) -> str:
    """What the run's parallelism means, in words."""
    p = facts.data["parallelism"]
    steps, events = facts.data["critical_steps"], facts.data["events"]
    if p <= 1 + 1e-9:
        verdict_ = "strictly sequential: every event waited for the one before it"
    elif p < 1.5:
        verdict_ = "nearly sequential: almost every event waited for the one before it"
    elif p < 3:
        verdict_ = "partly parallel: some events ran beside the critical path"
    else:
        verdict_ = "highly parallel: many events ran beside the critical path"
    per_step = words.number(p)
    return (f"Parallelism is {per_step}: its {words.count(events, 'event')} fit in "
            f"{words.count(steps, 'dependent step')}, {per_step} "
            f"{'event' if per_step == '1' else 'events'} per step, so the run was {verdict_}. "
            "A run in which each event waits for the last scores 1; one of n events that all "
            "run at once scores n.")


def usage_sentence(facts: Facts) -> str:
    """Tokens, recorded and estimated cost, and the team reward, each or why not."""
    tokens = facts.get("tokens.total")
    parts = [f"The events record {words.count(tokens, 'token')}" if tokens is not None
             else f"Tokens are {NOT_RECORDED} ({facts.reason('tokens.total')})"]
    cost = facts.get("cost_usd.total")
    uncosted = facts.get("cost_usd.model_calls_without_cost")
    if cost is not None and uncosted:
        parts.append(f"a recorded cost of {words.money(cost)}, partly recorded: "
                     f"{words.count(uncosted, 'model call')} (events that record tokens) "
                     "record no cost of their own")
    elif cost is not None:
        parts.append(f"a recorded cost of {words.money(cost)}")
    else:
        parts.append(f"the cost is {NOT_RECORDED} ({facts.reason('cost_usd.total')})")
    parts.append(estimate_phrase(facts))
    reward = facts.get("credit.team_reward")
    sentence = "; ".join(parts) + ". "
    if reward is None:
        sentence += (f"The team reward is {NOT_RECORDED} ({facts.reason('credit.team_reward')}), "
                     "so Credit says how to get one.")
    else:
        sentence += f"The log records a team reward of {words.number(reward, 3)}."
    return sentence


def estimate_phrase(facts: Facts) -> str:
    """The estimated cost (contract: ``cost_usd_estimated``), its price table, the models it
    does not know; or why there is none."""
    estimate = facts.data.get("cost_usd_estimated")
    total = facts.get("cost_usd_estimated.total")
    if total is None or not isinstance(estimate, dict):
        return f"no cost is estimated ({facts.reason('cost_usd_estimated.total') or 'no estimate'})"
    table = estimate.get("price_table") or {}
    source = " ".join(str(table[k]) for k in ("source", "version") if table.get(k))
    unknown = estimate.get("unknown_models") or []
    text = f"estimated at {words.money(total)} from the token counts"
    if source:
        text += f" (price table: {source})"
    if unknown:
        text += f", leaving out {words.listed(names.shown_all(map(str, unknown)))}, unknown to that table"
    return text


# -------------------------------------------------------------------------------- validation

def validation(report: ValidationReport, facts: Facts | None, subject: Subject) -> list:
    trace = report.trace
    blocks: list = []
    if trace is None:
        blocks.append(Paragraph(f"The trace at {subject.label} is {verdict(report)}; it holds "
                                "no readable events."))
    else:
        head = trace.head
        blocks.append(Paragraph(
            f"The trace at {subject.label} is {verdict(report)}. Its id is "
            f"{names.shown(head.get('trace_id', '(none)'))}, its stated topology "
            f"{names.shown(head.get('topology', '(not stated)'))}, and it holds "
            f"{words.count(trace.events.count, 'event')}. An error makes a trace invalid; a "
            "warning does not."))
    if report.problems:
        rows = [[p.severity, p.code, names.shown_within(p.where), names.shown_within(p.message)]
                for p in report.problems]
        blocks.append(Folded(table(["severity", "problem", "where", "what is wrong"],
                                   ["text", "code", "code", "text"], rows,
                                   "The problems found, each with where it is")))
    else:
        blocks.append(Paragraph("No problems found."))
    if trace is not None:
        blocks += long_names_blocks(trace)
    account = import_account(trace.head, trace.events.count) if trace is not None else None
    if account is not None:
        skipped = (f"skipped {account['skipped']:,}; every skipped record is counted under "
                   "its reason below" if account["reasons"] else "skipped none")
        blocks.append(Paragraph(
            f"The {account['format'] or 'log'} importer read "
            f"{words.count(account['read'], account['unit'])} of the log, kept "
            f"{account['mapped']:,} and {skipped}."))
        if account["reasons"]:
            rows = [[reason, formatted(n, "count")] for reason, n in account["reasons"]]
            blocks.append(Folded(table(["what was skipped", "how many"], ["text", "count"],
                                       rows, "What the import left out, by reason")))
    return blocks


def long_names_blocks(trace) -> list:
    """What the page does with the trace's long names (:mod:`.names`), and the names in full,
    folded away; nothing when every name is short."""
    records = trace.event_records
    return long_names_note(names.long_names(names.trace_names(
        trace.head, trace.events.agent_names, trace.events.ids,
        [*records.optional("tool"), *records.optional("to"), *records.optional("role"),
         *records.optional("decision")])))


def long_names_note(found: list[tuple[str, str]]) -> list:
    """For the long names ``found`` (``(shown, full)``, :func:`.names.long_names`): a paragraph
    saying how the page shows them, and the names in full, folded away; nothing for none."""
    if not found:
        return []
    return [Paragraph(
        f"{words.count(len(found), 'name')} {'is' if len(found) == 1 else 'are'} longer than "
        f"{names.LONGEST} characters. The page shows {'it' if len(found) == 1 else 'each'} by "
        f"its first and last {names.KEPT} characters around a code drawn from the whole name "
        "(first…#code…last), so that two names that begin and end alike still differ; the "
        f"full {'name is' if len(found) == 1 else 'names are'} here:"), FullNames(found)]


# ----------------------------------------------------------------------------------- numbers

def _row(facts: Facts, measure: str, key: str | None, value, kind: str,
         meaning: str) -> list[str]:
    reason = facts.reason(key) if key else None
    if reason is not None or value is None:
        return [measure, NOT_RECORDED, f"{meaning} Not recorded: {reason or 'not in the log'}."]
    return [measure, formatted(value, kind) if kind != "text" else str(value), meaning]


def _lower_bound(facts: Facts, again: bool = False) -> str:
    """What the figures built on time inside events miss when some events are instants (said
    in full once, then referred to)."""
    instants = facts.instants()
    if not instants or facts.reason("busy_time"):
        return ""
    if again:
        return " It may be low here for the same reason as time inside events."
    return (f" Here {instants:,} of the {facts.data['events']:,} events are instants in the "
            "log (no end time or duration): any time they took (a model writing a reply, say) "
            "counts in the duration but inside no event, so this figure may be low.")


def numbers(facts: Facts, subject: Subject) -> list:
    return [numbers_table(facts)]


def numbers_table(facts: Facts) -> Table:
    """The run's figures, named in words, each with what it means."""
    data = facts.data
    busy = facts.get("busy_time")
    busy_total = sum(v for v in busy.values() if v is not None) if isinstance(busy, dict) \
        else None
    wall = facts.get("wall_clock")
    speedup = facts.get("speedup")
    agents = acting_agents(facts)
    estimate = facts.get("cost_usd_estimated.total")
    rows = [
        _row(facts, "Events", None, data["events"], "count",
             "Everything the log records an agent doing: messages, tool calls and their "
             "results, spawns, decisions, returns."),
        _row(facts, "Agents", None, len(agents), "count",
             "Names that act; tools that only answer calls are not counted."),
        _row(facts, "Tool calls", None, data["tool_calls"], "count",
             "Requests an agent made to a tool."),
        _row(facts, "Messages", None, data["messages"], "count",
             "Messages between agents, or between an agent and the user."),
        _row(facts, "Steps on the critical path", None, data["critical_steps"], "count",
             "Events on the longest chain in which each event waited for the one before."),
        _row(facts, "Parallelism", None, data["parallelism"], "number:2",
             "Events per step of that chain: 1 when everything happens one event after "
             "another."),
        _row(facts, "Depth of spawning", None, data["spawn_depth"], "count",
             "Levels of agents spawned by agents: 0 when no agent was spawned."),
        _row(facts, "Most sub-agents at once", None, data["max_concurrency"], "count",
             "The largest number of spawned agents alive at the same moment."),
        _row(facts, "Duration", "wall_clock",
             None if wall is None else words.duration(wall), "text",
             "From the first event's start to the last event's end."),
        _row(facts, "Time inside events", "busy_time",
             None if busy_total is None else words.duration(busy_total), "text",
             "The time each agent spent inside its events, added up over the agents."
             + _lower_bound(facts)),
        _row(facts, "Speedup", "speedup", speedup, "number:2",
             "Time inside events over the duration: how much faster the run was than one "
             "agent doing all the work in turn." + _lower_bound(facts, again=True)),
        _row(facts, "Tokens", "tokens.total", facts.get("tokens.total"), "tokens",
             "Prompt and completion tokens the events record."),
        _row(facts, "Recorded cost", "cost_usd.total",
             None if facts.get("cost_usd.total") is None
             else words.money(facts.get("cost_usd.total")), "text",
             "Dollars the log itself states."),
        _row(facts, "Estimated cost", "cost_usd_estimated.total",
             None if estimate is None else words.money(estimate), "text",
             "Dollars estimated from the token counts and a price table, kept apart from a "
             "recorded cost."),
    ]
    return table(["measure", "value", "what it means"], ["text", "number", "text"], rows,
                 "The run's figures, each with what it means")


# ------------------------------------------------------------------------------------ labels

def labels_section(facts: Facts, subject: Subject) -> list:
    found = labelling.labels_of(facts.run.trace.head)
    if not found:
        return [Paragraph(
            "The trace holds no labels: its source gives no gold answer and no annotation of "
            "the run. masrl import keeps those a log carries: a benchmark's gold answers "
            "(Who&When's mistake agent, step and reason) and a tracing tool's annotations "
            "(Langfuse scores, Phoenix span annotations).")]
    given = words.listed(list(dict.fromkeys(label.given_by for label in found)), 3)
    blocks: list = [Paragraph(
        f"The source labels this run: {words.count(len(found), 'label')} ({given}), shown as "
        f"it gives them. Replay and credit compute nothing from them{_marked(facts)}.")]
    blocks.append(Folded(labels_table(facts, found)))
    return blocks + ranking_blocks(facts)


def labels_table(facts: Facts, found: list | None = None) -> Table:
    """Every label: its name, what it says, what it is about on this run, who gave it, and the
    annotator's comment where one is."""
    found = labelling.labels_of(facts.run.trace.head) if found is None else found
    comments = any(label.comment for label in found)
    rows = []
    for label in found:
        said = label.said + (f" ({label.category})" if label.category else "")
        if label.truncated:
            said += " (cut at 4,096 bytes by the import)"
        row = [names.shown(label.name), words.visible(said), labelling.about(facts, label),
               label.given_by]
        if comments:
            row.append(words.visible(label.comment) if label.comment else "none")
        rows.append(row)
    header = ["label", "what it says", "about", "given by"] + (["comment"] if comments else [])
    return table(header, ["text"] * len(header), rows, "The labels, as the source gives them",
                 notes="Steps are counted from 1 in the run's order; the event id is the "
                 "source's own name for the record (a source may count its steps another "
                 "way: Who&When counts its history from 0)."
                 if any(label.event for label in found) else None)


def _step_words(facts: Facts, i: int) -> str:
    events = facts.run.trace.events
    step = int(labelling.step_numbers(facts)[i])
    return f"step {step:,} (event {names.shown(events.ids[i])}, by {names.shown(events.agent(i))})"


def _the_labels(found: list) -> str:
    """``the label x is`` or ``the labels x and y are``."""
    said = list(dict.fromkeys(names.shown(label.name) for label in found))
    return (f"the label {said[0]} is" if len(said) == 1
            else f"the labels {labelling.names_of(found)} are")


def ranking_blocks(facts: Facts) -> list:
    """Where each labelled step ranks by counterfactual credit (:func:`.labels.ranking`), with
    the ranking as a table; or why there is no ranking."""
    ranked = labelling.ranking(facts)
    if isinstance(ranked, str):
        return [Paragraph(f"No ranking by counterfactual credit (chapter 27): {ranked}.")]
    blocks: list = [Paragraph(
        f"Beside the labels, counterfactual credit as chapter 27 computes it ranks the "
        f"{words.count(len(ranked.order), 'step')} of the run's agents (the human who gives "
        "the task is not ranked). No step was ever run again, so an outcome model stands in: "
        "under the decisive-step model, a step's leave-one-out credit is what the run's "
        "expected outcome (its recorded team reward, "
        f"{words.number(ranked.outcome, 3)}) would change by if that step and everything "
        "downstream of it were done anew. The step whose change would move the outcome most "
        "ranks first (in a failed run, the most negative credit), ties in the run's order. "
        "The model reads the graph and nothing the steps said: on a chain of steps it ranks "
        "them by their place.")]
    labelled = labelling.labelled_events(facts)
    said = []
    for i in labelled:
        rank = ranked.rank(i)
        if rank is None:
            said.append(f"{_step_words(facts, i)[:1].upper()}{_step_words(facts, i)[1:]}, "
                        f"which {_the_labels(labelled[i])} about, is not ranked: it is not a step "
                        "of one of the run's agents.")
            continue
        tied = ranked.tied(i)
        ties = f", tied with {words.count(tied, 'other step')}" if tied else ""
        said.append(f"{_step_words(facts, i)[:1].upper()}{_step_words(facts, i)[1:]}, which "
                    f"{_the_labels(labelled[i])} about, ranks "
                    f"{words.ordinal(rank)} of {len(ranked.order):,}, with credit "
                    f"{formatted(ranked.credit[i], 'number:3')}{ties}.")
    first = ranked.order[0]
    said.append(f"First ranked is {_step_words(facts, first)}, with credit "
                f"{formatted(ranked.credit[first], 'number:3')}.")
    blocks.append(Paragraph(" ".join(said)))
    numbers = labelling.step_numbers(facts)
    events = facts.run.trace.events
    shown = [(rank, i) for rank, i in enumerate(ranked.order, start=1)
             if rank <= MAX_RANKED_ROWS or i in labelled]
    rows = [[formatted(rank, "count"), formatted(int(numbers[i]), "count"),
             names.shown(events.ids[i]), names.shown(events.agent(i)),
             formatted(ranked.credit[i], "number:3"),
             labelling.names_of(labelled[i]) if i in labelled else "no"]
            for rank, i in shown]
    left = len(ranked.order) - len(shown)
    blocks.append(Folded(table(
        ["rank", "step", "event", "agent", "credit", "labelled"],
        ["count", "count", "code", "code", "number", "text"], rows,
        "The steps ranked by counterfactual credit (decisive-step model)",
        notes=(f"The first {MAX_RANKED_ROWS:,} ranks and every labelled step; the other "
               f"{left:,} steps rank below them.") if left else None)))
    return blocks


# ------------------------------------------------------------------------------------ agents

def agents(facts: Facts, subject: Subject) -> list:
    graph = agent_graph.build(facts)
    description = agent_graph.describe(graph)
    legend = ["Boxes are agents; a thick black box has events on the critical path.",
              "Arrows: blue dashed, a spawn; vermilion, a delegation; green, messages; "
              "purple, returns; grey, other dependencies; black and thick, on the critical path.",
              "Tools are not drawn: each agent's box counts its tool calls."]
    if graph.credit_rule:
        legend.append(f"Credit: {graph.credit_rule}.")
    blocks: list = [Paragraph("Each agent with what it did, and who handed work, messages and "
                              "results to whom, as the trace's dependency edges record it.")]
    if len(graph.nodes) <= agent_graph.MAX_DRAWN_AGENTS:
        blocks.append(Drawing(agent_graph.svg(graph, description), "Agents and their links",
                              description, legend,
                              narrow=agent_graph.svg(graph, description, down=True),
                              too_narrow="The graph needs a wider screen to stay legible: the "
                              "tables below list the same agents and links."))
    else:
        blocks.append(Paragraph(f"With {len(graph.nodes):,} agents, the graph would not be "
                                "legible: the tables below list every agent and every link."))
    blocks.append(Folded(agents_table(facts, graph)))
    if graph.links:
        blocks.append(Folded(links_table(graph)))
    return blocks


def _money_or(value: float | None) -> str:
    return NOT_RECORDED if value is None else words.money(value)


def agents_table(facts: Facts, graph: agent_graph.AgentGraph | None = None) -> Table:
    """One row per acting agent: who spawned it, events, tool calls, tokens, cost, time inside
    its events and credit (each *not recorded* where the log has nothing)."""
    graph = graph or agent_graph.build(facts)
    busy = facts.get("busy_time")
    ends, durations = facts.recorded_by("t_end"), facts.recorded_by("duration")
    timed = {name: ends[name] or durations[name] for name in ends}  # else all its events instants
    with_credit = graph.credit_rule is not None
    rows = []
    for node in graph.nodes:
        seconds = busy.get(node.name) if isinstance(busy, dict) and timed[node.name] else None
        parent = facts.run.agents[node.name].parent
        row = [names.shown(node.name), "not spawned" if parent is None else names.shown(parent),
               formatted(node.events, "count"), formatted(node.tool_calls, "count"),
               NOT_RECORDED if node.tokens is None else formatted(node.tokens, "tokens"),
               _money_or(node.cost_usd),
               NOT_RECORDED if seconds is None else words.duration(seconds)]
        if with_credit:
            row.append(_credit(node.credit))
        rows.append(row)
    notes = []
    if facts.reason("busy_time"):
        notes.append(f"Time inside events: {NOT_RECORDED}, {facts.reason('busy_time')}.")
    elif not all(timed[node.name] for node in graph.nodes):
        notes.append(f"Time inside events {NOT_RECORDED}: none of that agent's events records "
                     "an end time or a duration (each is an instant in the log).")
    if facts.reason("tokens.total") is None and any(n.tokens is None for n in graph.nodes):
        notes.append(f"Tokens {NOT_RECORDED}: none of that agent's events records tokens.")
    notes.append(f"Credit: {graph.credit_rule}." if with_credit
                 else "No credit column: the log records no team reward (see Credit).")
    header = ["agent", "spawned by", "events", "tool calls", "tokens", "cost",
              "time inside events"]
    kinds = ["code", "text", "count", "count", "number", "number", "number"]
    if with_credit:
        header.append("credit")
        kinds.append("number")
    return table(header, kinds, rows, "The agents: what each did and used",
                 notes=" ".join(notes))


def _credit(value: float | None) -> str:
    return NOT_RECORDED if value is None else formatted(value, "number:3")


def links_table(graph: agent_graph.AgentGraph) -> Table:
    with_credit = any(link.credit is not None for link in graph.links)
    rows = []
    for link in graph.links:
        row = [names.shown(link.source), names.shown(link.target), agent_graph.link_label(link),
               formatted(link.count, "count"),
               formatted(link.tokens, "tokens") if link.tokens is not None
               else NOT_RECORDED if link.events else "none"]
        if with_credit:
            row.append(_credit(link.credit) if link.kind != agent_graph.SPAWN else "none")
        rows.append(row + ["yes" if link.critical else "no"])
    header = ["from", "to", "what", "edges", "tokens"] + (["credit"] if with_credit else []) \
        + ["on the critical path"]
    kinds = ["code", "code", "text", "count", "number"] + (["number"] if with_credit else []) \
        + ["text"]
    return table(header, kinds, rows,
                 "Who handed what to whom (tokens: those of the sending events)")


# ---------------------------------------------------------------------------------- timeline

def timeline(facts: Facts, subject: Subject) -> list:
    drawn = timelines.timeline(facts)
    binned = timelines.is_binned(facts)
    intro = ["One lane per agent; grey bands are their lives."]
    if binned:
        intro.append(" The run is crowded, so it is drawn binned: cut into equal buckets, each "
                     "lane has a column per bucket as tall as the square root of its events "
                     "there, split by kind, and a black stripe marks where the critical path "
                     "runs. On the page, drag across the overview to see the events of a "
                     "window one by one.")
    else:
        intro.append(" Coloured bars are events and the black line is the critical path; on "
                     "the page, hover over a mark for its details.")
    if facts.clock != SECONDS:
        intro.append(" The log records the order of its events but not their times, so the "
                     "axis counts steps: each event at its place in the run's order.")
    marks = []
    if labelling.labelled_events(facts):
        marks.append("a dark red triangle points at each labelled step")
    if labelling.labelled_agents(facts):
        marks.append("the band of each labelled agent is tinted red")
    if marks:
        intro.append(f" The source's labels are marked: {words.words(marks)} (see Labels).")
    return [Paragraph("".join(intro)), Chart(drawn.static, drawn.live)]


# ----------------------------------------------------------------------------- critical path

def path_runs(facts: Facts) -> list[dict]:
    """The critical path folded into runs of consecutive steps by one agent: first and last
    step (from 1), agent, event types counted, first start and last end (seconds or steps)."""
    run = facts.run
    events = run.trace.events
    start, end = facts.positions()
    labelled = labelling.labelled_events(facts)
    found: list[dict] = []
    for step, i in enumerate(metrics.critical_path(run), start=1):
        agent = events.agent(i)
        if found and found[-1]["agent"] == agent:
            current = found[-1]
            current["last"], current["end"] = step, float(end[i])
        else:
            current = {"first": step, "last": step, "agent": agent, "types": Counter(),
                       "start": float(start[i]), "end": float(end[i]), "labelled": []}
            found.append(current)
        current["types"][EVENT_TYPES[events.types[i]]] += 1
        if i in labelled:
            current["labelled"].append((i, labelled[i]))
    return found


def _what(types: Counter) -> str:
    ordered = sorted(types.items(), key=lambda kv: (-kv[1], EVENT_TYPES.index(kv[0])))
    return words.listed([f"{n:,} {EVENT_WORDS[t][0] if n == 1 else EVENT_WORDS[t][1]}"
                         for t, n in ordered], 3)


def _labelled_in(facts: Facts, run: dict) -> str:
    """The labelled steps of a run of the critical path, as its row says them."""
    numbers = labelling.step_numbers(facts)
    events = facts.run.trace.events
    said = [f"step {int(numbers[i]):,} (event {names.shown(events.ids[i])}) labelled "
            f"{labelling.names_of(found)}" for i, found in run.get("labelled", [])]
    return f"; {words.listed(said, 3)}" if said else ""


def _when(facts: Facts, run: dict) -> str:
    if facts.clock != SECONDS:
        first, last = int(run["start"]), int(run["end"])
        return f"step {first:,}" if first == last else f"steps {first:,} to {last:,}"
    origin = float(facts.run.trace.events.start.min())
    begin, stop = words.duration(run["start"] - origin), words.duration(run["end"] - origin)
    return f"at {begin}" if begin == stop else f"{begin} to {stop}"


def path_table(facts: Facts, runs: list[dict] | None = None) -> Table:
    """The critical path, one row per run of consecutive steps by one agent
    (:func:`path_runs`): steps, agent, how many events, what they were, when."""
    runs = path_runs(facts) if runs is None else runs
    when = "when (since the start)" if facts.clock == SECONDS else "when (in the run's order)"
    rows = [[f"{r['first']:,}" if r["first"] == r["last"] else f"{r['first']:,} to {r['last']:,}",
             names.shown(r["agent"]), formatted(r["last"] - r["first"] + 1, "count"),
             _what(r["types"]) + _labelled_in(facts, r), _when(facts, r)] for r in runs]
    return table(["steps", "agent", "events", "what happened", when],
                 ["text", "code", "count", "text", "text"], rows,
                 "The critical path, one row per run of steps by one agent")


def critical_path(facts: Facts, subject: Subject) -> list:
    runs = path_runs(facts)
    total = facts.data["critical_steps"]
    switches = len(runs) - 1
    hands = ("one agent holds it throughout" if not switches else
             f"the chain changes hands {words.count(switches, 'time')}")
    intro = (f"The longest chain of events in which each waited for the one before: "
             f"{words.count(total, 'step')}, folded into {words.count(len(runs), 'run')} of "
             f"consecutive steps by one agent ({hands}).")
    return [Paragraph(intro), Folded(path_table(facts, runs))]


# ------------------------------------------------------------------------------------- steps

def keep_content_commands(facts: Facts, subject: Subject) -> list[str]:
    """The commands that report on this run with its events' text."""
    if subject.imported_as:
        log = shlex.quote(subject.path)
        return [f"masrl report --keep-content {log} -o report.html",
                f"masrl import {subject.imported_as} {log} -o trace.json --keep-content"]
    provenance = facts.run.trace.head.get("provenance") or {}
    source = provenance.get("format") if isinstance(provenance, dict) else None
    return ["masrl report --keep-content LOG -o report.html   # LOG: the log this trace "
            "came from",
            f"masrl import {source or 'FORMAT'} LOG -o trace.json --keep-content"]


def content_paragraph(account: dict) -> str:
    """What the trace kept of its events' text, and what it left out."""
    said = f"The trace keeps the text of {words.count(account['kept'], 'event')}"
    if account["truncated"]:
        bound = account.get("event_bytes")
        said += (f"; {account['truncated']:,} of them "
                 f"{'was' if account['truncated'] == 1 else 'were'} cut"
                 + (f" at {bound:,} bytes" if isinstance(bound, int) else "")
                 + ", marked where the cut is")
    if account["left_out"]:
        bound = account.get("trace_bytes")
        said += (f"; the text of {words.count(account['left_out'], 'more event')} was left "
                 "out" + (f", past the trace's bound of {bound:,} bytes or not in the log"
                          if isinstance(bound, int) else ""))
    return (said + ". Open a step to read its text. It is the log's own text, shown as text: "
            "nothing in it is run or followed.")


def steps_section(facts: Facts, subject: Subject) -> list:
    account = step_lists.content_account(facts)
    listed = step_lists.step_list(facts)
    labelled = sum(bool(step.labels) for step in listed)
    intro = (f"Every event of the run in its order, {words.count(len(listed), 'step')}"
             + (f"; the {words.count(labelled, 'labelled step')} "
                f"{'is' if labelled == 1 else 'are'} highlighted with "
                f"{'its labels' if labelled == 1 else 'their labels'}" if labelled else "")
             + ".")
    total = facts.data["events"]
    if len(listed) < total:
        intro = (f"The run's {words.count(total, 'step')} in its order: the page lists the "
                 f"first {step_lists.MAX_LISTED_STEPS:,}"
                 + (" and each labelled step with its neighbours" if labelled else "")
                 + f", {len(listed):,} in all; the other "
                 f"{total - len(listed):,} are in the trace file, not on the page"
                 + (f". The {words.count(labelled, 'labelled step')} "
                    f"{'is' if labelled == 1 else 'are'} highlighted with "
                    f"{'its labels' if labelled == 1 else 'their labels'}" if labelled else "")
                 + ".")
    blocks: list = [Paragraph(intro)]
    if account["kept"]:
        blocks.append(Paragraph(content_paragraph(account)))
    else:
        blocks.append(Paragraph(
            "The trace holds no text of its events: masrl import leaves it out unless asked, "
            "the privacy default of the trace schema, and keeps a hash of each instead. To "
            "read what the agents said, import the log with its text:"))
        blocks.append(Commands(keep_content_commands(facts, subject)))
    blocks.append(StepList(listed))
    return blocks


# ------------------------------------------------------------------------------------ credit

def credit_commands(facts: Facts, subject: Subject) -> list[str]:
    """Commands that give this run credit: a reward term it supports as the outcome model,
    and the decisive-step model once a team reward is recorded."""
    from masrl.traces import rewards

    trace = "trace.json" if subject.imported_as else subject.path
    lines = []
    if subject.imported_as:
        lines.append(f"masrl import {subject.imported_as} {subject.path} -o trace.json")
    supported = [name for name, value in rewards.terms(facts.replay).items()
                 if value is not None and name != "outcome"]
    if supported:
        lines.append(f"masrl replay {trace} --outcome {supported[0]} --json")
    if facts.get("credit.team_reward") is None:
        lines.append("# once the trace records the run's outcome as its team reward:")
    lines.append(f"masrl replay {trace} --outcome decisive_step --json")
    return lines


def credit_section(facts: Facts, subject: Subject) -> list:
    reward = facts.get("credit.team_reward")
    if reward is None:
        lines = credit_commands(facts, subject)
        term = next((line.split("--outcome ")[1].split()[0] for line in lines
                     if "--outcome" in line and "decisive_step" not in line), None)
        said = (f"a reward term the trace supports ({term.replace('_', ' ')}) can serve as "
                "the outcome now; the decisive-step model needs the run's outcome recorded "
                "first, as its team reward, in the trace.") if term else (
            "the decisive-step model needs the run's outcome recorded first, as its team "
            "reward, in the trace.")
        return [Paragraph(f"The team reward is {NOT_RECORDED}: "
                          f"{facts.reason('credit.team_reward')}, so there is nothing to "
                          "divide among the agents, and no table of shares is shown. Credit "
                          "comes from an outcome: " + said),
                Commands(lines)]
    said = f"The log records a team reward of {words.number(reward, 3)}. "
    if rewards_recorded(facts):
        said += ("Below, how it divides within each credit unit under an equal split, and how "
                 "the rewards recorded on single events add up (what they leave unexplained is "
                 "the residual).")
    else:
        said += ("No event records a reward of its own, so below it divides under an equal "
                 "split only.")
    if reward == 0:
        said += " A team reward of 0 gives every item 0 under any split of it."
    blocks: list = [Paragraph(said)]
    blocks.append(units_table(facts))
    blocks.append(Folded(items_table(facts, "agent")))
    found = facts.replay.credit.get("counterfactual")
    if found:
        blocks.append(Paragraph(
            f"The trace records counterfactual outcomes for its {UNIT_WORDS[found['unit']]}: "
            f"{found['coalitions_recorded']:,} of the {found['coalitions_needed']:,} coalitions "
            "the Shapley value needs. Leave-one-out credit is what the outcome loses when one "
            "player alone is changed; the Shapley value averages a player's contribution over "
            "every order in which the players could join."))
        if found["unit"] != "agent":
            blocks.append(Folded(items_table(facts, found["unit"])))
    return blocks


def rewards_recorded(facts: Facts) -> bool:
    """Whether any event records a reward of its own (a process or step reward)."""
    return bool((~np.isnan(facts.run.trace.recorded("reward"))).any())


def units_table(facts: Facts) -> Table:
    """Per credit unit: its items, the team reward under an equal split and, when events
    record rewards of their own, what they add up to and leave unexplained."""
    found = facts.replay.credit
    recorded = rewards_recorded(facts)
    rows = []
    for unit in found["units"]:
        even, kept = found["equal"][unit], found["recorded"][unit]
        row = [UNIT_WORDS.get(unit, unit), formatted(even["items"], "count"),
               formatted(even["total"], "number:3") if even["items"] else "no items"]
        if recorded:
            row += [formatted(kept["total"], "number:3"), formatted(kept["residual"], "number:3")]
        rows.append(row)
    header = ["credit unit", "items", "equal split, total"]
    if recorded:
        header += ["recorded rewards, total", "left unexplained"]
    return table(header, ["text", "count", "number", "number", "number"][:len(header)], rows,
                 "How the team reward divides within each credit unit")


def items_table(facts: Facts, unit: str) -> Table:
    """Per item of ``unit``: its equal share and its recorded rewards, plus leave-one-out and
    Shapley credit when the trace's counterfactuals are of this unit."""
    run = facts.run
    recorded = credit.recorded(run, unit)
    equal = credit.equal(run, unit) or {}
    found = facts.replay.credit.get("counterfactual")
    counterfactual = bool(found) and found["unit"] == unit
    players = list(dict.fromkeys([*recorded, *(found["players"] if counterfactual else [])]))
    with_recorded = rewards_recorded(facts)
    header = [unit.replace("_", " "), "equal split"] + (["recorded rewards"] if with_recorded
                                                        else [])
    kinds = ["code", "number", "number"][:len(header)]
    if counterfactual:
        header += ["leave-one-out", "Shapley value"]
        kinds += ["number", "number"]
    rows = []
    for name in players:
        row = [names.shown(name), _credit(equal.get(name))]
        if with_recorded:
            row.append(_credit(recorded.get(name)))
        if counterfactual and name not in found["players"]:
            row += ["not a player"] * 2
        elif counterfactual:
            row += [_credit((found["leave_one_out"] or {}).get(name)),
                    _credit((found["shapley"] or {}).get(name))]
        rows.append(row)
    return table(header, kinds, rows, f"Credit per {UNIT_WORDS.get(unit, unit).rstrip('s')} "
                 "under every rule the trace supports")
