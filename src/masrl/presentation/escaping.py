"""Text from the data as readers see it: escaped for the markup it is placed in, never markup.

Data text (titles, tags, vocabulary labels and meanings, notes) reaches the book through two
kinds of markup, and each has one escaping function here:

* HTML (a DataFrame shown by itables with ``allow_html``, a figure's label): :func:`html_text`
  replaces ``& < > " '`` by entities, after :func:`shown` has written what a reader cannot see
  as it is (control characters, bidirectional controls) as escapes.
* Markdown (a cell's :class:`MarkdownText` output, which MyST parses, raw HTML, roles, links and
  math included): :func:`markdown_text` puts a backslash before every ASCII punctuation
  character (CommonMark lets any of them be escaped, and every construct that could turn text
  into markup starts with one: ``<``, ``&``, ``[``, ``*``, ``{role}``, ``$``, ``(target)=``,
  a ``#`` heading) and writes line breaks as spaces, so a value cannot open a new block;
  :func:`markdown_code` shows a value as code, in a span whose fence of backticks is longer than
  any run of backticks inside it (nothing in a code span is markup).

Markdown built here from data text goes through these and nothing else: a chapter displays a
:class:`MarkdownText` built by a presentation function, never an f-string of data.
"""

from __future__ import annotations

import html
import re
import string

from masrl.terminal import UNSEEN, escaped

# what a page cannot show as it is: control characters other than tab and line feed (C0, DEL,
# C1; a lone carriage return) and what masrl.terminal.UNSEEN names (line and paragraph
# separators, bidirectional controls: they reorder what follows them, so that a name from a
# trace could show as another, or turn round the figure after it; lone surrogates)
_HIDDEN = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{UNSEEN}]")
_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
_BACKTICKS = re.compile("`+")


def shown(value: object) -> str:
    """``value`` as text a reader can see as it is: line breaks (``\\r\\n`` read as one) and
    tabs kept, every character of :data:`_HIDDEN` written as Python writes it in a literal
    (``\\x07``, ``\\u202e``), so that nothing is hidden or reordered and the page can be
    written as UTF-8. Text without such characters is returned as it is."""
    return _HIDDEN.sub(escaped, str(value).replace("\r\n", "\n"))


def html_text(value: object) -> str:
    """``value`` as HTML text (:func:`shown`, then ``& < > " '`` as entities: safe in an
    attribute value too)."""
    return html.escape(shown(value), quote=True)


def markdown_text(value: object) -> str:
    """``value`` as Markdown that renders as exactly this text, on one line (see the module
    docstring)."""
    return _PUNCTUATION.sub(r"\\\1", _LINE_BREAKS.sub(" ", str(value)))


def markdown_code(value: object) -> str:
    """``value`` as an inline code span on one line (see the module docstring)."""
    text = _LINE_BREAKS.sub(" ", str(value))
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or text.strip() == "" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


class MarkdownText:
    """Markdown for a notebook output (``text/markdown``, which MyST renders); build it only from
    literal text and the escaping functions above. Its plain-text form is the Markdown itself,
    so notebook tests compare what a reader would recognise."""

    def __init__(self, markdown: str):
        self.markdown = markdown

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.markdown


_LONG_TOKEN = re.compile(r"[^\s<>]{17,}")  # a run of 17 characters or more without a space
_SEPARATOR = re.compile(r"([_/.])(?=[^\s_/.])")
SHORT_TOKEN = 16  # tokens this long or shorter are never broken


_TAG = re.compile(r"(<[^>]*>)")


def breakable(escaped: str) -> str:
    """Escaped HTML in which a long name or id of its text (more than :data:`SHORT_TOKEN`
    characters without a space) may break after its ``_``, ``/`` and ``.`` and nowhere else: a
    ``<wbr>`` goes after each (``masrl.presentation.tables`` for cells; ``book/_ext/fitting.py``
    for code in prose). Markup (a link's address) is left as it is, and entities (``&amp;``)
    hold none of these characters, so they stay whole."""
    return "".join(part if part.startswith("<") else _LONG_TOKEN.sub(
        lambda token: _SEPARATOR.sub(r"\1<wbr>", token.group(0)), part)
        for part in _TAG.split(escaped))
