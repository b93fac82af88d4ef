"""What an imported trace's provenance says about how much of its log it holds
(:mod:`masrl.traces.provenance`)."""

from __future__ import annotations

import pytest

from masrl.traces.provenance import THIN_EVENTS, thin, thin_import


def provenance(read: int, mapped: int, **skipped: int) -> dict:
    return {"records": {"unit": "span", "read": read, "mapped": mapped,
                        "skipped": read - mapped},
            "skipped": {reason.replace("_", " "): n for reason, n in skipped.items()}}


@pytest.mark.parametrize("read, mapped, events, is_thin", [
    (6, 2, 1, True),  # a third of the records, one event: the CrewAI run of issue 26
    (9, 3, 4, True), (7, 3, 3, False),  # more than a third gave events
    (1877, 482, 481, False),  # a session whose skipped lines are progress records
    (30, 9, THIN_EVENTS, False), (30, 9, THIN_EVENTS - 1, True),
    (0, 0, 1, False),
])
def test_thin_is_a_third_or_less_of_the_records_and_few_events(read, mapped, events, is_thin):
    found = thin(provenance(read, mapped), events)
    assert (found is not None) == is_thin


def test_the_message_names_the_counts_and_the_most_frequent_reasons():
    document = {"events": [{}], "provenance": provenance(
        8, 1, span_SPAN=3, telemetry=2, chain=1, wrapper=1)}
    assert thin_import(document) == (
        "thin import: 1 of 8 spans of the log gave events (1 event); skipped: 3 span SPAN; "
        "2 telemetry; 1 chain; 1 more reasons; the trace may miss part of the run")


def test_a_trace_without_an_account_of_its_log_is_never_thin():
    assert thin_import({"events": [{}]}) is None
    assert thin_import({"events": [{}], "provenance": {"records": "many"}}) is None
    assert thin_import({"events": [{}], "provenance": {"records": {"read": True,
                                                                   "mapped": 0}}}) is None
