"""The formats table, the README's table of formats and the fixtures table of the import
chapter."""

from __future__ import annotations

from importer_helpers import FIXTURES

from masrl import paths
from masrl.presentation import import_catalogue as catalogue
from masrl.traces.importers.registry import FORMATS


def test_formats_table_has_every_format_of_the_registry_in_its_order():
    table = catalogue.formats_table()
    assert list(table["format"]) == list(FORMATS)
    row = table.set_index("format").loc["claude-code"]
    assert row["recognised by"] == "JSON Lines records with sessionId and uuid"
    assert row["family"] == "sessions" and row["runs per file"] == "one"
    assert table.set_index("format").loc["otel", "runs per file"] == "several"


def test_the_readme_table_of_formats_is_the_registry():
    """README.md holds :func:`formats_markdown` as it is; a format added to the registry appears
    there once the table is pasted again (the assertion message prints it)."""
    table = catalogue.formats_markdown()
    readme = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme, f"README.md's table of formats differs from the registry:\n{table}"
    assert all(f"| `{name}` |" in table for name in FORMATS)


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
