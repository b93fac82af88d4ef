"""The ``info`` of a Codex ``token_count`` record held packed while its rollout is read.

A rollout writes a token count after most model responses, and its ``info`` (the usage of the
last response and of the session so far, five counts each, and the context window) held as
dicts weighed some 1,100 bytes a record: three quarters of the log's size on a long session.
Packed as MessagePack the same info takes about 300 bytes, and :meth:`PackedInfo.unpacked`
gives back the very dict that was read (the same keys in the same order, the same values of
the same types: ``12``, ``12.0``, ``true`` and ``"12"`` stay apart), so that what the import
does with it (the repeat check, the reading of each count by the kit's rule, the errors) is
what it did with the dict. An ``info`` MessagePack cannot hold as it is (an int past 64 bits)
is kept as read.
"""

from __future__ import annotations

import msgspec

_ENCODE = msgspec.msgpack.Encoder().encode
_DECODE = msgspec.msgpack.Decoder().decode


class PackedInfo(bytes):
    """An ``info`` packed: equal to another exactly when their bytes are, in which case their
    dicts are equal (the converse need not hold: the same counts with their keys in another
    order, or ``12.0`` for ``12``, are equal dicts packed apart)."""

    __slots__ = ()

    def unpacked(self) -> dict:
        """The ``info`` as it was read."""
        return _DECODE(self)


def packed(info: dict) -> PackedInfo | None:
    """``info`` packed, or ``None`` when MessagePack cannot hold it as it is."""
    try:
        return PackedInfo(_ENCODE(info))
    except (OverflowError, ValueError, RecursionError, msgspec.EncodeError):
        return None


def info_of(payload: dict):
    """The ``info`` of a token count's payload as it was read (unpacked if need be)."""
    info = payload.get("info")
    return info.unpacked() if type(info) is PackedInfo else info


def same_info(one, other) -> bool:
    """Whether two ``info`` as held (packed or as read) are equal as read: the same bytes
    are, any other pair is unpacked and compared."""
    if type(one) is PackedInfo and type(other) is PackedInfo and one == other:
        return True
    return (one.unpacked() if type(one) is PackedInfo else one) == (
        other.unpacked() if type(other) is PackedInfo else other)
