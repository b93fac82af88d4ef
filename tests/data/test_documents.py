"""YAML data files: plain mappings, lists and scalars only, each key once, bounded nesting; every
defect is a FILE:ROW:FIELD problem, never a traceback or a hang."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hostile_traces import billion_laughs
from support import problem_lines, replace_in

from masrl import paths
from masrl.data import documents

TOTALS = "totals: {retained: 84, excluded: 32, audited: 116}"

# the line of vocabulary.yaml's "fields:" section (comments above it may grow)
FIELDS_LINE = (paths.DEFAULT_DATA_DIR / "vocabulary.yaml").read_text(
    encoding="utf-8").splitlines().index("fields:") + 1


def claims_file_problems(data_copy, text: str) -> list[str]:
    (data_copy / "claims.yaml").write_text(text, encoding="utf-8")
    return problem_lines("claims", data_copy)


def test_a_billion_laughs_is_refused_at_its_first_alias(data_copy):
    # timed by benchmarks/hostile_inputs.py; walked in full, it is 9^9 strings
    lines = claims_file_problems(data_copy, billion_laughs())
    assert lines == ["claims.yaml:2:-: aliases (*a) are not allowed in data files"]


@pytest.mark.parametrize(("text", "line"), [
    ("claims: !!python/object/apply:os.system ['true']\n",
     "claims.yaml:1:-: tags (!!python/object/apply:os.system) are not allowed in data files; "
     "write the plain value"),
    ("claims: !!python/name:os.system\n",
     "claims.yaml:1:-: tags (!!python/name:os.system) are not allowed in data files; write the "
     "plain value"),
    ("claims: !!binary aGVsbG8=\n",
     "claims.yaml:1:-: tags (!!binary) are not allowed in data files; write the plain value"),
    ("claims:\n  - !custom {id: x}\n",
     "claims.yaml:2:-: tags (!custom) are not allowed in data files; write the plain value"),
    ("base: &b {id: x}\nclaims:\n  - <<: {id: y}\n",
     "claims.yaml:3:-: merge keys (<<) are not allowed in data files"),
])
def test_tags_and_merge_keys_are_refused(data_copy, text, line):
    assert claims_file_problems(data_copy, text) == [line]


def test_a_duplicate_key_cannot_hide_a_value(data_copy):
    replace_in(data_copy / "published.yaml", 'search_cutoff: "2026-05-04"',
               'search_cutoff: "2026-13-45"\nsearch_cutoff: "2026-05-04"')
    assert problem_lines("published", data_copy) == [
        "published.yaml:8:-: duplicate key 'search_cutoff' (first on line 7); each key is written "
        "once"]


def test_a_duplicate_key_in_a_nested_mapping(data_copy):
    replace_in(data_copy / "published.yaml", TOTALS,
               "totals: {retained: 84, excluded: 32, audited: 116, retained: 85}")
    assert problem_lines("published", data_copy) == [
        "published.yaml:9:-: duplicate key 'retained' (first on line 9); each key is written once"]


@pytest.mark.parametrize("text", [
    "claims: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "claims: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n",
    "claims:" + "".join(f"\n{' ' * i}k{i}:" for i in range(1, 80)) + " 1\n",
], ids=["lists", "flow-mappings", "block-mappings"])
def test_deep_nesting_is_a_problem_not_a_recursion_error(data_copy, text):
    (line,) = claims_file_problems(data_copy, text)
    assert line.endswith(f"nested more than {documents.MAX_DEPTH} levels deep")


def test_a_number_python_cannot_read(data_copy):
    replace_in(data_copy / "published.yaml", TOTALS, "totals: {retained: " + "9" * 5000 + "}")
    assert problem_lines("published", data_copy) == [
        "published.yaml:9:-: the value cannot be read: Exceeds the limit (4300 digits) for "
        "integer string conversion"]


@pytest.mark.parametrize(("text", "line"), [
    ("", "claims.yaml:1:-: the file is empty"),
    ("# only a comment\n---\n", "claims.yaml:1:-: the file is empty"),
    ("- a\n- b\n", "claims.yaml:-:-: the file must hold a mapping of sections (key: value lines); "
                   "found a list"),
    ("a: 1\n---\nb: 2\n", "claims.yaml:2:-: not valid YAML: expected a single document in the "
                          "stream; but found another document"),
    ("claims:\n\t- id: x\n", "claims.yaml:2:-: not valid YAML: while scanning for the next token; "
                             "found character '\\t' that cannot start any token"),
    ("? [a, b]\n: c\n", "claims.yaml:1:-: not valid YAML: while constructing a mapping; found "
                        "unhashable key"),
    ('claims: "never closed\n', "claims.yaml:2:-: not valid YAML: while scanning a quoted scalar; "
                                "found unexpected end of stream"),
])
def test_parser_failures_name_the_line(data_copy, text, line):
    assert claims_file_problems(data_copy, text) == [line]


# --- vocabulary.yaml and published.yaml: every defect reported by check-data --------------------

def check_data(data_copy) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "masrl", "check-data", "--data-dir",
                           str(data_copy)], capture_output=True, text=True, timeout=60)


def own_lines(result: subprocess.CompletedProcess, name: str) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith(name + ":")]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("    label: Category\n", "", "vocabulary.yaml:fields[category]:label: Field required"),
    ("    label: Category\n", "    label: [Category]\n",
     "vocabulary.yaml:fields[category]:label: Input should be a valid string (found a list)"),
    ("    label: Category\n", "    label: Category\n    colour: red\n",
     "vocabulary.yaml:fields[category]:colour: Extra inputs are not permitted"),
    ("fields:\n", "fields: !!python/object:builtins.dict\n",
     f"vocabulary.yaml:{FIELDS_LINE}:-: tags (!!python/object:builtins.dict) are not allowed in data files; "
     "write the plain value"),
])
def test_check_data_reports_each_vocabulary_defect(data_copy, old, new, expected):
    replace_in(data_copy / "vocabulary.yaml", old, new)
    result = check_data(data_copy)
    assert result.returncode == 1
    assert own_lines(result, "vocabulary.yaml") == [expected]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("old", "new", "expected"), [
    (TOTALS + "\n", "", "published.yaml:totals:totals: Field required"),
    (TOTALS, "totals: many",
     "published.yaml:totals:totals: Input should be a valid dictionary (found 'many')"),
    (TOTALS, "totals: {retained: 84.0, excluded: 32, audited: 116}",
     "published.yaml:totals:retained: Input should be a valid integer (found 84.0)"),
    ("  category: {rl_method: 42,", "  category: {rl_method: 42.5,",
     "published.yaml:counts[category]:rl_method: Input should be a valid integer (found 42.5)"),
])
def test_check_data_reports_each_published_defect(data_copy, old, new, expected):
    replace_in(data_copy / "published.yaml", old, new)
    result = check_data(data_copy)
    assert result.returncode == 1
    assert own_lines(result, "published.yaml") == [expected]


@pytest.mark.parametrize("name", ["vocabulary.yaml", "published.yaml"])
@pytest.mark.parametrize(("text", "code", "message"), [
    (None, 2, "0:-: no such file"),
    ("", 1, "1:-: the file is empty"),
    ("# nothing but a comment\n", 1, "1:-: the file is empty"),
])
def test_check_data_reports_a_missing_or_empty_file(data_copy, name, text, code, message):
    path = data_copy / name
    if text is None:
        path.unlink()
    else:
        path.write_text(text, encoding="utf-8")
    result = check_data(data_copy)
    assert result.returncode == code
    assert own_lines(result, name) == [f"{name}:{message}"]
    assert "Traceback" not in result.stderr


# --- a vocabulary that lacks what the package names ---------------------------------------------

def test_a_field_the_loaders_need_is_missing(data_copy):
    path = data_copy / "vocabulary.yaml"
    text = path.read_text(encoding="utf-8")
    start, end = text.index("  source:\n"), text.index("  query_family:\n")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    result = check_data(data_copy)
    assert result.returncode == 1
    assert "vocabulary.yaml:fields:source: the field is not defined, and the package needs it" \
        in result.stderr.splitlines()
    assert "Traceback" not in result.stderr


def test_a_group_the_loaders_need_is_missing(data_copy):
    replace_in(data_copy / "vocabulary.yaml", "  recoded: [", "  recoded_renamed: [")
    result = check_data(data_copy)
    assert result.returncode == 1
    assert "vocabulary.yaml:groups:recoded: the group is not defined, and the package needs it" \
        in result.stderr.splitlines()
    stats = subprocess.run([sys.executable, "-m", "masrl", "stats", "--data-dir", str(data_copy)],
                           capture_output=True, text=True, timeout=60)
    assert stats.returncode in (0, 1) and "Traceback" not in stats.stderr


def test_a_needed_field_moved_to_another_file(data_copy):
    replace_in(data_copy / "vocabulary.yaml", "    file: papers.csv\n    label: Scenario\n",
               "    file: excluded.csv\n    label: Scenario\n")
    result = check_data(data_copy)
    assert result.returncode == 1
    assert ("vocabulary.yaml:fields[scenario]:file: 'excluded.csv': the package reads scenario in "
            "papers.csv") in result.stderr.splitlines()


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("agent: {algorithm-generated: 29.10,", 'agent: {algorithm-generated: "29.10",',
     "who_and_when_published.yaml:methods[random]:agent.algorithm-generated: Input should be a "
     "valid number (found '29.10')"),
    ("agent: {algorithm-generated: 29.10,", "agent: {algorithm-generated: yes,",
     "who_and_when_published.yaml:methods[random]:agent.algorithm-generated: Input should be a "
     "valid number (found true)"),
    ("logs: {algorithm-generated: 126,", "logs: {algorithm-generated: 126.5,",
     "who_and_when_published.yaml:logs:algorithm-generated: Input should be a valid integer "
     "(found 126.5)"),
])
def test_published_accuracies_are_numbers_as_written(data_copy, old, new, expected):
    """A quoted number or a YAML boolean is not silently read as a number."""
    replace_in(data_copy / "who_and_when_published.yaml", old, new)
    assert problem_lines("who_and_when_published", data_copy) == [expected]
