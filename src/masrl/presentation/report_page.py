"""One executed chapter as one self-contained HTML page: what ``masrl report`` writes.

The page is rendered by MyST-NB, the renderer of the book, in its docutils-only mode (no Sphinx
project): glued values are pasted into the prose, the cells' ``remove-input`` and
``remove-cell`` tags are honoured, outputs appear as the book shows them, and formulas are
written by docutils as HTML (no MathJax). Code is never shown: the page is a report, not a
notebook. Markdown cells tagged :data:`BOOK_ONLY` (how the chapter fits in the book: its
prerequisites, what comes next, how to rerun it) are left out.

Everything the page needs is inside it: the stylesheets are embedded and, when a chart is
interactive (``masrl.presentation.charts.show(..., interactive=True)``), the scripts that draw
it (Vega, Vega-Lite and vega-embed, from the npm-installed copy in ``node_modules``, and
``masrl/presentation/masrl-charts.js``) are written into the page; without that copy the charts stay
static SVG. No address outside the page is referenced, and the same notebook gives the same
bytes (no dates, no generator line).
"""

from __future__ import annotations

import base64
import copy
import re
from importlib import resources
from pathlib import Path

from masrl import paths

BOOK_ONLY = "book-only"  # the tag of markdown cells that only make sense inside the book
INTERACTIVE_MARKER = "masrl-interactive"
VEGA_FILES = ("vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js",
              "vega-embed/build/vega-embed.min.js")
CHART_SCRIPT = Path(str(resources.files("masrl.presentation") / "masrl-charts.js"))
STYLESHEET = "report_page.css"  # beside this module


class RenderError(ValueError):
    """The chapter could not be rendered (MyST-NB reported an error): a problem of the chapter,
    not of the trace."""


def vega_scripts(node_modules: Path | None = None) -> list[Path] | None:
    """The installed Vega files (``None`` when any is missing: the charts then stay static)."""
    folder = paths.NODE_MODULES if node_modules is None else node_modules
    found = [folder / name for name in VEGA_FILES]
    return found if all(p.is_file() for p in found) else None


def without_book_cells(notebook):
    """A copy of ``notebook`` without the markdown cells tagged :data:`BOOK_ONLY`."""
    kept = copy.deepcopy(notebook)
    kept.cells = [cell for cell in kept.cells
                  if BOOK_ONLY not in cell.get("metadata", {}).get("tags", [])]
    return kept


def stylesheets() -> list[str]:
    """The embedded stylesheets: docutils' own two, MyST-NB's, then ours."""
    import docutils.writers.html5_polyglot as html5
    from myst_nb import static

    base = Path(html5.__file__).parent
    return [str(base / "minimal.css"), str(base / "plain.css"),
            str(resources.files(static) / "mystnb.css"),
            str(resources.files("masrl.presentation") / STYLESHEET)]


def render(notebook, *, title: str, node_modules: Path | None = None) -> str:
    """The HTML page of an executed notebook (see the module docstring); ``title`` names the
    page in the browser's tab. A :class:`RenderError` when MyST-NB reports an error (an unknown
    role or directive, a link to a page that is not there)."""
    import io

    import nbformat
    from docutils.core import publish_string
    from docutils.utils import SystemMessage
    from myst_nb.docutils_ import Parser

    source = nbformat.writes(without_book_cells(notebook))
    messages = io.StringIO()
    settings = {
        "output_encoding": "unicode",
        "embed_stylesheet": True,
        "stylesheet_path": stylesheets(),
        "title": title,
        "report_level": 2,  # warnings and errors go to `messages`...
        "halt_level": 3,  # ...and an error stops the rendering
        "warning_stream": messages,
        "nb_execution_mode": "off",  # executed already, by papermill
        "nb_output_folder": "",  # nothing written beside the page
        "nb_remove_code_source": True,
        "nb_builder_name": "html",
        "myst_enable_extensions": ["colon_fence", "deflist", "dollarmath"],
        "math_output": "HTML",
    }
    try:
        page = publish_string(source, parser=Parser(), writer_name="html5",
                              settings_overrides=settings)
    except SystemMessage as exc:
        raise RenderError(f"the chapter cannot be rendered: {exc}") from None
    if "ERROR" in messages.getvalue():
        raise RenderError(f"the chapter cannot be rendered: {messages.getvalue().strip()}")
    page = re.sub(r'<meta name="generator"[^>]*>\n?', "", page)
    page = page.replace('<html xmlns="http://www.w3.org/1999/xhtml" ', "<html ")
    if INTERACTIVE_MARKER in page:
        page = with_scripts(page, vega_scripts(node_modules))
    return page


def inline_script(text: str) -> str:
    """A script as an HTML ``<script>`` element of the page: its text as it is, unless it holds
    ``</script`` or ``<!--`` (which the HTML parser would read as markup), then as a base64
    ``data:`` address, which nothing in the text can break."""
    lowered = text.lower()
    if "</script" not in lowered and "<!--" not in lowered:
        return f"<script>{text}</script>"
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f'<script src="data:text/javascript;base64,{encoded}"></script>'


def with_scripts(page: str, vega: list[Path] | None) -> str:
    """The page with the chart libraries and the chart script written in before ``</body>``
    (unchanged when the libraries are not installed: the static charts stay)."""
    if vega is None:
        return page
    scripts = [p.read_text(encoding="utf-8") for p in [*vega, CHART_SCRIPT]]
    block = "\n".join(inline_script(text) for text in scripts) + "\n"
    head, tail = page.rsplit("</body>", 1)
    return head + block + "</body>" + tail
