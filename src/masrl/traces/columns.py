"""The fast path: a trace file decoded straight into columns, a few megabytes at a time.

The typed records of :mod:`masrl.traces.schema` check the rules of ``$defs/event`` and
``$defs/edge`` in C while msgspec decodes them; a million of them would take about 550 MB
(a Struct, strings and floats per event). So the events (then the edges) are decoded in chunks
of about :data:`CHUNK_BYTES` of text, each chunk's records are turned into columns while they
are still in the processor's cache (a pass per field), and the records are dropped before the
next chunk is decoded: what stays is one column per field
(:class:`ColumnRecords`): floats for numbers (NaN where absent), integer codes into the values in
order of first appearance for strings that repeat (agents, roles, tools, types), the ids and the
``content_ref`` hashes as lists, an event's ``content`` (version 1.2) as the
:class:`masrl.traces.schema.ContentRecord` msgspec decoded, by position, where an event has it,
and, for edges, the positions of the events their ends name.

Chunks are cut at ``}, {`` between two elements of the array, found by a search from every
:data:`CHUNK_BYTES`. The whole array was already read as JSON (msgspec's parse of the top
level checks the syntax of every value it skips), so a chunk that is not JSON was cut inside an
element (in a string, or in an object of an event's own field): the cut moves on to the next
``}, {``, at most :data:`RECUTS` times, then the rest is decoded in one piece.

What the records cannot see is checked around them, chunk by chunk, so that the fast path never
accepts what strict JSON (:mod:`masrl.traces.strict_json`) refuses:

* bytes that are not UTF-8 (msgspec checks the strings it decodes, not those it skips);
* a repeated key: the keys of a chunk's text (:func:`masrl.traces.repeated_keys.key_count`)
  must be exactly the fields its records hold, counted from the columns while they are built
  (so the records are never encoded again). Every present field is one key, so a repeated key,
  or a field of the event's own (``x_...``, skipped), makes the text hold more: the chunk's
  structure is then scanned (:func:`masrl.traces.repeated_keys.certainly_strict`), which also
  refuses a number strict JSON refuses in a skipped field (``1e400``: msgspec checks the range of
  the numbers it decodes, not of those it skips);
* a repeated top-level key: every top-level member is located in the file (its Raw members are
  slices of it), and the text between consecutive members must be exactly one key;
* a repeated key, a non-finite number or a lone surrogate in the head (everything but
  ``events`` and ``edges``): its members are read by strict JSON and checked by the schema.

``None`` from :func:`decode` does not mean invalid: it means "take the full path", which
decides and explains.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import compress, repeat
from operator import attrgetter, countOf, is_not
from typing import Annotated, get_args, get_origin

import msgspec
import numpy as np
from msgspec import Meta
from msgspec.structs import astuple

from masrl.files import give_back
from masrl.traces import repeated_keys, strict_json
from masrl.traces.graph import FirstSeen, IdIndex
from masrl.traces.schema import (
    BULK,
    MODEL_MARK,
    EdgeRecord,
    EventRecord,
    ModelCallRecord,
    TraceRecord,
    head_validator,
)

CHUNK_BYTES = 1 << 20  # text decoded at a time: about 5,000 events, whose records stay in cache
EDGE_CHUNK_BYTES = 1 << 23  # edges: about 130,000 at a time, their ends looked up together
IN_C_RECORDS = 8192  # records few enough to be transposed in C whatever their kind (see _Columns)
RECUTS = 8  # cuts that may fall inside an element before the rest is decoded whole
_BOUNDARY = re.compile(rb"}\s*,\s*{")
_MODEL_MARK = re.compile(re.escape(MODEL_MARK))
_MEMBER_GAP = re.compile(rb'\s*[{,]\s*"(?:[^"\\\x00-\x1f]|\\.)*"\s*:\s*')
_CLOSING = re.compile(rb"\s*}\s*")

_TOP = msgspec.json.Decoder(TraceRecord)
_FIRST_EVENTS = msgspec.json.Decoder(Annotated[list[EventRecord], Meta(min_length=1)])
_EVENTS = msgspec.json.Decoder(list[EventRecord])
_EDGES = msgspec.json.Decoder(list[EdgeRecord])
_MODEL_CALLS = msgspec.json.Decoder(list[ModelCallRecord])


class Unreadable(ValueError):
    """Raised inside :func:`decode` when the fast path cannot decide: take the full path."""


# ---------------------------------------------------------------------------------- columns

@dataclass
class Coded:
    """A field as integer codes into its values in order of first appearance (``None``, the
    absent value, is a value like the others)."""

    codes: np.ndarray  # int32, one per record
    names: list


@dataclass
class Ends:
    """An edge end as the position of the event it names (-1: no event has that id); the names
    no event has, by edge position."""

    positions: np.ndarray  # int64
    ids: list[str]  # the events' ids
    unknown: dict[int, str]


@dataclass
class Sparse:
    """A field most records lack (``x_model``, ``x_usage``, an event's ``content``): its values
    where a record has it."""

    values: dict[int, object]


class ColumnRecords:
    """The events (or the edges) of a trace as columns, read through the same methods as
    :class:`masrl.traces.graph.Records` reads decoded dictionaries (every method answers the same
    for both, which ``tests/traces/test_fast_path.py`` checks).

    ``index`` is the :class:`masrl.traces.graph.IdIndex` of the events' ids, built once by the
    fast path (the edges' ends are resolved through it while they are decoded).
    """

    structs = True  # not dictionaries (kept for the callers that ask)

    def __init__(self, count: int, fields: dict[str, object], index=None):
        self.count = count
        self.fields = fields
        self.index = index

    def __len__(self) -> int:
        return self.count

    def _field(self, key: str):
        if key not in self.fields:
            raise KeyError(f"{key} was not kept: validate_file(..., fields=...) names the "
                           "fields kept")
        return self.fields[key]

    def column(self, key: str) -> list:
        """A required field of every record."""
        return self.optional(key)

    def optional(self, key: str, default=None) -> list:
        """A field of every record, ``default`` where it is absent."""
        found = self._field(key)
        if isinstance(found, list):
            return found if default is None else [default if v is None else v for v in found]
        if isinstance(found, Coded):
            names = [default if name is None else name for name in found.names]
            return list(map(names.__getitem__, found.codes.tolist()))
        if isinstance(found, Ends):
            ids, unknown = found.ids, found.unknown
            return [ids[p] if p >= 0 else unknown[k]
                    for k, p in enumerate(found.positions.tolist())]
        if isinstance(found, Sparse):
            values = [default] * self.count
            for i, value in found.values.items():
                values[i] = value
            return values
        return [default if v != v else v for v in found.tolist()]  # NaN: absent

    def numbers(self, key: str, default: float = np.nan) -> np.ndarray:
        """A numeric field of every record as float64, ``default`` where it is absent."""
        values = self._field(key)
        if np.isnan(default):
            return values
        values = values.copy()
        values[np.isnan(values)] = default
        return values

    def codes(self, key: str, known: dict | None = None,
              dtype: type = np.int64) -> tuple[np.ndarray, list]:
        """A string field as integer codes: ``(codes, names)`` with ``names[codes[i]]`` the
        value of record ``i`` (``None`` where absent); with ``known`` (value -> code; a
        :class:`FirstSeen` grows as new values come) the codes are those, else values are
        numbered in order of first appearance."""
        found = self._coded(key)
        if known is None:
            return found.codes.astype(dtype), list(found.names)
        remap = np.fromiter(map(known.__getitem__, found.names), dtype=dtype,
                            count=len(found.names))
        return remap[found.codes], list(known)

    def counts(self, key: str, default=None) -> Counter:
        """How often each value of a string field occurs (``default`` counting the absent)."""
        found = self._coded(key)
        tally = np.bincount(found.codes, minlength=len(found.names)).tolist()
        seen = Counter()
        for name, count in zip(found.names, tally):
            if count:
                seen[default if name is None else name] += count
        return seen

    def value(self, i: int, key: str, default=None):
        """One field of record ``i``."""
        found = self._field(key)
        if isinstance(found, list):
            value = found[i]
        elif isinstance(found, Coded):
            value = found.names[found.codes[i]]
        elif isinstance(found, Ends):
            p = int(found.positions[i])
            value = found.ids[p] if p >= 0 else found.unknown[i]
        elif isinstance(found, Sparse):
            value = found.values.get(i)
        else:
            value = float(found[i])
            value = None if value != value else value
        return default if value is None else value

    def _coded(self, key: str) -> Coded:
        found = self._field(key)
        if isinstance(found, Coded):
            return found
        table = FirstSeen()
        codes = np.fromiter(map(table.__getitem__, self.optional(key)), dtype=np.int32,
                            count=self.count)
        return Coded(codes, list(table))

    def present(self, key: str) -> dict[int, object]:
        """Record position -> value, for the records that have an extension field
        (``x_model``, ``x_usage``; empty when no event names a model)."""
        found = self.fields.get(key)
        return dict(found.values) if isinstance(found, Sparse) else {}


class _Columns:
    """Columns of one array being built, chunk by chunk, and the number of keys they hold."""

    def __init__(self, record: type, ends: tuple[str, ...] = (), keep=None, in_c=True):
        self.in_c = in_c  # transpose the records in C (see transposed)
        layout = _layout(record, ends, None if keep is None else frozenset(keep))
        (self.attributes, self.ends, self.counted, self.numbers, self.listed, self.objects,
         self.coded, self.defaults) = layout
        self.present_objects: dict[str, dict[int, object]] = {name: {} for name in self.objects}
        self.parts: dict[str, object] = {name: [] for name in self.listed}
        self.parts.update({name: Growing(np.float64) for name in self.numbers})
        self.parts.update({name: Growing(np.int32) for name in self.coded})
        self.tables = {name: FirstSeen() for name in self.coded}
        self.count = 0

    def transposed(self, records: list) -> dict[str, tuple | list]:
        """Attribute -> a chunk's values of that field. ``in_c``: made in C (``astuple``, then
        ``zip``), a tuple per record on the way, which pays for records of many fields in
        chunks that stay in the processor's cache (events); else an attribute look-up per
        record and field (edges: five fields, a hundred thousand at a time). A chunk of up
        to :data:`IN_C_RECORDS` records stays in cache either way, and is made in C (a trace's
        few hundred edges: 38 us against 59)."""
        if not self.in_c and len(records) > IN_C_RECORDS:
            return {name: list(map(attrgetter(name), records)) for name in self.attributes}
        return dict(zip(self.attributes, zip(*map(astuple, records)))) or dict.fromkeys(
            self.attributes, ())  # no records: no tuples from zip

    def add(self, records: list) -> int:
        """Add a chunk's records; the number of fields they hold (their keys in the text)."""
        return self.add_fields(self.transposed(records), len(records))

    def add_fields(self, by_field: dict[str, tuple | list], n: int) -> int:
        """:meth:`add` for a chunk's ``n`` records already :meth:`transposed`."""
        held = n * len(self.ends)  # required fields
        for name in self.numbers:
            values = np.fromiter(by_field[name], dtype=np.float64, count=n)
            self.parts[name].extend(values)
            held += n - int(np.count_nonzero(np.isnan(values)))
        for name in self.listed:
            values = by_field[name]
            self.parts[name].extend(values)
            held += n - countOf(values, None)
        for name in self.counted:  # absent: the default itself (one None, one NaN object)
            if name not in self.objects:
                held += n - countOf(by_field[name], self.defaults[name])
        for name, keys in self.objects.items():
            kept = self.present_objects[name] if name not in self.counted else None
            values = by_field[name]
            if countOf(values, None) == n:
                continue
            for k in compress(range(n), map(is_not, values, repeat(None))):
                held += 1 + keys.held(values[k])
                if kept is not None:
                    kept[self.count + k] = values[k]
        for name in self.coded:
            table = self.tables[name]
            codes = np.fromiter(map(table.__getitem__, by_field[name]), dtype=np.int32, count=n)
            self.parts[name].extend(codes)
            if None in table:
                held += n - int(np.count_nonzero(codes == table[None]))
            else:
                held += n
        self.count += n
        return held

    def reserve(self, count: int) -> None:
        """Make room for ``count`` records in every column (an estimate: more may come)."""
        for part in self.parts.values():
            if isinstance(part, Growing):
                part.reserve(count)

    def fields(self) -> dict[str, object]:
        """JSON name -> column."""
        found: dict[str, object] = {}
        for name in self.numbers:
            values = self.parts[name].values()
            values.flags.writeable = False
            found[self.attributes[name]] = values
        for name in self.listed:
            found[self.attributes[name]] = self.parts[name]
        for name in self.coded:
            found[self.attributes[name]] = Coded(self.parts[name].values(),
                                                 list(self.tables[name]))
        for name, values in self.present_objects.items():
            if name not in self.counted:
                found[self.attributes[name]] = Sparse(values)
        return found


@cache
def _layout(record: type, ends: tuple[str, ...], keep: frozenset | None) -> tuple:
    """How :class:`_Columns` keeps each field of ``record``, worked out once per kind of array
    (it read every field's type hints at each call: about 30 us per trace, a few per cent of
    validating a trace of a few hundred events). Returns (attribute -> JSON name, the ends, the
    fields only counted, the numbers, the listed, the objects (attribute -> :class:`_StructKeys`),
    the coded, the defaults of optional fields); the caller must not change them."""
    hints = _struct_fields(record)
    attributes = {f.name: f.encode_name for f in hints}  # attribute -> JSON name
    required = {f.name for f in hints if f.required}
    counted = {f.name for f in hints if keep is not None and f.encode_name not in keep
               and f.name not in required}
    kept_ends = [f.name for f in hints if f.encode_name in ends]  # kept by the caller
    counted_names = [name for name in attributes if name in counted]
    numbers = [f.name for f in hints if _is_number(f.type) and f.name not in counted]
    listed = [f.name for f in hints if f.encode_name in UNIQUE and f.name not in counted]
    # fields that are objects (an event's content): kept as records, where present; their
    # own fields are keys of the text too
    objects = {f.name: _StructKeys(f.type) for f in hints if _is_struct(f.type)}
    coded = [name for name in attributes if name not in
             (*numbers, *listed, *counted_names, *kept_ends, *objects)]
    defaults = {f.name: f.default for f in hints if not f.required}
    return attributes, kept_ends, counted_names, numbers, listed, objects, coded, defaults


class _StructKeys:
    """Counts the fields a decoded object (a msgspec Struct of strings, booleans and numbers)
    holds: its keys in the text."""

    def __init__(self, record: type):
        hints = _struct_fields(record)
        self.required = sum(f.required for f in hints)
        self.optional = [(f.name, f.default) for f in hints if not f.required]

    def held(self, value) -> int:
        found = self.required
        for name, default in self.optional:
            got = getattr(value, name)
            found += not (got is default or got is None or got != got)  # None, NaN: absent
        return found


UNIQUE = ("id", "content_ref")  # fields kept as lists (all different: codes save nothing)
ENDS = ("src", "dst")  # an edge's ends, kept as the positions of the events they name


@cache
def _struct_fields(record: type) -> tuple:
    """``msgspec.structs.fields`` of a record type, read once: it evaluates the type hints
    anew at every call (about 0.14 ms each, three calls per trace: half a small trace's decode)."""
    return msgspec.structs.fields(record)


def _is_number(kind) -> bool:
    if get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    return kind is float


def _is_struct(kind) -> bool:
    return isinstance(kind, type) and issubclass(kind, msgspec.Struct)


class Growing:
    """A column written a chunk at a time into one array, which doubles when full: the chunks'
    values are not kept apart and joined at the end (which held the column twice, in
    thousands of small blocks). Room reserved past the end is never written, so it costs
    address space, not memory."""

    def __init__(self, dtype):
        self.array = np.empty(0, dtype=dtype)
        self.size = 0

    def reserve(self, count: int) -> None:
        if count > len(self.array):
            grown = np.empty(count, dtype=self.array.dtype)
            grown[:self.size] = self.array[:self.size]
            self.array = grown

    def extend(self, values: np.ndarray) -> None:
        """Append ``values`` (a fresh array the caller gives up: the first chunk of a column
        with no room reserved is kept as it is, not copied: a small trace's only chunk)."""
        if not len(self.array) and values.dtype == self.array.dtype:
            self.array, self.size = values, len(values)
            return
        end = self.size + len(values)
        if end > len(self.array):
            self.reserve(max(end, 2 * len(self.array)))
        self.array[self.size:end] = values
        self.size = end

    def values(self) -> np.ndarray:
        return self.array[:self.size]


# ---------------------------------------------------------------------------------- decoding

@dataclass
class Decoded:
    """What the fast path decoded: the head as plain JSON values, events and edges as columns."""

    head: dict
    events: ColumnRecords
    edges: ColumnRecords


def decode(data, fields=None) -> Decoded | None:
    """The trace in ``data`` (bytes or an anonymous map) as columns if its head and every event and
    edge follow the schema, else ``None`` (take the full path, see the module docstring).

    ``fields``: the event fields to keep as columns (default: all; the required ones always);
    the others are checked and counted, and reading them raises ``KeyError``."""
    try:
        if not _utf8(data):
            return None
        top = _TOP.decode(data)
        members = top.members()
        if not _one_key_each(data, members.values()):
            return None
        head = _head(members)
        if not head_validator().is_valid(head):
            return None
        release = _releaser(data)
        events = _events(top.events, release, fields)
        edges = _edges(top.edges, events.index, release)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, Unreadable,
            strict_json.StrictJSONError):  # not JSON, or a rule of the records broken
        return None
    return Decoded(head, events, edges)


