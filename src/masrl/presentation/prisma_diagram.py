"""The PRISMA 2020 flow diagram, drawn as SVG by the package from :mod:`masrl.analyses.prisma`.

One diagram per screening round: the main column runs identification -> screening ->
eligibility -> inclusion, each exclusion sits to its right (on a phone, under its step, set in:
the diagram is drawn twice, wide and narrow, and the page shows the one that fits, as it does
for charts); from round 1 on, a box above
holds the studies of the previous version of the review and a box below the total, as PRISMA
2020's flow for updated reviews draws them. The SVG is plain markup written here (boxes,
arrows, text: every text escaped), so it renders offline, in the book and in a notebook,
with no JavaScript; its text alternative names every number. This module draws only this
diagram and shares nothing with the chart builders, whose style may change apart.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from masrl.analyses.prisma import RoundFlow

WIDTH = 760
BOX = 340  # width of a box
GAP = 40  # between the two columns
LINE = 17  # height of a line of text
PAD = 10
LEFT, RIGHT = 10, 10 + BOX + GAP
NARROW_WIDTH = 340  # the narrow drawing: one column, each exclusion under its step
NARROW_BOX, INDENT = 320, 26
ARROW = "masrl-prisma-arrow"  # the arrowhead's id, suffixed per drawing
FONT = "font-family:sans-serif;font-size:13px"
COLOURS = {"main": "#e8f1fa", "out": "#fbeee6", "review": "#eaf5ee"}  # light fills, dark text



def rule_name(rule: str, labels: Mapping[str, str] | None = None) -> str:
    """An exclusion rule as readers see it: its label in ``labels`` (the vocabulary's, as the
    book's tables show it), else its id as words (``prompted_only`` -> ``prompted only``)."""
    return (labels or {}).get(rule) or rule.replace("_", " ")


def _box(x: int, y: int, lines: list[str], kind: str, width: int = BOX) -> tuple[str, int]:
    """A box of ``lines`` (the first in bold) at ``(x, y)``; its markup and its height."""
    height = PAD * 2 + LINE * len(lines)
    parts = [f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="4" '
             f'fill="{COLOURS[kind]}" stroke="#333" stroke-width="1"/>']
    for i, text in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        parts.append(f'<text x="{x + PAD}" y="{y + PAD + LINE * (i + 1) - 4}"{weight}>'
                     f"{html.escape(text)}</text>")
    return "".join(parts), height


def _arrow(x1: int, y1: int, x2: int, y2: int) -> str:
    """A line with an arrowhead (the marker :data:`ARROW`, made unique per drawing by
    :meth:`Diagram._svg`: a page holds several drawings, some hidden)."""
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#333" stroke-width="1.2" '
            f'marker-end="url(#{ARROW})"/>')


def rows(flow: RoundFlow, rule_labels: Mapping[str, str] | None = None
         ) -> list[tuple[list[str], list[str] | None]]:
    """The diagram's rows: (main box lines, exclusion box lines or ``None``), top to bottom;
    exclusion rules named by :func:`rule_name`."""
    identified = [f"Records identified (n = {flow.total_identified})"]
    if flow.searches:
        identified.append(f"  from {flow.searches} queries ({flow.hits} results)")
    identified += [f"  {source}: {n}" for source, n in flow.identified.items() if n]
    excluded = [f"Reports excluded (n = {flow.total_excluded_with_reasons})"]
    excluded += [f"  {rule_name(rule, rule_labels)}: {n}"
                 for rule, n in flow.excluded_with_reasons.items()]
    earlier = "round 0" if flow.round == 1 else f"rounds 0 to {flow.round - 1}"
    previous = ([f"Studies in the previous version (n = {flow.previous})", f"  {earlier}"]
                if flow.round > 0 else None)
    out: list[tuple[list[str], list[str] | None]] = [
        (identified, [f"Duplicates removed (n = {flow.duplicates})"]
         + ([f"Records not assessable (n = {flow.not_assessable})",
             "  identity not established"] if flow.not_assessable else [])
         + ([f"  awaiting screening: {flow.pending}"] if flow.pending else [])),
        ([f"Records screened (n = {flow.screened})", "  on title and abstract"],
         [f"Records excluded (n = {flow.excluded_on_abstract})", "  on title and abstract"]),
        ([f"Reports assessed for eligibility (n = {flow.assessed})",
          "  full text, or the artifact"], excluded),
        ([f"New studies included (n = {flow.included})"], previous),
    ]
    if flow.round > 0:
        out.append(([f"Studies in the review (n = {flow.total_included})",
                     f"  {flow.previous} previous + {flow.included} new"], None))
    return out


