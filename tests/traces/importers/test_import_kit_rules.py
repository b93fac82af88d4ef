"""The kit's one rule for counts, amounts and times (_kit/numbers.py, _kit/timestamps.py), the
text an event keeps on request and the labels a source gives (_kit/content.py): each case
with its figure or its refusal, word for word."""

from __future__ import annotations

from collections import Counter

import pytest

from masrl.traces.importers._kit import content
from masrl.traces.importers._kit.common import SourceError, TraceBuilder
from masrl.traces.importers._kit.numbers import MAX_COUNT, TEXT_AMOUNT, TEXT_COUNT, amount, count
from masrl.traces.importers._kit.timestamps import moment_ns

NS = 10**9
MOMENT = 1_760_000_000 * NS  # 2025-10-09T08:53:20Z


@pytest.mark.parametrize("value, figure, repaired", [
    (120, 120, 0), (120.0, 120, 0), ("120", 120, 1), ("0", 0, 1), (None, None, 0),
    (MAX_COUNT, MAX_COUNT, 0),
])
def test_a_count_is_read(value, figure, repaired):
    repairs = Counter()
    found = count(value, "log.json", "spans[2]", "usage.input", repairs)
    assert found == figure and type(found) is type(figure)
    assert repairs[TEXT_COUNT] == repaired


@pytest.mark.parametrize("value, wanted", [
    (-3, "a count of 0 or more, found the number -3"),
    (12.5, "a whole number of tokens, found the number 12.5"),
    ("120 tokens", 'a count written with the digits 0-9, found the string "120 tokens"'),
    ("1,200", 'a count written with the digits 0-9, found the string "1,200"'),
    ("١٢٠", 'a count written with the digits 0-9, found the string "١٢٠"'),
    ("12²", 'a count written with the digits 0-9, found the string "12²"'),
    ("-4", 'a count written with the digits 0-9, found the string "-4"'),
    (MAX_COUNT + 1, "a count up to 2^53 (9,007,199,254,740,992), the largest a double holds "
                    "exactly, found the number 9007199254740993"),
    (True, "a count (a whole number of 0 or more), found true"),
    ([1], "a count (a whole number of 0 or more), found an array"),
    ({"n": 1}, "a count (a whole number of 0 or more), found an object"),
])
def test_anything_else_is_refused_naming_file_place_and_field(value, wanted):
    with pytest.raises(SourceError) as caught:
        count(value, "log.json", "spans[2]", "usage.input", Counter())
    assert str(caught.value) == f"log.json:spans[2]: usage.input must be {wanted}"


def test_an_amount_is_a_finite_number_of_zero_or_more():
    repairs = Counter()
    assert amount(0.0021, "f", 3, "cost") == 0.0021
    assert amount("0.25", "f", 3, "cost", repairs) == 0.25 and repairs[TEXT_AMOUNT] == 1
    for value in (-0.1, "$0.25", "1e400", True, 1e301):
        with pytest.raises(SourceError, match="f:3: cost must be an amount"):
            amount(value, "f", 3, "cost")


@pytest.mark.parametrize("value, unit", [
    ("2025-10-09T08:53:20Z", None), ("2025-10-09T08:53:20", None),  # no offset: UTC
    ("2025-10-09T10:53:20+02:00", None), ("2025-10-09 08:53:20.000000000Z", None),
    (1_760_000_000, None), (1_760_000_000.0, None), (1_760_000_000_000, None),
    (1_760_000_000_000_000, None), (MOMENT, None), (float(MOMENT), None), (str(MOMENT), None),
    ("1760000000.0", None), ([1_760_000_000, 0], None), (1_760_000_000_000_000, 10**6),
    (MOMENT, NS), (str(MOMENT), NS),
])
def test_a_time_is_read_in_every_way_logs_write_it(value, unit):
    assert moment_ns(value, "f", 1, "ts", unit=unit) == MOMENT


def test_a_float_of_seconds_is_scaled_exactly():
    """1760000001.5 * 10**9 as floats is 128 ns off; the decimal the float was written as is
    scaled instead."""
    assert moment_ns(1_760_000_001.5, "f", 1, "ts") == 1_760_000_001_500_000_000
    assert moment_ns(1_760_000_000.123456, "f", 1, "ts") == 1_760_000_000_123_456_000