def _head(members: dict) -> dict:
    """The members of the head (all but the bulk arrays) as plain JSON values, read by strict
    JSON in one parse of them as one array: a parse per member cost about 5 us each (a decoder
    and its checks set up again), a few per cent of a small trace. Each member is one whole
    JSON value (the top-level decode located it), so the array holds them one for one."""
    names = [name for name in members if name not in BULK]
    values = strict_json.loads(b"[" + b",".join(bytes(members[name]) for name in names) + b"]")
    return dict(zip(names, values))


def _events(text, release, keep=None) -> ColumnRecords:
    columns = _Columns(EventRecord, keep=keep)
    models: dict[str, dict[int, object]] = {"x_model": {}, "x_usage": {}}
    for chunk, records in _chunks(text, _FIRST_EVENTS, _EVENTS, release, CHUNK_BYTES):
        first = columns.count
        if not first and chunk is not text:  # a chunk of many: room for the others
            columns.reserve(_expected(records, chunk, text))
        all_known = _check_keys(chunk, columns.add(records))
        del records
        if not all_known and _names_model(chunk):  # x_model is a key the records skip
            for k, call in enumerate(_MODEL_CALLS.decode(chunk)):
                if call.x_model is not None:
                    models["x_model"][first + k] = call.x_model
                if call.x_usage is not None:
                    models["x_usage"][first + k] = call.x_usage
    fields = columns.fields()
    fields.update({key: Sparse(values) for key, values in models.items()})
    return ColumnRecords(columns.count, fields, IdIndex(fields["id"]))


