"""Figures as a reader says them."""

from __future__ import annotations

from masrl.presentation.report import words


def test_counts_durations_money_and_shares():
    assert [words.count(n, "event") for n in (0, 1, 1234)] == ["0 events", "1 event",
                                                                "1,234 events"]
    assert words.count(0, "tool call", zero="no") == "no tool calls"
    assert words.count(2, "dependency", "dependencies") == "2 dependencies"
    assert [words.duration(s) for s in (0.35, 12.34, 245, 600, 4180.163, 7200)] == [
        "0.35 s", "12.3 s", "4 min 5 s", "10 min", "1 h 10 min", "2 h"]
    assert [words.money(v) for v in (0, 0.0001637, 0.027, 0.17235, 12.5)] == [
        "$0", "$0.00016", "$0.027", "$0.17", "$12.50"]
    assert [words.share(f) for f in (0.004, 0.41, 0.996, 1.0)] == [
        "less than 1%", "41%", "more than 99%", "100%"]
    assert words.listed(["a", "b", "c", "d", "e", "f"]) == "a, b, c, d and 2 more"
    assert words.listed(["a", "b"]) == "a and b"


def test_plurals():
    assert [words.count(2, n) for n in ("history entry", "line", "day", "box", "span")] == [
        "2 history entries", "2 lines", "2 days", "2 boxes", "2 spans"]
