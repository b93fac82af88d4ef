r"""Sphinx extension: the book's formulas as MathML, written into the pages when they are built.

Sphinx's default renderer loads MathJax from a CDN, which the book never references (it must
read from disk, with no network). This renderer converts the LaTeX of every ``$...$`` and
``$$...$$`` formula with latex2mathml (pure Python, pinned in requirements.txt) into MathML,
which browsers draw themselves; a page needs no script for it. Selected in ``_config.yml``
with ``html_math_renderer: mathml``.

latex2mathml copies the text of ``\text{...}`` into the markup as it is, so ``<``, ``>`` and
``&`` are first written as the LaTeX commands ``\lt``, ``\gt`` and ``\&``: an operator still
draws as the sign, and no formula can put a tag into the page.
"""

from __future__ import annotations

import re

from docutils import nodes
from latex2mathml.converter import convert

SAFE = str.maketrans({"<": r" \lt ", ">": r" \gt "})
AMPERSAND = re.compile(r"(?<!\\)&")  # an & not already written \&


def _mathml(latex: str, display: str) -> str:
    safe = AMPERSAND.sub(r"\\&", latex.strip().translate(SAFE))
    return convert(safe, display=display)


def visit_math(self, node: nodes.math) -> None:
    self.body.append(f'<span class="math">{_mathml(node.astext(), "inline")}</span>')
    raise nodes.SkipNode


def visit_math_block(self, node: nodes.math_block) -> None:
    self.body.append(f'<div class="math">{_mathml(node.astext(), "block")}</div>\n')
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_math_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