def _edges(text, index, release) -> ColumnRecords:
    columns = _Columns(EdgeRecord, ends=ENDS, in_c=False)
    ends = {key: (Growing(np.int64), {}) for key in ENDS}
    for chunk, records in _chunks(text, _EDGES, _EDGES, release, EDGE_CHUNK_BYTES):
        first = columns.count
        if not first and chunk is not text:  # a chunk of many: room for the others
            columns.reserve(_expected(records, chunk, text))
            for positions, _ in ends.values():
                positions.reserve(_expected(records, chunk, text))
        by_field = columns.transposed(records)
        for key, (positions, unknown) in ends.items():
            names = by_field[key]
            found = index.positions(names)
            positions.extend(found)
            for k in np.flatnonzero(found < 0).tolist():
                unknown[first + k] = names[k]
        _check_keys(chunk, columns.add_fields(by_field, len(records)))
    fields = columns.fields()
    for key, (positions, unknown) in ends.items():
        fields[key] = Ends(positions.values(), index.ids, unknown)
    return ColumnRecords(columns.count, fields)


def _expected(records: list, chunk, text) -> int:
    """How many records the whole array likely holds, from its first chunk (a little over)."""
    return int(len(records) * 1.05 * len(text) / max(len(chunk), 1)) + 16


def _names_model(chunk) -> bool:
    """Whether a chunk's text names ``"x_model"`` (a copied chunk is searched as bytes)."""
    if isinstance(chunk, bytes):
        return chunk.find(MODEL_MARK) >= 0
    return _MODEL_MARK.search(chunk) is not None


