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
"""

from __future__ import annotations

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
    .map((el) => el.innerText).join('\n');
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


def report_page(name: str, log: Path, folder: Path) -> tuple[Path, list[str]]:
    """``masrl report`` on the log: the page, and the names it must not show."""
    out = folder / f"{name}.html"
    assert main(["report", str(log), "-o", str(out)]) == 0
    trace = folder / f"{name}.trace.json"
    if looks_like_trace(str(log)):
        trace = log
    else:
        assert main(["import", "auto", str(log), "-o", str(trace)]) == 0
    return out, code_names(trace)


def audited(browser, page_path: Path, names: list[str], shot: str) -> list[str]:
    problems = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        errors: list[str] = []
        outside: list[str] = []
        page.on("console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error, e=errors: e.append(str(error)))
        page.on("request", lambda r, o=outside: None if r.url.startswith(
            ("file:", "data:", "about:", "blob:")) else o.append(r.url))
        try:
            page.goto(page_path.as_uri(), wait_until="load")
            if page.locator("figure.masrl-interactive").count():
                page.wait_for_selector("figure.masrl-interactive.masrl-live-ready",
                                       timeout=30_000)
            found = page.evaluate(AUDIT, names)
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
