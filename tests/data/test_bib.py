"""The BibTeX file: keys are exactly the pool's keys."""

from __future__ import annotations

import pytest
from support import replace_in

from masrl.data.dataset import Dataset
from masrl.data.problems import DataError


def test_one_entry_per_pool_row_in_order():
    entries = Dataset().bibliography
    assert list(entries) == list(Dataset().papers["key"])
    assert entries["magrpo"]["eprint"] == "2508.04652"


def errors(data_dir) -> list[str]:
    with pytest.raises(DataError) as info:
        Dataset(data_dir).bibliography
    return [str(p) for p in info.value.problems]


def test_entry_without_pool_row(data_copy):
    with (data_copy / "papers.bib").open("a", encoding="utf-8") as handle:
        handle.write("\n@misc{ghost,\n  title = {Ghost},\n  author = {Nobody},\n  year = {2025},\n}\n")
    assert errors(data_copy) == ["papers.bib:ghost:key: no row of papers.csv has this key"]


def test_pool_row_without_entry(data_copy):
    replace_in(data_copy / "papers.bib", "{magrpo,", "{magrpo-renamed,")
    assert errors(data_copy) == [
        "papers.bib:magrpo-renamed:key: no row of papers.csv has this key",
        "papers.csv:magrpo:key: no entry in papers.bib has this key",
    ]


def test_entry_missing_a_required_field(data_copy):
    text = (data_copy / "papers.bib").read_text(encoding="utf-8")
    start = text.index("{marft,")
    end = text.index("\n@", start)
    entry = text[start:end]
    year_line = next(line for line in entry.splitlines() if line.strip().startswith("year"))
    replace_in(data_copy / "papers.bib", entry, entry.replace(year_line + "\n", ""))
    assert errors(data_copy) == ["papers.bib:marft:year: required field is missing"]
