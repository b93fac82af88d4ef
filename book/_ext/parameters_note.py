"""Sphinx extension: a chapter's parameter cell shown as a short "Parameters" note, not as code.

Every computing chapter opens with a cell tagged ``parameters`` (papermill sets its values when
a chapter is rerun: ``data_dir = None  # the data directory; ...``). Shown as it is, it is the
only code a reader sees, clipped sideways on a phone. Here it becomes a note that names each
parameter, its default and what it means (the comment beside it, or the comment lines above
it), and says how to rerun the chapter with other values; the chapter's source is unchanged,
so papermill and the notebook tests see the same cell.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import NamedTuple

from docutils import nodes

TAG = "tag_parameters"


class Parameter(NamedTuple):
    name: str
    default: str  # as written in the cell
    meaning: str  # its comment, "" when it has none


def parameters(source: str) -> list[Parameter]:
    """The assignments of a parameter cell, in order, each with the comment on its line or, when
    it has none, the comment lines just above it."""
    tree = ast.parse(source)
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string.lstrip("#").strip()
    lines = source.splitlines()
    found = []
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 \
                or not isinstance(statement.targets[0], ast.Name):
            continue
        meaning = comments.get(statement.lineno, "")
        above = statement.lineno - 1
        block = []
        while not meaning and above >= 1 and lines[above - 1].lstrip().startswith("#"):
            block.insert(0, comments[above])
            above -= 1
        meaning = meaning or " ".join(block)
        found.append(Parameter(statement.targets[0].id,
                               ast.get_source_segment(source, statement.value) or "", meaning))
    return found


def note(found: list[Parameter], notebook: str) -> nodes.container:
    """The note that stands for a parameter cell of ``notebook`` (its path, for the command)."""
    box = nodes.container(classes=["masrl-parameters"])
    heading = nodes.paragraph()
    heading += nodes.strong(text="Parameters.")
    heading += nodes.Text(" This chapter runs with these values; rerun it with others with "
                          "papermill, one ")
    heading += nodes.literal(text="-p NAME VALUE")
    heading += nodes.Text(" each: ")
    heading += nodes.literal(text=f"papermill {notebook} out.ipynb -p {found[0].name} VALUE")
    heading += nodes.Text(".")
    box += heading
    items = nodes.bullet_list()
    for parameter in found:
        item = nodes.paragraph()
        item += nodes.literal(text=parameter.name)
        item += nodes.Text(" = ")
        item += nodes.literal(text=parameter.default)
        if parameter.meaning:
            item += nodes.Text(f": {parameter.meaning}")
        items += nodes.list_item("", item)
    box += items
    return box


def replace_parameter_cells(app, doctree, docname: str) -> None:
    for cell in list(doctree.findall(nodes.container)):
        if TAG not in cell.get("classes", []):
            continue
        code = next(iter(cell.findall(nodes.literal_block)), None)
        found = parameters(code.astext()) if code is not None else []
        if found:
            cell.replace_self(note(found, f"{docname}.ipynb"))


def setup(app):
    app.connect("doctree-resolved", replace_parameter_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
