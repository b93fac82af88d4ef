"""The claims ledger as readers see it: values in words, one table, one status line."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from masrl.analyses.claims import SKIP, Result, summary


def compact(value: Any) -> str:
    """A value as one short line of JSON (for tables and the command line)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def describe(value: Any) -> str:
    """A value in words for prose: ``{"broad": 7, "strict": 4}`` -> ``broad 7, strict 4``."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {describe(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(describe(v) for v in value) if value else "none"
    return str(value)


def results_table(results: list[Result]) -> pd.DataFrame:
    """The evaluated ledger as a table: id, statement, expected, computed, status, boundary,
    finding."""
    rows = []
    for r in results:
        finding = r.claim.finding
        rows.append({"id": r.claim.id, "statement": r.claim.statement,
                     "expected": compact(r.claim.expected),
                     "computed": compact(r.computed) if r.computed is not None else r.message,
                     "status": r.status, "boundary": r.claim.boundary,
                     "finding": "" if finding is None else
                     f"{finding.where} states {compact(finding.artifact_states)}: {finding.explanation}"})
    return pd.DataFrame(rows).set_index("id")


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


def text_lines(results: list) -> list[str]:
    """``STATUS id: computed`` per claim (plus what was expected when it fails, and any finding),
    then one summary line; ``results`` are :class:`masrl.analyses.claims.Result` objects."""
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
        if r.claim.finding is not None:
            f = r.claim.finding
            line += f"  [finding: {f.where} states {compact(f.artifact_states)}]"
        lines.append(line)
    s = summary(results)
    skipped = f", {s['skipped']} skipped (data absent)" if s["skipped"] else ""
    external = sum(r.claim.external is not None for r in results)
    lines.append(f"{s['claims']} claims: {s['passed']} pass, {s['failed']} fail{skipped}; "
                 f"{s['findings']} finding(s) about the survey's artifact or another paper; "
                 f"{external} external claim(s)")
    return lines
