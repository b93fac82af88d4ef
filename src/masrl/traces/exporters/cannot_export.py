"""The one error of an exporter given a valid trace that its format cannot hold."""

from __future__ import annotations


class CannotExport(ValueError):
    """A valid trace that the target format cannot hold; the message says why (``masrl export``
    prints it and writes nothing)."""
