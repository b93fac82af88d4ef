"""The controlled vocabulary (``data/vocabulary.yaml``): one definition, used to validate the
data, to count (zero-count values included), to order tables and charts, and to generate the
data dictionary."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from masrl import paths


@dataclass(frozen=True)
class Field:
    name: str
    file: str
    label: str
    description: str
    meanings: dict[str, str]  # value -> one-line meaning, in display order
    columns: tuple[str, ...] = ()  # the columns holding this field; () means the field's name

    @property
    def values(self) -> list[str]:
        return list(self.meanings)


@dataclass(frozen=True)
class Vocabulary:
    fields: dict[str, Field]

    def __getitem__(self, name: str) -> Field:
        return self.fields[name]

    def values(self, name: str) -> list[str]:
        return self.fields[name].values

    def for_file(self, file: str) -> list[Field]:
        return [f for f in self.fields.values() if f.file == file]


def load_vocabulary(data_dir: str | os.PathLike | None = None) -> Vocabulary:
    return _load(paths.data_file(paths.VOCABULARY, data_dir).resolve())


@lru_cache(maxsize=8)
def _load(path: Path) -> Vocabulary:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: the controlled vocabulary file is missing") from None
    fields: dict[str, Field] = {}
    for name, spec in (raw or {}).get("fields", {}).items():
        where = f"{path.name}: field {name!r}"
        for required in ("file", "label", "description", "values"):
            if required not in spec:
                raise ValueError(f"{where}: missing {required!r}")
        meanings = {str(k): str(v) for k, v in spec["values"].items()}
        order = [str(v) for v in spec.get("order", meanings)]
        if sorted(order) != sorted(meanings):
            raise ValueError(f"{where}: 'order' must list exactly the values defined")
        fields[name] = Field(name, spec["file"], spec["label"], spec["description"],
                             {v: meanings[v] for v in order},
                             tuple(spec.get("columns", [name])))
    return Vocabulary(fields)


def dictionary(vocab: Vocabulary, file: str | None = None) -> list[dict]:
    """The data dictionary: one entry per field (optionally of one file), each with its values
    and their meanings, in vocabulary order. The book's data-dictionary page renders this."""
    return [
        {"field": f.name, "file": f.file, "columns": list(f.columns or [f.name]),
         "label": f.label, "description": f.description,
         "values": [{"value": v, "meaning": m} for v, m in f.meanings.items()]}
        for f in vocab.fields.values() if file is None or f.file == file
    ]
