"""The report's sections, built from a validation report and a replay: a headline in words, the
figures named in words with their meaning, *not recorded* with the reason where the log has
nothing, the critical path folded by agent, credit that says how to get one when no reward is
recorded, a thin import flagged first; trace text escaped everywhere."""

from __future__ import annotations

import json
import re

import pytest
from replay_examples import EXAMPLES, HOSTILE, NAMES, example, hostile_replay
from trace_helpers import FIXTURES

from masrl.presentation.report import SECTIONS, Subject, build, replayed
from masrl.presentation.report import sections as builders
from masrl.presentation.report.blocks import Folded, strip_markup
from masrl.presentation.report.facts import Facts
from masrl.presentation.tables import Table
from masrl.traces import validate_document, validate_file
from masrl.traces.importers import import_file


def report_of(document: dict, label: str = "t.json") -> list:
    checked = validate_document(document, source=label)
    return build(checked, replayed(checked), Subject(label, label))


def load(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def text(section) -> str:
    return " ".join(strip_markup(section._repr_html_()).split())


def json_names(value, found: set[str] | None = None, path: str = "") -> set[str]:
    """Every key of ``masrl replay --json`` that is a figure's name (snake_case or dotted),
    with every dotted path to it."""
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, inner in value.items():
            dotted = f"{path}.{key}" if path else key
            if "_" in key or path:
                found.add(dotted)
            if key not in ("per_agent", "per_subtree", "busy_time", "shares", "spawn_tree",
                           "interventions", "leave_one_out", "shapley"):
                json_names(inner, found, dotted)
    return found


@pytest.fixture(scope="module")
def hierarchy() -> dict:
    checked = validate_file(EXAMPLES / "hierarchical.json", source="hierarchical.json")
    return {s.key: s for s in build(checked, replayed(checked),
                                    Subject("hierarchical.json", "hierarchical.json"))}


def test_every_section_in_the_declared_order(hierarchy):
    assert list(hierarchy) == list(SECTIONS)
    assert [s.title for s in hierarchy.values()] == list(SECTIONS.values())


def test_the_headline_speaks_of_the_run_in_words(hierarchy):
    said = text(hierarchy["headline"])
    assert said.startswith("This run has 7 agents (director, lead_finance, analyst_finance_1, "
                           "analyst_finance_2 and 3 more, 6 of them spawned by another)")
    assert "made 4 tool calls and sent no messages over 18.1 s" in said
    assert "holds 11 of its 27 events (41%) and spans 100% of the run's time" in said
    assert "Parallelism is 2.45: its 27 events fit in 11 dependent steps, 2.45 events per " \
           "step, so the run was partly parallel" in said
    assert "The events record 16,370 tokens; a recorded cost of $0.17" in said
    assert "team reward of 0.85" in said


@pytest.mark.parametrize("name", NAMES)
def test_no_figure_is_named_as_code(name):
    found = example(name)
    names = json_names(found.to_dict()) - set(found.run.agents) - {"schema_version"}
    checked = validate_file(EXAMPLES / f"{name}.json")
    for section in build(checked, found, Subject("x", "x")):
        if section.key == "credit":  # the commands it suggests are code, on purpose
            continue
        visible = text(section)
        for agent in found.run.agents:  # agent names are the trace's, not ours
            visible = visible.replace(agent, " ")
        assert not [n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w.])",
                                                  visible)], section.key


def test_the_figures_table_names_each_figure_in_words_with_its_meaning(hierarchy):
    (table,) = hierarchy["numbers"].blocks
    assert table.header == ["measure", "value", "what it means"]
    for measure, _value, meaning in table.rows:
        assert "_" not in measure and meaning.endswith(".")
    shown = {row[0]: row[1] for row in table.rows}
    assert shown["Parallelism"] == "2.45" and shown["Duration"] == "18.1 s"
    assert shown["Estimated cost"] == "not recorded"
    estimated = next(row for row in table.rows if row[0] == "Estimated cost")
    assert "Not recorded: no model call names its model with its input" in estimated[2]


