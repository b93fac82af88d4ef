"""The parameters extension: a chapter's parameter cell becomes a note naming each parameter,
its default and its meaning, with the command that reruns the chapter with other values."""

from __future__ import annotations

import importlib.util

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from masrl import paths

SPEC = importlib.util.spec_from_file_location(
    "parameters_note", paths.REPO_ROOT / "book" / "_ext" / "parameters_note.py")
extension = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(extension)

CELL = '''# the trace to report on; a relative path is read from the working directory
trace_path = "../data/traces/examples/hierarchical.json"
max_rows = 60  # the longest table shown in full
seed = 0
'''


def test_each_parameter_keeps_its_default_and_its_comment():
    found = extension.parameters(CELL)
    assert [(p.name, p.default, p.meaning) for p in found] == [
        ("trace_path", '"../data/traces/examples/hierarchical.json"',
         "the trace to report on; a relative path is read from the working directory"),
        ("max_rows", "60", "the longest table shown in full"),
        ("seed", "0", ""),
    ]


def test_the_cell_is_replaced_by_the_note():
    document = new_document("chapter", get_default_settings(Parser))
    cell = nodes.container(classes=["cell", "tag_parameters"])
    cell += nodes.container("", nodes.literal_block(text=CELL), classes=["cell_input"])
    document += cell
    extension.replace_parameter_cells(None, document, "notebooks/22_trace_report")
    assert not list(document.findall(nodes.literal_block))  # no code left
    text = document.astext()
    assert "Parameters." in text
    assert "papermill notebooks/22_trace_report.ipynb out.ipynb -p trace_path VALUE" in text
    assert "max_rows = 60: the longest table shown in full" in text
