"""Whether a JSON text names a key twice in one object, or holds a number strict JSON refuses,
without parsing it into Python objects.

The fast path (:mod:`masrl.traces.columns`) decodes events and edges into msgspec Structs, which
keep the last value of a repeated field: ``{"id": "a", ..., "id": "b"}`` would be read as
``"b"`` where strict JSON (:mod:`.strict_json`) refuses the event. And msgspec checks the range
of the numbers it decodes, not of those it skips (an event's own ``x_`` fields): ``1e400``
there would pass. The fast path must never accept what the full path refuses, so every chunk of
events and edges it decodes is checked here, in two stages:

1. :func:`key_count` (the usual case; the one count of keys, shared with the importers' fast
   decode, defined in :mod:`masrl.traces.strict_json`): the keys of the text, counted as quotes
   not escaped whose next byte past whitespace is a colon, must be exactly the fields the
   decoded records hold, which the caller counts from its columns. Every field a record holds
   is one key of the text, so a repeated key or a field the records skip adds one; a string
   beginning with a colon (``":x"``) adds one too, so the count errs only high.
2. :func:`certainly_strict` (when the count does not match, e.g. events that carry fields of
   their own): a vectorised scan of the text's structure. Quotes not escaped delimit strings; a
   string followed (past any whitespace) by a colon is a key; the brackets outside strings give
   each key the object that holds it, and keys are compared within their object by length,
   first eight bytes and, when those agree, whole. A key holding a backslash could equal another
   one spelled differently (``"a"``, ``"\\u0061"``): then the answer is "maybe". Numbers outside
   strings that could be out of a double's range (an exponent of three digits or more, a run of
   a hundred digits or more) are read and judged by strict JSON's one number rule
   (:func:`masrl.traces.strict_json.finite_number`).

Either stage errs only towards "maybe", which sends the file down the full path, where strict
JSON decides and says where the repeated key or the number is.
"""

from __future__ import annotations

import re

import numpy as np

from masrl.traces.strict_json import finite_number, key_count

__all__ = ["certainly_strict", "key_count", "may_repeat_keys"]

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[0x20, 0x09, 0x0A, 0x0D]] = True
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
QUOTE, BACKSLASH, COLON = 0x22, 0x5C, 0x3A
LONG_DIGITS = 100  # a run of digits this long may be a number no double holds
_NUMBER = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def certainly_strict(text) -> bool:
    """Whether ``text`` (valid JSON, as bytes or any buffer) certainly repeats no key in any
    object and holds no number outside its strings that strict JSON refuses; ``False`` means
    "maybe"."""
    data = np.frombuffer(text, dtype=np.uint8)
    quotes = _unescaped_quotes(data)
    return not (_may_repeat_keys(data, quotes) or _out_of_range_number(text, data, quotes))


def may_repeat_keys(text) -> bool:
    """Whether some object of ``text`` (valid JSON, as bytes or any buffer) may name a key
    twice; ``False`` is certain."""
    data = np.frombuffer(text, dtype=np.uint8)
    return _may_repeat_keys(data, _unescaped_quotes(data))


def _out_of_range_number(text, data: np.ndarray, quotes: np.ndarray) -> bool:
    """Whether a number outside the strings of ``text`` is one no double holds."""
    digit = (data >= 0x30) & (data <= 0x39)
    marks = np.flatnonzero((data[1:] | 0x20) == 0x65) + 1  # "e" or "E" after the first byte
    marks = marks[digit[marks - 1]]
    size = len(data)
    after = np.minimum(marks + 1, size - 1)
    after += (data[after] == 0x2B) | (data[after] == 0x2D)  # a sign
    long_exponent = np.ones(len(marks), dtype=bool)
    for k in range(3):
        at = after + k
        long_exponent &= (at < size) & digit[np.minimum(at, size - 1)]
    suspects = [marks[long_exponent]]
    edges = np.flatnonzero(np.diff(digit.astype(np.int8), prepend=0, append=0))
    starts, ends = edges[0::2], edges[1::2]  # runs of digits: [start, end)
    suspects.append(starts[ends - starts >= LONG_DIGITS])
    found = np.concatenate(suspects)
    outside = (np.searchsorted(quotes, found, side="right") & 1) == 0
    for position in found[outside].tolist():
        begin = position
        while begin > 0 and data[begin - 1] in b"0123456789.eE+-":
            begin -= 1
        literal = _NUMBER.match(text, begin)
        if literal is None or not finite_number(literal.group().decode("ascii")):
            return True
    return False