def test_a_log_without_durations_tokens_or_reward_says_not_recorded_never_zero():
    document = load("centralized")
    for event in document["events"]:
        for key in ("t_end", "duration", "tokens", "cost_usd", "reward"):
            event.pop(key, None)
    document["rewards"] = {}
    sections = {s.key: s for s in report_of(document)}
    shown = {row[0]: row[1] for row in sections["numbers"].blocks[0].rows}
    for measure in ("Time inside events", "Speedup", "Tokens", "Recorded cost"):
        assert shown[measure] == "not recorded", measure
    headline = text(sections["headline"])
    assert "Tokens are not recorded (no event records tokens)" in headline
    assert "0.00" not in headline and "—" not in headline
    agents = sections["agents"].blocks[2].table
    assert set(agents.cells("time inside events")) == {"not recorded"}
    assert "credit" not in agents.header  # no reward: no column of blanks


def test_no_reward_gives_the_commands_that_give_credit_instead_of_a_table():
    document = load("swarm")
    document["rewards"] = {}
    for event in document["events"]:
        event.pop("reward", None)
    credit = {s.key: s for s in report_of(document, "run.json")}["credit"]
    assert not any(isinstance(b, (Table, Folded)) for b in credit.blocks)
    said = text(credit)
    assert "The team reward is not recorded: the trace records no team reward" in said
    lines = credit.blocks[-1].lines
    assert lines[-2:] == ["# once the trace records the run's outcome as its team reward:",
                          "masrl replay run.json --outcome decisive_step --json"]
    assert lines[0].startswith("masrl replay run.json --outcome ")
    assert "a reward term the trace supports" in credit.blocks[0].text


def test_an_imported_log_s_commands_import_it_first():
    document = load("swarm")
    document["rewards"] = {}
    checked = validate_document(document)
    found = replayed(checked)
    lines = builders.credit_commands(Facts(found), Subject("x", "s.jsonl", "claude-code"))
    assert lines[0] == "masrl import claude-code s.jsonl -o trace.json"
    assert all("trace.json" in line for line in lines[1:] if not line.startswith("#"))


def test_a_log_without_a_clock_is_said_to_be_in_steps():
    document = load("debate")
    for event in document["events"]:
        event["t"] = 0
        event.pop("t_end", None)
        event.pop("duration", None)
    sections = {s.key: s for s in report_of(document)}
    assert "The log records the order of its events but not their times, so the axis counts " \
           "steps" in sections["timeline"].blocks[0].text
    assert "its duration is not recorded (the log records the order of events, not their " \
           "times)" in text(sections["headline"])
    when = sections["critical_path"].blocks[1].table.cells("when (in the run's order)")
    assert when[0].startswith("step") and not re.search(r"\d s\b", " ".join(when))


@pytest.mark.parametrize("name", NAMES)
def test_the_critical_path_is_folded_into_runs_by_one_agent(name):
    found = example(name)
    facts = Facts(found)
    runs = builders.path_runs(facts)
    assert sum(r["last"] - r["first"] + 1 for r in runs) == found.metrics["critical_steps"]
    assert all(a["agent"] != b["agent"] for a, b in zip(runs, runs[1:]))
    assert all(b["first"] == a["last"] + 1 for a, b in zip(runs, runs[1:]))
    table = builders.path_table(facts, runs)
    assert len(table.rows) == len(runs) <= found.metrics["critical_steps"]


def test_the_harness_chain_in_runs():
    table = builders.path_table(Facts(example("harness")))
    assert table.rows[0] == ["1", "user", "1", "1 human intervention", "at 0 s"]
    assert table.rows[1][:4] == ["2 to 3", "main", "2", "1 decision and 1 tool call"]


