"""Reference exports read into one shape: Zotero's RIS and CSV, arXiv's BibTeX (hand-written
fixtures in tests/fixtures/intake, in each tool's own style)."""

from __future__ import annotations

import pytest
from intake_helpers import EXPORTS as INTAKE

from masrl.data.reference_files import ReferenceError, detect, read_references


def test_zotero_ris_gives_identifiers_dates_and_authors():
    refs = read_references(INTAKE / "zotero.ris")
    assert [r.entry for r in refs] == [1, 2, 3, 4]
    preprint = refs[1]
    assert (preprint.identifier, preprint.url) == ("arXiv:2611.04321", "https://arxiv.org/abs/2611.04321")
    assert (preprint.first_author, preprint.year, preprint.first_public) == (
        "Okafor, Amara", "2026", "2026-11-09")  # Zotero's date 2026/11/09/
    assert refs[2].identifier == "" and refs[2].url.startswith("https://openreview.net/")
    assert refs[2].venue.startswith("The Fourteenth International Conference")
    journal = refs[3]
    assert journal.identifier == "doi:10.1287/moor.27.4.819.297"
    assert journal.first_public == "2002-11"  # Zotero's 2002/11// keeps the month


def test_arxiv_bibtex_and_zotero_csv():
    bib = read_references(INTAKE / "arxiv.bib")
    assert [r.identifier for r in bib] == ["arXiv:2611.04321", "arXiv:2611.07777"]
    assert bib[0].first_author == "Okafor, Amara"  # "Given Family" turned round
    assert bib[1].title == "Knowing When to Stop: Learned Termination for LLM Agent Teams"
    assert bib[1].first_public == "2026-11"  # no date: the month the arXiv id encodes
    table = read_references(INTAKE / "zotero.csv")
    assert table[0].identifier == "arXiv:2611.07777" and table[0].first_public == "2026-11-20"
    assert (table[1].first_author, table[1].identifier) == ("Haddad, Noor", "doi:10.9999/jmus.2024.17")


def test_the_format_is_recognised_without_a_suffix(tmp_path):
    for name in ("zotero.ris", "arxiv.bib", "zotero.csv"):
        copy = tmp_path / name.replace(".", "_")
        copy.write_bytes((INTAKE / name).read_bytes())
        assert [r.title for r in read_references(copy)] == [
            r.title for r in read_references(INTAKE / name)]
    assert detect("x.txt", "TY  - JOUR\n") == "ris"


def test_bad_exports_are_one_line_errors(tmp_path):
    untitled = tmp_path / "untitled.ris"
    untitled.write_text("TY  - JOUR\nAU  - Doe, J\nER  - \n", encoding="utf-8")
    with pytest.raises(ReferenceError, match=r"untitled.ris: entry 1: no title"):
        read_references(untitled)
    nothing = tmp_path / "notes.txt"
    nothing.write_text("just some words\n", encoding="utf-8")
    with pytest.raises(ReferenceError, match="not a RIS, BibTeX or CSV export"):
        read_references(nothing)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("Title\nCaf\xe9\n".encode("latin-1"))
    with pytest.raises(ReferenceError, match="is not UTF-8"):
        read_references(latin)
    with pytest.raises(ReferenceError, match="no such file"):
        read_references(tmp_path / "absent.ris")
