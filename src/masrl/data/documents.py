"""Loading a YAML data file into a pydantic model, with problems in the shared shape
``FILE:SECTION[i]:FIELD: message`` (the YAML counterpart of :func:`masrl.data.tables.load_table`).

The text comes from :func:`masrl.data.reading.read_text` (a regular file of bounded size, UTF-8,
no control characters). It is parsed with PyYAML's safe loader, restricted further to what a data
file needs, plain mappings, lists and scalars:

* no aliases or anchors' references (``*name``): nested aliases expand exponentially (a
  "billion laughs" file) and a data file has no need of them; nor merge keys (``<<``);
* no tags (``!!python/object``, ``!!binary``, ``!custom``, ``!!str``...): the value a reader
  sees is the value written;
* no key twice in one mapping: PyYAML keeps the last value silently, so a second key could hide
  an invalid value behind a valid one;
* no nesting deeper than :data:`MAX_DEPTH` levels (the parser would otherwise exhaust Python's
  recursion limit);
* dates stay text (``2026-05-04`` is the string, not a ``datetime.date``), so a model checks
  them itself (``published.yaml``'s cut-off) and an impossible date (``2026-13-45``) is a problem of the
  field, not an error of the parser.

Every refusal is a problem naming the line; so is every parser error and every value PyYAML
cannot build (an integer of more than 4300 digits, say).
"""

from __future__ import annotations

import os
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from masrl.data import reading
from masrl.data.problems import DataError, DataProblem

Model = TypeVar("Model", bound=BaseModel)
MAX_DEPTH = 50  # our files nest four levels deep at most


class _Refused(yaml.MarkedYAMLError):
    """A construct the data loader does not accept (the message says which)."""


class _DataLoader(yaml.SafeLoader):
    """PyYAML's safe loader restricted as the module docstring says."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(None, None, f"aliases (*{event.anchor}) are not allowed in data files",
                           event.start_mark)
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!", 1)
            raise _Refused(None, None, f"tags ({shown}) are not allowed in data files; write the "
                                       "plain value", event.start_mark)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise _Refused(None, None, f"nested more than {MAX_DEPTH} levels deep",
                               event.start_mark)
            node = super().compose_node(parent, index)
            self._depth -= 1
            return node
        return super().compose_node(parent, index)

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:  # an integer of 5000 digits, say
            reason = str(exc).split(":")[0]
            raise _Refused(None, None, f"the value cannot be read: {reason}",
                           node.start_mark) from None

    def construct_mapping(self, node, deep=False):
        seen: dict[object, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused(None, None, "merge keys (<<) are not allowed in data files",
                               key_node.start_mark)
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key; PyYAML says so below
                continue
            if first is not key_node:
                raise _Refused(None, None,
                               f"duplicate key {key!r} (first on line {first.start_mark.line + 1}"
                               "); each key is written once", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


# Dates and times stay strings: drop the implicit resolver of YAML timestamps for this loader.
_DataLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def parse(name: str, text: str):
    """The plain data of YAML ``text`` (file ``name``); a :class:`DataError` naming the line
    otherwise (see the module docstring)."""
    try:
        return yaml.load(text, Loader=_DataLoader)  # noqa: S506 (a safe loader, restricted)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = str(mark.line + 1) if mark is not None else "-"
        reason = "; ".join(part for part in (exc.context, exc.problem) if part)
        prefix = "" if isinstance(exc, _Refused) else "not valid YAML: "
        raise DataError([DataProblem(name, line, "-", prefix + reason)]) from None
    except yaml.YAMLError as exc:
        raise DataError([DataProblem(name, "-", "-", f"not valid YAML: {exc}")]) from None
    except RecursionError:
        raise DataError([DataProblem(name, "-", "-", "nested too deeply")]) from None


def load_model(name: str, model: type[Model], data_dir: str | os.PathLike | None) -> Model:
    """Parse ``data/<name>`` and validate its structure; raise :class:`DataError` on problems."""
    raw = parse(name, reading.read_text(name, data_dir))
    if raw is None:
        raise DataError([DataProblem(name, "1", "-", "the file is empty")])
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise DataError([pydantic_problem(name, err) for err in exc.errors()]) from None


def pydantic_problem(name: str, error: dict) -> DataProblem:
    """``section[i]`` (an entry of a list, or a key of a mapping) as the row and the rest of the
    location as the field; a wrong type says what was found."""
    loc = list(error["loc"])
    parts = [str(part) for part in loc]
    message = error["msg"]
    if error["type"] not in _NO_INPUT:
        message += f" (found {_found(error.get('input'))})"
    if not loc:
        return DataProblem(name, "-", "-", "the file must hold a mapping of sections (key: "
                                           f"value lines); found {_found(error.get('input'))}")
    if len(loc) == 2 and not isinstance(loc[1], int):  # a key of a top-level mapping
        return DataProblem(name, parts[0], parts[1], message)
    where = f"{parts[0]}[{parts[1]}]" if len(parts) > 1 else parts[0]
    field = ".".join(parts[2:]) or ("-" if len(parts) > 1 else parts[0])
    return DataProblem(name, where, field, message)


# pydantic errors whose message says it all (no input value to quote)
_NO_INPUT = {"missing", "extra_forbidden", "value_error", "assertion_error"}


def _found(value) -> str:
    """A value as a problem quotes it, in YAML's words: scalars as written (shortened; ``null``,
    ``true``, ``false``), containers by kind."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
