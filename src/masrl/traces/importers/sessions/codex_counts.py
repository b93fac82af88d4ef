"""The ``info`` of a Codex ``token_count`` record held packed while its rollout is read.

A rollout writes a token count after most model responses, and its ``info`` (the usage of the
last response and of the session so far, five counts each, and the context window) held as
dicts of ints weighed some 1,100 bytes a record: three quarters of the log's size on a long
session. Packed, the same counts take about 180 bytes, and :meth:`PackedInfo.unpacked` gives
back the very dict that was read (the same keys in the same order, the same ints), so that what
the import does with it (the repeat check, the reading of each count by the kit's rule, the
errors) is what it did with the dict. Only an ``info`` made of whole numbers (plain JSON
integers, not ``true``, a float or a text) is packed; any other is kept as read.
"""

from __future__ import annotations

import struct

LAYOUTS_KEPT = 64  # layouts of a rollout given one shared object (a log can name any keys)
WHOLE = {int}  # the types of the counts packed (a bool is an int to struct: not packed)


class Layout:
    """The keys of a packed ``info`` in their order: for each key, ``None`` when its value is a
    count, else the keys of the object of counts it holds; and the struct that packs their
    counts. One object per layout, shared by the counts of a rollout (see :func:`packed`)."""

    __slots__ = ("keys", "struct")

    def __init__(self, keys: tuple[tuple[str, tuple[str, ...] | None], ...], width: int):
        self.keys, self.struct = keys, struct.Struct(f"<{width}q")


class PackedInfo(tuple):
    """``(layout, counts packed)``: equal to another exactly when both have the one layout
    object and the same counts, in which case their dicts are equal (the converse need not
    hold: a layout past :data:`LAYOUTS_KEPT` is a new object each time)."""

    __slots__ = ()

    def unpacked(self) -> dict:
        """The ``info`` as it was read."""
        layout, data = self
        counts = iter(layout.struct.unpack(data))
        return {key: next(counts) if inner is None else dict(zip(inner, counts))
                for key, inner in layout.keys}


def packed(info: dict, layouts: dict[tuple, Layout]) -> PackedInfo | None:
    """``info`` packed when each of its values is a whole number in 64 bits or an object of
    such numbers, else ``None``. ``layouts``: the layouts met so far in the rollout (kept in
    it, up to :data:`LAYOUTS_KEPT`)."""
    keys, counts = [], []
    for key, value in info.items():
        if type(value) is dict:
            keys.append((key, tuple(value)))
            counts += value.values()
        else:
            keys.append((key, None))
            counts.append(value)
    if not {*map(type, counts)} <= WHOLE:
        return None
    shape = tuple(keys)
    layout = layouts.get(shape)
    if layout is None:
        layout = Layout(shape, len(counts))
        if len(layouts) < LAYOUTS_KEPT:
            layouts[shape] = layout
    try:
        return PackedInfo((layout, layout.struct.pack(*counts)))
    except struct.error:  # a count past 64 bits
        return None


def info_of(payload: dict):
    """The ``info`` of a token count's payload as it was read (unpacked if need be)."""
    info = payload.get("info")
    return info.unpacked() if type(info) is PackedInfo else info


def same_info(one, other) -> bool:
    """Whether two ``info`` as held (packed or as read) are equal as read: two packed in the
    one layout by their packed counts, any other pair unpacked."""
    if type(one) is PackedInfo and type(other) is PackedInfo and one[0] is other[0]:
        return one[1] == other[1]
    return (one.unpacked() if type(one) is PackedInfo else one) == (
        other.unpacked() if type(other) is PackedInfo else other)
