"""Whether a JSON text names a key twice in one object, without parsing it into Python objects.

The fast path (:mod:`masrl.traces.schema`) decodes events and edges into msgspec Structs, which
keep the last value of a repeated field: ``{"id": "a", ..., "id": "b"}`` would be read as
``"b"`` where strict JSON (:mod:`.strict_json`) refuses the event. The fast path must never
accept what the full path refuses, so every event and edge array it decodes is checked here, in
two stages:

1. :func:`keys_match_records` (the usual case, a few C-level passes over the text): the
   records, encoded again with their absent fields left out, must hold exactly as many ``":``
   pairs (a key's closing quote and its colon) as the text. Every key of a record is a scalar
   field, so a repeated or unknown field adds a pair the encoding does not have. The stage
   only answers when the text has no pattern that could hide a key from the count or add one
   to the encoding alone: whitespace before a colon (``"id" : 1``), or a quote or colon written
   as a ``\\u`` escape. Otherwise it cannot tell.
2. :func:`may_repeat_keys` (when unsure, e.g. events that carry fields of their own): a
   vectorised scan of the text's structure. Quotes not escaped delimit strings; a string
   followed (past any whitespace) by a colon is a key; the brackets outside strings give each
   key the object that holds it, and keys are compared within their object by length, first
   eight bytes and, when those agree, whole. A key holding a backslash could equal another
   one spelled differently (``"a"``, ``"\\u0061"``): then the answer is "maybe".

Either stage errs only towards "maybe", which sends the file down the full path, where strict
JSON decides and says where the repeated key is.
"""

from __future__ import annotations

import msgspec
import numpy as np

_ENCODER = msgspec.json.Encoder()
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[0x20, 0x09, 0x0A, 0x0D]] = True
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
QUOTE, BACKSLASH, COLON = 0x22, 0x5C, 0x3A
# Escapes that spell a quote or a colon (the encoder writes both plainly inside a string).
ESCAPES = (b"u0022", b"u003a", b"u003A")
CHUNK = 1 << 22  # bytes of text scanned at a time, so that a large file needs little memory
RECORDS_AT_ONCE = 1 << 14  # records encoded at a time, for the same reason


def keys_match_records(text, records: list) -> bool:
    """Whether ``text`` (a JSON array of objects, as bytes or any buffer) certainly has no key
    beyond the fields of ``records``, its decoded Structs (which leave absent fields out when
    encoded): as many ``":`` pairs as their encoding, no whitespace before a colon, no quote or
    colon spelled as an escape. ``False`` means "cannot tell"."""
    data = np.frombuffer(text, dtype=np.uint8)
    found = 0
    for begin in range(1, len(data), CHUNK):  # byte 0 opens the array: no colon before it
        colons = np.flatnonzero(data[begin:begin + CHUNK] == COLON) + begin
        before = data[colons - 1]
        if _SPACE[before].any() or _spelled_escapes(data, begin):
            return False
        found += int(np.count_nonzero(before == QUOTE))
    expected = 0
    for first in range(0, len(records), RECORDS_AT_ONCE):
        encoded = np.frombuffer(_ENCODER.encode(records[first:first + RECORDS_AT_ONCE]),
                                dtype=np.uint8)
        expected += int(np.count_nonzero(encoded[np.flatnonzero(encoded == COLON) - 1] == QUOTE))
    return found == expected


def _spelled_escapes(data: np.ndarray, begin: int) -> bool:
    """Whether a backslash in the chunk at ``begin`` starts one of :data:`ESCAPES`."""
    slashes = np.flatnonzero(data[begin:begin + CHUNK] == BACKSLASH)
    if not len(slashes):
        return False
    slashes += begin
    last = len(data) - 1
    spelled = np.stack([data[np.minimum(slashes + k, last)] for k in range(1, 6)], axis=1)
    escapes = np.frombuffer(b"".join(ESCAPES), dtype=np.uint8).reshape(len(ESCAPES), 5)
    return bool((spelled[:, None, :] == escapes[None, :, :]).all(axis=2).any())


def may_repeat_keys(text) -> bool:
    """Whether some object of ``text`` (valid JSON, as bytes or any buffer) may name a key
    twice; ``False`` is certain."""
    data = np.frombuffer(text, dtype=np.uint8)
    size = len(data)
    quotes = _unescaped_quotes(data)
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
    alike = np.flatnonzero(mixed[order][1:] == mixed[order][:-1])
    for k in alike.tolist():  # equal in the mix: compare object, then the key itself
        i, j = int(order[k]), int(order[k + 1])
        if owner[i] == owner[j] and (data[start[i]:end[i]].tobytes()
                                     == data[start[j]:end[j]].tobytes()):
            return True
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
