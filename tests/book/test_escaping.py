"""Data is shown as text, never as markup, in every chapter and on the bibliography page.

A copy of the data that still validates gets a script payload in every free-text field of every
data file (titles, summaries, notes, reasons, vocabulary labels, descriptions and meanings, the
labels of vocabulary values, a vocabulary value used as a tag, taxonomy names and meanings,
claim statements and boundaries, envelope notes, log-source labels, BibTeX titles...). Every
chapter that takes ``data_dir`` is executed on that copy, the book is built from them, and each
page is checked twice: in its HTML (no element carries a payload as markup) and in headless
Chromium (no payload ran, and the payloads that a page shows are shown as text).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from chapter_helpers import chapters_needing_real_logs
from support import build_book

from masrl import paths
from masrl.data.dataset import Dataset

pytestmark = pytest.mark.browser

# every chapter that takes data_dir (those computed from ../shared/traces only where it exists)
UNREACHABLE = set() if paths.public_logs_dir().is_dir() else chapters_needing_real_logs()
CHAPTERS = sorted(p.stem for p in (paths.REPO_ROOT / "notebooks").glob("*.md")
                  if "data_dir = None" in p.read_text(encoding="utf-8")
                  and p.stem not in UNREACHABLE)
FIELDS: list[str] = []  # payload number -> the field it was put in ("papers.csv:title", ...)
PAYLOAD_SCRIPT = re.compile(r"__xss\.push\(\d+\)")  # the code of a payload's own <script>


def payload(field: str) -> str:
    """A payload that records its number in ``window.__xss`` if it ever runs as markup."""
    FIELDS.append(field)
    n = len(FIELDS) - 1
    return f"<script>__xss.push({n})</script><img src=x onerror=__xss.push({n})> [{n}]"


# --- a hostile copy of the data that still validates ---------------------------------------------

CSV_TEXT = {  # every free-text column of every CSV data file
    "papers.csv": ["title", "first_author", "affiliation", "venue", "summary", "notes"],
    "excluded.csv": ["title", "identifier", "reason"],
    "spotcheck.csv": ["note"],
    "audit.csv": ["note"],
    "near_misses.csv": ["basis"],
    "benchmark_coverage.csv": ["benchmark", "note"],
    "envelopes.csv": ["system", "model", "note"],
    "log_sources.csv": ["label", "origin", "licence", "reference"],
    "candidates.csv": ["title", "reason", "screener", "summary", "evidence"],
    "credit_evidence.csv": ["evidence", "source"],
}
TAG_VALUES = [("scenario", "web", "papers.csv", "scenario"),  # shown in the pool's browse table
              ("query_family", "tool use", "excluded.csv", "query_family"),
              ("query_family", "tool use", "candidates.csv", "query_family")]


def hostile_value(field: str, value: str) -> str:
    return f"{value} {payload(field)}"


def rewrite_csv(path: Path, change) -> None:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    for row in rows:
        change(row)
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def rewrite_yaml(path: Path, change) -> None:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000),
                    encoding="utf-8")


def make_hostile(data: Path) -> None:
    for name, columns in CSV_TEXT.items():
        for column in columns:
            text = payload(f"{name}:{column}")
            rewrite_csv(data / name, lambda row, c=column, t=text: row.update({c: f"{row[c]} {t}"}))
    renamed = {}
    for field, value, name, column in TAG_VALUES:
        if field not in renamed:
            renamed[field] = (value, hostile_value(f"vocabulary.yaml:{field} value", value))
        new = renamed[field][1]
        rewrite_csv(data / name, lambda row, c=column, old=value, to=new:
                    row.update({c: to}) if row[c] == old else None)

    def vocabulary(document: dict) -> None:
        for name, spec in document["fields"].items():
            spec["label"] = hostile_value(f"vocabulary.yaml:{name}.label", spec["label"])
            spec["description"] = hostile_value(f"vocabulary.yaml:{name}.description",
                                                spec["description"])
            if name in renamed:
                old, new = renamed[name]
                spec["values"] = {new if k == old else k: v for k, v in spec["values"].items()}
                if spec.get("order"):
                    spec["order"] = [new if v == old else v for v in spec["order"]]
            spec["values"] = {k: hostile_value(f"vocabulary.yaml:{name}.meaning", v)
                              for k, v in spec["values"].items()}
        for name, labels in document.get("labels", {}).items():  # a value's label, as shown
            old, new = renamed.get(name, (None, None))
            document["labels"][name] = {
                (new if k == old else k): hostile_value(f"vocabulary.yaml:{name}.value label", v)
                for k, v in labels.items()}

    def published(document: dict) -> None:
        for field, (old, new) in renamed.items():
            for group in ("counts", "excluded"):
                counts = document.get(group, {}).get(field)
                if counts and old in counts:
                    document[group][field] = {new if k == old else k: v for k, v in counts.items()}

    def taxonomy(document: dict) -> None:
        for section, entries in document.items():
            for entry in entries:
                for key in ("name", "meaning", "metric", "unit"):
                    if key in entry:
                        entry[key] = hostile_value(f"taxonomy.yaml:{section}.{key}", entry[key])

    def claims(document: dict) -> None:
        for claim in document["claims"]:
            for key in ("statement", "boundary"):
                claim[key] = hostile_value(f"claims.yaml:{key}", claim[key])
            for part in ("finding", "external"):
                for key in ("where", "explanation", "reference"):
                    if key in (claim.get(part) or {}):
                        claim[part][key] = hostile_value(f"claims.yaml:{part}.{key}",
                                                         claim[part][key])

    def who_and_when(document: dict) -> None:
        for key in ("reference", "where", "transcribed_from", "data"):
            document[key] = hostile_value(f"who_and_when_published.yaml:{key}", document[key])
        for method in document["methods"].values():
            method["label"] = hostile_value("who_and_when_published.yaml:label", method["label"])

    def protocol(document: dict) -> None:
        for section, keys in (("rounds", ("label", "screener", "note")),
                              ("sources", ("name", "note")), ("query_families", ("name",)),
                              ("inclusion_rules", ("text",)),
                              ("evidence_levels", ("kind", "supports"))):
            for entry in document[section]:
                for key in keys:
                    if key in entry:
                        entry[key] = hostile_value(f"search_protocol.yaml:{section}.{key}",
                                                   entry[key])
                if "queries" in entry:
                    entry["queries"] = [hostile_value("search_protocol.yaml:queries", q)
                                        for q in entry["queries"]]
                if "labels" in entry and "query_family" in renamed:  # the renamed query value
                    old, new = renamed["query_family"]
                    entry["labels"] = [new if label == old else label for label in entry["labels"]]

    rewrite_yaml(data / "search_protocol.yaml", protocol)
    rewrite_yaml(data / "vocabulary.yaml", vocabulary)
    rewrite_yaml(data / "published.yaml", published)
    rewrite_yaml(data / "taxonomy.yaml", taxonomy)
    rewrite_yaml(data / "claims.yaml", claims)
    rewrite_yaml(data / "who_and_when_published.yaml", who_and_when)

    bib = data / "papers.bib"
    text = bib.read_text(encoding="utf-8")
    for field in ("title", "journal", "booktitle", "howpublished", "note"):
        text = text.replace(f"  {field} = {{", f"  {field} = {{{bib_payload(field)} ")
    bib.write_text(text, encoding="utf-8")


def bib_payload(field: str) -> str:
    """The payload without its number's brackets (BibTeX would keep them) for one bib field."""
    return payload(f"papers.bib:{field}").rsplit(" [", 1)[0]


