"""The pieces a report section is made of, each with one HTML form and one plain-text form:
the report page places the HTML, the book's chapter 22 displays the same objects (Jupyter
calls ``_repr_html_``), and notebook tests compare the plain text.

Every text that comes from a trace is escaped here, or by :class:`masrl.presentation.tables.
Table`; markup is built only from escaped text.
"""

from __future__ import annotations

import html
import math
import re

from masrl.presentation import vega
from masrl.presentation.escaping import html_text
from masrl.presentation.report import names
from masrl.presentation.report.words import visible as words_visible
from masrl.presentation.tables import STACKED, Table, formatted

FOLD_AFTER = 10  # a table longer than this shows its first rows and folds the rest
STACK_FROM = 4  # a table of this many columns or more becomes cards on a phone


def table(header: list[str], kinds: list[str], rows: list[list[str]], caption: str,
          notes: str | None = None) -> Table:
    """A report table in the book's style; one of :data:`STACK_FROM` columns or more is marked
    to become cards on a narrow screen (each cell under its column's name), so that it fits
    the column instead of sliding sideways; a narrower one wraps its cells."""
    return Table(header, kinds, rows, caption, notes=notes,
                 classes=STACKED if len(header) >= STACK_FROM else "")


class Paragraph:
    """A paragraph of text: plain ``text`` and, where part of it is code (a file name, a
    command), runs of ``(text, is_code)``. ``tone`` ``warning`` marks a line the reader should
    not miss (a thin import)."""

    def __init__(self, *runs: str | tuple[str, bool], tone: str = ""):
        self.runs = [(run, False) if isinstance(run, str) else run for run in runs]
        self.tone = tone

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.runs)

    def _repr_html_(self) -> str:
        body = "".join(f"<code>{html_text(text)}</code>" if code else html_text(text)
                       for text, code in self.runs)
        tone = f" masrl-{self.tone}" if self.tone else ""
        return f'<p class="masrl-paragraph{tone}">{body}</p>'

    def __repr__(self) -> str:
        return self.text


class Commands:
    """Command lines a reader can copy, shown as code, one per line."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def _repr_html_(self) -> str:
        return f'<pre class="masrl-commands"><code>{html_text(chr(10).join(self.lines))}</code></pre>'

    def __repr__(self) -> str:
        return "\n".join(f"$ {line}" for line in self.lines)


class Folded:
    """A table whose first ``shown`` rows are in view and whose other rows wait in a
    ``<details>`` element the reader opens (the same header, the caption marked continued)."""

    def __init__(self, table: Table, shown: int = FOLD_AFTER):
        self.table, self.shown = table, shown

    def _repr_html_(self) -> str:
        table = self.table
        if len(table.rows) <= self.shown + 2:  # folding two rows away helps nobody
            return table._repr_html_()
        head = Table(table.header, table.kinds, table.rows[:self.shown], table.caption,
                     table.row_headers, None, table.classes)
        rest = Table(table.header, table.kinds, table.rows[self.shown:],
                     f"{table.caption} (continued)", table.row_headers, table.notes,
                     table.classes)
        more = len(table.rows) - self.shown
        return (f'<div class="masrl-fold">{head._repr_html_()}<details class="masrl-more">'
                f"<summary>Show the other {more:,} rows</summary>{rest._repr_html_()}"
                f"</details></div>")

    def __repr__(self) -> str:
        return repr(self.table)


class Chart:
    """A Vega-Lite chart: ``live`` is drawn in the reader's browser (the report page carries
    the libraries); ``static`` is what a page that does not draw shows (the book renders it to
    SVG). Without JavaScript the report page shows the chart's text alternative in its place."""

    def __init__(self, static: dict, live: dict | None = None, caption: str | None = None):
        self.static, self.live = static, live or static
        self.caption = caption

    @property
    def title(self) -> str:
        return vega.title_text(self.static.get("title", ""))

    @property
    def description(self) -> str:
        return self.static["description"]

    def _caption(self) -> str:
        note = " ".join(part for part in (self.caption,
                                          (self.static.get("usermeta") or {}).get("note"))
                        if part)
        note = f' <span class="masrl-note">{html_text(note)}</span>' if note else ""
        return (f'<figcaption class="masrl-caption"><span class="masrl-title">'
                f"{html_text(self.title)}</span>{note}</figcaption>")

    def page_html(self) -> str:
        """The chart in the report page: an empty place the page's script draws the chart
        into, the text alternative under it (hidden once the chart is drawn: the page's
        stylesheet), and the specification."""
        label = html_text(f"{self.title}. {self.description}")
        live = dict(self.live)
        live.pop("title", None)
        spec = vega.embedded_spec(vega.responsive(live))
        return (f'<figure class="masrl-chart masrl-interactive" role="img" aria-label="{label}">'
                f'<div class="masrl-live"></div><p class="masrl-alt">'
                f"{html_text(self.description)}</p>"
                f'<script type="application/json" class="masrl-spec">{spec}</script>'
                f"{self._caption()}</figure>")

    def _repr_html_(self) -> str:  # the book: static SVG, drawn live where the book can
        from masrl.presentation import charts

        return charts.show(self.static, interactive=True, caption=self.caption,
                           live=self.live if self.live is not self.static else None
                           )._repr_html_()

    def __repr__(self) -> str:
        note = f" {self.caption}" if self.caption else ""
        return f"Chart: {self.title}. {self.description}{note}"


