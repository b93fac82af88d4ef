"""Docstrings as book text: the package's definitions are written once, in its docstrings, and
the chapters quote them, so the book and the code cannot drift apart."""

from __future__ import annotations

import importlib
import inspect
import re

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr):`~?([^`]+)`")


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
    text = "\n".join(lines[first:last]).strip()
    return _ROLE.sub(lambda m: f"`{m.group(1).lstrip('.')}`", text).replace("::\n", ":\n")
