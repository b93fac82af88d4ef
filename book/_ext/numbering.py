"""Sphinx extension: chapter numbers that are the chapters' file numbers, and numbered captions.

* ``_toc.yml`` numbers its parts (``numbered: true``), and Sphinx numbers the chapters 1, 2,
  3... in reading order. The project names its chapters by their file numbers instead
  (``notebooks/26_training_runs`` is chapter 26: the README and the chapters say so, and a
  chapter added later does not renumber the others), so once Sphinx has numbered them, each
  chapter under ``notebooks/`` takes the number its file name starts with, for its title, its
  sections, the navigation and its figures; a page outside ``notebooks/`` (the bibliography)
  is left unnumbered.
* A table or a chart shown by ``masrl.presentation`` carries its caption in an element of
  class ``masrl-caption`` (``<caption>`` of a table, ``<figcaption>`` of a chart). Each gets
  its number, in page order, written before it when the page is written: "Table 10.2.",
  "Figure 10.3." (chapter, then position in the chapter). Nothing is numbered in the browser,
  so the numbers are there without JavaScript and the same in every build.
"""

from __future__ import annotations

import re

from docutils import nodes

CHAPTER = re.compile(r"^notebooks/(\d+)_")
CAPTION = re.compile(r'<(caption|figcaption) class="masrl-caption">')
LABELS = {"caption": "Table", "figcaption": "Figure"}


def chapter_number(docname: str) -> int | None:
    """The number of a chapter under ``notebooks/`` (its file name's leading digits)."""
    found = CHAPTER.match(docname)
    return int(found.group(1)) if found else None


def _renumbered(number, chapter: int | None):
    if not number:
        return number
    return None if chapter is None else (chapter, *tuple(number)[1:])


def renumber(app, env) -> list[str]:
    """After Sphinx's toctree collector has numbered the chapters in reading order, give each
    its file number (section numbers and figure numbers follow it)."""
    for docname, numbers in list(env.toc_secnumbers.items()):
        chapter = chapter_number(docname)
        if chapter is None:
            del env.toc_secnumbers[docname]
        else:
            env.toc_secnumbers[docname] = {anchor: _renumbered(n, chapter)
                                           for anchor, n in numbers.items()}
    for docname, kinds in env.toc_fignumbers.items():
        chapter = chapter_number(docname)
        for kind, numbers in kinds.items():
            kinds[kind] = {key: _renumbered(n, chapter) if chapter else tuple(n)[-1:]
                           for key, n in numbers.items()}
    for docname, toc in env.tocs.items():
        chapter = chapter_number(docname)
        for reference in toc.findall(nodes.reference):
            if reference.get("secnumber"):
                reference["secnumber"] = _renumbered(reference["secnumber"], chapter)
        title = env.titles.get(docname)
        if title is not None and title.get("secnumber"):
            title["secnumber"] = _renumbered(title["secnumber"], chapter)
    return []


def caption_numbers(body: str, chapter: int | None) -> str:
    """``body`` with "Table C.N" / "Figure C.N" written at the start of every masrl caption."""
    counts = {"caption": 0, "figcaption": 0}

    def number(found: re.Match) -> str:
        tag = found.group(1)
        counts[tag] += 1
        label = LABELS[tag] + " " + (f"{chapter}." if chapter else "") + str(counts[tag])
        return f'{found.group(0)}<span class="masrl-number">{label}.</span> '

    return CAPTION.sub(number, body)


def number_captions(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = caption_numbers(context["body"], chapter_number(pagename))


def setup(app):
    app.connect("env-get-updated", renumber, priority=900)
    app.connect("html-page-context", number_captions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
