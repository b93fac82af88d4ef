"""Timestamps of span-based logs as integer nanoseconds since the Unix epoch.

Span logs write times in several ways; each reader turns its own into integer nanoseconds, so
that the same input always gives the same floats once :mod:`.common` divides them:

* ISO-8601 text (:func:`iso_ns`): ``2025-05-13T09:37:46.993053+00:00``, ``...Z``, up to nine
  fractional digits; a time without an offset is read as UTC.
* OpenTelemetry JS ``HrTime`` (:func:`hrtime_ns`): ``[seconds, nanoseconds]``.
* Epoch milliseconds (JavaScript ``Date.now()``), microseconds, nanoseconds: integers, with the
  unit named by the reader.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

NS = 1_000_000_000
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|z|[+-]\d{2}:?\d{2})?")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_ns(text: str) -> int | None:
    """Nanoseconds since the epoch of an ISO-8601 date-time, or ``None`` when ``text`` is not
    one (a bad calendar date such as February 30 included)."""
    match = _ISO.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute),
                          int(second), tzinfo=_zone(offset))
    except ValueError:
        return None
    whole = (moment - _EPOCH) // timedelta(seconds=1)
    return whole * NS + int((fraction or "0").ljust(9, "0"))


def _zone(offset: str | None) -> timezone:
    if offset is None or offset in ("Z", "z"):
        return UTC
    sign = -1 if offset[0] == "-" else 1
    digits = offset[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def hrtime_ns(value) -> int | None:
    """Nanoseconds of an OpenTelemetry JS ``HrTime`` ``[seconds, nanoseconds]`` (two
    non-negative integers, nanoseconds below 10^9), else ``None``."""
    if (isinstance(value, list) and len(value) == 2 and all(is_int(v) and v >= 0 for v in value)
            and value[1] < NS):
        return value[0] * NS + value[1]
    return None


def is_int(value) -> bool:
    """An integer that is not a boolean."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    """An integer or float that is not a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
