"""Every page of the built book, opened in headless Chromium with the network cut off."""

from __future__ import annotations

import csv
import re

import pandas as pd
import pytest
import yaml
from browser_helpers import book_pages

from masrl import paths

pytestmark = pytest.mark.browser

# full-page screenshots at a desktop's and a phone's size: test_layout.py


def test_the_book_has_every_chapter(built_book):
    pages = book_pages(built_book)
    for chapter in ["notebooks/00_intro.html", "notebooks/01_method.html", "notebooks/02_pool.html",
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


def filtered_count(page) -> int:
    """The number of rows the search and filters leave, as the table's info line says it."""
    text = page.locator(".dt-info, .dataTables_info").first.inner_text()
    found = re.search(r"of ([\d,]+) entries", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


def downloaded_rows(page) -> tuple[list[str], list[dict]]:
    """Click *Download the filtered rows* and read the CSV it saves: header and rows."""
    with page.expect_download() as info:
        page.locator("button.masrl-download-csv").click()
    path = info.value.path()
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]  # (it ends with a blank line)
    return rows[0], [dict(zip(rows[0], row)) for row in rows[1:]]


def test_the_pool_explorer_downloads_every_filtered_row_and_filters_by_vocabulary(
        built_book, serve, page):
    """Read against the data files themselves: papers.csv for what a filter must leave, and
    vocabulary.yaml for the values a tag's list must offer."""
    papers = pd.read_csv(paths.DEFAULT_DATA_DIR / paths.PAPERS, dtype=str, keep_default_na=False)
    papers = papers[papers["screening_round"] == "0"]  # the chapter shows the survey's pool
    vocabulary = yaml.safe_load((paths.DEFAULT_DATA_DIR / paths.VOCABULARY).read_text("utf-8"))
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/02_pool.html")
    page.wait_for_selector("table.dataTable tbody tr")
    headers = page.locator(".dt-scroll-head thead tr").first.locator(".dt-column-title")
    shown = headers.all_inner_texts()

    # a search, then a selected row: the download still holds every row the search leaves
    page.locator("div.dt-search input").first.fill("orchestrator")
    page.wait_for_timeout(300)
    searchable = papers[["title", "key", "year", *shown[3:-1], "venue", "url"]]
    expected = papers.loc[searchable.apply(
        lambda row: row.str.contains("orchestrator", case=False).any(), axis=1), "key"]
    assert filtered_count(page) == len(expected) > 1
    page.locator("table.dataTable tbody tr").first.locator("td").nth(1).click()
    assert page.locator("table.dataTable tbody tr.selected").count() == 1
    header, rows = downloaded_rows(page)
    assert header == ["title", "key", "year", *shown[3:-1], "venue", "url"]
    assert sorted(row["key"] for row in rows) == sorted(expected)
    by_key = papers.set_index("key")
    for row in rows:  # each field in its own column, as in the data, markup stripped
        assert row["title"] == by_key.loc[row["key"], "title"]
        assert row["url"] == by_key.loc[row["key"], "url"]

    # a tag's filter lists exactly the vocabulary's values, and ticking one keeps its papers
    page.locator("div.dt-search input").first.fill("")
    page.wait_for_timeout(300)
    column = shown.index("credit_granularity")
    allowed = vocabulary_values(vocabulary, "credit_granularity")
    filters = page.locator(".dt-scroll-head thead tr").nth(1).locator("th, td")
    filters.nth(column).locator("button.dtcc-button_dropdown").click()
    listed = page.locator(".dtcc-dropdown .dtcc-list-buttons button.dtcc-button")
    assert listed.locator(".dtcc-button-text").all_inner_texts() == allowed
    listed.filter(has_text=re.compile(r"^agent$")).click()
    page.keyboard.press("Escape")
    page.wait_for_timeout(300)
    agents = papers.loc[papers["credit_granularity"] == "agent", "key"]
    assert filtered_count(page) == len(agents) > 1
    _, rows = downloaded_rows(page)
    assert sorted(row["key"] for row in rows) == sorted(agents)
    assert {row["credit_granularity"] for row in rows} == {"agent"}
    assert page.outside_requests == []


def vocabulary_values(vocabulary: dict, field: str) -> list[str]:
    """The allowed values of ``field`` as data/vocabulary.yaml writes them: its ``order`` if it
    has one, else its values as listed."""
    spec = vocabulary["fields"][field]
    return [str(value) for value in spec.get("order") or spec["values"]]


def test_the_pool_table_is_usable_at_1440_px(built_book, serve, browser):
    """Every column can be reached and read at 1440 px: the page itself does not scroll
    sideways, the table scrolls inside its box, no column is narrower than its name, titles
    wrap, and a button shows or hides columns."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        server = serve(built_book)
        page.goto(f"{server.url}/notebooks/02_pool.html")
        page.wait_for_selector("table.dataTable tbody tr")
        assert page.evaluate("document.documentElement.scrollWidth") <= 1440
        body = page.locator(".dt-scroll-body").first
        assert body.evaluate("e => getComputedStyle(e).overflowX") in ("auto", "scroll")
        titles = page.locator(".dt-scroll-head thead tr").first.locator("th")
        vocabulary = yaml.safe_load((paths.DEFAULT_DATA_DIR / paths.VOCABULARY).read_text("utf-8"))
        tags = [name for name, spec in vocabulary["fields"].items()  # file: a name or a list
                if "papers.csv" in ([spec["file"]] if isinstance(spec["file"], str)
                                    else spec["file"])]
        assert titles.count() == len(["title", "key", "year", *tags, "venue"])
        for k in range(titles.count()):
            cell = titles.nth(k)
            name = cell.locator(".dt-column-title")
            assert name.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), name.inner_text()
        first_title = page.locator("table.dataTable tbody tr").first.locator("td").first
        assert first_title.evaluate("e => getComputedStyle(e).whiteSpace") == "normal"
        assert page.locator("button.masrl-columns").count() == 1
    finally:
        context.close()
