"""``masrl report TRACE -o report.html``: one self-contained offline page about that trace,
rendered in-process from the replay (no kernel, no notebook)."""

from __future__ import annotations

import html
import json
import re

import pytest
from trace_helpers import FIXTURES

from masrl import paths
from masrl.commands import main
from masrl.presentation.report import SECTIONS
from masrl.traces import resources
from masrl.traces.importers import import_file

SWARM = resources.EXAMPLES / "swarm.json"
CLAUDE_CODE_LOG = paths.REPO_ROOT / "tests" / "fixtures" / "importers" / "claude_code" / "s1.jsonl"
SESSION = paths.public_logs_dir() / "claude-code" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"


def text_of(page: str) -> str:
    """What a reader reads: no style, script or SVG, tags removed, entities decoded, spaces
    joined."""
    body = re.sub(r"<(style|script|svg)\b.*?</\1>", " ", page, flags=re.S)
    body = re.sub(r"</?(?:span|strong|em|a|code)\b[^>]*>", "", body)  # inside a sentence
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def outside_addresses(page: str) -> list[str]:
    """Every address the page's markup would load: src and href of any element, and CSS url()
    (the text of inline scripts, Vega's own code, is not markup)."""
    page = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    found = re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', page)
    found += re.findall(r"url\(([^)]*)\)", page)
    return [a for a in found if not a.startswith(("#", "data:"))]


@pytest.fixture(scope="module")
def swarm_page(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("report")
    out = folder / "report.html"
    code = main(["report", str(SWARM), "-o", str(out)])
    return {"code": code, "page": out.read_text(encoding="utf-8"), "out": out, "folder": folder}


def test_a_valid_trace_gets_its_page_and_exit_0(swarm_page):
    assert swarm_page["code"] == 0
    assert sorted(p.name for p in swarm_page["folder"].iterdir()) == ["report.html"]


def test_the_page_speaks_of_that_trace(swarm_page):
    document = json.loads(SWARM.read_text(encoding="utf-8"))
    text = text_of(swarm_page["page"])
    assert f"Its id is {document['trace_id']}, its stated topology {document['topology']}" in text
    assert f"it holds {len(document['events'])} events" in text
    assert f"The trace at {SWARM} is valid: 0 errors, 0 warnings" in text
    assert "<title>Trace report: example-swarm</title>" in swarm_page["page"]
    assert "Trace report: example-swarm In short This run has " in text
    # nothing of the book around it: no worked examples, no rerun recipe, no next chapter
    for words in ("worked example", "Prerequisites", "What's next", "papermill", "{glue",
                  "glue:text"):
        assert words not in swarm_page["page"], words
    assert "Credit" in text and "Critical path" in text and "Who worked with whom" in text


def test_the_page_holds_everything_it_needs(swarm_page):
    page = swarm_page["page"]
    assert outside_addresses(page) == []
    assert "<link" not in page
    assert re.findall(r"<script\b[^>]*\bsrc=", page) == []  # the scripts are inline
    assert "<style" in page and "figure.masrl-interactive" in page  # the styles too
    assert page.count('<figure class="masrl-chart masrl-interactive"') == 1
    assert re.search(r'<figure class="masrl-chart[^"]*"[^>]*aria-label="Timeline of '
                     r'example-swarm[^"]*"><div class="masrl-live"></div>', page)
    assert "window.vegaEmbed=" in page  # the libraries, from vl-convert's bundle
    assert "masrl-charts" not in outside_addresses(page)


def test_same_trace_same_bytes(swarm_page):
    again = swarm_page["folder"] / "again.html"
    assert main(["report", str(SWARM), "-o", str(again)]) == 0
    assert again.read_bytes() == swarm_page["out"].read_bytes()


def test_an_invalid_trace_gets_a_page_of_its_problems_and_exit_1(tmp_path, capsys):
    out = tmp_path / "bad.html"
    assert main(["report", str(FIXTURES / "not_json.json"), "-o", str(out)]) == 1
    text = text_of(out.read_text(encoding="utf-8"))
    assert "is invalid: 1 error, 0 warnings" in text
    assert "it holds no readable events" in text
    assert "not-json" in text
    assert text.count("Skipped: the trace is invalid") == len(SECTIONS) - 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"{out}: the report on {FIXTURES / 'not_json.json'}; the trace is invalid (the page "
        "lists its problems)")


