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


class _Pieces:
    """Pieces of a :class:`Document`, decoded in order as they are iterated (once): each one's
    text is let go, and its pages given back, as the next is asked for. A subclass gives the
    pieces (:meth:`_texts`: each piece's text and where it ends in the file) and how deep in
    their document they lie."""

    levels_above = 0

    def __init__(self, document: Document, length: int):
        self._document, self._length, self._read = document, length, False

    def __len__(self) -> int:
        return self._length

    def _texts(self):
        raise NotImplementedError

    def _values(self):
        if self._read:
            raise Unsure("the pieces were read once already")
        self._read = True
        document, decode = self._document, strict_json.fast_decoder()
        for text, end in self._texts():
            try:
                value = decode(text)
            except FAULTS:
                raise Unsure("a piece msgspec refuses") from None
            document.count([value], self.levels_above)
            document.done_up_to(end)
            yield value
        document.finish()


class Items(_Pieces):
    """The items of the document's big array (values)."""

    def __init__(self, document: Document, raws: list, levels_above: int):
        super().__init__(document, len(raws))
        self._raws, self.levels_above = raws, levels_above

    def _texts(self):
        raws, self._raws = self._raws, None
        raws.reverse()
        while raws:  # each raw let go once decoded
            raw = raws.pop()
            yield raw, self._document.end_of(raw)

    def __iter__(self):
        return self._values()


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
    except (*FAULTS, Unsure):
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


class Lines(_Pieces):
    """The values of a JSON Lines file, ``(line number, value)``."""

    def __init__(self, document: Document, begins, ends):
        super().__init__(document, len(begins))
        self._bounds = (begins, ends)

    def _texts(self):
        (begins, ends), self._bounds = self._bounds, None
        view = memoryview(self._document.memory)
        for begin, end in zip(begins.tolist(), ends.tolist()):
            yield view[begin:end], end
        view.release()

    def __iter__(self):
        return enumerate(self._values(), start=1)


def line_bounds(data):
    """Where each line of ``data`` (bytes or any buffer) begins and ends, as numpy arrays of
    byte offsets (a line ends at its line feed; nothing after the last one is no line). The
    line feeds are looked for a block at a time: a mask of the whole file would be a second copy
    of its size."""
    text = np.frombuffer(data, dtype=np.uint8)
    breaks = np.concatenate([np.flatnonzero(text[at:at + LINE_BLOCK] == 0x0A) + at
                             for at in range(0, len(text), LINE_BLOCK)]
                            or [np.zeros(0, dtype=np.intp)])
    begins = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(text)]))
    if begins[-1] == len(text):  # nothing after the last line feed: no line
        begins, ends = begins[:-1], ends[:-1]
    return begins, ends


LINE_BLOCK = 1 << 20  # bytes looked at for line feeds at a time


def _lines(memory) -> Document | None:
    """:func:`read` of JSON Lines: every line (up to a last line feed) starts with ``{`` or
    ``[`` (no blank line, no space before a value: else the whole way reads it)."""
    begins, ends = line_bounds(memory)
    text = np.frombuffer(memory, dtype=np.uint8)
    starts = text[np.minimum(begins, len(text) - 1)]
    if len(begins) < 2 or not ((starts == 0x7B) | (starts == 0x5B)).all():
        return None
    del text, starts
    document = Document(memory, None, strict_json.key_count(memory))
    document.value = Lines(document, begins, ends)
    return document
