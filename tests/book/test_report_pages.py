"""The pages ``masrl report`` writes, as a reader sees them at 1440x900 and 390x844 in headless
Debian Chromium: on five real logs of different formats from ``../shared/traces`` (a Claude
Code session, a Who&When log, an OpenTelemetry any-agent run, a Langfuse export, an AutoGen
trace; each imported by ``masrl report`` first), on the comparison ``masrl diff`` writes of two
real runs, and, so that the test also runs on a fresh clone, on an example trace and on the
hand-written fixtures of the same five formats.

On each page and size: nothing slides the page sideways, every table fits its column, every
chart fits its column and keeps its text inside, no text is cut, no figure's name reads as code
(a figure of ``masrl replay --json`` by its JSON name), every chart is drawn, nothing is
fetched, no console error. Full-page screenshots are kept under
``_build/screenshots/report/``.

Labels and text: the Who&When report (real, or our own log) shows its labelled step marked on
the drawn timeline (a dark red triangle, its legend entry) and highlighted in the step list with
its labels; reports made with ``--keep-content`` (a Who&When log, a Claude Code session, and a
trace whose text is hostile: markup, a script's end tag, control characters, a 3,000-character
line) are audited with every step's text opened: nothing overflows, nothing runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_helpers import DESKTOP, PHONE

from masrl import paths
from masrl.commands import main
from masrl.commands.report import looks_like_trace
from masrl.traces import resources

pytestmark = pytest.mark.browser

SCREENSHOTS = paths.REPO_ROOT / "_build" / "screenshots" / "report"
REAL = paths.public_logs_dir()
FRAMEWORK = REAL / "real-logs"
REAL_LOGS = {  # name -> a public log of that format
    "claude-code": REAL / "claude-code" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "who-and-when": REAL / "who-and-when" / "hand-crafted" / "17.json",
    "otel-any-agent": REAL / "otel-any-agent" / "LANGCHAIN_trace.json",
    "langfuse": FRAMEWORK / "langfuse-export" / "langfuse__langfuse" / "62751446" / "worker"
    / "src" / "__tests__" / "chatml" / "framework-traces" / "crewai-2025-07-11.trace.json",
    "autogen": FRAMEWORK / "autogen-events" / "yuyueryuyu__mas-failure-attribution"
    / "b61c6c12" / "runs" / "result_example" / "magentic_trace.json",
}
IMPORTERS = paths.REPO_ROOT / "tests" / "fixtures" / "importers"
FIXTURE_LOGS = {  # name -> our own small log of the same format, or an example trace
    "example-hierarchical": resources.EXAMPLES / "hierarchical.json",
    "fixture-claude-code": IMPORTERS / "claude_code" / "s1.jsonl",
    "fixture-who-and-when": IMPORTERS / "who_and_when" / "magentic_one.json",
    "fixture-otel": IMPORTERS / "otel" / "any_agent.json",
    "fixture-langfuse": IMPORTERS / "langfuse" / "trace.json",
    "fixture-autogen": IMPORTERS / "autogen" / "magentic_recorder.json",
}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
KEPT_LOGS = {  # name -> a public log reported with its text (masrl report --keep-content)
    "who-and-when-kept": REAL_LOGS["who-and-when"],
    "claude-code-kept": REAL_LOGS["claude-code"],
}
FIXTURE_KEPT = {
    "fixture-who-and-when-kept": FIXTURE_LOGS["fixture-who-and-when"],
    "fixture-claude-code-kept": FIXTURE_LOGS["fixture-claude-code"],
}
LABELLED_COLOUR = "#a50f15"  # masrl.presentation.report.blocks.LABELLED_COLOUR, as SVG writes it

# Runs in the page: what a reader sees of the labels. Returns the problems, as sentences.
LABEL_AUDIT = r"""() => {
  const problems = [];
  const items = [...document.querySelectorAll('.masrl-steps li.masrl-labelled')];
  if (!items.length) { problems.push('no labelled step in the step list'); }
  for (const item of items) {
    if (item.closest('details:not([open])') || item.offsetParent === null) {
      problems.push('a labelled step is not in view');
    }
    if (!/Labelled mistake_step \(Who&When, gold answer\)/.test(item.innerText)) {
      problems.push(`a labelled step does not say its label: "${item.innerText.slice(0, 80)}"`);
    }
  }
  const timeline = document.querySelector('#timeline figure.masrl-interactive svg');
  if (!timeline) { problems.push('no drawn timeline'); return problems; }
  const marks = [...timeline.querySelectorAll('path')].filter((p) =>
    (p.getAttribute('fill') || '').toLowerCase() === '%COLOUR%'
    && p.closest('.role-mark'));
  if (marks.length < 1) { problems.push('no labelled-step mark on the timeline'); }
  const legend = [...timeline.querySelectorAll('.role-legend text')].map((t) => t.textContent);
  for (const entry of ['labelled step', 'labelled agent']) {
    if (!legend.includes(entry)) { problems.push(`no legend entry "${entry}"`); }
  }
  return problems;
}""".replace("%COLOUR%", LABELLED_COLOUR)
OPEN_TEXTS = """() => document.querySelectorAll('details.masrl-said').forEach(
  (d) => { d.open = true; })"""

# Runs in the page. Returns the problems it finds, as sentences.
AUDIT = r"""(names) => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    problems.push(`the page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window`);
  }
  for (const wrap of document.querySelectorAll('.masrl-table-wrap')) {
    if (wrap.closest('details:not([open])')) { continue; }
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      const caption = wrap.querySelector('caption');
      problems.push(`table "${caption ? caption.innerText : ''}" is ${wrap.scrollWidth} px wide `
                    + `in a ${wrap.clientWidth} px column`);
    }
  }
  for (const el of document.querySelectorAll('main *')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || el.closest('details:not([open])')) { continue; }
    const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1 && !el.closest('thead')) {
      problems.push(`<${el.tagName.toLowerCase()} class="${el.className}"> cuts its content`);
    }
  }
  for (const live of document.querySelectorAll('figure.masrl-interactive .masrl-live')) {
    if (live.scrollWidth > live.clientWidth + 1) {
      problems.push(`a chart is ${live.scrollWidth} px wide in a ${live.clientWidth} px column`);
    }
    const box = live.getBoundingClientRect();
    for (const text of live.querySelectorAll('svg text')) {
      const r = text.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1)) {
        problems.push(`a chart's text runs out of the chart: "${text.textContent.trim()}"`);
      }
    }
  }
  for (const text of document.querySelectorAll('svg text')) {
    if (/(\.\.\.|…)\s*$/.test(text.textContent.trim())) {
      problems.push(`a label of a drawing is cut: "${text.textContent.trim()}"`);
    }
  }
  const visible = [...document.querySelectorAll('main p, main li, main td, main th, main caption, '
                                                + 'main figcaption, main h1, main h2')]
    .filter((el) => !el.closest('pre'))
    .map((el) => {  // a step's text (in a pre) is the log's own words, not the page's
      if (!el.querySelector('pre')) { return el.innerText; }
      const copy = el.cloneNode(true);
      copy.querySelectorAll('pre').forEach((pre) => pre.remove());
      return copy.textContent;
    }).join('\n');
  for (const name of names) {
    const pattern = new RegExp(`(^|[^\\w.])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w.])`);
    if (pattern.test(visible)) { problems.push(`a figure is named as code: ${name}`); }
  }
  const charts = document.querySelectorAll('figure.masrl-interactive').length;
  const drawn = document.querySelectorAll('figure.masrl-interactive.masrl-live-ready').length;
  if (drawn !== charts) { problems.push(`${drawn} of ${charts} charts drawn`); }
  return problems;
}"""


def code_names(trace_path: Path) -> list[str]:
    """The JSON names of ``masrl replay --json``'s figures (snake_case keys and dotted paths),
    less the trace's own agent and tool names: what no reader should meet as a label."""
    from masrl.traces import replay, validate_file

    found = replay(validate_file(trace_path).trace)
    names: set[str] = set()
    stack = [("", found.to_dict())]
    while stack:
        path, value = stack.pop()
        if not isinstance(value, dict):
            continue
        for key, inner in value.items():
            dotted = f"{path}.{key}" if path else key
            if "_" in key or path:
                names.add(dotted)
            if key not in ("per_agent", "per_subtree", "busy_time", "shares", "spawn_tree",
                           "provenance", "interventions", "leave_one_out", "shapley"):
                stack.append((dotted, inner))
    return sorted(names - set(found.run.agents) - {"schema_version", "trace_id", "task_id"})


