"""The claims ledger as readers see it: values in words, the ledger with a link to the
chapter behind each claim, one status line.

A computed value is never shown as JSON in the book: :func:`in_words` words it as its
computation says (:data:`WORDINGS`, one entry per computation of :mod:`masrl.analyses.claims`
whose value a generic wording would leave unclear), else by :func:`describe`. The command line
keeps the exact JSON (:func:`compact`), which scripts read.
"""

from __future__ import annotations

import html
import json
import posixpath
from collections.abc import Callable
from typing import Any

import pandas as pd

from masrl.analyses.claims import SKIP, Result, summary
from masrl.data import book_toc
from masrl.data.claims import ORIGINS
from masrl.presentation import tables
from masrl.presentation.escaping import breakable


def compact(value: Any) -> str:
    """A value as one short line of JSON (for the command line)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def humanise(key: str) -> str:
    """A key as words: underscores become spaces (``broad_only`` -> ``broad only``)."""
    return str(key).replace("_", " ")


def listing(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; ``none`` for no item."""
    items = [str(i) for i in items]
    if not items:
        return "none"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def describe(value: Any) -> str:
    """Any computed value in words, with no JSON punctuation: a number as written, a list as
    ``a, b and c`` (``none`` when empty), a list of lists as its inner lists in parentheses, a
    mapping as ``key: value`` pairs separated by semicolons, keys humanised
    (``{"broad": 7, "broad_only": ["a", "b"]}`` -> ``broad: 7; broad only: a and b``)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "; ".join(f"{humanise(k)}: {describe(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (list, tuple)) for v in value):
            return listing([f"({', '.join(describe(x) for x in v)})" for v in value])
        return listing([describe(v) for v in value])
    return str(value)


def _none_or(what: str, words: Callable[[list], str]) -> Callable[[Any], str]:
    return lambda value: f"no {what}" if not value else words(value)


# computation -> how its value reads; each follows the computation's docstring
WORDINGS: dict[str, Callable[[Any], str]] = {
    "totals": lambda v: (f"{v['retained']} retained and {v['excluded']} excluded, "
                         f"{v['audited']} audited records"),
    "published_mismatches": _none_or(
        "published figure differs", lambda v: f"{len(v)} differ: {listing(v)}"),
    "credit_cell": lambda v: f"{v['broad']} papers under the broad reading, {v['strict']} "
                             "under the strict one",
    "reading_moves": _none_or("row moves", lambda v: "; ".join(
        f"{key} moves from {broad} to {other}" for key, broad, other in v)),
    "credit_units_order": lambda v: " → ".join(v),
    "open_benchmarks_covering_all": _none_or("open benchmark", listing),
    "spotcheck_agreement": lambda v: "; ".join(
        f"{humanise(field)}: {agree} of {rows}" for field, (agree, rows) in v.items()),
    "spotcheck_disagreements": _none_or("disagreement", lambda v: "; ".join(
        f"{key}, {humanise(field)}: ours {ours}, the second reader's {theirs}"
        for key, field, ours, theirs in v)),
    "strict_reading_disagreements": _none_or("disagreement", listing),
    "scale_gap_orders": lambda v: "; ".join(
        f"{humanise(k)}: {x:g} orders of magnitude" for k, x in v.items()),
    "who_and_when_random": lambda v: f"{v:.2f}%",
    "who_and_when_fractions_off": _none_or("published figure", lambda v: listing(
        [f"{method} ({level})" for method, _, level in (f.partition("/") for f in v)])),
}


def in_words(computation: str, value: Any) -> str:
    """The value of one computation in words (:data:`WORDINGS`, else :func:`describe`)."""
    if value is None:
        return "nothing"
    wording = WORDINGS.get(computation)
    try:
        return wording(value) if wording else describe(value)
    except (KeyError, TypeError, ValueError):  # a value of another shape than documented
        return describe(value)


def computed_words(result: Result) -> str:
    """What the ledger shows as computed: the value in words, or why nothing was computed."""
    if result.computed is None:
        return result.message or "nothing was computed"
    return in_words(result.claim.computation, result.computed)


def expected_words(result: Result) -> str:
    return in_words(result.claim.computation, result.claim.expected)


def finding_words(result: Result) -> str:
    """The finding of a claim in a sentence ("" without one)."""
    finding = result.claim.finding
    if finding is None:
        return ""
    states = in_words(result.claim.computation, finding.artifact_states)
    return f"{finding.where} states {states}. {finding.explanation}"


def chapter_href(chapter: str, here: str) -> str:
    """The relative address of a chapter's page from the page of chapter ``here``."""
    return posixpath.relpath(f"{chapter}.html", posixpath.dirname(here) or ".")


