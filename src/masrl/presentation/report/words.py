"""Figures as a reader says them: counts with their noun, durations in minutes and hours,
dollars, shares, names listed. Plain text: escaping is the caller's business."""

from __future__ import annotations

import math

from masrl.presentation.tables import measurement, words

NOT_RECORDED = "not recorded"


def count(n: int | float, noun: str, plural: str | None = None, *, zero: str = "0") -> str:
    """``1 event``, ``1,234 events``; ``zero`` says none (``no events`` with ``zero="no"``)."""
    n = int(round(n))
    return f"{f'{n:,}' if n else zero} {noun if n == 1 else plural or plural_of(noun)}"


def plural_of(noun: str) -> str:
    """``entry`` -> ``entries``, ``line`` -> ``lines`` (the last word of the noun)."""
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


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
