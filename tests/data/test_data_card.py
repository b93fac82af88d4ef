"""The data card (data/README.md) names every data file and states row counts that are true."""

from __future__ import annotations

import importlib
import re

from masrl import paths
from masrl.data.dataset import LATEST, Dataset

CARD = paths.DEFAULT_DATA_DIR / "README.md"
ROW = re.compile(r"^\| `([^`]+)` \| `([\w.]+)` \| ([\d-]+) \|", re.M)
DATASET = "Dataset."


def card_rows() -> list[tuple[str, str, str]]:
    return ROW.findall(CARD.read_text(encoding="utf-8"))


def test_every_data_file_is_on_the_card():
    listed = {name for name, _, _ in card_rows()}
    for path in paths.DEFAULT_DATA_DIR.iterdir():
        if path.is_file() and path.name != "README.md":
            assert path.name in listed, f"{path.name} is not described in data/README.md"


def test_row_counts_and_loaders_on_the_card_are_true():
    checked = 0
    data = Dataset(as_of=LATEST)  # the card counts the files' rows, every screening round
    for name, reader, rows in card_rows():
        if reader.startswith(DATASET):
            attribute = reader.removeprefix(DATASET)
            assert attribute in Dataset.FILES, f"{name}: Dataset has no {attribute}"
            value = getattr(data, attribute)
        else:
            module, function = reader.rsplit(".", 1)
            getattr(importlib.import_module(module), function)  # the reader exists
            value = None
        if rows == "-" or "*" in name or "/" in name:
            continue
        assert len(value) == int(rows), f"{name}: the card says {rows} rows"
        checked += 1
    assert checked >= 9


def test_the_limits_on_the_card_are_the_code_s():
    from masrl.data import documents, reading, tables

    card = CARD.read_text(encoding="utf-8")
    assert f"at most {reading.DATA_LIMIT // 2**20} MiB" in card
    assert f"at most {tables.MAX_CELL:,} characters in a cell".replace(",", " ") in card
    assert f"at most {documents.MAX_DEPTH} levels" in card
