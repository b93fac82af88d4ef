"""Docstrings as book text: the package's definitions are written once, in its docstrings, and
the chapters quote them, so the book and the code cannot drift apart."""

from __future__ import annotations

import importlib
import inspect
import re

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr):`~?([^`]+)`")
_BORDER = re.compile(r"^ *=+( +=+)+ *$")


def _columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """The cells of one line of a simple table; the last column runs to the end of the line."""
    bounds = [start for start, _ in spans] + [None]
    return [line[bounds[k]:bounds[k + 1]].strip() for k in range(len(spans))]


def rst_tables(text: str) -> str:
    """reStructuredText *simple tables* (columns under ``=====  =====`` borders, a header row,
    rows that continue on lines whose first column is blank) as Markdown pipe tables, so that a
    docstring's table reads as a table in the book rather than as lines of ``=``."""
    lines = text.splitlines()
    out: list[str] = []
    k = 0
    while k < len(lines):
        if not _BORDER.match(lines[k]):
            out.append(lines[k])
            k += 1
            continue
        spans = _columns(lines[k])
        borders = [j for j in range(k, len(lines)) if _BORDER.match(lines[j])][:3]
        if len(borders) < 3 or any(not lines[j].strip() for j in range(k, borders[2])):
            out.append(lines[k])  # not a complete simple table: left as it is
            k += 1
            continue
        header = [" ".join(c) for c in zip(*(_cells(line, spans)
                                              for line in lines[borders[0] + 1:borders[1]]))]
        rows: list[list[str]] = []
        for line in lines[borders[1] + 1:borders[2]]:
            cells = _cells(line, spans)
            if cells[0] or not rows:
                rows.append(cells)
            else:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "|".join(" --- " for _ in header) + "|")
        out.extend("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows)
        k = borders[2] + 1
    return "\n".join(out)


def docstring_markdown(obj, after: str | None = None, *, start: str | None = None,
                       stop: str | None = None) -> str:
    """The docstring of ``obj`` (an object or a module's dotted name) as Markdown: Sphinx roles
    become code spans and ``::`` a colon. With ``after``, only what follows the first line
    containing that text (e.g. ``"Definitions"``); with ``start``, from the first line containing
    it; with ``stop``, up to (not including) the next line containing it."""
    if isinstance(obj, str):
        obj = importlib.import_module(obj)
    lines = (inspect.getdoc(obj) or "").splitlines()
    first = 0
    if after is not None:
        first = next(k for k, line in enumerate(lines) if after in line) + 1
    elif start is not None:
        first = next(k for k, line in enumerate(lines) if start in line)
    last = len(lines)
    if stop is not None:
        last = next((k for k, line in enumerate(lines) if k > first and stop in line), last)
    text = rst_tables("\n".join(lines[first:last]).strip())
    return _ROLE.sub(lambda m: f"`{m.group(1).lstrip('.')}`", text).replace("::\n", ":\n")
