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
import sys
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
    counted, line = 0, 1  # the line of byte ``counted`` (counted on from the last value)
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return found
        line, counted, seen = line + text.count("\n", counted, at), at, _Seen()
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
    """``data`` as text; a leading UTF-8 byte-order mark (which Windows tools write, and which
    RFC 8259 lets a parser ignore) is read as a space, so that columns stay where they are."""
    if not isinstance(data, str):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            from masrl.files import compressed_hint

            line = bytes(data)[:exc.start].count(b"\n") + 1
            return "", Finding(NOT_JSON, None, "not UTF-8 text" + compressed_hint(data),
                               f"byte {exc.start}", line=line)
    return (" " + data[1:] if data.startswith("\ufeff") else data), None


def _decoder(seen: _Seen) -> json.JSONDecoder:
    return json.JSONDecoder(object_pairs_hook=seen.pairs, parse_constant=seen.constant,
                            parse_float=seen.real, parse_int=seen.integer)


def _syntax(exc: json.JSONDecodeError) -> Finding:
    """The parser's fault, in its words less a dangling "at" ("Invalid control character at",
    "Unterminated string starting at": our messages say where), and what the text's first KiB
    shows of why (:func:`masrl.files.layout_hint`: UTF-16 without a byte-order mark, lines that
    end in a carriage return alone)."""
    from masrl.files import layout_hint

    said = _DANGLING_AT.sub("", exc.msg)
    return Finding(NOT_JSON, None, f"not JSON: {said}" + layout_hint(exc.doc),
                   f"line {exc.lineno} column {exc.colno}",
                   line=exc.lineno, column=exc.colno, syntax=said)


_DANGLING_AT = re.compile(r"( starting)? at$")


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
    """Why a number is refused: a literal JSON allows but a double cannot hold (``1e400``,
    ``-1e999``, a run of 400 digits), or one JSON does not allow (``NaN``, ``Infinity``)."""
    if _JSON_NUMBER.fullmatch(literal):
        return (f"{shown_number(literal)} is too large a number: a double holds at most about "
                "1.8e308")
    return f"{shown_number(literal)} is not a JSON number"


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# ------------------------------------------------------------------------------ fast decode
# The importers read megabytes of JSON whose every value is kept; the hooks above cost a Python
# call per object and per number. msgspec decodes the same text about three times as fast and
# already refuses what strict JSON refuses but two things: it keeps the last of repeated keys,
# and it reads integers of any size. So a fast decode is trusted only when, afterwards, the
# objects hold as many entries as the text has keys (:func:`key_count`: a count that is never
# short, and long only for a string that begins with a colon, which then goes the slow way), no
# integer is out of a double's range and the nesting is far from the recursion limit. Anything
# msgspec refuses, or any check doubts, goes down :func:`parse`, which finds the fault and
# words it: the fast decode never changes a document nor a message, only the time.

UNSURE = object()  # what the fast decode returns when the full path must decide
_DEPTH_MARGIN = 100  # levels short of the recursion limit that a fast decode may nest
_BIG_INT_BITS = 1000  # integers of more bits may be out of a double's range


def fast_values(data, spans: list[tuple[int, int]]) -> list:
    """The JSON value of ``data[begin:end]`` (bytes or any buffer) for each ``(begin, end)`` of
    ``spans`` (disjoint, in order, covering every key of ``data``), decoded by msgspec;
    :data:`UNSURE` in place of each one that is not certainly strict JSON (then :func:`parse`
    decides, see above)."""
    import msgspec

    view = memoryview(data)
    decode = fast_decoder()
    values = []
    for begin, end in spans:
        try:
            values.append(decode(view[begin:end]))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError,
                UnicodeDecodeError):
            values.append(UNSURE)
    keys = _key_quotes(data)
    decoded = [k for k, value in enumerate(values) if value is not UNSURE]
    if len(decoded) == len(spans) and entries_if_plain(values) == len(keys):
        return values  # each span's count is at least its entries: all equal (the usual case)
    counts = _counts_by_span(keys, spans)
    for k in decoded:  # which ones are in doubt
        if entries_if_plain([values[k]]) != counts[k]:
            values[k] = UNSURE
    return values