def _releaser(data):
    """A function ``release(text, end)`` that gives back to the system the whole pages of
    ``text`` (a slice of ``data``) before its byte ``end``, once decoded, when ``data`` is
    memory that can be given back (an anonymous map, see
    :func:`masrl.traces.validate.validate_file`): the file then does not count twice in memory
    beside its columns. Only pages of ``text`` itself are given back, so what lies before it
    (the head, or the other array) stays readable. For bytes it does nothing."""
    if not hasattr(data, "madvise"):  # not a map (asked by method, not by class: a test may
        # replace mmap.mmap to check that nothing is mapped)
        return lambda text, end: None
    base = np.frombuffer(data, dtype=np.uint8).ctypes.data
    given = {}  # text's start -> where the pages given back so far end

    def release(text, end: int) -> None:
        start = np.frombuffer(text, dtype=np.uint8).ctypes.data - base
        given[start] = give_back(data, given.get(start, start), start + end)

    return release


def _check_keys(chunk, held: int) -> bool:
    """Raise :class:`Unreadable` unless the chunk's text names no key twice in one object and
    holds no number strict JSON refuses (see the module docstring); return whether its keys are
    exactly the fields the records hold (then no event has a field of its own, x_model
    included)."""
    if repeated_keys.key_count(chunk) == held:
        return True
    if not repeated_keys.certainly_strict(chunk):
        raise Unreadable("a repeated key, or a number strict JSON refuses")
    return False


