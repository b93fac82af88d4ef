"""Strict JSON: the one reading of JSON text shared by the validator's full path and the
importers, which refuses what the standard library would let through.

JSON allows more than a trace can mean, and Python's ``json`` more than JSON allows. Rules:

* **UTF-8 only**: the text must be UTF-8 (``not-json``), and a string must not hold a lone
  surrogate (``\\ud800`` escaped alone), which no UTF-8 text can carry (``not-json``).
* **No duplicate keys** (``duplicate-key``): in ``{"t": -1, "t": 3}`` the standard library keeps
  the last value, so an invalid first value would be hidden; every repeated key is an error.
* **Finite numbers only** (``non-finite``): ``NaN``, ``Infinity``, and any number whose value a
  double cannot hold (``1e400``, a 400-digit integer, a 5,001-digit one) are refused; every
  number a trace keeps is a finite double.
* **Bounded nesting**: arrays and objects nested deeper than the interpreter's recursion allows
  (about a thousand levels) are refused as ``not-json`` instead of crashing the reader.

:func:`parse` returns the document with every finding located by a JSON pointer (so a caller can
report them all); :func:`loads` raises the first as a :class:`StrictJSONError`. The checks cost
nothing on ordinary input: hooks flag a finding while parsing, and only then is the document
walked (without recursion) to say where it is.
"""

from __future__ import annotations

import json
import math
import re
from collections import namedtuple

# (no dataclasses, no typing: this module is on the path of a quick ``masrl validate``, where
# importing either would cost more than checking a small trace; see masrl.traces.quick_verdict)

NOT_JSON, DUPLICATE_KEY, NON_FINITE = "not-json", "duplicate-key", "non-finite"
MAX_DOUBLE_DIGITS = 309  # integers of more digits never fit a double (max about 1.8e308)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class Finding(namedtuple("Finding", "code parts message place line column syntax",
                          defaults=("", None, None, None))):
    """One fault of a JSON text: a stable ``code``, where (``parts``, the path of keys and
    indices to the value; ``None`` when the text as a whole is at fault, then ``place`` says
    ``line L column C`` or ``byte B``, and ``line`` / ``column`` hold the numbers) and a
    message. ``syntax`` is the parser's own words for a syntax error (``Expecting value``)."""

    __slots__ = ()


class StrictJSONError(ValueError):
    """The first :class:`Finding` of a text that strict JSON refuses."""

    def __init__(self, finding: Finding):
        self.finding = finding
        super().__init__(finding.message)


class _Flagged(str):
    """Stands in for a number that is not a finite double (its literal, for the message)."""


class _Repeated(dict):
    """A JSON object that repeated keys; ``repeated`` lists them in order (the last value wins
    in the dictionary itself, as in the standard library)."""

    repeated: list


class _Seen:
    """Whether any hook flagged anything during one parse (so that only then a walk runs)."""

    def __init__(self) -> None:
        self.flagged = False

    def pairs(self, pairs: list) -> dict:
        result = dict(pairs)
        if len(result) == len(pairs):
            return result
        self.flagged = True
        repeated, seen = [], set()
        for key, _ in pairs:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        flagged = _Repeated(result)
        flagged.repeated = repeated
        return flagged

    def constant(self, name: str) -> _Flagged:
        self.flagged = True
        return _Flagged(name)

    def real(self, literal: str) -> float | _Flagged:
        value = float(literal)
        if math.isfinite(value):
            return value
        self.flagged = True
        return _Flagged(literal)

    def integer(self, literal: str) -> int | _Flagged:
        value = integer_value(literal)
        if value is not None:
            return value
        self.flagged = True
        return _Flagged(literal)


def finite_number(literal: str) -> bool:
    """The one number rule of strict JSON, for a JSON number's literal: whether its value is a
    finite double (``1e400`` and a 400-digit integer are not). The full path applies it to every
    number it parses (the hooks below); the fast path to the numbers it does not decode itself
    (:mod:`masrl.traces.repeated_keys`), so that both paths refuse the same numbers."""
    if any(mark in literal for mark in ".eE"):
        return math.isfinite(float(literal))
    return integer_value(literal) is not None


def integer_value(literal: str) -> int | None:
    """An integer literal's value, or ``None`` when no double holds it (too many digits, or 309
    digits past about 1.8e308): an integer is read whole only when it is short enough to be safe
    to convert (a huge one would take quadratic time)."""
    digits = len(literal) - literal.startswith("-")
    if digits < MAX_DOUBLE_DIGITS:
        return int(literal)
    if digits == MAX_DOUBLE_DIGITS:
        value = int(literal)
        try:
            float(value)
            return value
        except OverflowError:
            pass
    return None