def test_a_thin_import_is_said_first_with_its_counts(small):
    """Thin by the toolkit's one rule (masrl.traces.provenance): a third or less of the log's
    records gave events, and fewer than ten events."""
    document = small
    document["provenance"] = {
        "format": "langfuse",
        "records": {"mapped": 2, "read": 6, "skipped": 4, "unit": "observation"},
        "skipped": {"span: SPAN": 4, "usage stated on an agent span": 1}}
    first = report_of(document)[0].blocks[0]
    assert first.tone == "warning"
    assert first.text == (
        "A thin import: 9 events from the log's 6 observations; 2 observations kept, 4 skipped "
        "(67%): span: SPAN (4) and usage stated on an agent span (1). Everything below "
        "describes only what was kept.")
    document["provenance"]["records"] = {"mapped": 6, "read": 6, "skipped": 0,
                                         "unit": "observation"}
    assert report_of(document)[0].blocks[0].text.startswith("This run has")


def test_an_invalid_trace_gets_its_problems_and_nothing_else():
    checked = validate_file(FIXTURES / "not_json.json", source="bad.json")
    sections = build(checked, replayed(checked), Subject("bad.json", "bad.json"))
    assert [s.key for s in sections] == list(SECTIONS)
    assert "is invalid: 1 error, 0 warnings" in text(sections[0])
    assert "not-json" in text(sections[1])
    assert all(text(s) == "Skipped: the trace is invalid (see Validation)." for s in sections[2:])


def test_figures_that_overflow_are_a_problem_not_a_traceback(small):
    small["events"][0]["tokens"] = small["events"][3]["tokens"] = 1.5e308
    checked = validate_document(small)
    assert replayed(checked) is None
    sections = build(checked, None, Subject("o.json", "o.json"))
    assert "tokens.total is inf" in text(sections[1])


def test_trace_text_is_escaped_in_every_section():
    found = hostile_replay()
    checked = validate_document(json.loads(json.dumps(found.run.trace.document)))
    for section in build(checked, found, Subject(HOSTILE, HOSTILE)):
        markup = section.page_html() if section.key != "timeline" else \
            section.blocks[1].page_html()
        assert "<img" not in markup, section.key
    agents = {s.key: s for s in build(checked, found, Subject(HOSTILE, HOSTILE))}["agents"]
    assert "&lt;img" in agents.page_html()


def test_long_tables_fold_their_rows_into_details():
    rows = [[str(k), "a"] for k in range(30)]
    folded = Folded(Table(["n", "x"], ["count", "text"], rows, "Thirty rows"))
    markup = folded._repr_html_()
    assert markup.count("<tr>") == 30 + 2  # a header in each part
    assert "<details" in markup and "Show the other 20 rows" in markup
    short = Folded(Table(["n", "x"], ["count", "text"], rows[:12], "Twelve"))
    assert "<details" not in short._repr_html_()


def test_an_estimated_cost_names_its_price_table_and_the_models_it_does_not_know():
    """The replay engine's side of the contract: ``cost_usd_estimated`` (kept apart from a
    recorded cost) with its price table; the headline and the figures say both."""
    from masrl.traces import Replay

    base = example("centralized")

    class Engine(Replay):
        def to_dict(self) -> dict:
            found = super().to_dict()
            found["cost_usd_estimated"] = {
                "total": 0.42, "price_table": {"source": "genai-prices", "version": "0.0.9"},
                "unknown_models": ["house-model-7"]}
            found["not_recorded"] = {}
            return found

    replay = Engine(base.run, base.metrics, base.credit)
    checked = validate_file(EXAMPLES / "centralized.json")
    sections = {s.key: s for s in build(checked, replay, Subject("c.json", "c.json"))}
    said = sections["headline"].blocks[-1].text
    assert ("estimated at $0.42 from the token counts (price table: genai-prices 0.0.9), "
            "leaving out house-model-7, unknown to that table") in said
    assert "a recorded cost of $0.14" in said  # never added to the estimate
    shown = {row[0]: row[1] for row in sections["numbers"].blocks[0].rows}
    assert shown["Estimated cost"] == "$0.42" and shown["Recorded cost"] == "$0.14"


# ------------------------------------------------------------------ labels and the step list

WHO_AND_WHEN_LOG = FIXTURES.parent / "importers" / "who_and_when" / "magentic_one.json"


