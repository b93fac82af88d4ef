"""Docstrings as book text: reStructuredText simple tables become Markdown tables."""

from __future__ import annotations

from masrl.presentation import docstrings

TABLE = """Before.

=====  ============
kind   values
=====  ============
agent  ``a``, ``b``,
       ``c``
tool   ``t``
=====  ============

After."""


def test_a_simple_table_becomes_a_markdown_table():
    text = docstrings.rst_tables(TABLE)
    assert "=====" not in text
    assert text.splitlines()[2:6] == ["| kind | values |", "| --- | --- |",
                                      "| agent | ``a``, ``b``, ``c`` |", "| tool | ``t`` |"]
    assert text.startswith("Before.") and text.endswith("After.")


def test_a_line_of_equals_signs_that_is_no_table_is_left_alone():
    assert docstrings.rst_tables("=====  =====\nnot a table") == "=====  =====\nnot a table"
