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
from masrl.wording import count


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


FOLD = 8  # a list longer than this shows as its count, with the items in a fold-out


def folded_html(words: str, items: list[str], keys=frozenset(), noun: str = "items") -> str:
    """``words`` escaped; when ``items`` is longer than :data:`FOLD`, the count instead, with
    the items in a ``<details>`` fold-out that wraps (no long line widens the table)."""
    if len(items) <= FOLD:
        return tables.cite_text_html(words, keys)
    listed = "".join(f"<li>{tables.cite_text_html(str(i), keys)}</li>" for i in items)
    return (f'<details class="masrl-fold"><summary>{len(items)} {noun}</summary>'
            f'<ul class="masrl-fold-list">{listed}</ul></details>')


def _items(result: Result, value) -> list[str]:
    """The items of a computed list (the published figures that differ, say), for folding."""
    return [str(v) for v in value] if isinstance(value, list) and all(
        isinstance(v, str) for v in value) else []


class Ledger:
    """The evaluated claims as one table a reader can follow: per claim its id and full
    statement, where its expected value comes from (the survey's text or artifact, this project,
    another paper), its computed value in words (and, when it fails, the value expected), its
    boundary, its status and a link to the chapter that computes it. With ``then`` (the results
    at the cut-off) the table sets the cut-off and the view side by side, each value with its
    status; a CHANGED claim names the rows that change it (a long list folds). ``here`` is the
    chapter showing the table (links are relative to its page). With ``keys`` (the pool's paper
    keys), a key named in a statement or a value links to its bibliography entry. Every text is
    escaped."""

    COLUMNS = ["claim", "computed", "boundary", "status", "computed in"]
    CAPTION = "The claims ledger: each claim, its value computed from the data, its boundary"

    def __init__(self, results: list[Result], here: str, root=None,
                 keys: set[str] | frozenset[str] = frozenset(), caption: str = CAPTION,
                 then: list[Result] | None = None, labels: tuple[str, str] = ("", "")):
        self.results = results
        self.then = then
        self.labels = labels
        self.here = here
        self.keys = frozenset(keys)
        self.caption = caption
        self.titles = {c: book_toc.title(c, root) for c in {r.claim.chapter for r in results}}

    def rows(self) -> list[dict[str, str]]:
        rows = []
        for r in self.results:
            computed = computed_words(r)
            if r.failed and r.computed is not None:
                computed += f" (expected: {expected_words(r)})"
            if r.changed:
                computed += f"; changed by {listing(list(r.changed_by))}"
            if r.claim.finding is not None:
                computed += f". Finding: {finding_words(r)}"
            rows.append({"id": r.claim.id, "statement": r.claim.statement,
                         "origin": origin_words(r), "computed": computed,
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

    def _value_html(self, r: Result) -> str:
        """One result's value cell: the value in words (a long list folded), the expected
        value of a failure, the rows of a change (folded when many), any finding."""
        esc = html.escape
        value = r.computed if r.computed is not None else None
        items = _items(r, value)
        words = computed_words(r)
        out = folded_html(words, items, self.keys) if items else tables.cite_text_html(words, self.keys)
        if r.failed and r.computed is not None:
            out += f" <small>(expected: {esc(expected_words(r))})</small>"
        if r.changed:
            rows = list(r.changed_by)
            named = folded_html(listing(rows), rows, self.keys, noun="rows")
            out += f'<br><small class="masrl-changed-by">changed by {named}</small>'
        if r.pinned:
            out += '<br><small>pinned to the cut-off</small>'
        return out

    def _repr_html_(self) -> str:
        esc = html.escape
        def cited(text: str) -> str:  # long names may break after "_", "/" or "."
            return breakable(tables.cite_text_html(text, self.keys))

        side = self.then is not None
        if side:
            heads = ["claim", self.labels[0] or "at the cut-off", self.labels[1] or "now",
                     "boundary", "computed in"]
            widths = ["masrl-long", "masrl-long", "masrl-long", "masrl-medium", ""]
        else:
            heads = self.COLUMNS
            # the statement and what was computed are paragraphs: they get the room
            # (book/_static/masrl.css, tables with long text)
            widths = ["masrl-long", "masrl-long", "masrl-medium", "masrl-nowrap", ""]
        head = "".join(f'<th class="masrl-text {w}" scope="col">{esc(c)}</th>'
                       for c, w in zip(heads, widths))
        labels = [esc(c, quote=True) for c in heads]  # each cell's column, on a phone
        then = {r.claim.id: r for r in (self.then or [])}
        body = []
        for r, row in zip(self.results, self.rows()):
            href = chapter_href(row["chapter"], self.here)
            claim = (f'<td class="masrl-text masrl-long" data-label="{labels[0]}">'
                     f'<strong>{esc(row["id"])}</strong><br>'
                     f'{cited(row["statement"])}<br>'
                     f'<small>{esc(row["origin"])}</small></td>')
            if side:
                before = then[r.claim.id]
                cells = (f'<td class="masrl-text masrl-long masrl-{esc(before.status.lower())}" '
                         f'data-label="{labels[1]}">'
                         f'<span class="masrl-status">{esc(before.status)}</span> '
                         f'{self._value_html(before)}</td>'
                         f'<td class="masrl-text masrl-long masrl-{esc(r.status.lower())}" '
                         f'data-label="{labels[2]}">'
                         f'<span class="masrl-status">{esc(r.status)}</span> '
                         f'{self._value_html(r)}</td>')
                rest = (f'<td class="masrl-text masrl-medium" data-label="{labels[3]}">'
                        f'{esc(row["boundary"])}</td>')
            else:
                cells = (f'<td class="masrl-text masrl-long" data-label="{labels[1]}">'
                         f'{self._value_html(r)}</td>')
                rest = (f'<td class="masrl-text masrl-medium" data-label="{labels[2]}">'
                        f'{esc(row["boundary"])}</td>'
                        f'<td class="masrl-status masrl-nowrap" data-label="{labels[3]}">'
                        f'{esc(row["status"])}</td>')
            link = (f'<td class="masrl-text" data-label="{labels[-1]}"><a href="{esc(href, quote=True)}">'
                    f'{esc(row["title"])}</a></td>')
            body.append(f'<tr class="masrl-claim masrl-{esc(row["status"].lower())}">'
                        f'{claim}{cells}{rest}{link}</tr>')
        return (f'<div class="masrl-table-wrap"><table class="masrl-table masrl-has-long '
                f'masrl-ledger"><caption class="masrl-caption">{esc(self.caption)}</caption>'
                f"<thead><tr>{head}</tr></thead>"
                f'<tbody>{"".join(body)}</tbody></table></div>')


def origin_words(result: Result) -> str:
    """Whose claim it is: the survey's (its text or its artifact), this project's own, or
    another paper's."""
    origin = result.claim.origin
    whose = ("a claim of the survey" if origin.startswith("survey")
             else "this project's own claim" if origin == "project" else "another paper's claim")
    return f"{whose}; expected value from {ORIGINS[origin]}"


def origin_counts(results: list[Result]) -> dict[str, int]:
    """How many claims are the survey's, this project's own, and other papers'."""
    counts = {"survey": 0, "project": 0, "other_paper": 0}
    for r in results:
        origin = r.claim.origin
        counts["survey" if origin.startswith("survey") else origin] += 1
    return counts


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
    """A note at the top of the ledger: the claims that fail (a warning) and the claims that
    changed since the cut-off with the rows that change them (a neutral note: the field moved,
    the survey was not wrong); nothing (an empty page element) when every claim holds. Every
    text is escaped."""

    def __init__(self, results: list[Result], as_of: str, cutoff: str, link: str = ""):
        self.failed = [r for r in results if r.failed]
        self.changed = [r for r in results if r.changed]
        self.as_of, self.cutoff, self.link = as_of, cutoff, link

    def lines(self) -> list[str]:
        out = [f"{r.claim.id}: fails; {r.message or 'the data differs from the expected value'}"
               for r in self.failed]
        out += [f"{r.claim.id}: changed by {listing(list(r.changed_by))}" for r in self.changed]
        return out

    def heading(self) -> str:
        parts = []
        if self.failed:
            parts.append(f"{count(len(self.failed), 'claim')} "
                         f"{'fails' if len(self.failed) == 1 else 'fail'}")
        if self.changed:
            parts.append(f"{count(len(self.changed), 'claim')} held at the survey's cut-off "
                         f"({self.cutoff}) and changed by {self.as_of}")
        return "; ".join(parts) + "."

    def _repr_html_(self) -> str:
        if not self.failed and not self.changed:
            return '<div class="masrl-banner masrl-banner-clear"></div>'
        esc = html.escape
        items = "".join(f"<li><strong>{esc(r.claim.id)}</strong>: fails; "
                        f"{esc(r.message or 'the data differs from the expected value')}</li>"
                        for r in self.failed)
        items += "".join(f"<li><strong>{esc(r.claim.id)}</strong>: changed by "
                         f"{folded_html(listing(list(r.changed_by)), list(r.changed_by), noun='rows')}</li>"
                         for r in self.changed)
        more = (f'<p>What changed, row by row: <a href="{esc(self.link, quote=True)}">Since the '
                "cut-off</a>.</p>" if self.link else "")
        kind = "warning" if self.failed else "note"
        return (f'<div class="admonition {kind} masrl-banner" role="{"alert" if self.failed else "note"}">'
                f'<p class="admonition-title">{esc(self.heading())}</p><ul>{items}</ul>{more}</div>')

    def __repr__(self) -> str:
        if not self.failed and not self.changed:
            return f"Every claim holds as of {self.as_of}."
        return "\n".join([self.heading(), *(f"- {line}" for line in self.lines())])


def status_line(results: list[Result]) -> str:
    """One line saying whether the ledger holds: every claim passes, or which change (held at
    the cut-off, differ on the view) and which fail; skipped claims, whose data is absent, are
    counted apart. The line is never cut: a long list of ids wraps where the page ends."""
    s = summary(results)
    parts = []
    if s["changed"]:
        parts.append(f"{s['changed']} changed since the cut-off "
                     f"({', '.join(r.claim.id for r in results if r.changed)})")
    if s["skipped"]:
        parts.append(f"{s['skipped']} skipped (their data is absent)")
    if s["failed"]:
        failed = ", ".join(r.claim.id for r in results if r.failed)
        return "; ".join([f"FAIL: {s['failed']} of {s['claims']} claims fail ({failed})", *parts]) + "."
    if not parts:
        return f"PASS: all {s['claims']} claims hold."
    if not s["changed"]:
        return (f"PASS: all {s['passed']} claims that could be checked hold; {s['skipped']} "
                "skipped (their data is absent).")
    return "; ".join([f"PASS: {s['passed']} of {s['claims']} claims hold, none fails", *parts]) + "."


def text_lines(results: list, view: str = "") -> list[str]:
    """``STATUS id: computed`` per claim (plus what was expected when it fails; for a CHANGED
    claim its value at the cut-off and the rows that change it; ``pinned`` for a claim pinned to
    the cut-off; any finding), then one summary line that names the view (``view``, e.g. ``as
    screened on 2026-12-04 (rounds 0-1)``); ``results`` are
    :class:`masrl.analyses.claims.Result` objects."""
    width = max((len(r.claim.id) for r in results), default=0)
    status_width = max((len(r.status) for r in results), default=0)
    lines = []
    for r in results:
        head = f"{r.status:<{status_width}} {r.claim.id:<{width}}"
        if r.passed:
            line = f"{head}  {compact(r.computed)}"
        elif r.changed:
            line = (f"{head}  at the cut-off {compact(r.at_cutoff)}, "
                    f"now {compact(r.computed)}")
        elif r.status == SKIP or r.computed is None:
            line = f"{head}  {r.message}"
        else:
            line = (f"{head}  expected {compact(r.claim.expected)}, "
                    f"computed {compact(r.computed)}")
        if r.changed:
            added = [row for row in r.changed_by if row not in r.left_out]
            why = []
            if added:
                why.append(f"added: {', '.join(added)}")
            if r.left_out:
                why.append(f"left out: {', '.join(r.left_out)}")
            line += f"  [changed by rows {'; '.join(why)}]"
        if r.claim.pinned:
            line += "  [pinned to the cut-off]"
        if r.claim.finding is not None:
            f = r.claim.finding
            line += f"  [finding: {f.where} states {compact(f.artifact_states)}]"
        lines.append(line)
    s = summary(results)
    skipped = f", {s['skipped']} skipped (data absent)" if s["skipped"] else ""
    external = sum(r.claim.external is not None for r in results)
    pinned = sum(r.claim.pinned for r in results)
    when = f"; {view}" if view else ""
    lines.append(f"{s['claims']} claims: {s['passed']} pass, {s['changed']} changed, "
                 f"{s['failed']} fail{skipped}; {pinned} pinned to the cut-off; "
                 f"{count(s['findings'], 'finding')} about the survey's artifact or another "
                 f"paper; {count(external, 'external claim')}{when}")
    return lines
