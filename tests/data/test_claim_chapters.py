"""Each claim of the ledger names the chapter that computes it, a chapter of ``_toc.yml``."""

from __future__ import annotations

from support import problem_lines, replace_in

from masrl.data import book_toc
from masrl.data.claims import load_claims
from masrl.data.dataset import Dataset


def test_every_claim_names_a_chapter_of_the_book():
    chapters = book_toc.reading_order()
    claims = Dataset().claims
    assert claims and all(c.chapter in chapters for c in claims)
    assert {c.chapter for c in claims if c.external} == {"notebooks/25_failure_attribution"}


def test_a_chapter_outside_the_toc_is_reported(data_copy):
    replace_in(data_copy / "claims.yaml", "chapter: notebooks/34_scale",
               "chapter: notebooks/99_nowhere")
    assert problem_lines("claims", data_copy) == [
        "claims.yaml:claims[22]:chapter: 'notebooks/99_nowhere' is not a chapter of _toc.yml"]


def test_a_claim_without_a_chapter_is_reported(data_copy):
    replace_in(data_copy / "claims.yaml", "    chapter: notebooks/01_method\n", "")
    lines = problem_lines("claims", data_copy)
    assert lines == ["claims.yaml:claims[0]:chapter: Field required"]


def test_without_a_toc_the_chapters_are_not_checked(data_copy, tmp_path):
    replace_in(data_copy / "claims.yaml", "chapter: notebooks/34_scale",
               "chapter: notebooks/99_nowhere")
    claims = load_claims(data_copy, toc_path=tmp_path / "absent.yml")
    assert claims[22].chapter == "notebooks/99_nowhere"


def test_titles_come_from_the_chapter_sources():
    assert book_toc.title("notebooks/35_claims") == "The claims ledger"
    assert book_toc.title("notebooks/99_nowhere") == "notebooks/99_nowhere"
    order = book_toc.reading_order()
    assert order[0] == "notebooks/00_intro" and order[-1] == "book/bibliography"
