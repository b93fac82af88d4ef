"""What an event says, hashed always and kept as text only on request (``masrl import
--keep-content``), and the labels a source gives: the two kinds of text a trace may hold, each
bounded.

:func:`content_ref` hashes a content (a text, or a structure as canonical JSON) and returns the
hash as a :class:`Ref`, a string that remembers what it hashed. While :func:`keeping` is in
force, the trace builder (:class:`.common.TraceBuilder`) turns the ``content_ref`` of every event
it adds into that event's ``content`` (schema 1.2): the same text, cut to
:data:`EVENT_BYTES` bytes of UTF-8 at a character boundary and marked, within a total of
:data:`TRACE_BYTES` per trace (past it, an event keeps its hash only and is counted as left
out). Every importer gets this without a line of its own. Labels (:func:`label`) bound their
texts the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from masrl.traces.schema import CONTENT_BYTES

EVENT_BYTES = CONTENT_BYTES  # bytes of UTF-8 of text kept per event (and per label text)
TRACE_BYTES = 1 << 20  # bytes of UTF-8 of text kept per trace


class Ref(str):
    """A content hash (``sha256:<hex>``) that remembers the content it hashes."""

    __slots__ = ("content",)
    content: Any


def text_of(value: Any) -> str:
    """The text a content stands for: a string itself, anything else as canonical JSON (the
    text :func:`content_ref` hashes)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_ref(value: Any) -> Ref:
    """``sha256:<hex>`` of a text (UTF-8) or of the canonical JSON of any other value."""
    ref = Ref("sha256:" + hashlib.sha256(text_of(value).encode("utf-8")).hexdigest())
    ref.content = value
    return ref


def bounded(text: str, limit: int = EVENT_BYTES) -> tuple[str, bool, int]:
    """``(text cut to limit bytes of UTF-8 at a character boundary, whether it was cut, its
    whole size in bytes)``."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False, len(data)
    return data[:limit].decode("utf-8", errors="ignore"), True, len(data)


@dataclass(frozen=True)
class Keeping:
    """The bounds in force while text is kept."""

    event_bytes: int = EVENT_BYTES
    trace_bytes: int = TRACE_BYTES


_KEEPING: ContextVar[Keeping | None] = ContextVar("masrl_keep_content", default=None)


@contextmanager
def keeping(event_bytes: int = EVENT_BYTES, trace_bytes: int = TRACE_BYTES) -> Iterator[None]:
    """Keep the text of events in the traces built meanwhile (see the module)."""
    token = _KEEPING.set(Keeping(event_bytes, trace_bytes))
    try:
        yield
    finally:
        _KEEPING.reset(token)


def kept() -> Keeping | None:
    """The bounds in force, or ``None`` when text is not kept (the default)."""
    return _KEEPING.get()


class Budget:
    """The text one trace may still take (one per trace builder)."""

    def __init__(self) -> None:
        self.used = 0

    def content(self, ref: Any) -> dict | None:
        """The ``content`` of an event whose ``content_ref`` is ``ref``, or ``None`` when text
        is not kept, ``ref`` remembers no content, or the trace's bound is reached."""
        bounds = kept()
        if bounds is None or not isinstance(ref, Ref) or not hasattr(ref, "content"):
            return None
        text, cut, size = bounded(text_of(ref.content), bounds.event_bytes)
        taken = len(text.encode("utf-8"))
        if self.used + taken > bounds.trace_bytes:
            return None
        self.used += taken
        found: dict = {"text": text}
        if cut:
            found.update(truncated=True, bytes=size)
        return found


def content_summary(events: list[dict]) -> dict | None:
    """``provenance.content`` of a trace built while text is kept: the bounds, the events that
    hold text, the cut ones and the ones with a hash but no text; ``None`` otherwise."""
    bounds = kept()
    if bounds is None:
        return None
    with_text = [e for e in events if "content" in e]
    return {"event_bytes": bounds.event_bytes,
            "kept": len(with_text),
            "left_out": sum(1 for e in events if "content_ref" in e and "content" not in e),
            "trace_bytes": bounds.trace_bytes,
            "truncated": sum(1 for e in with_text if e["content"].get("truncated"))}


GOLD, ANNOTATION = "gold", "annotation"


def label(name: str, value: Any, kind: str, source: str, *, event: str | None = None,
          agent: str | None = None, category: str | None = None, comment: str | None = None,
          id: str | None = None, where: str | None = None) -> dict:
    """One entry of a trace's ``labels`` (schema 1.2, ``$defs/label``), its texts cut to
    :data:`EVENT_BYTES` bytes and marked; fields that are ``None`` or empty are left out."""
    found: dict = {"name": name}
    truncated = False
    texts = {"value": value, "category": category, "comment": comment}
    for key, text in texts.items():
        if isinstance(text, str):
            text, cut, _ = bounded(text)
            truncated |= cut
            texts[key] = text
    found.update(value=texts["value"], kind=kind, source=source)
    for key, item in (("event", event), ("agent", agent), ("category", texts["category"]),
                      ("comment", texts["comment"]), ("id", id), ("where", where)):
        if item not in (None, ""):
            found[key] = item
    if truncated:
        found["truncated"] = True
    return found
