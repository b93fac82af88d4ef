"""The controlled vocabulary (``data/vocabulary.yaml``): one definition, used to validate the
data, to count (zero-count values included), to order tables and charts, and to generate the
data dictionary.

Besides the fields, the file names *groups* of fields that several places use together (the
tags a second reader re-codes, say), so that no module keeps its own list of field names.
Problems are reported like every data file's: ``vocabulary.yaml:fields.NAME:KEY: message``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from pydantic import BaseModel, ConfigDict, StrictStr, model_validator

from masrl import paths
from masrl.data import documents


class _FieldSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file: StrictStr
    label: StrictStr
    description: StrictStr
    values: dict[StrictStr, StrictStr]
    order: list[StrictStr] | None = None
    columns: list[StrictStr] | None = None
    phrases: dict[StrictStr, StrictStr] | None = None

    @model_validator(mode="after")
    def _order_lists_the_values(self) -> _FieldSpec:
        if not self.values:
            raise ValueError("'values' must define at least one value")
        if self.order is not None and sorted(self.order) != sorted(self.values):
            raise ValueError("'order' must list exactly the values defined")
        return self

    @model_validator(mode="after")
    def _phrases_word_every_value(self) -> _FieldSpec:
        if self.phrases is None:
            return self
        if sorted(self.phrases) != sorted(self.values):
            raise ValueError("'phrases' must give exactly one phrase per value defined")
        for value, phrase in self.phrases.items():
            if phrase.count("{}") != 1:
                raise ValueError(f"the phrase of {value!r} must hold '{{}}' exactly once, "
                                 "where the number goes")
        return self


class _VocabularyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fields: dict[StrictStr, _FieldSpec]
    groups: dict[StrictStr, list[StrictStr]] = {}

    @model_validator(mode="after")
    def _groups_name_fields(self) -> _VocabularyFile:
        for group, names in self.groups.items():
            unknown = [n for n in names if n not in self.fields]
            if unknown:
                raise ValueError(f"group {group!r} names unknown fields: {', '.join(unknown)}")
        return self


@dataclass(frozen=True)
class Field:
    name: str
    file: str
    label: str
    description: str
    meanings: dict[str, str]  # value -> one-line meaning, in display order
    columns: tuple[str, ...] = ()  # the columns holding this field; () means the field's name
    phrases: dict[str, str] = dataclass_field(default_factory=dict)  # value -> "up to {}"

    @property
    def values(self) -> list[str]:
        return list(self.meanings)

    def phrase(self, value: str, number: str) -> str:
        """``number`` worded as ``value`` says (the field's phrase with the number in its
        ``{}``: ``up_to`` and ``100`` give ``up to 100``); a field without phrases gives the
        number alone."""
        return self.phrases.get(value, "{}").replace("{}", number, 1)


@dataclass(frozen=True)
class Vocabulary:
    fields: dict[str, Field]
    groups: dict[str, tuple[str, ...]]

    def __getitem__(self, name: str) -> Field:
        return self.fields[name]

    def values(self, name: str) -> list[str]:
        return self.fields[name].values

    def for_file(self, file: str) -> list[Field]:
        """The fields of one data file, in vocabulary order."""
        return [f for f in self.fields.values() if f.file == file]

    def names(self, file: str) -> list[str]:
        """The names of the fields of one data file (e.g. the tag columns of ``papers.csv``)."""
        return [f.name for f in self.for_file(file)]

    def group(self, name: str) -> list[str]:
        """The field names of one group defined in the vocabulary file."""
        return list(self.groups[name])


def load_vocabulary(data_dir: str | os.PathLike | None = None) -> Vocabulary:
    """Read and validate ``vocabulary.yaml``; raise :class:`masrl.data.problems.DataError`."""
    spec = documents.load_model(paths.VOCABULARY, _VocabularyFile, data_dir)
    fields = {}
    for name, field in spec.fields.items():
        order = field.order if field.order is not None else list(field.values)
        fields[name] = Field(name, field.file, field.label, field.description,
                             {v: field.values[v] for v in order}, tuple(field.columns or [name]),
                             dict(field.phrases or {}))
    return Vocabulary(fields, {g: tuple(names) for g, names in spec.groups.items()})


def dictionary(vocab: Vocabulary, file: str | None = None) -> list[dict]:
    """The data dictionary: one entry per field (optionally of one file), each with its values
    and their meanings, in vocabulary order. The book's data-dictionary page renders this."""
    return [
        {"field": f.name, "file": f.file, "columns": list(f.columns or [f.name]),
         "label": f.label, "description": f.description,
         "values": [{"value": v, "meaning": m} for v, m in f.meanings.items()]}
        for f in vocab.fields.values() if file is None or f.file == file
    ]
