"""Text from input files as a terminal may show it.

Ids, names and values come from files a user did not necessarily write. Printed as they are, a
name holding an escape sequence could recolour the terminal or move the cursor, and one holding
a newline could forge a whole line of output (``x.json: valid``). :func:`printable` escapes
every control character (C0, DEL, C1), the Unicode line and paragraph separators, the
bidirectional controls (U+202A-U+202E, U+2066-U+2069, the marks U+200E, U+200F, U+061C: they
reorder what follows on the line, so a name could show as another) and lone surrogates (how
Python holds the bytes of a file name that is not UTF-8; a UTF-8 terminal cannot print them) the
way Python writes them in a string literal (``\\x1b``, ``\\n``, ``\\u2028``, ``\\udcff``), and
leaves everything else, non-ASCII letters included, as it is.

A value can also be long: a 10 MB id in a message would flood the terminal, and a validator that
quotes the value it refuses would print a whole file. Text longer than :data:`LIMIT` characters
keeps its beginning and its end (where messages say what is wrong) around a count of what was
left out (:func:`abbreviated`).
"""

from __future__ import annotations

import re

# what is escaped besides the C0 and C1 controls and DEL: the line and paragraph separators, the
# bidirectional controls and marks, lone surrogates (a regular-expression class body; the book's
# pages escape the same, tab and line feed apart: masrl.presentation.escaping.shown)
UNSEEN = r"\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_CONTROL = re.compile(rf"[\x00-\x1f\x7f-\x9f{UNSEEN}]")


def escaped(match: re.Match) -> str:
    """The text of ``match`` as Python writes it in a string literal (``\\x1b``, ``\\u202e``)."""
    return repr(match.group())[1:-1]


LIMIT = 1000  # characters; the longest line masrl prints from good data is under 300
PART_LIMIT = 400  # characters of one part of a problem line (its place, its message)


def printable(text: object, limit: int = LIMIT) -> str:
    """``str(text)`` cut to ``limit`` characters, control characters escaped (see the module
    docstring)."""
    return _CONTROL.sub(escaped, abbreviated(str(text), limit))


def abbreviated(text: str, limit: int = LIMIT) -> str:
    """``text``, or its first and last ``limit // 2`` characters around a count of the rest."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} [... {len(text) - 2 * half:,} characters ...] {text[-half:]}"
