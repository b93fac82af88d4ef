"""Text from input files as a terminal may show it.

Ids, names and values come from files a user did not necessarily write. Printed as they are, a
name holding an escape sequence could recolour the terminal or move the cursor, and one holding
a newline could forge a whole line of output (``x.json: valid``). :func:`printable` escapes every
control character (C0, DEL, C1), the Unicode line and paragraph separators and lone
surrogates (how Python holds the bytes of a file name that is not UTF-8; a UTF-8 terminal cannot
print them) the way Python writes them in a string literal (``\\x1b``, ``\\n``, ``\\u2028``,
``\\udcff``), and leaves everything else, non-ASCII letters included, as it is.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(text: object) -> str:
    """``str(text)`` with control characters escaped (see the module docstring)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))
