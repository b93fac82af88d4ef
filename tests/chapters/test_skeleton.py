"""Every chapter follows one skeleton, and the files follow the reading order of ``_toc.yml``.

The skeleton, read from each chapter's source (MyST markdown; code cells are not prose):

* a title (``#``), then a paragraph that opens with the bold label **Overview.**, then one that
  opens with **Prerequisites.** (both before the first section);
* at least one body section (``##``);
* the last two sections are ``## Summary`` and ``## What's next``, in that order;
* *What's next* links to the chapter that follows in the reading order, and every link it holds
  resolves to a chapter of ``_toc.yml``.

The bibliography is a list of references, not a chapter, and is exempt; so is the landing page
(the root of ``_toc.yml``), which invites rather than teaches (``tests/chapters/test_landing.py``
checks what it must hold). Every relative link of
every chapter must also resolve to a chapter of the book (a renamed file breaks no link).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest
from markdown_it import MarkdownIt

from masrl import paths
from masrl.data.book_toc import reading_order

ROOT = paths.REPO_ROOT
EXEMPT = {"book/bibliography"}
OVERVIEW, PREREQUISITES = "**Overview.**", "**Prerequisites.**"
SUMMARY, NEXT = "Summary", "What's next"
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
CELL_BREAK = re.compile(r"^\+\+\+.*$", re.MULTILINE)  # jupytext's marker between markdown cells


def source_of(document: str) -> Path:
    """The source a reader edits: the MyST markdown of a notebook chapter, or a book/ page."""
    return ROOT / f"{document}.md"


@dataclass
class Section:
    title: str
    links: list[str] = field(default_factory=list)


@dataclass
class Outline:
    title: str | None = None
    opening: list[str] = field(default_factory=list)  # paragraphs before the first section
    sections: list[Section] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # every link of the chapter's prose


def outline(text: str) -> Outline:
    """Headings, opening paragraphs and links of a chapter's prose (code cells are skipped:
    markdown-it reads a code-cell as a fenced block; jupytext's ``+++`` cell breaks are not
    prose)."""
    tokens = MarkdownIt("commonmark").parse(CELL_BREAK.sub("", FRONT_MATTER.sub("", text)))
    found = Outline()
    for k, token in enumerate(tokens):
        if token.type == "heading_open":
            content = tokens[k + 1].content.strip()
            if token.tag == "h1" and found.title is None:
                found.title = content
            elif token.tag == "h2":
                found.sections.append(Section(content))
        elif token.type == "inline":
            if tokens[k - 1].type == "paragraph_open" and not found.sections:
                found.opening.append(token.content)
            for child in token.children or []:
                if child.type == "link_open":
                    href = child.attrGet("href")
                    found.links.append(href)
                    if found.sections:
                        found.sections[-1].links.append(href)
    return found


def target(document: str, href: str) -> str | None:
    """The book document a relative link points at (suffix and anchor dropped), or ``None`` for
    a link that leaves the book (a URL, an anchor on the same page)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", href) or href.startswith("#"):
        return None
    path = href.split("#")[0]
    for suffix in (".md", ".ipynb", ".html"):
        path = path.removesuffix(suffix)
    parts: list[str] = []
    for piece in (PurePosixPath(document).parent / path).parts:
        if piece == "..":
            parts = parts[:-1]
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)


def skeleton_problems(document: str, text: str, following: str | None,
                      chapters: set[str]) -> list[str]:
    """What the chapter's source lacks of the skeleton (empty when it follows it)."""
    found = outline(text)
    problems = []
    if not found.title:
        problems.append("no title (#)")
    if len(found.opening) < 2 or not found.opening[0].startswith(OVERVIEW):
        problems.append(f"the first paragraph must open with {OVERVIEW}")
    if not any(p.startswith(PREREQUISITES) for p in found.opening[1:2]):
        problems.append(f"the second paragraph must open with {PREREQUISITES}")
    titles = [s.title for s in found.sections]
    if titles[-2:] != [SUMMARY, NEXT]:
        problems.append(f"the last two sections must be '{SUMMARY}' and '{NEXT}', not {titles[-2:]}")
    if len(titles) < 3:
        problems.append("no body section between the opening and the summary")
    if titles and titles[-1] == NEXT:
        linked = [target(document, href) for href in found.sections[-1].links]
        if following is not None and following not in linked:
            problems.append(f"'{NEXT}' does not link the following chapter, {following}")
        problems.extend(f"'{NEXT}' links {href}, which is no chapter of _toc.yml"
                        for href, to in zip(found.sections[-1].links, linked)
                        if to is not None and to not in chapters)
    return problems