class Ledger:
    """The evaluated claims as one table a reader can follow: per claim its id and full
    statement, its computed value in words (and, when it fails, the value the survey gives),
    its boundary, its status and a link to the chapter that computes it. ``here`` is the
    chapter showing the table (links are relative to its page). With ``keys`` (the pool's
    paper keys), a key named in a statement or a computed value links to its bibliography
    entry. Every text is escaped."""

    COLUMNS = ["claim", "computed", "boundary", "status", "computed in"]
    CAPTION = "The claims ledger: each claim, its value computed from the data, its boundary"

    def __init__(self, results: list[Result], here: str, root=None,
                 keys: set[str] | frozenset[str] = frozenset(), caption: str = CAPTION):
        self.results = results
        self.here = here
        self.keys = frozenset(keys)
        self.caption = caption
        self.titles = {c: book_toc.title(c, root) for c in {r.claim.chapter for r in results}}

    def rows(self) -> list[dict[str, str]]:
        rows = []
        for r in self.results:
            computed = computed_words(r)
            if r.failed:
                computed += f" (the survey gives {expected_words(r)})"
            if r.claim.finding is not None:
                computed += f". Finding: {finding_words(r)}"
            rows.append({"id": r.claim.id, "statement": r.claim.statement,
                         "origin": f"expected value from {ORIGINS[r.claim.origin]}",
                         "computed": computed,
                         "boundary": r.claim.boundary, "status": r.status,
                         "chapter": r.claim.chapter, "title": self.titles[r.claim.chapter]})
        return rows

    def frame(self) -> pd.DataFrame:
        """The ledger as text, one row per claim (the plain-text form)."""
        return pd.DataFrame([{"claim": f"{row['id']}: {row['statement']}",
                              "computed": row["computed"], "boundary": row["boundary"],
                              "status": row["status"], "computed in": row["title"]}
                             for row in self.rows()], columns=self.COLUMNS)

    def __repr__(self) -> str:
        return "\n\n".join(f"{row['status']} {row['id']}: {row['statement']}\n"
                            f"  computed: {row['computed']}\n  boundary: {row['boundary']}\n"
                            f"  computed in: {row['title']} ({row['chapter']})"
                            for row in self.rows())

    def _repr_html_(self) -> str:
        esc = html.escape

        def cited(text: str) -> str:  # long names may break after "_", "/" or "."
            return breakable(tables.cite_text_html(text, self.keys))

        # the statement and what was computed are paragraphs: they get the room
        # (book/_static/masrl.css, tables with long text)
        widths = ["masrl-long", "masrl-long", "masrl-medium", "masrl-nowrap", ""]
        head = "".join(f'<th class="masrl-text {w}" scope="col">{esc(c)}</th>'
                       for c, w in zip(self.COLUMNS, widths))
        labels = [esc(c, quote=True) for c in self.COLUMNS]  # each cell's column, on a phone
        body = []
        for row in self.rows():
            href = chapter_href(row["chapter"], self.here)
            body.append(
                f'<tr class="masrl-claim masrl-{esc(row["status"].lower())}">'
                f'<td class="masrl-text masrl-long" data-label="{labels[0]}">'
                f'<strong>{esc(row["id"])}</strong><br>'
                f'{cited(row["statement"])}<br><small>{esc(row["origin"])}</small></td>'
                f'<td class="masrl-text masrl-long" data-label="{labels[1]}">{cited(row["computed"])}</td>'
                f'<td class="masrl-text masrl-medium" data-label="{labels[2]}">{esc(row["boundary"])}</td>'
                f'<td class="masrl-status masrl-nowrap" data-label="{labels[3]}">{esc(row["status"])}</td>'
                f'<td class="masrl-text" data-label="{labels[4]}"><a href="{esc(href, quote=True)}">'
                f'{esc(row["title"])}</a></td></tr>')
        return (f'<div class="masrl-table-wrap"><table class="masrl-table masrl-has-long '
                f'masrl-ledger"><caption class="masrl-caption">{esc(self.caption)}</caption>'
                f"<thead><tr>{head}</tr></thead>"
                f'<tbody>{"".join(body)}</tbody></table></div>')


def results_table(results: list[Result]) -> pd.DataFrame:
    """The evaluated ledger as a table of words: id, statement, expected, computed, status,
    boundary, finding, chapter."""
    rows = []
    for r in results:
        rows.append({"id": r.claim.id, "statement": r.claim.statement,
                     "expected": expected_words(r), "computed": computed_words(r),
                     "status": r.status, "boundary": r.claim.boundary,
                     "finding": finding_words(r), "chapter": r.claim.chapter})
    return pd.DataFrame(rows).set_index("id")


def status_figures(results: list[Result]) -> dict[str, int | str]:
    """The counts of :func:`masrl.analyses.claims.summary` (``n_claims``, ``n_passed``...),
    the ids of the claims that do not pass (``failed_ids``, "none") and the number of
    recorded findings that still hold (``n_findings_holding``)."""
    figures: dict[str, int | str] = {f"n_{name}": n for name, n in summary(results).items()}
    figures["failed_ids"] = listing([r.claim.id for r in results if not r.passed])
    figures["n_findings_holding"] = sum(bool(r.finding_holds) for r in results)
    return figures