def report_page(name: str, log: Path, folder: Path, *options: str) -> tuple[Path, list[str]]:
    """``masrl report`` on the log (with ``options``): the page, and the names it must not
    show."""
    out = folder / f"{name}.html"
    assert main(["report", *options, str(log), "-o", str(out)]) == 0
    trace = folder / f"{name}.trace.json"
    if looks_like_trace(str(log)):
        trace = log
    else:
        assert main(["import", "auto", str(log), "-o", str(trace)]) == 0
    return out, code_names(trace)


def audited(browser, page_path: Path, names: list[str], shot: str, *,
            before: str | None = None, after: str | None = None) -> list[str]:
    """The problems :data:`AUDIT` finds on the page at both sizes (and ``after``, a script of
    the same kind, finds), once ``before`` ran in it (a script that opens what a reader
    opens)."""
    problems = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        errors: list[str] = []
        outside: list[str] = []
        page.on("console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error, e=errors: e.append(str(error)))
        page.on("dialog", lambda dialog, e=errors: (
            e.append(f"a script opened a dialog: {dialog.message}"), dialog.dismiss()))
        page.on("request", lambda r, o=outside: None if r.url.startswith(
            ("file:", "data:", "about:", "blob:")) else o.append(r.url))
        try:
            page.goto(page_path.as_uri(), wait_until="load")
            if page.locator("figure.masrl-interactive").count():
                page.wait_for_selector("figure.masrl-interactive.masrl-live-ready",
                                       timeout=30_000)
            if before:
                page.evaluate(before)
            found = page.evaluate(AUDIT, names)
            if after:
                found += page.evaluate(after)
            page.screenshot(path=str(SCREENSHOTS / f"{shot}-{viewport['width']}.png"),
                            full_page=True)
        finally:
            context.close()
        problems += [f"{size}: {p}" for p in [*found, *errors,
                                               *(f"fetched {u}" for u in outside)]]
    return problems


def check(browser, logs: dict[str, Path], tmp_path: Path) -> None:
    problems = []
    for name, log in logs.items():
        page_path, names = report_page(name, log, tmp_path)
        problems += [f"{name} {p}" for p in audited(browser, page_path, names, name)]
    assert problems == []


def test_the_reports_of_five_real_logs_read_well_at_both_sizes(browser, tmp_path):
    missing = [str(p) for p in REAL_LOGS.values() if not p.is_file()]
    if missing:
        pytest.skip(f"the public logs are not all there ({missing[0]}...; a fresh clone has no "
                    "../shared/traces): the fixtures below run the same checks")
    check(browser, REAL_LOGS, tmp_path)


def test_the_reports_of_our_fixtures_read_well_at_both_sizes(browser, tmp_path):
    check(browser, FIXTURE_LOGS, tmp_path)


def test_the_comparison_of_two_real_runs_reads_well(browser, tmp_path):
    pair = (REAL / "who-and-when" / "hand-crafted" / "17.json",
            REAL / "who-and-when" / "algorithm-generated" / "103.json")
    if not all(p.is_file() for p in pair):
        pytest.skip("the public Who&When logs are not there (a fresh clone has no "
                    "../shared/traces)")
    out = tmp_path / "diff.html"
    assert main(["diff", *map(str, pair), "-o", str(out)]) == 0
    assert audited(browser, out, [], "diff-who-and-when") == []


def check_kept(browser, logs: dict[str, Path], tmp_path: Path) -> None:
    problems = []
    for name, log in logs.items():
        page_path, names = report_page(name, log, tmp_path, "--keep-content")
        opened = page_path.read_text(encoding="utf-8").count('<details class="masrl-said">')
        assert opened, f"{name}: no step holds its text"
        problems += [f"{name} {p}" for p in audited(browser, page_path, names, name,
                                                     before=OPEN_TEXTS)]
    assert problems == []


def test_the_who_and_when_report_marks_its_labelled_step(browser, tmp_path):
    real = REAL_LOGS["who-and-when"]
    logs = {"labels-who-and-when": real} if real.is_file() else {}
    logs["labels-fixture-who-and-when"] = FIXTURE_LOGS["fixture-who-and-when"]
    problems = []
    for name, log in logs.items():
        page_path, names = report_page(name, log, tmp_path)
        problems += [f"{name} {p}" for p in audited(browser, page_path, names, name,
                                                     after=LABEL_AUDIT)]
    assert problems == []


def test_reports_with_text_kept_read_well_with_every_text_open(browser, tmp_path):
    """Our own logs, and a trace whose kept text and label are hostile."""
    from replay_examples import hostile_content_trace

    check_kept(browser, FIXTURE_KEPT, tmp_path)
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(hostile_content_trace()), encoding="utf-8")
    out = tmp_path / "hostile.html"
    assert main(["report", str(hostile), "-o", str(out)]) == 0
    # a script of the text that ran would open a dialog, which audited() reports
    assert audited(browser, out, code_names(hostile), "hostile-content",
                   before=OPEN_TEXTS) == []


