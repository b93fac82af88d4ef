"""Injection into every written format of the survey side: a value from an input never adds a
field, a row, an element or an attribute to what masrl writes (CSV, BibTeX, JSON, HTML).
Nothing on the survey side writes YAML (its data files are read only), so YAML has no writer to
test; its reader refuses tags and aliases (tests/data/test_documents.py)."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import bibtexparser
import pandas as pd
from fault_helpers import add_candidates, included
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.commands import main
from masrl.data import bib, intake
from masrl.data.dataset import LATEST, Dataset
from masrl.presentation import pool_views
from masrl.presentation.export import pool_downloads

HOSTILE_URL = "https://x.org/a},note={pwned"
HOSTILE = ['a},note={pwned', 'x}\n@misc{evil, title={y}', '","injected":"1', "=cmd|' /C calc'!A0",
           '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "a\\", "100% & $x_1^2~#"]
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)


def parsed_entry(text: str):
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks and len(library.entries) == 1, text
    return library.entries[0]


def test_the_issues_url_adds_no_field_to_papers_bib(data_copy, capsys):
    add_candidates(data_copy, included("C915", "stopper2026", "2611.00001", url=HOSTILE_URL,
                                       title="Stop {here}: a title with } braces \\ and % signs",
                                       venue="Venue}, note = {x"))
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    entry = Dataset(data_copy, as_of=LATEST).bibliography["stopper2026"]
    assert sorted(entry) == ["ENTRYTYPE", "archiveprefix", "author", "eprint", "journal", "title",
                             "url", "year"]
    assert "note" not in entry and "pwned" not in entry["title"]
    assert entry["url"] == "https://x.org/a%7D,note=%7Bpwned"
    capsys.readouterr()
    assert main(["check-data", "--data-dir", str(data_copy)]) == 0


def test_check_data_finds_a_field_smuggled_in_by_string_joining(data_copy, capsys):
    """What the old string-joining writer produced from the issue's URL."""
    add_candidates(data_copy, included("C915", "stopper2026", "2611.00001", url=HOSTILE_URL))
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    path = data_copy / "papers.bib"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("url = {https://x.org/a%7D,note=%7Bpwned}",
                                 "url = {" + HOSTILE_URL + "}"), encoding="utf-8")
    capsys.readouterr()
    assert main(["check-data", "--data-dir", str(data_copy)]) == 1
    lines = capsys.readouterr().err
    assert "papers.bib:stopper2026:url: 'https://x.org/a' is none of the URLs" in lines


@settings(max_examples=150, deadline=None)
@given(title=TEXT, author=TEXT, venue=TEXT, tail=TEXT)
def test_no_value_breaks_out_of_its_bibtex_field(title, author, venue, tail):
    row = {"title": title, "first_author": author, "venue": venue, "year": "2026",
           "url": "https://example.org/" + tail}
    for arxiv in ("", "2611.00001"):
        entry = parsed_entry(intake._bib_entry("k", row, arxiv))
        names = [f.key for f in entry.fields]
        expected = ["title", "author", "journal" if arxiv else "howpublished", "year", "url"]
        assert names == expected + (["eprint", "archiveprefix"] if arxiv else [])
        assert all(bib._balanced(str(f.value)) for f in entry.fields)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.sampled_from(HOSTILE) | TEXT, min_size=3, max_size=3))
def test_a_bibtex_entry_shown_in_the_book_is_written_by_the_library(values):
    fields = {"ENTRYTYPE": "misc", "title": bib.latex_text(values[0]),
              "author": bib.latex_text(values[1]), "note": bib.latex_text(values[2])}
    entry = parsed_entry(pool_views.bibtex_entry("k", fields))
    assert [f.key for f in entry.fields] == ["title", "author", "note"]


def test_csv_rows_written_by_the_intake_keep_hostile_cells_whole(data_copy):
    hostile = {"summary": 'A "quoted", comma, ""doubled""', "evidence": '","x":"y, \"z\"',
               "reason": "<b>bold</b> & 'quotes'"}
    add_candidates(data_copy, included("C915", "stopper2026", "2611.00001", **hostile))
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    data = Dataset(data_copy, as_of=LATEST)
    assert data.problems() == []
    row = data.papers.set_index("key").loc["stopper2026"]
    assert row["summary"] == hostile["summary"]
    assert hostile["reason"] in row["notes"]
    evidence = data.credit_evidence.set_index("key").loc["stopper2026"]
    assert evidence["evidence"] == hostile["evidence"]
    rows = list(csv.reader(io.StringIO((data_copy / "papers.csv").read_text(encoding="utf-8"))))
    assert {len(r) for r in rows} == {len(rows[0])}


def test_a_cell_that_a_spreadsheet_would_run_is_refused(data_copy, capsys):
    add_candidates(data_copy, {**included("C915", "stopper2026", "2611.00001"),
                               "summary": "=HYPERLINK(\"https://evil\")"})
    with open(data_copy / "candidates.csv", encoding="utf-8", newline="") as handle:
        last_line = len(handle.read().splitlines())  # the planted row is the last one
    capsys.readouterr()
    assert main(["check-data", "--data-dir", str(data_copy)]) == 1
    assert (f"candidates.csv:{last_line}:summary: starts with '=': a spreadsheet" in
            capsys.readouterr().err)


def frame_of(values: list[str]) -> pd.DataFrame:
    base = Dataset().papers.head(3).copy()
    base["title"] = values
    base["venue"] = list(reversed(values))
    return base


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.sampled_from(HOSTILE) | TEXT, min_size=3, max_size=3))
def test_the_downloads_round_trip_hostile_values(tmp_path_factory, values):
    folder = tmp_path_factory.mktemp("downloads")
    papers = frame_of(values)
    targets = pool_downloads(papers, folder)
    back = pd.read_csv(targets["csv"], dtype=str, keep_default_na=False)
    assert list(back.columns) == list(papers.columns) and back["title"].tolist() == values
    records = json.loads(targets["json"].read_text(encoding="utf-8"))
    assert [r["title"] for r in records] == values
    assert all(set(r) == set(papers.columns) for r in records)


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, sorted(name for name, _ in attrs)))


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.sampled_from(HOSTILE) | TEXT, min_size=3, max_size=3))
def test_html_cells_hold_text_and_our_links_only(values):
    papers = frame_of(values)
    papers["url"] = ['https://x.org/"onmouseover="alert(1)', "https://x.org/<script>", "https://x.org/'a'"]
    frame = pool_views.browse_frame(papers, ["category"], bibliography=None)
    for cell in frame.to_numpy().ravel():
        parser = Elements()
        parser.feed(str(cell))
        assert all(element == ("a", ["href", "rel"]) for element in parser.found), cell


def test_intake_json_output_round_trips_hostile_titles(data_copy, capsys):
    add_candidates(data_copy, included("C915", "stopper2026", "2611.00001",
                                       title='"}, "written": ["x"], "y": {"'))
    capsys.readouterr()
    assert main(["intake", "--dry-run", "--json", "--data-dir", str(data_copy)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["written"] == [] and result["records"]["C915"] == "stopper2026"
