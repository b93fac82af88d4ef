"""Every page of the built book, opened in headless Chromium with the network cut off."""

from __future__ import annotations

import pytest
from browser_helpers import book_pages

pytestmark = pytest.mark.browser

# full-page screenshots at a desktop's and a phone's size: test_layout.py


def test_the_book_has_every_chapter(built_book):
    pages = book_pages(built_book)
    for chapter in ["book/intro.html", "notebooks/01_method.html", "notebooks/02_pool.html",
                    "notebooks/10_statistics.html", "notebooks/40_data_dictionary.html",
                    "book/bibliography.html"]:
        assert chapter in pages


def test_every_page_renders_offline(built_book, serve, page):
    server = serve(built_book)
    problems = []
    for name in book_pages(built_book):
        page.goto(f"{server.url}/{name}", wait_until="load")
        page.wait_for_timeout(100)
        text = page.inner_text("body")
        if "Traceback (most recent call last)" in text or "Error" in page.title():
            problems.append(f"{name}: shows a Python traceback or an error")
        charts = page.locator("figure.masrl-chart")
        for i in range(charts.count()):
            if charts.nth(i).locator("svg, canvas").count() == 0:
                problems.append(f"{name}: chart {i} holds no rendered SVG or canvas")
    assert page.outside_requests == [], "pages requested outside URLs"
    assert problems == []


def test_charts_are_drawn_with_text_alternatives(built_book, serve, page):
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/10_statistics.html")
    charts = page.locator("figure.masrl-chart")
    assert charts.count() >= 10
    for i in range(charts.count()):
        assert charts.nth(i).get_attribute("role") == "img"
        assert len(charts.nth(i).get_attribute("aria-label")) > 20
        assert charts.nth(i).locator("svg .mark-rect, svg path, svg text").count() > 0


def visible_rows(page) -> int:
    return page.locator("table.dataTable tbody tr:visible").count()


def test_the_pool_table_filters(built_book, serve, page):
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/02_pool.html")
    page.wait_for_selector("table.dataTable tbody tr")
    info = page.locator(".dt-info, .dataTables_info").first
    before = info.inner_text()
    assert "84" in before, before
    rows_before = visible_rows(page)
    page.locator("div.dt-search input, .dataTables_filter input").first.fill("orchestrator")
    page.wait_for_timeout(300)
    after = info.inner_text()
    assert after != before and "filtered" in after, after
    assert 0 < visible_rows(page) < rows_before
    assert page.outside_requests == []
