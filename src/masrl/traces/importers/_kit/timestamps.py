"""Times in logs, read one way for every importer, as integer nanoseconds since the Unix epoch.

Logs write times in several ways; :func:`moment_ns` reads them all, so that the same input always
gives the same floats once :mod:`.common` divides them, and refuses the rest naming the field:

* ISO 8601 text (:func:`iso_ns`): ``2025-05-13T09:37:46.993053+00:00``, ``...Z``, up to nine
  fractional digits, ASCII digits only; a time without an offset is read as UTC (never as the
  machine's local time), unless the format requires an offset. A date without a time of day
  (``2025-05-13``) is refused: it cannot place an event within a run.
* OpenTelemetry JS ``HrTime`` (:func:`hrtime_ns`): ``[seconds, nanoseconds]``.
* Epoch numbers, or ASCII digits that spell one, in the unit the format names (OTLP's
  ``...UnixNano``: nanoseconds; the JavaScript console exporter: microseconds) or, when it names
  none, told by size (:func:`epoch_ns`): below 10^11 seconds, below 10^14 milliseconds, below
  10^17 microseconds, else nanoseconds. A float of nanoseconds is read to its nearest whole one.
* Whatever the way, a time before 1970 or after the year 9999 is refused (a time in another
  unit than the one read, such as microseconds read as milliseconds, lands there).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

NS = 1_000_000_000
MAX_NS = ((datetime(9999, 12, 31, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC))
          // timedelta(seconds=1) + 86_400) * NS  # the first nanosecond of the year 10000
_ISO = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]{1,9}))?"
    r"(Z|z|[+-][0-9]{2}:?[0-9]{2})?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
UNITS = {1: "seconds", 1000: "milliseconds", 1_000_000: "microseconds",
         NS: "nanoseconds"}  # ticks per second -> name


def iso_ns(text: str, *, naive: bool = True) -> int | None:
    """Nanoseconds since the epoch of an ISO-8601 date-time, or ``None`` when ``text`` is not
    one (a bad calendar date such as February 30 included; without an offset when ``naive``
    is false)."""
    if not isinstance(text, str):
        return None
    match = _ISO.fullmatch(text) or _ISO.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    if offset is None and not naive:
        return None
    base = _minute(year, month, day, hour, minute, offset)
    if base is None or second > "59":  # two ASCII digits compare as their numbers
        return None
    return (base + int(second)) * NS + (int(fraction.ljust(9, "0")) if fraction else 0)


@lru_cache(maxsize=4096)
def _minute(year: str, month: str, day: str, hour: str, minute: str, offset: str | None
            ) -> int | None:
    """Seconds since the epoch of a minute's first second, ``None`` for no such minute. A
    log's records share a few minutes, and building a datetime per record cost more than the
    rest of reading its time."""
    midnight, shift = _midnight(year, month, day), _offset_seconds(offset)
    if midnight is None or shift is None or int(hour) > 23 or int(minute) > 59:
        return None
    return midnight + int(hour) * 3600 + int(minute) * 60 - shift


@lru_cache(maxsize=1024)
def _midnight(year: str, month: str, day: str) -> int | None:
    """Seconds since the epoch of a date's first second (UTC), ``None`` for no such date."""
    try:
        return (datetime(int(year), int(month), int(day), tzinfo=UTC) - _EPOCH) \
            // timedelta(seconds=1)
    except ValueError:
        return None


@lru_cache(maxsize=256)
def _offset_seconds(offset: str | None) -> int | None:
    """Seconds east of UTC of an ISO offset, ``None`` when no time zone has it (a day or more)."""
    try:
        return _zone(offset).utcoffset(None) // timedelta(seconds=1)
    except ValueError:
        return None


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


def epoch_unit(number: int | float) -> int:
    """Ticks per second of an epoch number told by its size (see the module)."""
    return 1 if number < 1e11 else 1000 if number < 1e14 else 1_000_000 if number < 1e17 else NS


def epoch_ns(number: int | float | Decimal, unit: int | None = None) -> int:
    """Nanoseconds of an epoch number of ``unit`` ticks per second (``None``: told by size, see
    :func:`epoch_unit`)."""
    if unit is None:
        unit = epoch_unit(number)
    if isinstance(number, int):
        return number * (NS // unit)
    # the decimal the float was written as, scaled exactly (a product of floats would move a
    # time of 1.7e9 seconds by up to 128 ns, and a float of nanoseconds by its last digits)
    exact = number if isinstance(number, Decimal) else Decimal(repr(number))
    return int((exact * (NS // unit)).to_integral_value(ROUND_HALF_EVEN))


def moment_ns(value: Any, path: str | Path, where: str | int | None, field: str, *,
              unit: int | None = None, naive: bool = True, iso: bool = True,
              numbers: bool = True) -> int:
    """Nanoseconds since the epoch of a time a log gives under ``field`` (see the module), or a
    :class:`~.common.SourceError` naming the file, ``where`` and the field. ``unit`` names the
    ticks per second of epoch numbers (``None``: told by size); ``naive`` whether an ISO time
    without an offset is read (as UTC); ``iso`` and ``numbers`` which ways the format allows
    (ISO text; epoch numbers, the texts of their digits and ``HrTime``)."""
    found: int | None = None
    read_as = None
    if isinstance(value, str):
        found = iso_ns(value, naive=naive) if iso else None
        if found is None and _DECIMAL.fullmatch(value) and numbers:
            number = int(value) if _DIGITS.fullmatch(value) else Decimal(value)
            read_as = unit or epoch_unit(number)
            found = epoch_ns(number, read_as)
        elif found is None:
            raise _refused(path, where, field, value, _why_not(value, naive, iso, numbers))
    elif isinstance(value, list) and numbers:
        found = hrtime_ns(value)
    elif is_number(value) and numbers and math.isfinite(value) and value >= 0:
        if value > 1e30:
            raise _refused(path, where, field, value, "past the year 9999 in any unit")
        read_as = unit or epoch_unit(value)
        found = epoch_ns(value, read_as)
    if found is None:
        raise _refused(path, where, field, value, _wanted(iso, numbers, naive))
    if not 0 <= found < MAX_NS:
        read = f" read as {UNITS[read_as]}" if read_as in UNITS else ""
        raise _refused(path, where, field, value, f"a time between 1970 and the year 9999 (it "
                       f"is past the year 9999{read}: is it in another unit?)")
    return found


def _why_not(value: str, naive: bool, iso: bool, numbers: bool) -> str:
    if iso and _DATE.fullmatch(value.strip()):
        return ("a time of day as well as a date (a date alone cannot place an event within "
                "the run)")
    if iso and not naive and _ISO.fullmatch(value.strip()):
        return "an ISO 8601 time with a UTC offset (e.g. 2025-03-01T10:00:00Z)"
    return _wanted(iso, numbers, naive)


def _wanted(iso: bool, numbers: bool, naive: bool) -> str:
    ways = []
    if iso:
        ways.append("an ISO 8601 time" + ("" if naive else " with a UTC offset"))
    if numbers:
        ways.append("an epoch number of 0 or more (or its digits)")
    return " or ".join(ways) or "a time"


def _refused(path, where, field: str, value: Any, wanted: str):
    from masrl.traces.importers._kit.common import SourceError
    from masrl.traces.importers._kit.numbers import shown

    return SourceError(path, where, f"{field} must be {wanted}, found {shown(value)}")


def is_int(value) -> bool:
    """An integer that is not a boolean."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    """An integer or float that is not a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


