"""Labels survive import (schema 1.2): Who&When's gold fields, Langfuse's scores and Phoenix's
span annotations become the trace's ``labels``, each on the event or agent it is about, and
validation checks what they name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from importer_helpers import FIXTURES

from masrl import paths
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.validate import validate_document


def codes(trace: dict) -> list[str]:
    return [p.code for p in validate_document(trace).problems]


def test_who_and_when_gold_fields_are_labels_on_the_labelled_step():
    trace = import_file("who-and-when", FIXTURES / "who_and_when" / "magentic_one.json").trace
    assert trace["schema_version"] == "1.2"  # the oldest version with labels
    labels = {label["name"]: label for label in trace["labels"]}
    assert list(labels) == ["mistake_agent", "mistake_step", "mistake_reason", "ground_truth",
                            "is_corrected"]
    assert labels["mistake_step"]["value"] == 4 and labels["mistake_step"]["event"] == "h4"
    assert labels["mistake_reason"]["event"] == "h4"
    assert labels["mistake_agent"]["agent"] == "WebSurfer"
    assert {label["kind"] for label in labels.values()} == {"gold"}
    assert {label["source"] for label in labels.values()} == {"Who&When"}
    assert labels["is_corrected"]["value"] is False
    assert validate_document(trace).problems == []


def test_a_gold_agent_the_trace_does_not_have_is_a_warning(tmp_path):
    document = json.loads((FIXTURES / "who_and_when" / "magentic_one.json").read_text("utf-8"))
    document["mistake_agent"] = "Websurfer"  # as two of Who&When's own logs spell it
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert codes(import_file("who-and-when", path).trace) == ["label-agent"]


def test_a_label_naming_no_event_is_an_error():
    trace = import_file("who-and-when", FIXTURES / "who_and_when" / "magentic_one.json").trace
    trace["labels"][1]["event"] = "nowhere"
    problems = validate_document(trace).problems
    assert [(p.code, p.pointer) for p in problems] == [("label-event", "/labels/1/event")]


def test_labels_in_a_trace_that_declares_an_older_version_are_a_warning():
    trace = import_file("who-and-when", FIXTURES / "who_and_when" / "magentic_one.json").trace
    trace["schema_version"] = "1.1"
    assert codes(trace) == ["newer-field"]


LANGFUSE = FIXTURES / "langfuse" / "trace.json"


def scored(tmp_path, scores: list) -> dict:
    document = json.loads(LANGFUSE.read_text(encoding="utf-8"))
    document["scores"] = scores
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return import_file("langfuse", path).trace


def test_langfuse_scores_are_annotations_on_the_observation_they_score(tmp_path):
    trace = scored(tmp_path, [
        {"id": "s1", "name": "helpfulness", "value": 0.9, "dataType": "NUMERIC",
         "source": "EVAL", "comment": "clear and short"},
        {"id": "s2", "name": "tone", "value": 0, "stringValue": "warm",
         "dataType": "CATEGORICAL", "source": "ANNOTATION", "observationId": "obs-8"},
        {"id": "s3", "name": "correct", "value": 1, "dataType": "BOOLEAN", "source": "API",
         "observationId": "obs-5"},
        "s4"])
    assert trace["labels"] == [
        {"name": "helpfulness", "value": 0.9, "kind": "annotation", "source": "langfuse EVAL",
         "comment": "clear and short", "id": "s1", "where": "scores[0]"},
        {"name": "tone", "value": "warm", "kind": "annotation", "source": "langfuse ANNOTATION",
         "event": "obs-8", "id": "s2", "where": "scores[1]"},
        {"name": "correct", "value": True, "kind": "annotation", "source": "langfuse API",
         "id": "s3", "where": "scores[2] (observation obs-5, which gives no event)"}]
    assert trace["provenance"]["skipped"]["score given by its id only (the score itself is "
                                          "not in the file)"] == 1
    assert validate_document(trace).problems == []


@pytest.mark.parametrize("score, message", [
    ({"value": 1}, "a score must be an object with a name, found an object"),
    ({"name": "x", "value": [1]}, "score 'x': value must be a number, a string or "
                                  "true/false, found an array"),
])
def test_a_bad_score_names_its_place(tmp_path, score, message):
    with pytest.raises(SourceError) as caught:
        scored(tmp_path, [score])
    assert str(caught.value) == f"{tmp_path / 'trace.json'}:scores[0]: {message}"


PHOENIX = FIXTURES / "otel" / "phoenix_spans.json"


def annotated(tmp_path, annotations: list) -> list:
    document = json.loads(PHOENIX.read_text(encoding="utf-8"))
    document["data"] += annotations
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return import_traces("otel", path)


def test_phoenix_span_annotations_are_labels_on_the_span_they_judge(tmp_path):
    results = annotated(tmp_path, [
        {"span_id": "0000000000000002", "name": "correctness", "annotator_kind": "LLM",
         "result": {"label": "correct", "score": 1, "explanation": "matches the tide table"},
         "identifier": "", "id": "QW5ub3RhdGlvbjox"},
        {"span_id": "2", "name": "tone", "annotator_kind": "HUMAN",
         "result": {"label": "curt", "score": None, "explanation": None}},
        {"span_id": "00000000000000ff", "name": "orphan", "annotator_kind": "CODE",
         "result": {"score": 0}}])
    trace = results[0].trace
    assert trace["labels"] == [
        {"name": "correctness", "value": 1, "kind": "annotation", "source": "phoenix LLM",
         "event": "0000000000000002", "category": "correct", "comment": "matches the tide table",
         "id": "QW5ub3RhdGlvbjox", "where": "data[9]"},
        {"name": "tone", "value": "curt", "kind": "annotation", "source": "phoenix HUMAN",
         "event": "0000000000000002", "where": "data[10]"}]
    assert trace["provenance"]["skipped"]["span annotation of a span that is not in the file"] \
        == 1
    assert trace["provenance"]["records"]["read"] == 9  # annotations are no spans
    assert validate_document(trace).problems == []


def test_an_annotation_without_a_score_or_a_label_is_refused(tmp_path):
    with pytest.raises(SourceError) as caught:
        annotated(tmp_path, [{"span_id": "0000000000000002", "name": "empty",
                              "annotator_kind": "LLM", "result": {"explanation": "?"}}])
    assert str(caught.value) == (f"{tmp_path / 'spans.json'}:data[9].result: an annotation "
                                 "needs a score or a label")


def test_a_trace_without_labels_stays_version_1_0():
    trace = import_file("otel", FIXTURES / "otel" / "otlp.json").trace
    assert trace["schema_version"] == "1.0" and "labels" not in trace


# ---------------------------------------------------------------------------------- real logs

REAL = paths.public_logs_dir()
GOLD = ("mistake_agent", "mistake_step", "mistake_reason", "ground_truth", "is_correct",
        "is_corrected")


def real_files(pattern: str) -> list[Path]:
    return sorted(REAL.glob(pattern)) if REAL.is_dir() else []


@pytest.mark.skipif(not REAL.is_dir(), reason=f"public logs not available at {REAL} (a fresh "
                    "clone has no ../shared/traces): nothing to cross-check")
def test_every_gold_field_and_score_of_the_real_logs_is_a_label():
    """Counted in the raw files: each Who&When log's gold fields that hold a value, each
    Langfuse export's scores; the import gives one label each, of the same names."""
    checked = 0
    for path in real_files("**/who-and-when/**/*.json"):
        raw = json.loads(path.read_text(encoding="utf-8"))
        gold = [k for k in GOLD if raw.get(k) not in (None, "")]
        labels = import_file("who-and-when", path).trace.get("labels", [])
        assert [label["name"] for label in labels] == gold, path
        checked += 1
    for path in real_files("real-logs/langfuse-export/**/*.json"):
        raw = json.loads(path.read_text(encoding="utf-8"))
        trace = raw.get("trace", raw)
        scores = [s["name"] for s in trace.get("scores") or [] if isinstance(s, dict)]
        labels = import_file("langfuse", path).trace.get("labels", [])
        assert [label["name"] for label in labels] == scores, path
        checked += 1
    assert checked > 100
