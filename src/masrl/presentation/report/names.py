"""Names from a trace as the report's pages show them: whole when short, shortened when long.

The schema bounds no name: an agent, a tool, an event, a label, a trace or a task may be named
with ten thousand characters. Shown whole, such a name fills the page at every place it is
said (the headline, the tables, the agent graph, the timeline, the step list), and the page
becomes too long to read. :func:`shown` is the one rule every part of the report and the
comparison page reads a name through: a name of at most :data:`LONGEST` characters (as a reader
sees it: :func:`.words.visible`) is returned as it is, so that the page of a trace with short
names is the same, byte for byte; a longer one keeps its first and last :data:`KEPT`
characters around a code drawn from the whole name (:data:`CODE_DIGITS` hexadecimal digits of
its BLAKE2b hash) between ellipses: ``first…#code…last``, the code early enough to stay in view
where a chart's axis cuts a long label. A chart's axis, narrower, labels a long name by its
first characters and the same code (:func:`label`). Two names that shorten alike (the same ends) still
differ by their codes; a name that merely looks like a shortened one is shortened too, so a
shortened name never reads as a name shown whole. The same name is shortened alike on every
page, so the two sides of a comparison match.

:func:`long_names` lists the names of a trace that the page shortens, each with its full text,
for the one place the page gives them in full (a folded table): the full name stays within the
reader's reach, once.

The result is plain text: escaping for HTML is the caller's business, as for any text from a
trace (control and direction characters are shown as escapes before the name is measured and
cut, so that no cut leaves half of one).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from masrl.presentation.report.words import visible

LONGEST = 80  # characters: a name this long or shorter is shown whole (a SHA-256 hex id: 64)
KEPT = 12  # characters kept at each end of a longer name
CODE_DIGITS = 10  # hexadecimal digits of the code that tells names that shorten alike apart
# what a shortened name looks like: a name shown whole never does (it is shortened too)
_SHORTENED = re.compile(rf".{{{KEPT}}}\u2026#[0-9a-f]{{{CODE_DIGITS}}}\u2026.{{{KEPT}}}",
                        re.DOTALL)


def code(name: str) -> str:
    """The short code of ``name``: the first :data:`CODE_DIGITS` hexadecimal digits of the
    BLAKE2b hash of its UTF-8 bytes (lone surrogates as they are)."""
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=16)
    return digest.hexdigest()[:CODE_DIGITS]


def is_long(name: object) -> bool:
    """Whether :func:`shown` shortens ``name``: longer than :data:`LONGEST` characters as a
    reader sees it, or looking like a shortened name."""
    seen = visible(str(name))
    return len(seen) > LONGEST or _SHORTENED.fullmatch(seen) is not None


def shown(name: object) -> str:
    """``name`` as a page shows it (see the module docstring): itself when short, else
    ``first…#code…last``."""
    text = str(name)
    if not is_long(text):
        return text
    seen = visible(text)
    return f"{seen[:KEPT]}\u2026#{code(text)}\u2026{seen[-KEPT:]}"


AXIS_KEPT = 6  # characters a chart's axis keeps of a long name, before its code


def label(name: object) -> str:
    """``name`` as a chart's axis labels it: :func:`shown` when short, else its first
    :data:`AXIS_KEPT` characters and its code (``first…#code``, the same code as
    :func:`shown`'s), narrow enough that the axis shows it whole and leaves the chart its
    width on a phone."""
    text = str(name)
    if not is_long(text):
        return text
    return f"{visible(text)[:AXIS_KEPT]}\u2026#{code(text)}"


# a run of characters without a space or a quotation mark (a name a sentence quotes)
_LONG_RUN = re.compile(rf"[^\s'\"]{{{LONGEST + 1},}}")


def shown_within(text: str) -> str:
    """``text`` (a sentence that quotes names, such as a validation problem's message) with
    each run of more than :data:`LONGEST` characters without a space or a quotation mark
    shown as :func:`shown` shows a name: a sentence quoting a long name stays within its
    column, and names it as the rest of the page does."""
    return _LONG_RUN.sub(lambda found: shown(found.group()), text)


def shown_all(names: Iterable[object]) -> list[str]:
    """:func:`shown` of each name, in order."""
    return [shown(name) for name in names]


def trace_names(head: Mapping | None, agents: Iterable[str] = (), events: Iterable[str] = (),
                tools: Iterable[object] = ()) -> list[str]:
    """Every name of a trace a page may show: its trace and task ids, its agents, its events,
    the tools and targets its events name, and the names its labels give; each once, in that
    order."""
    head = head or {}
    found: list[object] = [head.get("trace_id"), head.get("task_id"), head.get("topology"),
                           *agents, *events, *tools]
    for given in head.get("labels") or []:  # (not `label`: the function above)
        if isinstance(given, Mapping):
            found += [given.get(key) for key in ("name", "event", "agent", "source")]
    return list(dict.fromkeys(str(name) for name in found if isinstance(name, str)))


def long_names(names: Iterable[str]) -> list[tuple[str, str]]:
    """``(shown, full)`` for each of ``names`` that :func:`shown` shortens, in order."""
    return [(shown(name), name) for name in names if is_long(name)]
