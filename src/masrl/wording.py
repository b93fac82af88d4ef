"""Counts said with their noun, in the singular for one: ``1 event``, ``1,234 events``.

The one rule for every line a reader sees, the terminal's summaries (``masrl replay``,
``import``, ``corpus``) and the report's pages (:mod:`masrl.presentation.report.words`) alike.
Light on purpose: a command's summary imports nothing else to say "1 worker".
"""

from __future__ import annotations


def count(n: int | float, noun: str, plural: str | None = None, *, zero: str = "0") -> str:
    """``1 event``, ``1,234 events``; ``zero`` says none (``no events`` with ``zero="no"``)."""
    n = int(round(n))
    return f"{f'{n:,}' if n else zero} {noun if n == 1 else plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    """``entry`` -> ``entries``, ``line`` -> ``lines`` (the last word of the noun)."""
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
