"""The landing page (``notebooks/00_intro``, the root of ``_toc.yml``): what it must hold, read
from its executed notebook and its source. It is exempt from the chapter skeleton; instead it
has a headline figure drawn from the data, four to six headline numbers glued from the data,
three ways into the book, and the edition (version, date the pool was assessed)."""

from __future__ import annotations

import ast
import re

import nbformat

import masrl
from masrl import paths
from masrl.analyses import axes, reproduction, stats
from masrl.data import release
from masrl.data.book_toc import reading_order
from masrl.data.dataset import Dataset
from masrl.presentation import landing

SOURCE = paths.REPO_ROOT / "notebooks" / "00_intro.md"
EXECUTED = SOURCE.with_suffix(".ipynb")
GLUE = re.compile(r"\{glue:text\}`(\w+)`")


def glued() -> dict[str, object]:
    """Every value the executed landing page glued, by name."""
    found = {}
    for cell in nbformat.read(EXECUTED, as_version=4).cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                found[name] = ast.literal_eval(
                    output["data"]["application/papermill.record/text/plain"])
    return found


def test_the_landing_page_is_the_root_of_the_book():
    assert reading_order()[0] == "notebooks/00_intro"


def test_the_headline_numbers_are_glued_from_the_data():
    data = Dataset()
    values = glued()
    cards = re.findall(r":::\{grid-item-card\} (.+)", SOURCE.read_text(encoding="utf-8"))
    numbers = [name for card in cards for name in GLUE.findall(card)]
    assert 4 <= len([c for c in cards if GLUE.search(c)]) <= 6
    assert set(numbers) <= set(values)
    summary = stats.summary(data.papers, data.excluded, data.vocabulary)
    check = reproduction.compare(summary, data.published)
    units = axes.credit_units(data.papers, data.taxonomy).set_index("credit_granularity")
    assert values["retained"] == summary["totals"]["retained"]
    assert values["figures_matching"] == int(check["match"].sum())
    assert values["n_orchestrator"] == units.loc["orchestrator", "papers"]
    assert values["n_message"] == units.loc["message", "papers"]


def test_the_edition_is_the_packages_version_and_the_latest_round():
    data = Dataset()
    edition = landing.edition(data)
    latest = release.current()
    assert glued()["version"] == edition.version == latest.version == masrl.__version__
    assert glued()["assessed"] == edition.assessed == latest.assessed
    assert latest.assessed == data.search_protocol.latest.searched_through
    text = SOURCE.read_text(encoding="utf-8")
    assert text.count("landing.edition(") == 1  # one call site


def test_a_headline_figure_and_three_ways_in():
    notebook = nbformat.read(EXECUTED, as_version=4)
    figures = [o for c in notebook.cells for o in c.get("outputs", [])
               if "<figure class=\"masrl-chart" in str(o.get("data", {}).get("text/html", ""))]
    assert len(figures) == 1
    text = SOURCE.read_text(encoding="utf-8")
    for way in ["Read the survey's evidence", "Reproduce a number",
                "Run the toolkit on your own logs"]:
        assert f":::{{grid-item-card}} {way}" in text
