"""Loading a YAML data file into a pydantic model, with problems in the shared shape
``FILE:SECTION[i]:FIELD: message`` (the YAML counterpart of :func:`masrl.data.tables.load_table`)."""

from __future__ import annotations

import os
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from masrl import paths
from masrl.data.problems import DataError, DataProblem

Model = TypeVar("Model", bound=BaseModel)


class _DataLoader(yaml.SafeLoader):
    """PyYAML's safe loader (no ``!!python`` tags) that also refuses aliases: a data file has no
    need of them, and nested aliases expand exponentially (a "billion laughs" file)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"aliases (*{event.anchor}) are not allowed in data files",
                event.start_mark)
        return super().compose_node(parent, index)


def load_model(name: str, model: type[Model], data_dir: str | os.PathLike | None) -> Model:
    """Parse ``data/<name>`` and validate its structure; raise :class:`DataError` on problems."""
    path = paths.data_file(name, data_dir)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_DataLoader)  # noqa: S506
    except FileNotFoundError:
        raise DataError([DataProblem(name, "0", "-", "file not found")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = str(mark.line + 1) if mark is not None else "-"
        raise DataError([DataProblem(name, line, "-", f"not valid YAML: {exc}")]) from None
    if raw is None:
        raise DataError([DataProblem(name, "1", "-", "the file is empty")])
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise DataError([pydantic_problem(name, err) for err in exc.errors()]) from None


def pydantic_problem(name: str, error: dict) -> DataProblem:
    """``section[i]`` as the row and the rest of the location as the field."""
    loc = [str(part) for part in error["loc"]]
    where = f"{loc[0]}[{loc[1]}]" if len(loc) > 1 else (loc[0] if loc else "-")
    field = ".".join(loc[2:]) or (loc[0] if loc else "-")
    return DataProblem(name, where, field, error["msg"])
