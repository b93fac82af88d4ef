"""The ChatDev importer on a hand-written run log shaped like ChatDev's (two phases, role-play
turns priced by the usage entries before them, bookkeeping entries, an unknown marker)."""

from __future__ import annotations

import shutil

from importer_helpers import FIXTURES, assert_source_error

from masrl.traces import validate_document
from masrl.traces.importers import import_file
from masrl.traces.importers._kit import detect
from masrl.traces.importers._kit.accounting import conservation_problems, figures

LOG = FIXTURES / "chatdev" / "Weather_Desk_20260110093000.log"


def test_phases_are_the_chains_decisions_and_turns_carry_their_usage(tmp_path):
    renamed = tmp_path / "run.txt"  # recognised from the content, not the name
    shutil.copy(LOG, renamed)
    assert detect.detect(renamed)[0] == "chatdev"
    result = import_file("auto", LOG)
    trace = result.trace
    assert [(e["type"], e["agent"], e.get("to"), e.get("x_phase"), e["t"])
            for e in trace["events"]] == [
        ("orchestrator_decision", "System", "Chief Product Officer", "DemandAnalysis", 2.0),
        ("message", "Chief Executive Officer", "Chief Product Officer", "DemandAnalysis", 4.0),
        ("message", "Chief Product Officer", "Chief Executive Officer", "DemandAnalysis", 10.0),
        ("orchestrator_decision", "System", "Programmer", "Coding", 12.0),
        ("message", "Chief Technology Officer", "Programmer", "Coding", 13.0),
        ("message", "Programmer", "Chief Technology Officer", "Coding", 41.0)]
    priced = [e for e in trace["events"] if "x_model_call" in e]
    assert [(e["x_usage"], e["cost_usd"], e["x_model_call"]) for e in priced] == [
        ({"input": 410, "output": 6}, 0.001254, "Weather_Desk_20260110093000.log:33"),
        ({"input": 900, "output": 350}, 0.0041, "Weather_Desk_20260110093000.log:59")]
    # the last usage entry prices no turn: counted as skipped, with its tokens
    usage = trace["provenance"]["usage"]
    assert (usage["skipped"]["tokens_in"], usage["source"]["tokens_in"]) == (300, 1610)
    assert result.skipped["unknown record type: Invented Marker"] == 1
    assert trace["provenance"]["records"] == {"unit": "log entry", "read": 16, "mapped": 8,
                                              "skipped": 8}
    assert figures(trace)["agents"] == 5 and result.time_origin is None  # local times
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_a_text_that_is_not_a_chatdev_log(tmp_path):
    assert_source_error("chatdev", tmp_path / "x.log", "hello\n[2026-10-01 09:30:00 INFO] x\n",
                        "1", "not a ChatDev log: expected entries that start with "
                        "'[YYYY-DD-MM HH:MM:SS INFO]'")


ROUNDS = FIXTURES / "chatdev" / "Tide_Clock_20260301080000.log"


def test_both_calls_of_a_round_come_before_its_turns_and_price_them_in_order():
    """A role-play round calls the assistant's model, then the user's, then logs both replies:
    the first waiting usage prices the first turn, the second the second; a usage entry left
    when the next phase starts prices nothing (not that phase's first turn)."""
    result = import_file("auto", ROUNDS)
    trace = result.trace
    priced = [(e["agent"], e.get("x_phase"), e.get("x_usage")) for e in trace["events"]
              if e["type"] == "message" and "x_model_call" in e]
    assert priced == [
        ("Chief Product Officer", "DemandAnalysis", {"input": 200, "output": 20}),
        ("Chief Executive Officer", "DemandAnalysis", {"input": 240, "output": 22}),
        ("Chief Product Officer", "DemandAnalysis", {"input": 270, "output": 4}),
        ("Chief Technology Officer", "LanguageChoose", {"input": 150, "output": 2})]
    usage = trace["provenance"]["usage"]
    assert (usage["skipped"]["tokens_in"], usage["skipped"]["tokens_out"]) == (100, 10)
    assert figures(trace)["model_calls"] == 4
    assert result.skipped["model usage without a turn that follows"] == 1
    assert result.skipped["HTTP request line: the call's usage entry carries it"] == 4
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_each_entry_names_the_line_it_starts_on():
    """Lines counted on from the entry before (they were counted from the top for each entry:
    quadratic in a long log) are the lines the entries start on."""
    from masrl.traces.importers.turns import chatdev

    for log in sorted((FIXTURES / "chatdev").glob("*.log")):
        text = log.read_text("utf-8")
        lines = text.split("\n")
        entries = chatdev._entries(log, text)
        assert len(entries) > 5
        for line, _, head, _ in entries:
            assert lines[line - 1].startswith("["), (log.name, line, head)
        assert [e[0] for e in entries] == sorted({e[0] for e in entries})
        starts = [m.start() for m in chatdev.ENTRY.finditer(text)]
        assert [e[0] for e in entries] == [text[:s].count("\n") + 1 for s in starts]


