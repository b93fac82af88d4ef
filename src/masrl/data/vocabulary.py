"""The controlled vocabulary (``data/vocabulary.yaml``): one definition, used to validate the
data, to count (zero-count values included), to order tables and charts, and to generate the
data dictionary.

Besides the fields, the file names *groups* of fields that several places use together (the
tags a second reader re-codes, say), so that no module keeps its own list of field names, and
*labels*: how the book shows each value of a field written as codes (``rl_method`` reads "RL
method"), one place for every chart and table (:meth:`Field.label_of`).
Problems are reported like every data file's: ``vocabulary.yaml:fields.NAME:KEY: message``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from pydantic import BaseModel, ConfigDict, StrictStr, model_validator

from masrl import paths
from masrl.data import documents
from masrl.data.problems import DataError, DataProblem


class _FieldSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file: StrictStr | list[StrictStr]
    label: StrictStr
    description: StrictStr
    values: dict[StrictStr, StrictStr]
    order: list[StrictStr] | None = None
    columns: list[StrictStr] | None = None
    phrases: dict[StrictStr, StrictStr] | None = None

    @model_validator(mode="after")
    def _order_lists_the_values(self) -> _FieldSpec:
        if isinstance(self.file, list) and not self.file:
            raise ValueError("'file' must name at least one data file")
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
    labels: dict[StrictStr, dict[StrictStr, StrictStr]] = {}

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
    file: str  # the first (main) file the field tags
    label: str
    description: str
    meanings: dict[str, str]  # value -> one-line meaning, in display order
    columns: tuple[str, ...] = ()  # the columns holding this field; () means the field's name
    phrases: dict[str, str] = dataclass_field(default_factory=dict)  # value -> "up to {}"
    files: tuple[str, ...] = ()  # every file the field tags (the main one first)
    labels: dict[str, str] = dataclass_field(default_factory=dict)  # value -> what readers see

    def label_of(self, value: str) -> str:
        """How the book shows ``value`` (its label; a field without labels, or a value it does
        not define, as written)."""
        return self.labels.get(value, value)

    def tags(self, file: str) -> bool:
        """Whether the field tags a column of data file ``file``."""
        return file == self.file or file in self.files

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
        """The field ``name``; a :class:`~masrl.data.problems.DataError` naming
        ``vocabulary.yaml`` when the file does not define it (a loader or a statistic needs it)."""
        try:
            return self.fields[name]
        except KeyError:
            raise _undefined("fields", name) from None

    def values(self, name: str) -> list[str]:
        return self[name].values

    def for_file(self, file: str) -> list[Field]:
        """The fields of one data file, in vocabulary order."""
        return [f for f in self.fields.values() if f.tags(file)]

    def names(self, file: str) -> list[str]:
        """The names of the fields of one data file (e.g. the tag columns of ``papers.csv``)."""
        return [f.name for f in self.for_file(file)]

    def group(self, name: str) -> list[str]:
        """The field names of one group defined in the vocabulary file."""
        try:
            return list(self.groups[name])
        except KeyError:
            raise _undefined("groups", name) from None


def _undefined(section: str, name: str) -> DataError:
    kind = "field" if section == "fields" else "group"
    return DataError([DataProblem(paths.VOCABULARY, section, name,
                                  f"the {kind} is not defined, and the package needs it")])


# The fields the package names in its code (schemas, cross-file checks, statistics), with the file
# each tags, and the groups it names: the vocabulary may add fields and values, not drop these.
NEEDED_FIELDS = {
    "category": paths.PAPERS, "is_rl": paths.PAPERS, "reward_type": paths.PAPERS,
    "credit_granularity": paths.PAPERS, "orchestration_form": paths.PAPERS,
    "scenario": paths.PAPERS, "is_core": paths.PAPERS, "verified": paths.PAPERS,
    "stage": paths.EXCLUDED, "source": paths.EXCLUDED, "query_family": paths.EXCLUDED,
    "exclusion_rule": paths.EXCLUDED, "credit_mechanism": paths.PAPERS,
    "credit_comparison": paths.CREDIT_EVIDENCE, "tag_verdict": paths.TAG_EVIDENCE,
    "decision": paths.CANDIDATES,
    "strict_explicit_credit": paths.SPOTCHECK, "agreement": paths.SPOTCHECK,
    "credit_reading": paths.AUDIT, "domain": paths.BENCHMARK_COVERAGE,
    "mas_native": paths.BENCHMARK_COVERAGE, "measure_coverage": paths.BENCHMARK_COVERAGE,
    "coded_by": paths.BENCHMARK_COVERAGE, "kind": paths.ENVELOPES, "bound": paths.ENVELOPES,
    "horizon_unit": paths.ENVELOPES, "confidence": paths.ENVELOPES,
}
NEEDED_GROUPS = ("recoded",)


def load_vocabulary(data_dir: str | os.PathLike | None = None) -> Vocabulary:
    """Read and validate ``vocabulary.yaml`` (it defines at least :data:`NEEDED_FIELDS`, each
    for its file, and :data:`NEEDED_GROUPS`); raise :class:`masrl.data.problems.DataError`."""
    spec = documents.load_model(paths.VOCABULARY, _VocabularyFile, data_dir)
    problems = [_undefined("fields", name).problems[0] for name in NEEDED_FIELDS
                if name not in spec.fields]
    problems += [DataProblem(paths.VOCABULARY, f"fields[{name}]", "file",
                             f"{spec.fields[name].file!r}: the package reads {name} in {file}")
                 for name, file in NEEDED_FIELDS.items()
                 if name in spec.fields and file not in _files(spec.fields[name])]
    problems += [_undefined("groups", name).problems[0] for name in NEEDED_GROUPS
                 if name not in spec.groups]
    problems += _label_problems(spec)
    if problems:
        raise DataError(problems)
    fields = {}
    for name, field in spec.fields.items():
        order = field.order if field.order is not None else list(field.values)
        files = _files(field)
        fields[name] = Field(name, files[0], field.label, field.description,
                             {v: field.values[v] for v in order}, tuple(field.columns or [name]),
                             dict(field.phrases or {}), files,
                             {v: spec.labels[name][v] for v in order} if name in spec.labels
                             else {})
    return Vocabulary(fields, {g: tuple(names) for g, names in spec.groups.items()})


def _label_problems(spec: _VocabularyFile) -> list[DataProblem]:
    """Each field of ``labels`` is defined and labels exactly its values, with distinct labels."""
    problems = []
    for name, labels in spec.labels.items():
        if name not in spec.fields:
            problems.append(DataProblem(paths.VOCABULARY, "labels", name,
                                        f"labels name an unknown field: {name}"))
            continue
        values = spec.fields[name].values
        missing = [v for v in values if v not in labels]
        extra = [v for v in labels if v not in values]
        if missing or extra:
            problems.append(DataProblem(
                paths.VOCABULARY, "labels", name, "the labels must label exactly the field's values"
                + (f"; no label for {', '.join(missing)}" if missing else "")
                + (f"; not a value: {', '.join(extra)}" if extra else "")))
        shown = [label.strip().casefold() for label in labels.values()]
        if "" in shown or len(set(shown)) != len(shown):
            problems.append(DataProblem(paths.VOCABULARY, "labels", name,
                                        "the labels must be distinct and not empty"))
    return problems


def _files(field: _FieldSpec) -> tuple[str, ...]:
    """The files a field tags: ``file`` is one name or a list of names, the main file first."""
    return (field.file,) if isinstance(field.file, str) else tuple(field.file)


def dictionary(vocab: Vocabulary, file: str | None = None) -> list[dict]:
    """The data dictionary: one entry per field (optionally of one file), each with its values
    and their meanings, in vocabulary order. The book's data-dictionary page renders this."""
    return [
        {"field": f.name, "file": ", ".join(f.files or (f.file,)),
         "columns": list(f.columns or [f.name]),
         "label": f.label, "description": f.description,
         "values": [{"value": v, "label": f.label_of(v), "meaning": m}
                    for v, m in f.meanings.items()]}
        for f in vocab.fields.values() if file is None or f.tags(file)
    ]