ORDER = reading_order()
CHAPTERS = [d for d in ORDER[1:] if d not in EXEMPT]  # ORDER[0]: the landing page


@pytest.mark.parametrize("document", CHAPTERS)
def test_every_chapter_follows_the_skeleton(document):
    following = ORDER[ORDER.index(document) + 1] if document != ORDER[-1] else None
    text = source_of(document).read_text(encoding="utf-8")
    assert skeleton_problems(document, text, following, set(ORDER)) == []


@pytest.mark.parametrize("document", ORDER)
def test_every_link_between_chapters_resolves(document):
    text = source_of(document).read_text(encoding="utf-8")
    broken = [href for href in outline(text).links
              if (to := target(document, href)) is not None and to not in ORDER
              and not (ROOT / to).exists()]
    assert broken == []


def test_every_chapter_source_is_in_the_toc():
    sources = {f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("*.md")}
    sources |= {f"book/{p.stem}" for p in (ROOT / "book").glob("*.md")}
    assert sources == set(ORDER)


def chapter_numbers(order: list[str]) -> list[int]:
    """The leading numbers of the numbered chapters (``notebooks/NN_topic``), in reading order."""
    return [int(m.group(1)) for d in order if (m := re.fullmatch(r"notebooks/(\d+)_\w+", d))]


def numbers_increase(order: list[str]) -> bool:
    """Every chapter of ``notebooks/`` is numbered, and the numbers rise along ``order``."""
    numbers = chapter_numbers(order)
    return (len(numbers) == sum(d.startswith("notebooks/") for d in order)
            and all(a < b for a, b in zip(numbers, numbers[1:])))


def test_file_numbers_increase_along_the_reading_order():
    assert numbers_increase(ORDER), chapter_numbers(ORDER)


# ---------------------------------------------------------------------------------- the checks

GOOD = """---
jupytext: {}
---

# A chapter

**Overview.** What it does.

**Prerequisites.** [the first](01_first).

```{code-cell} ipython3
# a comment, not a heading
```

## Body

Text.

## Summary

Said.

## What's next

[The second](02_second#anchor), or [elsewhere](https://example.org).
"""


def test_a_chapter_that_follows_the_skeleton_passes():
    chapters = {"notebooks/01_first", "notebooks/02_second"}
    assert skeleton_problems("notebooks/01_first", GOOD, "notebooks/02_second", chapters) == []


@pytest.mark.parametrize("change, problem", [
    (("**Overview.** What", "What"), "Overview"),
    (("**Prerequisites.**", "Prerequisites:"), "Prerequisites"),
    (("## Summary", "## In short"), "last two sections"),
    (("## Body", "Body"), "no body section"),
    (("(02_second#anchor)", "(03_third)"), "does not link the following chapter"),
    (("(02_second#anchor)", "(02_second), [gone](../book/gone)"), "no chapter of _toc.yml"),
])
def test_a_chapter_that_breaks_the_skeleton_is_named(change, problem):
    chapters = {"notebooks/01_first", "notebooks/02_second"}
    text = GOOD.replace(*change)
    assert text != GOOD
    found = skeleton_problems("notebooks/01_first", text, "notebooks/02_second", chapters)
    assert any(problem in p for p in found), found


def test_numbers_out_of_reading_order_are_found():
    assert numbers_increase(["book/intro", "notebooks/02_b", "notebooks/10_d", "notebooks/14_c"])
    assert not numbers_increase(["book/intro", "notebooks/02_b", "notebooks/14_c",
                                 "notebooks/10_d"])
    assert not numbers_increase(["notebooks/02_b", "notebooks/02_c"])
    assert not numbers_increase(["notebooks/02_b", "notebooks/unnumbered"])
    assert target("book/intro", "../notebooks/01_method.md#search") == "notebooks/01_method"
