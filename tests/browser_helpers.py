"""Helpers of the browser tests (``tests/book``): the window sizes they check, the pages of a
built book, and a page that keeps every request on this machine."""

from __future__ import annotations

from pathlib import Path

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}


def book_pages(root: Path) -> list[str]:
    """Every HTML page of a built book, relative to its root (Sphinx's own folders left out)."""
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.html")
                  if not skip & set(p.relative_to(root).parts))


def offline_page(browser, viewport: dict):
    """A new page of ``viewport`` size that records, and blocks, every request that leaves
    localhost or the disk (``page.outside_requests``), and records every console error and
    uncaught script error (``page.script_errors``); close its ``context`` when done."""
    context = browser.new_context(viewport=viewport, accept_downloads=True)
    outside: list[str] = []

    def route(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "data:", "blob:", "about:", "file://")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.outside_requests = outside
    page.script_errors = []
    page.on("console", lambda message: page.script_errors.append(f"console: {message.text}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: page.script_errors.append(f"script: {error}"))
    return page
