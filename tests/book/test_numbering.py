"""The numbering extension: chapters are numbered 1, 2, 3... in reading order across the parts
(not by their file numbers), the landing page and the bibliography have none, and captions are
numbered per chapter in page order."""

from __future__ import annotations

import importlib.util
import re
import types

from docutils import nodes

from masrl import paths
from masrl.data import book_toc

SPEC = importlib.util.spec_from_file_location(
    "numbering", paths.REPO_ROOT / "book" / "_ext" / "numbering.py")
numbering = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(numbering)


def test_chapters_are_counted_in_reading_order_across_parts(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text("""format: jb-book
root: notebooks/00_intro
parts:
  - caption: One
    numbered: true
    chapters:
      - file: notebooks/01_method
      - file: notebooks/10_statistics
  - caption: Two
    numbered: true
    chapters:
      - file: notebooks/26_training_runs
      - file: book/bibliography
""", encoding="utf-8")
    assert book_toc.chapter_numbers(toc) == {
        "notebooks/01_method": 1, "notebooks/10_statistics": 2, "notebooks/26_training_runs": 3}


def test_the_books_chapter_numbers_run_without_a_gap():
    numbers = book_toc.chapter_numbers()
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
    order = [doc for doc in book_toc.reading_order() if doc in numbers]
    assert [numbers[doc] for doc in order] == list(range(1, len(order) + 1))
    assert book_toc.reading_order()[0] not in numbers  # the landing page


def test_chapters_take_their_reading_order_numbers():
    reference = nodes.reference("", "", secnumber=[3])
    toc = nodes.bullet_list("", nodes.list_item("", reference))
    title = nodes.title("", "", secnumber=[3])
    env = types.SimpleNamespace(
        toc_secnumbers={"notebooks/26_training_runs": {"": (3,), "#tables": (3, 2)},
                        "book/bibliography": {"": (4,)}},
        toc_fignumbers={"notebooks/26_training_runs": {"figure": {"f": (3, 1)}}},
        tocs={"notebooks/26_training_runs": toc},
        titles={"notebooks/26_training_runs": title})
    numbering.renumber_env(env, {"notebooks/26_training_runs": 13})
    assert env.toc_secnumbers == {"notebooks/26_training_runs": {"": (13,), "#tables": (13, 2)}}
    assert env.toc_fignumbers["notebooks/26_training_runs"]["figure"]["f"] == (13, 1)
    assert reference["secnumber"] == (13,) and title["secnumber"] == (13,)


def test_captions_are_numbered_in_page_order():
    body = ('<table><caption class="masrl-caption">A</caption></table>'
            '<figure><figcaption class="masrl-caption">B</figcaption></figure>'
            '<table><caption class="masrl-caption">C</caption></table>')
    numbered = numbering.caption_numbers(body, 10)
    assert '<span class="masrl-number">Table 10.1.</span> A' in numbered
    assert '<span class="masrl-number">Figure 10.1.</span> B' in numbered
    assert '<span class="masrl-number">Table 10.2.</span> C' in numbered
    assert '<span class="masrl-number">Table 1.</span>' in numbering.caption_numbers(body, None)


README_ROW = re.compile(r"^\| (\d+) \| (.+?) \| `(notebooks/\w+)\.md` \|$", re.MULTILINE)
README_MENTION = re.compile(r"chapter (\d+)(?:, \*([^*]+)\*)?")


def test_the_readme_numbers_the_chapters_as_the_book_does():
    """The README's table of chapters is the book's numbering, and every "chapter N" it writes
    names that chapter's title (a renumbered chapter shows up as a stale mention)."""
    readme = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    numbers = book_toc.chapter_numbers()
    table = {doc: int(n) for n, _, doc in README_ROW.findall(readme)}
    assert table == numbers
    for n, title, doc in README_ROW.findall(readme):
        assert title == book_toc.title(doc), (n, title)
    titles = {n: book_toc.title(doc) for doc, n in numbers.items()}
    mentions = README_MENTION.findall(readme)
    assert mentions, "the README names no chapter by number"
    for n, title in mentions:
        assert title == titles.get(int(n)), f"README: chapter {n}, *{title}*"