def description(flow: RoundFlow, rule_labels: Mapping[str, str] | None = None) -> str:
    """The text alternative: every number of the diagram, in reading order."""
    parts = []
    if flow.round > 0:
        parts.append(f"{flow.previous} studies in the previous version of the review")
    sources = ", ".join(f"{source} {n}" for source, n in flow.identified.items() if n)
    parts.append(f"{flow.total_identified} records identified ({sources})")
    parts.append(f"{flow.duplicates} duplicates removed")
    if flow.not_assessable:
        parts.append(f"{flow.not_assessable} records not assessable (identity not established)")
    parts.append(f"{flow.screened} screened, {flow.excluded_on_abstract} excluded on title and abstract")
    reasons = ", ".join(f"{rule_name(r, rule_labels)} {n}"
                        for r, n in flow.excluded_with_reasons.items())
    parts.append(f"{flow.assessed} assessed for eligibility, {flow.total_excluded_with_reasons} "
                 f"excluded with reasons" + (f" ({reasons})" if reasons else ""))
    parts.append(f"{flow.included} new studies included")
    if flow.round > 0:
        parts.append(f"{flow.total_included} studies in the review")
    return "; ".join(parts) + "."


class Diagram:
    """One round's PRISMA flow as inline SVG (HTML in the book, its text alternative as text);
    ``rule_labels`` names the exclusion rules as the vocabulary labels them."""

    def __init__(self, flow: RoundFlow, rule_labels: Mapping[str, str] | None = None):
        self.flow = flow
        self.rule_labels = rule_labels
        self.title = f"PRISMA 2020 flow, screening round {flow.round} ({flow.label}, {flow.date})"
        self.description = description(flow, rule_labels)
        self.svg = self._svg(*self._draw(), WIDTH, "wide")
        self.narrow_svg = self._svg(*self._draw_narrow(), NARROW_WIDTH, "narrow")

    def _draw(self) -> tuple[list[str], int]:
        parts, y, previous_bottom, review_bottom = [], 10, None, None
        for main, side in rows(self.flow, self.rule_labels):
            kind = "review" if main[0].startswith("Studies in") else "main"
            box, height = _box(LEFT, y, main, kind)
            side_height = 0
            if side is not None and side[0].startswith("Studies in"):  # the previous version
                side_box, side_height = _box(RIGHT, y, side, "review")
                parts.append(side_box)
                review_bottom = y + side_height
            elif side is not None:
                side_box, side_height = _box(RIGHT, y, side, "out")
                parts.append(side_box)
                parts.append(_arrow(LEFT + BOX, y + 20, RIGHT - 2, y + 20))
            parts.append(box)
            if previous_bottom is not None:
                parts.append(_arrow(LEFT + BOX // 2, previous_bottom, LEFT + BOX // 2, y - 2))
            if review_bottom is not None and main[0].startswith("Studies in the review"):
                # the previous version joins the new studies in the review's total
                parts.append(_arrow(RIGHT + BOX // 2, review_bottom, LEFT + BOX + 2, y + 20))
            previous_bottom = y + height
            y += max(height, side_height) + 28
        return parts, y - 18

    def _draw_narrow(self) -> tuple[list[str], int]:
        """One column: each step's box, then its exclusion (or the previous version) under it,
        set in; the main flow runs down the left edge, past the set-in boxes."""
        parts, y, previous_bottom, review_bottom = [], 10, None, None
        spine = LEFT + INDENT // 2
        side_x, side_width = LEFT + INDENT, NARROW_BOX - INDENT
        for main, side in rows(self.flow, self.rule_labels):
            kind = "review" if main[0].startswith("Studies in") else "main"
            if previous_bottom is not None:
                parts.append(_arrow(spine, previous_bottom, spine, y - 2))
            if review_bottom is not None and main[0].startswith("Studies in the review"):
                parts.append(_arrow(side_x + side_width // 2, review_bottom,
                                    side_x + side_width // 2, y - 2))
            box, height = _box(LEFT, y, main, kind, NARROW_BOX)
            parts.append(box)
            previous_bottom = y + height
            y += height + 22
            if side is not None:
                review = side[0].startswith("Studies in")
                side_box, side_height = _box(side_x, y, side, "review" if review else "out",
                                             side_width)
                parts.append(side_box)
                if review:
                    review_bottom = y + side_height
                else:
                    middle = side_x + side_width // 2
                    parts.append(_arrow(middle, y - 22, middle, y - 2))
                y += side_height + 22
        return parts, y - 12

    def _svg(self, parts: list[str], total: int, width: int, layout: str) -> str:
        label = html.escape(f"{self.title}. {self.description}", quote=True)
        marker = f"{ARROW}-{self.flow.round}-{layout}"
        body = "".join(parts).replace(f"url(#{ARROW})", f"url(#{marker})")
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
                f'viewBox="0 0 {width} {total}" role="img" aria-label="{label}" style="{FONT}">'
                f'<defs><marker id="{marker}" markerWidth="8" markerHeight="8" refX="7" '
                'refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>'
                + body + "</svg>")

    def _repr_html_(self) -> str:
        label = html.escape(f"{self.title}. {self.description}", quote=True)
        return (f'<figure class="masrl-chart masrl-prisma" role="img" aria-label="{label}">'
                f'<div class="masrl-static"><div class="masrl-wide">{self.svg}</div>'
                f'<div class="masrl-narrow">{self.narrow_svg}</div></div>'
                f'<figcaption class="masrl-caption"><span class="masrl-title">'
                f"{html.escape(self.title)}</span></figcaption></figure>")

    def __repr__(self) -> str:
        return f"Diagram: {self.title}. {self.description}"