OLDER = FIXTURES / "chatdev" / "Kite_Planner_20260402100000.log"


def test_the_older_layout_prices_turns_with_the_receive_entry_not_the_send():
    """ChatDev of 2023 logs each call twice: a Send entry (the request's size, no usage) and a
    Receive entry (the usage). Only the Receive prices a turn: the Send's missing usage read as
    zero tokens had priced the turns while the real usage was skipped. The Prompt Engineer's
    reply (``Prompt Engineer: text``) and a human's comments are the run's messages too."""
    result = import_file("chatdev", OLDER)
    trace = result.trace
    messages = [(e["agent"], e.get("to"), e.get("x_usage")) for e in trace["events"]
                if e["type"] == "message"]
    assert messages == [
        ("User", "Prompt Engineer", None),
        ("Prompt Engineer", "User", {"input": 120, "output": 40}),
        ("Chief Executive Officer", "Chief Product Officer", None),
        ("Chief Product Officer", "Chief Executive Officer", {"input": 300, "output": 5}),
        ("human", None, None),
        ("Chief Technology Officer", "Programmer", None),
        ("Programmer", "Chief Technology Officer", {"input": 700, "output": 420})]
    # the log's own totals (its Post Info): 1120 tokens in, 465 out, all on the trace
    assert figures(trace)["model_calls"] == 3
    assert sum(e.get("tokens", 0) for e in trace["events"]) == 1120 + 465
    usage = trace["provenance"]["usage"]
    assert usage["skipped"]["tokens_in"] == 0 and usage["source"]["tokens_in"] == 1120
    assert result.skipped["model request: the Receive entry after it states the usage"] == 3
    assert not any(e.get("cost_usd") for e in trace["events"])  # no cost per call: none
    assert conservation_problems(trace) == []
    assert validate_document(trace).problems == []


def test_a_call_chatdev_could_not_price_has_no_cost_rather_than_a_refusal(tmp_path):
    """ChatDev writes ``cost: $-1.000000`` for a model missing from its price table (any model
    but OpenAI's): the call's cost is not recorded, counted as a repair; the log was refused."""
    text = LOG.read_text(encoding="utf-8")
    assert text.count("cost: $0.001254") == 1
    log = tmp_path / LOG.name
    log.write_text(text.replace("cost: $0.001254", "cost: $-1.000000"), encoding="utf-8")
    result = import_file("chatdev", log)
    priced = [e for e in result.trace["events"] if "x_model_call" in e]
    assert [(e["x_usage"], e.get("cost_usd")) for e in priced] == [
        ({"input": 410, "output": 6}, None), ({"input": 900, "output": 350}, 0.0041)]
    assert result.repairs == {"cost -1 (ChatDev has no price for the model): not recorded": 1}
    assert validate_document(result.trace).problems == []


def test_another_negative_cost_is_still_refused(tmp_path):
    text = LOG.read_text(encoding="utf-8").replace("cost: $0.001254", "cost: $-2.500000")
    assert_source_error("chatdev", tmp_path / LOG.name, text, "33", "cost must be an amount "
                        "written with the digits 0-9, found the string \"-2.500000\"")


def test_a_log_with_no_phase_and_no_turn_says_what_its_entries_are(tmp_path):
    """A run that stopped after its setup (or a layout before ChatDev's release) was refused
    with "no entry of the log is a phase or a turn", naming no line and nothing it held."""
    assert_source_error(
        "chatdev", tmp_path / "setup.log",
        "[2026-10-01 09:30:00 INFO] **[Preprocessing]**\n\n**ChatDev Starts** (1)\n\n"
        "[2026-10-01 09:30:01 INFO] System: **[RolePlaying]**\n\n| x |\n",
        "1", "no entry of the log is a phase ('System: **[chatting]**') or a turn: its 2 "
        "entries start with '**[Preprocessing]**', skipped as 1 preprocessing: the run's "
        "configuration; 1 role-play setup: carried by the phase's decision (a run that stopped "
        "after its setup, or a layout ChatDev wrote before its release)")
