"""Sphinx extension: pages that load without a script error, served over HTTP or opened from disk.

Three things made the theme's own scripts complain, and one made search fail from disk:

* **"Got invalid theme mode"** on every first visit: the theme writes
  ``localStorage.getItem("mode") || "{{ default_mode }}"`` into each page and, with no
  ``default_mode`` in ``html_context``, a reader who never picked a mode gets ``""``, which the
  theme's script rejects. ``_config.yml`` sets ``html_context.default_mode`` to ``auto`` (the
  reader's system setting); :func:`check_default_mode` stops the build if it is missing.
* **TypeError, ``classList`` of null**: sphinx-book-theme hides the right-hand "Contents"
  panel while a cell tagged ``full-width`` is on screen, and on the pages that have no panel
  (``secondary_sidebar_items`` empty in ``_config.yml``) it looks the panel up and gets
  ``null``. On those pages there is no panel to make room beside, so the tag means nothing:
  :func:`drop_full_width` takes its class off the page's cells.
* **A 404 on every first visit** for ``/favicon.ico``: the book names its own icon
  (``html_favicon``, ``book/_static/favicon.svg``).
* **Search from disk**: Sphinx's search page fetches each result's page for a snippet, which a
  browser refuses for ``file://`` addresses ("Failed to fetch", one error per result). On the
  search page, ``masrl-search.js`` turns snippets off when the page is opened from disk and says
  in one line that snippets need the book served (``python -m http.server``); served over
  HTTP, results come with their snippets as usual.
"""

from __future__ import annotations

import re

from sphinx.errors import ConfigError

FULL_WIDTH = re.compile(r'(class="[^"]*?)\s*\btag_full-width\b')
SEARCH_SCRIPT = "masrl-search.js"
MODES = ("auto", "light", "dark")


def check_default_mode(app, config) -> None:
    mode = (config.html_context or {}).get("default_mode")
    if mode not in MODES:
        raise ConfigError(f"html_context.default_mode is {mode!r}: set it to one of "
                          f"{', '.join(MODES)} (the theme's script rejects any other value)")


def without_full_width(body: str) -> str:
    """``body`` with the class ``tag_full-width`` taken off every element."""
    return FULL_WIDTH.sub(r"\1", body)


def drop_full_width(app, pagename, templatename, context, doctree) -> None:
    if "body" in context and not context.get("secondary_sidebar_items"):
        context["body"] = without_full_width(context["body"])


def search_from_disk(app, pagename, templatename, context, doctree) -> None:
    if pagename == "search":
        app.add_js_file(SEARCH_SCRIPT, priority=400)  # before searchtools.js runs the search


def setup(app):
    app.connect("config-inited", check_default_mode)
    # after pydata-sphinx-theme has resolved the page's secondary sidebar (priority 500)
    app.connect("html-page-context", drop_full_width, priority=900)
    app.connect("html-page-context", search_from_disk)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