def _chunks(text, first: msgspec.json.Decoder, rest: msgspec.json.Decoder, release,
            step: int):
    """``(chunk text, its records)`` for consecutive pieces of the array ``text`` (see the
    module docstring); a chunk's text is an array of whole elements of ``text``. Once a chunk
    is decoded, ``release(text, end)`` is told where it ended."""
    size = len(text)
    if size <= 2 * step:
        yield text, first.decode(text)
        return
    view = memoryview(text)
    start, decoder, recuts = 0, first, 0  # start: the first element's "{" ("[" at first)
    while True:
        cut = _BOUNDARY.search(text, start + step) if recuts <= RECUTS else None
        while True:
            if cut is None:
                chunk = _wrapped(view, start, size, closed=True)
            else:
                chunk = _wrapped(view, start, cut.start() + 1, closed=False)
            try:
                records = decoder.decode(chunk)
                break
            except msgspec.ValidationError:
                raise
            except msgspec.DecodeError:  # cut inside an element: move on to the next "}, {"
                recuts += 1
                if cut is None:
                    raise
                cut = _BOUNDARY.search(text, cut.end()) if recuts <= RECUTS else None
        release(text, cut.end() - 1 if cut is not None else size)
        yield chunk, records
        if cut is None:
            return
        start, decoder = cut.end() - 1, rest


