"""What a reader does with the built book, in headless Chromium with the network cut off: hover
a timeline event for its details, copy a paper's BibTeX, download the filtered pool, and see
wide tables use the page's width."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


def test_hovering_a_timeline_event_shows_its_details(built_book, serve, page):
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/21_trace_examples.html", wait_until="load")
    page.wait_for_selector("figure.masrl-interactive.masrl-live-ready", timeout=20000)
    figure = page.locator("figure.masrl-interactive").first
    assert figure.locator(".masrl-static svg").count() == 2  # the static charts (wide, narrow)
    assert not figure.locator(".masrl-static").is_visible()
    figure.scroll_into_view_if_needed()
    # an event mark (its accessible name lists its fields) whose centre no other mark covers
    found = figure.evaluate("""(figure) => {
        for (const mark of figure.querySelectorAll('.masrl-live svg [aria-label*="event: "]')) {
            const box = mark.getBoundingClientRect();
            const x = box.x + box.width / 2, y = box.y + box.height / 2;
            if (box.width > 2 && document.elementFromPoint(x, y) === mark) {
                return {x, y, label: mark.getAttribute('aria-label')};
            }
        }
        return null;
    }""")
    assert found is not None, "no event of the timeline can be hovered"
    page.mouse.move(found["x"] - 30, found["y"] - 30)
    page.mouse.move(found["x"], found["y"], steps=5)
    tooltip = page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible", timeout=5000)
    text = tooltip.inner_text()
    for label in ("event", "type", "agent", "tokens"):
        assert re.search(rf"^{label}\b", text, re.M), text
    shown_id = re.search(r"event: ([^;]+)", found["label"]).group(1)
    assert re.search(rf"^event\s+{re.escape(shown_id)}$", text, re.M), text
    assert page.outside_requests == []


def test_pages_without_interactive_charts_load_no_chart_library(built_book, serve, page):
    server = serve(built_book)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{server.url}/notebooks/10_statistics.html", wait_until="load")
    assert not [url for url in requested if "/_static/vega/" in url]
    assert (built_book / "_static" / "vega" / "vega.min.js").is_file()


def select_first_paper(page) -> str:
    """Click the first row of the pool table; its key (the column after the title)."""
    row = page.locator("table.dataTable tbody tr").first
    key = row.locator("td").nth(1).inner_text()
    row.locator("td").nth(2).click()  # the year cell: a click outside the title's link
    page.wait_for_selector("table.dataTable tbody tr.selected")
    return key


def test_the_pool_copies_the_selected_papers_bibtex(built_book, serve, page):
    server = serve(built_book)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page.goto(f"{server.url}/notebooks/02_pool.html")
    page.wait_for_selector("table.dataTable tbody tr")
    button = page.locator("button.masrl-copy-bibtex")
    assert button.is_disabled()  # nothing selected yet
    key = select_first_paper(page)
    button.click()
    page.wait_for_selector(".dt-button-info")
    assert key in page.locator(".dt-button-info").inner_text()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert re.match(rf"@\w+\{{{re.escape(key)},\n", copied), copied
    assert re.search(r"^  title = \{.+\},$", copied, re.M) and copied.endswith("}\n")
    assert "&amp;" not in copied and "&lt;" not in copied  # the text, not its escaped form
    assert page.outside_requests == []


def test_the_pool_downloads_the_filtered_rows(built_book, serve, page):
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/02_pool.html")
    page.wait_for_selector("table.dataTable tbody tr")
    page.locator("div.dt-search input, .dataTables_filter input").first.fill("orchestrator")
    page.wait_for_timeout(300)
    info = page.locator(".dt-info, .dataTables_info").first.inner_text()
    filtered = int(re.search(r"of ([\d,]+) entries", info).group(1).replace(",", ""))
    assert 0 < filtered < 84, info
    with page.expect_download() as waiting:
        page.locator("button.masrl-download-csv").click()
    download = waiting.value
    assert download.suggested_filename == "masrl-pool-filtered.csv"
    text = Path(download.path()).read_text(encoding="utf-8-sig")
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    assert rows[0][:3] == ["title", "key", "year"] and "BibTeX" not in rows[0]
    assert len(rows) - 1 == filtered
    assert all("orchestrator" in ",".join(row).lower() for row in rows[1:])
    assert not any("<a " in cell for row in rows for cell in row)  # markup stripped
    assert page.outside_requests == []


@pytest.mark.parametrize("chapter, selector", [
    ("notebooks/35_claims.html", "table.masrl-ledger"),
    ("notebooks/02_pool.html", "table.dataTable"),
    ("notebooks/34_scale.html", "table.masrl-table"),
])
def test_wide_tables_take_the_room_of_the_contents_panel(built_book, serve, page, chapter,
                                                         selector):
    """The pages whose tables need the width have no right-hand panel: their article, and the
    table, run past where a page with the panel stops, and nothing slides the page sideways."""
    server = serve(built_book)
    page.goto(f"{server.url}/notebooks/01_method.html")
    column_end = page.evaluate(
        "document.querySelector('.bd-article p').getBoundingClientRect().right")
    page.goto(f"{server.url}/{chapter}")
    page.wait_for_selector(selector)
    assert page.locator(".bd-sidebar-secondary").count() == 0
    sizes = page.evaluate("""(selector) => {
        const table = document.querySelector(selector);
        const box = table.closest('.masrl-table-wrap, .dt-container, .cell_output');
        return {output: box.getBoundingClientRect().right,
                page: document.documentElement.clientWidth,
                scroll: document.documentElement.scrollWidth};
    }""", selector)
    assert sizes["output"] > column_end + 100, (sizes, column_end)
    assert sizes["output"] <= sizes["page"] and sizes["scroll"] <= sizes["page"], sizes
