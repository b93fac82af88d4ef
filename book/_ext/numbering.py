"""Sphinx extension: chapters numbered 1, 2, 3... in reading order, and numbered captions.

* ``_toc.yml`` numbers its parts (``numbered: true``), and Sphinx numbers the chapters of each
  part from 1 again. A reader expects one count through the book, so once Sphinx has numbered
  them, each chapter takes its number in the reading order
  (:func:`masrl.data.book_toc.chapter_numbers`: the computing chapters after the landing page,
  across the parts), for its title, its sections, the navigation and its figures; the landing
  page and the pages under ``book/`` (the bibliography) are left unnumbered. A file's own
  number (``26`` of ``notebooks/26_training_runs``) only keeps the files in reading order.
* A table or a chart shown by ``masrl.presentation`` carries its caption in an element of
  class ``masrl-caption`` (``<caption>`` of a table, ``<figcaption>`` of a chart). Each gets
  its number, in page order, written before it when the page is written: "Table 3.2.",
  "Figure 3.3." (chapter, then position in the chapter). Nothing is numbered in the browser,
  so the numbers are there without JavaScript and the same in every build.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

from masrl.data.book_toc import chapter_numbers

CAPTION = re.compile(r'<(caption|figcaption) class="masrl-caption">')
LABELS = {"caption": "Table", "figcaption": "Figure"}


def toc_numbers(app) -> dict[str, int]:
    """The chapter numbers of the book being built (read from its ``_toc.yml``)."""
    toc = getattr(app.config, "external_toc_path", None) or "_toc.yml"
    return chapter_numbers(Path(app.confdir) / toc)


def _renumbered(number, chapter: int | None):
    if not number:
        return number
    return None if chapter is None else (chapter, *tuple(number)[1:])


def renumber_env(env, numbers: dict[str, int]) -> None:
    """After Sphinx's toctree collector has numbered the chapters part by part, give each its
    number in the reading order (``numbers``; section and figure numbers follow it) and take
    the number off every other page."""
    for docname, found in list(env.toc_secnumbers.items()):
        chapter = numbers.get(docname)
        if chapter is None:
            del env.toc_secnumbers[docname]
        else:
            env.toc_secnumbers[docname] = {anchor: _renumbered(n, chapter)
                                           for anchor, n in found.items()}
    for docname, kinds in env.toc_fignumbers.items():
        chapter = numbers.get(docname)
        for kind, found in kinds.items():
            kinds[kind] = {key: _renumbered(n, chapter) if chapter else tuple(n)[-1:]
                           for key, n in found.items()}
    for docname, toc in env.tocs.items():
        chapter = numbers.get(docname)
        for reference in toc.findall(nodes.reference):
            if reference.get("secnumber"):
                reference["secnumber"] = _renumbered(reference["secnumber"], chapter)
        title = env.titles.get(docname)
        if title is not None and title.get("secnumber"):
            title["secnumber"] = _renumbered(title["secnumber"], chapter)


def renumber(app, env) -> list[str]:
    renumber_env(env, toc_numbers(app))
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
        context["body"] = caption_numbers(context["body"], toc_numbers(app).get(pagename))


def setup(app):
    app.connect("env-get-updated", renumber, priority=900)
    app.connect("html-page-context", number_captions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
