"""The OTLP reader decides each check's usual case inline (issue 30: the collector's import
cost five times its parse); these tests hold every inline decision to the check it stands in
for, on the usual values and on the ones next to them, so that a value read or a fault's words
never depend on which way it went."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from masrl.traces.importers import SourceError
from masrl.traces.importers._kit.timestamps import MAX_NS, NS, moment_ns
from masrl.traces.importers.spans import otel, otel_shapes
from masrl.traces.importers.spans.otel_shapes import RawSpan

PATH = Path("spans.jsonl")

ANY_VALUES = [
    {"stringValue": "a"}, {"stringValue": None}, {"stringValue": 3}, {"boolValue": False},
    {"doubleValue": 0.5}, {"bytesValue": "AAE="}, {"intValue": "42"}, {"intValue": "-7"},
    {"intValue": "0042"}, {"intValue": "4.5"}, {"intValue": " 5"}, {"intValue": "\u0663"},
    {"intValue": "1_000"}, {"intValue": 5}, {"intValue": None}, {"intValue": "-"},
    {"string_value": "snake"}, {"int_value": "9"}, {"string_value": None, "int_value": "3"},
    {"stringValue": "a", "intValue": "1"}, {"arrayValue": {"values": [{"intValue": "1"}]}},
    {"arrayValue": None}, {"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": 1}}]}},
    {}, {"other": 1}, None,
]


def outcome(read, *args):
    try:
        return "value", read(*args)
    except SourceError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("value", ANY_VALUES, ids=repr)
def test_an_attribute_reads_as_its_any_value_reads(value):
    found = outcome(otel_shapes._otlp_attributes, PATH, "s", [{"key": "k", "value": value}],
                    ".attributes")
    alone = outcome(otel_shapes._otlp_value, PATH, "s.attributes[0].value", value)
    assert found == (alone if alone[0] == "error" else ("value", {"k": alone[1]}))


@pytest.mark.parametrize("item", [{"key": 1, "value": {"stringValue": "a"}}, {"value": {}},
                                  "k", None, {"key": "k", "value": 3}])
def test_a_malformed_attribute_is_named_at_its_place(item):
    with pytest.raises(SourceError, match=r"s\.attributes\[1\]"):
        otel_shapes._otlp_attributes(PATH, "s", [{"key": "a", "value": {"stringValue": "x"}},
                                                 item], ".attributes")


TIMES = ["1700000000000000000", "0", "", "12.5", " 1", "1 ", "+1", "\u0661\u0667", "9" * 19,
         "9" * 20, "9" * 25, str(MAX_NS - 1), str(MAX_NS), 170, 0, -1, True, 1.5, MAX_NS - 1,
         MAX_NS, None, [1, 2], {"n": 1}]


@pytest.mark.parametrize("value", TIMES, ids=repr)
def test_nanoseconds_read_as_the_time_rule_reads_them(value):
    assert outcome(otel_shapes._nanos, PATH, "s", "startTimeUnixNano", value) == outcome(
        lambda v: moment_ns(v, PATH, "s", "startTimeUnixNano", unit=NS, iso=False), value)


IDS = ["00f067aa0ba902b1", "00F067AA0BA902B1", "APBnqgupArE=", "00f067aa0ba902b", "0x0f067aa0ba902b1",
       "zzzzzzzzzzzzzzzz", "", 5, None]


@pytest.mark.parametrize("span_id", IDS, ids=repr)
@pytest.mark.parametrize("key", ["spanId", "parentSpanId"])
def test_span_ids_read_as_the_id_check_reads_them(span_id, key):
    raw = {"traceId": "4BF92F3577B34DA6A3CE929D0E0E4736", "spanId": "00f067aa0ba902b1",
           "startTimeUnixNano": "1", "endTimeUnixNano": "2", key: span_id}
    found = outcome(otel_shapes._otlp_span, PATH, "s", raw, None, None)
    if key == "parentSpanId" and not span_id:
        assert found[1].parent_id is None
        return
    alone = outcome(otel_shapes._otlp_id, PATH, "s", key, span_id, 8)
    if alone[0] == "error":
        assert found == alone
    else:
        assert found[1].trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"
        assert (found[1].span_id if key == "spanId" else found[1].parent_id) == alone[1]


def test_spans_that_all_ended_keep_their_order_and_merge_nothing():
    spans = [RawSpan(str(k), "t", f"{k % 3}", None, "", k, k + 1, {}, False, None, str(k))
             for k in range(7)]
    kept, merged, open_ended = otel_shapes.merge_prints(spans)
    assert kept == spans and kept is not spans and (merged, open_ended) == (0, 0)


# the names as the reads declare them (not the sets built from them, which the test checks)
PART_NAMES = [name for names in otel.PARTS.values() for name in names]
READ = [*otel.INPUT_TOKENS, *otel.OUTPUT_TOKENS, *otel.TOTAL_TOKENS, *otel.COST, *PART_NAMES,
        "gen_ai.usage.input_cost", "gen_ai.usage.output_cost", "cost_prompt", "cost_completion"]
AGENT_READ = ["masrl.spawn.tokens", "masrl.spawn.cost_usd", "masrl.return.tokens",
              "masrl.return.cost_usd", "masrl.spawn.end_unix_nano", "masrl.return.end_unix_nano"]


@pytest.mark.parametrize("name", READ + AGENT_READ)
def test_every_usage_name_is_still_read(name):
    """Each name the usage groups look up is read (a bad value is refused, naming it): none is
    left out of the sets that decide whether a span states usage at all."""
    operation = "invoke_agent" if name in AGENT_READ else "chat"
    attributes = {"gen_ai.operation.name": operation, name: "many"}
    if name in PART_NAMES:  # the parts of a count are read beside the count
        attributes["gen_ai.usage.input_tokens"] = 3
    raw = RawSpan("s", "t", "a", None, "chat", 1, 2, attributes, False, None, "")
    with pytest.raises(SourceError, match=f"attributes.{name} must be"):
        otel.classify(raw, Counter(), PATH, Counter())