def _may_repeat_keys(data: np.ndarray, quotes: np.ndarray) -> bool:
    size = len(data)
    if len(quotes) < 4:  # fewer than two keys
        return False
    closing = quotes[1::2]
    follower = _next_solid(data, closing + 1)
    keys = np.flatnonzero(follower == COLON)
    if len(keys) < 2:
        return False
    start, end = quotes[2 * keys] + 1, closing[keys]
    if _escape_in_keys(data, start, end):
        return True
    owner = _owners(data, quotes, start)
    lengths = end - start
    padded = np.zeros(size + 8, dtype=np.uint8)
    padded[:size] = data
    words = np.ndarray((size,), dtype="<u8", buffer=padded, strides=(1,))[start]
    words &= _LOW_BYTES[np.minimum(lengths, 8)]  # the key's first eight bytes, zero-padded
    mixed = (words ^ (lengths.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
             ^ (owner.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)))
    order = np.argsort(mixed)
    ranked = mixed[order]
    alike = np.flatnonzero(ranked[1:] == ranked[:-1])
    if not len(alike):
        return False
    # keys equal in the mix, group by group (a group may hold keys of other objects whose
    # bytes were chosen to collide): a key is repeated when its object and bytes come twice
    first = alike[np.concatenate([[True], np.diff(alike) > 1])]
    for k in first.tolist():
        seen = set()
        j = k
        while j < len(ranked) and ranked[j] == ranked[k]:
            i = int(order[j])
            key = (int(owner[i]), data[start[i]:end[i]].tobytes())
            if key in seen:
                return True
            seen.add(key)
            j += 1
    return False


def _unescaped_quotes(data: np.ndarray) -> np.ndarray:
    """Positions of the quotes that open or close a string (a quote after an odd run of
    backslashes is part of a string)."""
    quotes = np.flatnonzero(data == QUOTE)
    suspects = np.flatnonzero(data[np.maximum(quotes - 1, 0)] == BACKSLASH)
    if not len(suspects):
        return quotes
    slashes = np.flatnonzero(data == BACKSLASH)
    first_of_run = np.ones(len(slashes), dtype=bool)
    first_of_run[1:] = slashes[1:] != slashes[:-1] + 1
    run_start = slashes[np.maximum.accumulate(np.where(first_of_run, np.arange(len(slashes)), 0))]
    escaped = quotes[suspects]
    run = escaped - run_start[np.searchsorted(slashes, escaped - 1)]
    keep = np.ones(len(quotes), dtype=bool)
    keep[suspects] = run % 2 == 0
    return quotes[keep]


def _next_solid(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The first byte at or after each position that is not whitespace (a quote if none)."""
    last = len(data) - 1
    at = np.minimum(positions, last)
    found = data[at]
    spaced = np.flatnonzero(_SPACE[found] & (positions <= last))
    while len(spaced):
        at[spaced] += 1
        spaced = spaced[at[spaced] <= last]
        found[spaced] = data[at[spaced]]
        spaced = spaced[_SPACE[found[spaced]]]
    found[positions > last] = QUOTE
    return found


def _escape_in_keys(data: np.ndarray, start: np.ndarray, end: np.ndarray) -> bool:
    """Whether some key holds a backslash (an escape: two spellings of one key)."""
    slashes = np.flatnonzero(data == BACKSLASH)
    if not len(slashes):
        return False
    return bool((np.searchsorted(slashes, end) > np.searchsorted(slashes, start)).any())


def _owners(data: np.ndarray, quotes: np.ndarray, start: np.ndarray) -> np.ndarray:
    """For each key (by its first byte), a number naming the object that holds it: the rank,
    by (depth, position), of the last bracket opened at the key's depth before it."""
    folded = data | 0x20  # "[" -> "{", "]" -> "}"
    brackets = np.flatnonzero((folded == 0x7B) | (folded == 0x7D))
    brackets = brackets[(np.searchsorted(quotes, brackets) & 1) == 0]  # outside strings
    opening = (data[brackets] & 0x02) != 0  # "{" and "[" have bit 1 set, "}" and "]" not
    depth = np.cumsum(np.where(opening, 1, -1))  # depth after each bracket
    key_depth = depth[np.searchsorted(brackets, start) - 1]
    span = len(data) + 1
    openers = np.sort(depth[opening] * span + brackets[opening])
    return np.searchsorted(openers, key_depth * span + start)