class Drawing:
    """A picture built as SVG by presentation code (every text in it escaped), with its title,
    its text alternative (the figure's accessible name; the tables beside it say the same in
    full), and a legend in words under it. With a ``narrow`` SVG too, a figure too narrow to
    show the wide one at :data:`SMALLEST_SCALE` of its size shows that one instead
    (:func:`narrow_style`, carried by the figure)."""

    def __init__(self, svg: str, title: str, description: str, legend: list[str],
                 narrow: str | None = None, too_narrow: str = ""):
        self.svg, self.title, self.description, self.legend = svg, title, description, legend
        self.narrow = narrow
        # what a column too narrow for either drawing shows instead (where to read the same)
        self.too_narrow = too_narrow or ("This drawing needs a wider screen to stay legible: "
                                         "its description says what it shows.")

    def _repr_html_(self) -> str:
        label = html_text(f"{self.title}. {self.description}")
        legend = "".join(f"<li>{html_text(item)}</li>" for item in self.legend)
        drawn = f'<div class="masrl-static masrl-wide">{self.svg}</div>'
        classes = "masrl-chart masrl-drawing"
        box = note = ""
        if self.narrow:
            fits, fits_narrow = fitting_width(self.svg), fitting_width(self.narrow)
            classes += f" masrl-fits-{fits}"
            box = f"masrl-drawing-box masrl-fits-{fits}-{fits_narrow}"
            drawn += f'<div class="masrl-static masrl-narrow">{self.narrow}</div>'
            note = (f'<p class="masrl-drawing-note">{html_text(self.too_narrow)}</p>'
                    f"<style>{narrow_style(fits, fits_narrow)}</style></div>")
        figure = (f'<figure class="{classes}" role="img" aria-label="{label}">'
                  f"{drawn}"
                  f'<figcaption class="masrl-caption"><span class="masrl-title">'
                  f'{html_text(self.title)}</span>'
                  f'<ul class="masrl-legend">{legend}</ul></figcaption></figure>')
        return f'<div class="{box}">{figure}{note}' if box else figure

    def __repr__(self) -> str:
        return f"Drawing: {self.title}. {self.description} " + " ".join(self.legend)


SMALLEST_SCALE = 0.92  # a drawing is never shown smaller than this: its 12 px text stays 11 px
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)"')


def fitting_width(svg: str) -> int:
    """The narrowest figure, in CSS pixels, that shows ``svg`` at :data:`SMALLEST_SCALE` of its
    size at the least (its ``width`` attribute times that scale, rounded up)."""
    found = _SVG_WIDTH.search(svg)
    return math.ceil(float(found.group(1)) * SMALLEST_SCALE) if found else 0


def narrow_style(fits: int, fits_narrow: int = 0) -> str:
    """The style that shows a drawing's wide layout in a column at least ``fits`` pixels wide,
    its narrow one in a narrower column, and neither (but the drawing's note) in a column
    narrower than ``fits_narrow``: container queries on the box around the figure, so that a
    drawing chooses by the column it sits in, in the book and in the report alike, and no text
    of it is shown under :data:`SMALLEST_SCALE` of its size."""
    name = f"figure.masrl-drawing.masrl-fits-{fits}"
    box = f".masrl-drawing-box.masrl-fits-{fits}-{fits_narrow}"
    return (f".masrl-drawing-box {{ container-type: inline-size; }} "
            f".masrl-drawing-box > .masrl-drawing-note {{ display: none; }} "
            f"{name} .masrl-narrow {{ display: none; }} "
            f"@container (max-width: {fits - 0.02}px) {{ {name} .masrl-wide {{ display: none; }} "
            f"{name} .masrl-narrow {{ display: block; max-width: none; }} }} "
            f"@container (max-width: {fits_narrow - 0.02}px) {{ {box} > figure {{ display: none; }} "
            f"{box} > .masrl-drawing-note {{ display: block; }} }}")


