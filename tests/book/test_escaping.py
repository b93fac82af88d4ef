"""Data is shown as text, never as markup: a hostile title in a test copy of the data."""

from __future__ import annotations

import shutil
import sys

import pandas as pd
import pytest
import yaml
from support import build_book

from masrl import paths

pytestmark = pytest.mark.browser

sys.path.insert(0, str(paths.REPO_ROOT / "scripts"))
from execute_notebook import execute  # noqa: E402

HOSTILE = "<script>window.__xss = 1</script>Evil <img src=x onerror=window.__xss=2> title"


@pytest.fixture(scope="module")
def hostile_book(tmp_path_factory):
    """The pool chapter executed on a data copy whose first title is hostile, built alone."""
    root = tmp_path_factory.mktemp("book")
    data = root / "data"
    shutil.copytree(paths.DEFAULT_DATA_DIR, data)
    papers = pd.read_csv(data / "papers.csv", dtype=str, keep_default_na=False)
    papers.loc[0, "title"] = HOSTILE
    papers.loc[1, "venue"] = "<b onmouseover=alert(1)>Venue</b>"
    papers.to_csv(data / "papers.csv", index=False, lineterminator="\n")

    chapter = root / "notebooks" / "02_pool.md"
    chapter.parent.mkdir()
    shutil.copy(paths.REPO_ROOT / "notebooks" / "02_pool.md", chapter)
    execute(chapter, {"data_dir": str(data)})

    config = yaml.safe_load((paths.REPO_ROOT / "_config.yml").read_text())
    config["bibtex_bibfiles"] = [str(data / "papers.bib")]
    config["sphinx"].pop("local_extensions", None)
    (root / "_config.yml").write_text(yaml.safe_dump(config))
    (root / "_toc.yml").write_text("format: jb-book\nroot: notebooks/02_pool\n")
    # built alone, its links to other chapters dangle: not strict
    return build_book(root, root, strict=False)


def test_hostile_title_is_text_not_markup(hostile_book, serve, page):
    server = serve(hostile_book)
    page.goto(f"{server.url}/notebooks/02_pool.html")
    page.wait_for_selector("table.dataTable tbody tr")
    page.wait_for_timeout(300)
    assert page.evaluate("window.__xss") is None
    body = page.inner_text("body")
    assert "<script>window.__xss = 1</script>Evil <img src=x onerror=window.__xss=2> title" in body
    assert "<b onmouseover=alert(1)>Venue</b>" in body
    assert page.locator("img[src=x]").count() == 0
    assert page.locator("b[onmouseover]").count() == 0
