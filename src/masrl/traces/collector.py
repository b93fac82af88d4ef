"""Python's cyclic garbage collector, paused while JSON is decoded into objects.

Decoding a large trace or log allocates millions of containers, and every few thousand
allocations the collector would traverse all of them again (a fifth to a third of the time of a
large import, more than 0.2 s of a million-event replay), although JSON values form no
reference cycle. Reference counting still frees everything. Used by validation, the corpus and
the importers.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block, restored as it was afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
