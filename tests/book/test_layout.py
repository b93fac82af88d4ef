"""Every page of the built book as a reader sees it on a desktop (1440x900) and on a phone
(390x844), in headless Chromium with the network cut off: no script error, nothing slides the
page sideways, nothing is cut, nothing raw, nothing covered, one search box, charts that fill
the column with no text under 11 px, tables that fit or say they scroll, no word broken inside
a name or id, formulas drawn as math, and chapters numbered 1, 2, 3... alike in the sidebar, the
headings and the captions. The same pages opened from disk (``file://``) log no error either.
Full-page screenshots of both sizes are kept under ``_build/screenshots/<width>x<height>/``
(CI keeps them as artifacts: ``.github/workflows/test.yml``).

Each page is checked by one script run in the page (:data:`AUDIT`), which returns the
problems it finds as sentences; the test collects them over every page and size and fails with
the whole list.
"""

from __future__ import annotations

import re
import shutil
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
    if (!visible(figure)) { continue; }  // in a tab not open
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

  // 8. no chart text under 11 CSS px, as drawn (font size times the drawing's scale)
  for (const text of article.querySelectorAll('figure.masrl-chart svg text')) {
    const box = text.getBoundingClientRect();
    if (box.width === 0 || !text.textContent.trim() || text.closest('[hidden]')) { continue; }
    const m = text.getScreenCTM();
    const size = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
    if (size < 10.95) {
      problems.push(`chart text "${text.textContent.trim().slice(0, 40)}" is ${size.toFixed(1)} px`);
    }
  }

  // 9. a table wider than the box it scrolls in has a visible cue before that box
  for (const table of article.querySelectorAll('table')) {
    if (!visible(table)) { continue; }
    let box = null;
    for (let up = table.parentElement; up && up !== article; up = up.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(up).overflowX)) { box = up; break; }
    }
    const room = box ? box.clientWidth : width;
    const wide = box ? box.scrollWidth : table.getBoundingClientRect().width;
    if (wide <= room + 1) { continue; }
    const anchor = box ? (box.closest('.dt-scroll') || box) : null;
    const cue = anchor && anchor.previousElementSibling;
    if (!(cue && cue.classList.contains('masrl-scroll-cue') && visible(cue))) {
      const caption = (table.querySelector('caption') || table).innerText.trim().slice(0, 50);
      const sizes = `${Math.round(wide)} px wide in ${Math.round(room)} px`;
      problems.push(`a table ${sizes} scrolls with no cue: "${caption}"`);
    }
  }

  // 10. no word broken inside a name or id: a word of a table cell or of code that runs over
  // two lines breaks at a space, after a separator that shows the break ("_", "/", ".", "-",
  // ":", ",", ";") or before an opening bracket
  const seen = new Set();
  for (const el of article.querySelectorAll('td, th, code')) {
    if (!visible(el) || el.closest('pre, .highlight')) { continue; }
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (seen.has(node)) { continue; }
      seen.add(node);
      for (const word of node.textContent.matchAll(/\S{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size < 2) { continue; }
        let top = null;
        for (let k = 0; k < word[0].length; k++) {
          range.setStart(node, word.index + k);
          range.setEnd(node, word.index + k + 1);
          const rect = range.getBoundingClientRect();
          if (top !== null && rect.top > top + 2 && !/[_\/.\-:,;]/.test(word[0][k - 1])
              && !/[(\[<{]/.test(word[0][k])) {
            problems.push(`"${word[0].slice(0, 60)}" is broken after "${word[0].slice(0, k)}"`);
            break;
          }
          top = rect.top;
        }
      }
    }
  }
  return problems;
}"""

# Runs in the page: the chapter numbers a reader sees (sidebar, title, captions).
NUMBERS = r"""() => ({
  sidebar: [...document.querySelectorAll('.bd-sidebar-primary nav.bd-links a.reference')]
    .map((a) => [a.getAttribute('href'), a.textContent.trim()]),
  title: (document.querySelector('article.bd-article h1') || {textContent: ''}).textContent.trim(),
  captions: [...document.querySelectorAll('article.bd-article .masrl-number')]
    .map((n) => n.textContent.trim()),
})"""
LEADING = re.compile(r"^(\d+)\.\s")
CAPTION = re.compile(r"^(Table|Figure) (?:(\d+)\.)?(\d+)\.$")


def numbering_problems(pages: dict[str, dict]) -> list[str]:
    """The chapters of the sidebar are numbered 1, 2, 3... without a gap; each chapter's title
    carries its sidebar number; its captions are "Table N.1", "Table N.2"... (and figures
    alike) with N its number, and a page without a number has captions "Table 1", "Table 2"..."""
    problems = []
    sidebar = next(iter(pages.values()))["sidebar"]
    numbered = [(href, int(m.group(1))) for href, text in sidebar if (m := LEADING.match(text))]
    numbers = [n for _, n in numbered]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"the sidebar numbers the chapters {numbers}")
    by_page = {href.split("/")[-1]: n for href, n in numbered}
    for name, found in pages.items():
        chapter = by_page.get(name.split("/")[-1])
        title = LEADING.match(found["title"])
        if (int(title.group(1)) if title else None) != chapter:
            problems.append(f"{name}: the title \"{found['title'][:40]}\" is not chapter {chapter}")
        counts = {"Table": 0, "Figure": 0}
        for caption in found["captions"]:
            match = CAPTION.match(caption)
            if not match:
                problems.append(f"{name}: a caption is numbered \"{caption}\"")
                continue
            kind, number, position = match.group(1), match.group(2), int(match.group(3))
            counts[kind] += 1
            if (int(number) if number else None) != chapter or position != counts[kind]:
                problems.append(f"{name}: \"{caption}\" in chapter {chapter}, "
                                f"{kind.lower()} {counts[kind]}")
    return problems


def audit_pages(browser, server, pages: list[str], viewport: dict, folder: Path) -> list[str]:
    page = offline_page(browser, viewport)
    shutil.rmtree(folder, ignore_errors=True)  # no screenshot of an earlier build stays
    folder.mkdir(parents=True)
    problems = []
    numbers = {}
    try:
        for name in pages:
            page.script_errors.clear()
            page.goto(f"{server.url}/{name}", wait_until="load")
            if page.locator(".math").count():
                page.wait_for_function(
                    "window.MathJax && MathJax.startup && MathJax.startup.promise"
                    " && document.querySelectorAll('.math mjx-container').length"
                    " === document.querySelectorAll('.math').length", timeout=30000)
            if page.locator("figure.masrl-interactive").count():
                page.wait_for_selector("figure.masrl-interactive.masrl-live-ready",
                                       timeout=20000)
            page.wait_for_timeout(300)
            found = page.evaluate(AUDIT, viewport is DESKTOP)
            size = f"{viewport['width']}x{viewport['height']}"
            problems += [f"{name} at {size}: {problem}" for problem in found]
            problems += [f"{name} at {size}: {error}" for error in page.script_errors]
            if name.startswith("notebooks/") or name.startswith("book/"):
                numbers[name] = page.evaluate(NUMBERS)
            page.screenshot(path=str(folder / (name.replace("/", "__") + ".png")), full_page=True)
        problems += [f"requested outside the book: {url}" for url in page.outside_requests]
        problems += numbering_problems(numbers)
    finally:
        page.context.close()
    return problems


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_reads_well(built_book, serve, browser, viewport):
    server = serve(built_book)
    folder = SCREENSHOTS / f"{viewport['width']}x{viewport['height']}"
    problems = audit_pages(browser, server, book_pages(built_book), viewport, folder)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_opened_from_disk_logs_no_error(built_book, browser, viewport):
    """Opened straight from disk (file://), as the README suggests, no page logs an error."""
    page = offline_page(browser, viewport)
    problems = []
    try:
        for name in book_pages(built_book):
            page.script_errors.clear()
            page.goto((built_book / name).as_uri(), wait_until="load")
            page.wait_for_timeout(300)
            problems += [f"{name}: {error}" for error in page.script_errors]
    finally:
        page.context.close()
    assert problems == [], "\n".join(problems)


def test_search_finds_pages_with_snippets_served_and_says_how_from_disk(built_book, serve,
                                                                        browser):
    page = offline_page(browser, DESKTOP)
    try:
        server = serve(built_book)
        page.goto(f"{server.url}/search.html?q=orchestrator", wait_until="load")
        page.wait_for_selector("#search-results li p.context", timeout=20000)
        results = page.locator("#search-results li")
        assert results.count() > 3
        snippet = results.first.locator("p.context").inner_text().lower()
        assert "orchestr" in snippet and len(snippet) > 30  # the stem the search matched
        assert page.locator(".masrl-search-note").count() == 0
        page.goto((built_book / "search.html").as_uri() + "?q=orchestrator", wait_until="load")
        page.wait_for_selector("#search-results li", timeout=20000)
        page.wait_for_timeout(500)
        note = page.locator(".masrl-search-note")
        assert note.is_visible() and "python -m http.server" in note.inner_text()
        assert page.locator("#search-results li").count() > 3
        assert page.script_errors == []
    finally:
        page.context.close()


def test_a_wide_table_goes_row_by_row_on_a_phone_and_stays_a_table_on_a_desktop(built_book, serve,
                                                                               browser):
    """Table 21.1 (many columns, a long text per row) is a table on a desktop; on a phone each
    row is a block and each cell says its column, so no row looks empty."""
    server = serve(built_book)
    shape = """() => { const table = document.querySelector('table.masrl-table');
      const cell = table.querySelector('tbody td.masrl-long');
      const column = [...cell.parentElement.children].indexOf(cell);
      const header = table.querySelectorAll('thead th')[column].textContent.trim();
      return {stacked: table.classList.contains('masrl-stacked'), header: header,
              scrolls: table.parentElement.scrollWidth > table.parentElement.clientWidth + 1,
              label: getComputedStyle(cell, '::before').content,
              display: getComputedStyle(table.querySelector('tbody tr')).display}; }"""
    found = {}
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = offline_page(browser, viewport)
        try:
            page.goto(f"{server.url}/notebooks/36_since_cutoff.html", wait_until="load")
            page.wait_for_timeout(300)
            found[name] = page.evaluate(shape)
        finally:
            page.context.close()
    assert found["desktop"]["stacked"] is False and found["desktop"]["display"] == "table-row"
    assert found["phone"]["stacked"] is True and found["phone"]["display"] == "block"
    assert found["phone"]["scrolls"] is False
    assert found["phone"]["label"] == f'"{found["phone"]["header"]}: "'  # the cell's column


def test_the_numbering_check_sees_a_gap_and_a_wrong_caption():
    sidebar = [["01_method.html", "1. Method"], ["02_pool.html", "2. Pool"],
               ["10_statistics.html", "10. Statistics"]]
    pages = {"notebooks/02_pool.html": {"sidebar": sidebar, "title": "2. The pool",
                                        "captions": ["Table 2.1.", "Figure 2.1.", "Table 2.3."]},
             "notebooks/00_intro.html": {"sidebar": sidebar, "title": "Welcome",
                                         "captions": ["Figure 1."]}}
    found = "\n".join(numbering_problems(pages))
    assert "the sidebar numbers the chapters [1, 2, 10]" in found
    assert '"Table 2.3." in chapter 2, table 2' in found
    assert "00_intro" not in found


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
        <figure class="masrl-chart" aria-label="Small text"><div class="masrl-static">
          <svg width="760" height="40" viewBox="0 0 760 40" style="width:380px">
            <text x="0" y="20" font-size="12px">shrunk to 6 px</text></svg></div></figure>
        <div style="width:200px;overflow-x:auto"><table style="width:600px"><tr>
          <td>a wide table in a narrow box</td></tr></table></div>
        <table style="width:120px"><tr><td style="width:120px">
          <code style="word-break:break-all">PythonDebuggingExpertWithAVeryLongName</code></td></tr></table>
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
                     "px wide in a", "a formula is not drawn", 'chart text "shrunk to 6 px" is 6',
                     "scrolls with no cue", '"PythonDebuggingExpertWithAVeryLongName" is broken']:
        assert expected in found, f"{expected!r} not in:\n{found}"