def test_real_reports_with_text_kept_read_well_with_every_text_open(browser, tmp_path):
    missing = [str(p) for p in KEPT_LOGS.values() if not p.is_file()]
    if missing:
        pytest.skip(f"the public logs are not all there ({missing[0]}...; a fresh clone has no "
                    "../shared/traces): the fixtures run the same checks")
    check_kept(browser, KEPT_LOGS, tmp_path)


def page_height(browser, page_path: Path, viewport: dict) -> int:
    """How tall the page is, in CSS pixels, at ``viewport``, once its charts are drawn."""
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(page_path.as_uri(), wait_until="load")
        page.wait_for_selector("figure.masrl-interactive.masrl-live-ready", timeout=30_000)
        return page.evaluate("document.documentElement.scrollHeight")
    finally:
        context.close()


def test_a_report_on_very_long_names_stays_about_as_tall_as_on_short_ones(browser, tmp_path):
    """A 10,000-character agent name, a 5,000-character tool, 3,000-character event ids, two
    names alike in their first and last 200 characters, and one of markup, bidirectional and
    control characters (:func:`hostile_traces.long_names`): the page passes the audit at both
    sizes and is at most a quarter taller than the page of the same trace with short names (the
    names written in full made it 13 times taller on a desktop)."""
    from hostile_traces import long_names

    small = json.loads((paths.REPO_ROOT / "tests" / "fixtures" / "traces" / "small.json")
                       .read_text(encoding="utf-8"))
    pages, traces = {}, {}
    for name, short in (("short-names", True), ("long-names", False)):
        traces[name] = tmp_path / f"{name}.json"
        traces[name].write_text(json.dumps(long_names(small, short=short)), encoding="utf-8")
        pages[name] = tmp_path / f"{name}.html"
        assert main(["report", str(traces[name]), "-o", str(pages[name])]) == 0
    assert audited(browser, pages["long-names"], code_names(traces["long-names"]),
                   "long-names") == []
    for viewport in SIZES.values():
        short, long = (page_height(browser, pages[name], viewport) for name in pages)
        assert long <= 1.25 * short, (viewport, long, short)
