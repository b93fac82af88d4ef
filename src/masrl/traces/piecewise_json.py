"""A large JSON file decoded a piece at a time: one document's big array an item at a time, or
JSON Lines a line at a time.

A span export is mostly one array (``{"spans": [...]}``, or the array itself). Decoded whole,
the file's text (1x) and every decoded span (2x and more, as Python objects) are alive at once:
three times the file at the peak. Here the file is read into anonymous memory
(:func:`masrl.files.read_releasable`), its top level decoded with each value left as
``msgspec.Raw`` (a view of the text, not a copy), and the array's items are decoded one at a
time as the reader asks for them; the pages of the text behind them are given back as it goes.
The reader keeps what it needs of each item, and the text does not stay beside it. JSON Lines
(a collector's file of spans) are read the same way, a line at a time.

Nothing is trusted that the whole decode would not trust (:mod:`masrl.traces.strict_json`): the
same decoder, the same plain checks on each piece (no integer out of a double's range, nesting
counted from the document's top), and at the end as many entries in all the pieces as the text
has keys. Anything else, and any error the reader raises on the way, is :class:`Unsure`: the
caller then reads the file the whole way, which finds the fault and words it as before (a
document's first fault may lie past the item a reader would refuse). The document's value is
never changed, only the memory it takes.
"""

from __future__ import annotations

import contextlib
import os

import msgspec
import numpy as np

from masrl import files
from masrl.traces import strict_json

GIVE_BACK_EVERY = 1 << 20  # bytes of text decoded between two gives back of its pages
FAULTS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError)


class Unsure(Exception):
    """The piecewise decode cannot vouch for the document: read it the whole way."""


class Items:
    """The items of the document's big array, decoded in order as they are iterated (once):
    each one's text is let go, and its pages given back, as the next is asked for."""

    def __init__(self, document: Document, raws: list, levels_above: int):
        self._document, self._raws, self._levels = document, raws, levels_above
        self._length = len(raws)

    def __len__(self) -> int:
        return self._length

    def __iter__(self):
        document, raws = self._document, self._raws
        if raws is None:
            raise Unsure("the items were read once already")
        self._raws = None
        decode = strict_json.fast_decoder()
        raws.reverse()
        while raws:
            raw = raws.pop()
            try:
                value = decode(raw)
            except FAULTS:
                raise Unsure("an item msgspec refuses") from None
            document.count([value], self._levels)
            document.done_up_to(document.end_of(raw))
            del raw
            yield value
        document.finish()


class Document:
    """A document read piecewise: :attr:`value` is its top level (an object or an array) with
    its big array as :class:`Items`; :meth:`close` lets the file's memory go."""

    def __init__(self, memory, value, keys: int):
        self.memory, self.value, self.keys = memory, value, keys
        self.entries = 0
        self.finished = False
        self._released = 0
        self._base = np.frombuffer(memory, dtype=np.uint8).__array_interface__["data"][0]

    def count(self, values: list, levels_above: int) -> None:
        entries = strict_json.entries_if_plain(values, levels_above)
        if entries is None:
            raise Unsure("an integer out of a double's range, or nesting near the limit")
        self.entries += entries

    def end_of(self, raw) -> int:
        """Where the text of ``raw`` (a view into the file's memory) ends in the file."""
        address = np.frombuffer(raw, dtype=np.uint8).__array_interface__["data"][0]
        return address - self._base + len(raw)

    def done_up_to(self, end: int) -> None:
        """Every byte before ``end`` has been decoded: give back the pages behind it."""
        if end - self._released >= GIVE_BACK_EVERY:
            self._released = files.give_back(self.memory, self._released, end)

    def finish(self) -> None:
        if self.entries != self.keys:  # a repeated key (or a string that starts with ':')
            raise Unsure("the pieces hold fewer entries than the text has keys")
        self.finished = True

    def close(self) -> None:
        self.value = None
        with contextlib.suppress(BufferError):  # a piece still refers to it: freed with it
            self.memory.close()