def parse(data: bytes | str) -> tuple[object, list[Finding]]:
    """The document in ``data`` and every :class:`Finding` in it (document order).

    A fault of the text as a whole (not UTF-8, a syntax error, nesting too deep) is the one
    finding, and the document is ``None``; otherwise the document is returned with its
    findings (duplicate keys, non-finite numbers, lone surrogates), which the caller reports.
    """
    text, fault = _text(data)
    if fault is not None:
        return None, [fault]
    seen = _Seen()
    try:
        document = _decoder(seen).decode(text)
    except json.JSONDecodeError as exc:
        return None, [_syntax(exc)]
    except RecursionError:
        return None, [_too_deep(None)]
    return document, _findings(document, seen, text)


def parse_sequence(data: bytes | str, prefix: bool = False
                   ) -> list[tuple[int, object, list[Finding]]]:
    """JSON values written one after another (JSON Lines, or indented objects concatenated):
    ``(line the value starts on, value, its findings)`` for each. A syntax error or nesting too
    deep raises :class:`StrictJSONError` (its finding gives the line and column), unless
    ``prefix``: then the values before it are returned."""
    text, fault = _text(data)
    if fault is not None:
        raise StrictJSONError(fault)
    found, at = [], 0
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return found
        line, seen = text.count("\n", 0, at) + 1, _Seen()
        try:
            value, end = _decoder(seen).raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError) as exc:
            if prefix:
                return found
            fault = _syntax(exc) if isinstance(exc, json.JSONDecodeError) else _too_deep(line)
            raise StrictJSONError(fault) from None
        found.append((line, value, _findings(value, seen, text[at:end])))
        at = end


def _text(data: bytes | str) -> tuple[str, Finding | None]:
    if isinstance(data, str):
        return data, None
    try:
        return bytes(data).decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = bytes(data)[:exc.start].count(b"\n") + 1
        return "", Finding(NOT_JSON, None, "not UTF-8 text", f"byte {exc.start}", line=line)


def _decoder(seen: _Seen) -> json.JSONDecoder:
    return json.JSONDecoder(object_pairs_hook=seen.pairs, parse_constant=seen.constant,
                            parse_float=seen.real, parse_int=seen.integer)


def _syntax(exc: json.JSONDecodeError) -> Finding:
    return Finding(NOT_JSON, None, f"not JSON: {exc.msg}", f"line {exc.lineno} column {exc.colno}",
                   line=exc.lineno, column=exc.colno, syntax=exc.msg)


def _too_deep(line: int | None) -> Finding:
    """Nesting past the parser's depth: the line of the value when known (a sequence), else
    the file as a whole (the parser does not say where it stopped)."""
    return Finding(NOT_JSON, None, "not JSON this reader accepts: arrays and objects nested too "
                   "deeply (more than about a thousand levels)",
                   "file" if line is None else f"line {line}", line=line)


def _findings(value: object, seen: _Seen, text: str) -> list[Finding]:
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    if not (seen.flagged or surrogates):
        return []
    return list(_walk(value, surrogates))


def loads(data: bytes | str) -> object:
    """The document in ``data``; :class:`StrictJSONError` with the first finding otherwise."""
    document, findings = parse(data)
    if findings:
        raise StrictJSONError(findings[0])
    return document


def describe(finding: Finding) -> str:
    """``message`` preceded by where it is: ``at /events/3/t: ...`` or ``line 2 column 5: ...``."""
    if finding.parts is None:
        return f"{finding.place}: {finding.message}" if finding.place else finding.message
    return f"at {pointer(finding.parts) or '/'}: {finding.message}"


def pointer(parts) -> str:
    """RFC 6901 JSON pointer of a path of keys and indices."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def shown_number(literal: str) -> str:
    """A number's literal as a message quotes it: long ones cut, with their length."""
    if len(literal) <= 24:
        return literal
    return f"{literal[:12]}...{literal[-4:]} ({len(literal)} characters)"


def _walk(document: object, surrogates: bool):
    """Every finding below ``document`` in document order, without recursion."""
    stack: list[tuple[tuple, object]] = [((), document)]
    while stack:
        parts, node = stack.pop()
        if isinstance(node, _Flagged):
            yield Finding(NON_FINITE, parts, _non_finite_message(str(node)))
        elif isinstance(node, str):
            if surrogates and _lone_surrogate(node):
                yield Finding(NOT_JSON, parts, "a string holds a lone surrogate (\\ud800 to "
                              "\\udfff without its pair), which is not Unicode text")
        elif isinstance(node, dict):
            if surrogates:
                for key in node:
                    if _lone_surrogate(key):
                        yield Finding(NOT_JSON, parts, "a key holds a lone surrogate, which is "
                                      "not Unicode text")
            if isinstance(node, _Repeated):
                for key in node.repeated:
                    yield Finding(DUPLICATE_KEY, parts, f"duplicate key {json.dumps(key)}: "
                                  "JSON objects must not repeat a key (only the last value "
                                  "would be read)")
            stack.extend(((*parts, key), value) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend(((*parts, k), value) for k, value in reversed(list(enumerate(node))))


def _non_finite_message(literal: str) -> str:
    if literal.lstrip("-").isdigit():
        return (f"{shown_number(literal)} is too large a number: a double holds at most about "
                "1.8e308")
    return f"{shown_number(literal)} is not a JSON number"


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
