"""Sphinx extension: keep the built book free of references to outside hosts.

Jupyter Book 1 always loads sphinx-thebe, which writes the address of its script on a CDN into
every page even when live code is switched off. The book never launches thebe, so both of its
scripts are dropped from every page.
"""

from __future__ import annotations


def _is_thebe(script) -> bool:
    filename = str(getattr(script, "filename", script) or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return "thebe" in filename or "THEBE_JS_URL" in body


def drop_thebe(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = [s for s in context["script_files"] if not _is_thebe(s)]


def setup(app):
    app.connect("html-page-context", drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
