"""Data text placed in Markdown or HTML renders as exactly that text: nothing in it becomes
markup (raw HTML, a link, a role, math, emphasis, a heading, a new block)."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest
from docutils.core import publish_parts
from hypothesis import given, settings
from hypothesis import strategies as st
from myst_parser.parsers.docutils_ import Parser

from masrl.data.dataset import Dataset
from masrl.data.vocabulary import dictionary
from masrl.presentation import dictionary_views, pool_views
from masrl.presentation.escaping import html_text, markdown_code, markdown_text

EXTENSIONS = ["colon_fence", "deflist", "dollarmath", "substitution", "html_image",
              "html_admonition", "linkify", "amsmath", "attrs_inline"]
PAYLOADS = [
    "<script>window.__xss = 1</script>",
    "<img src=x onerror=window.__xss=2>",
    "[click](javascript:alert(1))",
    "{raw}`html` <b>x</b> {sub-ref}`today`",
    "$x^2$ and $$y$$",
    "**bold** _it_ `code` ~~s~~",
    "&amp; &lt;b&gt; &#60;i&#62;",
    "# not a heading\n- not a list\n\n```\nnot a fence\n```",
    "(target)=\n:::{note}\nno admonition\n:::",
    "a\\b\\\\c \\",
    "```` `` ` ```",
]


def render(markdown: str) -> str:
    """HTML of ``markdown`` as MyST renders it (the extensions the book enables, and more)."""
    settings_ = {"myst_enable_extensions": EXTENSIONS, "report_level": 5,
                 "output_encoding": "unicode", "myst_url_schemes": None, "doctitle_xform": False}
    return publish_parts(markdown, parser=Parser(), writer_name="html5",
                         settings_overrides=settings_)["body"]


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def elements(rendered: str) -> tuple[list[str], str]:
    parser = _Elements()
    parser.feed(rendered)
    return parser.tags, "".join(parser.text)


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_text_renders_as_the_text_itself(payload):
    tags, text = elements(render(f"Before {markdown_text(payload)} after"))
    assert tags == ["p"]
    assert words(text) == words(f"Before {payload} after")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_text_in_a_heading_stays_in_the_heading(payload):
    tags, text = elements(render(f"## {markdown_text(payload)}"))
    assert tags == ["section", "h2"]
    assert words(text) == words(payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_code_renders_as_the_text_itself(payload):
    tags, text = elements(render(f"Value {markdown_code(payload)}."))
    assert tags[0] == "p" and set(tags[1:]) <= {"span", "code"}  # docutils: spans of a literal
    assert words(text) == words(f"Value {payload}.")


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Co", "Cn")), min_size=1,
               max_size=40).filter(lambda t: t.strip()))
def test_no_text_becomes_markup(value):
    tags, text = elements(render(f"Before {markdown_text(value)} after"))
    assert tags == ["p"]
    assert words(text) == words(f"Before {value} after")
    tags, text = elements(render(f"Value {markdown_code(value)} after"))
    assert tags[0] == "p" and set(tags[1:]) <= {"span", "code"}
    assert words(text) == words(f"Value {value} after")


def test_html_text_escapes_attribute_quotes():
    assert html_text("<a href=\"x\" title='y'>&") == "&lt;a href=&quot;x&quot; title=&#x27;y&#x27;&gt;&amp;"


# --- the presentation functions of the pool and the data dictionary -------------------------------

HOSTILE = "<img src=x onerror=window.__xss=3>"


def test_every_cell_and_column_of_the_browse_frame_is_escaped():
    data = Dataset()
    papers = data.papers.head(3).copy()
    tags = data.vocabulary.names("papers.csv")
    papers.loc[0, tags[0]] = HOSTILE
    papers = papers.rename(columns={tags[1]: HOSTILE})
    shown = [tags[0], HOSTILE, *tags[2:]]
    frame = pool_views.browse_frame(papers, shown)
    assert html.escape(HOSTILE) in list(frame.columns)
    assert frame.loc[0, tags[0]] == html.escape(HOSTILE)
    cells = "".join(str(v) for v in frame.to_numpy().ravel()) + "".join(frame.columns)
    assert "<img" not in cells


def test_category_heading_escapes_meaning_and_value():
    field = Dataset().vocabulary["category"]
    field.meanings[HOSTILE] = "<script>window.__xss = 4</script> meaning"
    try:
        markdown = pool_views.category_heading(field, HOSTILE, 2)._repr_markdown_()
    finally:
        del field.meanings[HOSTILE]
    tags, text = elements(render(markdown))
    assert tags[0] == "section" and tags[1] in ("h2", "h3") and set(tags[2:]) <= {"span", "code"}
    assert words(text) == words(f"<script>window.__xss = 4</script> meaning ({HOSTILE}, 2)")


def test_data_dictionary_heading_escapes_every_text():
    entry = dictionary(Dataset().vocabulary)[0]
    entry = {**entry, "label": HOSTILE, "field": "<b>f</b>", "description": "[x](javascript:y)",
             "columns": ["`c`"], "file": "<i>papers.csv</i>"}
    tags, text = elements(render(dictionary_views.field_heading(entry)._repr_markdown_()))
    assert tags[0] == "section" and tags[1] in ("h2", "h3") and set(tags[2:]) <= {"p", "span", "code"}
    assert words(text) == words(f"{HOSTILE} (<b>f</b>) [x](javascript:y) Column `c` of "
                                "data/<i>papers.csv</i>.")