# --- the book built from it ------------------------------------------------------------------------

def execute(chapter: Path, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(paths.REPO_ROOT / "scripts" / "execute_notebook.py"), str(chapter),
         "-p", "data_dir", str(data)], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def hostile_book(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("book")
    data = root / "data"
    shutil.copytree(paths.DEFAULT_DATA_DIR, data)
    make_hostile(data)
    assert Dataset(data).problems() == []  # hostile, but valid data

    (root / "notebooks").mkdir()
    sources = []
    for chapter in CHAPTERS:
        source = root / "notebooks" / f"{chapter}.md"
        shutil.copy(paths.REPO_ROOT / "notebooks" / f"{chapter}.md", source)
        sources.append(source)
    with ThreadPoolExecutor(max_workers=2) as pool:  # each chapter runs its own kernel
        for source, done in zip(sources, pool.map(lambda s: execute(s, data), sources)):
            assert done.returncode == 0, f"{source.name}: {done.stderr[-3000:]}"

    (root / "book").mkdir()
    shutil.copy(paths.REPO_ROOT / "book" / "bibliography.md", root / "book")
    config = yaml.safe_load((paths.REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["bibtex_bibfiles"] = [str(data / "papers.bib")]
    config["sphinx"].pop("local_extensions", None)
    (root / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    toc = {"format": "jb-book", "root": f"notebooks/{CHAPTERS[0]}",
           "chapters": [{"file": f"notebooks/{c}"} for c in CHAPTERS[1:]]
           + [{"file": "book/bibliography"}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(toc), encoding="utf-8")
    # built without the other chapters, its links to them dangle: not strict
    return build_book(root, root, strict=False)


def pages(book: Path) -> list[str]:
    return [f"notebooks/{c}.html" for c in CHAPTERS] + ["book/bibliography.html"]


def test_every_data_chapter_is_executed():
    assert {"02_pool", "10_statistics", "40_data_dictionary", "35_claims"} <= set(CHAPTERS)
    assert len(CHAPTERS) >= 13


def test_no_payload_is_markup_in_any_page(hostile_book):
    """In the HTML itself: no payload became an element (a ``<script>`` of its own, an ``<img>``
    with ``onerror``) or a link to script. A payload inside an attribute's value (a chart's
    ``aria-label``) or in itables' data is escaped text, which is what we want."""
    problems = []
    for name in pages(hostile_book):
        soup = BeautifulSoup((hostile_book / name).read_text(encoding="utf-8"), "html.parser")
        for element in soup.find_all(True):
            handlers = [k for k, v in element.attrs.items()
                        if k.lower().startswith("on") and "__xss" in str(v)]
            if handlers or (element.name == "img" and element.get("src") == "x"):
                problems.append(f"{name}: <{element.name}> with {handlers or 'src=x'}")
            if element.name == "script" and PAYLOAD_SCRIPT.fullmatch(element.text.strip()):
                problems.append(f"{name}: <script>{element.text.strip()}</script>")
            href = str(element.get("href", "")).strip().lower()
            if href.startswith(("javascript:", "data:", "vbscript:")):
                problems.append(f"{name}: <{element.name} href={href[:40]}>")
    assert problems == []


def test_no_payload_runs_and_payloads_show_as_text(hostile_book, serve, page):
    """In the browser (itables draws the pool's rows from data): nothing ran, and the payloads of
    the fields readers see in full appear as text (tables cut long cells, so not every field's
    payload can be read whole)."""
    server = serve(hostile_book)
    page.add_init_script("window.__xss = []")
    ran, shown = {}, set()
    for name in pages(hostile_book):
        page.goto(f"{server.url}/{name}", wait_until="load")
        if name.endswith("02_pool.html"):
            page.wait_for_selector("table.dataTable tbody tr")
        page.wait_for_timeout(200)
        if fired := page.evaluate("window.__xss"):
            ran[name] = sorted({FIELDS[n] for n in fired})
        body = page.inner_text("body")
        shown |= {n for n in range(len(FIELDS)) if f"<script>__xss.push({n})</script>" in body}
        assert page.locator("img[src=x], img[onerror]").count() == 0, name
    assert ran == {}
    seen = {FIELDS[n] for n in shown}
    for field in ["papers.csv:title", "papers.csv:venue", "vocabulary.yaml:scenario value",
                  "vocabulary.yaml:category.value label",
                  "vocabulary.yaml:category.meaning", "vocabulary.yaml:category.label",
                  "vocabulary.yaml:category.description", "vocabulary.yaml:query_family value",
                  "claims.yaml:finding.explanation", "taxonomy.yaml:reward_families.name",
                  "papers.bib:title", "envelopes.csv:system", "benchmark_coverage.csv:benchmark"]:
        assert field in seen, f"{field}: its payload is not shown as text on any page"
