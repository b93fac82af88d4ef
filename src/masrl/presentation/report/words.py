"""Figures as a reader says them: counts with their noun, durations in minutes and hours,
dollars, shares, names listed. Plain text: escaping is the caller's business."""

from __future__ import annotations

import math
import re

from masrl.presentation.escaping import shown
from masrl.presentation.tables import measurement, words
from masrl.wording import count, plural_of  # noqa: F401 (said here too: the pages' words)

NOT_RECORDED = "not recorded"
EVENT_WORDS = {  # event type -> (singular, plural) as a reader says it
    "orchestrator_decision": ("decision", "decisions"), "spawn": ("spawn", "spawns"),
    "despawn": ("despawn", "despawns"), "message": ("message", "messages"),
    "tool_call": ("tool call", "tool calls"), "tool_result": ("tool result", "tool results"),
    "return": ("return", "returns"), "aggregate": ("aggregation", "aggregations"),
    "human_intervention": ("human intervention", "human interventions"),
    "safety_event": ("safety event", "safety events"),
}


# a reason's parenthesised field names, "(cost_usd)" or "(x_usage.input, x_usage.output)": the
# JSON says them to its readers; a page says the reason in words only
_FIELD_NAMES = re.compile(r" \((?:[a-z][a-z0-9]*[_.][a-z0-9_.]*(?:, )?)+\)")


def reason(text: str) -> str:
    """Why a figure is not recorded, as a page says it: the engine's reason without the field
    names it gives in parentheses for the readers of its JSON."""
    return _FIELD_NAMES.sub("", text)


def duration(seconds: float) -> str:
    """A duration as a reader says it: ``0.35 s``, ``12.3 s``, ``4 min 5 s``, ``1 h 10 min``."""
    if seconds < 10:
        return f"{measurement(seconds, 2)} s"
    if seconds < 60:
        return f"{measurement(seconds, 1)} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s" if rest and minutes < 10 else f"{minutes} min"
    hours, minutes = divmod(minutes + (rest >= 30), 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def money(usd: float) -> str:
    """Dollars: cents for a dollar or more, two significant digits below (``$0.00016``)."""
    if usd == 0:
        return "$0"
    if abs(usd) >= 1:
        return f"${usd:,.2f}"
    digits = max(2, 1 - math.floor(math.log10(abs(usd))))
    return f"${usd:.{digits}f}"


def share(fraction: float) -> str:
    """A fraction of one as a whole percentage (``87%``), ``<1%`` or ``>99%`` at the ends."""
    percent = 100 * fraction
    if 0 < percent < 1:
        return "less than 1%"
    if 99 < percent < 100:
        return "more than 99%"
    return f"{percent:.0f}%"


def listed(names: list[str], most: int = 4) -> str:
    """``a``, ``a and b``, ``a, b, c and 3 more``."""
    if len(names) <= most:
        return words(names)
    return f"{', '.join(names[:most])} and {len(names) - most} more"


def number(value: float, decimals: int = 2) -> str:
    """A measurement to at most ``decimals`` decimals (``1.15``, ``3``)."""
    return measurement(float(value), decimals)


def visible(text: str) -> str:
    """Text from a trace as a reader can see it (:func:`masrl.presentation.escaping.shown`:
    line breaks and tabs kept, control and bidirectional characters written as escapes).
    Escaping for HTML is the caller's business."""
    return shown(text)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``, ``1,001st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
