"""What survives a round trip: a trace exported to another format and imported back.

:func:`round_trip` exports a valid trace with ``masrl export``'s exporter of a format, writes it
to a temporary file and imports that with the importer that reads the format
(:data:`IMPORTER_OF`). :func:`kept` compares the trace before and after, quantity by quantity:

* *events*; *acting agents*, the names that act in an event other than a ``tool_result``, and
  *tools*, the names that only answer calls (on ``tool_result`` events): counted apart, because
  a format may put a tool's result on the agent that called it, keeping every acting agent but
  losing the tools' names; *event types* (the count of each type, compared as a whole);
  *tokens* (the sum over events of ``tokens``); *cost* (the sum of ``cost_usd``); *durations*
  (the seconds events last, by ``t_end`` or ``duration``, summed: what busy time is computed
  from); the run's recorded ``costs`` and ``rewards``, written as ``name: value`` pairs
  (``none`` when empty);
* *identical events*: events equal in every field but the ``x_`` extensions (which importers
  add), matched by content;
* *edges* and *edges in both*: the dependencies; a format without a dependency graph has them
  rebuilt by its importer, so the number of (src, dst) pairs present before and after is
  shown.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from masrl.traces.exporters import EXPORTERS
from masrl.traces.importers import import_file

if TYPE_CHECKING:  # pandas is the book's (masrl[book]), imported where the table is made
    import pandas as pd

IMPORTER_OF = {"atif": "atif", "otlp": "otel"}
"""Exporter format -> the ``masrl import`` format that reads what it writes."""


def round_trip(document: dict, fmt: str, transform=None) -> dict:
    """``document`` exported as ``fmt`` and imported back (``transform``, when given, is applied
    to the exported document first: e.g. to drop what only masrl reads)."""
    exported = EXPORTERS[fmt].export(document)
    if transform is not None:
        exported = transform(exported)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"exported.{fmt}.json"
        path.write_text(json.dumps(exported), encoding="utf-8")
        return import_file(IMPORTER_OF[fmt], path).trace


def _plain(event: dict) -> str:
    return json.dumps({k: v for k, v in event.items() if not k.startswith("x_")}, sort_keys=True)


def kept(before: dict, after: dict) -> pd.DataFrame:
    """Quantity by quantity, its value before and after the round trip and whether it is kept
    (see the module docstring)."""
    import pandas as pd

    def acting(doc):
        return {e["agent"] for e in doc["events"] if e["type"] != "tool_result"}

    def tools(doc):
        return {e["agent"] for e in doc["events"]} - acting(doc)

    def pairs(mapping: dict) -> str:
        return "; ".join(f"{k.replace('_', ' ')}: {mapping[k]}" for k in sorted(mapping)) \
            or "none"

    def types(doc):
        counts = Counter(e["type"] for e in doc["events"])
        return ", ".join(f"{k} {counts[k]}" for k in sorted(counts))

    def total(doc, key):
        return round(sum(e.get(key, 0) for e in doc["events"]), 9)

    def lasting(doc):  # seconds events last, summed (t_end or duration; busy time needs them)
        return round(sum(e.get("t_end", e["t"] + e.get("duration", 0)) - e["t"]
                         for e in doc["events"]), 6)

    identical = sum((Counter(map(_plain, before["events"])) & Counter(
        map(_plain, after["events"]))).values())
    pairs_before = {(e["src"], e["dst"]) for e in before["edges"]}
    pairs_after = {(e["src"], e["dst"]) for e in after["edges"]}
    rows = [
        ("events", len(before["events"]), len(after["events"])),
        ("identical events", len(before["events"]), identical),
        ("acting agents", len(acting(before)), len(acting(after))),
        ("tools", len(tools(before)), len(tools(after))),
        ("event types", types(before), types(after)),
        ("tokens", total(before, "tokens"), total(after, "tokens")),
        ("cost (USD)", total(before, "cost_usd"), total(after, "cost_usd")),
        ("durations (s)", lasting(before), lasting(after)),
        ("costs of the run", pairs(before["costs"]), pairs(after["costs"])),
        ("rewards", pairs(before["rewards"]), pairs(after["rewards"])),
        ("edges", len(before["edges"]), len(after["edges"])),
        ("edges in both", len(pairs_before), len(pairs_before & pairs_after)),
    ]
    return pd.DataFrame([{"quantity": q, "before": str(b), "after": str(a), "kept": b == a}
                         for q, b, a in rows])


def without_masrl_extras(node):
    """An exported ATIF document without the ``extra.masrl`` blocks: what any ATIF reader sees."""
    if isinstance(node, dict):
        return {k: without_masrl_extras(v) for k, v in node.items()
                if not (k == "extra" and isinstance(v, dict) and "masrl" in v)}
    if isinstance(node, list):
        return [without_masrl_extras(v) for v in node]
    return node