def test_a_missing_trace_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys):
    missing = tmp_path / "nowhere.json"
    assert main(["report", str(missing), "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err == f"{missing}: error: cannot read: no such file\n"
    assert list(tmp_path.iterdir()) == []


def test_an_output_that_is_a_directory_exits_2_before_any_work(tmp_path, capsys):
    assert main(["report", str(SWARM), "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"{tmp_path}: error: cannot write: a directory, not a file\n"


def test_the_page_never_overwrites_its_trace(tmp_path, capsys):
    trace = tmp_path / "t.json"
    trace.write_bytes(SWARM.read_bytes())
    assert main(["report", str(trace), "-o", str(trace)]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert trace.read_bytes() == SWARM.read_bytes()


def test_a_log_is_imported_first(tmp_path, capsys):
    out = tmp_path / "log.html"
    assert main(["report", str(CLAUDE_CODE_LOG), "-o", str(out)]) == 0
    events = len(import_file("claude-code", CLAUDE_CODE_LOG).trace["events"])
    text = text_of(out.read_text(encoding="utf-8"))
    assert f"The trace at {CLAUDE_CODE_LOG} (imported as claude-code, recognised from " in text
    assert f"it holds {events} events" in text
    assert "imported as claude-code" in capsys.readouterr().err


def test_a_log_no_format_recognises_is_reported_as_a_trace(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text('{"hello": 1}\n{"hello": 2}\n', encoding="utf-8")
    out = tmp_path / "log.html"
    assert main(["report", str(log), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{log}: warning: not a trace, and no log format recognises it either" in err
    assert "is invalid" in text_of(out.read_text(encoding="utf-8"))
    # the first line names the first problem too (it said only "lists its problems")
    assert err.splitlines()[0].endswith("(the first: line 2 column 1: error: not JSON: "
                                        "Extra data)"), err


def test_a_real_70_minute_session_gets_a_binned_timeline(tmp_path):
    if not SESSION.is_file():
        pytest.skip(f"the public Claude Code session is not at {SESSION} (a fresh clone has "
                    "no ../shared/traces)")
    out = tmp_path / "session.html"
    assert main(["report", str(SESSION), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    events = len(import_file("claude-code", SESSION).trace["events"])
    assert events == 481
    assert f"it holds {events} events" in text_of(page)
    assert "Binned timeline of 481 events over 4180.16 s" in page
    assert outside_addresses(page) == []
    text = text_of(page)
    # a session's progress lines are not records of the run: the import is not thin
    # (masrl.traces.provenance.thin), so the page opens on the run itself
    assert ("Trace report: claude-code:258c7280-ae70-4798-800f-63464d01a85d In short This run "
            "has 4 agents") in text and "A thin import" not in text
    assert "over 1 h 10 min" in text and "15,406,773 tokens" in text
    assert "The team reward is not recorded" in text


def test_a_trace_file_is_reported_without_loading_the_importers(tmp_path):
    """A trace (the common case) is told apart by one cheap look at its top-level keys; no
    importer (only the registry of their names), and neither pandas nor Altair, is imported."""
    import subprocess
    import sys

    out = tmp_path / "r.html"
    code = ("import sys; from masrl.commands import main; "
            f"code = main(['report', {str(SWARM)!r}, '-o', {str(out)!r}]); "
            "heavy = sorted(m for m in sys.modules if m in ('pandas', 'altair', 'papermill', "
            "'myst_nb', 'nbformat') or (m.startswith('masrl.traces.importers.') "
            "and m != 'masrl.traces.importers.registry')); print(code, heavy)")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split(None, 1)
    assert found == ["0", "[]\n"]


def test_the_report_extra_missing_is_said_in_one_line(tmp_path, monkeypatch, capsys):
    """Without vl-convert (``pip install masrl`` without ``[report]``), one line names the
    extra to install, exit 2, and nothing is written."""
    import builtins

    real_import = builtins.__import__

    def no_vl_convert(name, *args, **kwargs):
        if name == "vl_convert":
            raise ModuleNotFoundError("No module named 'vl_convert'", name="vl_convert")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_vl_convert)
    out = tmp_path / "r.html"
    assert main(["report", str(SWARM), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("masrl report: needs vl_convert, which is not installed: "
                   "pip install 'masrl[report]'\n")
    assert not out.exists()


def test_a_1500_deep_spawn_chain_is_reported_with_folded_tables(tmp_path):
    """No recursion down the tree: the page of a chain of 1,500 spawns folds its tables and
    draws no graph of 1,500 boxes."""
    # timed by benchmarks/hostile_inputs.py
    from hostile_traces import spawn_chain

    path = tmp_path / "deep.json"
    path.write_text(json.dumps(spawn_chain(1500)), encoding="utf-8")
    out = tmp_path / "deep.html"
    assert main(["report", str(path), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "With 1,501 agents, the graph would not be legible" in text_of(page)
    assert "<details" in page and len(page) < 40_000_000


WHO_AND_WHEN_LOG = paths.REPO_ROOT / "tests" / "fixtures" / "importers" / "who_and_when" / \
    "magentic_one.json"


def test_keep_content_imports_the_log_with_its_text(tmp_path, capsys):
    kept, left = tmp_path / "kept.html", tmp_path / "left.html"
    assert main(["report", "--keep-content", str(WHO_AND_WHEN_LOG), "-o", str(kept)]) == 0
    assert main(["report", str(WHO_AND_WHEN_LOG), "-o", str(left)]) == 0
    source = json.loads(WHO_AND_WHEN_LOG.read_text(encoding="utf-8"))
    with_text, without = text_of(kept.read_text(encoding="utf-8")), \
        text_of(left.read_text(encoding="utf-8"))
    said = " ".join(source["history"][4]["content"].split())
    assert said in with_text and said not in without
    assert with_text.count("Read its text") == len(source["history"])
    assert "The trace holds no text of its events" in without
    assert f"masrl report --keep-content {WHO_AND_WHEN_LOG} -o report.html" in without
    # the labels, on both pages
    for page in (with_text, without):
        assert f"mistake_reason {source['mistake_reason']}" in page
        assert "Labelled mistake_step (Who&When, gold answer): 4" in page


def test_keep_content_on_a_trace_file_is_said_to_change_nothing(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "--keep-content", str(SWARM), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{SWARM}: warning: --keep-content applies to a log being imported" in err
    assert "The trace holds no text of its events" in text_of(out.read_text(encoding="utf-8"))