class Section:
    """One section of the report: its ``key`` (stable, for the chapter and tests), its
    ``title`` (the page's heading; the chapter's own ``##`` heading says the same) and its
    blocks, in order."""

    def __init__(self, key: str, title: str, blocks: list):
        self.key, self.title, self.blocks = key, title, blocks

    def _repr_html_(self) -> str:
        return (f'<div class="masrl-section" id="masrl-{self.key}">'
                + "".join(block._repr_html_() for block in self.blocks) + "</div>")

    def page_html(self) -> str:
        """The section in the report page: its heading, then its blocks."""
        parts = [getattr(block, "page_html", block._repr_html_)() for block in self.blocks]
        return (f'<section class="masrl-section" id="{self.key}"><h2>{html_text(self.title)}</h2>'
                + "".join(parts) + "</section>")

    def __repr__(self) -> str:
        return "\n\n".join(repr(block) for block in self.blocks)


def strip_markup(text: str) -> str:
    """Visible text of a piece of markup (tags removed, entities decoded), for tests."""
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


LABELLED_COLOUR = "#A50F15"  # the labelled step and agent, on the timeline and in the lists
STEPS_SHOWN = 20  # the step list shows this many first steps, and folds the rest into runs
STEP_CONTEXT = 1  # steps shown before and after a labelled step, wherever it is
STEP_STYLE = (
    ".masrl-steps ul { list-style: none; padding: 0; margin: 0.4rem 0 0.8rem; } "
    ".masrl-steps li.masrl-step { border-bottom: 1px solid #e2e2e2; padding: 0.3rem 0.2rem; "
    "overflow-wrap: anywhere; } "
    f".masrl-steps li.masrl-labelled {{ border-left: 4px solid {LABELLED_COLOUR}; "
    "background: #fcf0f1; padding-left: 0.6rem; } "
    ".masrl-steps .masrl-step-number { font-weight: 600; } "
    ".masrl-steps .masrl-step-label { margin: 0.2rem 0; } "
    f".masrl-steps .masrl-step-label strong {{ color: {LABELLED_COLOUR}; }} "
    ".masrl-steps details.masrl-said > summary { cursor: pointer; color: #0b5cad; } "
    ".masrl-steps pre.masrl-said-text { white-space: pre-wrap; overflow-wrap: anywhere; "
    "max-width: 100%; max-height: 28rem; overflow-y: auto; background: #f7f7f7; "
    "border: 1px solid #e2e2e2; padding: 0.5rem 0.7rem; margin: 0.3rem 0; font-size: 0.85rem; } "
    ".masrl-steps .masrl-cut { display: block; color: #8a3b00; font-style: italic; "
    "margin-top: 0.4rem; } "
    ".masrl-steps details.masrl-gap > summary { cursor: pointer; color: #0b5cad; "
    "margin: 0.3rem 0; }")


def label_sentence(label) -> str:
    """One label on a step, in plain text: its name, who gave it, what it says, its comment."""
    category = f" ({label.category})" if label.category else ""
    comment = f"; comment: {label.comment}" if label.comment else ""
    cut = " (cut at the trace's bound)" if label.truncated else ""
    return f"{names.shown(label.name)} ({label.given_by}): {label.said}{category}{comment}{cut}"


def _bytes(size: float | None) -> str:
    return f"{int(size):,} bytes" if size is not None else "more"


