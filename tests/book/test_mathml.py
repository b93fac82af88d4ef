"""The Sphinx extension that writes formulas as MathML: the formula becomes markup a browser
draws without a script, a LaTeX command included, and the book selects it as its renderer."""

from __future__ import annotations

import importlib.util
import types

import pytest
import yaml
from docutils import nodes

from masrl import paths

SPEC = importlib.util.spec_from_file_location(
    "mathml", paths.REPO_ROOT / "book" / "_ext" / "mathml.py")
extension = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(extension)


def rendered(visit, node) -> str:
    translator = types.SimpleNamespace(body=[])
    with pytest.raises(nodes.SkipNode):
        visit(translator, node)
    return "".join(translator.body)


def test_inline_and_block_formulas_become_mathml():
    inline = rendered(extension.visit_math, nodes.math(text=r"v(N \setminus \{u\})"))
    assert inline.startswith('<span class="math"><math ') and 'display="inline"' in inline
    assert "\\setminus" not in inline and "<mi>N</mi>" in inline
    block = rendered(extension.visit_math_block,
                     nodes.math_block(text=r"\frac{|S|!}{n!}", nowrap=False, number=None))
    assert 'display="block"' in block and "<mfrac>" in block


def test_a_formula_cannot_inject_markup():
    inline = rendered(extension.visit_math, nodes.math(text=r"a < b \text{<script>}"))
    assert "<script>" not in inline


def test_the_book_uses_it_instead_of_mathjax():
    config = yaml.safe_load((paths.REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["sphinx"]["config"]["html_math_renderer"] == "mathml"
    assert config["sphinx"]["local_extensions"]["mathml"] == "book/_ext"