def imported_report(path, keep_content: bool) -> dict:
    from masrl.traces.importers import dumps
    from masrl.traces.validate import validate_bytes

    trace = import_file("auto", path, keep_content=keep_content).trace
    checked = validate_bytes(dumps(trace).encode("utf-8"), source="log")
    subject = Subject("log (imported as who-and-when)", "log.json", "who-and-when")
    return {s.key: s for s in build(checked, replayed(checked), subject)}


def test_a_labelled_log_shows_its_labels_the_ranking_and_marks_the_step():
    from masrl.presentation.report import labels as labelling

    sections = imported_report(WHO_AND_WHEN_LOG, keep_content=False)
    source = json.loads(WHO_AND_WHEN_LOG.read_text(encoding="utf-8"))
    document = json.loads(json.dumps(import_file("auto", WHO_AND_WHEN_LOG).trace))
    facts = Facts(replayed(validate_document(document)))
    position = facts.run.trace.events.ids.index("h4")
    step = int(labelling.step_numbers(facts)[position])
    about = f"step {step} (event h4, by WebSurfer)"
    headline = text(sections["headline"])
    assert f"The log carries 5 labels (Who&When, gold answer), about agent WebSurfer, {about} " \
           "and the whole run" in headline
    labels = sections["labels"]
    shown = labels.blocks[1].table
    assert shown.cells("label") == ["mistake_agent", "mistake_step", "mistake_reason",
                                    "ground_truth", "is_corrected"]
    assert shown.cells("what it says")[2] == source["mistake_reason"]
    assert shown.cells("about")[1:3] == [about, about]
    ranked = labelling.ranking(facts)
    rank = ranked.rank(position)
    said = text(labels)
    assert (f"{about[:1].upper()}{about[1:]}, which the labels mistake_step and "
            f"mistake_reason are about, ranks {builders.words.ordinal(rank)} of "
            f"{len(ranked.order)}") in said
    table_ = labels.blocks[-1].table
    assert table_.cells("labelled")[rank - 1] == "mistake_step and mistake_reason"
    assert table_.cells("event")[rank - 1] == "h4"
    # the critical path's run that holds the step says so
    path = sections["critical_path"].blocks[1].table
    assert sum(f"step {step} (event h4) labelled mistake_step and mistake_reason" in cell
               for cell in path.cells("what happened")) == 1
    # the timeline's text says what the marks are
    assert "a dark red triangle points at each labelled step and the band of each labelled " \
           "agent is tinted red" in text(sections["timeline"])


def test_without_text_the_page_says_once_how_to_keep_it():
    sections = imported_report(WHO_AND_WHEN_LOG, keep_content=False)
    steps = sections["steps"]
    said = text(steps)
    assert "The trace holds no text of its events: masrl import leaves it out unless asked" \
        in said
    commands = steps.blocks[2]
    assert commands.lines == ["masrl report --keep-content log.json -o report.html",
                              "masrl import who-and-when log.json -o trace.json --keep-content"]
    everything = " ".join(text(s) for s in sections.values())
    assert everything.count("holds no text of its events") == 1
    assert "Read its text" not in everything


def test_with_text_a_reader_opens_each_step():
    sections = imported_report(WHO_AND_WHEN_LOG, keep_content=True)
    steps = sections["steps"]
    said = text(steps)
    assert "The trace keeps the text of 9 events. Open a step to read its text." in said
    markup = steps.page_html()
    assert markup.count('<details class="masrl-said">') == 9
    source = json.loads(WHO_AND_WHEN_LOG.read_text(encoding="utf-8"))
    assert builders.words.visible(source["history"][4]["content"]) in strip_markup(markup)
    assert "no text of its events" not in said


def test_a_trace_without_labels_says_where_labels_come_from(hierarchy):
    said = text(hierarchy["labels"])
    assert said.startswith("The trace holds no labels: its source gives no gold answer")
    assert "The log carries" not in text(hierarchy["headline"])


