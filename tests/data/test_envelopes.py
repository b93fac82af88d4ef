"""Scale envelopes: loading (unknown stays unknown), the gap in orders of magnitude, and the
size of a synthetic trace."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
import support
from support import replace_in

from masrl.analyses import scale
from masrl.data import benchmark_results
from masrl.data.dataset import Dataset
from masrl.presentation import scale_views
from masrl.traces import synthetic


def problem_lines(data_dir) -> list[str]:
    return support.problem_lines("envelopes", data_dir)


def test_envelopes_load_with_unknowns_left_empty():
    table = Dataset().envelopes
    assert set(table["kind"]) == {"industrial", "academic"}
    assert table["system"].is_unique
    assert table["agents"].dtype.kind == "f"
    owl = table.set_index("system").loc["OWL"]
    assert math.isnan(owl["agents"]) and math.isnan(owl["horizon"])  # not guessed
    keys = set(Dataset().papers["key"])
    assert set(table["key"]) - {""} <= keys


def test_a_number_needs_its_bound_and_unit(data_copy):
    replace_in(data_copy / "envelopes.csv", ",2,exactly,2,turns,up_to,", ",2,,2,,up_to,")
    assert problem_lines(data_copy) == [
        "envelopes.csv:8:agents_bound: agents is given, so agents_bound must be given",
        "envelopes.csv:8:horizon_unit: horizon is given, so horizon_unit must be given",
    ]


def test_guessed_words_are_not_numbers(data_copy):
    replace_in(data_copy / "envelopes.csv", "OWL,academic,owl2025,,,,", "OWL,academic,owl2025,,many,up_to,")
    (line,) = problem_lines(data_copy)
    assert line.startswith("envelopes.csv:24:agents: 'many' is not valid: expected a number")


def test_unknown_pool_key(data_copy):
    replace_in(data_copy / "envelopes.csv", ",academic,magrpo,", ",academic,magrpo2,")
    assert problem_lines(data_copy) == ["envelopes.csv:8:key: 'magrpo2' is not a key of papers.csv"]


def _frame(rows):
    columns = ["system", "kind", "agents", "horizon", "horizon_unit"]
    return pd.DataFrame(rows, columns=columns)


def test_scale_gap_uses_comparable_units_and_skips_unknowns():
    frame = _frame([
        ["big", "industrial", 1000.0, 10000.0, "tool_calls"],
        ["project", "industrial", 10.0, 99999.0, "sessions"],  # sessions: no horizon comparison
        ["unknown", "industrial", float("nan"), float("nan"), ""],
        ["small", "academic", 10.0, 10.0, "turns"],
        ["tiny", "academic", 1.0, 1.0, "rounds"],
    ])
    gap = scale.scale_gap(frame)
    width, horizon = gap.iloc[0], gap.iloc[1]
    assert width["industrial max"] == 1000 and width["academic max"] == 10
    assert width["orders (max)"] == 2.0
    assert width["industrial rows"] == 2  # the unknown row is left out
    assert horizon["industrial max"] == 10000  # not the sessions row
    assert horizon["orders (max)"] == 3.0
    assert horizon["academic median"] == 5.5


def test_plotted_and_unplotted_partition_the_rows():
    table = Dataset().envelopes
    shown, left = scale.plotted(table), scale.unplotted(table)
    assert len(shown) + len(left) == len(table)
    assert shown[["agents", "horizon"]].notna().all().all()
    assert all(label.endswith(")") for label in shown["label"])


@pytest.mark.parametrize("agents, calls", [(1, 1), (3, 10), (7, 3)])
def test_synthetic_trace_counts(agents, calls):
    trace = synthetic.swarm_trace(synthetic.spread(calls, agents))
    assert len(trace["events"]) == 2 * calls + 2 * agents + 3
    assert sum(e["type"] == "tool_call" for e in trace["events"]) == calls
    assert len({e["id"] for e in trace["events"]}) == len(trace["events"])
    estimate = scale.trace_estimate(agents, calls)
    assert estimate["bytes"] == len(json.dumps(trace, separators=(",", ":")).encode())
    assert scale.trace_estimate(agents, calls) == estimate  # deterministic


def test_synthetic_trace_is_valid_and_replays():
    check = scale.replay_check(5, 12)
    assert check["valid"] is True
    assert check["replayed events"] == 2 * 12 + 2 * 5 + 3
    assert check["max concurrency"] >= 5


def test_display_frame_leaves_unknown_blank():
    shown = scale_views.display_frame(Dataset().envelopes).set_index("system")
    assert shown.at["OWL", "agents"] == ""
    assert shown.at["Kimi K2.6 Agent Swarm", "agents"] == "300"


def test_throughput_results_are_read_and_checked(tmp_path):
    recorded = benchmark_results.throughput_results()
    assert recorded is not None and recorded["events"] > 900_000
    assert recorded["ratio"] == pytest.approx(recorded["replay_s"] / recorded["json_load_s"], rel=0.01)
    assert benchmark_results.throughput_results(tmp_path / "none.json") is None
    partial = tmp_path / "partial.json"
    partial.write_text('{"events": 1}', encoding="utf-8")
    with pytest.raises(ValueError, match="partial.json: missing agents"):
        benchmark_results.throughput_results(partial)


def test_the_envelope_table_words_each_bound_and_links_its_sources():
    data = Dataset()
    shown = scale_views.envelope_table(data.envelopes, data.vocabulary)
    rows = {row[0]: dict(zip(shown.header, row)) for row in shown.rows}
    assert rows["Kimi K2.5 Agent Swarm"]["agents per run"] == "up to 100"
    assert rows["Kimi K2.5 Agent Swarm"]["horizon of one task"] == "up to 1,500 tool calls"
    assert rows["OWL"]["agents per run"] == "—"  # unknown stays unknown
    assert rows["Kimi K2.5 Agent Swarm"]["sources"].count('rel="noopener">source') == 2


def test_the_throughput_table_names_every_recorded_figure():
    shown = scale_views.throughput_table({"events": 999603, "ratio": 1.495, "new_key": 2.5})
    assert shown.rows == [["events in the trace", "999,603"],
                          ["replay time / json.load time", "1.50"], ["new key", "2.5"]]


def test_decoder_floor_results_are_read_and_checked(tmp_path):
    recorded = benchmark_results.decoder_floor_results()
    assert recorded is not None and recorded["events"] > 900_000
    readers = recorded["readers"]
    assert readers["json.load"]["cpu_ratio"] == 1.0
    for reader in readers.values():  # each ratio is its CPU time over json.load's
        assert reader["cpu_ratio"] == pytest.approx(
            reader["cpu_s"] / readers["json.load"]["cpu_s"], abs=0.01)
    assert benchmark_results.decoder_floor_results(tmp_path / "none.json") is None
    partial = tmp_path / "partial.json"
    partial.write_text('{"events": 1, "file_bytes": 2, "repeat": 1, "readers": '
                       '{"json.load": {"cpu_s": 1, "native": false}}}', encoding="utf-8")
    with pytest.raises(ValueError, match="partial.json: readers: json.load: missing cpu_ratio"):
        benchmark_results.decoder_floor_results(partial)


def test_a_faulty_decoder_floor_file_is_named_by_its_whole_path(tmp_path, monkeypatch):
    (tmp_path / "decoder_floor.json").write_text(
        '{"events": 1, "file_bytes": 2, "repeat": 1, "readers": {}}', encoding="utf-8")
    monkeypatch.setattr(benchmark_results.paths, "BENCHMARK_RESULTS", tmp_path)
    with pytest.raises(ValueError) as raised:
        benchmark_results.decoder_floor_results()
    assert str(raised.value) == f"{tmp_path / 'decoder_floor.json'}: readers: missing json.load"


def test_the_decoder_floor_table_puts_the_fastest_reader_first():
    shown = scale_views.decoder_floor_table({"readers": {
        "json.load": {"cpu_s": 2.5, "cpu_ratio": 1.0, "wall_s": 2.6, "peak_mib": 1366.0},
        "msgspec typed": {"cpu_s": 1.2, "cpu_ratio": 0.48, "wall_s": 1.25, "peak_mib": 1034.4}}})
    assert shown.rows == [["msgspec typed", "1.20", "0.48", "1.25", "1,034"],
                          ["json.load", "2.50", "1.00", "2.60", "1,366"]]


def test_the_fastest_native_reader_is_chosen_among_the_columnar_ones_only():
    figures = {"cpu_s": 1.0, "wall_s": 1.0, "peak_mib": 1.0}
    recorded = {"readers": {"msgspec typed": {**figures, "cpu_ratio": 0.4, "native": False},
                            "duckdb read_json": {**figures, "cpu_ratio": 6.0, "native": True},
                            "pyarrow.json": {**figures, "cpu_ratio": 1.9, "native": True}}}
    assert scale_views.fastest_native_reader(recorded)[0] == "pyarrow.json"
    with pytest.raises(ValueError, match="no native columnar reader"):
        scale_views.fastest_native_reader({"readers": {"json.load": {**figures,
                                                                      "native": False}}})