def findings_table(results: list[Result]) -> pd.DataFrame:
    """One row per claim with a finding: where the survey's artifact (or a paper) states a
    value, that value and ours in words, the explanation, and whether the contradiction still
    holds on the data."""
    rows = [{"claim": r.claim.id, "where": r.claim.finding.where,
             "states": in_words(r.claim.computation, r.claim.finding.artifact_states),
             "computed": computed_words(r),
             "still holds": {True: "yes", False: "no", None: "not checked"}[r.finding_holds],
             "explanation": r.claim.finding.explanation}
            for r in results if r.claim.finding is not None]
    return pd.DataFrame(rows, columns=["claim", "where", "states", "computed", "still holds",
                                       "explanation"]).set_index("claim")


class Banner:
    """A warning at the top of the ledger when claims fail as of the book's date: which ones,
    and the rows of later screening rounds that change them (``changed_by``); nothing (an empty
    page element) when every claim holds. Every text is escaped."""

    def __init__(self, results: list[Result], as_of: str, cutoff: str,
                 changed_by: dict[str, tuple[str, ...]] | None = None, link: str = ""):
        self.failed = [r for r in results if r.failed]
        self.as_of, self.cutoff, self.link = as_of, cutoff, link
        self.changed_by = changed_by or {}

    def lines(self) -> list[str]:
        out = []
        for r in self.failed:
            rows = self.changed_by.get(r.claim.id)
            why = (f"changed since the cut-off by {listing(list(rows))}" if rows
                   else "the data differs from the expected value")
            out.append(f"{r.claim.id}: {why}")
        return out

    def heading(self) -> str:
        return (f"{len(self.failed)} of the survey's claims do not hold on the pool as of "
                f"{self.as_of}; they held at the survey's cut-off ({self.cutoff}) unless said "
                "otherwise.")

    def _repr_html_(self) -> str:
        if not self.failed:
            return '<div class="masrl-banner masrl-banner-clear"></div>'
        esc = html.escape
        items = "".join(f"<li>{esc(line)}</li>" for line in self.lines())
        more = (f'<p>What changed, row by row: <a href="{esc(self.link, quote=True)}">Since the '
                "cut-off</a>.</p>" if self.link else "")
        return (f'<div class="admonition warning masrl-banner" role="alert">'
                f'<p class="admonition-title">{esc(self.heading())}</p><ul>{items}</ul>{more}</div>')

    def __repr__(self) -> str:
        if not self.failed:
            return f"Every claim holds as of {self.as_of}."
        return "\n".join([self.heading(), *(f"- {line}" for line in self.lines())])


def status_line(results: list[Result]) -> str:
    """One line saying whether the ledger holds: every claim passes, or which fail (skipped
    claims, whose data is absent, are counted apart)."""
    s = summary(results)
    if not s["failed"] and s["skipped"]:
        return (f"PASS: all {s['passed']} claims that could be checked hold; {s['skipped']} "
                "skipped (their data is absent).")
    if not s["failed"]:
        return f"PASS: all {s['claims']} claims hold."
    failed = ", ".join(r.claim.id for r in results if r.failed)
    return f"FAIL: {s['failed']} of {s['claims']} claims fail: {failed}"


def text_lines(results: list, changed_by: dict[str, tuple[str, ...]] | None = None,
               as_of: str = "") -> list[str]:
    """``STATUS id: computed`` per claim (plus what was expected when it fails, the rows of later
    rounds that change it (``changed_by``), and any finding), then one summary line that says
    the date (``as_of``); ``results`` are :class:`masrl.analyses.claims.Result` objects."""
    changed_by = changed_by or {}
    width = max((len(r.claim.id) for r in results), default=0)
    lines = []
    for r in results:
        head = f"{r.status} {r.claim.id:<{width}}"
        if r.passed:
            line = f"{head}  {compact(r.computed)}"
        elif r.status == SKIP or r.computed is None:
            line = f"{head}  {r.message}"
        else:
            line = (f"{head}  expected {compact(r.claim.expected)}, "
                    f"computed {compact(r.computed)}")
        if r.claim.id in changed_by:
            line += f"  [changed since the cut-off by {', '.join(changed_by[r.claim.id])}]"
        if r.claim.finding is not None:
            f = r.claim.finding
            line += f"  [finding: {f.where} states {compact(f.artifact_states)}]"
        lines.append(line)
    s = summary(results)
    skipped = f", {s['skipped']} skipped (data absent)" if s["skipped"] else ""
    external = sum(r.claim.external is not None for r in results)
    when = f"; as of {as_of}" if as_of else ""
    lines.append(f"{s['claims']} claims: {s['passed']} pass, {s['failed']} fail{skipped}; "
                 f"{s['findings']} finding(s) about the survey's artifact or another paper; "
                 f"{external} external claim(s){when}")
    return lines
