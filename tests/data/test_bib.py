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


# --- blocks that do not parse say why ------------------------------------------------------------

def append(data_copy, text: str) -> int:
    """Append ``text`` to the bibliography copy; return the line on which it starts."""
    path = data_copy / "papers.bib"
    before = path.read_text(encoding="utf-8")
    path.write_text(before + "\n" + text, encoding="utf-8")
    return before.count("\n") + 2


@pytest.mark.parametrize(("text", "field", "reason"), [
    ("@misc{ghost,\n  title = {Never closed,\n  author = {A},\n}\n", "-",
     "entry does not parse: the entry is not closed: unbalanced braces or quotes (the file ends "
     "inside it)"),
    ('@misc{ghost,\n  title = "Never closed,\n  author = {A},\n}\n', "-",
     "entry does not parse: the entry is not closed: unbalanced braces or quotes (the file ends "
     "inside it)"),
    ("@misc{title = {No key}, author = {A}, year = {2025}}\n", "-",
     "entry does not parse: the entry has no key: write @type{key, field = {value}, ...}"),
    ("@misc{ghost, title {No equals sign}}\n", "-",
     "entry does not parse: a field name is not followed by `=` (Expected a `=` after entry key, "
     "but found `{`.)"),
    ("@misc{, title = {Empty key}, author = {A}, year = {2025}}\n", "key", "the entry has no key"),
])
def test_a_block_that_does_not_parse_says_why(data_copy, text, field, reason):
    line = append(data_copy, text)
    assert errors(data_copy) == [f"papers.bib:{line}:{field}: {reason}"]


def test_a_new_entry_inside_an_unclosed_one(data_copy):
    line = append(data_copy, "@misc{ghost,\n  title = {Never closed,\n@misc{other, title={x}}\n")
    assert f"papers.bib:{line}:-: entry does not parse: a new entry starts before this one is " \
           "closed: unbalanced braces or quotes (Unexpected block start: `@misc`. Was still " \
           "looking for field-value closing `}`)" in errors(data_copy)


def test_a_field_written_twice(data_copy):
    replace_in(data_copy / "papers.bib", "  year = {2025},\n", "  year = {2025},\n  year = {2024},\n")
    lines = errors(data_copy)
    assert "papers.bib:magrpo:year: field written twice in the entry; write each field once" in lines


def test_an_entry_key_written_twice(data_copy):
    text = (data_copy / "papers.bib").read_text(encoding="utf-8")
    start = text.index("@article{magrpo,")
    append(data_copy, text[start:text.index("\n@", start)])
    assert errors(data_copy) == ["papers.bib:magrpo:key: duplicate entry key"]


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>x</script>",
                                 "ftp://arxiv.org/abs/2508.04652"])
def test_a_url_field_is_http(data_copy, url):
    """The bibliography page links the url field: it must not run script when clicked."""
    replace_in(data_copy / "papers.bib", "url = {https://arxiv.org/abs/2508.04652}",
               f"url = {{{url}}}")
    assert errors(data_copy) == [f"papers.bib:magrpo:url: {url!r} is not an http(s) URL"]


def test_bibtexparser_logs_nothing(data_copy, capfd):
    append(data_copy, "@misc{ghost,\n  title = {Never closed,\n")
    errors(data_copy)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("text", ["", "\t\n", "% only a comment\n", "plain text, no entry\n"])
def test_a_file_without_entries_says_so(data_copy, text):
    (data_copy / "papers.bib").write_text(text, encoding="utf-8")
    lines = errors(data_copy)
    assert lines[0] == "papers.bib:1:-: no BibTeX entry in the file"
    rows = (data_copy / "papers.csv").read_text(encoding="utf-8").count("\n") - 1
    assert len(lines) == 1 + rows  # and each pool row, of every round, misses its entry