class StepList:
    """The run's steps in order (:class:`masrl.presentation.report.steps.Step`), each with its
    labels (highlighted) and, when the trace holds it, its text in a ``<details>`` a reader
    opens (escaped, control characters shown, marked where it was cut). The first
    :data:`STEPS_SHOWN` steps and every labelled step with its neighbours are in view; the
    others wait in folded runs."""

    def __init__(self, steps: list, shown: int = STEPS_SHOWN):
        self.steps, self.shown = steps, shown

    def visible(self) -> list[bool]:
        """Per step, whether it is in view (class docstring)."""
        keep = [k < self.shown for k in range(len(self.steps))]
        for k, step in enumerate(self.steps):
            if step.labels:
                for j in range(max(0, k - STEP_CONTEXT), min(len(keep), k + STEP_CONTEXT + 1)):
                    keep[j] = True
        return keep

    def runs(self) -> list[tuple[bool, list]]:
        """The steps cut into runs that are all in view or all folded, in order."""
        found: list[tuple[bool, list]] = []
        for step, shown in zip(self.steps, self.visible()):
            if found and found[-1][0] == shown:
                found[-1][1].append(step)
            else:
                found.append((shown, [step]))
        return found

    @staticmethod
    def item_html(step) -> str:
        agent = f"<code>{html_text(words_visible(names.shown(step.agent)))}</code>"
        head = (f'<div class="masrl-step-head"><span class="masrl-step-number">Step '
                f"{step.number:,}</span> {agent} {html_text(words_visible(step.heading))}</div>")
        marks = "".join(f'<p class="masrl-step-label"><strong>Labelled</strong> '
                        f"{html_text(words_visible(label_sentence(label)))}</p>"
                        for label in step.labels)
        said = ""
        if step.text == "":
            said = '<p class="masrl-step-label">Its text is empty.</p>'
        elif step.text is not None:
            notes = [f"{len(step.text):,} characters"]
            if step.truncated:
                notes.append(f"cut: the whole text is {_bytes(step.size)}")
            if step.untrusted:
                notes.append("from a source the trace marks untrusted")
            cut = (f'<span class="masrl-cut">[cut here: the whole text is {_bytes(step.size)}; '
                   f"the trace keeps its first {len(step.text.encode('utf-8', 'surrogatepass')):,}"
                   " bytes]</span>" if step.truncated else "")
            said = (f'<details class="masrl-said"><summary>Read its text ({", ".join(notes)})'
                    f'</summary><pre class="masrl-said-text">'
                    f"{html_text(words_visible(step.text))}{cut}</pre></details>")
        labelled = " masrl-labelled" if step.labels else ""
        return f'<li class="masrl-step{labelled}">{head}{marks}{said}</li>'

    def _repr_html_(self) -> str:
        parts = []
        for shown, steps in self.runs():
            items = "".join(self.item_html(step) for step in steps)
            if shown:
                parts.append(f"<ul>{items}</ul>")
            else:
                first, last = steps[0].number, steps[-1].number
                which = f"step {first:,}" if first == last else f"steps {first:,} to {last:,}"
                parts.append(f'<details class="masrl-gap"><summary>Show {which}</summary>'
                             f"<ul>{items}</ul></details>")
        return (f"<style>{STEP_STYLE}</style>"
                f'<div class="masrl-steps">{"".join(parts)}</div>')

    def __repr__(self) -> str:
        lines = []
        for step in self.steps:
            lines.append(f"Step {step.number:,}, {names.shown(step.agent)}: {step.heading}")
            lines += [f"  labelled {label_sentence(label)}" for label in step.labels]
            if step.text is not None:
                lines.append(f"  text: {len(step.text):,} characters"
                             + (" (cut)" if step.truncated else ""))
        return "\n".join(words_visible(line) for line in lines)


class Bullets:
    """Lines of plain text as a list, one item each."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def _repr_html_(self) -> str:
        items = "".join(f"<li>{html_text(words_visible(line))}</li>" for line in self.lines)
        return f'<ul class="masrl-bullets">{items}</ul>'

    def __repr__(self) -> str:
        return "\n".join(f"- {words_visible(line)}" for line in self.lines)


class FullNames:
    """The names a page shortens (:mod:`.names`), each beside its full text, in a table folded
    away in a ``<details>`` element the reader opens: the one place the page gives them in
    full, so that a long name is reachable without lengthening the page."""

    def __init__(self, pairs: list[tuple[str, str]]):
        self.pairs = pairs

    def table(self) -> Table:
        return table(["shown as", "characters", "full name"], ["code", "count", "code"],
                     [[short, formatted(len(full), "count"), full] for short, full in self.pairs],
                     "The long names of the trace, in full")

    def _repr_html_(self) -> str:
        return (f'<details class="masrl-more masrl-full-names"><summary>Show the '
                f"{len(self.pairs):,} long {'name' if len(self.pairs) == 1 else 'names'} "
                f"in full</summary>{self.table()._repr_html_()}</details>")

    def __repr__(self) -> str:
        return "\n".join(f"{words_visible(short)}: {len(full):,} characters"
                         for short, full in self.pairs)