def test_a_run_longer_than_the_list_says_what_the_page_leaves_out():
    from masrl.presentation.report import steps as step_lists
    from masrl.traces.synthetic import swarm_trace

    document = swarm_trace([40] * 60, waves=6, call_seconds=0.2, trace_id="long")
    events = len(document["events"])
    assert events > step_lists.MAX_LISTED_STEPS
    steps = {s.key: s for s in report_of(document)}["steps"]
    assert text(steps).startswith(
        f"The run's {events:,} steps in its order: the page lists the first "
        f"{step_lists.MAX_LISTED_STEPS:,}, {step_lists.MAX_LISTED_STEPS:,} in all; the other "
        f"{events - step_lists.MAX_LISTED_STEPS:,} are in the trace file, not on the page.")
    assert len(steps.blocks[-1].steps) == step_lists.MAX_LISTED_STEPS


def test_a_long_ranking_lists_its_first_ranks_and_every_labelled_step():
    from masrl.traces.synthetic import swarm_trace

    document = swarm_trace([40] * 20, waves=4, call_seconds=0.2, trace_id="ranked")
    document["schema_version"] = "1.2"
    document["rewards"] = {"team": 0.0}
    last = document["events"][-1]["id"]
    document["labels"] = [{"name": "mistake_step", "value": 1, "kind": "gold", "source": "t",
                           "event": last}]
    labels = {s.key: s for s in report_of(document)}["labels"]
    ranking = labels.blocks[-1].table
    assert len(ranking.rows) == builders.MAX_RANKED_ROWS + 1  # the labelled step ranks late
    assert ranking.cells("event")[-1] == last and ranking.cells("labelled")[-1] == "mistake_step"
    assert int(ranking.cells("rank")[-1].replace(",", "")) > builders.MAX_RANKED_ROWS
    assert "rank below them" in ranking.notes


def test_an_agent_whose_events_are_all_instants_has_its_time_not_recorded_not_zero():
    """In a trace with durations, an agent none of whose events records an end time or a
    duration (a person's messages, a compaction in a Claude Code log) spent an unknown time,
    not 0 s; an agent with a recorded zero-length event keeps its figure."""
    document = load("centralized")
    agents = sorted({event["agent"] for event in document["events"]})
    untimed, zero = agents[0], agents[1]
    for event in document["events"]:
        if event["agent"] == untimed:
            event.pop("t_end", None)
            event.pop("duration", None)
        elif event["agent"] == zero:
            event.pop("duration", None)
            event["t_end"] = event["t"]
    sections = {s.key: s for s in report_of(document)}
    table = sections["agents"].blocks[2].table
    shown = dict(zip(table.cells("agent"), table.cells("time inside events")))
    assert shown[untimed] == "not recorded"
    assert shown[zero] == "0 s"
    assert all(v != "not recorded" for k, v in shown.items() if k != untimed)
    assert "none of that agent's events records an end time or a duration" in table.notes


def test_speedup_and_time_inside_events_say_they_may_be_low_when_events_are_instants():
    document = load("centralized")
    instants = [e for e in document["events"] if "t_end" not in e and "duration" not in e]
    meanings = {row[0]: row[2] for row in
                {s.key: s for s in report_of(document)}["numbers"].blocks[0].rows}
    said = (f"Here {len(instants):,} of the {len(document['events']):,} events are instants in "
            "the log")
    assert instants and said in meanings["Time inside events"]
    assert "It may be low here for the same reason" in meanings["Speedup"]
    for event in document["events"]:
        if "duration" not in event:
            event.setdefault("t_end", event["t"])  # a recorded instant: no longer unknown
    meanings = {row[0]: row[2] for row in
                {s.key: s for s in report_of(document)}["numbers"].blocks[0].rows}
    assert "instants" not in meanings["Time inside events"]
    assert "may be low" not in meanings["Speedup"]


def test_a_cost_recorded_on_some_model_calls_only_says_so():
    """Model calls (events with tokens) without a cost of their own: the headline's cost is
    said to be partly recorded, with how many calls record none; none: nothing is said."""
    document = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
    headline = text(report_of(document)[0])
    assert ("a recorded cost of $0.75, partly recorded: 4 model calls (events that record "
            "tokens) record no cost of their own") in headline
    for event in document["events"]:
        if "tokens" in event:
            event.setdefault("cost_usd", 0.0)
    assert "partly recorded" not in text(report_of(document)[0])
