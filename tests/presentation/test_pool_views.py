"""Presentation frames and downloads of the pool."""

from __future__ import annotations

import json

import pandas as pd

from masrl.analyses import axes
from masrl.data.dataset import Dataset
from masrl.presentation import export
from masrl.presentation import pool_views as views


def test_browse_frame_escapes_data_and_links_the_first_url():
    papers = Dataset().papers.head(2).copy()
    papers.loc[0, "title"] = "<script>x</script> & co"
    papers.loc[1, "url"] = "https://a.example/1 ; https://b.example/2"
    tags = Dataset().vocabulary.names("papers.csv")
    frame = views.browse_frame(papers, tags)
    assert list(frame.columns) == ["title", "key", "year", *tags, "venue", "url"]
    assert "&lt;script&gt;x&lt;/script&gt; &amp; co" in frame.loc[0, "title"]
    assert "<script>" not in frame.loc[0, "title"]
    assert frame.loc[1, "title"].startswith('<a href="https://a.example/1"')
    # key and URL in columns of their own (the URL cell as written, for the download)
    assert frame["key"].tolist() == papers["key"].tolist()
    assert frame.loc[1, "url"] == "https://a.example/1 ; https://b.example/2"


def test_category_lists_follow_vocabulary_order_and_cover_the_pool():
    papers = Dataset().papers
    lists = views.category_lists(papers, Dataset().vocabulary.values("category"))
    assert list(lists) == Dataset().vocabulary.values("category")
    assert sum(len(t) for t in lists.values()) == len(papers)
    years = lists["classical_marl"]["year"].tolist()
    assert years == sorted(years)


def test_downloads_round_trip(tmp_path):
    papers = Dataset().papers
    files = export.pool_downloads(papers, tmp_path)
    written = pd.read_csv(files["csv"], dtype=str, keep_default_na=False)
    assert written["key"].tolist() == papers["key"].tolist()
    records = json.loads(files["json"].read_text(encoding="utf-8"))
    assert len(records) == 84 and records[0]["key"] == "magrpo" and records[0]["year"] == 2025
    assert files["bib"].read_text(encoding="utf-8").count("\n@") >= 83
    first = files["json"].read_bytes()
    export.pool_downloads(papers, tmp_path)
    assert files["json"].read_bytes() == first  # deterministic
    assert not list(tmp_path.glob("*.partial"))


def test_the_ris_download_reads_back_as_the_pool(tmp_path):
    from masrl.data.reference_files import read_references

    papers = Dataset().papers
    files = export.pool_downloads(papers, tmp_path)
    text = files["ris"].read_text(encoding="utf-8")
    assert text.startswith("TY  - UNPB\nTI  - LLM Collaboration") and text.count("\nER  - ") == 84
    back = read_references(files["ris"])
    assert [r.title for r in back] == papers["title"].tolist()
    row = papers.set_index("key").loc["dec-pomdp2002"]
    dec = next(r for r in back if r.title == row["title"])
    assert (dec.first_author, dec.year, dec.first_public) == (row["first_author"], "2002", "2002")
    assert back[0].identifier == "arXiv:2508.04652" and back[0].first_public == "2025-08-06"


def test_axes_counts():
    papers, taxonomy = Dataset().papers, Dataset().taxonomy
    families = axes.reward_families(papers, taxonomy).set_index("family")["papers"]
    assert families.to_dict() == {"R1": 10, "R2": 4, "R3": 3, "R4": 2, "R5": 0, "R6": 10,
                                  "R7": 7, "R8": 15}
    units = axes.credit_units(papers, taxonomy).set_index("unit")["papers"]
    assert units.to_dict() == {"Team": 0, "Orchestrator": 8, "Role": 10, "Agent": 23, "Turn": 5,
                               "Message": 2, "Tool call": 0, "Token": 0}
    decisions = axes.subdecisions(taxonomy).set_index("id")["anchor papers"]
    assert decisions["O5"] == 0 and decisions["O2"] == 3
    topologies = axes.topologies(papers, taxonomy).set_index("topology")["papers"]
    assert topologies.sum() == 84 - 34


def test_screening_flow():
    flow = axes.screening_flow(84, Dataset().excluded, Dataset().vocabulary.values("stage"))
    assert flow["records"].tolist() == [116, 16, 9, 6, 1, 84]
    assert flow["kind"].tolist()[0] == "audited" and flow["kind"].tolist()[-1] == "retained"


def test_the_explorer_hides_and_copies_each_papers_bibtex():
    from masrl.data.dataset import Dataset

    data = Dataset()
    frame = views.browse_frame(data.papers, data.vocabulary.names("papers.csv"),
                               data.bibliography)
    assert list(frame.columns)[-1] == views.BIBTEX
    first = data.papers["key"].iloc[0]
    assert frame[views.BIBTEX].iloc[0].startswith(f"@{data.bibliography[first]['ENTRYTYPE']}"
                                                  f"{{{first},&#10;")
    vocabulary = data.vocabulary
    allowed = {name: vocabulary.values(name) for name in vocabulary.names("papers.csv")}
    options = views.explorer_options(frame, allowed)
    names = list(frame.columns)
    defs = options["columnDefs"]
    assert defs[0] == {"targets": [names.index("url"), names.index(views.BIBTEX)],
                       "visible": False}
    assert {"targets": names.index(views.BIBTEX), "searchable": False,
            "name": views.BIBTEX} in defs
    copy, download, columns = options["buttons"]
    assert copy["extend"] == "selectedSingle" and f'"{views.BIBTEX}:name"' in str(copy["action"])
    assert download["extend"] == "csvHtml5"
    exported = download["exportOptions"]
    # every row the search and filters leave, even with a row selected (null, not true)
    assert exported["modifier"] == {"search": "applied", "order": "applied", "selected": None}
    assert [names[k] for k in exported["columns"]] == names[:-1]  # all but the BibTeX entry
    assert columns["extend"] == "colvis" and names.index("url") not in columns["columns"]
    # each vocabulary column: a list of exactly its allowed values, in vocabulary order
    lists = {names[d["targets"]]: d["columnControl"][1]["content"][0][0] for d in defs
             if "columnControl" in d}
    assert list(lists) == list(allowed)
    for name, control in lists.items():
        assert control["extend"] == "searchList"
        assert [o["value"] for o in control["options"]] == allowed[name]
    assert options["columnControl"][1] == {"target": 1, "content": ["search"]}


def test_a_vocabulary_value_is_escaped_in_its_filter_list():
    frame = pd.DataFrame({"title": ["t"], "tag": ["<b>x</b>"]})
    control = views.explorer_options(frame, {"tag": ["<b>x</b>", "y"]})["columnDefs"][-1]
    options = control["columnControl"][1]["content"][0][0]["options"]
    assert options[0] == {"label": "&lt;b&gt;x&lt;/b&gt;", "value": "&lt;b&gt;x&lt;/b&gt;"}


def test_a_bibtex_entry_is_escaped_in_the_table():
    import pandas as pd

    papers = pd.DataFrame([{"key": "k1", "title": "T", "url": "https://example.org",
                            "year": "2025", "venue": "V"}])
    entry = {"ENTRYTYPE": "misc", "title": "<script>alert(1)</script> & co"}
    frame = views.browse_frame(papers, [], {"k1": entry})
    assert "<script>" not in frame[views.BIBTEX].iloc[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in frame[views.BIBTEX].iloc[0]
    assert views.bibtex_entry("k1", entry) == (
        "@misc{k1,\n  title = {<script>alert(1)</script> & co},\n}\n")
