"""Blocks that fold long outputs, for the book: tabs and collapsible sections.

* :class:`Tabs` shows several outputs (tables, charts, text) of one cell as tabs, one visible at
  a time, with the markup and classes of sphinx-design's ``tab-set`` (loaded by Jupyter Book on
  every page): radio buttons and CSS only, so the tabs work without JavaScript, and every tab's
  content is in the page (a search finds it, a printout can show it).
* :func:`dropdown` wraps Markdown (a docstring quoted by a chapter) in a ``<details>`` element
  that the reader opens: the section's title stays in view, its body is folded.

Labels, titles and names are escaped; contents are the outputs' own HTML (each escapes its data)
or Markdown built by the caller.
"""

from __future__ import annotations

import re

from masrl.presentation.escaping import MarkdownText, html_text

_NAME = re.compile(r"[^a-z0-9-]+")


def _html(output) -> str:
    if hasattr(output, "_repr_html_"):
        return output._repr_html_()
    return f'<pre class="masrl-text">{html_text(repr(output))}</pre>'


class Tabs:
    """Outputs under tab labels (``{label: output}``, the first tab open). ``name`` makes the
    element ids unique in a page and stable across builds: give each tab set of a chapter its
    own (e.g. the topology it shows)."""

    def __init__(self, name: str, tabs: dict[str, object]):
        if not tabs:
            raise ValueError("a tab set needs at least one tab")
        self.name = _NAME.sub("-", name.lower()).strip("-") or "tabs"
        self.tabs = tabs

    def _repr_html_(self) -> str:
        parts = []
        for k, (label, output) in enumerate(self.tabs.items()):
            item = f"masrl-tab-{self.name}-{k}"
            checked = ' checked="checked"' if k == 0 else ""
            parts.append(
                f'<input{checked} id="{item}" name="masrl-tabs-{self.name}" type="radio">'
                f'<label class="sd-tab-label" for="{item}">{html_text(label)}</label>'
                f'<div class="sd-tab-content docutils">{_html(output)}</div>')
        return f'<div class="sd-tab-set docutils masrl-tabs">{"".join(parts)}</div>'

    def __repr__(self) -> str:
        return "\n\n".join(f"[{label}]\n{output!r}" for label, output in self.tabs.items())


def dropdown(title: str, markdown: str, *, opened: bool = False) -> MarkdownText:
    """``markdown`` folded under ``title`` (escaped) in a ``<details>`` element styled as
    sphinx-design's dropdown. The body is Markdown, parsed by the book as usual (blank lines
    around it keep it Markdown inside the HTML element)."""
    state = " open" if opened else ""
    return MarkdownText(
        f'<details class="sd-sphinx-override sd-dropdown sd-card sd-mb-3 masrl-dropdown"{state}>\n'
        f'<summary class="sd-summary-title sd-card-header">{html_text(title)}</summary>\n\n'
        f'<div class="sd-summary-content sd-card-body">\n\n{markdown}\n\n</div>\n</details>\n')


def dropdown_list(sections: dict[str, str]) -> MarkdownText:
    """Several folded sections, one :func:`dropdown` per ``{title: markdown}``."""
    return MarkdownText("\n".join(dropdown(title, body).markdown
                                  for title, body in sections.items()))
