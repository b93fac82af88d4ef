"""The formats table and the fixtures table of the import chapter."""

from __future__ import annotations

from importer_helpers import FIXTURES

from masrl.traces.importers import MODULES, catalogue


def test_formats_table_has_every_format_and_its_sniffer_sentence():
    table = catalogue.formats_table()
    assert list(table["format"]) == list(MODULES)
    row = table.set_index("format").loc["claude-code"]
    assert row["recognised by"] == "JSON Lines records with sessionId and uuid."
    assert "see" not in " ".join(table["recognised by"])
    assert row["mapping"] == "masrl.traces.importers.claude_code"


def test_fixtures_table_recognises_and_imports_each_fixture():
    table = catalogue.fixtures_table(FIXTURES).set_index("fixture")
    assert (table["recognised as"] == table["format"]).all()
    assert table.loc["claude_code/v1_0/s4.jsonl", "events"] == 10
    assert table.loc["claude_code/v1_0/s4.jsonl", "agents"] == 4  # user, main, 2 sub-agents
    assert table.loc["atif/delegation.json", "files"] == 2
    assert table.loc["claude_code/loop.jsonl", "note"].startswith("parentUuid chain loops")
    assert table.loc["claude_code/v2_0/agent-e1.jsonl", "note"].startswith(
        "every record is a sidechain record")
    assert table["events"].isna().sum() == (table["note"] != "").sum()
