"""The real-runs chapter's data functions, on a traces folder laid out like ../shared/traces but
filled with the hand-written fixtures (and one broken log, which must be reported, not dropped)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from importer_helpers import FIXTURES

from masrl.analyses import real_runs
from masrl.data.dataset import Dataset
from masrl.presentation import charts, real_runs_charts, real_runs_views

SOURCES = real_runs.catalogue(Dataset().log_sources)
M1, CA, CC, OT = real_runs.labels(SOURCES)


@pytest.fixture
def traces_dir(tmp_path):
    root = tmp_path / "traces"
    for folder in ("who-and-when/hand-crafted", "who-and-when/algorithm-generated",
                   "claude-code", "otel-any-agent"):
        (root / folder).mkdir(parents=True)
    shutil.copy(FIXTURES / "who_and_when/magentic_one.json", root / "who-and-when/hand-crafted")
    shutil.copy(FIXTURES / "who_and_when/captain_agent.json",
                root / "who-and-when/algorithm-generated")
    (root / "who-and-when/algorithm-generated/broken.json").write_text('{"history": []}',
                                                                      encoding="utf-8")
    shutil.copy(FIXTURES / "claude_code/s1.jsonl", root / "claude-code")
    shutil.copytree(FIXTURES / "claude_code/s1", root / "claude-code/s1")
    shutil.copy(FIXTURES / "otel/any_agent.json", root / "otel-any-agent/FAKE_trace.json")
    (root / "otel-any-agent/LICENSE").write_text("not a log", encoding="utf-8")
    return root


def test_discover_lists_every_log_and_only_logs(traces_dir):
    found = [(log.source.key, log.path.name) for log in real_runs.discover(traces_dir)]
    assert found == [("magentic-one", "magentic_one.json"), ("captain-agent", "broken.json"),
                     ("captain-agent", "captain_agent.json"), ("claude-code", "s1.jsonl"),
                     ("otel", "FAKE_trace.json")]


def test_import_all_refuses_a_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="the public logs are not there"):
        real_runs.import_all(tmp_path / "nowhere")


def test_account_and_failures(traces_dir):
    items = real_runs.import_all(traces_dir)
    account = real_runs.account(items, SOURCES).set_index("source")
    assert account.loc[CA].to_dict() == {"logs": 2, "imported": 1, "not imported": 1,
                                         "files read": 1, "records skipped": 0,
                                         "events repaired": 0}
    assert account.loc[CC, "files read"] == 3
    assert account.loc[CC, "records skipped"] == 11
    failed = real_runs.failures(items)
    assert failed.to_dict("records") == [{
        "source": CA, "log": "broken.json",
        "reason": f"{traces_dir}/who-and-when/algorithm-generated/broken.json:history: "
                  "must be a non-empty list of chat records, found an empty list"}]
    reasons = real_runs.reasons(items)
    row = reasons[(reasons["source"] == OT)].to_dict("records")
    assert row == [{"source": OT, "what": "skipped", "reason": "span: no GenAI operation attribute",
                    "count": 1, "logs": 1}]


def test_runs_table(traces_dir):
    table = real_runs.runs(real_runs.import_all(traces_dir)).set_index("source")
    assert table.loc[M1, ["events", "agents", "critical steps", "parallelism", "decisions",
                          "max concurrency"]].tolist() == [9, 3, 9, 1.0, 6, 0]
    assert table.loc[CC, ["events", "agents", "sub-agents", "spawn depth", "tool calls",
                          "overlapping tool calls", "tokens"]].tolist() == [19, 3, 2, 1, 4, 2,
                                                                            1394.0]
    assert table.loc[OT, ["agents", "sub-agents", "critical steps"]].tolist() == [2, 1, 9]
    summary = real_runs.by_source(table.reset_index()).set_index("source")
    assert summary.loc[CC, "parallelism"] == "1.06 [1.06-1.06]"


def test_delegations_and_mistakes(traces_dir):
    items = real_runs.import_all(traces_dir)
    delegated = real_runs.delegations(items)
    assert delegated.to_dict("records") == [
        {"agent": "FileSurfer", "delegations": 1, "share": 0.5, "runs": 1},
        {"agent": "WebSurfer", "delegations": 1, "share": 0.5, "runs": 1}]
    mistakes = real_runs.mistakes(items).set_index("source")
    assert mistakes.loc[M1, ["steps", "mistake step", "relative position", "acting agent",
                             "event type"]].tolist() == [9, 4, 5 / 9, "WebSurfer", "message"]
    assert mistakes.loc[CA, ["mistake step", "relative position"]].tolist() == [2, 0.6]
    summary = real_runs.mistake_summary(mistakes.reset_index()).set_index("source")
    assert summary.loc[M1, "in the first half"] == 0.0
    assert summary.loc[M1, "at an orchestrator decision"] == 0.0


def test_sub_agents_and_token_shares(traces_dir):
    items = real_runs.import_all(traces_dir)
    subs = real_runs.subagents(items).set_index("sub-agent")
    assert subs.loc["agent-b1", ["session", "kind", "role", "tokens", "lifetime (s)",
                                 "spawner events while alive",
                                 "overlaps another sub-agent"]].tolist() == [
        "s1", "Task", "Explore", 144.0, 5.0, 0, False]
    assert subs.loc["agent-acompact-c1", ["kind", "tokens", "lifetime (s)"]].tolist() == [
        "compaction", 353.0, 10.0]
    shares = real_runs.token_shares(items).set_index("spent by")["tokens"].to_dict()
    assert shares == {"main agent": 1394.0 - 144 - 353, "Task sub-agents": 144.0,
                      "compaction": 353.0}


def test_scale_points_with_and_without_envelopes(traces_dir):
    table = real_runs.runs(real_runs.import_all(traces_dir))
    envelopes = pd.DataFrame([{"system": "Swarm X", "agents": 50.0, "agents_bound": "up_to",
                               "horizon": 900.0, "horizon_unit": "tool_calls",
                               "horizon_bound": "up_to", "source_url": "https://example.org"}])
    envelopes = pd.DataFrame([
        {"system": "Swarm X", "kind": "industrial", "agents": 50.0, "agents_bound": "up_to",
         "horizon": 900.0, "horizon_unit": "tool_calls", "horizon_bound": "more_than",
         "source_url": "https://example.org"},
        {"system": "Compiler Y", "kind": "industrial", "agents": 16.0, "agents_bound": "exactly",
         "horizon": 2000.0, "horizon_unit": "sessions", "horizon_bound": "about",
         "source_url": "https://example.org"},
        {"system": "Trainer Z", "kind": "academic", "agents": 2.0, "agents_bound": "exactly",
         "horizon": 20.0, "horizon_unit": "tool_calls", "horizon_bound": "up_to",
         "source_url": "https://example.org"}])
    points = real_runs.scale_points(table, envelopes)
    assert points[["who", "agents per run", "tool calls per run"]].values.tolist() == [
        [M1, 3, 0], [CA, 3, 0], [CC, 3, 4], [OT, 2, 3], ["Swarm X", 50.0, 900.0]]
    assert len(real_runs.scale_points(table, None)) == 4
    sentence = real_runs_views.envelope_sentence(envelopes, Dataset().vocabulary)
    assert sentence == "Swarm X runs up to 50 agents and more than 900 tool calls per task"


def test_charts_have_titles_and_computed_descriptions(traces_dir):
    items = real_runs.import_all(traces_dir)
    table = real_runs.runs(items)
    figure = charts.show(real_runs_charts.critical_chart(table))
    assert figure.title == "Critical steps against events"
    assert "2 of 4 runs lie on the diagonal (parallelism 1); the largest parallelism is 1.22." in (
        figure.description)
    delegation = charts.show(real_runs_charts.delegation_chart(real_runs.delegations(items)))
    assert "WebSurfer 1" in delegation.description
    tokens = charts.show(real_runs_charts.token_chart(real_runs.token_shares(items)))
    assert "s1: main agent 64.3%" in tokens.description


def test_sources_come_from_the_catalogue_file(traces_dir, data_copy):
    """A source added to data/log_sources.csv is discovered, imported and counted; the code
    names no source."""
    with open(data_copy / "log_sources.csv", "a", encoding="utf-8") as file:
        file.write("more-otel,More spans,otel-any-agent,FAKE_*.json,otel,somewhere @1,"
                   "https://example.org,MIT,a test source\n")
    sources = real_runs.catalogue(Dataset(data_copy).log_sources)
    assert real_runs.labels(sources)[-1] == "More spans"
    items = real_runs.import_all(traces_dir, sources)
    account = real_runs.account(items, sources).set_index("source")
    assert account.loc["More spans", ["logs", "imported"]].tolist() == [1, 1]
    figures = real_runs_views.import_figures(items, sources)
    assert figures["n_more-otel"] == 1 and figures["n_logs"] == 6


def test_the_traces_carry_the_import_counts(traces_dir):
    items = real_runs.import_all(traces_dir)
    carried = real_runs.carried(items)
    assert carried.loc[CC].tolist() == [1, 3, 11, 2]
    assert real_runs.carried_agrees(items, SOURCES)
    for item in items:
        if item.ok and item.log.source.label == CC:
            item.trace.head["provenance"]["skipped"] = {"made up": 1}
    assert not real_runs.carried_agrees(items, SOURCES)
    assert real_runs_views.import_figures(items, SOURCES)["provenance_agreement"] == (
        "different from")


def test_tables_read_the_trace_columns_not_the_document(traces_dir):
    """The measures need only the trace's columns, records and head: a trace whose document
    was not kept gives the same tables."""
    items = real_runs.import_all(traces_dir)
    before = (real_runs.runs(items), real_runs.mistakes(items), real_runs.delegations(items),
              real_runs.subagents(items))
    for item in items:
        if item.ok:
            item.trace._document = None
            item.trace._data = None
    after = (real_runs.runs(items), real_runs.mistakes(items), real_runs.delegations(items),
             real_runs.subagents(items))
    for old, new in zip(before, after):
        pd.testing.assert_frame_equal(old, new)


def test_chapter_figures(traces_dir):
    items = real_runs.import_all(traces_dir)
    table = real_runs.runs(items)
    shape = real_runs_views.shape_figures(table)
    assert shape == {"n_runs": 4, "n_sequential": 2, "max_parallelism": "1.22",
                     "max_depth": 1, "max_concurrency": 1, "branching_sources": f"{CC}, {OT}"}
    mistaken = real_runs.mistakes(items)
    figures = real_runs_views.mistake_figures(mistaken, SOURCES)
    assert figures["mistake_median_captain-agent"] == "0.60"
    assert figures["first_half_magentic-one"] == "0%"
    shown = real_runs_views.mistake_summary_shown(mistaken)
    assert shown.loc[M1, "median relative position"] == "0.56"
    subs = real_runs.subagents(items)
    cc_runs = table[table["source"] == CC]
    sub = real_runs_views.subagent_figures(subs, real_runs.token_shares(items), cc_runs)
    assert (sub["tasks"], sub["compactions"], sub["overlapping_calls"]) == (1, 1, 2)
    assert real_runs_views.delegation_figures(real_runs.delegations(items))["top_share"] == "50%"


def test_a_background_command_runs_on_and_is_no_wait_that_overlaps():
    """A Claude Code shell command run in the background has a later, ``async`` result (its
    notice): it ran on while the agent went on, so it is a background call, and its long
    wait does not make the calls the agent made meanwhile overlap it."""
    from masrl.traces import replay as replay_of
    from masrl.traces.importers import import_file
    from masrl.traces.validate import validate_document

    result = import_file("claude-code", FIXTURES / "claude_code" / "notifications.jsonl")
    report = validate_document(result.trace, source="notifications.jsonl")
    item = real_runs.Imported(None, result, report, replay_of(report.trace))
    assert real_runs.background_tool_calls(item) == 2
    assert real_runs.overlapping_tool_calls(item) == 0
