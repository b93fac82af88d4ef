"""Every page of the built book as a reader sees it on a desktop (1440x900) and on a phone
(390x844), in headless Chromium with the network cut off: nothing slides the page sideways,
nothing is cut, nothing raw, nothing covered, one search box, charts that fill the column, and
formulas drawn as math. Full-page screenshots of both sizes are kept under
``_build/screenshots/<width>x<height>/`` (CI keeps them as artifacts).

Each page is checked by one script run in the page (:data:`AUDIT`), which returns the
problems it finds as sentences; the test collects them over every page and size and fails with
the whole list.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import DESKTOP, PHONE, book_pages, offline_page

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "_build" / "screenshots"

# Runs in the page; ``desktop`` says which size is checked. Returns a list of problems.
AUDIT = r"""(desktop) => {
  const problems = [];
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden'
      && style.display !== 'none' && el.closest('[hidden]') === null
      && (el.offsetParent !== null || style.position === 'fixed');
  };
  const article = document.querySelector('article.bd-article');
  const root = document.documentElement;

  // 1. no horizontal page overflow
  if (root.scrollWidth > root.clientWidth + 1) {
    problems.push(`the page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window`);
  }
  if (!article) { return problems; }

  // 2. no visible table cell or chart label cut with an ellipsis
  const cut = (text) => /(\.\.\.|…)\s*$/.test(text.trim());
  for (const cell of article.querySelectorAll('td, th')) {
    if (visible(cell) && cut(cell.innerText)) {
      problems.push(`a table cell is cut: "${cell.innerText.trim().slice(-60)}"`);
    }
  }
  for (const label of article.querySelectorAll('figure.masrl-chart svg text')) {
    if (visible(label) && cut(label.textContent)) {
      problems.push(`a chart label is cut: "${label.textContent.trim()}"`);
    }
  }

  // 3. nothing raw in prose or tables
  const prose = [...article.querySelectorAll('p, li, dd, dt, td, th, caption, figcaption, h1, h2, h3')]
    .filter((el) => !el.closest('pre, .highlight, .cell_input'));
  for (const el of prose) {
    const text = el.innerText || '';
    for (const raw of ['{glue', '<NA>', "{'"]) {
      if (text.includes(raw)) { problems.push(`raw "${raw}" in: "${text.trim().slice(0, 80)}"`); }
    }
    if (/^\s*={4,}/m.test(text)) { problems.push(`a line of "=" in: "${text.trim().slice(0, 80)}"`); }
  }
  for (const cell of article.querySelectorAll('td')) {
    if (/^(True|False|None|nan|NaN)$/.test(cell.innerText.trim())) {
      problems.push(`a table cell shows Python's "${cell.innerText.trim()}"`);
    }
  }

  // 4. no output under a fixed panel (the right-hand "Contents" panel): the part of each table
  // or figure that shows (a table that scrolls inside its box shows only that box)
  const shown = (el) => {
    let box = el.getBoundingClientRect();
    let [left, right] = [box.left, box.right];
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') {
        const clip = up.getBoundingClientRect();
        [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
      }
    }
    return {left, right};
  };
  const panel = document.querySelector('.bd-sidebar-secondary');
  if (panel && visible(panel)) {
    const edge = panel.getBoundingClientRect().left;
    const outputs = article.querySelectorAll(
      '.cell_output table, .cell_output figure, .masrl-table-wrap, .cell_output .dt-container');
    for (const out of outputs) {
      if (visible(out) && shown(out).right > edge + 1) {
        const what = `${out.tagName.toLowerCase()}.${out.className}`;
        problems.push(`an output (${what}) reaches under the Contents panel`);
      }
    }
  }

  // 5. one search box
  const boxes = [...document.querySelectorAll('.search-button-field, form.bd-search input[type=search]')]
    .filter(visible);
  if (desktop ? boxes.length !== 1 : boxes.length > 1) {
    problems.push(`${boxes.length} search boxes are visible`);
  }

  // 6. charts fill the column on a desktop and stay inside the window on a phone
  const column = article.getBoundingClientRect();
  const style = getComputedStyle(article);
  const width = column.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  for (const figure of article.querySelectorAll('figure.masrl-chart')) {
    const drawn = [...figure.querySelectorAll(':scope > .masrl-static svg, :scope > .masrl-live svg')]
      .filter(visible);
    if (drawn.length === 0) { problems.push('a chart shows no drawing'); continue; }
    const box = drawn[0].getBoundingClientRect();
    const name = figure.getAttribute('aria-label').slice(0, 50);
    const [w, c] = [Math.round(box.width), Math.round(width)];
    if (desktop && box.width < 0.9 * width) {
      problems.push(`chart "${name}" is ${w} px wide in a ${c} px column`);
    }
    if (box.left < -1 || box.right > root.clientWidth + 1) {
      const [l, r] = [Math.round(box.left), Math.round(box.right)];
      problems.push(`chart "${name}" runs outside the window (${l} to ${r} px)`);
    }
  }

  // 7. formulas drawn as math
  for (const math of article.querySelectorAll('.math')) {
    if (!math.querySelector('mjx-container')) {
      problems.push(`a formula is not drawn: "${math.textContent.trim().slice(0, 60)}"`);
    }
  }
  return problems;
}"""


def audit_pages(browser, server, pages: list[str], viewport: dict, folder: Path) -> list[str]:
    page = offline_page(browser, viewport)
    folder.mkdir(parents=True, exist_ok=True)
    problems = []
    try:
        for name in pages:
            page.goto(f"{server.url}/{name}", wait_until="load")
            if page.locator(".math").count():
                page.wait_for_function(
                    "window.MathJax && MathJax.startup && MathJax.startup.promise"
                    " && document.querySelectorAll('.math mjx-container').length"
                    " === document.querySelectorAll('.math').length", timeout=30000)
            if page.locator("figure.masrl-interactive").count():
                page.wait_for_selector("figure.masrl-interactive.masrl-live-ready",
                                       timeout=20000)
            page.wait_for_timeout(150)
            found = page.evaluate(AUDIT, viewport is DESKTOP)
            size = f"{viewport['width']}x{viewport['height']}"
            problems += [f"{name} at {size}: {problem}" for problem in found]
            page.screenshot(path=str(folder / (name.replace("/", "__") + ".png")), full_page=True)
        problems += [f"requested outside the book: {url}" for url in page.outside_requests]
    finally:
        page.context.close()
    return problems


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_reads_well(built_book, serve, browser, viewport):
    server = serve(built_book)
    folder = SCREENSHOTS / f"{viewport['width']}x{viewport['height']}"
    problems = audit_pages(browser, server, book_pages(built_book), viewport, folder)
    assert problems == []


def test_the_audit_sees_what_it_looks_for(browser, serve, tmp_path):
    """The checks can fail: a page with each defect, built by hand, is reported for each."""
    (tmp_path / "bad.html").write_text("""<!doctype html><html><head><meta charset="utf-8">
      </head><body>
      <div class="bd-sidebar-secondary" style="position:fixed;right:0;top:0;width:200px;height:400px">
        Contents</div>
      <button class="search-button-field">Search</button>
      <form class="bd-search"><input type="search"></form>
      <article class="bd-article" style="width:1000px">
        <p>Reading {glue:text}`x` and &lt;NA&gt; and {'a': 1}</p>
        <div class="cell_output"><table style="width:1400px"><tr>
          <td>A title cut at fifty...</td><td>True</td></tr></table></div>
        <figure class="masrl-chart" aria-label="A chart"><div class="masrl-static">
          <svg width="300" height="100" viewBox="0 0 300 100"><text x="0" y="20">Label…</text></svg>
        </div></figure>
        <span class="math">\\(x^2\\)</span>
        <div style="width:3000px">wide</div>
      </article></body></html>""", encoding="utf-8")
    server = serve(tmp_path)
    page = offline_page(browser, DESKTOP)
    try:
        page.goto(f"{server.url}/bad.html")
        found = "\n".join(page.evaluate(AUDIT, True))
    finally:
        page.context.close()
    for expected in ["the page is", "a table cell is cut", "a chart label is cut",
                     'raw "{glue"', 'raw "<NA>"', "raw \"{'\"", "Python's \"True\"",
                     "reaches under the Contents panel", "2 search boxes",
                     "px wide in a", "a formula is not drawn"]:
        assert expected in found, f"{expected!r} not in:\n{found}"
