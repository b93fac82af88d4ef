"""Every real log of ``../shared/traces``, imported as the conformance tests import it and
replayed: no figure the log cannot support is 0; it is null, with its reason. Skipped with a
reason on a fresh clone, where ``../shared`` is absent."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from masrl import paths
from masrl.traces import recorded, replay, validate_document
from masrl.traces.importers import import_traces

CONFORMANCE = Path(__file__).parent / "importers" / "conformance"
REAL = paths.public_logs_dir()
ABSENT = f"public logs not available at {REAL} (a fresh clone has no ../shared/traces)"


def logs() -> list[tuple[str, str]]:
    """(format, file) of every real log the conformance tables import (not those read with
    another file, nor those refused)."""
    found = {}
    for table in sorted(CONFORMANCE.glob("*.csv")):
        with table.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if row["format"] and not row["read_with"]:
                    found[row["file"]] = row["format"]
    return sorted((fmt, name) for name, fmt in found.items())


LOGS = logs()


@cache
def replayed(fmt: str, name: str) -> list[tuple[dict, dict]]:
    """(imported trace, replay output) of every run of one log."""
    runs = []
    for result in import_traces(fmt, REAL / name):
        report = validate_document(result.trace, source=name)
        assert report.valid, report.lines()
        runs.append((result.trace, replay(report.trace).to_dict()))
    return runs


def recorded_anywhere(trace: dict, *keys: str) -> bool:
    return any(key in e for e in trace["events"] for key in keys)


@pytest.mark.parametrize(("fmt", "name"), LOGS or [(None, None)],
                         ids=[name for _, name in LOGS] or ["absent"])
def test_no_figure_the_log_cannot_support_is_zero(fmt, name):
    if fmt is None or not REAL.is_dir():
        pytest.skip(ABSENT)
    for trace, result in replayed(fmt, name):
        reasons = result["not_recorded"]
        assert recorded.UNEXPLAINED not in reasons.values(), reasons
        times = {e["t"] for e in trace["events"]}
        ends = recorded_anywhere(trace, "t_end", "duration")
        clock = len(times) > 1 or ends
        assert result["clock"] == ("seconds" if clock else "steps")
        assert (result["wall_clock"] is None) == (not clock)
        assert (result["busy_time"] is None) == (not ends)
        if result["speedup"] is None:
            assert "speedup" in reasons
        for key, fields in (("tokens", ("tokens",)), ("cost_usd", ("cost_usd",))):
            figures = result[key]
            present = recorded_anywhere(trace, *fields)
            assert (figures["total"] is None) == (not present), key
            assert (figures["per_agent"] is None) == (not present), key
            if not present:
                assert reasons[f"{key}.total"], key
        if result["tokens"]["recorded"] == 0:
            assert recorded_anywhere(trace, "tokens")  # a count of 0, not the placeholder
        assert (result["cost_usd"]["recorded"] is None) == ("usd" not in trace["costs"])
        team = trace["rewards"].get("team")
        assert result["credit"]["team_reward"] == team
        rewarded = recorded_anywhere(trace, "reward")
        for unit, split in result["credit"]["recorded"].items():
            if not rewarded:
                assert split["total"] is None and f"credit.recorded.{unit}.total" in reasons
        for unit, split in result["credit"]["equal"].items():
            if team is None:
                assert split["total"] is None and f"credit.equal.{unit}.total" in reasons
        estimate = result["cost_usd_estimated"]
        if estimate["total"] is None:
            assert reasons["cost_usd_estimated.total"]
        else:
            assert estimate["total"] > 0 and estimate["price_table"]["version"]
        for key in reasons:  # every reason names a null figure
            holder = result
            for part in key.split(".")[:-1]:
                holder = holder[part]
            assert holder[key.split(".")[-1]] is None, key


def one(fmt: str, part: str) -> list[tuple[dict, dict]]:
    if not REAL.is_dir():
        pytest.skip(ABSENT)
    names = [name for f, name in LOGS if f == fmt and part in name]
    assert names, f"no {fmt} log matching {part}"
    return replayed(fmt, names[0])


def test_a_who_and_when_log_without_times_is_replayed_in_steps():
    trace, result = one("who-and-when", "who-and-when/hand-crafted/")[0]
    assert result["clock"] == "steps"
    assert result["not_recorded"]["wall_clock"] == recorded.ORDER_ONLY
    assert result["critical_steps"] == len(trace["events"])  # one chain, every record on it


def test_a_who_and_when_log_with_times_keeps_its_clock():
    _, result = one("who-and-when", "real-logs/who-and-when/")[0]
    assert result["clock"] == "seconds" and result["wall_clock"] > 0


def test_a_claude_code_session_has_an_estimated_cost_and_tool_time_as_busy_time():
    """The log records when each tool call ends (its result) but no model's latency: busy time
    is what the log times, the tool calls, and a model call counts as an instant."""
    _, result = one("claude-code", "claude-code/258c7280")[0]
    assert result["wall_clock"] > 3600
    assert 0 < result["busy_time"]["main"] < result["wall_clock"]
    assert "busy_time" not in result["not_recorded"]
    assert result["cost_usd"]["total"] is None
    estimate = result["cost_usd_estimated"]
    assert estimate["total"] > 1 and not estimate["partial"]
    assert estimate["priced_calls"] == estimate["model_calls"] > 100
    assert set(estimate["per_model"]) == {"claude-opus-4-6", "claude-sonnet-4-5-20250929"}


def test_the_estimate_agrees_with_the_cost_any_agent_recorded():
    """The any-agent runs record each call's cost: the estimate from their tokens matches."""
    if not REAL.is_dir():
        pytest.skip(ABSENT)
    compared = 0
    for fmt, name in LOGS:
        if not name.startswith("otel-any-agent/"):
            continue
        for _, result in replayed(fmt, name):
            estimate, cost = result["cost_usd_estimated"], result["cost_usd"]["total"]
            assert estimate["total"] == pytest.approx(cost, rel=0.01), name
            compared += 1
    assert compared == 5
