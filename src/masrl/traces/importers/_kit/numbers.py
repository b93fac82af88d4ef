"""The one rule for the numbers a log states, shared by every importer: a token count, a dollar
amount or a duration is read or refused, never silently replaced.

* **Absent or null** means not recorded: the reader returns ``None`` and the trace leaves the
  figure out (it never becomes 0).
* **A JSON number** is read when it can be what it stands for: a count is a whole number from 0
  to :data:`MAX_COUNT`; an amount or a duration a finite number of 0 or more. A whole count
  written as a float (``120.0``) is the integer it equals.
* **Text** is read when it spells such a number in ASCII (``"120"``, ``"0.25"``; OTLP writes
  64-bit integers as decimal strings), and the change is counted in the provenance's
  ``repaired`` (:data:`TEXT_COUNT`, :data:`TEXT_AMOUNT`). Any other text (``"120 tokens"``,
  ``"1,200"``, ``"١٢٠"``, ``"²"``) is refused.
* Everything else (a negative number, a fraction of a token, a count past :data:`MAX_COUNT`,
  ``true``, an object) is a :class:`~.common.SourceError` naming the file, the place and the
  field, with the value found in JSON's words.

Chapter 23 of the book tells the rule; ``tests/faults/test_importer_numbers.py`` feeds every
importer each variant.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from masrl.traces.importers._kit.common import SourceError, json_type

MAX_COUNT = 2**53
"""The largest count read: past it a double (every number of a trace) no longer holds each
whole number exactly."""

TEXT_COUNT = "count written as text (read as the number its digits spell)"
TEXT_AMOUNT = "amount written as text (read as the number it spells)"
DIGITS = re.compile(r"[0-9]+")
DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def shown(value: Any) -> str:
    """The value found, in JSON's words: ``the string "12 tokens"``, ``the number -3``,
    ``true``, ``null``, ``an object``."""
    if value is None or isinstance(value, bool):
        return json_type(value)
    if isinstance(value, (int, float)):
        text = repr(value) if isinstance(value, float) else str(value)
        return f"the number {text if len(text) <= 24 else text[:21] + '...'}"
    if isinstance(value, str):
        text = value if len(value) <= 24 else value[:21] + "..."
        return f"the string {json.dumps(text, ensure_ascii=False)}"
    return json_type(value)


def count(value: Any, path: str | Path, where: str | int | None, field: str,
          repairs: Counter | None = None) -> int | float | None:
    """A token count (or any count) as the module's rule reads it; ``None`` when absent."""
    if type(value) is int and 0 <= value <= MAX_COUNT:
        return value  # the usual case, decided before the checks below
    if value is None:
        return None
    number = value
    if isinstance(value, str):
        if DIGITS.fullmatch(value) is None:
            raise _refused(path, where, field, value, "a count written with the digits 0-9")
        number = int(value)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refused(path, where, field, value, "a count (a whole number of 0 or more)")
    if number < 0:
        raise _refused(path, where, field, value, "a count of 0 or more")
    if isinstance(number, float) and not number.is_integer():
        raise _refused(path, where, field, value, "a whole number of tokens")
    if number > MAX_COUNT:
        raise _refused(path, where, field, value, f"a count up to 2^53 ({MAX_COUNT:,}), the "
                       "largest a double holds exactly")
    if isinstance(value, str) and repairs is not None:
        repairs[TEXT_COUNT] += 1
    return int(number)


def amount(value: Any, path: str | Path, where: str | int | None, field: str,
           repairs: Counter | None = None, *, what: str = "an amount") -> float | int | None:
    """A dollar amount or a duration (a finite number of 0 or more); ``None`` when absent."""
    if value is None:
        return None
    number = value
    if isinstance(value, str):
        if DECIMAL.fullmatch(value) is None:
            raise _refused(path, where, field, value, f"{what} written with the digits 0-9")
        number = float(value)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refused(path, where, field, value, f"{what} (a number of 0 or more)")
    if not math.isfinite(number) or number > 1e300:
        raise _refused(path, where, field, value, f"{what} a double holds")
    if number < 0:
        raise _refused(path, where, field, value, f"{what} of 0 or more")
    if isinstance(value, str) and repairs is not None:
        repairs[TEXT_AMOUNT] += 1
    return number


def _refused(path, where, field: str, value: Any, wanted: str) -> SourceError:
    return SourceError(path, where, f"{field} must be {wanted}, found {shown(value)}")
