"""``masrl report TRACE -o report.html``: one self-contained offline page about that trace.

Each run executes the trace-report chapter in a kernel (a few seconds), so a page is made once
per module and several tests read it."""

from __future__ import annotations

import html
import json
import re

import pytest
from trace_helpers import FIXTURES

from masrl import paths
from masrl.commands import main
from masrl.presentation import report_page
from masrl.traces.importers import import_file

SWARM = paths.DEFAULT_DATA_DIR / paths.TRACE_EXAMPLES / "swarm.json"
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
    assert f"The trace at {SWARM} is valid: 0 error(s), 0 warning(s)" in text
    assert "<title>Trace report: example-swarm</title>" in swarm_page["page"]
    # nothing of the book around it: no worked examples, no rerun recipe, no next chapter
    for words in ("worked example", "Prerequisites", "What's next", "papermill", "{glue",
                  "glue:text"):
        assert words not in swarm_page["page"], words
    assert "Summary" in text and "Credit" in text and "Critical path" in text


def test_the_page_holds_everything_it_needs(swarm_page):
    page = swarm_page["page"]
    assert outside_addresses(page) == []
    assert "<link" not in page
    assert re.findall(r"<script\b[^>]*\bsrc=", page) == []  # the scripts are inline
    assert "<style" in page and "figure.masrl-interactive" in page  # the styles too
    assert page.count('<figure class="masrl-chart masrl-interactive"') == 1
    assert re.search(r'<figure class="masrl-chart[^"]*"[^>]*aria-label="Timeline of '
                     r'example-swarm[^"]*"[^>]*><div class="masrl-static">'
                     r'<div class="masrl-wide"><svg', page)  # and its narrow layout after it
    if report_page.vega_scripts() is not None:
        assert "vegaEmbed" in page and "masrl-charts" not in outside_addresses(page)


def test_same_trace_same_bytes(swarm_page):
    again = swarm_page["folder"] / "again.html"
    assert main(["report", str(SWARM), "-o", str(again)]) == 0
    assert again.read_bytes() == swarm_page["out"].read_bytes()


def test_an_invalid_trace_gets_a_page_of_its_problems_and_exit_1(tmp_path, capsys):
    out = tmp_path / "bad.html"
    assert main(["report", str(FIXTURES / "not_json.json"), "-o", str(out)]) == 1
    text = text_of(out.read_text(encoding="utf-8"))
    assert "is invalid: 1 error(s), 0 warning(s)" in text
    assert "it holds no readable events" in text
    assert "not-json" in text
    assert text.count("Skipped: the trace is invalid") == 10
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
