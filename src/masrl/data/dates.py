"""First public dates, which we know to the day, the month or the year, or not at all, and the
rule that places each record in time for the as-of ledger.

A ``first_public`` cell is written at the precision we know it:

* ``2026-03-23`` (day): the arXiv listing of version 1, or the date printed on the post, page
  or report;
* ``2026-03`` (month): read from an arXiv identifier (``2603.xxxxx`` was first listed in March
  2026) or from a source that gives only the month;
* ``2002`` (year): a journal or conference paper known by its year;
* empty (unknown): documentation and product pages that carry no date.

**The rule** (:func:`public_by`): a record counts as public *by the last day its date allows*
(a month-precision date counts from the month's last day, a year from 31 December), and never
later than the date of the screening round that recorded it, since a record cannot be screened
before it is public. A record of unknown date therefore counts from its round's date: the
survey's rows of unknown date are present from the cut-off on. This is the conservative reading:
a record is never placed before the latest day it may have appeared.
"""

from __future__ import annotations

import calendar
import datetime as dt

from masrl.data import tables

PRECISIONS = ("day", "month", "year", "unknown")


def precision(value: str) -> str:
    """``day``, ``month``, ``year`` or ``unknown`` (empty); a ``ValueError`` for anything else."""
    if value == "":
        return "unknown"
    if tables.is_date(value):
        return "day"
    if tables.is_date(value, month=True):
        return "month"
    if len(value) == 4 and value.isascii() and value.isdigit():
        return "year"
    raise ValueError(f"{value!r} is not a date YYYY-MM-DD, a month YYYY-MM or a year YYYY")


def is_partial_date(value: str, *, optional: bool = True) -> bool:
    """Whether ``value`` is a first public date at some precision (empty when ``optional``)."""
    try:
        kind = precision(value)
    except ValueError:
        return False
    return optional or kind != "unknown"


def period(value: str) -> tuple[dt.date, dt.date] | None:
    """The first and last day a date of any precision allows; ``None`` when unknown."""
    kind = precision(value)
    if kind == "unknown":
        return None
    if kind == "day":
        day = dt.date.fromisoformat(value)
        return day, day
    year = int(value[:4])
    if kind == "month":
        month = int(value[5:7])
        return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])
    return dt.date(year, 1, 1), dt.date(year, 12, 31)


def earliest(value: str) -> dt.date | None:
    """The first day a date allows (``None`` when unknown)."""
    bounds = period(value)
    return None if bounds is None else bounds[0]


def public_by(value: str, recorded: dt.date) -> dt.date:
    """The day from which a record counts as public (the module docstring's rule): the last day
    its first public date allows, and at the latest ``recorded``, the date of its round."""
    bounds = period(value)
    return recorded if bounds is None else min(bounds[1], recorded)


def parse_day(value: str, what: str = "date") -> dt.date:
    """A calendar date ``YYYY-MM-DD``; a ``ValueError`` that says what was expected."""
    if not tables.is_date(value):
        raise ValueError(f"{what} {value!r} is not a calendar date YYYY-MM-DD")
    return dt.date.fromisoformat(value)
