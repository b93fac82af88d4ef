"""A crowded trace's timeline stays readable, measured in headless Chromium on what it draws.

"Readable" is checked as measurable properties of the static SVG (what a page without
JavaScript, the text alternative aside, shows), on a synthetic swarm of 4,933 events in 61
agents and on the real Claude Code sessions of ``../shared/traces`` (skipped without them):

* every lane is named on the y axis, in full (no ellipsis), inside the picture, with no two
  names overlapping, and lanes at least :data:`MIN_LANE_PX` pixels apart;
* no two tick labels of the time axis overlap, nor two legend labels, and the title and
  subtitle are not cut;
* every column is at least ``MIN_CELL_PX - 0.5`` pixels wide; two columns of one lane are one
  above the other (the same bucket) or side by side, never overlapping; the critical-path
  stripes touch no column.

The interactive page is checked too: the live chart is drawn from the page's own Vega (the
report page's kit: vl-convert's bundle), the detail view opens on a window of the run, and
dragging across the overview moves it (zoom).
"""

from __future__ import annotations

import pytest
from trace_helpers import replayed

from masrl import paths
from masrl.presentation import charts
from masrl.presentation.report import page as report_page
from masrl.presentation.report import timeline as trace_charts
from masrl.presentation.report.blocks import Chart
from masrl.traces import Replay
from masrl.traces.importers import import_file
from masrl.traces.synthetic import swarm_trace

pytestmark = pytest.mark.browser

MIN_LANE_PX = 30
SESSIONS = ["258c7280-ae70-4798-800f-63464d01a85d.jsonl",  # 481 events over 70 minutes
            "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"]  # 618 events over 42 minutes
CLAUDE_CODE = paths.public_logs_dir() / "claude-code"

MEASURE = """() => {
  const svg = document.querySelector("figure.masrl-chart svg");
  const box = (e) => { const r = e.getBoundingClientRect();
    return {text: e.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const shown = (e) => e.getAttribute("opacity") !== "0";  // Vega hides crowded labels so
  const all = (selector) => Array.from(svg.querySelectorAll(selector)).filter(shown).map(box);
  return {
    svg: box(svg),
    lanes: all('g.role-axis[aria-label^="Y-axis"] g.role-axis-label text'),
    ticks: all('g.role-axis[aria-label^="X-axis"] g.role-axis-label text'),
    legend: all("g.role-legend-label text"),
    titles: all("g.role-title text"),
    columns: all("g.layer_1_marks path"),
    stripes: all("g.layer_2_marks path"),
  };
}"""


def large_swarm() -> Replay:
    return replayed(swarm_trace([40] * 60, waves=6, call_seconds=0.2, trace_id="large-swarm"))


def session(name: str) -> Replay:
    path = CLAUDE_CODE / name
    if not path.is_file():
        pytest.skip(f"the public Claude Code sessions are not at {CLAUDE_CODE} (a fresh clone "
                    "has no ../shared/traces)")
    return replayed(import_file("claude-code", path).trace)


TRACES = [pytest.param(large_swarm, id="synthetic-4933-events"),
          *(pytest.param(lambda name=name: session(name), id=name[:8]) for name in SESSIONS)]


def apart(a: dict, b: dict, gap: float = 0.0) -> bool:
    """Whether two boxes do not overlap (with at least ``gap`` pixels between them)."""
    return (a["right"] + gap <= b["left"] or b["right"] + gap <= a["left"]
            or a["bottom"] + gap <= b["top"] or b["bottom"] + gap <= a["top"])


def overlapping_pairs(boxes: list[dict], gap: float = 0.0) -> list[tuple[str, str]]:
    return [(a["text"], b["text"]) for k, a in enumerate(boxes) for b in boxes[k + 1:]
            if not apart(a, b, gap)]


def inside(inner: dict, outer: dict) -> bool:
    return (inner["left"] >= outer["left"] - 0.5 and inner["right"] <= outer["right"] + 0.5
            and inner["top"] >= outer["top"] - 0.5 and inner["bottom"] <= outer["bottom"] + 0.5)