def _wrapped(view: memoryview, start: int, end: int, closed: bool) -> bytes:
    """``text[start:end]`` as a JSON array: an opening bracket unless it starts with the
    array's own, a closing one unless it ends with it."""
    opening = b"" if start == 0 else b"["
    return b"".join((opening, view[start:end], b"" if closed else b"]"))


def _utf8(data) -> bool:
    """Whether the bytes are UTF-8 text (ASCII checked in one vectorised pass)."""
    view = np.frombuffer(data, dtype=np.uint8)
    if not len(view) or int(view.max()) < 0x80:
        return True
    try:
        codecs.utf_8_decode(data, "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def _one_key_each(data, members) -> bool:
    """Whether the text around the located members is ``{"key": ... , "key": ... }`` with one
    key before each member and nothing else: a repeated key leaves the value it lost there."""
    base = np.frombuffer(data, dtype=np.uint8).ctypes.data
    spans = sorted((np.frombuffer(raw, dtype=np.uint8).ctypes.data - base, len(raw))
                   for raw in members)
    position = 0
    for start, size in spans:
        if not 0 <= start - position <= 4096:
            return False
        if _MEMBER_GAP.fullmatch(bytes(data[position:start])) is None:
            return False
        position = start + size
    return _CLOSING.fullmatch(bytes(data[position:])) is not None


