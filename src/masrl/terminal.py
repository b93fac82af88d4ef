"""Text from input files as a terminal may show it.

Ids, names and values come from files a user did not necessarily write. Printed as they are, a
name holding an escape sequence could recolour the terminal or move the cursor, and one holding
a newline could forge a whole line of output (``x.json: valid``). :func:`printable` escapes
every control character (C0, DEL, C1), the Unicode line and paragraph separators, the
bidirectional controls (U+202A-U+202E, U+2066-U+2069, the marks U+200E, U+200F, U+061C: they
reorder what follows on the line, so a name could show as another) and lone surrogates the way
Python writes them in a string literal (``\\x1b``, ``\\n``, ``\\u2028``), and leaves everything
else, non-ASCII letters included, as it is. A lone surrogate U+DC80-U+DCFF is how Python holds a
byte of a file name that is not UTF-8 (a UTF-8 terminal cannot print it): it is written as that
byte, ``\\xff``, as the traces, ids and JSON outputs write such a name (:func:`names_as_text`).

A value can also be long: a 10 MB id in a message would flood the terminal, and a validator that
quotes the value it refuses would print a whole file. Text longer than :data:`LIMIT` characters
keeps its beginning and its end (where messages say what is wrong) around a count of what was
left out (:func:`abbreviated`).
"""

from __future__ import annotations

import os
import re
from typing import Any

# what is escaped besides the C0 and C1 controls and DEL: the line and paragraph separators, the
# bidirectional controls and marks, lone surrogates (a regular-expression class body; the book's
# pages escape the same, tab and line feed apart: masrl.presentation.escaping.shown)
UNSEEN = r"\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_CONTROL = re.compile(rf"[\x00-\x1f\x7f-\x9f{UNSEEN}]")


def escaped(match: re.Match) -> str:
    """The text of ``match`` as Python writes it in a string literal (``\\x1b``, ``\\u202e``),
    except a byte of a file name that is not UTF-8 (a lone surrogate U+DC80-U+DCFF), written as
    the byte (``\\xff``), as :func:`names_as_text` writes it."""
    text = match.group()
    if "\udc80" <= text <= "\udcff":
        return f"\\x{ord(text) - 0xDC00:02x}"
    return repr(text)[1:-1]


def names_as_text(value: Any) -> Any:
    """``value`` (a string, or a JSON-like tree of dictionaries and lists, changed in place) with
    each byte of a file name that is not UTF-8 written ``\\xNN``: the form in which traces
    (their ids and sources), ``masrl corpus`` ids, the commands' ``--json`` outputs and their
    lines name such a file. Python holds those bytes as lone surrogates, which strict JSON refuses
    in a log, so only a file name brings them; every other string is left as it is."""
    if isinstance(value, str):
        return _name_text(value)
    stack, root = [], {"": value}
    stack.append(root)
    while stack:  # without recursion: a trace may be deep
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if isinstance(node, dict):
            node.clear()
        for key, item in items:
            if isinstance(key, str):
                key = _name_text(key)
            if isinstance(item, str):
                item = _name_text(item)
            elif isinstance(item, (dict, list)):
                stack.append(item)
            node[key] = item
    return root[""]


def is_utf8(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8: not when it holds lone surrogates, as Python
    holds the bytes of a file name that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _name_text(text: str) -> str:
    return text if is_utf8(text) else os.fsencode(text).decode("utf-8", "backslashreplace")


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
