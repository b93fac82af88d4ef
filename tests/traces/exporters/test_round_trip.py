"""What a round trip keeps, as the import chapter shows it."""

from __future__ import annotations

import json

from masrl.traces import resources
from masrl.traces.exporters import round_trip

CENTRALIZED = resources.EXAMPLES / "centralized.json"


def document() -> dict:
    return json.loads(CENTRALIZED.read_text(encoding="utf-8"))


def test_atif_round_trip_keeps_all_but_the_edges():
    table = round_trip.kept(document(), round_trip.round_trip(document(), "atif"))
    kept = dict(zip(table["quantity"], table["kept"]))
    assert kept == {"events": True, "identical events": True, "acting agents": True,
                    "tools": True, "event types": True, "tokens": True, "cost (USD)": True,
                    "durations (s)": True, "costs of the run": True, "rewards": True, "edges": False,
                    "edges in both": False}
    both = table.set_index("quantity").loc["edges in both"]
    assert (both["before"], both["after"]) == ("21", "12")


def test_native_atif_reading_loses_what_only_extras_carry():
    back = round_trip.round_trip(document(), "atif", round_trip.without_masrl_extras)
    table = round_trip.kept(document(), back).set_index("quantity")
    assert table.loc["identical events", "after"] == "0"
    assert not table.loc["event types", "kept"]
    assert table.loc["rewards", "after"] == "none"
    assert table.loc["rewards", "before"] == "orchestration: 0.1; process: 0.15; team: 0.8"


def test_otlp_keeps_every_acting_agent_and_puts_tool_results_on_their_callers():
    """The OTLP exporter's docstring says the round trip keeps the acting agents; the three
    tools of the example, which only answer calls, come back as their calling agents."""
    table = round_trip.kept(document(), round_trip.round_trip(document(), "otlp"))
    table = table.set_index("quantity")
    acting, tools = table.loc["acting agents"], table.loc["tools"]
    assert (acting["before"], acting["after"], acting["kept"]) == ("4", "4", True)
    assert (tools["before"], tools["after"], tools["kept"]) == ("3", "0", False)


def test_kept_flags_a_changed_quantity():
    before = document()
    after = json.loads(json.dumps(before))
    after["events"][0]["tokens"] = after["events"][0].get("tokens", 0) + 1
    table = round_trip.kept(before, after).set_index("quantity")
    assert not table.loc["tokens", "kept"] and table.loc["events", "kept"]


def test_otlp_keeps_the_durations_of_tool_calls_results_spawns_and_returns():
    """The tool span runs from the call to the end of its result; the call's own end, the
    result's start and the ends of spawns and returns ride as masrl attributes, so every
    event lasts as long after the round trip as before (busy time needs it)."""
    for example in sorted(resources.EXAMPLES.glob("*.json")):
        before = json.loads(example.read_text(encoding="utf-8"))
        after = round_trip.round_trip(before, "otlp")

        def lasting(doc):
            found: dict[str, list] = {}
            for e in doc["events"]:
                end = e.get("t_end", e["t"] + e.get("duration", 0))
                found.setdefault(e["type"], []).append(round(end - e["t"], 6))
            return {k: sorted(v) for k, v in found.items()}

        assert lasting(after) == lasting(before), example.name
