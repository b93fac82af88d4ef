"""Sphinx extension: names that break only where a reader expects, and tables that say they
scroll.

* Code in prose (``masrl.analyses.stats``, ``../shared/traces/who-and-when``) is never broken
  inside a word: a long one may break after its ``_``, ``/`` or ``.``
  (:func:`masrl.presentation.escaping.breakable` writes a ``<wbr>`` there), as the book's
  tables do; the stylesheet breaks nothing else (no ``overflow-wrap: anywhere``).
* A table wider than its column scrolls inside its box; ``masrl-tables.js`` (on every page)
  marks such a box and puts a visible line before it saying that it scrolls sideways, with a
  shadow on the side where columns are hidden, and keeps both up to date as the window changes.
"""

from __future__ import annotations

import re

from masrl.presentation.escaping import breakable

INLINE_CODE = re.compile(r'(<span class="pre">)([^<]*)(</span>)')
SCRIPT = "masrl-tables.js"


def breakable_code(body: str) -> str:
    """``body`` with every long name in inline code given its break points."""
    return INLINE_CODE.sub(lambda m: m.group(1) + breakable(m.group(2)) + m.group(3), body)


def fit_page(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = breakable_code(context["body"])


def setup(app):
    app.add_js_file(SCRIPT, priority=600)
    app.connect("html-page-context", fit_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
