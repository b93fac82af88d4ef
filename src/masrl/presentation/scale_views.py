"""Tables of the scale envelopes as readers see them."""

from __future__ import annotations

import pandas as pd

from masrl.data.vocabulary import Vocabulary
from masrl.presentation import tables
from masrl.presentation.escaping import html_text

DISPLAY_COLUMNS = ["system", "kind", "agents", "agents_bound", "horizon", "horizon_unit",
                   "horizon_bound", "model", "model_size_b", "confidence", "source_url"]


def display_frame(envelopes: pd.DataFrame) -> pd.DataFrame:
    """The envelopes for reading: numbers written plainly, unknown numbers left blank."""
    frame = envelopes[DISPLAY_COLUMNS].copy()
    for column in ("agents", "horizon", "model_size_b"):
        frame[column] = [f"{v:g}" if pd.notna(v) else "" for v in frame[column]]
    return frame


def bounded(value: float, bound: str, vocabulary: Vocabulary, unit: str = "") -> str:
    """A number with how its source bounds it (``up to 1,500 tool calls``); "" when unknown."""
    if pd.isna(value):
        return ""
    number = f"{value:,.0f}" if float(value).is_integer() else f"{value:,g}"
    text = vocabulary["bound"].phrase(bound, number) if isinstance(bound, str) else number
    unit = unit.replace("_", " ")
    if number == "1" and unit.endswith("s"):  # 1 step, 1 pass
        unit = unit[:-2] if unit.endswith("sses") else unit[:-1]
    return f"{text} {unit}".strip()


def sources_html(cell: str) -> str:
    """The addresses of a cell (separated by ' ; ') as numbered links, escaped."""
    urls = [u.strip() for u in str(cell).split(" ; ") if u.strip()]
    return ", ".join(f'<a href="{html_text(u)}" rel="noopener">source {i}</a>'
                     for i, u in enumerate(urls, 1))


def envelope_table(envelopes: pd.DataFrame, vocabulary: Vocabulary) -> tables.Table:
    """The envelopes in the book's table style: each number with its bound and unit, an empty
    cell (a dash) where no reliable number was found, sources as links."""
    frame = pd.DataFrame({
        "system": envelopes["system"],
        "kind": envelopes["kind"],
        "agents per run": [bounded(v, b, vocabulary) or None
                           for v, b in zip(envelopes["agents"], envelopes["agents_bound"])],
        "horizon of one task": [
            bounded(v, b, vocabulary, u) or None
            for v, b, u in zip(envelopes["horizon"], envelopes["horizon_bound"],
                               envelopes["horizon_unit"])],
        "model": envelopes["model"],
        "model size (B)": envelopes["model_size_b"],
        "confidence": envelopes["confidence"],
        "sources": [sources_html(c) or None for c in envelopes["source_url"]],
    })
    return tables.table(frame, "Scale envelopes: industrial systems and academic training "
                        "setups, as their sources bound them",
                        {"model size (B)": "number", "sources": "html"},
                        notes="A dash: no reliable number was found.")


THROUGHPUT_ROWS = [  # key of the recorded run -> what it is, its kind of number
    ("events", "events in the trace", "count"),
    ("agents", "sub-agents", "count"),
    ("tool_calls", "tool calls", "count"),
    ("file_bytes", "file size (bytes)", "count"),
    ("json_load_s", "json.load, wall-clock (s)", "seconds"),
    ("json_load_cpu_s", "json.load, CPU (s)", "seconds"),
    ("json_load_peak_mib", "json.load, peak memory (MiB)", "number:1"),
    ("replay_s", "masrl replay --json, wall-clock (s)", "seconds"),
    ("replay_cpu_s", "masrl replay --json, CPU (s)", "seconds"),
    ("replay_peak_mib", "masrl replay --json, peak memory (MiB)", "number:1"),
    ("ratio", "replay time / json.load time", "number:2"),
    ("cpu_ratio", "replay CPU / json.load CPU", "number:2"),
    ("memory_ratio", "replay memory / json.load memory", "number:2"),
    ("repeat", "timed rounds (the fastest is kept)", "count"),
    ("load_1m_at_start", "machine load (1 min) at the start", "number:2"),
]


def throughput_table(recorded: dict) -> tables.Table:
    """The throughput benchmark's recorded figures, one row each, in words and units (keys the
    recording holds and this list does not are shown last, under their own names)."""
    known = [(key, label, kind) for key, label, kind in THROUGHPUT_ROWS if key in recorded]
    rest = [(key, key.replace("_", " "), "number") for key in recorded
            if key not in {k for k, _, _ in THROUGHPUT_ROWS}]
    rows = [[label, tables.formatted(recorded[key], kind)] for key, label, kind in known + rest]
    return tables.Table(["quantity", "last recorded run"], ["text", "number"], rows,
                        "The throughput benchmark's last recorded run "
                        "(benchmarks/results/trace_throughput.json)")


def decoder_floor_table(recorded: dict) -> tables.Table:
    """The decoder benchmark's readers, fastest first: CPU time, its ratio to ``json.load``'s,
    wall time and peak memory."""
    readers = sorted(recorded["readers"].items(), key=lambda item: item[1]["cpu_ratio"])
    kinds = ["text", "seconds", "number:2", "seconds", "number:0"]
    rows = [[tables.formatted(value, kind) for value, kind in zip(
        (name, reader["cpu_s"], reader["cpu_ratio"], reader["wall_s"], reader["peak_mib"]),
        kinds)] for name, reader in readers]
    return tables.Table(["reader", "CPU (s)", "CPU / json.load CPU", "wall-clock (s)",
                         "peak memory (MiB)"], kinds, rows,
                        "Decoding the million-event trace alone, by reader, fastest first "
                        "(benchmarks/results/decoder_floor.json)")


def fastest_native_reader(recorded: dict) -> tuple[str, dict]:
    """The native columnar reader of the decoder benchmark's run with the least CPU: its name
    and figures (``ValueError`` when the run timed none: none was installed)."""
    native = {name: reader for name, reader in recorded["readers"].items() if reader["native"]}
    if not native:
        raise ValueError("the decoder benchmark's run timed no native columnar reader")
    name = min(native, key=lambda found: native[found]["cpu_ratio"])
    return name, native[name]