def fast_value(data: bytes) -> object:
    """The one JSON document of ``data`` (:func:`fast_values`), or :data:`UNSURE`."""
    return fast_values(data, [(0, len(data))])[0]


def parse_fast(data: bytes | str) -> tuple[object, list[Finding]]:
    """What :func:`parse` returns for ``data``, through msgspec when the text is certainly
    strict JSON (see above), else through :func:`parse` itself."""
    if isinstance(data, str) and len(data) < _LONG_TEXT:
        value = _fast_text_value(data)
    else:
        try:
            value = fast_value(data.encode("utf-8") if isinstance(data, str) else data)
        except UnicodeEncodeError:  # a lone surrogate in the text: parse says where
            value = UNSURE
    return parse(data) if value is UNSURE else (value, [])


def _fast_text_value(text: str) -> object:
    """:func:`fast_value` of a short text already decoded."""
    import msgspec

    try:
        value = msgspec.json.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeError):
        return UNSURE
    return value if entries_if_plain([value]) == key_count(text) else UNSURE


_DECODERS: dict = {}


def fast_decoder():
    """The decode of the fast path (msgspec's, untyped): the one every fast reader uses."""
    if "decode" not in _DECODERS:
        import msgspec

        _DECODERS["decode"] = msgspec.json.Decoder().decode
    return _DECODERS["decode"]


def entries_if_plain(values: list, levels_above: int = 0) -> int | None:
    """How many entries the objects of ``values`` hold, or ``None`` when an integer may be
    out of a double's range or the nesting is within reach of the recursion limit (there the
    two decoders may stop at different depths). One level at a time, without recursion (the
    caller's list counts as a level: it is one more than any document's own nesting);
    ``levels_above``: how deep in their document the values lie (a piece of one, see
    :mod:`masrl.traces.piecewise_json`)."""
    entries, depth, level = 0, levels_above, [values]
    deepest = sys.getrecursionlimit() - _DEPTH_MARGIN
    while level:
        depth += 1
        if depth > deepest:
            return None
        below: list = []
        push = below.append
        for node in level:
            if type(node) is dict:
                entries += len(node)
                node = node.values()
            for item in node:
                kind = type(item)
                if kind is str:
                    continue
                if kind is dict or kind is list:
                    push(item)
                elif kind is int and item.bit_length() > _BIG_INT_BITS:
                    return None
        level = below
    return entries


# ------------------------------------------------------------------------------ key count
# One count of the keys of a JSON text from its characters, without parsing it: a quote that is
# not escaped (after an even run of backslashes) and whose next character past whitespace is a
# colon. Every key's closing quote is one, so the count is never short; a string's opening quote
# followed by a colon (``":ok"``, ``"  :no"``) is one too, so it errs only high. Its users compare
# it with the entries their decoder kept (the importers' fast decode above; validation's fast
# path, :mod:`masrl.traces.repeated_keys`): equal means no key was repeated (nor skipped).

_LONG_TEXT = 1 << 14  # characters from which keys are counted on an array (vectorised)
_SPACED_KEY_END = re.compile(r'"[ \t\r\n]+:')  # a quote, whitespace, a colon
_KEY_CHUNK = 1 << 18  # bytes of text compared at a time (in cache; little memory)


def key_count(text) -> int:
    """How many keys the JSON ``text`` (str, bytes or any buffer) names, or more (see above)."""
    if isinstance(text, str) and len(text) < _LONG_TEXT:
        return _short_key_count(text)
    if isinstance(text, str):
        text = text.encode("utf-8")  # keys and their quotes are the same in UTF-8
    if len(text) <= _KEY_CHUNK:
        counted = _plain_key_count(text)
        if counted is not None:
            return counted
    return len(_key_quotes(text))