@pytest.mark.parametrize("value, options, wanted", [
    ("2025-10-09", {}, "a time of day as well as a date (a date alone cannot place an event "
                       'within the run), found the string "2025-10-09"'),
    ("2025-10-09T08:53:20", {"naive": False}, "an ISO 8601 time with a UTC offset (e.g. "
     '2025-03-01T10:00:00Z), found the string "2025-10-09T08:53:20"'),
    ("2025-02-30T00:00:00Z", {}, "an ISO 8601 time or an epoch number of 0 or more (or its "
     'digits), found the string "2025-02-30T00:00:00Z"'),
    ("٢٠٢٥-١٠-٠٩T08:53:20Z", {}, "an ISO 8601 time or an epoch number of 0 or more (or its "
     'digits), found the string "٢٠٢٥-١٠-٠٩T08:53:20Z"'),
    (-1, {}, "an ISO 8601 time or an epoch number of 0 or more (or its digits), found the "
             "number -1"),
    (True, {}, "an ISO 8601 time or an epoch number of 0 or more (or its digits), found true"),
    (1_760_000_000, {"numbers": False}, "an ISO 8601 time, found the number 1760000000"),
    (1_760_000_000_000_000 * 1000 * 1000, {}, "a time between 1970 and the year 9999 (it is "
     "past the year 9999 read as nanoseconds: is it in another unit?), found the number "
     "1760000000000000000000"),
    (1_720_000_000_000_000, {"unit": 1000}, "a time between 1970 and the year 9999 (it is past "
     "the year 9999 read as milliseconds: is it in another unit?), found the number "
     "1720000000000000"),
    (None, {}, "an ISO 8601 time or an epoch number of 0 or more (or its digits), found null"),
])
def test_a_time_that_is_not_one_is_refused(value, options, wanted):
    with pytest.raises(SourceError) as caught:
        moment_ns(value, "f", 4, "ts", **options)
    assert str(caught.value) == f"f:4: ts must be {wanted}"


def test_text_is_kept_only_on_request_cut_and_marked():
    """The builder turns content_ref into content while keeping() is in force: bounded per
    event at a character boundary, per trace by its total."""
    long = "é" * 3000  # 6000 bytes of UTF-8
    build = TraceBuilder()
    build.event("a", 0, "message", "m", content_ref=content.content_ref("hello"))
    assert "content" not in build.by_id["a"] and isinstance(build.by_id["a"]["content_ref"], str)
    with content.keeping(event_bytes=4096, trace_bytes=4105):
        build = TraceBuilder()
        build.event("a", 0, "message", "m", content_ref=content.content_ref({"q": 1}))
        build.event("b", 0, "message", "m", content_ref=content.content_ref(long))
        build.event("c", 0, "message", "m", content_ref=content.content_ref("more"))
        build.event("d", 0, "message", "m")
        summary = content.content_summary(build.events)
    assert build.by_id["a"]["content"] == {"text": '{"q":1}'}
    cut = build.by_id["b"]["content"]
    assert cut["truncated"] is True and cut["bytes"] == 6000
    assert cut["text"] == "é" * 2048 and len(cut["text"].encode()) == 4096
    assert "content" not in build.by_id["c"]  # 7 + 4096 + 4 > 4105: past the trace's bound
    assert summary == {"event_bytes": 4096, "kept": 2, "left_out": 1, "trace_bytes": 4105,
                       "truncated": 1}
    assert content.content_summary(build.events) is None  # not kept any more


def test_a_label_bounds_its_texts_and_leaves_out_what_it_lacks():
    found = content.label("mistake_reason", "x" * 5000, content.GOLD, "Who&When", event="h3",
                          agent=None, comment="")
    assert found == {"name": "mistake_reason", "value": "x" * 4096, "kind": "gold",
                     "source": "Who&When", "event": "h3", "truncated": True}
    assert content.label("score", 0.5, content.ANNOTATION, "phoenix LLM", category="good") == {
        "name": "score", "value": 0.5, "kind": "annotation", "source": "phoenix LLM",
        "category": "good"}