def read(path, key: str, released_from: int) -> Document | None:
    """The JSON at ``path`` read piecewise, when it is at least ``released_from`` bytes long
    and either one document, an object whose ``key`` holds an array or an array
    (:attr:`Document.value` is then that object or array, the array as :class:`Items`), or
    JSON Lines whose every line starts an object or an array (:attr:`Document.value` is then
    :class:`Lines`). ``None`` otherwise (too small, neither, or refused by msgspec at its top:
    the caller reads it the whole way). Raises what :func:`masrl.files.read_releasable` raises
    for a file that cannot be read."""
    try:
        small = os.stat(path).st_size < max(released_from, 1)
    except OSError:  # the whole way says why
        return None
    if small or not files.GIVES_BACK:
        return None
    memory = files.read_releasable(path, released_from=max(released_from, 1))
    if not hasattr(memory, "madvise"):  # bytes: the file changed size as it was read
        return None
    if memory[:1] not in (b"{", b"["):  # a byte-order mark or leading space: the whole way
        memory.close()
        return None
    document = _one_document(memory, key) or _lines(memory)
    if document is None:
        memory.close()
    return document


def _one_document(memory, key: str) -> Document | None:
    raw_value = msgspec.Raw
    try:
        top = msgspec.json.decode(memory, type=dict[str, raw_value] | list[raw_value])
        items = None
        if isinstance(top, dict):
            if key not in top:
                raise Unsure("no such array")
            items = msgspec.json.decode(top[key], type=list[raw_value])
        keys = strict_json.key_count(memory)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, Unsure):
        return None
    document = Document(memory, None, keys)
    try:
        if isinstance(top, dict):
            document.entries += len(top)
            decode = strict_json.fast_decoder()
            value = {}
            for name, raw in top.items():
                if name == key:
                    value[name] = Items(document, items, levels_above=2)
                    continue
                value[name] = decode(raw)
                document.count([value[name]], 1)
        else:
            value = Items(document, top, levels_above=1)
    except (*FAULTS, Unsure):
        top = items = document.memory = None
        return None
    del top, items
    document.value = value
    return document


class Lines:
    """The values of a JSON Lines file, ``(line number, value)``, decoded in order as they are
    iterated (once), the pages behind them given back as it goes."""

    def __init__(self, document: Document, begins, ends):
        self._document, self._spans = document, (begins, ends)
        self._length = len(begins)

    def __len__(self) -> int:
        return self._length

    def __iter__(self):
        document, spans = self._document, self._spans
        if spans is None:
            raise Unsure("the lines were read once already")
        self._spans = None
        decode, view = strict_json.fast_decoder(), memoryview(document.memory)
        for number, (begin, end) in enumerate(zip(*(s.tolist() for s in spans)), start=1):
            try:
                value = decode(view[begin:end])
            except FAULTS:
                raise Unsure("a line msgspec refuses") from None
            document.count([value], 0)
            document.done_up_to(end)
            yield number, value
        view.release()
        document.finish()


def _lines(memory) -> Document | None:
    """:func:`read` of JSON Lines: every line (up to a last line feed) starts with ``{`` or
    ``[`` (no blank line, no space before a value: else the whole way reads it)."""
    text = np.frombuffer(memory, dtype=np.uint8)
    breaks = np.flatnonzero(text == 0x0A)
    begins = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(text)]))
    if begins[-1] == len(text):  # nothing after the last line feed: no line
        begins, ends = begins[:-1], ends[:-1]
    starts = text[np.minimum(begins, len(text) - 1)]
    if len(begins) < 2 or not ((starts == 0x7B) | (starts == 0x5B)).all():
        return None
    del text, starts
    document = Document(memory, None, strict_json.key_count(memory))
    document.value = Lines(document, begins, ends)
    return document