def readability_problems(found: dict, lanes: list[str]) -> list[str]:
    problems = []
    names = [label["text"] for label in found["lanes"]]
    if sorted(names) != sorted(lanes):
        problems.append(f"lane labels {names} are not the lanes {lanes}")
    problems += [f"lane label {label['text']!r} is cut" for label in found["lanes"]
                 if "…" in label["text"] or not inside(label, found["svg"])]
    problems += [f"lane labels overlap: {pair}" for pair in overlapping_pairs(found["lanes"])]
    centres = sorted((label["top"] + label["bottom"]) / 2 for label in found["lanes"])
    problems += [f"lanes {b - a:.1f} px apart" for a, b in zip(centres, centres[1:])
                 if b - a < MIN_LANE_PX]
    problems += [f"time labels overlap: {pair}" for pair in overlapping_pairs(found["ticks"], 2)]
    problems += [f"legend labels overlap: {pair}" for pair in overlapping_pairs(found["legend"])]
    problems += [f"title cut: {title['text']!r}" for title in found["titles"]
                 if not inside(title, found["svg"])]
    columns = found["columns"]
    problems += [f"a column {c['right'] - c['left']:.1f} px wide" for c in columns
                 if c["right"] - c["left"] < trace_charts.MIN_CELL_PX - 0.5]
    ordered = sorted(columns, key=lambda c: c["left"])
    for k, a in enumerate(ordered):  # a sweep: only boxes that start before a ends can meet it
        for b in ordered[k + 1:]:
            if b["left"] >= a["right"]:
                break
            if not apart(a, b, -0.01):
                same = abs(a["left"] - b["left"]) < 0.01 and abs(a["right"] - b["right"]) < 0.01
                problems.append(f"{'segments of one column' if same else 'columns'} overlap: "
                                f"{a} {b}")
    problems += [f"a stripe touches a column: {s}" for s in found["stripes"]
                 if any(not apart(s, c, -0.01) for c in columns)]
    return problems


@pytest.mark.parametrize("trace", TRACES)
def test_a_crowded_timeline_is_readable_without_javascript(browser, trace):
    found_replay = trace()
    assert trace_charts.is_binned(found_replay)
    figure = charts.show(trace_charts.binned_gantt(found_replay))
    page = browser.new_page(viewport={"width": 1440, "height": 900}, java_script_enabled=True)
    try:
        page.set_content(f"<!DOCTYPE html><html><body>{figure._repr_html_()}</body></html>")
        found = page.evaluate(MEASURE)
    finally:
        page.close()
    lanes = trace_charts.lanes(found_replay)[0]
    assert len(found["columns"]) > len(lanes)
    assert readability_problems(found, lanes) == []


def test_the_live_timeline_opens_on_a_window_and_zooms_where_the_reader_drags(browser):
    """Drawn as the report page draws it: vl-convert's bundle of Vega and the chart script."""
    found_replay = large_swarm()
    drawn = trace_charts.timeline(found_replay)
    html = (f"<!DOCTYPE html><html><body>{Chart(drawn.static, drawn.live).page_html()}"
            f"{report_page.scripts()}</body></html>")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.set_content(html)
        page.wait_for_selector("figure.masrl-live-ready", timeout=20_000)
        view = "document.querySelector('figure.masrl-chart .masrl-live')"
        ticks = f"""() => Array.from({view}.querySelectorAll(
            'g.role-axis[aria-label^="X-axis"] g.role-axis-label text')).map(t => t.textContent)"""
        before = page.evaluate(ticks)
        # the detail's time axis (the second one) covers the opening window, not the run
        window = drawn.live["vconcat"][0]["layer"][1]["params"][0]["value"]["x"]
        assert window[1] - window[0] < found_replay.metrics["wall_clock"] / 10
        live = page.locator("figure.masrl-chart .masrl-live svg").first
        live.evaluate("svg => svg.scrollIntoView({block: 'start'})")
        overview = live.bounding_box()
        # drag across the right half of the overview's plot, in its first lanes
        x0, y0 = overview["x"] + overview["width"] * 0.6, overview["y"] + 120
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0 + 150, y0, steps=5)
        page.mouse.up()
        page.wait_for_timeout(300)
        after = page.evaluate(ticks)
    finally:
        page.close()
    assert errors == []
    # the overview's time axis stays; the detail's moves from the opening window to the dragged
    overview_before, detail_before = two_axes(before)
    overview_after, detail_after = two_axes(after)
    assert overview_after == overview_before
    assert overview_before[-1] > 0.5 * found_replay.metrics["wall_clock"]
    assert detail_before[0] >= window[0] and detail_before[-1] <= window[1]
    assert detail_after[0] > 0.5 * found_replay.metrics["wall_clock"], after


def two_axes(labels: list[str]) -> tuple[list[float], list[float]]:
    """The tick values of the overview's time axis and of the detail's (each axis rises; the
    second starts where the values fall back)."""
    values = [float(label.replace(",", "")) for label in labels]
    cut = next(k for k in range(1, len(values)) if values[k] < values[k - 1])
    return values[:cut], values[cut:]