def _plain_key_count(data) -> int | None:
    """:func:`key_count` of a text of one chunk whose every counted quote is followed by its
    colon directly and follows no backslash (compact or indented JSON with plain keys), else
    ``None``: a few whole-text comparisons that count without listing the colons' positions
    (listing them took most of the time of :func:`_key_quotes` on a trace of a few hundred
    events)."""
    import numpy as np

    text = np.frombuffer(data, dtype=np.uint8)
    colon = text[1:] == 0x3A  # byte 0 opens the text: no colon before it
    before = text[:-1]
    if (colon & (before <= 0x20)).any():  # a colon after whitespace (or a control byte)
        return None
    quoted = colon & (before == 0x22)  # at k: a quote at k, its colon at k + 1
    if (quoted[1:] & (text[:-2] == 0x5C)).any():  # a quote after a backslash: maybe escaped
        return None
    return int(np.count_nonzero(quoted))


def _short_key_count(text: str) -> int:
    """:func:`key_count` of a short text by string search: each ``":`` less those whose quote
    is escaped, plus the quotes followed by whitespace, then a colon."""
    found = text.count('":')
    if '\\":' in text:  # quotes after a run of backslashes: an odd run escapes the quote
        run, sign = "\\", -1
        while (after := text.count(run + '":')):  # quotes after at least len(run) of them
            found += sign * after
            run, sign = run + "\\", -sign
    for spaced in _SPACED_KEY_END.finditer(text):
        begin = at = spaced.start()
        while at and text[at - 1] == "\\":
            at -= 1
        found += (begin - at) % 2 == 0
    return found


def _key_quotes(data):
    """Positions of the quotes :func:`key_count` counts in ``data`` (bytes or any buffer), in
    order, as a numpy array: a few vectorised passes, a chunk of text at a time."""
    import numpy as np

    text = np.frombuffer(data, dtype=np.uint8)
    white = np.zeros(256, dtype=bool)
    white[list(b" \t\r\n")] = True
    found = []
    for begin in range(1, len(text), _KEY_CHUNK):  # byte 0 opens the text: no colon before it
        colons = np.flatnonzero(text[begin:begin + _KEY_CHUNK] == 0x3A) + (begin - 1)
        before = text[colons]  # colons now hold the position just before each colon
        spaced = np.flatnonzero(white[before])
        while len(spaced):  # step back over whitespace ("a" : 1), a byte a round
            colons[spaced] -= 1
            spaced = spaced[colons[spaced] >= 0]
            before[spaced] = text[colons[spaced]]
            spaced = spaced[white[before[spaced]]]
        quotes = colons[before == 0x22]  # (a colon stepped back past byte 0 keeps its space)
        found.append(quotes[_unescaped(text, quotes)])
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _unescaped(text, quotes):
    """Which of the ``quotes`` (positions in ``text``) follow an even run of backslashes."""
    import numpy as np

    keep = np.ones(len(quotes), dtype=bool)
    going = np.flatnonzero(text[quotes - 1] == 0x5C)  # the few after a backslash
    going = going[quotes[going] > 0]  # (a quote at byte 0 has none before it)
    run = 1
    while len(going):
        keep[going] = run % 2 == 0
        at = quotes[going] - run - 1
        going = going[at >= 0]
        going = going[text[quotes[going] - run - 1] == 0x5C]
        run += 1
    return keep


def _counts_by_span(quotes, spans: list[tuple[int, int]]) -> list[int]:
    """How many of the key ``quotes`` each span holds (one past its end counts in it too)."""
    import numpy as np

    begins = np.array([begin for begin, _ in spans], dtype=np.int64)
    owner = np.searchsorted(begins, quotes, side="right") - 1
    return np.bincount(owner[owner >= 0], minlength=len(spans)).tolist()
